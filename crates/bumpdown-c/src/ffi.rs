//! Every function of `bumpdown.h` that lives in the library, and its types.
//!
//! Each function checks its pointers, forwards to the core crate, and turns the result
//! into a return value and `errno` (see `errors.rs`); none can unwind into C. The
//! header's inline functions (`bd_alloc`, `bd_alloc_zeroed`, `bd_alloc_array`,
//! `bd_calloc`) bump in C and call [`bd_alloc_slow`] when the chunk has no room.

use core::alloc::Layout;
use core::ffi::{c_char, c_int, c_void};
use core::ptr::{self, NonNull};

use crate::checkpoint;
use crate::errors::{alloc_errno, alloc_or_null, fail, guard, null_with, EINVAL};
use crate::handle::{create_fixed, create_growable, destroy, ArenaMut};

pub use crate::checkpoint::bd_checkpoint;
pub use crate::handle::bd_arena;

pub use crate::errors::{
    BD_ERR_BAD_CHECKPOINT, BD_ERR_FOREIGN_CHECKPOINT, BD_ERR_INTERNAL, BD_ERR_NOMEM, BD_ERR_NULL,
    BD_ERR_STALE_CHECKPOINT, BD_OK,
};

/// Options of a growable arena (see `bumpdown.h`).
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct bd_options {
    /// Bytes the first chunk holds (0: none yet).
    pub initial_capacity: usize,
    /// Cap on regular chunk sizes (0: the default, 4 MiB).
    pub max_chunk_size: usize,
    /// Most bytes held from malloc, headers included (0: no limit).
    pub limit: usize,
}

/// An arena's memory use (see `bumpdown.h`).
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bd_stats {
    /// Bytes in use, padding included.
    pub used: usize,
    /// Most bytes in use at once.
    pub peak_used: usize,
    /// Usable bytes of all chunks held.
    pub capacity: usize,
    /// Bytes held from malloc, headers included.
    pub held: usize,
    /// Bytes left behind in chunks moved past.
    pub wasted: usize,
    /// Chunks held.
    pub chunks: usize,
    /// Of those, empty ones kept by a reset.
    pub spare_chunks: usize,
    /// Of those, ones holding one big allocation.
    pub big_chunks: usize,
}

/// Creates a growable arena with default options.
///
/// # Safety
/// None; `unsafe` as every function of the C API.
#[no_mangle]
pub unsafe extern "C" fn bd_arena_create() -> *mut bd_arena {
    // SAFETY: NULL options are the defaults.
    unsafe { bd_arena_create_with(ptr::null()) }
}

/// Creates a growable arena with `opts` (NULL: defaults).
///
/// # Safety
/// `opts` is NULL or points at a `bd_options`.
#[no_mangle]
pub unsafe extern "C" fn bd_arena_create_with(opts: *const bd_options) -> *mut bd_arena {
    guard(ptr::null_mut(), || {
        // SAFETY: NULL or a valid `bd_options` (the caller).
        let opts = unsafe { opts.as_ref() }.copied().unwrap_or_default();
        match create_growable(opts.initial_capacity, opts.max_chunk_size, opts.limit) {
            Ok(arena) => arena.as_ptr(),
            Err(errno) => null_with(errno).cast(),
        }
    })
}

/// Creates a fixed arena in `len` bytes at `buf`.
///
/// # Safety
/// `buf..buf + len` is valid for reads and writes and used by nothing else until the
/// arena is destroyed.
#[no_mangle]
pub unsafe extern "C" fn bd_arena_create_fixed(buf: *mut c_void, len: usize) -> *mut bd_arena {
    guard(ptr::null_mut(), || {
        // SAFETY: forwarded from the caller.
        match unsafe { create_fixed(buf.cast(), len) } {
            Ok(arena) => arena.as_ptr(),
            Err(errno) => null_with(errno).cast(),
        }
    })
}

/// Destroys an arena; NULL is ignored.
///
/// # Safety
/// `arena` is NULL or a live handle, not used again, and none of its allocations are.
#[no_mangle]
pub unsafe extern "C" fn bd_arena_destroy(arena: *mut bd_arena) {
    if let Some(arena) = NonNull::new(arena) {
        // SAFETY: a live handle, given up by the caller.
        guard((), || unsafe { destroy(arena) })
    }
}

/// The slow path of `bd_alloc`, and a complete allocation on its own.
///
/// # Safety
/// `arena` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn bd_alloc_slow(arena: *mut bd_arena, size: usize, align: usize) -> *mut c_void {
    guard(ptr::null_mut(), || {
        // SAFETY: NULL or a live handle (the caller).
        let Some(arena) = (unsafe { arena.as_ref() }) else { return null_with(EINVAL) };
        alloc_or_null(size, align, |layout| arena.try_alloc_layout(layout))
    })
}

/// Copies `len` bytes from `src` and a NUL into the arena.
///
/// # Safety
/// `arena` is a live handle; `src` is valid for reads of `len` bytes.
unsafe fn copy_string(arena: &bd_arena, src: *const c_char, len: usize) -> *mut c_char {
    let Some(size) = len.checked_add(1) else { return null_with(EINVAL).cast() };
    let layout = match Layout::from_size_align(size, 1) {
        Ok(layout) => layout,
        Err(_) => return null_with(EINVAL).cast(),
    };
    match arena.try_alloc_layout(layout) {
        Ok(dst) => {
            let dst = dst.as_ptr().cast::<c_char>();
            // SAFETY: `dst` is a fresh block of `len + 1` bytes; `src` has `len` readable
            // bytes (the caller) and is not in that fresh block.
            unsafe {
                ptr::copy_nonoverlapping(src, dst, len);
                dst.add(len).write(0);
            }
            dst
        }
        Err(err) => null_with(alloc_errno(err)).cast(),
    }
}

/// Copies a NUL-terminated string into the arena.
///
/// # Safety
/// `arena` is NULL or a live handle; `s` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn bd_strdup(arena: *mut bd_arena, s: *const c_char) -> *mut c_char {
    guard(ptr::null_mut(), || {
        // SAFETY: NULL or a live handle (the caller).
        let (Some(arena), false) = (unsafe { arena.as_ref() }, s.is_null()) else {
            return null_with(EINVAL).cast();
        };
        // SAFETY: a NUL-terminated string (the caller).
        let len = unsafe { core::ffi::CStr::from_ptr(s) }.count_bytes();
        // SAFETY: `s` has `len` readable bytes before its NUL.
        unsafe { copy_string(arena, s, len) }
    })
}

/// Copies at most `n` bytes of a string, and a NUL, into the arena.
///
/// # Safety
/// `arena` is NULL or a live handle; `s` is NULL or readable up to its first NUL or
/// `n` bytes, whichever comes first.
#[no_mangle]
pub unsafe extern "C" fn bd_strndup(arena: *mut bd_arena, s: *const c_char, n: usize) -> *mut c_char {
    guard(ptr::null_mut(), || {
        // SAFETY: NULL or a live handle (the caller).
        let (Some(arena), false) = (unsafe { arena.as_ref() }, s.is_null()) else {
            return null_with(EINVAL).cast();
        };
        let mut len = 0;
        // SAFETY: each byte read is before the first NUL and within `n` (the caller).
        while len < n && unsafe { s.add(len).read() } != 0 {
            len += 1;
        }
        // SAFETY: `s` has `len` readable bytes.
        unsafe { copy_string(arena, s, len) }
    })
}

/// Frees every allocation, keeping the chunks.
///
/// # Safety
/// `arena` is NULL or a live handle; no allocation of it is used again.
#[no_mangle]
pub unsafe extern "C" fn bd_reset(arena: *mut bd_arena) -> c_int {
    let Some(arena) = NonNull::new(arena) else { return fail(BD_ERR_NULL) };
    guard(BD_ERR_INTERNAL, || {
        // SAFETY: a live handle whose allocations are dead (the caller).
        unsafe { ArenaMut::of(arena) }.reset();
        BD_OK
    })
}

/// Frees every allocation, keeping chunks up to `retain` bytes.
///
/// # Safety
/// As for [`bd_reset`].
#[no_mangle]
pub unsafe extern "C" fn bd_reset_with_limit(arena: *mut bd_arena, retain: usize) -> c_int {
    let Some(arena) = NonNull::new(arena) else { return fail(BD_ERR_NULL) };
    guard(BD_ERR_INTERNAL, || {
        // SAFETY: a live handle whose allocations are dead (the caller).
        unsafe { ArenaMut::of(arena) }.reset_with_limit(retain);
        BD_OK
    })
}

/// Saves the arena's position in `*out`.
///
/// # Safety
/// `arena` is NULL or a live handle; `out` is NULL or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn bd_checkpoint_save(arena: *mut bd_arena, out: *mut bd_checkpoint) -> c_int {
    // SAFETY: NULL or a live handle (the caller).
    let (Some(arena), false) = (unsafe { arena.as_ref() }, out.is_null()) else { return fail(BD_ERR_NULL) };
    // SAFETY: `out` is valid for writes (the caller).
    unsafe { checkpoint::save(out, || arena.try_checkpoint()) }
}

/// Frees everything allocated after `*cp` was taken.
///
/// # Safety
/// `arena` is NULL or a live handle; `cp` is NULL or points at an initialized
/// `bd_checkpoint`; no allocation made after the checkpoint is used again.
#[no_mangle]
pub unsafe extern "C" fn bd_rewind(arena: *mut bd_arena, cp: *const bd_checkpoint) -> c_int {
    let (Some(arena), false) = (NonNull::new(arena), cp.is_null()) else { return fail(BD_ERR_NULL) };
    // SAFETY: an initialized checkpoint struct (the caller). In the closure: a live
    // handle; what was allocated after the checkpoint is dead (the caller), and the core
    // checks the checkpoint belongs to this arena's lineage.
    unsafe { checkpoint::rewind(cp, |cp| ArenaMut::of(arena).try_rewind(cp)) }
}

/// Fills `*out` with the arena's statistics.
///
/// # Safety
/// `arena` is NULL or a live handle; `out` is NULL or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn bd_arena_stats(arena: *mut bd_arena, out: *mut bd_stats) -> c_int {
    // SAFETY: NULL or a live handle (the caller).
    let (Some(arena), false) = (unsafe { arena.as_ref() }, out.is_null()) else { return fail(BD_ERR_NULL) };
    guard(BD_ERR_INTERNAL, || {
        let s = arena.stats();
        let stats = bd_stats {
            used: s.used,
            peak_used: s.peak_used,
            capacity: s.capacity,
            held: s.held_bytes,
            wasted: s.wasted,
            chunks: s.chunks,
            spare_chunks: s.spare_chunks,
            big_chunks: s.big_chunks,
        };
        // SAFETY: `out` is valid for writes (the caller).
        unsafe { out.write(stats) };
        BD_OK
    })
}
