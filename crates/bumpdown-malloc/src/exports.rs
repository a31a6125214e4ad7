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
