//! `collections::{Box, Vec, String}`: std-like behaviour, drops counted exactly, panics
//! in `Drop`/`Clone`/closures, zero-sized types, capacity errors, every arena type.
//!
//! Run under Miri too:
//! `MIRIFLAGS=-Zmiri-strict-provenance cargo +nightly miri test -p bumpdown --test collections`.

mod common;

use std::cell::Cell;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};

use bumpdown::collections::{ArenaAllocator, Box, CollectIn, String, Vec};
use bumpdown::{AllocErrorKind, Arena, FixedArena};
use common::TestAlloc;

/// Fewer iterations under Miri, which is slow, but never none.
const N: usize = if cfg!(miri) { 40 } else { 1000 };

/// Counts its drops in a shared counter; panics in `drop` or `clone` when told to.
#[derive(Debug)]
struct Counted<'c> {
    id: usize,
    drops: &'c Cell<usize>,
    panic_on_drop: bool,
    panic_on_clone: bool,
}

impl<'c> Counted<'c> {
    fn new(id: usize, drops: &'c Cell<usize>) -> Self {
        Counted { id, drops, panic_on_drop: false, panic_on_clone: false }
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.drops.set(self.drops.get() + 1);
        if self.panic_on_drop {
            panic!("drop of {} panics", self.id);
        }
    }
}

impl Clone for Counted<'_> {
    fn clone(&self) -> Self {
        if self.panic_on_clone {
            panic!("clone of {} panics", self.id);
        }
        Counted::new(self.id, self.drops)
    }
}

impl PartialEq for Counted<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

fn counted<'c, A: ArenaAllocator>(n: usize, drops: &'c Cell<usize>, arena: &'c A) -> Vec<'c, Counted<'c>> {
    (0..n).map(|i| Counted::new(i, drops)).collect_in(arena)
}

fn ids(v: &[Counted<'_>]) -> std::vec::Vec<usize> {
    v.iter().map(|c| c.id).collect()
}

/// Silences the default panic message of the panics these tests provoke.
fn quietly<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    catch_unwind(AssertUnwindSafe(f))
}

// ----- Basics, on every arena type ---------------------------------------------------

/// The same workout on any arena: pushes (growing many times), pops, inserts,
/// removes, a string; checks contents throughout.
fn workout<A: ArenaAllocator>(arena: &A) {
    let mut v = Vec::new_in(arena);
    for i in 0..N {
        v.push(i);
    }
    assert_eq!(v.len(), N);
    assert!(v.capacity() >= N);
    assert!(v.iter().copied().eq(0..N));
    v.insert(0, usize::MAX);
    assert_eq!(v.remove(0), usize::MAX);
    assert_eq!(v.pop(), Some(N - 1));
    assert_eq!(v.swap_remove(0), 0);
    assert_eq!(v[0], N - 2);
    let mut s = String::new_in(arena);
    for i in 0..N / 10 {
        s.push_str("ab");
        s.push(char::from(b'0' + (i % 10) as u8));
    }
    assert_eq!(s.len(), 3 * (N / 10));
    assert!(s.starts_with("ab0ab1"));
    let b = Box::new_in(v.len(), arena);
    assert_eq!(*b, N - 2);
}

#[test]
fn works_on_every_arena_type() {
    let mut arena = Arena::new();
    workout(&arena);
    arena.check_invariants();
    let used = arena.stats().used;
    arena.scope(|s| workout(s));
    {
        let guard = arena.scope_guard();
        workout(&guard);
    }
    assert_eq!(arena.stats().used, used);
    let mut buf = [MaybeUninit::<u8>::uninit(); 64 * 1024];
    let mut fixed: FixedArena = FixedArena::new(&mut buf);
    workout(&fixed);
    {
        let guard = fixed.scope_guard();
        workout(&guard);
    }
    let mut small = [MaybeUninit::<u8>::uninit(); 256];
    let buffered = Arena::with_buffer(&mut small);
    workout(&buffered);
    buffered.check_invariants();
}

/// A collection borrows the scope handle it allocates from, so it must be gone before a
/// nested scope starts (which borrows the handle mutably); values allocated by the scope
/// itself live on.
#[test]
fn collections_in_nested_scopes() {
    let mut arena = Arena::new();
    arena.scope(|outer| {
        let kept = outer.alloc_slice_fill_with(10, |i| i as u32);
        let mut v = Vec::new_in(&*outer);
        v.extend(kept.iter().copied());
        assert_eq!(v.iter().sum::<u32>(), 45);
        drop(v);
        outer.scope(|inner| {
            let mut w = Vec::new_in(&*inner);
            w.extend(kept.iter().map(|x| x * 2));
            assert_eq!(w.iter().sum::<u32>(), 90);
            let s = bumpdown::format!(in &*inner, "{}", w.len());
            assert_eq!(s, "10");
        });
        assert_eq!(kept.iter().sum::<u32>(), 45);
    });
    assert_eq!(arena.stats().used, 0);
}

// ----- Growth and memory -------------------------------------------------------------

#[test]
fn the_newest_buffer_grows_without_waste() {
    let arena = Arena::with_capacity(64 * 1024);
    let mut v: Vec<u64> = Vec::new_in(&arena);
    let mut caps = std::vec::Vec::new();
    let mut start = None;
    for i in 0..1000u64 {
        v.push(i);
        if caps.last() != Some(&v.capacity()) {
            caps.push(v.capacity());
            // The only allocation: the arena holds exactly the buffer.
            assert_eq!(arena.stats().used, v.capacity() * 8, "capacity {}", v.capacity());
            // Grown in place: the block still starts where the first one did.
            let this_start = v.as_ptr() as usize;
            assert_eq!(*start.get_or_insert(this_start), this_start);
        }
    }
    assert_eq!(caps, [4, 8, 16, 32, 64, 128, 256, 512, 1024]);
    assert!(v.iter().copied().eq(0..1000));
    drop(v);
    // The newest allocation goes back when the vector drops.
    assert_eq!(arena.stats().used, 0);
    arena.check_invariants();
}

/// The same in a scope and in a fixed arena: growth in place, the buffer given back on
/// drop.
#[test]
fn scopes_and_fixed_arenas_grow_in_place_and_take_buffers_back() {
    let mut arena = Arena::new();
    arena.alloc(1u8);
    arena.scope(|s| {
        let base = s.stats().used;
        let mut v = Vec::<u32>::new_in(&*s);
        v.extend(0..100);
        // The buffer, plus up to 3 bytes aligning it after the `u8`.
        assert!((0..4).contains(&(s.stats().used - base - v.capacity() * 4)));
        drop(v);
        // Given back, all but the alignment padding.
        assert!(s.stats().used - base < 4);
        let mut st = String::new_in(&*s);
        st.push_str("x");
        let kept = s.alloc(2u8); // the string's buffer is no longer the newest
        st.push_str(&"y".repeat(40));
        assert_eq!((*kept, st.len()), (2, 41));
    });
    let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
    let fixed: FixedArena = FixedArena::new(&mut buf);
    let mut v = Vec::<u16>::new_in(&fixed);
    v.extend(0..500);
    // The buffer's end may be odd: a byte of padding aligns the `u16`s.
    assert!((0..2).contains(&(fixed.used() - v.capacity() * 2)));
    drop(v);
    assert!(fixed.used() < 2);
}

#[test]
fn a_buffer_that_is_not_the_newest_is_copied() {
    let arena = Arena::new();
    let mut v = bumpdown::vec![in &arena; 1u32, 2, 3, 4];
    let before = v.as_ptr();
    let other = arena.alloc(0xdead_u32);
    v.push(5);
    assert_ne!(v.as_ptr(), before);
    assert_eq!(v, [1, 2, 3, 4, 5]);
    assert_eq!(*other, 0xdead);
    arena.check_invariants();
}

#[test]
fn two_vectors_grow_alternately_and_stay_intact() {
    let arena = Arena::new();
    let mut a = Vec::new_in(&arena);
    let mut b = Vec::new_in(&arena);
    for i in 0..N {
        a.push(i);
        b.push(i * 3);
    }
    assert!(a.iter().copied().eq(0..N));
    assert!(b.iter().copied().eq((0..N).map(|i| i * 3)));
    arena.check_invariants();
}

#[test]
fn shrink_to_fit_lowers_the_capacity_in_place() {
    let arena = Arena::new();
    let mut v = Vec::<u16>::with_capacity_in(100, &arena);
    v.extend([1, 2, 3]);
    let p = v.as_ptr();
    v.shrink_to_fit();
    assert_eq!((v.capacity(), v.as_ptr()), (3, p));
    v.push(4);
    assert_eq!(v, [1, 2, 3, 4]);
    v.clear();
    v.shrink_to_fit();
    assert_eq!(v.capacity(), 0);
}

#[test]
fn reserve_and_reserve_exact() {
    let arena = Arena::new();
    let mut v = Vec::<u8>::new_in(&arena);
    v.reserve_exact(5);
    assert_eq!(v.capacity(), 5);
    v.reserve(6);
    assert!(v.capacity() >= 10, "reserve at least doubles: {}", v.capacity());
    let cap = v.capacity();
    v.reserve(cap);
    assert!(v.capacity() >= cap);
    v.reserve(0);
    assert!(v.try_reserve_exact(1).is_ok());
}

// ----- Capacity errors ---------------------------------------------------------------

#[test]
fn capacity_overflow_is_an_error_or_a_panic_never_ub() {
    let arena = Arena::new();
    let mut v = bumpdown::vec![in &arena; 1u64, 2];
    let err = v.try_reserve(usize::MAX).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::InvalidLayout);
    let err = v.try_reserve(isize::MAX as usize / 8).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::InvalidLayout);
    let err = v.try_reserve_exact(usize::MAX - 1).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::InvalidLayout);
    assert_eq!(v, [1, 2]); // unchanged
    let panicked = quietly(|| v.reserve(usize::MAX)).unwrap_err();
    let msg = panicked.downcast_ref::<std::string::String>().unwrap();
    assert!(msg.contains("cannot allocate"), "{msg}");
    assert_eq!(v, [1, 2]);
    v.push(3);
    assert_eq!(v, [1, 2, 3]);
}

#[test]
fn huge_with_capacity_is_an_error() {
    let arena = Arena::<1, TestAlloc>::new_in(TestAlloc::small_machine());
    let err = Vec::<u64>::try_with_capacity_in(usize::MAX / 2, &arena).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::InvalidLayout);
    // A valid layout larger than the machine: the backing allocator refuses it.
    let err = Vec::<u8>::try_with_capacity_in(1 << 40, &arena).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::OutOfMemory);
    assert!(quietly(|| Vec::<u32>::with_capacity_in(usize::MAX, &arena)).is_err());
    // The arena still works.
    let v = bumpdown::vec![in &arena; 7u8; 3];
    assert_eq!(v, [7, 7, 7]);
}

#[test]
fn a_full_fixed_arena_gives_an_error() {
    let mut buf = [MaybeUninit::<u8>::uninit(); 512];
    let arena: FixedArena = FixedArena::new(&mut buf);
    let mut v = Vec::<u8>::new_in(&arena);
    v.extend_from_slice_copy(&[1; 100]);
    assert_eq!(v.try_reserve(10_000).unwrap_err().kind(), AllocErrorKind::Full);
    assert_eq!(v.len(), 100);
    assert!(quietly(|| v.extend_from_slice_copy(&[0; 10_000])).is_err());
    assert!(v.iter().all(|&b| b == 1));
}

#[test]
fn the_allocation_limit_applies() {
    let arena = Arena::new();
    let mut v = Vec::<u8>::new_in(&arena);
    v.reserve(10);
    arena.set_allocation_limit(Some(arena.allocated_bytes()));
    let err = v.try_reserve(1 << 20).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::LimitReached);
}

// ----- Zero-sized types --------------------------------------------------------------

thread_local! {
    static ZST_DROPS: Cell<usize> = const { Cell::new(0) };
}

struct Zst;

impl Drop for Zst {
    fn drop(&mut self) {
        ZST_DROPS.with(|d| d.set(d.get() + 1));
    }
}

fn zst_drops() -> usize {
    ZST_DROPS.with(|d| d.get())
}

#[test]
fn zero_sized_elements_take_no_memory_and_drop_once() {
    let arena = Arena::new();
    let start = zst_drops();
    let mut v = Vec::new_in(&arena);
    assert_eq!(v.capacity(), usize::MAX);
    for _ in 0..N {
        v.push(Zst);
    }
    assert_eq!(arena.stats().used, 0);
    assert_eq!(v.len(), N);
    drop(v.pop());
    v.truncate(10);
    assert_eq!(zst_drops() - start, N - 10);
    let mut d = v.drain(2..5);
    d.next();
    drop(d);
    assert_eq!((v.len(), zst_drops() - start), (7, N - 7));
    let it = v.into_iter().skip(3);
    drop(it);
    assert_eq!(zst_drops() - start, N);
    let b = Box::new_in(Zst, &arena);
    drop(b);
    assert_eq!(zst_drops() - start, N + 1);
    assert_eq!(arena.stats().used, 0);
}

#[test]
fn zero_sized_capacity_overflows_cleanly() {
    let arena = Arena::new();
    let mut v = Vec::<()>::new_in(&arena);
    // SAFETY: `()` needs no initialization, and the capacity of a zero-sized vector is
    // usize::MAX.
    unsafe { v.set_len(usize::MAX) };
    assert_eq!(v.try_reserve(1).unwrap_err().kind(), AllocErrorKind::InvalidLayout);
    assert!(quietly(|| v.push(())).is_err());
    assert_eq!(v.len(), usize::MAX);
    v.truncate(0);
}

// ----- Drops: exactly once, also on panic --------------------------------------------

#[test]
fn every_way_out_drops_each_element_once() {
    let arena = Arena::new();
    let drops = Cell::new(0);
    // Plain drop.
    drop(counted(10, &drops, &arena));
    assert_eq!(drops.get(), 10);
    // Truncate, clear, pop, remove, swap_remove.
    drops.set(0);
    let mut v = counted(10, &drops, &arena);
    v.truncate(8);
    assert_eq!(drops.get(), 2);
    drop(v.pop());
    drop(v.remove(0));
    drop(v.swap_remove(0));
    assert_eq!(drops.get(), 5);
    assert_eq!(ids(&v), [6, 2, 3, 4, 5]);
    v.clear();
    assert_eq!(drops.get(), 10);
    // By-value iteration, partly consumed.
    drops.set(0);
    let mut it = counted(10, &drops, &arena).into_iter();
    assert_eq!(it.next().unwrap().id, 0);
    assert_eq!(it.next_back().unwrap().id, 9);
    assert_eq!(it.len(), 8);
    drop(it);
    assert_eq!(drops.get(), 10);
    // Retain.
    drops.set(0);
    let mut v = counted(10, &drops, &arena);
    v.retain(|c| c.id % 3 == 0);
    assert_eq!((ids(&v), drops.get()), (vec![0, 3, 6, 9], 6));
    drop(v);
    assert_eq!(drops.get(), 10);
    // Into a box of a slice.
    drops.set(0);
    let b = counted(5, &drops, &arena).into_boxed_slice();
    assert_eq!(b.len(), 5);
    drop(b);
    assert_eq!(drops.get(), 5);
    // A box.
    drops.set(0);
    let b = Box::new_in(Counted::new(1, &drops), &arena);
    assert_eq!(Box::into_inner(b).id, 1);
    assert_eq!(drops.get(), 1);
}

#[test]
fn drain_drops_what_it_does_not_yield() {
    let arena = Arena::new();
    let drops = Cell::new(0);
    let mut v = counted(10, &drops, &arena);
    {
        let mut d = v.drain(2..7);
        assert_eq!(d.len(), 5);
        assert_eq!(d.next().unwrap().id, 2);
        assert_eq!(d.next_back().unwrap().id, 6);
        assert_eq!(ids(d.as_slice()), [3, 4, 5]);
    }
    assert_eq!(drops.get(), 5);
    assert_eq!(ids(&v), [0, 1, 7, 8, 9]);
    v.drain(..).for_each(drop);
    assert_eq!((v.len(), drops.get()), (0, 10));
}

#[test]
fn drain_ranges() {
    let arena = Arena::new();
    let mut v: Vec<u32> = (0..10).collect_in(&arena);
    assert_eq!(v.drain(8..).collect::<std::vec::Vec<_>>(), [8, 9]);
    assert_eq!(v.drain(..=1).collect::<std::vec::Vec<_>>(), [0, 1]);
    assert_eq!(v.drain(2..2).count(), 0);
    assert_eq!(v.drain(1..=2).rev().collect::<std::vec::Vec<_>>(), [4, 3]);
    assert_eq!(v, [2, 5, 6, 7]);
    assert!(quietly(|| v.drain(3..9).count()).is_err());
    #[allow(clippy::reversed_empty_ranges)]
    let backwards = quietly(|| v.drain(3..1).count());
    assert!(backwards.is_err());
    assert_eq!(v, [2, 5, 6, 7]);
}

#[test]
fn a_forgotten_drain_leaks_but_is_safe() {
    let arena = Arena::new();
    let drops = Cell::new(0);
    let mut v = counted(6, &drops, &arena);
    let mut d = v.drain(1..3);
    drop(d.next());
    std::mem::forget(d);
    // The vector kept only the elements before the drained range.
    assert_eq!(ids(&v), [0]);
    v.push(Counted::new(42, &drops));
    assert_eq!(ids(&v), [0, 42]);
    drop(v);
    assert_eq!(drops.get(), 3); // 1 yielded + 2 in the vector; 3 leaked
}

#[test]
fn forgetting_a_vector_or_iterator_is_safe() {
    let arena = Arena::new();
    let drops = Cell::new(0);
    std::mem::forget(counted(3, &drops, &arena));
    let mut it = counted(3, &drops, &arena).into_iter();
    drop(it.next());
    std::mem::forget(it);
    std::mem::forget(Box::new_in(Counted::new(0, &drops), &arena));
    assert_eq!(drops.get(), 1);
}

#[test]
fn a_panic_in_drop_still_drops_the_others_once() {
    let arena = Arena::new();
    let drops = Cell::new(0);
    // In Vec's drop.
    let mut v = counted(6, &drops, &arena);
    v[2].panic_on_drop = true;
    assert!(quietly(move || drop(v)).is_err());
    assert_eq!(drops.get(), 6);
    // In truncate.
    drops.set(0);
    let mut v = counted(6, &drops, &arena);
    v[3].panic_on_drop = true;
    assert!(quietly(|| v.truncate(1)).is_err());
    assert_eq!((v.len(), drops.get()), (1, 5));
    drop(v);
    assert_eq!(drops.get(), 6);
    // In drain's drop: the tail still comes back.
    drops.set(0);
    let mut v = counted(6, &drops, &arena);
    v[2].panic_on_drop = true;
    assert!(quietly(|| drop(v.drain(1..4))).is_err());
    assert_eq!(ids(&v), [0, 4, 5]);
    assert_eq!(drops.get(), 3);
    drop(v);
    assert_eq!(drops.get(), 6);
    // In retain (an element being removed panics in its drop).
    drops.set(0);
    let mut v = counted(6, &drops, &arena);
    v[2].panic_on_drop = true;
    assert!(quietly(|| v.retain(|c| c.id % 2 == 1)).is_err());
    assert_eq!(ids(&v), [1, 3, 4, 5]);
    assert_eq!(drops.get(), 2);
    drop(v);
    assert_eq!(drops.get(), 6);
    // In an iterator's drop.
    drops.set(0);
    let mut v = counted(4, &drops, &arena);
    v[1].panic_on_drop = true;
    let it = v.into_iter();
    assert!(quietly(move || drop(it)).is_err());
    assert_eq!(drops.get(), 4);
    // In a box.
    drops.set(0);
    let mut c = Counted::new(0, &drops);
    c.panic_on_drop = true;
    let b = Box::new_in(c, &arena);
    assert!(quietly(move || drop(b)).is_err());
    assert_eq!(drops.get(), 1);
}

#[test]
fn a_panic_in_retain_keeps_the_rest() {
    let arena = Arena::new();
    let drops = Cell::new(0);
    let mut v = counted(8, &drops, &arena);
    let result = quietly(|| {
        v.retain_mut(|c| {
            assert!(c.id != 5, "predicate panics");
            c.id % 2 == 0
        })
    });
    assert!(result.is_err());
    // 1 and 3 removed; 5 onwards untouched.
    assert_eq!(ids(&v), [0, 2, 4, 5, 6, 7]);
    assert_eq!(drops.get(), 2);
    drop(v);
    assert_eq!(drops.get(), 8);
}

#[test]
fn a_panic_in_clone_drops_the_clones_made() {
    let arena = Arena::new();
    let drops = Cell::new(0);
    let mut v = counted(6, &drops, &arena);
    v[4].panic_on_clone = true;
    // Clone.
    assert!(quietly(|| v.clone()).is_err());
    assert_eq!(drops.get(), 4);
    // extend_from_slice.
    drops.set(0);
    let mut w = counted(2, &drops, &arena);
    assert!(quietly(|| w.extend_from_slice(&v)).is_err());
    assert_eq!(w.len(), 6);
    drop(w);
    assert_eq!(drops.get(), 6);
    // from_elem / resize.
    drops.set(0);
    let mut proto = Counted::new(9, &drops);
    proto.panic_on_clone = true;
    let arena_ref = &arena;
    assert!(quietly(move || drop(Vec::from_elem_in(proto, 3, arena_ref))).is_err());
    assert_eq!(drops.get(), 1); // the prototype itself
    v[4].panic_on_clone = false;
    drops.set(0);
    drop(v);
    assert_eq!(drops.get(), 6);
}

#[test]
fn a_panicking_iterator_in_extend_leaves_a_consistent_vector() {
    let arena = Arena::new();
    let drops = Cell::new(0);
    let mut v = counted(2, &drops, &arena);
    let result = quietly(|| {
        v.extend((10..20).map(|i| {
            assert!(i != 15, "iterator panics");
            Counted::new(i, &drops)
        }))
    });
    assert!(result.is_err());
    assert_eq!(ids(&v), [0, 1, 10, 11, 12, 13, 14]);
    drop(v);
    assert_eq!(drops.get(), 7);
}

#[test]
fn clones_go_into_the_same_arena() {
    let arena = Arena::new();
    let drops = Cell::new(0);
    let v = counted(5, &drops, &arena);
    let before = arena.stats().used;
    let w = v.clone();
    assert!(arena.stats().used > before);
    assert_eq!(v, w);
    drop((v, w));
    assert_eq!(drops.get(), 10);
}

// ----- The rest of the Vec API ---------------------------------------------------------

#[test]
fn insert_remove_bounds() {
    let arena = Arena::new();
    let mut v = bumpdown::vec![in &arena; 1, 2, 3];
    v.insert(3, 4);
    v.insert(0, 0);
    assert_eq!(v, [0, 1, 2, 3, 4]);
    assert!(quietly(|| v.insert(6, 9)).is_err());
    assert!(quietly(|| v.remove(5)).is_err());
    assert!(quietly(|| v.swap_remove(5)).is_err());
    assert_eq!(v.swap_remove(4), 4);
    assert_eq!(v, [0, 1, 2, 3]);
}

#[test]
fn extend_variants_and_friends() {
    let arena = Arena::new();
    let mut v = Vec::new_in(&arena);
    v.extend([1, 2]);
    v.extend(&[3, 4]);
    v.extend_from_slice(&[5]);
    v.extend_from_slice_copy(&[6, 7]);
    v.resize(9, 0);
    assert_eq!(v, [1, 2, 3, 4, 5, 6, 7, 0, 0]);
    v.resize(2, 0);
    assert_eq!(v, [1, 2]);
    let mut w = bumpdown::vec![in &arena; 3, 4];
    v.append(&mut w);
    assert!(w.is_empty());
    let tail = v.split_off(3);
    assert_eq!((v.as_slice(), tail.as_slice()), (&[1, 2, 3][..], &[4][..]));
    v.as_mut_slice()[0] = 10;
    v.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(v, [10, 3, 2]);
    for x in &mut v {
        *x += 1;
    }
    let sum: i32 = (&v).into_iter().sum();
    assert_eq!(sum, 18);
    let owned: std::vec::Vec<i32> = v.into_iter().collect();
    assert_eq!(owned, [11, 4, 3]);
}

#[test]
fn macros_match_std() {
    let arena = Arena::new();
    let a = bumpdown::vec![in &arena; 1, 2, 3,];
    assert_eq!(a, vec![1, 2, 3]);
    let b = bumpdown::vec![in &arena; std::string::String::from("x"); 3];
    assert_eq!(b, vec!["x"; 3]);
    let zero = bumpdown::vec![in &arena; 5u8; 0];
    assert!(zero.is_empty());
    let e: Vec<u8> = bumpdown::vec![in &arena];
    assert!(e.is_empty());
    let s = bumpdown::format!(in &arena, "{:>4}|{:?}", 7, "q");
    assert_eq!(s, "   7|\"q\"");
}

#[test]
fn comparisons_hash_and_debug() {
    let arena = Arena::new();
    let a = bumpdown::vec![in &arena; 1, 2, 3];
    let b = bumpdown::vec![in &arena; 1, 2, 4];
    assert!(a < b);
    assert_ne!(a, b);
    assert_eq!(b.partial_cmp(&a), Some(std::cmp::Ordering::Greater));
    assert_eq!(a.cmp(&a.clone()), std::cmp::Ordering::Equal);
    assert_eq!(a, [1, 2, 3]);
    assert_eq!(a, &[1, 2, 3][..]);
    assert_eq!(format!("{a:?}"), "[1, 2, 3]");
    let hash = |x: &dyn Fn(&mut DefaultHasher)| {
        let mut h = DefaultHasher::new();
        x(&mut h);
        h.finish()
    };
    assert_eq!(hash(&|h| a.hash(h)), hash(&|h| [1, 2, 3][..].hash(h)));
    let s = String::from_str_in("key", &arena);
    assert_eq!(hash(&|h| s.hash(h)), hash(&|h| "key".hash(h)));
    let bx = Box::new_in(5, &arena);
    assert_eq!((format!("{bx}"), format!("{bx:?}")), ("5".to_owned(), "5".to_owned()));
    assert!(bx < Box::new_in(6, &arena));
}

#[test]
fn into_bump_slices_do_not_copy() {
    let arena = Arena::new();
    let v = bumpdown::vec![in &arena; 1u8, 2, 3];
    let p = v.as_ptr();
    let s = v.into_bump_slice();
    assert_eq!((s.as_ptr(), s), (p, &[1, 2, 3][..]));
    let v = bumpdown::vec![in &arena; 1u8, 2, 3];
    let m = v.into_bump_slice_mut();
    m[1] = 0;
    assert_eq!(m, [1, 0, 3]);
    let st = String::from_str_in("text", &arena);
    let p = st.as_ptr();
    let t = st.into_bump_str();
    assert_eq!((t.as_ptr(), t), (p, "text"));
    // All three are still there after more allocation.
    let _more = Vec::<u64>::with_capacity_in(100, &arena);
    assert_eq!((s, t), (&[1, 2, 3][..], "text"));
}

#[test]
fn a_dropped_vector_gives_its_buffer_back() {
    let arena = Arena::new();
    let base = arena.stats().used;
    {
        let mut v = Vec::new_in(&arena);
        v.extend(0..100u32);
        assert!(arena.stats().used > base);
    }
    assert_eq!(arena.stats().used, base);
    let v: Vec<u32> = (0..100).collect_in(&arena);
    let it = v.into_iter();
    drop(it);
    assert_eq!(arena.stats().used, base);
}

#[cfg(feature = "std")]
#[test]
fn io_write_appends() {
    use std::io::Write;
    let arena = Arena::new();
    let mut v = Vec::new_in(&arena);
    write!(v, "{}-{}", 1, 2).unwrap();
    v.write_all(b"!").unwrap();
    v.flush().unwrap();
    assert_eq!(v, *b"1-2!");
}

// ----- String ----------------------------------------------------------------------------

#[test]
fn string_basics() {
    let arena = Arena::new();
    let mut s = String::new_in(&arena);
    s.push_str("héllo");
    s.push('!');
    assert_eq!(s.len(), 7);
    assert_eq!(s.pop(), Some('!'));
    s.insert(0, '¡');
    s.insert_str(s.len(), " wörld");
    assert_eq!(s, "¡héllo wörld");
    assert_eq!(s.remove(0), '¡');
    assert_eq!(s.char_indices().nth(2), Some((3, 'l')));
    assert!(quietly(|| s.clone().truncate(2)).is_err()); // inside 'é'
    assert!(quietly(|| s.clone().insert(2, 'x')).is_err());
    s.truncate(6);
    assert_eq!(s, "héllo");
    s.make_ascii_uppercase();
    assert_eq!(s.as_str(), "HéLLO");
    s.retain(|c| c != 'L');
    assert_eq!(s, "HéO");
    s.clear();
    assert!(s.is_empty() && s.capacity() > 0);
    assert_eq!(s.pop(), None);
}

#[test]
fn string_drain_keeps_utf8() {
    let arena = Arena::new();
    let mut s = String::from_str_in("aéb€c", &arena);
    let d: std::string::String = s.drain(1..7).collect();
    assert_eq!((d.as_str(), s.as_str()), ("éb€", "ac"));
    let mut s = String::from_str_in("aéb€c", &arena);
    std::mem::forget(s.drain(1..3));
    assert_eq!(s, "a");
    let mut s = String::from_str_in("aéb€c", &arena);
    assert!(quietly(|| s.drain(2..4).count()).is_err());
    assert_eq!(s.drain(..).rev().collect::<std::string::String>(), "c€béa");
}

#[test]
fn string_from_utf8_and_lossy() {
    let arena = Arena::new();
    let ok = String::from_utf8(bumpdown::vec![in &arena; b'o', b'k']).unwrap();
    assert_eq!(ok, "ok");
    let err = String::from_utf8(bumpdown::vec![in &arena; b'a', 0xc3]).unwrap_err();
    assert_eq!(err.utf8_error().valid_up_to(), 1);
    assert_eq!(err.to_string(), err.utf8_error().to_string());
    assert_eq!(err.into_bytes(), [b'a', 0xc3]);
    let lossy = String::from_utf8_lossy_in(b"x\xf0\x90\x80y\xff", &arena);
    assert_eq!(lossy, *std::string::String::from_utf8_lossy(b"x\xf0\x90\x80y\xff"));
    assert_eq!(ok.into_bytes(), *b"ok");
}

#[test]
fn string_formatting_and_collecting() {
    use std::fmt::Write;
    let arena = Arena::new();
    let mut s = String::new_in(&arena);
    for i in 0..N {
        write!(s, "{i},").unwrap();
    }
    assert_eq!(s.split(',').count(), N + 1);
    assert_eq!(format!("{}", String::from_str_in("d", &arena)), "d");
    assert_eq!(format!("{:?}", String::from_str_in("d", &arena)), "\"d\"");
    let from_chars: String = "abc".chars().rev().collect_in(&arena);
    let from_strs: String = ["x", "y"].into_iter().collect_in(&arena);
    assert_eq!((from_chars.as_str(), from_strs.as_str()), ("cba", "xy"));
    let mut e = String::new_in(&arena);
    e.extend(['a', 'b']);
    e.extend(&['c']);
    e.extend(["de", "f"]);
    assert_eq!(e, "abcdef");
    let std_string = std::string::String::from("abcdef");
    assert_eq!("abcdef", e);
    assert_eq!(e, *"abcdef");
    assert_eq!(e, std_string);
    assert_eq!(std_string, e);
    assert!(e > from_chars.clone() || e < from_chars);
}

#[test]
fn string_capacity_errors() {
    let arena = Arena::<1, TestAlloc>::new_in(TestAlloc::small_machine());
    let mut s = String::from_str_in("a", &arena);
    assert_eq!(s.try_reserve(usize::MAX).unwrap_err().kind(), AllocErrorKind::InvalidLayout);
    assert_eq!(s.try_reserve(1 << 40).unwrap_err().kind(), AllocErrorKind::OutOfMemory);
    assert_eq!(s, "a");
}

#[test]
fn boxes() {
    let arena = Arena::new();
    let mut b = Box::new_in([1u32, 2], &arena);
    b[0] = 5;
    assert_eq!(*b, [5, 2]);
    let raw = Box::into_raw(b);
    // SAFETY: from `into_raw`, used once.
    let b = unsafe { Box::from_raw(raw) };
    let leaked = Box::leak(b);
    assert_eq!(leaked, &[5, 2]);
    let limited = Arena::new();
    limited.set_allocation_limit(Some(0));
    assert_eq!(Box::try_new_in(1u8, &limited).unwrap_err().kind(), AllocErrorKind::LimitReached);
    let mut it = Box::new_in(0..3, &arena);
    assert_eq!(it.next(), Some(0));
    assert_eq!(it.sum::<i32>(), 3);
}

/// Appending copies takes an inline path for up to 16 bytes: every length around its
/// edges, bytes and a type with padding, against a plain copy.
#[test]
fn copies_of_every_short_length() {
    let arena = Arena::new();
    let text: std::string::String = (0..40u8).map(|i| char::from(b'a' + i % 26)).collect();
    for len in 0..=40 {
        let mut s = String::from_str_in("<", &arena);
        s.push_str(&text[..len]);
        s.push('>');
        assert_eq!(s, format!("<{}>", &text[..len]));
        let padded: std::vec::Vec<(u8, u16)> = (0..len).map(|i| (i as u8, i as u16 * 3)).collect();
        let mut v = bumpdown::vec![in &arena; (255u8, 0u16)];
        v.extend_from_slice_copy(&padded);
        assert_eq!(v[1..], padded[..]);
        assert_eq!(v[0], (255, 0));
    }
}

/// Buffers large enough to get out-of-band chunks of their own, grown and dropped in an
/// arena, a scope and a guard: contents survive, the arena stays consistent, and the
/// scope gives everything back.
#[test]
fn large_buffers_in_arenas_and_scopes() {
    fn grow_large<A: ArenaAllocator>(arena: &A) {
        let mut v = Vec::<u8>::new_in(arena);
        let steps = if cfg!(miri) { 3 } else { 5 };
        for step in 0..steps {
            v.push(step as u8);
            v.reserve(v.capacity() * 3 + (256 << 10));
        }
        assert!(v.capacity() > 1 << 20);
        assert!(v.iter().copied().eq(0..steps as u8));
        let shrunk = v.len();
        v.shrink_to_fit();
        assert_eq!(v.capacity(), shrunk);
    }
    let mut arena = Arena::new();
    grow_large(&arena);
    arena.check_invariants();
    let used = arena.stats().used;
    arena.scope(|s| grow_large(s));
    arena.check_invariants();
    {
        let guard = arena.scope_guard();
        grow_large(&guard);
        guard.check_invariants();
    }
    arena.check_invariants();
    assert_eq!(arena.stats().used, used);
}

/// The standard traits shared with the bumpalo facade (`std_traits.rs`), including the
/// ones the sharing added here: `BorrowMut<str>`, `==` with a `Cow<str>` and with a
/// `&mut [U; N]`, and boxes of two arenas compared.
#[test]
fn std_traits_compare_and_borrow_through_the_contents() {
    use std::borrow::{BorrowMut, Cow};
    let (a, b) = (Arena::new(), Arena::new());
    let mut s = String::from_str_in("Hi", &a);
    let inner: &mut str = s.borrow_mut();
    inner.make_ascii_uppercase();
    assert_eq!(s, Cow::Borrowed("HI"));
    assert_eq!(Cow::<str>::Owned("HI".into()), s);
    assert_ne!(s, Cow::Borrowed("Hi"));
    let v = bumpdown::vec![in &a; 1, 2, 3];
    assert_eq!(v, &mut [1, 2, 3]);
    assert_ne!(v, &mut [1, 2, 4]);
    let (x, y) = (Box::new_in(5u8, &a), Box::new_in(5u8, &b));
    assert!(x == y && x <= y);
    assert_ne!(x, Box::new_in(6u8, &b));
}
