//! Where an arena gets its chunks from.

use core::alloc::Layout;
use core::ptr::NonNull;

/// The allocator an arena takes its chunks from.
///
/// [`Global`] (the program's global allocator) is the default. Implement this trait to
/// put an arena on top of anything that can hand out blocks: a pool, a counting or
/// failing allocator in tests, a region of a memory-mapped file.
///
/// # Safety
/// `allocate` must return either `None` or a block valid for reads and writes of
/// `layout.size()` bytes, aligned to `layout.align()`, that stays valid and is not
/// handed out again until it is passed to `deallocate`.
///
/// ```
/// use bumpdown::{Arena, BackingAllocator, Global};
/// use core::alloc::Layout;
/// use core::cell::Cell;
/// use core::ptr::NonNull;
///
/// /// Counts the blocks the arena asks for.
/// #[derive(Default)]
/// struct Counting(Cell<usize>);
///
/// // SAFETY: forwards to `Global`, which upholds the contract.
/// unsafe impl BackingAllocator for Counting {
///     fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
///         self.0.set(self.0.get() + 1);
///         Global.allocate(layout)
///     }
///     unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
///         // SAFETY: the caller passes a block from `allocate`, which came from `Global`.
///         unsafe { Global.deallocate(ptr, layout) }
///     }
/// }
///
/// let counting = Counting::default();
/// let arena: Arena<1, &Counting> = Arena::new_in(&counting);
/// arena.alloc(1u8);
/// // The arena's bookkeeping block and its first chunk.
/// assert_eq!(counting.0.get(), 2);
/// ```
pub unsafe trait BackingAllocator {
    /// Allocates a block for `layout` (whose size is never zero), or returns `None`.
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>>;

    /// Frees a block.
    ///
    /// # Safety
    /// `ptr` came from `allocate` on this allocator with this `layout`, and has not
    /// been freed since.
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout);
}

/// The program's global allocator (`alloc::alloc`), the default backing allocator.
#[cfg(feature = "alloc")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Global;

/// Without the `alloc` feature there is no global allocator, and `Global` has no value:
/// it still names the default of `Arena`'s type parameter, but no arena can be made on
/// it, so none can fail every request in silence. Use [`Arena::new_in`](crate::Arena::new_in)
/// with a backing allocator of your own, or [`FixedArena`](crate::FixedArena).
#[cfg(not(feature = "alloc"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Global {}

#[cfg(feature = "alloc")]
// SAFETY: `alloc::alloc::alloc` returns null or a block valid for the layout, which stays
// valid until `dealloc`; the layout's size is never zero, as the trait promises.
unsafe impl BackingAllocator for Global {
    #[inline]
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
        debug_assert!(layout.size() != 0);
        // SAFETY: the layout has a non-zero size (the trait's contract with its callers).
        NonNull::new(unsafe { alloc::alloc::alloc(layout) })
    }

    #[inline]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: the caller promises `ptr` came from `allocate` with `layout`, i.e. from
        // `alloc::alloc::alloc` with the same layout.
        unsafe { alloc::alloc::dealloc(ptr.as_ptr(), layout) }
    }
}

#[cfg(not(feature = "alloc"))]
// SAFETY: `Global` has no value here, so these are never called.
unsafe impl BackingAllocator for Global {
    fn allocate(&self, _layout: Layout) -> Option<NonNull<u8>> {
        match *self {}
    }

    unsafe fn deallocate(&self, _ptr: NonNull<u8>, _layout: Layout) {
        match *self {}
    }
}

// SAFETY: forwards to `A`, which upholds the contract.
unsafe impl<A: BackingAllocator + ?Sized> BackingAllocator for &A {
    #[inline]
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
        (**self).allocate(layout)
    }

    #[inline]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: forwarded unchanged; the caller's promise covers `A`.
        unsafe { (**self).deallocate(ptr, layout) }
    }
}
