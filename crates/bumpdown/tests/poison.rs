//! The `poison` feature: memory given back by a reset, rewind or scope exit reads as
//! `POISON_BYTE` (0xDB) afterwards, while what is still allocated keeps its bytes.
//!
//! Each test plants the bug the feature is for: a raw pointer read after its memory was
//! given back. That read is undefined behaviour in the abstract machine (Miri rightly
//! rejects it), so these tests do not run under Miri.
//!
//! Run with `cargo test -p bumpdown --features poison --test poison`.
#![cfg(feature = "poison")]

use std::mem::MaybeUninit;

use bumpdown::{Arena, FixedArena, POISON_BYTE};

const DEAD: u64 = u64::from_ne_bytes([POISON_BYTE; 8]);
const LIVE: u64 = 0x1122_3344_5566_7788;

/// The planted bug: read a value through a pointer that outlived its allocation.
fn read_stale(p: *const u64) -> u64 {
    // SAFETY: not sound (the point of the test): the arena still owns the memory, so the
    // read stays inside a live heap block, but the allocation it belonged to is gone.
    unsafe { p.read_volatile() }
}

#[test]
#[cfg_attr(miri, ignore = "reads freed arena memory on purpose (the planted bug)")]
fn reset_poisons_what_was_allocated() {
    let mut arena = Arena::new();
    let p: *const u64 = arena.alloc(LIVE);
    arena.reset();
    assert_eq!(read_stale(p), DEAD);
    // The slow reset (several chunks, out-of-band blocks) poisons every chunk kept.
    let mut arena = Arena::new().with_max_chunk_size(4096);
    let first: *const u64 = arena.alloc(LIVE);
    let many: Vec<*const u64> = (0..2000).map(|_| arena.alloc(LIVE) as *const u64).collect();
    arena.alloc_slice_fill_copy(10_000, 1u8);
    arena.reset();
    assert_eq!(read_stale(first), DEAD);
    assert!(many.iter().all(|&p| read_stale(p) == DEAD));
}

#[test]
#[cfg_attr(miri, ignore = "reads freed arena memory on purpose (the planted bug)")]
fn rewind_and_scope_exit_poison_only_what_came_after() {
    let mut arena = Arena::new().with_max_chunk_size(4096);
    let kept: *const u64 = arena.alloc(LIVE);
    let cp = arena.checkpoint();
    let near: *const u64 = arena.alloc(LIVE);
    // Past the first chunk: the rewind's slow path.
    let far: Vec<*const u64> = (0..1000).map(|_| arena.alloc(LIVE) as *const u64).collect();
    arena.rewind(cp);
    assert_eq!(read_stale(kept), LIVE, "an allocation older than the checkpoint was poisoned");
    assert_eq!(read_stale(near), DEAD);
    assert!(far.iter().all(|&p| read_stale(p) == DEAD));

    let inside = arena.scope(|s| s.alloc(LIVE) as *const u64);
    assert_eq!(read_stale(inside), DEAD);
    let inside = {
        let g = arena.scope_guard();
        g.alloc(LIVE) as *const u64
    };
    assert_eq!(read_stale(inside), DEAD);
    assert_eq!(read_stale(kept), LIVE);
}

#[test]
#[cfg_attr(miri, ignore = "reads freed arena memory on purpose (the planted bug)")]
fn fixed_arena_poisons_on_reset_rewind_and_guard_exit() {
    let mut buf = [MaybeUninit::<u8>::uninit(); 1024];
    let mut arena: FixedArena = FixedArena::new(&mut buf);
    let kept: *const u64 = arena.alloc(LIVE);
    let cp = arena.checkpoint();
    let after: *const u64 = arena.alloc(LIVE);
    arena.rewind(cp);
    assert_eq!((read_stale(kept), read_stale(after)), (LIVE, DEAD));
    let inside = {
        let g = arena.scope_guard();
        g.alloc(LIVE) as *const u64
    };
    assert_eq!(read_stale(inside), DEAD);
    arena.reset();
    assert_eq!(read_stale(kept), DEAD);
}

#[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
#[test]
#[cfg_attr(miri, ignore = "reads freed arena memory on purpose (the planted bug)")]
fn vm_arena_poisons_on_reset_rewind_and_guard_exit() {
    let mut arena: bumpdown::VmArena = bumpdown::VmArena::new(1 << 20);
    let kept: *const u64 = arena.alloc(LIVE);
    let cp = arena.checkpoint();
    let after: *const u64 = arena.alloc(LIVE);
    arena.rewind(cp);
    assert_eq!((read_stale(kept), read_stale(after)), (LIVE, DEAD));
    let inside = {
        let g = arena.scope_guard();
        g.alloc(LIVE) as *const u64
    };
    assert_eq!(read_stale(inside), DEAD);
    arena.reset();
    assert_eq!(read_stale(kept), DEAD);
    // Memory handed out again is the caller's to fill: zeroed allocations are zero.
    let z = arena.try_alloc_zeroed_layout(std::alloc::Layout::new::<u64>()).unwrap();
    assert_eq!(read_stale(z.as_ptr().cast()), 0);
}
