//! `VmArena`: one contiguous reservation, bumped upwards, growing its newest block in
//! place.
#![cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]

mod common;

use bumpdown::{AllocErrorKind, Bump, ResetPolicy, RewindError, VmArena, VmOptions};
use common::Rng;
use core::alloc::Layout;

const MIB: usize = 1 << 20;
/// Miri runs the same programs on less memory (its reservations are heap blocks).
const KIB: usize = if cfg!(miri) { 64 } else { 1024 };

fn small() -> VmArena {
    VmArena::with_options(VmOptions::new(4 * MIB).populate(false))
}

/// A block of `len` bytes of `byte`, written by one `write_bytes` (a `memset`, which Miri
/// runs natively, where `alloc_slice_fill_copy` costs it a step per byte). Natively it
/// touches every byte just the same.
#[allow(clippy::mut_from_ref)] // a fresh block of the arena, as its own methods hand out
fn filled<const M: usize>(arena: &VmArena<M>, len: usize, byte: u8) -> &mut [u8] {
    let p = arena.alloc_layout(Layout::array::<u8>(len).unwrap());
    // SAFETY: a fresh block of `len` bytes, written in full before the slice is made.
    unsafe {
        p.as_ptr().write_bytes(byte, len);
        std::slice::from_raw_parts_mut(p.as_ptr(), len)
    }
}

#[test]
fn allocations_are_contiguous_upwards_and_keep_their_values() {
    let arena = small();
    let a = arena.alloc(1u8) as *mut u8 as usize;
    let b = arena.alloc(2u32) as *mut u32 as usize;
    let c = arena.alloc(3u64) as *mut u64 as usize;
    assert_eq!(b, (a + 1).next_multiple_of(4));
    assert_eq!(c, (b + 4).next_multiple_of(8));
    let s = arena.alloc_str("hello");
    let v = arena.alloc_slice_copy(&[1u16, 2, 3]);
    let it = arena.alloc_iter((0..10).filter(|x| x % 3 == 0));
    assert_eq!((&*s, &*v, &*it), ("hello", &[1u16, 2, 3][..], &[0, 3, 6, 9][..]));
    assert_eq!(v.as_ptr() as usize, s.as_ptr() as usize + 6); // "hello" + 1 byte of padding
    assert_eq!(arena.stats().used, it.as_ptr() as usize + it.len() * 4 - a);
}

#[test]
fn many_allocations_across_commit_batches_stay_intact() {
    let arena = VmArena::<8>::with_min_align_and_options(VmOptions::new(64 * KIB * KIB).populate(true));
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut live: Vec<(&mut [u8], u8)> = Vec::new();
    let n = if cfg!(miri) { 200 } else { 20_000 };
    for i in 0..n {
        let len = rng.below(600) as usize;
        let byte = i as u8;
        let s = filled(&arena, len, byte);
        assert_eq!(s.as_ptr() as usize % 8, 0);
        live.push((s, byte));
    }
    for (s, byte) in &live {
        assert!(common::all_bytes_are(s, *byte));
    }
    let stats = arena.stats();
    assert!(stats.capacity >= stats.used && stats.used > 0);
    // Committed in batches, never far past what is used.
    assert!(arena.allocated_bytes() <= (stats.used + 8 * MIB).next_multiple_of(64 * 1024));
}

#[test]
fn the_newest_block_grows_in_place_without_copying() {
    let arena = VmArena::<1>::with_options(VmOptions::new(64 * KIB * KIB).populate(false));
    arena.alloc(1u8);
    // alloc_iter of an iterator with no size hint grows its buffer many times.
    let n = if cfg!(miri) { 2_000 } else { 1_000_000 };
    let v = arena.alloc_iter((0..n).filter(|_| true));
    assert_eq!(v.len(), n);
    assert!(v.iter().enumerate().all(|(i, &x)| x == i));
    // Nothing was left behind: used = 1 byte + padding + exactly the final slice.
    assert_eq!(arena.stats().used, 8 + n * 8);

    // Through allocator-api2: a Vec that is the newest allocation never moves.
    let mut vec = allocator_api2::vec::Vec::<u64, _>::with_capacity_in(1, &arena);
    let first = vec.as_ptr();
    for i in 0..(n as u64) {
        vec.push(i);
    }
    assert_eq!(vec.as_ptr(), first, "grow copied the vector");
    assert_eq!(vec[n - 1], n as u64 - 1);
}

#[test]
fn deallocate_and_shrink_give_the_newest_block_back() {
    let arena = small();
    let layout = Layout::from_size_align(100, 8).unwrap();
    let p = arena.alloc_layout(layout);
    let used = arena.stats().used;
    // SAFETY: `p` is the newest block with `layout`.
    unsafe {
        let p2 = allocator_api2::alloc::Allocator::shrink(&&arena, p, layout, Layout::from_size_align(10, 8).unwrap())
            .unwrap();
        assert_eq!(p2.cast::<u8>(), p);
        assert_eq!(arena.stats().used, used - 90);
        allocator_api2::alloc::Allocator::deallocate(&&arena, p, Layout::from_size_align(10, 8).unwrap());
    }
    assert_eq!(arena.stats().used, used - 100);
}

#[test]
fn reset_is_o1_and_reuses_the_same_addresses() {
    let mut arena = small();
    let first = arena.alloc_slice_fill_copy(100 * KIB, 1u8).as_ptr();
    arena.reset();
    assert_eq!(arena.stats().used, 0);
    assert_eq!(arena.stats().peak_used, 100 * KIB);
    let again = arena.alloc_slice_fill_copy(10, 2u8).as_ptr();
    assert_eq!(first, again);
}

#[test]
fn zeroed_blocks_are_zero_after_reuse_and_after_release() {
    for policy in [ResetPolicy::KeepPages, ResetPolicy::ReleaseAbove(0), ResetPolicy::ReleaseAbove(64 * 1024)] {
        let mut arena: VmArena = VmArena::with_options(VmOptions::new(4 * MIB).reset_policy(policy));
        filled(&arena, 300 * KIB, 0xFF);
        arena.reset();
        arena.alloc(7u8);
        let layout = Layout::from_size_align(400 * KIB, 16).unwrap();
        let p = arena.try_alloc_zeroed_layout(layout).unwrap();
        // SAFETY: a fresh block of 400,000 bytes.
        let bytes = unsafe { std::slice::from_raw_parts(p.as_ptr(), layout.size()) };
        assert!(common::all_bytes_are(bytes, 0), "{policy:?}");
    }
}

#[test]
fn exhausting_the_reservation_is_an_error_and_the_arena_stays_usable() {
    let arena = VmArena::<1>::with_options(VmOptions::new(64 * KIB).populate(false));
    let kept = arena.alloc_slice_fill_copy(1000, 9u8);
    let err = arena.try_alloc_slice_fill_copy(2 * MIB, 0u8).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::Full);
    // Fill it up exactly.
    let rest = arena.reserved() - arena.stats().used;
    assert!(arena.try_alloc_slice_fill_copy(rest, 1u8).is_ok());
    assert_eq!(arena.try_alloc(1u8).unwrap_err().kind(), AllocErrorKind::Full);
    assert!(common::all_bytes_are(kept, 9));
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        arena.alloc(0u64);
    }));
    assert!(panic.is_err());
}

#[test]
fn tiny_reservations_round_up_to_a_page_and_work() {
    for bytes in [0, 1, 4096, 20_000] {
        let arena = VmArena::<1>::with_options(VmOptions::new(bytes).commit_batch(usize::MAX));
        assert!(arena.reserved() >= bytes.max(1) && arena.reserved() % 4096 == 0);
        let all = filled(&arena, arena.reserved(), 3);
        assert!(common::all_bytes_are(all, 3));
        assert_eq!(arena.try_alloc(0u8).unwrap_err().kind(), AllocErrorKind::Full);
    }
}

#[test]
fn bad_input_is_an_error() {
    let arena = small();
    assert_eq!(arena.try_alloc_slice_fill_copy(usize::MAX, 0u64).unwrap_err().kind(), AllocErrorKind::InvalidLayout);
    assert!(arena.try_alloc_slice_fill_copy(usize::MAX / 8, 0u64).is_err());
    assert!(arena.try_alloc_layout(Layout::from_size_align(isize::MAX as usize - 7, 8).unwrap()).is_err());
    assert!(arena.try_alloc_layout(Layout::from_size_align(8, 1 << 40).unwrap()).is_err());
    assert!(arena.try_alloc_iter(std::iter::repeat_n(0u8, usize::MAX)).is_err());
    assert!(VmArena::<1>::try_new(usize::MAX).is_err());
    assert!(VmArena::<1>::try_new(isize::MAX as usize).is_err());
    // Still usable.
    assert_eq!(*arena.alloc(5u8), 5);
}

#[test]
fn the_limit_caps_committed_memory() {
    // Under Miri the reservation is a heap block, and the limit is 16 KiB: 1 MiB is
    // plenty (Miri time is CI's longest step).
    let reserve = if cfg!(miri) { MIB } else { 16 * MIB };
    let arena = VmArena::<1>::with_options(VmOptions::new(reserve).populate(false));
    let limit = 256 * KIB;
    arena.set_allocation_limit(Some(limit));
    assert_eq!(arena.allocation_limit(), Some(limit));
    arena.alloc_slice_fill_copy(limit / 2, 0u8);
    assert_eq!(arena.try_alloc_slice_fill_copy(limit, 0u8).unwrap_err().kind(), AllocErrorKind::LimitReached);
    assert!(arena.allocated_bytes() <= limit);
    assert!(arena.try_alloc_slice_fill_copy(limit / 4, 0u8).is_ok());
    arena.set_allocation_limit(None);
    assert!(arena.try_alloc_slice_fill_copy(limit, 0u8).is_ok());
}

#[test]
fn checkpoints_rewind_and_reject_stale_and_foreign_ones() {
    let mut arena = small();
    let mut other = small();
    let kept = arena.alloc(1u64) as *const u64;
    let cp1 = arena.checkpoint();
    arena.alloc_slice_fill_copy(1000, 0u8);
    let cp2 = arena.checkpoint();
    arena.alloc_slice_fill_copy(1000, 0u8);
    arena.rewind(cp1);
    assert_eq!(arena.stats().used, 8);
    assert_eq!(arena.try_rewind(cp2), Err(RewindError::StaleCheckpoint));
    assert_eq!(other.try_rewind(cp1), Err(RewindError::ForeignCheckpoint));
    arena.rewind(cp1); // again: still valid
    arena.reset();
    assert_eq!(arena.try_rewind(cp1), Err(RewindError::StaleCheckpoint));
    let _ = kept;
    // A checkpoint of a chunked arena is foreign too.
    let chunked = bumpdown::Arena::new();
    assert_eq!(arena.try_rewind(chunked.checkpoint()), Err(RewindError::ForeignCheckpoint));
    other.alloc(1u8);
}

#[test]
fn scope_guards_free_on_drop_and_nest() {
    let mut arena = small();
    let outer_value = arena.alloc(5u32) as *const u32;
    {
        let mut guard = arena.scope_guard();
        guard.alloc_slice_fill_copy(500, 1u8);
        let cp_inside = guard.checkpoint();
        {
            let inner = guard.scope_guard();
            inner.alloc_slice_fill_copy(500, 2u8);
            assert_eq!(inner.stats().used, 4 + 500 + 500);
        }
        assert_eq!(guard.stats().used, 504);
        guard.alloc(0u8);
        guard.try_rewind(cp_inside).unwrap();
        assert_eq!(guard.stats().used, 504);
    }
    assert_eq!(arena.stats().used, 4);
    // SAFETY: allocated before the scope, which did not free it.
    assert_eq!(unsafe { *outer_value }, 5);
    let n = arena.scope(|s| s.alloc_slice_fill_with(10, |i| i).len());
    assert_eq!((n, arena.stats().used), (10, 4));
}

#[test]
fn a_guard_refuses_checkpoints_older_than_itself() {
    let mut arena = small();
    let before = arena.checkpoint();
    let mut guard = arena.scope_guard();
    guard.alloc(1u8);
    assert_eq!(guard.try_rewind(before), Err(RewindError::StaleCheckpoint));
    drop(guard);
    arena.rewind(before);
}

/// Regression: freeing, through a guard, the newest block made before the guard lowered
/// `top` below the guard's entry. The guard's exit then tried to "lower" `top` back up
/// to its entry: a debug assertion inside `Drop`, and in release builds `top` raised
/// over the freed bytes, which leaked until the next reset.
#[test]
fn a_guard_exit_below_its_entry_keeps_the_lower_top() {
    use allocator_api2::alloc::Allocator;
    let mut arena = small();
    let kept = arena.alloc(7u64) as *const u64;
    let layout = Layout::from_size_align(256, 16).unwrap();
    let before = (&arena).allocate(layout).unwrap().cast::<u8>();
    let used_before = arena.stats().used;
    {
        let guard = arena.scope_guard();
        // SAFETY: `before` is the arena's newest block, with `layout`, and unused.
        unsafe { (&*guard).deallocate(before, layout) };
        assert_eq!(guard.stats().used, used_before - 256);
    }
    assert_eq!(arena.stats().used, used_before - 256, "the guard's exit raised `top` again");
    // The freed bytes are handed out again.
    let again = arena.alloc_layout(layout);
    assert_eq!(again, before);
    // SAFETY: allocated before the guard, never freed.
    assert_eq!(unsafe { *kept }, 7);
    // A nested guard whose outer one lowered `top` below the inner one's entry.
    {
        let mut outer = arena.scope_guard();
        let mut inner = outer.scope_guard();
        let cp = inner.checkpoint();
        inner.alloc(1u8);
        inner.try_rewind(cp).unwrap();
    }
    assert_eq!(arena.stats().used, used_before);
}

/// Code generic over arenas runs on a `VmArena` as on the others.
fn fill<B: Bump>(arena: &mut B) -> usize {
    let cp = arena.checkpoint();
    let p = arena.alloc_layout(Layout::new::<[u64; 4]>());
    let addr = p.as_ptr() as usize;
    arena.rewind(cp);
    addr
}

#[test]
fn the_bump_trait_works_on_vm_arenas_and_their_guards() {
    let mut arena = small();
    let a = fill(&mut arena);
    let b = fill(&mut arena);
    assert_eq!(a, b);
    let mut guard = arena.scope_guard();
    assert_eq!(fill(&mut guard), a);
}

#[test]
fn hashbrown_runs_on_a_vm_arena() {
    let arena = small();
    let mut map = hashbrown::HashMap::new_in(&arena);
    for i in 0..1000u32 {
        map.insert(i, i * 2);
    }
    assert_eq!(map[&999], 1998);
}

/// Resident memory of this process, from /proc (Linux only).
#[cfg(target_os = "linux")]
fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[test]
#[cfg(target_os = "linux")]
#[cfg_attr(miri, ignore = "measures resident memory through /proc after touching 256 MiB")]
fn release_policy_gives_pages_back_and_keep_policy_does_not() {
    const SIZE: usize = 256 * MIB;
    let mut keep = VmArena::<1>::with_options(VmOptions::new(1 << 36));
    keep.alloc_slice_fill_copy(SIZE, 1u8);
    let before = resident_bytes();
    keep.reset();
    assert!(resident_bytes() + SIZE / 2 > before, "keep-pages reset released memory");
    drop(keep);

    let mut release = VmArena::<1>::with_options(VmOptions::new(1 << 36).reset_policy(ResetPolicy::ReleaseAbove(MIB)));
    release.alloc_slice_fill_copy(SIZE, 1u8);
    let before = resident_bytes();
    release.reset();
    let after = resident_bytes();
    assert!(after + SIZE / 2 < before, "release reset kept memory: {before} -> {after}");
    assert_eq!(release.stats().peak_used, SIZE);
    assert!(release.alloc_slice_fill_copy(SIZE, 2u8).iter().all(|&b| b == 2));
}

#[test]
#[cfg_attr(miri, ignore = "reserves 64 GiB, which Miri's emulated mmap would have to allocate")]
fn a_huge_reservation_costs_nothing_until_used() {
    let arena = VmArena::<1>::new(64 << 30);
    assert_eq!(arena.reserved(), 64 << 30);
    assert_eq!(arena.allocated_bytes(), 0);
    arena.alloc(1u8);
    assert!(arena.allocated_bytes() <= MIB);
}

#[test]
fn collections_grow_in_place_on_a_vm_arena() {
    let arena = small();
    let mut s = bumpdown::collections::String::new_in(&arena);
    s.push('x');
    let start = s.as_ptr();
    let n = if cfg!(miri) { 5_000 } else { 200_000 };
    for _ in 0..n {
        s.push_str("ab");
    }
    assert_eq!(s.as_ptr(), start, "the string moved");
    assert_eq!(s.len(), 1 + 2 * n);
    // Nothing left behind: the arena holds the string's buffer and no more.
    assert_eq!(arena.stats().used, s.capacity());
    let v = bumpdown::vec![in &arena; 1u64, 2, 3];
    assert_eq!(v.iter().sum::<u64>(), 6);
}

#[test]
fn huge_pages_commit_whole_aligned_blocks() {
    // A huge page needs its whole 2 MiB block committed at once, so with huge pages the
    // committed part always ends on a 2 MiB boundary (or at the reservation's end).
    let arena: VmArena = VmArena::with_options(VmOptions::new(16 * MIB).huge_pages(true));
    let first = arena.alloc(1u8) as *const u8;
    let end = first.addr() + arena.allocated_bytes();
    assert_eq!(end % (2 * MIB), 0, "committed up to {end:#x}");
    let block = arena.alloc_layout(Layout::from_size_align(3 * MIB, 1).unwrap()).as_ptr();
    // SAFETY: a live block of 3 MiB; only its ends are written (this runs under Miri too).
    unsafe {
        block.write(7);
        block.add(3 * MIB - 1).write(7);
    }
    let end = first.addr() + arena.allocated_bytes();
    assert!(end % (2 * MIB) == 0 || arena.allocated_bytes() == arena.reserved());
}

/// Threads of this process whose name is `name`, from /proc (Linux only).
#[cfg(target_os = "linux")]
fn threads_named(name: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|comm| comm.trim_end() == name)
        .count()
}

/// `threads_named(name)` once it is `n`, or after 10 s whatever it is then: a new thread
/// names itself once it runs, which may take a moment on a busy machine.
#[cfg(target_os = "linux")]
fn threads_named_once(name: &str, n: usize) -> usize {
    let start = std::time::Instant::now();
    loop {
        let count = threads_named(name);
        if count == n || start.elapsed().as_secs() >= 10 {
            return count;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

// The only test of this file that makes a populating thread, so the thread counts below
// see no other test's.
#[test]
#[cfg(target_os = "linux")]
#[cfg_attr(miri, ignore = "Miri runs no system calls, so the arena starts no thread")]
fn a_populating_thread_works_ahead_within_the_limit_and_is_joined_on_drop() {
    let options = VmOptions::new(1 << 36).huge_pages(true).populate_in_background(true);
    let arena: VmArena = VmArena::with_options(options);
    assert_eq!(threads_named_once("bd-populate", 0), 0, "started before the first commit");
    // Many blocks across many commits, each filled with its own byte and checked at the
    // end: the thread's populating must never change what the program wrote.
    let mut blocks = Vec::new();
    for i in 0..20_000usize {
        blocks.push((arena.alloc_slice_fill_copy(1000 + i % 3000, i as u8), i as u8));
    }
    assert_eq!(threads_named_once("bd-populate", 1), 1);
    for (block, byte) in &blocks {
        assert!(common::all_bytes_are(block, *byte));
    }
    // Ahead of use, but not by more than `BACKGROUND_AHEAD` and a huge page's rounding.
    let used = arena.stats().used;
    let held = arena.allocated_bytes();
    assert!(held > used && held <= used + bumpdown::BACKGROUND_AHEAD + 4 * MIB, "{used} used, {held} held");
    drop(blocks);
    drop(arena);
    assert_eq!(threads_named_once("bd-populate", 0), 0, "the thread outlived its arena");

    // Working ahead stays within the limit.
    let arena: VmArena = VmArena::with_options(options);
    let limit = 6 * MIB;
    arena.set_allocation_limit(Some(limit));
    let mut total = 0;
    while let Ok(block) = arena.try_alloc_slice_fill_copy(100_000, 1u8) {
        total += block.len();
    }
    assert!(
        total > limit - 200_000 && arena.allocated_bytes() <= limit,
        "{total} allocated, {} held",
        arena.allocated_bytes()
    );
    // An arena that never allocates has no thread.
    let idle: VmArena = VmArena::with_options(options);
    assert_eq!(threads_named_once("bd-populate", 1), 1);
    drop((arena, idle));
    assert_eq!(threads_named_once("bd-populate", 0), 0);
}

#[test]
fn background_populating_without_populating_is_off() {
    // `populate(false)` after `populate_in_background(true)` turns both off, and the
    // other order turns both on: the two never disagree.
    let off = VmOptions::new(MIB).populate_in_background(true).populate(false);
    assert_eq!(off, VmOptions::new(MIB).populate(false));
    let on = VmOptions::new(MIB).populate(false).populate_in_background(true);
    assert_eq!(on, VmOptions::new(MIB).populate_in_background(true));
    let arena: VmArena = VmArena::with_options(off);
    assert_eq!(*arena.alloc(3u16), 3);
}

/// The ways a `VmArena` allocation can fail midway: the reservation runs out, the
/// allocation limit is hit (also after it was lowered below what is committed), a
/// request is absurd. A program of operations meets each of them; after every one
/// `check_invariants` holds, every live block keeps its contents, and the arena goes on.
#[test]
fn every_failure_leaves_the_vm_arena_consistent() {
    // Several commit batches' worth, so that the limit matters; Miri fills blocks a
    // byte at a time, so its reservation is smaller: the first batch (64 KiB) and one
    // more (128 KiB).
    const RESERVED: usize = if cfg!(miri) { 192 * 1024 } else { 4 * MIB };
    let mut arena: VmArena = VmArena::with_options(VmOptions::new(RESERVED).populate(false));
    let mut rng = Rng(0x0BAD_CAFE_F00D);
    let mut failures = [0usize; 3];
    // At least 21 steps a round, so that the limit-at-the-commit step (20) comes.
    let steps = if cfg!(miri) { 88 } else { 5_000 };
    for round in 0..4 {
        let cp = arena.checkpoint();
        let mut blocks: Vec<(*const u8, usize, u8)> = Vec::new();
        for step in 0..steps / 4 {
            let byte = step as u8;
            match rng.below(10) {
                // A limit at what is committed now: the next commit fails.
                _ if step % 40 == 20 => {
                    let committed = arena.stats().used + arena.chunk_capacity();
                    arena.set_allocation_limit(Some(committed));
                    let err = arena.try_alloc_slice_fill_copy(arena.chunk_capacity() + 1, byte).unwrap_err();
                    // With the whole reservation committed, the reservation ends first.
                    let full = committed == RESERVED;
                    assert_eq!(err.kind(), if full { AllocErrorKind::Full } else { AllocErrorKind::LimitReached });
                    failures[usize::from(full)] += 1;
                }
                0 => arena.set_allocation_limit(Some(rng.below(RESERVED as u64 + MIB as u64) as usize)),
                1 => arena.set_allocation_limit(None),
                _ => {
                    let len = match rng.below(6) {
                        0 if step % 8 == 0 => usize::MAX - rng.below(64) as usize,
                        0 => RESERVED / 2 + rng.below(RESERVED as u64) as usize,
                        1 => rng.below(16 * KIB as u64) as usize,
                        _ => rng.below(700) as usize,
                    };
                    match arena.try_alloc_slice_fill_copy(len, byte) {
                        Ok(s) => blocks.push((s.as_ptr(), len, byte)),
                        Err(err) => {
                            failures[match err.kind() {
                                AllocErrorKind::LimitReached => 0,
                                AllocErrorKind::Full => 1,
                                _ => 2,
                            }] += 1
                        }
                    }
                }
            }
            arena.check_invariants();
        }
        for &(p, len, byte) in &blocks {
            // SAFETY: live blocks of the arena (nothing was rewound since they were made).
            let bytes = unsafe { std::slice::from_raw_parts(p, len) };
            assert!(common::all_bytes_are(bytes, byte), "round {round}: a block changed after a failure");
        }
        arena.set_allocation_limit(None);
        arena.rewind(cp);
        arena.check_invariants();
        assert_eq!(arena.stats().used, 0);
    }
    assert!(failures.iter().all(|&n| n > 0), "not every kind of failure was met: {failures:?}");
}
