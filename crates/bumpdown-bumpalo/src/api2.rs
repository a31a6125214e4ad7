//! `&Bump` as allocator-api2 0.2's `Allocator` (bumpalo's `allocator-api2` feature):
//! every method forwards to `&Arena`'s implementation in bumpdown.

use core::alloc::Layout;
use core::ptr::NonNull;

use allocator_api2::alloc::{AllocError, Allocator};

use crate::Bump;

// SAFETY: every method forwards to the implementation for `&Arena` of the arena this
// `Bump` owns, which keeps the trait's promises; the blocks are valid until the arena is
// reset or dropped, which needs `&mut` to (or ownership of) the `Bump`, impossible while
// this `&Bump` is borrowed; copies of the reference are the same allocator.
unsafe impl<const MIN_ALIGN: usize> Allocator for &Bump<MIN_ALIGN> {
    #[inline(always)]
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        (&***self).allocate(layout)
    }

    #[inline]
    fn allocate_zeroed(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        (&***self).allocate_zeroed(layout)
    }

    #[inline]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: forwarded from the caller: `ptr` is a live block of this arena.
        unsafe { (&***self).deallocate(ptr, layout) }
    }

    #[inline]
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: forwarded from the caller.
        unsafe { (&***self).grow(ptr, old, new) }
    }

    #[inline]
    unsafe fn grow_zeroed(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: forwarded from the caller.
        unsafe { (&***self).grow_zeroed(ptr, old, new) }
    }

    #[inline]
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: forwarded from the caller.
        unsafe { (&***self).shrink(ptr, old, new) }
    }
}
