//! The arena's side of checkpoints and scopes: saving its position, rewinding to it, and
//! the entry and exit of a scope. The checkpoint types and their staleness bookkeeping
//! (`Ledger`), which every face shares, are in `checkpoint.rs`.

use crate::backing::BackingAllocator;
use crate::checkpoint::{Checkpoint, RawCheckpoint, RewindError, ScopeEntry};
use crate::error::AllocError;

use super::{Arena, ArenaState};

impl<const MIN_ALIGN: usize, A: BackingAllocator> Arena<MIN_ALIGN, A> {
    /// Saves the arena's position. [`rewind`](Arena::rewind) to it frees everything
    /// allocated after it; allocations made before it stay.
    ///
    /// # Panics
    /// If the arena has never allocated and the backing allocator cannot give it the
    /// block for its bookkeeping (a few hundred bytes); see
    /// [`try_checkpoint`](Arena::try_checkpoint).
    #[track_caller]
    pub fn checkpoint(&self) -> Checkpoint {
        let state = self.state_or_panic();
        self.checkpoint_in(state)
    }

    /// Like [`checkpoint`](Arena::checkpoint), returning an error instead of panicking
    /// when the arena has never allocated and its bookkeeping block cannot be allocated.
    ///
    /// ```
    /// let mut arena = bumpdown::Arena::new();
    /// arena.set_allocation_limit(Some(0)); // not even the bookkeeping block fits
    /// assert!(arena.try_checkpoint().is_err());
    /// arena.set_allocation_limit(None);
    /// let cp = arena.try_checkpoint().unwrap();
    /// arena.alloc(1u8);
    /// arena.rewind(cp);
    /// assert_eq!(arena.stats().used, 0);
    /// ```
    pub fn try_checkpoint(&self) -> Result<Checkpoint, AllocError> {
        let state = self.state_or_create()?;
        Ok(self.checkpoint_in(state))
    }

    /// `checkpoint` once the arena has its state.
    fn checkpoint_in(&self, state: &ArenaState<MIN_ALIGN, A>) -> Checkpoint {
        self.sync_to(state);
        // A scope that sees this checkpoint taken must mark it stale on exit: that is its
        // slow path, which a new epoch selects. The new epoch is also the serial.
        state.bump_epoch();
        let checkpoint = state.ledger.checkpoint_stamped(state.raw_checkpoint());
        self.sync_from(state);
        checkpoint
    }

    /// Frees everything allocated after `checkpoint` and returns the arena to where it
    /// was then. Chunks taken since are kept for reuse; out-of-band chunks taken since go
    /// back to the backing allocator. Safe: `&mut self` proves no allocation is borrowed.
    ///
    /// # Panics
    /// If the checkpoint is from another arena, or stale (the arena was reset or rewound
    /// to an older checkpoint since). See [`try_rewind`](Arena::try_rewind).
    ///
    /// ```
    /// let mut arena = bumpdown::Arena::new();
    /// let cp = arena.checkpoint();
    /// for round in 0..3 {
    ///     let v = arena.alloc_slice_fill_copy(1000, round);
    ///     assert_eq!(v[999], round);
    ///     arena.rewind(cp); // the same checkpoint, again and again
    /// }
    /// assert_eq!(arena.stats().used, 0);
    /// ```
    #[track_caller]
    pub fn rewind(&mut self, checkpoint: Checkpoint) {
        if let Err(err) = self.try_rewind(checkpoint) {
            panic!("bumpdown: cannot rewind: {err}");
        }
    }

    /// Like [`rewind`](Arena::rewind), returning an error for a foreign or stale
    /// checkpoint (and leaving the arena untouched).
    ///
    /// ```
    /// use bumpdown::{Arena, RewindError};
    /// let mut arena = Arena::new();
    /// let cp = arena.checkpoint();
    /// arena.reset();
    /// assert_eq!(arena.try_rewind(cp), Err(RewindError::StaleCheckpoint));
    /// let other = Arena::new();
    /// assert_eq!(arena.try_rewind(other.checkpoint()), Err(RewindError::ForeignCheckpoint));
    /// ```
    pub fn try_rewind(&mut self, checkpoint: Checkpoint) -> Result<(), RewindError> {
        // SAFETY: `&mut self`: nothing allocated is borrowed.
        unsafe { self.rewind_unborrowed(checkpoint, 0) }
    }

    /// Checks `checkpoint` (from this arena, not stale, taken after serial `after`) and
    /// rewinds to it.
    ///
    /// # Safety
    /// No allocation made after the checkpoint is in use, and nothing else allocates from
    /// the arena while this runs.
    pub(crate) unsafe fn rewind_unborrowed(&self, checkpoint: Checkpoint, after: u64) -> Result<(), RewindError> {
        // An arena that never allocated has no state, and no checkpoint is its own.
        let Some(state) = self.state() else { return Err(RewindError::ForeignCheckpoint) };
        self.sync_to(state);
        // SAFETY: forwarded from the caller.
        let result = unsafe { state.rewind_unborrowed(checkpoint, after) };
        self.sync_from(state);
        result
    }

    /// The position now, where a scope starts. (An arena with no current chunk has no
    /// spare one either, see the chunk-list invariant: a scope on it takes a chunk once,
    /// and its exit leaves that chunk current.)
    #[inline(always)]
    pub(crate) fn scope_entry(&self) -> ScopeEntry {
        ScopeEntry { ptr: self.ptr.get(), epoch: self.epoch() }
    }

    /// Returns to a scope's entry position and marks the checkpoints taken inside the
    /// scope stale. The usual case (the epoch did not move: only `ptr` did) is inline;
    /// the rest is out of line, with the entry passed in registers.
    ///
    /// # Safety
    /// As for `ArenaState::restore`: nothing allocated since `entry` is in use, and the
    /// arena only moved forward from it.
    #[inline(always)]
    pub(crate) unsafe fn exit_scope(&self, entry: ScopeEntry) {
        if !crate::poison::ACTIVE && self.epoch() == entry.epoch {
            self.mark_high_at(self.ptr.get().addr());
            self.ptr.set(entry.ptr);
        } else {
            // SAFETY: forwarded from the caller.
            unsafe { self.exit_scope_slow(entry) }
        }
    }

    /// `exit_scope` for any case: one call out of line, with the entry in registers
    /// (small enough for a closure scope's landing pad to hold it without a copy of the
    /// entry on the stack).
    ///
    /// # Safety
    /// As for `exit_scope`.
    #[inline(always)]
    pub(crate) unsafe fn exit_scope_slow(&self, entry: ScopeEntry) {
        // SAFETY: forwarded from the caller.
        let (ptr, epoch) = unsafe { exit_scope_outlined(self, entry) };
        // The callee left these values in these fields; storing them again here tells
        // the compiler what they are after either way out of a scope, so that a loop
        // of scopes keeps them in registers instead of reloading them at each entry.
        self.ptr.set(ptr);
        self.epoch.set(epoch);
    }
}

/// `Arena::exit_scope_slow`'s body; returns the arena's `ptr` and `epoch` after it.
///
/// # Safety
/// As for `Arena::exit_scope`.
#[cold]
#[inline(never)]
unsafe fn exit_scope_outlined<const MIN_ALIGN: usize, A: BackingAllocator>(
    arena: &Arena<MIN_ALIGN, A>,
    entry: ScopeEntry,
) -> (*mut u8, u64) {
    let restored = arena.with_state(|state| {
        let ScopeEntry { ptr, epoch } = entry;
        if state.epoch.get() != epoch {
            // Something beyond the bump pointer changed; checkpoints taken inside the
            // scope (if any) die with it.
            state.ledger.exit(epoch);
        }
        let cp = RawCheckpoint { chunk: state.chunk_at_epoch(epoch), ptr, serial: epoch };
        // SAFETY: forwarded from the caller.
        unsafe { state.restore(cp) };
    });
    if restored.is_none() {
        // Without a state the arena never allocated: the position is the entry's (the
        // sentinel).
        arena.ptr.set(entry.ptr);
    }
    (arena.ptr.get(), arena.epoch.get())
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> ArenaState<MIN_ALIGN, A> {
    /// Checks `checkpoint` (from this arena, not stale, taken after serial `after`) and
    /// rewinds to it.
    ///
    /// # Safety
    /// No allocation made after the checkpoint is in use, and nothing else allocates from
    /// the arena while this runs.
    pub(crate) unsafe fn rewind_unborrowed(&self, checkpoint: Checkpoint, after: u64) -> Result<(), RewindError> {
        self.ledger.rewind_to(&checkpoint, after)?;
        // SAFETY: from the caller, nothing after the checkpoint is in use. It is from this
        // arena and every change since only moved forward from it (the lineage check).
        unsafe { self.restore(checkpoint.raw) };
        Ok(())
    }

    /// The position now, stamped with the epoch.
    #[inline(always)]
    pub(crate) fn raw_checkpoint(&self) -> RawCheckpoint {
        RawCheckpoint { chunk: self.current.get(), ptr: self.ptr(), serial: self.epoch.get() }
    }
}
