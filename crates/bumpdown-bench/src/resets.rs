//! What each contender's `reset` keeps, observed through the counting heap.
//!
//! The crates differ here, and it matters for any workload that fills an arena,
//! resets it and fills it again: an arena that frees chunks on reset has to
//! allocate (and page-fault) them again on the next fill.

use crate::contenders::{self, Contender, Visitor};
use crate::heap::Snapshot;

/// Bytes put into each arena before the reset.
pub const FILL_BYTES: usize = 8 << 20;
/// Size of each allocation of the fill.
const PIECE: usize = 1024;

/// What one contender's reset kept.
#[derive(Clone, Debug)]
pub struct ResetResult {
    /// Contender name.
    pub name: &'static str,
    /// Heap blocks (chunks) and bytes held after the first fill.
    pub filled: (usize, usize),
    /// Heap blocks and bytes held right after `reset`.
    pub kept: (usize, usize),
    /// Heap allocations the second, identical fill needed.
    pub refill_calls: usize,
}

/// Fills, resets and refills every contender.
pub fn measure() -> Vec<ResetResult> {
    struct Probe(Vec<ResetResult>);
    impl Visitor for Probe {
        fn visit<A: Contender>(&mut self) {
            self.0.push(probe::<A>());
        }
    }
    let mut probe = Probe(Vec::new());
    contenders::visit_all(&mut probe);
    probe.0
}

fn probe<A: Contender>() -> ResetResult {
    let piece = [0u8; PIECE];
    let fill = |arena: &A| {
        for _ in 0..FILL_BYTES / PIECE {
            std::hint::black_box(arena.alloc_slice_copy(&piece));
        }
    };
    let held = |base: Snapshot| {
        let now = Snapshot::now();
        (now.live_blocks.saturating_sub(base.live_blocks), now.live_bytes.saturating_sub(base.live_bytes))
    };

    let base = Snapshot::now();
    let mut arena = A::new();
    fill(&arena);
    let filled = held(base);
    arena.reset();
    let kept = held(base);
    let before_refill = Snapshot::now();
    fill(&arena);
    let refill_calls = before_refill.calls_since();
    drop(arena);
    ResetResult { name: A::NAME, filled, kept, refill_calls }
}
