//! `ArenaAllocator`: the four block operations a collection needs, implemented by every
//! arena type.
//!
//! Every face that is a `Cursor` (`engine.rs`: `Arena`, `FixedArena`, `VmArena`,
//! `LocalArena`) already has them, written once there; a `Scope` hands its bump pointer
//! to its arena for the call and takes it back. The guards forward to what they deref to.

use core::alloc::Layout;
use core::any::TypeId;
use core::ptr::NonNull;

use crate::arena::Arena;
use crate::backing::BackingAllocator;
use crate::buffered::BufferArena;
use crate::engine::Cursor;
use crate::error::AllocError;
use crate::fixed::{FixedArena, FixedScopeGuard};
use crate::scope::{Scope, ScopeGuard};

/// What the [collections](crate::collections) need from an arena: allocate a block,
/// grow, shrink and free it. Every bumpdown arena type implements it; the collections
/// keep a `&dyn ArenaAllocator`, so their types do not name the arena.
///
/// Growing and freeing are cheap only for the arena's newest allocation (its space is
/// reused at once); any other block is left in place until the arena is reset.
///
/// # Safety
/// An implementation guarantees, for blocks obtained through `&'a self`:
/// * a block returned by `allocate`, `grow` or `shrink` is valid for reads and writes of
///   its layout's size, aligned to its layout's alignment, and not handed out again, until
///   it is passed to `grow`, `shrink` or `deallocate` or the borrow `'a` ends;
/// * `grow` and `shrink` keep the first `min(old.size(), new.size())` bytes.
///
/// ```
/// use bumpdown::collections::ArenaAllocator;
/// use core::alloc::Layout;
///
/// let arena = bumpdown::Arena::new();
/// let old = Layout::array::<u32>(2).unwrap();
/// let new = Layout::array::<u32>(8).unwrap();
/// let p = arena.allocate(old).unwrap();
/// // SAFETY: `p` is a live block of `arena` with layout `old`, not used again after.
/// let q = unsafe { arena.grow(p, old, new) }.unwrap();
/// // SAFETY: `q` is the grown block, now no longer used.
/// unsafe { arena.deallocate(q, new) };
/// assert_eq!(arena.stats().used, 0); // the newest block went back at once
/// ```
pub unsafe trait ArenaAllocator {
    /// Allocates an uninitialized block for `layout`.
    fn allocate(&self, layout: Layout) -> Result<NonNull<u8>, AllocError>;

    /// Grows a block to `new` (`new.size() >= old.size()`), keeping its contents. On
    /// error the old block is untouched and still valid.
    ///
    /// # Safety
    /// `ptr` is a live block of this arena allocated with `old`; on success it is not used
    /// again (the returned block replaces it).
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<u8>, AllocError>;

    /// Shrinks a block to `new` (`new.size() <= old.size()`), keeping its first
    /// `new.size()` bytes. On error the old block is untouched and still valid.
    ///
    /// # Safety
    /// As for [`grow`](ArenaAllocator::grow).
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<u8>, AllocError>;

    /// Gives a block back: its space is reused at once if it is the newest allocation.
    ///
    /// # Safety
    /// `ptr` is a live block of this arena allocated with `layout`, not used again.
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout);

    /// The implementing type's `TypeId`, or `None` (the default). A collection keeps its
    /// arena as `&dyn ArenaAllocator`; this is how [`Vec::arena_as`](super::Vec::arena_as)
    /// finds the arena's own type again (bumpalo's `Vec::bump()` returns its `&Bump`).
    ///
    /// An implementation that overrides it must return `Some(TypeId::of::<Self>())`, and
    /// nothing else: `arena_as` casts the arena to the type this names.
    ///
    /// ```
    /// use bumpdown::collections::ArenaAllocator;
    ///
    /// assert_eq!(bumpdown::Arena::new().arena_type_id(), None);
    /// ```
    #[inline]
    fn arena_type_id(&self) -> Option<TypeId> {
        None
    }
}

/// Forwards every method to the arena's own allocation and resizing routines
/// (`try_alloc_layout`, and `grow_raw`, `shrink_raw`, `dealloc_raw` of `engine.rs`: one
/// semantics for every face).
macro_rules! forward_to_raw {
    ($(impl[$($gen:tt)*] $ty:ty;)*) => {$(
        // SAFETY: blocks come from the arena's allocation API and its resizing
        // routines, which keep them valid and unshared until the arena is reset, rewound
        // or dropped, each of which needs `&mut` to it or ownership, impossible while
        // `&self` is borrowed (a `LocalArena`'s blocks live in its shared arena, whose
        // reset needs `&mut` to that arena, which the handle borrows).
        unsafe impl<$($gen)*> ArenaAllocator for $ty {
            #[inline]
            fn allocate(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
                self.try_alloc_layout(layout)
            }

            #[inline]
            unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<u8>, AllocError> {
                // SAFETY: forwarded from the caller; `new.size() >= old.size()` is the
                // caller's.
                unsafe { self.grow_raw(ptr, old, new) }
            }

            #[inline]
            unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<u8>, AllocError> {
                // SAFETY: forwarded from the caller.
                unsafe { self.shrink_raw(ptr, old, new) }
            }

            #[inline]
            unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
                // SAFETY: forwarded from the caller.
                unsafe { self.dealloc_raw(ptr, layout) }
            }
        }
    )*};
}

forward_to_raw! {
    impl[const MIN_ALIGN: usize, A: BackingAllocator] Arena<MIN_ALIGN, A>;
    impl[const MIN_ALIGN: usize] FixedArena<'_, MIN_ALIGN>;
}

// SAFETY: the scope's allocations live for its brand `'s`, which outlives any borrow of
// the handle; the arena is the scope's alone while it lives, and `with_arena` hands the
// scope's bump pointer to it for the call, so the arena's routines see the scope's
// newest block exactly as the scope does.
unsafe impl<const MIN_ALIGN: usize, A: BackingAllocator> ArenaAllocator for Scope<'_, '_, MIN_ALIGN, A> {
    #[inline]
    fn allocate(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        self.try_alloc_layout(layout)
    }

    #[inline]
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<u8>, AllocError> {
        // SAFETY: forwarded from the caller: a block of this scope is a block of its arena.
        self.with_arena(|arena| unsafe { arena.grow_raw(ptr, old, new) })
    }

    #[inline]
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<u8>, AllocError> {
        // SAFETY: as in `grow`.
        self.with_arena(|arena| unsafe { arena.shrink_raw(ptr, old, new) })
    }

    #[inline]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: as in `grow`.
        self.with_arena(|arena| unsafe { arena.dealloc_raw(ptr, layout) })
    }
}

/// Forwards every method to the arena the type derefs to.
macro_rules! forward_to_deref {
    ($(impl[$($gen:tt)*] $ty:ty;)*) => {$(
        // SAFETY: the guard or buffer arena hands out the blocks of the arena it derefs
        // to; they stay valid while the guard (borrowed for `'a`) lives.
        unsafe impl<$($gen)*> ArenaAllocator for $ty {
            #[inline]
            fn allocate(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
                (**self).allocate(layout)
            }

            #[inline]
            unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<u8>, AllocError> {
                // SAFETY: forwarded from the caller.
                unsafe { (**self).grow(ptr, old, new) }
            }

            #[inline]
            unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<u8>, AllocError> {
                // SAFETY: forwarded from the caller.
                unsafe { (**self).shrink(ptr, old, new) }
            }

            #[inline]
            unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
                // SAFETY: forwarded from the caller.
                unsafe { (**self).deallocate(ptr, layout) }
            }
        }
    )*};
}

forward_to_deref! {
    impl[const MIN_ALIGN: usize, A: BackingAllocator] ScopeGuard<'_, MIN_ALIGN, A>;
    impl[const MIN_ALIGN: usize, A: BackingAllocator] BufferArena<'_, MIN_ALIGN, A>;
    impl[const MIN_ALIGN: usize] FixedScopeGuard<'_, '_, MIN_ALIGN>;
}

#[cfg(all(feature = "std", unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
mod vm {
    use super::*;
    use crate::vm::{VmArena, VmScopeGuard};

    forward_to_raw! {
        impl[const MIN_ALIGN: usize] VmArena<MIN_ALIGN>;
    }

    forward_to_deref! {
        impl[const MIN_ALIGN: usize] VmScopeGuard<'_, MIN_ALIGN>;
    }
}

#[cfg(feature = "std")]
forward_to_raw! {
    impl[A: BackingAllocator] crate::sync::LocalArena<'_, A>;
}
