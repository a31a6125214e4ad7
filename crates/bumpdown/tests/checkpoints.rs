//! Checkpoints and rewinds: what a rewind frees, and that foreign and stale
//! checkpoints are refused with the arena left as it was.

mod common;

use bumpdown::{Arena, Bump, RewindError};
use common::TestAlloc;

#[test]
fn rewind_frees_what_came_after_and_keeps_what_came_before() {
    let backing = TestAlloc::default();
    let mut arena: Arena<1, &TestAlloc> = Arena::new_in(&backing).with_max_chunk_size(64 << 10);
    let kept = arena.alloc_slice_fill_copy(100, 7u8).as_ptr();
    let cp = arena.checkpoint();
    let used = arena.stats().used;
    for _ in 0..3 {
        arena.alloc_slice_fill_copy(common::scaled(50_000, 20_000), 1u8); // several chunks, out of band
        arena.alloc_slice_fill_copy(5_000, 1u8);
        arena.rewind(cp);
        assert_eq!(arena.stats().used, used);
        assert_eq!(arena.stats().big_chunks, 0);
        arena.check_invariants();
    }
    // SAFETY: allocated before the checkpoint.
    assert!(common::all_bytes_are(unsafe { std::slice::from_raw_parts(kept, 100) }, 7));
}

#[test]
fn nested_checkpoints_rewind_inner_then_outer() {
    let mut arena = Arena::new();
    let cp1 = arena.checkpoint();
    arena.alloc(1u64);
    let cp2 = arena.checkpoint();
    arena.alloc(2u64);
    arena.rewind(cp2);
    assert_eq!(arena.stats().used, 8);
    arena.rewind(cp1);
    assert_eq!(arena.stats().used, 0);
    // cp2 is older than nothing now: it is stale.
    assert_eq!(arena.try_rewind(cp2), Err(RewindError::StaleCheckpoint));
    arena.check_invariants();
}

#[test]
fn a_stale_checkpoint_is_refused_even_after_the_arena_regrew_past_it() {
    let mut arena = Arena::new();
    let cp1 = arena.checkpoint();
    arena.alloc([0u8; 100]);
    let cp2 = arena.checkpoint();
    arena.rewind(cp1);
    arena.alloc([0u8; 200]); // past cp2's position again
    let used = arena.stats().used;
    assert_eq!(arena.try_rewind(cp2), Err(RewindError::StaleCheckpoint));
    assert_eq!(arena.stats().used, used, "a refused rewind changed the arena");
    // cp1 is still good.
    arena.rewind(cp1);
    assert_eq!(arena.stats().used, 0);
}

#[test]
fn reset_makes_every_checkpoint_stale() {
    let mut arena = Arena::new();
    arena.alloc(1u8);
    let cp = arena.checkpoint();
    arena.reset();
    assert_eq!(arena.try_rewind(cp), Err(RewindError::StaleCheckpoint));
    let fresh = arena.checkpoint();
    arena.alloc(2u8);
    arena.rewind(fresh);
}

#[test]
fn a_foreign_checkpoint_is_refused() {
    let mut a = Arena::new();
    let b = Arena::new();
    let cp = b.checkpoint();
    a.alloc(1u8);
    assert_eq!(a.try_rewind(cp), Err(RewindError::ForeignCheckpoint));
    assert_eq!(a.stats().used, 1);
    // Moving an arena keeps its checkpoints valid.
    let cp = a.checkpoint();
    let mut moved = a;
    moved.alloc(2u8);
    moved.rewind(cp);
    assert_eq!(moved.stats().used, 1);
}

#[test]
#[should_panic(expected = "cannot rewind: the checkpoint belongs to another arena")]
fn rewind_panics_clearly_on_a_foreign_checkpoint() {
    let mut a = Arena::new();
    let b = Arena::new();
    a.rewind(b.checkpoint());
}

#[test]
fn checkpoints_taken_in_a_scope_die_with_it() {
    let mut arena = Arena::new();
    let before = arena.checkpoint();
    {
        let mut guard = arena.scope_guard();
        guard.alloc(1u8);
        let inside = guard.checkpoint();
        guard.alloc(2u8);
        guard.rewind(inside);
        assert_eq!(guard.stats().used, 1);
        // A guard refuses checkpoints older than itself.
        assert_eq!(guard.try_rewind(before), Err(RewindError::StaleCheckpoint));
        drop(guard);
        assert_eq!(arena.try_rewind(inside), Err(RewindError::StaleCheckpoint));
    }
    // A checkpoint from before the scope is still good after it.
    arena.alloc(3u8);
    arena.rewind(before);
    assert_eq!(arena.stats().used, 0);
}

#[test]
fn many_levels_of_rewinds_never_accept_a_stale_checkpoint() {
    // Rewinds to ever newer checkpoints overflow the arena's small record of them; it
    // must then err on the side of "stale", never accept a stale checkpoint.
    let mut arena = Arena::new();
    let mut stale = Vec::new();
    let mut live = Vec::new();
    for _ in 0..20 {
        let keep = arena.checkpoint();
        arena.alloc(0u64);
        let doomed = arena.checkpoint();
        arena.alloc(0u64);
        arena.rewind(keep);
        stale.push(doomed);
        live.push(keep);
        arena.alloc(0u64);
    }
    for cp in stale {
        assert_eq!(arena.try_rewind(cp), Err(RewindError::StaleCheckpoint));
    }
    // The newest live checkpoint is exact.
    arena.rewind(*live.last().unwrap());
}

/// An out-of-band block made before a checkpoint and freed after it must not let a rewind
/// keep one made after the checkpoint: the rewind tells them apart by age, not by count.
#[test]
fn rewind_returns_a_big_block_even_after_an_older_one_was_freed() {
    let backing = TestAlloc::default();
    let mut arena: Arena<1, &TestAlloc> = Arena::new_in(&backing).with_max_chunk_size(64 << 10);
    let big = common::scaled(100_000, 20_000);
    let older = bumpdown::collections::Vec::<u8>::with_capacity_in(big, &arena);
    let cp = arena.checkpoint();
    drop(older); // the newest out-of-band block: freed on the spot
    assert_eq!(arena.stats().big_chunks, 0);
    arena.alloc_slice_fill_copy(big, 1u8); // out of band, after the checkpoint
    assert_eq!(arena.stats().big_chunks, 1);
    arena.rewind(cp);
    assert_eq!(arena.stats().big_chunks, 0, "the block made after the checkpoint was kept");
    arena.check_invariants();
}
