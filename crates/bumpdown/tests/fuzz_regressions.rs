//! Crashes the fuzz targets (`fuzz/`) found, kept as plain tests so they stay fixed.

use bumpdown::bumping::round_up;

/// `bumping` target: `round_up(usize::MAX, 1)` meets the documented precondition
/// (`n + align - 1` does not overflow) but computed `n + align` first and overflowed.
#[test]
fn round_up_at_the_top_of_the_address_space() {
    assert_eq!(round_up(usize::MAX, 1), usize::MAX);
    assert_eq!(round_up(usize::MAX - 15, 16), usize::MAX - 15);
    assert_eq!(round_up(usize::MAX - 16, 16), usize::MAX - 15);
}

/// `vm` target: freeing (or shrinking) the newest block lowers a `VmArena`'s `top`,
/// also below a checkpoint taken after that block was made. Rewinding to that
/// checkpoint panicked ("a valid checkpoint outside the used range" in debug builds,
/// `StaleCheckpoint` in release builds), though the checkpoint is valid.
#[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
#[test]
fn vm_rewind_after_freeing_a_block_older_than_the_checkpoint() {
    use bumpdown::VmArena;
    let mut arena: VmArena = VmArena::new(1 << 20);
    let keep = arena.alloc(1u64) as *const u64 as usize;
    let cp = {
        let mut v = allocator_api2::vec::Vec::<u8, _>::with_capacity_in(100, &arena);
        v.push(1);
        let cp = arena.checkpoint();
        drop(v); // the newest block: `top` goes back below the checkpoint
        cp
    };
    assert_eq!(arena.stats().used, 8);
    arena.rewind(cp);
    assert_eq!(arena.stats().used, 8, "nothing after the checkpoint to free");
    // The arena keeps working from where it is, and the checkpoint stays usable.
    let next = arena.alloc(2u64) as *const u64 as usize;
    assert_eq!(next, keep + 8);
    arena.rewind(cp);
    assert!(arena.stats().used <= 8 + 100);

    // The same with a shrink of the newest block.
    let mut arena: VmArena = VmArena::new(1 << 20);
    let cp = {
        let mut v = allocator_api2::vec::Vec::<u8, _>::with_capacity_in(4096, &arena);
        v.push(1);
        let cp = arena.checkpoint();
        v.shrink_to_fit();
        assert_eq!(v[0], 1);
        cp
    };
    arena.rewind(cp);
    arena.alloc_slice_fill_copy(10, 0u8);
}

/// The same sequence on `Arena`, which bumps downwards: freeing the newest block raises
/// `top` above the checkpoint, and the rewind brings it back down.
#[test]
fn arena_rewind_after_freeing_a_block_older_than_the_checkpoint() {
    let mut arena = bumpdown::Arena::new();
    arena.alloc(1u64);
    let cp = {
        let mut v = allocator_api2::vec::Vec::<u8, _>::with_capacity_in(100, &arena);
        v.push(1);
        let cp = arena.checkpoint();
        drop(v);
        cp
    };
    arena.rewind(cp);
    arena.check_invariants();
    assert_eq!(*arena.alloc(3u8), 3);
    arena.check_invariants();
}
