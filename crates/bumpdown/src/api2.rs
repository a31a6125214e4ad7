//! `&Arena`, `&FixedArena`, `&LocalArena` and `&VmArena` as an
//! `allocator_api2::alloc::Allocator` of allocator-api2 0.2 (the version
//! hashbrown uses), 0.3 and 0.4, each behind its feature, and as the unstable
//! `core::alloc::Allocator` with the `nightly-allocator-api` feature.
//! Each method forwards to the `*_raw` routines of `engine.rs`: one semantics for every face.

use core::alloc::Layout;
use core::ptr::NonNull;

use crate::arena::Arena;
use crate::backing::BackingAllocator;
use crate::engine::Cursor;

/// Turns a block pointer and size into the slice pointer the trait returns.
fn block(ptr: NonNull<u8>, size: usize) -> NonNull<[u8]> {
    NonNull::slice_from_raw_parts(ptr, size)
}

/// `grow`'s body, out of line and given the face by value (`&F`, not the allocator's
/// `&&F`): a collection that keeps its allocator as a field then passes no address of
/// itself to the call, so the compiler can keep its length and buffer pointer in
/// registers across the element writes of a push or extend loop. With `&self` passed
/// down instead, `allocator_api2`'s `Vec<u8, &Arena>` stored its length to memory after
/// every byte of `extend_from_slice` (a `u8` store may alias anything whose address
/// escaped).
///
/// # Safety
/// As `Cursor::grow_raw`.
#[inline(never)]
unsafe fn grow_out_of_line<F: Cursor>(
    face: &F,
    ptr: NonNull<u8>,
    old: Layout,
    new: Layout,
) -> Result<NonNull<u8>, crate::error::AllocError> {
    // SAFETY: the caller's contract is `grow_raw`'s.
    unsafe { face.grow_raw(ptr, old, new) }
}

macro_rules! impl_allocator {
    ($allocator:path, $error:path) => {
        impl_allocator!($allocator, $error, [const MIN_ALIGN: usize, A: BackingAllocator] Arena<MIN_ALIGN, A>);
        impl_allocator!($allocator, $error, [const MIN_ALIGN: usize] crate::fixed::FixedArena<'_, MIN_ALIGN>);
        #[cfg(feature = "std")]
        impl_allocator!($allocator, $error, [A: BackingAllocator] crate::sync::LocalArena<'_, A>);
        #[cfg(all(feature = "std", unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
        impl_allocator!($allocator, $error, [const MIN_ALIGN: usize] crate::vm::VmArena<MIN_ALIGN>);
    };
    ($allocator:path, $error:path, [$($generics:tt)*] $arena:ty) => {
        // SAFETY: blocks come from the arena and stay valid until it is reset or dropped,
        // which needs `&mut` to the arena or ownership, impossible while `&` to it (this
        // allocator) is borrowed (a `LocalArena`'s blocks live in its shared arena, whose
        // reset needs `&mut` to that arena, which the handle borrows); copies of the
        // reference are the same allocator; no block is handed out twice.
        unsafe impl<$($generics)*> $allocator for &$arena {
            #[inline(always)]
            fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, $error> {
                match self.try_alloc_layout(layout) {
                    Ok(p) => Ok(block(p, layout.size())),
                    Err(_) => Err($error),
                }
            }

            #[inline]
            fn allocate_zeroed(&self, layout: Layout) -> Result<NonNull<[u8]>, $error> {
                match self.try_alloc_zeroed_layout(layout) {
                    Ok(p) => Ok(block(p, layout.size())),
                    Err(_) => Err($error),
                }
            }

            #[inline]
            unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
                // SAFETY: the trait's caller promises `ptr` is a live block of this
                // allocator with `layout`, not used again.
                unsafe { self.dealloc_raw(ptr, layout) }
            }

            // The work is out of line (inlined into a caller's push loop, the capacity
            // arithmetic around it would sit on that loop's hot path), and gets the
            // arena reference by value (see `grow_out_of_line`).
            #[inline(always)]
            unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<[u8]>, $error> {
                // SAFETY: the trait's caller promises `ptr` is live with `old` and
                // `new.size() >= old.size()`.
                match unsafe { grow_out_of_line(*self, ptr, old, new) } {
                    Ok(p) => Ok(block(p, new.size())),
                    Err(_) => Err($error),
                }
            }

            #[inline]
            unsafe fn grow_zeroed(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<[u8]>, $error> {
                // SAFETY: as in `grow`.
                let p = match unsafe { self.grow_raw(ptr, old, new) } {
                    Ok(p) => p,
                    Err(_) => return Err($error),
                };
                // SAFETY: the new block has `new.size()` bytes, the first `old.size()`
                // copied; zero the rest.
                unsafe { p.as_ptr().add(old.size()).write_bytes(0, new.size() - old.size()) };
                Ok(block(p, new.size()))
            }

            #[inline]
            unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<[u8]>, $error> {
                // SAFETY: the trait's caller promises `ptr` is live with `old` and
                // `new.size() <= old.size()`.
                match unsafe { self.shrink_raw(ptr, old, new) } {
                    Ok(p) => Ok(block(p, new.size())),
                    Err(_) => Err($error),
                }
            }
        }
    };
}

#[cfg(feature = "allocator-api2")]
impl_allocator!(allocator_api2::alloc::Allocator, allocator_api2::alloc::AllocError);

#[cfg(feature = "allocator-api2-03")]
impl_allocator!(allocator_api2_03::alloc::Allocator, allocator_api2_03::alloc::AllocError);

#[cfg(feature = "allocator-api2-04")]
impl_allocator!(allocator_api2_04::alloc::Allocator, allocator_api2_04::alloc::AllocError);

#[cfg(all(feature = "nightly-allocator-api", bumpdown_nightly))]
impl_allocator!(core::alloc::Allocator, core::alloc::AllocError);
