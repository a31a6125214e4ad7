//! `BufferArena`: a caller's buffer first, heap chunks only when it is full.

mod common;

use bumpdown::{Arena, BufferArena};
use common::TestAlloc;
use std::mem::MaybeUninit;

#[test]
fn the_buffer_is_used_first_and_the_heap_only_when_it_is_full() {
    let backing = TestAlloc::default();
    let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
    let buf_len = buf.len();
    let range = (buf.as_ptr() as usize, buf_len);
    let mut arena = BufferArena::<1, &TestAlloc>::new_in(&mut buf, &backing);
    let mut in_buffer = 0;
    for i in 0..100u64 {
        let p = arena.alloc(i) as *const u64 as usize;
        in_buffer += usize::from((range.0..range.0 + range.1).contains(&p));
    }
    assert_eq!(in_buffer, 100);
    assert_eq!(backing.allocs.get(), 0, "allocated from the heap while the buffer had room");
    arena.alloc_slice_fill_copy(10_000, 0u8);
    assert_eq!(backing.allocs.get(), 1);
    // Reset returns to the buffer, and keeps the heap chunk for later.
    arena.reset();
    let p = arena.alloc(1u8) as *const u8 as usize;
    assert!((range.0..range.0 + range.1).contains(&p), "reset did not return to the buffer");
    assert_eq!(backing.allocs.get(), 1);
    // A retention limit of zero frees the heap chunks but keeps the buffer.
    arena.reset_with_limit(0);
    assert_eq!(backing.live_bytes.get(), 0);
    // What carving the buffer into a chunk may cost, wherever the buffer lands (Miri
    // places it at random): the arena's bookkeeping at the start, aligned to a cache
    // line; after it (a whole number of lines) the chunk starts on a line, its 48-byte
    // header padded to the line. Aligning the state's start and the chunk's end (to 16)
    // costs at most 64 bytes together, as the length is a multiple of 16.
    let worst_carving = <bumpdown::Arena>::BOOKKEEPING_BYTES + 64 + 64;
    assert!(arena.chunk_capacity() >= buf_len - worst_carving, "{}", arena.chunk_capacity());
    arena.check_invariants();
    drop(arena);
    // TestAlloc checks on drop that nothing leaked (and freeing the stack buffer through
    // it would have crashed).
}

#[test]
fn scopes_and_checkpoints_work_in_the_buffer() {
    let mut buf = [MaybeUninit::<u8>::uninit(); 1024];
    let start = buf.as_ptr() as usize;
    let mut arena = Arena::with_buffer(&mut buf);
    let kept = arena.alloc(5u32) as *const u32;
    let n = arena.scope(|s| s.alloc_slice_fill_with(100, |i| i as u32).iter().sum::<u32>());
    assert_eq!(n, 4950);
    let cp = arena.checkpoint();
    arena.alloc([0u8; 5000]);
    arena.rewind(cp);
    assert_eq!(arena.stats().used, 4);
    // SAFETY: allocated before the scope and the checkpoint, the arena is alive.
    assert_eq!(unsafe { *kept }, 5);
    assert!((start..start + 1024).contains(&(kept as usize)));
}

#[test]
fn a_buffer_too_small_for_a_chunk_is_ignored() {
    let mut buf = [MaybeUninit::<u8>::uninit(); 8];
    let range = buf.as_ptr() as usize..buf.as_ptr() as usize + buf.len();
    let arena = Arena::with_buffer(&mut buf);
    assert_eq!(arena.stats().chunks, 0);
    let v = arena.alloc(1u64) as *const u64 as usize;
    assert!(!range.contains(&v));
    assert_eq!(arena.stats().chunks, 1);
}

/// The buffer spills into heap chunks; the backing allocator fails from its `n`-th
/// request on, for every `n`. Each failure is an error, everything before it (in the
/// buffer and in earlier chunks) stays intact, the arena keeps its invariants and works
/// again from its buffer after a reset, and nothing leaks.
#[test]
fn a_failed_spill_is_an_error_and_the_buffer_stays_intact() {
    fn program(arena: &BufferArena<'_, 1, &TestAlloc>) -> usize {
        let mut blocks: Vec<(&[u8], u8)> = Vec::new();
        let mut failures = 0;
        // Under Miri, fewer and smaller blocks: each `n` reruns the program.
        for i in 0..common::scaled(60, 16) as u8 {
            let len = 100 + common::scaled(97, 301) * usize::from(i);
            match arena.try_alloc_slice_fill_copy(len, i) {
                Ok(s) => blocks.push((s, i)),
                Err(_) => failures += 1,
            }
            arena.check_invariants();
        }
        for (block, byte) in &blocks {
            assert!(common::all_bytes_are(block, *byte), "a block changed after a failure");
        }
        failures
    }
    let counter = TestAlloc::default();
    let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
    assert_eq!(program(&BufferArena::new_in(&mut buf, &counter)), 0, "the dry run failed");
    let requests = counter.allocs.get();
    assert!(requests > 2, "the program spills too little to test anything");
    for n in 1..=requests {
        let backing = TestAlloc::failing_nth(n);
        let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
        let mut arena = BufferArena::new_in(&mut buf, &backing);
        assert!(program(&arena) >= 1, "n = {n}: the failed requests went unnoticed");
        arena.reset();
        assert_eq!(*arena.alloc(7u8), 7);
        arena.check_invariants();
        // `TestAlloc` checks on drop that every chunk was given back.
    }
}

#[test]
fn carving_a_buffer_costs_at_most_its_bookkeeping_and_128_bytes_wherever_it_lands() {
    let mut backing = [MaybeUninit::<u8>::uninit(); 1024 + 64];
    let mut worst = 0;
    for offset in 0..64 {
        let buf = &mut backing[offset..offset + 1024];
        let arena = Arena::with_buffer(buf);
        worst = worst.max(1024 - arena.chunk_capacity());
        arena.check_invariants();
    }
    // Some offset hits every rounding at once (see the test above for the sum).
    assert_eq!(worst, <Arena>::BOOKKEEPING_BYTES + 64 + 64);
}
