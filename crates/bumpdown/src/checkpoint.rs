//! Checkpoints of every face: the types (`Checkpoint`, `RewindError`, a scope's entry)
//! and the `Ledger` that tells a stale checkpoint from a valid one. Each face takes and
//! restores its own position (`Arena`'s in `arena/rewind.rs`).
//!
//! Rewinding takes `&mut Arena`, which proves no allocation is still borrowed, so a
//! rewind can never free memory that is in use. What remains to check is that the
//! checkpoint still describes a state the arena can return to:
//!
//! * it was taken from this arena (arenas get an id when their first checkpoint is made);
//! * no reset, and no rewind to an *older* position, happened since it was taken. Such a
//!   checkpoint is stale: the state it describes is gone, even if the arena has since
//!   grown past its position again.
//!
//! The second check works on checkpoint serial numbers. Every checkpoint gets a serial
//! greater than all before it (an [`Arena`](crate::Arena) takes its epoch, see `Arena::epoch`; the
//! other arenas count). A rewind to a checkpoint with serial `s`, taken when the last serial handed
//! out was `t`, invalidates exactly the checkpoints with serials in `s + 1 ..= t` (the
//! ones taken after the target); a reset invalidates `1 ..= t`. A checkpoint with serial
//! `c` is valid when every invalidation recorded after it (at `t >= c`) has `s >= c`.
//! [`Lineage`] keeps just enough of the invalidations to answer that: the suffix minima
//! of `s`, which stay few in practice because nested use pops them.

use core::cell::Cell;
use core::fmt;
use core::sync::atomic::{AtomicUsize, Ordering};

use crate::chunk::Chunk;

/// An arena's position, as [`Arena::checkpoint`](crate::Arena::checkpoint) saw it. Cheap to copy; rewinding to it
/// with [`Arena::rewind`](crate::Arena::rewind) frees everything allocated after it.
///
/// ```
/// let mut arena = bumpdown::Arena::new();
/// let kept = arena.alloc(1u32) as *const u32;
/// let cp = arena.checkpoint();
/// for i in 0..100 { arena.alloc(i); }
/// arena.rewind(cp);
/// assert_eq!(arena.stats().used, 4);
/// # let _ = kept;
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    pub(crate) raw: RawCheckpoint,
    arena_id: usize,
}

impl fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Checkpoint")
            .field("arena", &self.arena_id)
            .field("serial", &self.raw.serial)
            .finish_non_exhaustive()
    }
}

/// An arena's position without the bookkeeping that validates it: what a checkpoint
/// restores.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawCheckpoint {
    /// The current chunk then (`None`: no chunk).
    pub(crate) chunk: Option<Chunk>,
    /// The bump pointer then.
    pub(crate) ptr: *mut u8,
    /// The arena's clock then: checkpoints with a higher serial were taken after. An
    /// `Arena`'s is its `epoch`, which also stamps its out-of-band chunks and chunk
    /// switches, so a higher stamp on those means they came after too (see
    /// `Arena::epoch`); the other arenas count their checkpoints.
    pub(crate) serial: u64,
}

/// Where a scope of an [`Arena`](crate::Arena) began, in two words. The arena's epoch is a
/// `RawCheckpoint`'s `serial`, and it stamps each chunk when it becomes current, so it
/// also finds the chunk (`Arena::chunk_at_epoch`). A scope's entry reads and its exit compares these
/// two words only, and the unwind guard of a closure scope keeps them in registers.
#[derive(Clone, Copy)]
pub(crate) struct ScopeEntry {
    /// The bump pointer then.
    pub(crate) ptr: *mut u8,
    /// The arena's `epoch` then.
    pub(crate) epoch: u64,
}

/// Why [`Arena::try_rewind`](crate::Arena::try_rewind) refused a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RewindError {
    /// The checkpoint was taken from another arena.
    ForeignCheckpoint,
    /// The arena was reset, or rewound to an older checkpoint, after this one was taken;
    /// or (rewinding a [`ScopeGuard`](crate::ScopeGuard)) it was taken before the guard.
    StaleCheckpoint,
}

impl fmt::Display for RewindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RewindError::ForeignCheckpoint => "the checkpoint belongs to another arena",
            RewindError::StaleCheckpoint => {
                "the checkpoint is stale: the arena was reset or rewound past it after it was taken"
            }
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for RewindError {}

/// Source of arena ids; 0 means "no id yet".
static NEXT_ARENA_ID: AtomicUsize = AtomicUsize::new(1);

/// The invalidations a checkpoint must be checked against: pairs `(t, s)` meaning "the
/// checkpoints with serials in `s + 1 ..= t` are stale", kept as suffix minima (both
/// `t` and `s` strictly increase along the array).
#[derive(Clone, Copy, Default)]
pub(crate) struct Lineage {
    entries: [(u64, u64); LINEAGE_CAP],
    len: usize,
}

const LINEAGE_CAP: usize = 4;

impl Lineage {
    pub(crate) const EMPTY: Lineage = Lineage { entries: [(0, 0); LINEAGE_CAP], len: 0 };

    /// Records that serials `s + 1 ..= t` are stale.
    fn invalidate(&mut self, t: u64, s: u64) {
        if s >= t {
            return; // Nothing was taken after the target.
        }
        // Older entries with a larger `s` are covered by this one.
        while self.len > 0 && self.entries[self.len - 1].1 >= s {
            self.len -= 1;
        }
        if self.len == LINEAGE_CAP {
            // Full: merge the two oldest entries, keeping the smaller `s` for both. That
            // can only call more checkpoints stale, never fewer.
            self.entries[1].1 = self.entries[0].1;
            self.entries.copy_within(1.., 0);
            self.len -= 1;
        }
        self.entries[self.len] = (t, s);
        self.len += 1;
    }

    /// Whether the checkpoint with serial `c` is still valid.
    fn allows(&self, c: u64) -> bool {
        // The oldest invalidation recorded at or after `c` has the smallest `s` of all of
        // them.
        match self.entries[..self.len].iter().find(|&&(t, _)| t >= c) {
            Some(&(_, s)) => s >= c,
            None => true,
        }
    }
}

/// The checkpoint bookkeeping of one arena: its id, the last serial handed out, the
/// serial up to which a reset made checkpoints stale, and the rewinds that made others
/// stale.
pub(crate) struct Ledger {
    serial: Cell<u64>,
    reset_serial: Cell<u64>,
    /// 0 until a checkpoint needs one.
    id: Cell<usize>,
    lineage: Cell<Lineage>,
}

impl Ledger {
    pub(crate) const fn new() -> Self {
        Ledger {
            id: Cell::new(0),
            serial: Cell::new(0),
            reset_serial: Cell::new(0),
            lineage: Cell::new(Lineage::EMPTY),
        }
    }

    /// The last serial handed out.
    #[inline(always)]
    pub(crate) fn serial(&self) -> u64 {
        self.serial.get()
    }

    /// A checkpoint at `raw`, with the next serial (filled in here).
    pub(crate) fn checkpoint(&self, mut raw: RawCheckpoint) -> Checkpoint {
        raw.serial = self.serial.get() + 1;
        self.checkpoint_stamped(raw)
    }

    /// A checkpoint at `raw` with serial `raw.serial`, which the caller picked greater
    /// than every serial handed out before (an `Arena` uses its epoch).
    pub(crate) fn checkpoint_stamped(&self, raw: RawCheckpoint) -> Checkpoint {
        debug_assert!(raw.serial > self.serial.get(), "checkpoint serials must increase");
        self.serial.set(raw.serial);
        Checkpoint { raw, arena_id: self.id() }
    }

    /// Checks that `checkpoint` is this arena's, not stale, and taken after serial
    /// `after`; if so, records the rewind to it (making the newer ones stale).
    pub(crate) fn rewind_to(&self, checkpoint: &Checkpoint, after: u64) -> Result<(), RewindError> {
        if checkpoint.arena_id != self.id() {
            return Err(RewindError::ForeignCheckpoint);
        }
        let mut lineage = self.lineage.get();
        let serial = checkpoint.raw.serial;
        let stale = serial <= self.reset_serial.get() || !lineage.allows(serial);
        if stale || serial <= after {
            return Err(RewindError::StaleCheckpoint);
        }
        lineage.invalidate(self.serial.get(), serial);
        self.lineage.set(lineage);
        Ok(())
    }

    /// Records that a scope entered when serials up to `entry` were taken ended:
    /// checkpoints taken inside it (with higher serials) are stale.
    #[inline(always)]
    pub(crate) fn exit(&self, entry: u64) {
        if self.serial.get() > entry {
            let mut lineage = self.lineage.get();
            lineage.invalidate(self.serial.get(), entry);
            self.lineage.set(lineage);
        }
    }

    /// Records that every checkpoint so far is stale (on reset).
    #[inline(always)]
    pub(crate) fn reset(&self) {
        self.reset_serial.set(self.serial.get());
    }

    /// Whether no checkpoint was handed out since the last `reset`.
    pub(crate) fn is_reset(&self) -> bool {
        self.reset_serial.get() == self.serial.get()
    }

    /// The arena's id, given out when first asked for.
    fn id(&self) -> usize {
        let id = self.id.get();
        if id != 0 {
            return id;
        }
        let id = NEXT_ARENA_ID.fetch_add(1, Ordering::Relaxed);
        self.id.set(id);
        id
    }
}

#[cfg(test)]
mod tests {
    use super::Lineage;

    #[test]
    fn lineage_tracks_nested_rewinds() {
        let mut l = Lineage::EMPTY;
        // cp1 = 1, cp2 = 2; rewind to cp2 (nothing after it), then to cp1.
        l.invalidate(2, 2);
        assert!(l.allows(1) && l.allows(2));
        l.invalidate(2, 1);
        assert!(l.allows(1) && !l.allows(2));
        // cp3 = 3 is taken after that rewind and is valid.
        assert!(l.allows(3));
        // A reset makes everything so far stale.
        l.invalidate(3, 0);
        assert!(!l.allows(1) && !l.allows(3) && l.allows(4));
    }

    #[test]
    fn a_full_lineage_errs_on_the_stale_side() {
        let mut l = Lineage::EMPTY;
        // Rewinds to ever newer checkpoints, each after one more checkpoint was taken.
        for k in 0..10u64 {
            l.invalidate(2 * k + 2, 2 * k + 1);
        }
        // The newest invalidations are exact.
        assert!(!l.allows(20) && l.allows(19) && l.allows(21));
        // Nothing stale is ever allowed.
        for k in 0..10u64 {
            assert!(!l.allows(2 * k + 2), "serial {} is stale", 2 * k + 2);
        }
    }
}
