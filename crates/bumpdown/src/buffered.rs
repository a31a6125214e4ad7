//! `BufferArena`: an arena that starts in a caller's buffer and spills into heap chunks
//! only when the buffer is full (C++'s `monotonic_buffer_resource` with an initial
//! buffer). Reset returns to the buffer first.

use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::ops::Deref;

use crate::alloc_api::prelude::*;
use crate::arena::Arena;
use crate::backing::{BackingAllocator, Global};
use crate::bump_trait::Bump;
use crate::checkpoint::{Checkpoint, RewindError};
use crate::scope::{Scope, ScopeGuard};

/// An [`Arena`] whose first chunk is a buffer you lend it; see [`Arena::with_buffer`].
/// Derefs to the arena for allocating; the methods that need `&mut Arena` are here.
pub struct BufferArena<'buf, const MIN_ALIGN: usize = 1, A: BackingAllocator = Global> {
    // INVARIANT: `arena`'s borrowed chunk (if the buffer was big enough to make one) is
    // the buffer, which `'buf` keeps alive and unused by anyone else. The arena is never
    // handed out by `&mut` or by value, so it cannot leave the buffer's lifetime.
    arena: Arena<MIN_ALIGN, A>,
    _buf: PhantomData<&'buf mut [MaybeUninit<u8>]>,
}

#[cfg(feature = "alloc")]
impl Arena {
    /// An arena that allocates from `buf` first and from the global allocator only when
    /// `buf` is full. Resets return to `buf`. The arena's bookkeeping
    /// ([`BOOKKEEPING_BYTES`](Arena::BOOKKEEPING_BYTES)) takes the start of `buf`, so it
    /// touches the heap for nothing else either.
    ///
    /// ```
    /// use core::mem::MaybeUninit;
    /// let mut buf = [MaybeUninit::<u8>::uninit(); 2048];
    /// let mut arena = bumpdown::Arena::with_buffer(&mut buf);
    /// arena.alloc([0u8; 500]);             // in the buffer
    /// arena.alloc([0u8; 4000]);            // spills into a heap chunk
    /// assert_eq!(arena.stats().chunks, 2);
    /// arena.reset();                       // back to the buffer
    /// // The bookkeeping, the chunk header and alignment take the rest.
    /// assert!(arena.chunk_capacity() >= 2048 - <bumpdown::Arena>::BOOKKEEPING_BYTES - 128);
    /// ```
    pub fn with_buffer(buf: &mut [MaybeUninit<u8>]) -> BufferArena<'_> {
        BufferArena::new_in(buf, Global)
    }
}

impl<'buf, const MIN_ALIGN: usize, A: BackingAllocator> BufferArena<'buf, MIN_ALIGN, A> {
    /// An arena on `alloc` that allocates from `buf` first.
    pub fn new_in(buf: &'buf mut [MaybeUninit<u8>], alloc: A) -> Self {
        let arena = Arena::new_in(alloc);
        // SAFETY: `'buf` lends us the buffer exclusively for as long as this value lives,
        // and the arena has no chunks yet.
        unsafe { arena.adopt_buffer(buf.as_mut_ptr().cast(), buf.len()) };
        BufferArena { arena, _buf: PhantomData }
    }

    /// See [`Arena::reset`]; the next allocations come from the buffer again.
    pub fn reset(&mut self) {
        self.arena.reset()
    }

    /// See [`Arena::reset_with_limit`]; the buffer is always kept and costs nothing.
    pub fn reset_with_limit(&mut self, retain: usize) {
        self.arena.reset_with_limit(retain)
    }

    /// See [`Arena::scope`].
    pub fn scope<'env, R>(&'env mut self, f: impl for<'s> FnOnce(&mut Scope<'s, 'env, MIN_ALIGN, A>) -> R) -> R {
        self.arena.scope(f)
    }

    /// See [`Arena::scope_guard`].
    pub fn scope_guard(&mut self) -> ScopeGuard<'_, MIN_ALIGN, A> {
        self.arena.scope_guard()
    }

    /// See [`Arena::rewind`].
    #[track_caller]
    pub fn rewind(&mut self, checkpoint: Checkpoint) {
        self.arena.rewind(checkpoint)
    }

    /// See [`Arena::try_rewind`].
    pub fn try_rewind(&mut self, checkpoint: Checkpoint) -> Result<(), RewindError> {
        self.arena.try_rewind(checkpoint)
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Deref for BufferArena<'_, MIN_ALIGN, A> {
    type Target = Arena<MIN_ALIGN, A>;

    fn deref(&self) -> &Self::Target {
        &self.arena
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Bump for BufferArena<'_, MIN_ALIGN, A> {
    type Checkpoint = Checkpoint;

    #[inline(always)]
    fn try_alloc_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        self.arena.try_alloc_layout(layout)
    }

    fn checkpoint(&self) -> Checkpoint {
        self.arena.checkpoint()
    }

    fn try_rewind(&mut self, checkpoint: Checkpoint) -> Result<(), RewindError> {
        self.arena.try_rewind(checkpoint)
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> core::fmt::Debug for BufferArena<'_, MIN_ALIGN, A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("BufferArena").field(&self.arena).finish()
    }
}
