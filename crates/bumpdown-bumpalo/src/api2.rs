//! `&Bump` as an allocator: allocator-api2 0.2's `Allocator` (bumpalo's `allocator-api2`
//! feature) and, on a nightly compiler, the unstable `core::alloc::Allocator` (bumpalo's
//! `allocator_api`). Every method forwards to `&Arena`'s implementation in bumpdown.

use core::alloc::Layout;
use core::ptr::NonNull;

use crate::Bump;

macro_rules! forward_allocator {
    ($allocator:path, $error:path) => {
        // SAFETY: every method forwards to the implementation for `&Arena` of the arena
        // this `Bump` owns, which keeps the trait's promises; the blocks are valid until
        // the arena is reset or dropped, which needs `&mut` to (or ownership of) the
        // `Bump`, impossible while this `&Bump` is borrowed; copies of the reference are
        // the same allocator.
        unsafe impl<const MIN_ALIGN: usize> $allocator for &Bump<MIN_ALIGN> {
            #[inline(always)]
            fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, $error> {
                <&bumpdown::Arena<MIN_ALIGN> as $allocator>::allocate(&&***self, layout)
            }

            #[inline]
            fn allocate_zeroed(&self, layout: Layout) -> Result<NonNull<[u8]>, $error> {
                <&bumpdown::Arena<MIN_ALIGN> as $allocator>::allocate_zeroed(&&***self, layout)
            }

            #[inline]
            unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
                // SAFETY: forwarded from the caller: `ptr` is a live block of this arena.
                unsafe { <&bumpdown::Arena<MIN_ALIGN> as $allocator>::deallocate(&&***self, ptr, layout) }
            }

            #[inline]
            unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<[u8]>, $error> {
                // SAFETY: forwarded from the caller.
                unsafe { <&bumpdown::Arena<MIN_ALIGN> as $allocator>::grow(&&***self, ptr, old, new) }
            }

            #[inline]
            unsafe fn grow_zeroed(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<[u8]>, $error> {
                // SAFETY: forwarded from the caller.
                unsafe { <&bumpdown::Arena<MIN_ALIGN> as $allocator>::grow_zeroed(&&***self, ptr, old, new) }
            }

            #[inline]
            unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<[u8]>, $error> {
                // SAFETY: forwarded from the caller.
                unsafe { <&bumpdown::Arena<MIN_ALIGN> as $allocator>::shrink(&&***self, ptr, old, new) }
            }
        }
    };
}

#[cfg(feature = "allocator-api2")]
forward_allocator!(allocator_api2::alloc::Allocator, allocator_api2::alloc::AllocError);

#[cfg(all(feature = "allocator_api", bumpdown_nightly))]
forward_allocator!(core::alloc::Allocator, core::alloc::AllocError);
