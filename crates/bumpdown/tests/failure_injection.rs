//! Failure injection: a program of operations runs once to count the backing
//! allocator's requests, then once for every `n`, with the `n`-th request failing. Each
//! failure must come back as an error (never a crash or a corrupted arena), everything
//! allocated before stays intact, the arena keeps working afterwards, and after the
//! drop the counting allocator holds zero bytes.

mod common;

use std::alloc::Layout;
use std::ptr::NonNull;

use allocator_api2::alloc::Allocator;
use bumpdown::{Arena, BackingAllocator};
use common::{scaled, FailOnce, Rng, TestAlloc};

/// One live block: where, how long, its fill byte.
struct Block(NonNull<u8>, usize, u8);

fn check_blocks(blocks: &[Block]) {
    for &Block(p, len, byte) in blocks {
        // SAFETY: the blocks are live allocations of the arena, `len` bytes each.
        let bytes = unsafe { std::slice::from_raw_parts(p.as_ptr(), len) };
        assert!(common::all_bytes_are(bytes, byte), "contents changed after a failure");
    }
}

/// Runs a fixed program (from `seed`) on `arena`; returns how many operations failed.
/// Every failure is checked to leave the arena consistent and the earlier blocks intact.
fn program<const M: usize, A: BackingAllocator>(arena: &mut Arena<M, A>, seed: u64, steps: usize) -> usize {
    let mut rng = Rng(seed);
    let mut blocks: Vec<Block> = Vec::new();
    let mut failures = 0;
    let mut cp = None;
    for step in 0..steps {
        let byte = (step % 250) as u8 + 1;
        let ok = match rng.below(10) {
            0..=4 => {
                // Small, chunk-sized and out-of-band requests (the cap is 16 KiB below).
                let size = match rng.below(6) {
                    0..=3 => rng.below(200) as usize,
                    4 => rng.below(3000) as usize,
                    _ => 3000 + rng.below(20_000) as usize,
                };
                let layout = Layout::from_size_align(size, 1 << rng.below(7)).unwrap();
                match arena.try_alloc_layout(layout) {
                    Ok(p) => {
                        // SAFETY: a fresh block of `size` bytes.
                        unsafe { p.as_ptr().write_bytes(byte, size) };
                        blocks.push(Block(p, size, byte));
                        true
                    }
                    Err(_) => false,
                }
            }
            5 => match arena.try_alloc_slice_fill_copy(rng.below(500) as usize, byte) {
                Ok(s) => {
                    blocks.push(Block(NonNull::from(&mut *s).cast(), s.len(), byte));
                    true
                }
                Err(_) => false,
            },
            6 => {
                // Grow the newest block through allocator-api2 (in place or by copying).
                match blocks.pop() {
                    Some(Block(p, len, old)) => {
                        let a: &Arena<M, A> = arena;
                        let old_layout = Layout::from_size_align(len, 1).unwrap();
                        let new_layout = Layout::from_size_align(len + 1 + rng.below(4000) as usize, 1).unwrap();
                        // SAFETY: `p` is a live block of the arena with `old_layout` (any
                        // block is aligned to 1); replaced by the new one on success.
                        match unsafe { a.grow(p, old_layout, new_layout) } {
                            Ok(q) => {
                                let q = q.cast::<u8>();
                                // SAFETY: the new block holds `new_layout.size()` bytes.
                                unsafe { q.as_ptr().write_bytes(old, new_layout.size()) };
                                blocks.push(Block(q, new_layout.size(), old));
                                true
                            }
                            Err(_) => {
                                // The old block is still live.
                                blocks.push(Block(p, len, old));
                                false
                            }
                        }
                    }
                    None => true,
                }
            }
            7 => {
                let before = arena.stats().used;
                let result = arena.scope(|s| {
                    let a = s.try_alloc_slice_fill_copy(rng.below(3000) as usize, 0xEEu8).is_ok();
                    let b = s.try_alloc_slice_fill_copy(10_000 + rng.below(10_000) as usize, 0xEEu8).is_ok();
                    a && b
                });
                assert_eq!(arena.stats().used, before, "a scope's exit after a failure");
                result
            }
            8 => {
                if let Some(cp) = cp.take() {
                    if arena.try_rewind(cp).is_ok() {
                        blocks.clear();
                    }
                } else {
                    cp = Some(arena.checkpoint());
                    // Blocks made before the checkpoint survive the rewind; the model keeps
                    // it simple and forgets them all then, so check them now.
                    check_blocks(&blocks);
                }
                true
            }
            _ => {
                if rng.below(3) == 0 {
                    arena.reset_with_limit(rng.below(40_000) as usize);
                } else {
                    arena.reset();
                }
                blocks.clear();
                cp = None;
                true
            }
        };
        if !ok {
            failures += 1;
        }
        arena.check_invariants();
        check_blocks(&blocks);
    }
    failures
}

fn run_all<const M: usize>(seed: u64, steps: usize) {
    // A dry run counts the requests.
    let counter = FailOnce::default();
    let mut arena: Arena<M, &FailOnce> = Arena::new_in(&counter).with_max_chunk_size(16 << 10);
    assert_eq!(program(&mut arena, seed, steps), 0, "the dry run failed");
    drop(arena);
    let requests = counter.requests.get();
    assert!(requests > 3, "the program makes too few requests to test anything");
    let mut seen_failures = 0;
    for n in 1..=requests + 1 {
        let backing = FailOnce::default();
        backing.fail.set(n);
        {
            let mut arena: Arena<M, &FailOnce> = Arena::new_in(&backing).with_max_chunk_size(16 << 10);
            let failures = program(&mut arena, seed, steps);
            // A failed request surfaces as at most one failed operation (the arena may
            // retry with a smaller chunk and succeed), after which the program runs on.
            assert!(failures <= 1, "n = {n}: {failures} operations failed");
            seen_failures += failures;
            // Usable afterwards.
            arena.reset();
            assert_eq!(*arena.try_alloc(5u32).expect("the arena is usable after the failure"), 5);
            arena.check_invariants();
        }
        assert_eq!(backing.inner.live_bytes.get(), 0, "n = {n}: leaked");
        assert_eq!(backing.inner.allocs.get(), backing.inner.deallocs.get(), "n = {n}: blocks not freed");
    }
    // Most injected failures must be visible (only a retried chunk request can hide one).
    assert!(seen_failures * 2 >= requests, "{seen_failures} failures seen for {requests} requests");
}

#[test]
fn every_failed_request_is_an_error_and_nothing_leaks() {
    // Under Miri: one short program (each `n` reruns it, so the cost is quadratic).
    let steps = scaled(300, 12);
    for seed in 1..=scaled(4, 1) as u64 {
        run_all::<1>(seed * 0x9E37_79B9, steps);
        if !cfg!(miri) {
            run_all::<8>(seed * 0x85EB_CA6B, steps);
        }
    }
}

#[test]
fn a_failing_first_chunk_is_an_error() {
    let backing = TestAlloc::failing_nth(1);
    assert!(Arena::<1, _>::try_with_capacity_in(100, &backing).is_err());
    let arena: Arena<1, &TestAlloc> = Arena::new_in(&backing);
    assert!(arena.try_alloc(1u8).is_err());
    assert!(arena.try_alloc_slice_fill_copy(100_000, 0u8).is_err());
    arena.check_invariants();
    assert_eq!(arena.stats().held_bytes, 0);
}
