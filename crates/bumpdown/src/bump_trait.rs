//! The `Bump` trait: what code generic over arenas needs (Bumper.jl's `alloc_ptr!`,
//! `checkpoint_save` and `checkpoint_restore!`).

use core::alloc::Layout;
use core::ptr::NonNull;

use crate::arena::Arena;
use crate::backing::BackingAllocator;
use crate::checkpoint::{Checkpoint, RewindError};
use crate::error::{alloc_failed, AllocError};
use crate::scope::ScopeGuard;

/// An arena: allocate raw blocks, save a position, rewind to it.
///
/// Implemented by [`Arena`] and [`ScopeGuard`]; implement it for your own allocator to
/// use it with code written against the trait. A [`Scope`](crate::Scope) does not
/// implement it: its allocations live for the whole scope, so a rewind in the middle
/// could not prove them dead. Use a nested scope instead.
///
/// ```
/// use bumpdown::{Arena, Bump};
/// use core::alloc::Layout;
///
/// /// Sums `n` squares using a temporary buffer from any arena.
/// fn sum_of_squares<B: Bump>(arena: &mut B, n: usize) -> u64 {
///     let cp = arena.checkpoint();
///     let buf = arena.alloc_layout(Layout::array::<u64>(n).unwrap()).cast::<u64>();
///     let mut sum = 0;
///     for i in 0..n {
///         // SAFETY: `buf` has room for `n` u64s.
///         unsafe { buf.as_ptr().add(i).write((i * i) as u64) };
///         sum += (i * i) as u64;
///     }
///     arena.rewind(cp);
///     sum
/// }
///
/// let mut arena = Arena::new();
/// assert_eq!(sum_of_squares(&mut arena, 4), 14);
/// let mut guard = arena.scope_guard();
/// assert_eq!(sum_of_squares(&mut guard, 3), 5);
/// ```
pub trait Bump {
    /// A saved position.
    type Checkpoint: Copy;

    /// Allocates an uninitialized block for `layout`, or returns why not.
    fn try_alloc_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError>;

    /// Allocates an uninitialized block for `layout`.
    ///
    /// # Panics
    /// If the allocation fails.
    #[track_caller]
    fn alloc_layout(&self, layout: Layout) -> NonNull<u8> {
        match self.try_alloc_layout(layout) {
            Ok(p) => p,
            Err(err) => alloc_failed(layout.size(), layout.align(), err),
        }
    }

    /// Saves the current position.
    fn checkpoint(&self) -> Self::Checkpoint;

    /// Frees everything allocated after `checkpoint`, or returns why it cannot.
    fn try_rewind(&mut self, checkpoint: Self::Checkpoint) -> Result<(), RewindError>;

    /// Frees everything allocated after `checkpoint`.
    ///
    /// # Panics
    /// If the checkpoint is foreign or stale.
    #[track_caller]
    fn rewind(&mut self, checkpoint: Self::Checkpoint) {
        if let Err(err) = self.try_rewind(checkpoint) {
            panic!("bumpdown: cannot rewind: {err}");
        }
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Bump for Arena<MIN_ALIGN, A> {
    type Checkpoint = Checkpoint;

    #[inline(always)]
    fn try_alloc_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        Arena::try_alloc_layout(self, layout)
    }

    fn checkpoint(&self) -> Checkpoint {
        Arena::checkpoint(self)
    }

    fn try_rewind(&mut self, checkpoint: Checkpoint) -> Result<(), RewindError> {
        Arena::try_rewind(self, checkpoint)
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Bump for ScopeGuard<'_, MIN_ALIGN, A> {
    type Checkpoint = Checkpoint;

    #[inline(always)]
    fn try_alloc_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        Arena::try_alloc_layout(self, layout)
    }

    fn checkpoint(&self) -> Checkpoint {
        Arena::checkpoint(self)
    }

    /// Rewinds to a checkpoint taken since this guard began (an older one is refused as
    /// stale: the allocations before the guard are not the guard's to free).
    fn try_rewind(&mut self, checkpoint: Checkpoint) -> Result<(), RewindError> {
        self.try_rewind_guarded(checkpoint)
    }
}
