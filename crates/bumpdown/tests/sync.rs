//! `SyncArena` and `LocalArena`: many threads, one arena.

mod common;

use bumpdown::{AllocErrorKind, LocalArena, SyncArena};
use common::TestAlloc;
use common::{scaled, FailOnce, Rng};
use core::alloc::Layout;
use std::sync::Barrier;

/// Threads and allocations per thread: Miri runs the same program, smaller.
const THREADS: usize = if cfg!(miri) { 3 } else { 4 };
const PER_THREAD: usize = if cfg!(miri) { 200 } else { 200_000 };

/// More threads than the arena has lanes (8), so that some share one.
const MANY_THREADS: usize = if cfg!(miri) { 10 } else { 12 };

/// Runs `work` on `THREADS` threads at once; see `stress_on`.
fn stress<'a>(arena: &'a SyncArena, work: impl Fn(&'a SyncArena, usize, &mut Vec<(&'a mut [u8], u8)>) + Sync) -> usize {
    stress_on(THREADS, arena, work)
}

/// Runs `work` on `threads` threads at once, then checks that every block they made
/// still holds the byte its thread wrote and that no two blocks overlap. Returns how
/// many blocks there were.
fn stress_on<'a>(
    threads: usize,
    arena: &'a SyncArena,
    work: impl Fn(&'a SyncArena, usize, &mut Vec<(&'a mut [u8], u8)>) + Sync,
) -> usize {
    let barrier = Barrier::new(threads);
    let blocks: Vec<(&'a mut [u8], u8)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (barrier, work) = (&barrier, &work);
                s.spawn(move || {
                    let mut mine = Vec::new();
                    barrier.wait();
                    work(arena, t, &mut mine);
                    mine
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    // Contents are checked after every thread has finished writing.
    for (block, byte) in &blocks {
        assert!(common::all_bytes_are(block, *byte), "a block was overwritten");
    }
    let mut ranges: Vec<(usize, usize)> = blocks
        .iter()
        .filter(|(b, _)| !b.is_empty())
        .map(|(b, _)| (b.as_ptr().addr(), b.as_ptr().addr() + b.len()))
        .collect();
    ranges.sort_unstable();
    for pair in ranges.windows(2) {
        assert!(pair[0].1 <= pair[1].0, "two blocks overlap: {:x?} and {:x?}", pair[0], pair[1]);
    }
    blocks.len()
}

fn size_of_step(t: usize, i: usize) -> usize {
    (t * 7 + i * 13) % 97
}

#[test]
fn threads_allocating_through_the_shared_arena_never_overlap() {
    let arena = SyncArena::new();
    let count = stress(&arena, |arena, t, mine| {
        for i in 0..PER_THREAD {
            let byte = (t * 31 + i) as u8;
            let len = size_of_step(t, i);
            let s = arena.alloc_slice_copy(&vec![byte; len][..]);
            mine.push((s, byte));
        }
    });
    assert_eq!(count, THREADS * PER_THREAD);
}

#[test]
fn more_threads_than_lanes_refill_their_lanes_without_overlap() {
    let arena = SyncArena::new();
    let per_thread = PER_THREAD / 4;
    let count = stress_on(MANY_THREADS, &arena, |arena, t, mine| {
        for i in 0..per_thread {
            let byte = (t * 29 + i) as u8;
            // Mostly small blocks (many windows fill up), now and then one too large for
            // a lane, or aligned beyond a window's guarantee.
            let s: &mut [u8] = match i % 500 {
                499 => arena.alloc_slice_copy(&vec![byte; 20_000][..]),
                250 => {
                    let p = arena.alloc_layout(Layout::from_size_align(300, 1024).unwrap());
                    assert_eq!(p.as_ptr() as usize % 1024, 0);
                    // SAFETY: a fresh block of 300 bytes, ours alone.
                    unsafe { core::slice::from_raw_parts_mut(p.as_ptr(), 300) }
                }
                _ => arena.alloc_slice_copy(&vec![byte; size_of_step(t, i)][..]),
            };
            s.fill(byte);
            mine.push((s, byte));
        }
    });
    assert_eq!(count, MANY_THREADS * per_thread);
}

#[test]
fn reset_while_lanes_hold_windows_then_allocate_again() {
    // `TestAlloc` is not `Sync`; the held bytes and chunk count tell the same story.
    let mut arena = SyncArena::new();
    // Under Miri, 50 blocks a thread: still a window held by each lane at the reset.
    let per_thread = if cfg!(miri) { 50 } else { 20_000 };
    for round in 0..3u8 {
        let arena_ref = &arena;
        std::thread::scope(|s| {
            for t in 0..MANY_THREADS {
                s.spawn(move || {
                    let byte = round.wrapping_mul(16).wrapping_add(t as u8);
                    let blocks: Vec<&mut [u8]> =
                        (0..per_thread).map(|i| arena_ref.alloc_slice_copy(&[byte; 40][..1 + (i + t) % 40])).collect();
                    assert!(blocks.iter().all(|b| common::all_bytes_are(b, byte)));
                });
            }
        });
        arena.reset();
        assert_eq!(arena.chunk_count(), 1);
        // The lanes start over in the kept chunk: a few small blocks need no new chunk.
        let held = arena.allocated_bytes();
        let a = arena.alloc(round);
        let b = arena.alloc_slice_copy(&[round; 100]);
        assert_eq!((*a, b[99]), (round, round));
        assert_eq!((arena.chunk_count(), arena.allocated_bytes()), (1, held));
    }
}

#[test]
fn requests_larger_than_a_window_go_to_the_chunk() {
    let arena = SyncArena::new();
    let small = arena.alloc(0x11u8);
    // Above a first window's quarter, above the largest lane request, above a chunk.
    let sizes = [2_000, 5_000, 16_384, 20_000, 70_000, 1 << 20];
    let blocks: Vec<(&mut [u8], u8)> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let byte = i as u8 + 1;
            (arena.alloc_slice_copy(&vec![byte; n][..]), byte)
        })
        .collect();
    let after = arena.alloc(0x22u8);
    assert_eq!((*small, *after), (0x11, 0x22));
    for (b, byte) in &blocks {
        assert!(common::all_bytes_are(b, *byte));
    }
    let mut ranges: Vec<(usize, usize)> =
        blocks.iter().map(|(b, _)| (b.as_ptr().addr(), b.as_ptr().addr() + b.len())).collect();
    ranges.push((small as *mut u8 as usize, small as *mut u8 as usize + 1));
    ranges.push((after as *mut u8 as usize, after as *mut u8 as usize + 1));
    ranges.sort_unstable();
    assert!(ranges.windows(2).all(|w| w[0].1 <= w[1].0), "blocks overlap: {ranges:x?}");
}

#[test]
fn alignments_up_to_4096_through_the_shared_arena() {
    let arena = SyncArena::new();
    let rounds = if cfg!(miri) { 2 } else { 50 };
    stress(&arena, |arena, t, mine| {
        for i in 0..rounds {
            for shift in 0..=12 {
                let align = 1usize << shift;
                let size = 1 + (t * 5 + i * 3 + shift) % 70;
                let byte = (t * 13 + shift + i) as u8;
                let p = arena.alloc_layout(Layout::from_size_align(size, align).unwrap());
                assert_eq!(p.as_ptr() as usize % align, 0, "align {align}");
                // SAFETY: a fresh block of `size` bytes, ours alone.
                let s = unsafe { core::slice::from_raw_parts_mut(p.as_ptr(), size) };
                s.fill(byte);
                mine.push((s, byte));
            }
        }
    });
}

#[test]
fn threads_with_local_handles_never_overlap() {
    let arena = SyncArena::new();
    // Under Miri, half of `PER_THREAD`: still several windows a handle, each block
    // filled byte by byte.
    let per_thread = if cfg!(miri) { PER_THREAD / 2 } else { PER_THREAD };
    let count = stress(&arena, |arena, t, mine| {
        let local = arena.local();
        for i in 0..per_thread {
            let byte = (t * 17 + i) as u8;
            let len = size_of_step(t, i) * if i % 1000 == 999 { 100 } else { 1 };
            let s = local.alloc_slice_fill_copy(len, byte);
            mine.push((s, byte));
            if i % 5000 == 4999 {
                // Handles come and go; what they allocated stays.
                let other = arena.local();
                let s = other.alloc_slice_fill_copy(10, byte);
                drop(other);
                mine.push((s, byte));
            }
        }
    });
    assert_eq!(count, THREADS * (per_thread + per_thread / 5000));
}

#[test]
fn mixed_shared_and_local_allocations_stay_apart() {
    let arena = SyncArena::new();
    stress(&arena, |arena, t, mine| {
        let local = arena.local();
        for i in 0..PER_THREAD / 2 {
            let byte = (t + i) as u8;
            let s: &mut [u8] =
                if i % 2 == 0 { arena.alloc_slice_copy(&[byte; 24]) } else { local.alloc_slice_copy(&[byte; 40]) };
            mine.push((s, byte));
        }
    });
}

#[test]
fn allocations_outlive_the_local_handle_and_are_aligned() {
    let arena = SyncArena::new();
    let kept: &mut u64;
    let text: &mut str;
    {
        let local: LocalArena<'_> = arena.local();
        kept = local.alloc(0xABCDu64);
        text = local.alloc_str("outlives the handle");
        // Past the first window (4 KiB) at least.
        for _ in 0..scaled(10_000, 5_000) {
            local.alloc(1u8);
        }
        let wide = local.alloc_layout(Layout::from_size_align(64, 64).unwrap());
        assert_eq!(wide.as_ptr() as usize % 64, 0);
    }
    let after = arena.alloc(1u32);
    assert_eq!((*kept, &*text, *after), (0xABCD, "outlives the handle", 1));
}

#[test]
fn a_dropped_handle_gives_its_window_back() {
    let arena = SyncArena::new();
    arena.alloc(0u8); // the first chunk
    let first = {
        let local = arena.local();
        local.alloc(1u8) as *mut u8 as usize
    };
    // The window's unused part went back: the next handle's window ends right below the
    // first handle's one byte.
    let next = {
        let local = arena.local();
        local.alloc(2u8) as *mut u8 as usize
    };
    assert!(first - next < 64, "the window was not given back ({first:x} vs {next:x})");
}

#[test]
fn reset_keeps_one_chunk_and_frees_the_rest() {
    let alloc = TestAlloc::default();
    let mut arena = SyncArena::new_in(&alloc);
    for _ in 0..1000 {
        arena.alloc_slice_copy(&[0u8; 1000]);
    }
    assert!(arena.chunk_count() > 1);
    arena.reset();
    let before = alloc.calls();
    assert_eq!(arena.chunk_count(), 1);
    assert_eq!(alloc.live_bytes.get(), arena.allocated_bytes());
    for _ in 0..10 {
        arena.alloc_slice_copy(&[0u8; 1000]);
    }
    assert_eq!(alloc.calls(), before, "reset's kept chunk was not reused");
    drop(arena);
    assert_eq!(alloc.live_bytes.get(), 0);
}

#[test]
fn failures_are_errors_and_the_arena_stays_usable() {
    let alloc = TestAlloc::failing_nth(2);
    let arena = SyncArena::new_in(&alloc);
    let first = arena.alloc(5u64);
    // The first chunk has room for this; the next chunk is refused.
    let err = arena.try_alloc_layout(Layout::from_size_align(1 << 20, 8).unwrap()).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::OutOfMemory);
    assert_eq!(*first, 5);
    assert!(arena.try_alloc(1u8).is_ok());
    let huge = Layout::from_size_align(isize::MAX as usize - 8, 8).unwrap();
    assert_eq!(arena.try_alloc_layout(huge).unwrap_err().kind(), AllocErrorKind::InvalidLayout);
    let local = arena.local();
    assert!(local.try_alloc_slice_fill_copy(usize::MAX / 2, 0u16).is_err());
    assert!(local.try_alloc(1u32).is_ok());
}

#[test]
fn zero_sized_requests_cost_nothing() {
    let arena = SyncArena::new();
    let p = arena.alloc_layout(Layout::from_size_align(0, 32).unwrap());
    assert_eq!(p.as_ptr() as usize % 32, 0);
    arena.alloc(());
    assert_eq!(arena.allocated_bytes(), 0);
}

/// Regression: a handle whose window refill failed kept `bottom` at its old, unaligned
/// `top`. A zero-sized request aligned to 16 then moved `top` below `bottom`, and the next
/// slice request's `top - bottom` wrapped, so the block landed in memory the chunk had
/// since handed to another handle.
#[test]
fn a_failed_window_refill_leaves_the_handle_usable_and_apart() {
    let alloc = TestAlloc::default();
    let arena = SyncArena::new_in(&alloc);
    let first = arena.local();
    // Fill a 4 KiB window, then most of an 8 KiB one, from the 16 KiB first chunk: the
    // second window is the chunk's newest block, with 101 bytes free and its `top` on an
    // odd address.
    first.alloc_slice_copy(&[1u8; 3]);
    for _ in 0..4 {
        first.alloc_slice_copy(&[1u8; 1023]);
    }
    for len in [2047, 2047, 2047, 1947, 3] {
        first.alloc_slice_copy(&vec![1u8; len][..]);
    }
    assert_eq!(arena.chunk_count(), 1);
    first.check_invariants();
    // The next window (16 KiB) needs a new chunk, which the backing allocator refuses.
    alloc.fail_nth.set(alloc.allocs.get() + 1);
    let err = first.try_alloc([0u8; 1000]).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::OutOfMemory);
    first.check_invariants();
    alloc.fail_nth.set(0);
    // A second handle takes the window the first one gave back.
    let second = arena.local();
    let theirs = second.alloc_slice_copy(&[2u8; 64]);
    second.check_invariants();
    assert_eq!(arena.chunk_count(), 1, "the second handle's window is not from the first chunk");
    // The first handle goes on allocating: a zero-sized block aligned to 16, then 16 bytes.
    let empty = first.alloc_layout(Layout::from_size_align(0, 16).unwrap());
    assert_eq!(empty.as_ptr().addr() % 16, 0);
    first.check_invariants();
    let mine = first.alloc_slice_copy(&[3u8; 16]);
    first.check_invariants();
    let (a, b) = (theirs.as_ptr().addr(), mine.as_ptr().addr());
    assert!(a + theirs.len() <= b || b + mine.len() <= a, "blocks overlap: {a:#x}+64 and {b:#x}+16");
    assert!(common::all_bytes_are(theirs, 2) && common::all_bytes_are(mine, 3));
}

/// Every face of `SyncArena` under failure injection: a program of allocations through
/// three local handles and the shared arena runs once to count the backing allocator's
/// requests, then once for every `n` with the `n`-th request failing. After each
/// operation every handle and the arena pass `check_invariants`; at the end no two
/// blocks overlap and each still holds its fill byte.
#[test]
fn every_failed_request_leaves_the_handles_usable_and_apart() {
    fn program(arena: &SyncArena<&FailOnce>, seed: u64, steps: usize) -> usize {
        let handles = [arena.local(), arena.local(), arena.local()];
        let mut rng = Rng(seed);
        let mut blocks: Vec<(std::ptr::NonNull<u8>, usize, u8)> = Vec::new();
        let mut failures = 0;
        for step in 0..steps {
            let who = rng.below(4) as usize;
            let byte = step as u8;
            // Odd sizes leave odd `top`s behind; some are larger than a window's quarter,
            // some zero-sized with a large alignment.
            let len = match rng.below(8) {
                0 => 0,
                1 => 1 + rng.below(20_000) as usize,
                _ => 1 + 2 * rng.below(600) as usize,
            };
            let align = 1 << rng.below(7);
            let layout = Layout::from_size_align(len, align).unwrap();
            let result = match who {
                3 => arena.try_alloc_layout(layout),
                h => handles[h].try_alloc_layout(layout),
            };
            match result {
                Ok(p) => {
                    assert_eq!(p.as_ptr().addr() % align, 0, "misaligned block");
                    // SAFETY: a fresh block of `len` bytes.
                    unsafe { p.as_ptr().write_bytes(byte, len) };
                    blocks.push((p, len, byte));
                }
                Err(err) => {
                    assert_eq!(err.kind(), AllocErrorKind::OutOfMemory);
                    failures += 1;
                }
            }
            handles.iter().for_each(LocalArena::check_invariants);
            arena.check_invariants();
        }
        for &(p, len, byte) in &blocks {
            // SAFETY: live blocks of the arena, `len` bytes each.
            let bytes = unsafe { std::slice::from_raw_parts(p.as_ptr(), len) };
            assert!(common::all_bytes_are(bytes, byte), "a block was overwritten");
        }
        let mut ranges: Vec<(usize, usize)> = blocks
            .iter()
            .filter(|b| b.1 > 0)
            .map(|&(p, len, _)| (p.as_ptr().addr(), p.as_ptr().addr() + len))
            .collect();
        ranges.sort_unstable();
        for pair in ranges.windows(2) {
            assert!(pair[0].1 <= pair[1].0, "two blocks overlap: {:x?} and {:x?}", pair[0], pair[1]);
        }
        failures
    }

    let steps = scaled(400, 40);
    for seed in 1..=scaled(3, 1) as u64 {
        let seed = seed * 0x9E37_79B9;
        let counter = FailOnce::default();
        assert_eq!(program(&SyncArena::new_in(&counter), seed, steps), 0, "the dry run failed");
        let requests = counter.requests.get();
        assert!(requests > 3, "the program makes too few requests to test anything");
        for n in 1..=requests {
            let backing = FailOnce::default();
            backing.fail.set(n);
            let mut arena = SyncArena::new_in(&backing);
            // The failed request surfaces as one failed operation; the program runs on.
            assert_eq!(program(&arena, seed, steps), 1, "n = {n}");
            arena.reset();
            assert_eq!(*arena.local().alloc(5u32), 5);
            arena.check_invariants();
            drop(arena);
            assert_eq!(backing.inner.live_bytes.get(), 0, "n = {n}: leaked");
        }
    }
}

/// The whole typed API (the same as `Arena`'s) through `&SyncArena`, from two threads.
#[test]
fn the_typed_api_works_through_the_shared_arena() {
    let arena = SyncArena::new();
    std::thread::scope(|s| {
        for t in 0..2u64 {
            let arena = &arena;
            s.spawn(move || {
                let n = arena.alloc_with(|| t * 100);
                let squares = arena.alloc_slice_fill_with(100, |i| i as u64 * i as u64);
                let evens = arena.alloc_iter((0..1000u64).filter(|x| x % 2 == 0));
                let text = arena.alloc_fmt(format_args!("thread {t}: {}", squares[9]));
                let slot = arena.alloc_uninit::<[u8; 3]>().write([1, 2, 3]);
                let zeros = arena.alloc_zeroed_slice::<u32>(64);
                let copied = arena.alloc_slice_clone(&[Some("a"), Some("b")]);
                assert_eq!(*n, t * 100);
                assert_eq!(squares[99], 99 * 99);
                assert_eq!((evens.len(), evens[499]), (500, 998));
                assert_eq!(&*text, format!("thread {t}: 81"));
                assert_eq!(*slot, [1, 2, 3]);
                // SAFETY: zero bytes are a valid `u32`.
                assert!(zeros.iter().all(|z| unsafe { z.assume_init() } == 0));
                assert_eq!(copied[1], Some("b"));
                assert!(arena.try_alloc_slice_fill_copy(usize::MAX / 4, 0u64).is_err());
                assert_eq!(arena.alloc_layout(Layout::from_size_align(0, 64).unwrap()).as_ptr().addr() % 64, 0);
            });
        }
    });
    arena.check_invariants();
}

/// Checks that the `(address, length)` blocks are pairwise disjoint.
fn assert_disjoint(mut ranges: Vec<(usize, usize)>) {
    ranges.sort_unstable();
    for pair in ranges.windows(2) {
        assert!(pair[0].0 + pair[0].1 <= pair[1].0, "two blocks overlap: {:x?} and {:x?}", pair[0], pair[1]);
    }
}

/// One thread's blocks: values, slices and 16-aligned values, each holding a pattern
/// that names the thread and the step.
type Blocks<'a> = (Vec<&'a mut u64>, Vec<&'a mut [u32]>, Vec<&'a mut u128>);

/// Allocates `steps` rounds of each kind of block from `arena`, with `tag` in every
/// pattern.
fn patterned(arena: &SyncArena, tag: u64, steps: usize) -> Blocks<'_> {
    let (mut values, mut slices, mut wide) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..steps as u64 {
        values.push(arena.alloc(tag << 32 | i));
        let len = 1 + (tag + i) as usize % 9;
        slices.push(arena.alloc_slice_fill_copy(len, (tag << 16 | i) as u32));
        if i % 4 == 0 {
            wide.push(arena.alloc(u128::from(tag) << 64 | u128::from(i)));
        }
    }
    (values, slices, wide)
}

/// Checks every block of `blocks` still holds `patterned`'s pattern for `tag`, and
/// returns their ranges.
fn check_patterned(tag: u64, (values, slices, wide): &Blocks<'_>) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    for (i, v) in values.iter().enumerate() {
        assert_eq!(**v, tag << 32 | i as u64, "value {i} of {tag} overwritten");
        ranges.push((core::ptr::from_ref::<u64>(v).addr(), 8));
    }
    for (i, s) in slices.iter().enumerate() {
        assert!(s.iter().all(|&x| x == (tag << 16 | i as u64) as u32), "slice {i} of {tag} overwritten");
        assert_eq!(s.len(), 1 + (tag as usize + i) % 9);
        ranges.push((s.as_ptr().addr(), s.len() * 4));
    }
    for (i, w) in wide.iter().enumerate() {
        let p = core::ptr::from_ref::<u128>(w).addr();
        assert_eq!(p % 16, 0, "a u128 misaligned");
        assert_eq!(**w, u128::from(tag) << 64 | (4 * i) as u128, "u128 {i} of {tag} overwritten");
        ranges.push((p, 16));
    }
    ranges
}

/// Twenty threads, more than the 8 exclusive lanes, allocate through one `&SyncArena`
/// at once: those that claimed a lane bump it with plain loads and stores, the rest
/// share lanes atomically. While all are alive, no two hold the same exclusive lane
/// (other tests of this process may hold some); afterwards every block holds its
/// thread's pattern and none overlaps another.
#[test]
fn twenty_threads_own_or_share_lanes_without_overlap() {
    const THREADS: usize = 20;
    // Under Miri, 16 rounds a thread: twenty threads' blocks live in one chunk, and
    // every access Tree Borrows checks walks their tags.
    let steps = if cfg!(miri) { 16 } else { 20_000 };
    let mut arena = SyncArena::new();
    let barrier = Barrier::new(THREADS);
    // Per thread: its lane, its first round, the rest.
    type Run<'a> = (Option<(usize, bool)>, Blocks<'a>, Blocks<'a>);
    let results: Vec<Run<'_>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS as u64)
            .map(|t| {
                let (arena, barrier) = (&arena, &barrier);
                s.spawn(move || {
                    let first = patterned(arena, t, 1);
                    let lane = SyncArena::debug_thread_lane();
                    // Every thread holds its lane (or none) at this point.
                    barrier.wait();
                    (lane, first, patterned(arena, t, steps))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let owned: Vec<usize> = results.iter().filter_map(|(lane, ..)| lane.filter(|l| l.1).map(|l| l.0)).collect();
    let mut distinct = owned.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), owned.len(), "two live threads held one exclusive lane: {owned:?}");
    assert!(owned.len() <= 8);
    assert!(results.iter().all(|(lane, ..)| lane.is_some()), "a thread that allocated has no lane");
    let mut ranges = Vec::new();
    for (t, (_, first, blocks)) in results.iter().enumerate() {
        ranges.extend(check_patterned(t as u64, first));
        ranges.extend(check_patterned(t as u64, blocks));
    }
    assert_disjoint(ranges);
    arena.check_invariants();
    // Twenty threads alive at once and eight lanes to claim: shared lanes held windows
    // too, and `reset` gives every lane that held one its sentinel back.
    assert!(results.iter().any(|(lane, ..)| lane.is_some_and(|l| !l.1)), "no thread shared a lane");
    drop(results);
    arena.reset();
    arena.check_invariants();
    assert_eq!(arena.chunk_count(), 1);
    assert_eq!(*arena.alloc(7u64), 7);
}
