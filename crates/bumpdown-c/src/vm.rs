//! The virtual-memory arena of `bumpdown.h` (`bd_vm_*`): a
//! [`VmArena`](bumpdown::VmArena) behind a handle of its own type, because it bumps the
//! other way.
//!
//! A `bd_vm_arena *` is a [`VmArena<1>`](bumpdown::VmArena) in a block of its own from
//! the global allocator. Its first two fields, `top` (the next free byte) and
//! `committed` (the end of the usable part), are the header's `bd_vm_arena` prefix: the
//! inline `bd_vm_alloc` moves `top` **up** and calls
//! [`bd_vm_alloc_slow`](crate::vm::bd_vm_alloc_slow) when the committed part has no room.
//! C only ever raises `top`; everything that lowers it (reset, rewind, shrinking the
//! newest block) goes through the core, which keeps its record of the dirty bytes (what
//! `bd_vm_alloc_zeroed` relies on to skip fresh pages) true.
//!
//! In-place growth and shrinking of the newest block is the core's allocator-api2
//! `grow`/`shrink` on `&VmArena`, the one public door to it.

use core::alloc::Layout;
use core::ffi::{c_int, c_void};
use core::ptr::{self, NonNull};

use allocator_api2::alloc::Allocator;
use bumpdown::{ResetPolicy, VmArena, VmOptions};

use crate::checkpoint::{self, bd_checkpoint};
use crate::errors::{alloc_errno, alloc_or_null, fail, guard, null_with, EINVAL, ENOMEM};
use crate::ffi::{BD_ERR_INTERNAL, BD_ERR_NULL, BD_OK};

/// The arena a `bd_vm_arena *` points at. C sees its first two fields.
#[allow(non_camel_case_types)]
pub type bd_vm_arena = VmArena<1>;

/// `bd_vm_options.flags`: do not fault each committed batch in ahead of use.
pub const BD_VM_NO_POPULATE: c_int = 1;
/// `bd_vm_options.flags`: ask for transparent huge pages.
pub const BD_VM_HUGE_PAGES: c_int = 2;
/// `bd_vm_options.reset_policy`: a reset keeps every page (the default).
pub const BD_VM_KEEP_PAGES: c_int = 0;
/// `bd_vm_options.reset_policy`: a reset gives the pages above `release_above` bytes
/// back to the system.
pub const BD_VM_RELEASE_ABOVE: c_int = 1;

/// Options of a virtual-memory arena (see `bumpdown.h`). All zero but `reserve` means
/// the defaults.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct bd_vm_options {
    /// Bytes of address space to reserve.
    pub reserve: usize,
    /// The largest commit step (0: the default, 128 KiB).
    pub commit_batch: usize,
    /// Most bytes committed (0: no limit beyond the reservation).
    pub limit: usize,
    /// With `BD_VM_RELEASE_ABOVE`: the bytes whose pages a reset keeps.
    pub release_above: usize,
    /// `BD_VM_NO_POPULATE`, `BD_VM_HUGE_PAGES`, or'ed.
    pub flags: c_int,
    /// `BD_VM_KEEP_PAGES` or `BD_VM_RELEASE_ABOVE`.
    pub reset_policy: c_int,
}

/// A virtual-memory arena's memory use (see `bumpdown.h`).
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bd_vm_stats {
    /// Bytes of address space reserved.
    pub reserved: usize,
    /// Bytes committed (usable without a system call).
    pub committed: usize,
    /// Bytes in use, padding included.
    pub used: usize,
    /// Most bytes in use at once.
    pub peak_used: usize,
}

/// The core's options for `opts`, or the `errno` for options that make no sense.
fn vm_options(opts: &bd_vm_options) -> Result<VmOptions, c_int> {
    if opts.flags & !(BD_VM_NO_POPULATE | BD_VM_HUGE_PAGES) != 0 {
        return Err(EINVAL);
    }
    let reset = match opts.reset_policy {
        BD_VM_KEEP_PAGES => ResetPolicy::KeepPages,
        BD_VM_RELEASE_ABOVE => ResetPolicy::ReleaseAbove(opts.release_above),
        _ => return Err(EINVAL),
    };
    let mut options = VmOptions::new(opts.reserve)
        .populate(opts.flags & BD_VM_NO_POPULATE == 0)
        .huge_pages(opts.flags & BD_VM_HUGE_PAGES != 0)
        .reset_policy(reset);
    if opts.commit_batch > 0 {
        options = options.commit_batch(opts.commit_batch);
    }
    Ok(options)
}

/// Reserves the arena and puts it in a block of its own.
fn create(opts: &bd_vm_options) -> Result<NonNull<bd_vm_arena>, c_int> {
    let arena = VmArena::<1>::try_with_options(vm_options(opts)?).map_err(alloc_errno)?;
    if opts.limit > 0 {
        arena.set_allocation_limit(Some(opts.limit));
    }
    // Not `Box::new`: it aborts when memory runs out, and the C API reports ENOMEM.
    let layout = Layout::new::<bd_vm_arena>();
    // SAFETY: `bd_vm_arena` is not zero-sized.
    let block = NonNull::new(unsafe { std::alloc::alloc(layout) }.cast::<bd_vm_arena>()).ok_or(ENOMEM)?;
    // SAFETY: a fresh block with `bd_vm_arena`'s layout.
    unsafe { block.as_ptr().write(arena) };
    Ok(block)
}

/// Creates a virtual-memory arena reserving `reserve` bytes, with default options.
///
/// # Safety
/// None; `unsafe` as every function of the C API.
#[no_mangle]
pub unsafe extern "C" fn bd_vm_create(reserve: usize) -> *mut bd_vm_arena {
    let opts = bd_vm_options { reserve, ..Default::default() };
    // SAFETY: a valid options struct.
    unsafe { bd_vm_create_with(&opts) }
}

/// Creates a virtual-memory arena with `opts`.
///
/// # Safety
/// `opts` is NULL or points at a `bd_vm_options`.
#[no_mangle]
pub unsafe extern "C" fn bd_vm_create_with(opts: *const bd_vm_options) -> *mut bd_vm_arena {
    guard(ptr::null_mut(), || {
        // SAFETY: NULL or a valid `bd_vm_options` (the caller).
        let Some(opts) = (unsafe { opts.as_ref() }) else { return null_with(EINVAL).cast() };
        match create(opts) {
            Ok(arena) => arena.as_ptr(),
            Err(errno) => null_with(errno).cast(),
        }
    })
}

/// Destroys a virtual-memory arena, releasing its reservation; NULL is ignored.
///
/// # Safety
/// `arena` is NULL or a live handle, not used again, and none of its allocations are.
#[no_mangle]
pub unsafe extern "C" fn bd_vm_destroy(arena: *mut bd_vm_arena) {
    if arena.is_null() {
        return;
    }
    // SAFETY: a block from `create`, written once, given up by the caller.
    guard((), || unsafe {
        ptr::drop_in_place(arena);
        std::alloc::dealloc(arena.cast(), Layout::new::<bd_vm_arena>());
    })
}

/// The slow path of `bd_vm_alloc`, and a complete allocation on its own.
///
/// # Safety
/// `arena` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn bd_vm_alloc_slow(arena: *mut bd_vm_arena, size: usize, align: usize) -> *mut c_void {
    guard(ptr::null_mut(), || {
        // SAFETY: NULL or a live handle (the caller).
        let Some(arena) = (unsafe { arena.as_ref() }) else { return null_with(EINVAL) };
        alloc_or_null(size, align, |layout| arena.try_alloc_layout(layout))
    })
}

/// Allocates `size` zeroed bytes, skipping the memset on never-used memory.
///
/// # Safety
/// `arena` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn bd_vm_alloc_zeroed(arena: *mut bd_vm_arena, size: usize, align: usize) -> *mut c_void {
    guard(ptr::null_mut(), || {
        // SAFETY: NULL or a live handle (the caller).
        let Some(arena) = (unsafe { arena.as_ref() }) else { return null_with(EINVAL) };
        alloc_or_null(size, align, |layout| arena.try_alloc_zeroed_layout(layout))
    })
}

/// `count` zeroed elements of `size` bytes; an overflowing product is `EINVAL`.
///
/// # Safety
/// `arena` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn bd_vm_calloc(arena: *mut bd_vm_arena, count: usize, size: usize, align: usize) -> *mut c_void {
    let Some(total) = count.checked_mul(size) else { return null_with(EINVAL) };
    // SAFETY: forwarded from the caller.
    unsafe { bd_vm_alloc_zeroed(arena, total, align) }
}

/// Resizes the block at `ptr` (`old_size` bytes, alignment `align`): in place when it is
/// the newest allocation, otherwise a shrink keeps it and a growth copies it.
///
/// # Safety
/// `arena` is NULL or a live handle; `ptr` is NULL (with `old_size` 0) or a live block
/// of this arena of `old_size` bytes, allocated (or last resized) with alignment `align`.
#[no_mangle]
pub unsafe extern "C" fn bd_vm_realloc_last(
    arena: *mut bd_vm_arena,
    ptr: *mut c_void,
    old_size: usize,
    new_size: usize,
    align: usize,
) -> *mut c_void {
    guard(ptr::null_mut(), || {
        // SAFETY: NULL or a live handle (the caller).
        let Some(arena) = (unsafe { arena.as_ref() }) else { return null_with(EINVAL) };
        let (Ok(old), Ok(new)) = (Layout::from_size_align(old_size, align), Layout::from_size_align(new_size, align))
        else {
            return null_with(EINVAL);
        };
        let Some(block) = NonNull::new(ptr.cast::<u8>()) else {
            if old_size != 0 {
                return null_with(EINVAL);
            }
            return match arena.try_alloc_layout(new) {
                Ok(p) => p.as_ptr().cast(),
                Err(err) => null_with(alloc_errno(err)),
            };
        };
        // Not `grow` for equal sizes: it would move a block that is not the newest.
        let resized = if new_size > old_size {
            // SAFETY: a live block of this arena with layout `old` (the caller), growing.
            unsafe { arena.grow(block, old, new) }
        } else {
            // SAFETY: a live block of this arena with layout `old` (the caller), not
            // growing; with the same alignment it stays in place.
            unsafe { arena.shrink(block, old, new) }
        };
        match resized {
            Ok(p) => p.as_ptr().cast(),
            // Both layouts are valid, so what failed is committing or allocating memory.
            Err(_) => null_with(ENOMEM),
        }
    })
}

/// Frees every allocation; pages are kept or released per the reset policy.
///
/// # Safety
/// `arena` is NULL or a live handle; no allocation of it is used again.
#[no_mangle]
pub unsafe extern "C" fn bd_vm_reset(arena: *mut bd_vm_arena) -> c_int {
    // SAFETY: NULL or a live handle whose allocations are dead (the caller).
    let Some(arena) = (unsafe { arena.as_mut() }) else { return fail(BD_ERR_NULL) };
    guard(BD_ERR_INTERNAL, || {
        arena.reset();
        BD_OK
    })
}

/// Saves the arena's position in `*out`.
///
/// # Safety
/// `arena` is NULL or a live handle; `out` is NULL or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn bd_vm_checkpoint_save(arena: *mut bd_vm_arena, out: *mut bd_checkpoint) -> c_int {
    // SAFETY: NULL or a live handle (the caller).
    let (Some(arena), false) = (unsafe { arena.as_ref() }, out.is_null()) else { return fail(BD_ERR_NULL) };
    // SAFETY: `out` is valid for writes (the caller).
    unsafe { checkpoint::save(out, || Ok(arena.checkpoint())) }
}

/// Frees everything allocated after `*cp` was taken.
///
/// # Safety
/// `arena` is NULL or a live handle; `cp` is NULL or points at an initialized
/// `bd_checkpoint`; no allocation made after the checkpoint is used again.
#[no_mangle]
pub unsafe extern "C" fn bd_vm_rewind(arena: *mut bd_vm_arena, cp: *const bd_checkpoint) -> c_int {
    // SAFETY: NULL or a live handle whose later allocations are dead (the caller).
    let (Some(arena), false) = (unsafe { arena.as_mut() }, cp.is_null()) else { return fail(BD_ERR_NULL) };
    // SAFETY: an initialized checkpoint struct (the caller). The core checks the
    // checkpoint belongs to this arena and is not stale.
    unsafe { checkpoint::rewind(cp, |cp| arena.try_rewind(cp)) }
}

/// Fills `*out` with the arena's statistics.
///
/// # Safety
/// `arena` is NULL or a live handle; `out` is NULL or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn bd_vm_arena_stats(arena: *mut bd_vm_arena, out: *mut bd_vm_stats) -> c_int {
    // SAFETY: NULL or a live handle (the caller).
    let (Some(arena), false) = (unsafe { arena.as_ref() }, out.is_null()) else { return fail(BD_ERR_NULL) };
    guard(BD_ERR_INTERNAL, || {
        let s = arena.stats();
        let stats = bd_vm_stats {
            reserved: arena.reserved(),
            committed: arena.allocated_bytes(),
            used: s.used,
            peak_used: s.peak_used,
        };
        // SAFETY: `out` is valid for writes (the caller).
        unsafe { out.write(stats) };
        BD_OK
    })
}
