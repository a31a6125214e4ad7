//! Chunk growth, out-of-band allocations, reset and reuse, limits, backing failures.

mod common;

use bumpdown::{AllocErrorKind, Arena};
use common::{scaled, TestAlloc};
use std::alloc::Layout;

type TestArena<'a> = Arena<1, &'a TestAlloc>;

#[test]
fn a_new_arena_allocates_nothing() {
    let backing = TestAlloc::default();
    let arena: TestArena = Arena::new_in(&backing);
    assert_eq!(arena.allocated_bytes(), 0);
    assert_eq!(arena.chunk_capacity(), 0);
    drop(arena);
    assert_eq!(backing.calls(), 0);
}

#[test]
fn chunks_grow_geometrically_up_to_the_cap() {
    let backing = TestAlloc::default();
    // Under Miri, a smaller cap and fewer allocations: still several doublings, then
    // several chunks at the cap.
    let cap = scaled(64 << 10, 8 << 10);
    let arena: TestArena = Arena::new_in(&backing).with_max_chunk_size(cap);
    let mut sizes = Vec::new();
    // The first allocation also takes the bookkeeping block.
    let mut last = <Arena>::BOOKKEEPING_BYTES;
    for _ in 0..scaled(100_000, 4_000) {
        arena.alloc(0u64);
        let held = arena.allocated_bytes_including_metadata();
        if held != last {
            sizes.push(held - last);
            last = held;
        }
    }
    assert!(sizes.len() >= 4, "{sizes:?}");
    for w in sizes.windows(2) {
        assert!(w[1] == 2 * w[0] + 16 || w[1] == w[0], "not doubling: {sizes:?}");
    }
    assert!(sizes.iter().all(|&s| s <= cap), "chunk above the cap: {sizes:?}");
    let largest = *sizes.last().unwrap();
    assert!(sizes.iter().filter(|&&s| s == largest).count() >= 2, "growth never stopped at the cap: {sizes:?}");
    arena.check_invariants();
}

#[test]
fn big_allocations_go_out_of_band() {
    let backing = TestAlloc::default();
    // (A smaller cap under Miri, where filling a megabyte takes a while.)
    let cap = scaled(4 << 20, 64 << 10);
    let mut arena: TestArena = Arena::new_in(&backing).with_max_chunk_size(cap);
    arena.alloc([0u8; 10]);
    let before = arena.stats();
    let big = arena.alloc_slice_fill_copy(cap / 4, 7u8);
    assert_eq!(big.len(), cap / 4);
    let small = arena.alloc([1u8; 10]);
    let after = arena.stats();
    // The 1 MiB went to a chunk of its own; the 10 bytes after it went to the first chunk.
    assert_eq!(after.big_chunks, 1);
    assert_eq!(after.chunks, before.chunks + 1);
    assert_eq!(small, &[1u8; 10]);
    // ...and the next regular chunk is not made huge by it.
    let first_free = arena.chunk_capacity();
    arena.alloc_slice_fill_copy(first_free + 1, 0u8);
    let regular = arena.stats().capacity - after.capacity;
    assert!(regular < 4096, "next regular chunk is {regular} bytes");
    // Reset gives the out-of-band chunk back and keeps the regular ones.
    let allocs = backing.allocs.get();
    arena.reset();
    assert_eq!(arena.stats().big_chunks, 0);
    assert_eq!(backing.deallocs.get(), 1);
    assert_eq!(backing.allocs.get(), allocs);
    arena.check_invariants();
}

#[test]
fn reserved_memory_stays_within_twice_the_payload_plus_a_chunk() {
    let mut rng = common::Rng(7);
    let arena = Arena::new();
    let mut payload = 0;
    for _ in 0..scaled(20_000, 2_000) {
        let bound = if rng.below(100) == 0 { 100_000 } else { 200 };
        let len = rng.below(bound) as usize;
        arena.alloc_layout(Layout::array::<u8>(len).unwrap());
        payload += len;
        let held = arena.allocated_bytes_including_metadata();
        assert!(held <= 2 * payload + (4 << 20) + 4096, "held {held} for payload {payload}");
    }
}

#[test]
fn reset_reuses_every_chunk_without_calling_the_backing_allocator() {
    let backing = TestAlloc::default();
    let mut arena: TestArena = Arena::new_in(&backing);
    let n = scaled(200_000, 2_000);
    let fill = |arena: &TestArena| {
        let mut addrs = Vec::new();
        for i in 0..n {
            addrs.push(arena.alloc([i as u8; 64]).as_ptr() as usize);
        }
        addrs
    };
    let first = fill(&arena);
    let calls = backing.calls();
    let held = arena.allocated_bytes();
    for _ in 0..3 {
        arena.reset();
        let again = fill(&arena);
        // The same chunks, in the same order: the same addresses, so no new pages.
        assert_eq!(again, first);
        assert_eq!(backing.calls(), calls, "reset pass called the backing allocator");
        assert_eq!(arena.allocated_bytes(), held);
        arena.check_invariants();
    }
}

#[test]
fn a_rewind_across_chunks_reuses_them_in_fill_order() {
    let backing = TestAlloc::default();
    let mut arena: TestArena = Arena::new_in(&backing).with_max_chunk_size(4096);
    // The checkpoint lands in a later chunk, with full chunks before it.
    for _ in 0..40 {
        arena.alloc_slice_fill_copy(300, 1u8);
    }
    assert!(arena.stats().chunks > 2);
    let cp = arena.checkpoint();
    let (used, chunks_then) = (arena.stats().used, arena.stats().chunks);
    let fill = |arena: &TestArena| (0..200).map(|i| arena.alloc([i as u8; 200]).as_ptr() as usize).collect::<Vec<_>>();
    let first = fill(&arena);
    let (calls, chunks) = (backing.calls(), arena.stats().chunks);
    assert!(chunks > 10, "the fill should span many chunks, not {chunks}");
    assert_eq!(arena.stats().used, used + first.len() * 200);
    for _ in 0..3 {
        arena.rewind(cp);
        assert_eq!(arena.stats().used, used, "the chunks before the checkpoint's hold what they held");
        assert_eq!(arena.stats().spare_chunks, chunks - chunks_then);
        arena.check_invariants();
        assert_eq!(fill(&arena), first, "the spares are reused in the order they were filled");
        assert_eq!(backing.calls(), calls);
        arena.check_invariants();
    }
}

#[test]
fn a_request_that_only_a_later_spare_holds_takes_it_and_keeps_the_rest() {
    let backing = TestAlloc::default();
    let mut arena: TestArena = Arena::new_in(&backing).with_max_chunk_size(64 << 10);
    // Chunks of growing size; after the reset the first spares are too small for 5 KiB.
    for _ in 0..400 {
        arena.alloc([0u8; 100]);
    }
    let (calls, held) = (backing.calls(), arena.allocated_bytes());
    for _ in 0..3 {
        arena.reset();
        arena.alloc(1u8);
        let big = arena.alloc_slice_fill_copy(5_000, 2u8);
        assert!(common::all_bytes_are(big, 2));
        arena.check_invariants();
        for _ in 0..400 {
            arena.alloc([0u8; 100]);
        }
        arena.check_invariants();
        assert_eq!(backing.calls(), calls, "a spare chunk was not reused");
        assert_eq!(arena.allocated_bytes(), held);
    }
}

#[test]
fn scopes_at_a_chunk_boundary_do_not_thrash() {
    // Bumper.jl's pathology: a loop that allocates just past the end of a chunk and
    // resets must not allocate and free a chunk per iteration.
    let backing = TestAlloc::default();
    let mut arena: TestArena = Arena::new_in(&backing);
    let first_free = {
        arena.alloc(0u8);
        arena.chunk_capacity()
    };
    let calls = backing.calls();
    for _ in 0..scaled(10_000, 200) {
        arena.reset();
        arena.alloc_layout(Layout::array::<u8>(first_free).unwrap());
        arena.alloc(2u64);
    }
    assert!(backing.calls() <= calls + 1, "{} backing calls", backing.calls() - calls);
}

#[test]
fn reset_with_limit_frees_what_is_over_the_limit() {
    let backing = TestAlloc::default();
    let mut arena: TestArena = Arena::new_in(&backing);
    for _ in 0..scaled(100_000, 5_000) {
        arena.alloc(0u64);
    }
    let held = arena.allocated_bytes_including_metadata();
    arena.reset_with_limit(held / 2);
    let kept = arena.allocated_bytes_including_metadata();
    assert!(kept <= held / 2 && kept > 0, "kept {kept} of {held}");
    assert_eq!(backing.live_bytes.get(), kept);
    arena.check_invariants();
    arena.reset_with_limit(0);
    assert_eq!(arena.allocated_bytes(), 0);
    assert_eq!(backing.live_bytes.get(), <Arena>::BOOKKEEPING_BYTES);
    // Still usable.
    assert_eq!(*arena.alloc(5u8), 5);
    arena.check_invariants();
}

#[test]
fn the_limit_is_never_exceeded_and_the_arena_keeps_working() {
    let backing = TestAlloc::default();
    let arena: TestArena = Arena::new_in(&backing);
    let limit = 10_000;
    arena.set_allocation_limit(Some(limit));
    assert_eq!(arena.allocation_limit(), Some(limit));
    let mut kept = Vec::new();
    let mut failures = 0;
    for i in 0..2000u32 {
        match arena.try_alloc([i; 4]) {
            Ok(v) => kept.push((i, v as *const [u32; 4])),
            Err(e) => {
                assert_eq!(e.kind(), AllocErrorKind::LimitReached);
                failures += 1;
            }
        }
        assert!(backing.live_bytes.get() <= limit);
        assert!(arena.allocated_bytes_including_metadata() <= limit);
    }
    assert!(failures > 0 && kept.len() > 100);
    // Small requests that still fit in the current chunk keep working.
    let err = arena.try_alloc_slice_fill_copy(limit, 0u8).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::LimitReached);
    for (i, p) in kept {
        // SAFETY: allocations stay valid while the arena lives.
        assert_eq!(unsafe { *p }, [i; 4]);
    }
    arena.set_allocation_limit(None);
    assert!(arena.try_alloc_slice_fill_copy(limit, 0u8).is_ok());
    arena.check_invariants();
}

#[test]
fn settings_made_before_the_first_allocation_survive_resets_and_scopes() {
    // An arena with no chunk yet keeps its limit and chunk cap in the word that later
    // holds its high mark; resetting it or leaving a scope marks a high point there.
    let backing = TestAlloc::default();
    let mut arena: TestArena = Arena::new_in(&backing).with_max_chunk_size(8 << 10);
    arena.set_allocation_limit(Some(64 << 10));
    arena.reset();
    arena.scope(|_| {});
    arena.reset_with_limit(0);
    assert_eq!(arena.allocation_limit(), Some(64 << 10));
    assert_eq!(backing.calls(), 0);
    // The cap: a request over an eighth of 8 KiB gets a chunk of its own.
    arena.alloc_slice_fill_copy(2000, 0u8);
    assert_eq!(arena.stats().big_chunks, 1);
    // The limit.
    let err = arena.try_alloc_slice_fill_copy(64 << 10, 0u8).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::LimitReached);
    assert_eq!(arena.allocation_limit(), Some(64 << 10));
    arena.check_invariants();
}

#[test]
fn a_limit_beyond_any_address_space_is_no_limit() {
    // 2^57 bytes and more: the same before the arena has a state and after.
    let arena = Arena::new();
    arena.set_allocation_limit(Some(1 << 60));
    assert_eq!(arena.allocation_limit(), None);
    arena.set_allocation_limit(Some((1 << 57) - 2));
    assert_eq!(arena.allocation_limit(), Some((1 << 57) - 2));
    arena.alloc(1u8);
    arena.set_allocation_limit(Some(usize::MAX - 1));
    assert_eq!(arena.allocation_limit(), None);
    arena.set_allocation_limit(Some((1 << 57) - 2));
    assert_eq!(arena.allocation_limit(), Some((1 << 57) - 2));
}

/// A program of allocations and resets; returns how many allocations failed.
fn run_program(backing: &TestAlloc) -> usize {
    // A small chunk cap, so that both regular and out-of-band (> 8 KiB) chunks come up.
    let mut arena: TestArena = Arena::new_in(backing).with_max_chunk_size(64 << 10);
    let mut live: Vec<(*const u8, usize, u8)> = Vec::new();
    let mut errors = 0;
    for round in 0..3 {
        for i in 0..scaled(120, 36) {
            let len = [1, 10, 100, 3000, 9000, 20_000][i % 6];
            let byte = (i + round) as u8;
            // `try_alloc_layout` and `write_bytes` rather than a fill loop, which Miri
            // runs slowly.
            match arena.try_alloc_layout(Layout::array::<u8>(len).unwrap()) {
                Ok(p) => {
                    // SAFETY: a fresh block of `len` bytes.
                    unsafe { p.as_ptr().write_bytes(byte, len) };
                    live.push((p.as_ptr(), len, byte));
                }
                Err(e) => {
                    assert_eq!(e.kind(), AllocErrorKind::OutOfMemory);
                    errors += 1;
                }
            }
            arena.check_invariants();
        }
        for &(p, len, byte) in &live {
            // SAFETY: allocated from the arena since its last reset.
            let s = unsafe { std::slice::from_raw_parts(p, len) };
            assert!(common::all_bytes_are(s, byte), "lost bytes after a failure");
        }
        live.clear();
        arena.reset();
    }
    errors
}

#[test]
fn a_failing_backing_allocator_never_loses_anything() {
    // For every n up to the number of backing allocations the program makes, fail the
    // n-th one (and all after it): every failure is an error, earlier values stay intact,
    // and nothing leaks (TestAlloc checks on drop).
    let clean = TestAlloc::default();
    assert_eq!(run_program(&clean), 0);
    let total = clean.allocs.get();
    assert!(total > 10, "the program should need many chunks, took {total}");
    let step = if cfg!(miri) { total / 5 } else { 1 };
    for n in (1..=total).step_by(step.max(1)) {
        let backing = TestAlloc::failing_nth(n);
        assert!(run_program(&backing) > 0, "n = {n}: never failed");
    }
}

#[test]
fn with_capacity_sizes_the_first_chunk() {
    let backing = TestAlloc::default();
    let arena: TestArena = Arena::with_capacity_in(100_000, &backing);
    assert!(arena.chunk_capacity() >= 100_000);
    // The bookkeeping block and the chunk.
    assert_eq!(backing.allocs.get(), 2);
    arena.alloc_layout(Layout::array::<u8>(100_000).unwrap());
    assert_eq!(backing.allocs.get(), 2, "the first chunk was not big enough");
    let failing = TestAlloc::failing_nth(1);
    let err = Arena::<1, &TestAlloc>::try_with_capacity_in(10, &failing).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::OutOfMemory);
}

#[test]
fn iter_allocated_chunks_yields_every_allocated_byte_newest_chunk_first() {
    let backing = TestAlloc::default();
    let mut arena: TestArena = Arena::new_in(&backing).with_max_chunk_size(4096);
    // Several regular chunks, and one out-of-band block (larger than any regular chunk).
    let mut written = Vec::new();
    for i in 0..40u8 {
        arena.alloc_slice_fill_copy(100, i);
        written.push(i);
    }
    arena.alloc_slice_fill_copy(5000, 200u8);
    let chunks: Vec<Vec<u8>> = arena
        .iter_allocated_chunks()
        // SAFETY: only byte slices were allocated: no padding, every byte written.
        .map(|c| c.iter().map(|b| unsafe { b.assume_init() }).collect())
        .collect();
    assert!(chunks.len() > 3, "{} chunks", chunks.len());
    // The out-of-band block comes last, whole.
    assert_eq!(chunks.last().unwrap(), &vec![200u8; 5000]);
    // The regular chunks, newest first, each oldest allocation first: in reverse chunk
    // order, they are the allocations in order.
    let regular: Vec<u8> = chunks[..chunks.len() - 1].iter().rev().flatten().copied().collect();
    let expected: Vec<u8> = written.iter().flat_map(|&i| std::iter::repeat_n(i, 100)).collect();
    assert_eq!(regular, expected);
    let total: usize = chunks.iter().map(Vec::len).sum();
    assert_eq!(total, arena.stats().used);
    // SAFETY: nothing allocates or writes while the raw walk runs.
    let raw: Vec<usize> = unsafe { arena.iter_allocated_chunks_raw() }.map(|(_, len)| len).collect();
    assert_eq!(raw, chunks.iter().map(Vec::len).collect::<Vec<_>>());
    arena.reset();
    assert!(arena.iter_allocated_chunks().all(|c| c.is_empty()));
    assert_eq!(Arena::new().iter_allocated_chunks().count(), 0);
}
