//! Every symbol this library exports: the malloc family, each a one-line forward.
//!
//! An `extern "C"` function cannot unwind: a panic would abort the process. Nothing in
//! the implementation panics on any input (checked arithmetic, `NULL` + `errno` instead).

use core::ffi::c_void;

use crate::malloc as m;

/// C `malloc`.
#[no_mangle]
pub extern "C" fn malloc(size: usize) -> *mut c_void {
    m::malloc(size).cast()
}

/// C `calloc`: NULL + ENOMEM when `n * size` overflows.
#[no_mangle]
pub extern "C" fn calloc(n: usize, size: usize) -> *mut c_void {
    m::calloc(n, size).cast()
}

/// C `free`.
///
/// # Safety
/// `p` is NULL or a live block from this allocator.
#[no_mangle]
pub unsafe extern "C" fn free(p: *mut c_void) {
    // SAFETY: the C contract of free is the caller's.
    unsafe { m::free(p.cast()) }
}

/// C `realloc` (glibc semantics for NULL and 0).
///
/// # Safety
/// `p` is NULL or a live block from this allocator.
#[no_mangle]
pub unsafe extern "C" fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
    // SAFETY: the C contract of realloc is the caller's.
    unsafe { m::realloc(p.cast(), size) }.cast()
}

/// C `reallocarray`.
///
/// # Safety
/// `p` is NULL or a live block from this allocator.
#[no_mangle]
pub unsafe extern "C" fn reallocarray(p: *mut c_void, n: usize, size: usize) -> *mut c_void {
    // SAFETY: the C contract of reallocarray is the caller's.
    unsafe { m::reallocarray(p.cast(), n, size) }.cast()
}

/// C `memalign`.
#[no_mangle]
pub extern "C" fn memalign(align: usize, size: usize) -> *mut c_void {
    m::memalign(align, size).cast()
}

/// C `aligned_alloc`.
#[no_mangle]
pub extern "C" fn aligned_alloc(align: usize, size: usize) -> *mut c_void {
    m::aligned_alloc(align, size).cast()
}

/// C `posix_memalign`.
///
/// # Safety
/// `out` is valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> i32 {
    // SAFETY: the C contract of posix_memalign is the caller's.
    unsafe { m::posix_memalign(out, align, size) }
}

/// C `valloc`.
#[no_mangle]
pub extern "C" fn valloc(size: usize) -> *mut c_void {
    m::valloc(size).cast()
}

/// C `pvalloc`.
#[no_mangle]
pub extern "C" fn pvalloc(size: usize) -> *mut c_void {
    m::pvalloc(size).cast()
}

/// C `malloc_usable_size`.
///
/// # Safety
/// `p` is NULL or a live block from this allocator.
#[no_mangle]
pub unsafe extern "C" fn malloc_usable_size(p: *mut c_void) -> usize {
    // SAFETY: the caller passes a live block or NULL.
    unsafe { m::malloc_usable_size(p.cast()) }
}

/// glibc's `struct mallinfo2` (2.33), field for field.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Mallinfo2 {
    /// Bytes of the reservation handed to thread windows (glibc: non-mmapped space).
    pub arena: usize,
    /// Not kept (0).
    pub ordblks: usize,
    /// Not kept (0).
    pub smblks: usize,
    /// Not kept (0).
    pub hblks: usize,
    /// Bytes live outside the region: big blocks and the system allocator's fallback.
    pub hblkhd: usize,
    /// Not kept (0), as in glibc.
    pub usmblks: usize,
    /// Not kept (0).
    pub fsmblks: usize,
    /// Bytes in use, counting every byte handed to a window as used (`arena + hblkhd`):
    /// freed blocks are reused inside the windows, not counted back.
    pub uordblks: usize,
    /// Free bytes: 0 (see `uordblks`).
    pub fordblks: usize,
    /// Not kept (0): `malloc_trim` releases nothing.
    pub keepcost: usize,
}

/// C `mallinfo2`: the allocator's own counters ([`bumpdown_global::stats`]) in glibc's
/// struct, instead of glibc's counters of a heap this process does not use.
#[no_mangle]
pub extern "C" fn mallinfo2() -> Mallinfo2 {
    let s = bumpdown_global::stats();
    Mallinfo2 { arena: s.used, hblkhd: s.fallback_live, uordblks: s.used + s.fallback_live, ..Mallinfo2::default() }
}

/// glibc's older `struct mallinfo`: `mallinfo2` with `int` fields.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Mallinfo {
    /// See [`Mallinfo2::arena`].
    pub arena: i32,
    /// See [`Mallinfo2::ordblks`].
    pub ordblks: i32,
    /// See [`Mallinfo2::smblks`].
    pub smblks: i32,
    /// See [`Mallinfo2::hblks`].
    pub hblks: i32,
    /// See [`Mallinfo2::hblkhd`].
    pub hblkhd: i32,
    /// See [`Mallinfo2::usmblks`].
    pub usmblks: i32,
    /// See [`Mallinfo2::fsmblks`].
    pub fsmblks: i32,
    /// See [`Mallinfo2::uordblks`].
    pub uordblks: i32,
    /// See [`Mallinfo2::fordblks`].
    pub fordblks: i32,
    /// See [`Mallinfo2::keepcost`].
    pub keepcost: i32,
}

/// C `mallinfo` (deprecated in glibc): `mallinfo2`, each field saturated at `INT_MAX`
/// rather than wrapped as glibc's are.
#[no_mangle]
pub extern "C" fn mallinfo() -> Mallinfo {
    let i = mallinfo2();
    let int = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    Mallinfo { arena: int(i.arena), hblkhd: int(i.hblkhd), uordblks: int(i.uordblks), ..Mallinfo::default() }
}

/// C `malloc_trim`: returns 0, "no memory released". The region gives nothing back to
/// the OS while the process runs (freed blocks are reused inside it), and glibc's
/// `malloc_trim` would only walk glibc's heap, which this process does not use.
#[no_mangle]
pub extern "C" fn malloc_trim(_pad: usize) -> i32 {
    0
}
