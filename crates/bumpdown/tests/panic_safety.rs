//! Panic safety: a panic inside user code the arena calls (`alloc_with`'s closure,
//! `alloc_slice_fill_with`'s function, an iterator given to `alloc_iter` or
//! `alloc_slice_fill_iter`, a `Clone` in `alloc_slice_fill_clone`/`alloc_slice_clone`,
//! a scope's closure) leaves the arena consistent: `check_invariants` passes, later
//! allocations work and do not overlap earlier ones, nothing is dropped twice, and the
//! backing allocator gets every byte back when the arena drops.
//!
//! Documented behaviour this relies on: the arena never drops values, so the elements
//! built before the panic are leaked (not dropped), and the block they were being
//! written into stays allocated (as used bytes) until the next reset, rewind or scope
//! exit.

mod common;

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use bumpdown::Arena;
use common::TestAlloc;

thread_local! {
    static CLONES: Cell<usize> = const { Cell::new(0) };
    static DROPS: Cell<usize> = const { Cell::new(0) };
}

/// Counts its clones and drops; its `clone` panics on the `PANIC_AT`-th call.
struct Counted(u64);

const PANIC_AT: usize = 3;

impl Clone for Counted {
    fn clone(&self) -> Self {
        let n = CLONES.with(|c| {
            c.set(c.get() + 1);
            c.get()
        });
        if n == PANIC_AT {
            panic!("clone {n} fails");
        }
        Counted(self.0)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        DROPS.with(|d| d.set(d.get() + 1));
    }
}

fn reset_counts() {
    CLONES.with(|c| c.set(0));
    DROPS.with(|d| d.set(0));
}

fn drops() -> usize {
    DROPS.with(Cell::get)
}

/// Runs `f`, which must panic, on a fresh arena with a few earlier allocations; then
/// checks the arena and that the earlier allocations are intact and new ones work.
fn survives(f: impl FnOnce(&Arena<1, &TestAlloc>)) {
    let backing = TestAlloc::default();
    {
        let arena: Arena<1, &TestAlloc> = Arena::new_in(&backing).with_max_chunk_size(4096);
        let before = arena.alloc_slice_fill_copy(100, 0xAAu8);
        let big_before = arena.alloc_slice_fill_copy(2000, 0xBBu8);
        let result = catch_unwind(AssertUnwindSafe(|| f(&arena)));
        assert!(result.is_err(), "the test closure was meant to panic");
        arena.check_invariants();
        assert!(before.iter().all(|&b| b == 0xAA) && big_before.iter().all(|&b| b == 0xBB));
        let after = arena.alloc_slice_fill_copy(3000, 0xCCu8);
        let small = arena.alloc(0xDDu8);
        arena.check_invariants();
        assert!(before.iter().all(|&b| b == 0xAA) && big_before.iter().all(|&b| b == 0xBB));
        assert!(after.iter().all(|&b| b == 0xCC) && *small == 0xDD);
        for (p, len) in [(after.as_ptr() as usize, 3000), (small as *const u8 as usize, 1)] {
            for (q, qlen) in [(before.as_ptr() as usize, 100), (big_before.as_ptr() as usize, 2000)] {
                assert!(p + len <= q || q + qlen <= p, "a block after the panic overlaps one before");
            }
        }
    }
    assert_eq!(backing.live_bytes.get(), 0, "leaked backing memory");
}

#[test]
fn panic_in_alloc_with() {
    survives(|a| {
        a.alloc_with(|| -> [u64; 64] { panic!("no value") });
    });
    survives(|a| {
        let _ = a.try_alloc_with(|| -> [u8; 5000] { panic!("no value, out of band") });
    });
}

#[test]
fn panic_in_alloc_slice_fill_with() {
    reset_counts();
    survives(|a| {
        a.alloc_slice_fill_with(10, |i| if i == 4 { panic!("element {i}") } else { Counted(i as u64) });
    });
    // The four elements built are leaked, never dropped.
    assert_eq!(drops(), 0);
}

#[test]
fn panic_in_alloc_slice_fill_clone_and_slice_clone() {
    reset_counts();
    let value = Counted(7);
    survives(|a| {
        a.alloc_slice_fill_clone(10, &value);
    });
    // Two clones made it into the slice (leaked); the panicking clone built nothing.
    assert_eq!((CLONES.with(Cell::get), drops()), (PANIC_AT, 0));
    reset_counts();
    let src: Vec<Counted> = (0..6).map(Counted).collect();
    survives(|a| {
        a.alloc_slice_clone(&src);
    });
    assert_eq!(drops(), 0);
    drop(src);
    assert_eq!(drops(), 6, "the sources are dropped once each");
    drop(value);
}

#[test]
fn panic_in_iterators() {
    // `alloc_slice_fill_iter`: the iterator panics, or yields fewer items than its len().
    survives(|a| {
        a.alloc_slice_fill_iter((0..100u32).map(|i| if i == 50 { panic!("item {i}") } else { i }));
    });
    struct Short(usize);
    impl Iterator for Short {
        type Item = u16;
        fn next(&mut self) -> Option<u16> {
            self.0 = self.0.checked_sub(1)?;
            Some(1)
        }
    }
    impl ExactSizeIterator for Short {
        fn len(&self) -> usize {
            self.0 + 10 // lies
        }
    }
    survives(|a| {
        a.alloc_slice_fill_iter(Short(5));
    });
    // `alloc_iter`: panics after growing the block (in place and by copying, the
    // iterator allocating from the arena itself in between).
    survives(|a| {
        a.alloc_iter((0..2000u64).inspect(|&i| {
            if i % 300 == 0 {
                a.alloc(i);
            }
            if i == 1500 {
                panic!("item {i}");
            }
        }));
    });
    reset_counts();
    survives(|a| {
        a.alloc_iter((0..40).map(|i| if i == 33 { panic!("item {i}") } else { Counted(i) }));
    });
    assert_eq!(drops(), 0, "built items are leaked, not dropped");
}

#[test]
fn panic_in_a_scope_rewinds() {
    let backing = TestAlloc::default();
    {
        let mut arena: Arena<1, &TestAlloc> = Arena::new_in(&backing).with_max_chunk_size(4096);
        arena.alloc(1u64);
        let used = arena.stats().used;
        let result = catch_unwind(AssertUnwindSafe(|| {
            arena.scope(|s| {
                s.alloc_slice_fill_copy(3000, 1u8);
                s.alloc_slice_fill_copy(10_000, 2u8); // out of band
                s.scope(|inner| {
                    inner.alloc_slice_fill_copy(100, 3u8);
                    panic!("inside a nested scope");
                })
            })
        }));
        assert!(result.is_err());
        arena.check_invariants();
        assert_eq!(arena.stats().used, used, "the scopes' exits ran while unwinding");
        assert_eq!(arena.stats().big_chunks, 0, "the out-of-band chunk went back");
        // A guard unwinds the same way.
        let result = catch_unwind(AssertUnwindSafe(|| {
            let g = arena.scope_guard();
            g.alloc_slice_fill_copy(5000, 4u8);
            panic!("inside a guard");
        }));
        assert!(result.is_err());
        arena.check_invariants();
        assert_eq!(arena.stats().used, used);
        assert_eq!(arena.alloc_slice_fill_copy(100, 5u8)[99], 5);
    }
    assert_eq!(backing.live_bytes.get(), 0);
}
