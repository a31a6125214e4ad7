//! `SyncArena` and `LocalArena`: many threads, one arena.

mod common;

use bumpdown::{AllocErrorKind, LocalArena, SyncArena};
use common::TestAlloc;
use core::alloc::Layout;
use std::sync::Barrier;

/// Threads and allocations per thread: Miri runs the same program, smaller.
const THREADS: usize = if cfg!(miri) { 3 } else { 4 };
const PER_THREAD: usize = if cfg!(miri) { 300 } else { 200_000 };

/// Runs `work` on `THREADS` threads at once, then checks that every block they made
/// still holds the byte its thread wrote and that no two blocks overlap. Returns how
/// many blocks there were.
fn stress<'a>(arena: &'a SyncArena, work: impl Fn(&'a SyncArena, usize, &mut Vec<(&'a mut [u8], u8)>) + Sync) -> usize {
    let barrier = Barrier::new(THREADS);
    let blocks: Vec<(&'a mut [u8], u8)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
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
        assert!(block.iter().all(|x| x == byte), "a block was overwritten");
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
fn threads_with_local_handles_never_overlap() {
    let arena = SyncArena::new();
    let count = stress(&arena, |arena, t, mine| {
        let local = arena.local();
        for i in 0..PER_THREAD {
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
    assert_eq!(count, THREADS * (PER_THREAD + PER_THREAD / 5000));
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
        for _ in 0..10_000 {
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
    let first = arena.alloc(1u8) as *mut u8 as usize;
    {
        let local = arena.local();
        local.alloc(2u8);
    }
    // The window's unused part went back: the next shared allocation lands right
    // below the handle's one byte.
    let next = arena.alloc(3u8) as *mut u8 as usize;
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
