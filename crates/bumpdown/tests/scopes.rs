//! Scopes, guards and scratch: memory is freed at the end, the arena is back exactly
//! where it was, outer allocations survive, and chunks are reused without thrashing.

mod common;

use bumpdown::{scratch, Arena, Bump, Stats};
use common::{scaled, TestAlloc};
use core::alloc::Layout;

type TestArena<'a> = Arena<1, &'a TestAlloc>;

/// The layout of a block of `len` bytes that the test never reads, allocated without a
/// fill (under Miri a fill costs a step per byte).
fn unread(len: usize) -> Layout {
    Layout::array::<u8>(len).unwrap()
}

/// What must be identical before a scope and after it. (Chunks the scope took stay, as
/// spares for reuse; peak use may have grown.)
fn position<A: bumpdown::BackingAllocator>(arena: &Arena<1, A>) -> (usize, usize, usize, usize) {
    let Stats { used, wasted, big_chunks, .. } = arena.stats();
    (arena.chunk_capacity(), used, wasted, big_chunks)
}

#[test]
fn a_scope_frees_everything_and_restores_the_position() {
    let mut arena = Arena::new();
    let kept = arena.alloc(7u64) as *const u64;
    let before = position(&arena);
    let sum = arena.scope(|s| {
        let v = s.alloc_slice_fill_with(1000, |i| i as u64);
        let t = s.alloc_str("temporary");
        assert_eq!(t, "temporary");
        v.iter().sum::<u64>()
    });
    assert_eq!(sum, 499_500);
    assert_eq!(position(&arena), before);
    // SAFETY: allocated before the scope; the scope never touched it.
    assert_eq!(unsafe { *kept }, 7);
    arena.check_invariants();
}

#[test]
fn outer_allocations_live_through_nested_scopes() {
    let mut arena = Arena::new();
    arena.scope(|outer| {
        let a = outer.alloc(1u32);
        let before = outer.stats().used;
        outer.scope(|inner| {
            let b = inner.alloc(2u32);
            *a += *b;
            inner.scope(|innermost| {
                let c = innermost.alloc_slice_fill_copy(scaled(10_000, 1000), 3u8);
                *a += u32::from(c[c.len() - 1]);
            });
            *b += 1;
            assert_eq!(*b, 3);
        });
        assert_eq!(*a, 6);
        assert_eq!(outer.stats().used, before);
        let d = outer.alloc(4u32);
        assert_eq!(*a + *d, 10);
    });
    assert_eq!(arena.stats().used, 0);
    arena.check_invariants();
}

#[test]
fn scopes_nest_deeply() {
    fn descend(s: &mut bumpdown::Scope<'_, '_>, depth: usize, total: &mut usize) {
        let here = s.alloc(depth);
        if depth > 0 {
            s.scope(|inner| descend(inner, depth - 1, total));
        }
        *total += *here;
    }
    let mut arena = Arena::new();
    let mut total = 0;
    let depth = scaled(500, 50);
    arena.scope(|s| descend(s, depth, &mut total));
    assert_eq!(total, depth * (depth + 1) / 2);
    assert_eq!(arena.stats().used, 0);
    arena.check_invariants();
}

#[test]
fn a_panicking_scope_still_restores_the_arena() {
    let mut arena = Arena::new();
    arena.alloc(1u8);
    let before = position(&arena);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        arena.scope(|s| {
            s.alloc_layout(unread(100_000));
            panic!("boom");
        })
    }));
    assert!(result.is_err());
    assert_eq!(position(&arena), before);
    arena.check_invariants();
}

#[test]
fn scope_chunks_are_kept_and_big_ones_returned() {
    let backing = TestAlloc::default();
    let mut arena: TestArena = Arena::new_in(&backing).with_max_chunk_size(64 << 10);
    arena.alloc(0u8);
    let held = backing.live_bytes.get();
    arena.scope(|s| {
        for _ in 0..scaled(1000, 100) {
            s.alloc([0u8; 64]);
        }
        s.alloc_layout(unread(20_000)); // out of band (> 64 KiB / 8)
    });
    // Regular chunks taken in the scope are kept for reuse; the big one went back.
    assert_eq!(arena.stats().big_chunks, 0);
    assert!(arena.stats().spare_chunks > 0);
    let allocs = backing.allocs.get();
    arena.scope(|s| {
        for _ in 0..scaled(1000, 100) {
            s.alloc([0u8; 64]);
        }
    });
    assert_eq!(backing.allocs.get(), allocs, "the second scope did not reuse the chunks");
    assert!(backing.live_bytes.get() > held);
    arena.check_invariants();
}

#[test]
fn ten_thousand_scopes_at_a_chunk_boundary_do_not_thrash() {
    // Bumper.jl's pathology: the arena is all but full, and each scope needs a new chunk.
    let backing = TestAlloc::default();
    let mut arena: TestArena = Arena::new_in(&backing);
    arena.alloc(0u8);
    let nearly_all = arena.chunk_capacity() - 1;
    arena.alloc_slice_fill_copy(nearly_all, 0u8);
    let calls = backing.calls();
    for i in 0..scaled(10_000, 300) {
        arena.scope(|s| {
            let v = s.alloc([i as u8; 32]);
            assert_eq!(v[31], i as u8);
        });
    }
    assert!(backing.calls() - calls <= 1, "{} backing calls", backing.calls() - calls);
    arena.check_invariants();
}

/// A scope's exit finds the chunk it was entered in from the epoch alone: check it after
/// chunk switches in nested scopes, from an arena with no chunk yet and from one in the
/// middle of its second chunk, with an out-of-band block and a checkpoint in between.
#[test]
fn scopes_return_to_their_entry_chunk_after_chunk_switches() {
    for warm in [0, 700] {
        let mut arena = Arena::new().with_max_chunk_size(64 << 10);
        let kept = arena.alloc_slice_fill_copy(warm, 9u8).as_ptr() as usize;
        // On an arena with no chunk, the first scope leaves the chunk it took current.
        arena.scope(|s| {
            s.alloc(0u8);
        });
        let before = position(&arena);
        for round in 0..scaled(20, 3) {
            arena.scope(|outer| {
                let a = outer.alloc_slice_fill_copy(300, round as u8);
                outer.scope(|inner| {
                    for _ in 0..scaled(40, 8) {
                        inner.alloc([1u8; 200]); // switches chunks on the way
                    }
                    inner.alloc_layout(unread(20_000)); // out of band
                });
                outer.scope(|inner| {
                    inner.alloc([3u8; 100]);
                });
                let b = outer.alloc_slice_fill_copy(3000, 4u8); // may switch chunks
                assert!(common::all_bytes_are(a, round as u8) && common::all_bytes_are(b, 4));
            });
            assert_eq!(position(&arena), before, "round {round}");
            arena.check_invariants();
        }
        {
            let mut guard = arena.scope_guard();
            guard.alloc_layout(unread(5000));
            let cp = guard.checkpoint();
            guard.alloc_layout(unread(5000));
            guard.rewind(cp);
            guard.alloc_layout(unread(5000));
        }
        assert_eq!(position(&arena), before);
        arena.check_invariants();
        if warm > 0 {
            assert!(arena.debug_owns(kept, warm), "an allocation made before the scopes is gone");
        }
    }
}

#[test]
fn a_scope_has_the_whole_allocation_api() {
    let mut arena = Arena::new();
    arena.scope(|s| {
        assert_eq!(*s.alloc(1u8), 1);
        assert_eq!(*s.try_alloc(2u16).unwrap(), 2);
        assert_eq!(*s.alloc_with(|| 3u32), 3);
        assert_eq!(s.alloc_slice_copy(&[1, 2]), &[1, 2]);
        assert_eq!(s.alloc_slice_clone(&[Some(1)]), &[Some(1)]);
        assert_eq!(s.alloc_slice_fill_default::<u8>(2), &[0, 0]);
        assert_eq!(s.alloc_slice_fill_iter([5, 6]), &[5, 6]);
        assert_eq!(s.alloc_str("x"), "x");
        assert!(s.try_alloc_slice_fill_copy(usize::MAX, 0u64).is_err());
        let p = s.alloc_layout(std::alloc::Layout::from_size_align(16, 16).unwrap());
        assert_eq!(p.as_ptr() as usize % 16, 0);
        // An iterator that allocates from the same scope while it is collected.
        let nested = s.alloc_iter((0..100u32).map(|i| *s.alloc(i) + 1));
        assert_eq!(nested.iter().sum::<u32>(), (1..=100).sum());
    });
    arena.check_invariants();
}

#[test]
fn guards_free_on_drop_and_nest() {
    let mut arena = Arena::new();
    arena.alloc(1u8);
    let before = position(&arena);
    {
        let mut outer = arena.scope_guard();
        let a = outer.alloc(5u32) as *const u32;
        {
            let inner = outer.scope_guard();
            inner.alloc_layout(unread(100_000));
        }
        assert_eq!(outer.stats().big_chunks, 0);
        // SAFETY: allocated through the outer guard, which is alive.
        assert_eq!(unsafe { *a }, 5);
    }
    assert_eq!(position(&arena), before);
    arena.check_invariants();
}

#[test]
fn scratch_nests_and_reuses_its_memory() {
    let total = scratch(|outer| {
        let a = outer.alloc_slice_fill_copy(100, 1u32);
        let inner = scratch(|inner| {
            let b = inner.alloc_slice_fill_copy(100, 2u32);
            // The outer scope can still allocate while the nested call runs.
            let c = outer.alloc(3u32);
            b.iter().sum::<u32>() + *c
        });
        a.iter().sum::<u32>() + inner
    });
    assert_eq!(total, 100 + 200 + 3);
    // From a destructor too.
    struct Tidy;
    impl Drop for Tidy {
        fn drop(&mut self) {
            assert_eq!(scratch(|s| *s.alloc(9u8)), 9);
        }
    }
    scratch(|s| {
        let _t = Tidy;
        s.alloc(0u8);
    });
}

#[test]
fn a_nested_scratch_call_that_allocates_nothing_new_keeps_its_own_arena() {
    // The first nested call takes the usual exit of an unchanged arena; it must still
    // leave the thread at depth 1, so that the second nested call gets an arena of its
    // own and not the outer call's, whose bump pointer the outer scope holds.
    scratch(|outer| {
        let kept = outer.alloc_slice_fill_copy(64, 7u32);
        scratch(|inner| {
            inner.alloc(1u8);
        });
        scratch(|inner| {
            inner.alloc_slice_fill_copy(64, 9u32);
        });
        let more = outer.alloc_slice_fill_copy(64, 5u32);
        assert!(kept.iter().all(|&x| x == 7), "a nested call wrote over the outer call's block");
        assert!(more.iter().all(|&x| x == 5));
    });
}

#[test]
fn scratch_trims_to_its_retention_bound() {
    // A one-off large temporary does not stay held.
    scratch(|s| {
        s.alloc_layout(unread(4 << 20));
    });
    let held = scratch(|s| s.stats().held_bytes);
    assert!(held <= bumpdown::SCRATCH_RETAIN, "{held} bytes held");
}

#[test]
fn scratch_recovers_when_its_closure_panics() {
    let address = || scratch(|s| s.alloc(0u64) as *const u64 as usize);
    let first = address();
    for inner in [false, true] {
        let result = std::panic::catch_unwind(|| {
            scratch(|outer| {
                outer.alloc_slice_fill_copy(100, 1u8);
                if inner {
                    scratch(|s| {
                        s.alloc_layout(unread(4 << 20));
                        panic!("inner");
                    })
                }
                panic!("outer");
            })
        });
        assert!(result.is_err());
        // Back at depth 0: the same arena, at the same position.
        assert_eq!(address(), first, "inner: {inner}");
        // The depth-1 arena is still the one used at depth 1, and was trimmed.
        scratch(|_| {
            let held = scratch(|s| s.stats().held_bytes);
            assert!(held <= bumpdown::SCRATCH_RETAIN, "{held} bytes held at depth 1");
        });
    }
}

#[test]
fn scratch_threads_have_their_own_arenas() {
    let handles: Vec<_> = (0..4u64)
        .map(|t| {
            std::thread::spawn(move || {
                scratch(|s| {
                    let v = s.alloc_slice_fill_with(1000, |i| t * 1000 + i as u64);
                    v.iter().sum::<u64>()
                })
            })
        })
        .collect();
    for (t, h) in handles.into_iter().enumerate() {
        let t = t as u64;
        assert_eq!(h.join().unwrap(), t * 1_000_000 + 499_500);
    }
}

#[test]
fn scopes_hold_values_that_borrow_from_outside() {
    // Values borrowing data that outlives the arena's borrow can be allocated in a scope.
    let names = [String::from("ada"), String::from("grace")];
    let mut arena = Arena::new();
    let longest = arena.scope(|s| {
        let refs = s.alloc_slice_fill_iter(names.iter().map(String::as_str));
        refs.iter().map(|n| n.len()).max().unwrap()
    });
    assert_eq!(longest, 5);
    // And an inner scope can hold references to the outer scope's allocations.
    arena.scope(|outer| {
        let x = outer.alloc(41u32);
        outer.scope(|inner| {
            let r = inner.alloc(&*x);
            assert_eq!(**r + 1, 42);
        });
    });
}

#[test]
fn peak_use_counts_what_a_scope_allocated() {
    let mut arena = Arena::new();
    arena.scope(|s| {
        for i in 0..100u64 {
            s.alloc(i);
        }
    });
    let stats = arena.stats();
    assert_eq!((stats.used, stats.peak_used), (0, 800));
}

#[test]
fn scopes_on_an_empty_arena_reuse_one_chunk_without_the_slow_path() {
    let backing = TestAlloc::default();
    let mut arena: TestArena = Arena::new_in(&backing);
    for _ in 0..scaled(1000, 50) {
        arena.scope(|s| {
            s.alloc(1u64);
        });
    }
    // One chunk (and the bookkeeping block), taken once; after the first scope it
    // stays current.
    assert_eq!(backing.allocs.get(), 2);
    assert_eq!(arena.stats().spare_chunks, 0);
}

#[test]
fn peak_use_is_exact_across_scopes_rewinds_and_big_blocks() {
    let mut arena = Arena::new().with_max_chunk_size(64 << 10);
    arena.alloc([0u8; 100]);
    arena.scope(|s| {
        s.alloc([0u8; 300]); // 400 in use
    });
    arena.alloc([0u8; 50]); // 150 in use
    assert_eq!(arena.stats().peak_used, 400);
    let cp = arena.checkpoint();
    arena.alloc_layout(unread(20_000)); // out of band: 20,150 in use
    arena.rewind(cp);
    arena.scope(|s| {
        s.alloc([0u8; 1000]); // 1,150 in use
        s.scope(|t| {
            for _ in 0..4 {
                t.alloc([0u8; 8000]); // regular chunks, switched on the way
            }
            // 150 + 1,000 + 32,000 in use (the unused chunk tails count as waste)
        });
    });
    let stats = arena.stats();
    assert_eq!((stats.used, stats.peak_used), (150, 33_150));
}

/// `scratch` from a thread-local destructor that runs after the thread's scratch
/// arenas are gone: the call gets an arena of its own and still works.
#[test]
fn scratch_works_while_thread_storage_is_torn_down() {
    struct Late(std::sync::mpsc::Sender<u32>);
    impl Drop for Late {
        fn drop(&mut self) {
            let sum = scratch(|s| s.alloc_slice_fill_with(10, |i| i as u32).iter().sum());
            self.0.send(sum).unwrap();
        }
    }
    std::thread_local! {
        static LATE: std::cell::RefCell<Option<Late>> = const { std::cell::RefCell::new(None) };
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // Registered first, so destroyed after the scratch arenas (destructors run in
        // reverse order of first use on this platform; either order must work).
        LATE.with(|late| *late.borrow_mut() = Some(Late(tx)));
        assert_eq!(scratch(|s| *s.alloc(1u8)), 1);
        // A nested depth too, so that the thread owns more than the inline arena.
        scratch(|_| scratch(|s| s.alloc(2u8).to_owned()));
    })
    .join()
    .unwrap();
    assert_eq!(rx.recv().unwrap(), 45);
}
