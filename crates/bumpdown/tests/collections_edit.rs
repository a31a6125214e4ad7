//! The collections' editing methods (`collections/vec_edit.rs` and their `String`
//! counterparts) on more than one arena type, with zero-sized elements, counted drops and
//! panicking closures: what Miri checks in CI (`.ci/run` runs this file under Stacked
//! and Tree Borrows).

use std::cell::Cell;
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};

use bumpdown::collections::{ArenaAllocator, String, Vec};
use bumpdown::{Arena, FixedArena};

/// Counts its drops.
#[derive(Debug)]
struct Counted<'c>(u32, &'c Cell<usize>);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.1.set(self.1.get() + 1);
    }
}

fn ids(v: &[Counted<'_>]) -> std::vec::Vec<u32> {
    v.iter().map(|c| c.0).collect()
}

/// Every editing method on one arena: each removed element dropped once, each kept one
/// intact and in order.
fn edit_in<A: ArenaAllocator>(arena: &A) {
    let drops = Cell::new(0);
    let mut v = Vec::new_in(arena);
    for i in [1, 1, 2, 2, 2, 3, 4, 5, 6, 7, 8, 9] {
        v.push(Counted(i, &drops));
    }
    v.dedup_by_key(|c| c.0);
    assert_eq!((ids(&v), drops.get()), (vec![1, 2, 3, 4, 5, 6, 7, 8, 9], 3));

    let odd: std::vec::Vec<_> = v.drain_filter(|c| c.0 % 2 == 1).map(|c| c.0).collect();
    assert_eq!((odd, ids(&v), drops.get()), (vec![1, 3, 5, 7, 9], vec![2, 4, 6, 8], 8));

    let removed: std::vec::Vec<_> =
        v.splice(1..3, [Counted(40, &drops), Counted(41, &drops), Counted(42, &drops)]).map(|c| c.0).collect();
    assert_eq!((removed, ids(&v), drops.get()), (vec![4, 6], vec![2, 40, 41, 42, 8], 10));

    assert_eq!(v.pop_if(|c| c.0 == 8).map(|c| c.0), Some(8));
    assert_eq!(drops.get(), 11);
    drop(v);
    assert_eq!(drops.get(), 15);

    let mut s = String::from_str_in("grüße, world", arena);
    s.replace_range(..8, "hello,");
    let tail = s.split_off(6);
    assert_eq!((s.as_str(), tail.as_str()), ("hello,", " world"));
    let s = s + "!" + &tail;
    assert_eq!(s, "hello,! world");
}

#[test]
fn editing_methods_on_a_growing_arena_and_a_fixed_one() {
    edit_in(&Arena::new());
    let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
    edit_in(&FixedArena::new(&mut buf));
}

#[test]
fn zero_sized_elements() {
    let arena = Arena::new();
    let mut v = Vec::new_in(&arena);
    v.extend([(), (), ()]);
    v.dedup();
    assert_eq!(v.len(), 1);
    v.extend([(); 5]);
    assert_eq!(v.drain_filter(|_| true).count(), 6);
    assert!(v.is_empty());
    v.extend([(); 4]);
    assert_eq!(v.splice(1..3, [(); 7]).count(), 2);
    assert_eq!(v.len(), 9);
    assert_eq!(v.pop_if(|_| true), Some(()));
    let mut parts = core::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (parts.as_mut_ptr(), parts.len(), parts.capacity());
    // SAFETY: the parts of a vector of zero-sized elements in `arena`, not used again.
    let v = unsafe { Vec::from_raw_parts_in(ptr, len, cap, &arena) };
    assert_eq!((v.len(), v.capacity()), (8, usize::MAX));
    assert_eq!(arena.stats().used, 0, "zero-sized elements take no memory");
}

#[test]
fn a_panicking_filter_or_predicate_leaves_every_element_owned_once() {
    let arena = Arena::new();
    let drops = Cell::new(0);
    let mut v = Vec::new_in(&arena);
    for i in 0..10 {
        v.push(Counted(i, &drops));
    }
    let r = catch_unwind(AssertUnwindSafe(|| {
        for c in v.drain_filter(|c| if c.0 == 6 { panic!("filter") } else { c.0 < 3 }) {
            drop(c);
        }
    }));
    assert!(r.is_err());
    assert_eq!((ids(&v), drops.get()), (vec![3, 4, 5, 6, 7, 8, 9], 3));

    let r = catch_unwind(AssertUnwindSafe(|| v.dedup_by(|a, _| if a.0 == 8 { panic!("same") } else { true })));
    assert!(r.is_err());
    assert_eq!(v.len(), 7, "a panicking dedup keeps every element");
    let r = catch_unwind(AssertUnwindSafe(|| v.pop_if(|_| panic!("pop_if"))));
    assert!(r.is_err());
    assert_eq!(v.len(), 7);
    drop(v);
    assert_eq!(drops.get(), 10);
}

#[test]
fn splice_reports_a_full_fixed_arena_by_panicking_without_losing_elements() {
    let mut buf = [MaybeUninit::<u8>::uninit(); 256];
    let fixed = FixedArena::new(&mut buf);
    let drops = Cell::new(0);
    let mut v = Vec::new_in(&fixed);
    for i in 0..4 {
        v.push(Counted(i, &drops));
    }
    // The tail and the removed range need blocks of their own; 256 bytes cannot hold
    // the 64 replacements.
    let made = Cell::new(0);
    let replacements = (10..74).map(|i| {
        made.set(made.get() + 1);
        Counted(i, &drops)
    });
    let r = catch_unwind(AssertUnwindSafe(|| v.splice(1..2, replacements).count()));
    assert!(r.is_err());
    drop(v);
    // Every element made, the 4 and the replacements built before the arena ran out, is
    // dropped exactly once.
    assert!(made.get() < 64);
    assert_eq!(drops.get(), 4 + made.get());
}

#[test]
fn arena_as_finds_no_type_for_bumpdowns_own_arenas() {
    let arena = Arena::new();
    let v = bumpdown::vec![in &arena; 1u8];
    assert!(v.arena_as::<Arena>().is_none());
    assert!(catch_unwind(AssertUnwindSafe(|| {
        let _: &Arena = v.bump();
    }))
    .is_err());
    let s = String::from_str_in("x", &arena);
    assert!(s.arena_as::<Arena>().is_none());
}

/// The conversions and trait impls bumpalo's `Box`, `Vec` and `String` have: boxed
/// iterators, futures and hashers, array/slice boxes, inherent `from_iter_in`, ranges.
#[test]
fn boxes_convert_and_forward_their_traits() {
    use bumpdown::collections::Box;
    use std::hash::{BuildHasher, Hasher};

    let arena = Arena::new();
    let drops = Cell::new(0);

    // A boxed iterator keeps both ends and its length (through the box's own impls: a
    // generic function does not look through `Deref`).
    fn ends<I: DoubleEndedIterator + ExactSizeIterator + std::iter::FusedIterator>(
        mut it: I,
    ) -> (usize, Option<I::Item>, Option<I::Item>, usize) {
        (it.len(), it.next(), it.next_back(), it.len())
    }
    assert_eq!(ends(Box::new_in(1..6, &arena)), (5, Some(1), Some(5), 3));

    // Array box to slice box and back: no element dropped or copied on the way.
    let b = Box::new_in([Counted(1, &drops), Counted(2, &drops)], &arena);
    let addr = &*b as *const [Counted<'_>; 2] as usize;
    let slice: Box<[Counted<'_>]> = b.into();
    assert_eq!((ids(&slice), slice.as_ptr() as usize, drops.get()), (vec![1, 2], addr, 0));
    let slice = match Box::<[Counted<'_>; 3]>::try_from(slice) {
        Ok(_) => panic!("a box of two became an array of three"),
        Err(slice) => slice,
    };
    let array: Box<[Counted<'_>; 2]> = slice.try_into().ok().unwrap();
    assert_eq!(drops.get(), 0);
    drop(array);
    assert_eq!(drops.get(), 2);

    // From a vector, and collected.
    let v = Vec::from_iter_in([Counted(3, &drops)], &arena);
    let b: Box<[Counted<'_>]> = v.into();
    assert_eq!(ids(&b), [3]);
    drop(b);
    assert_eq!(drops.get(), 3);
    assert_eq!(*Box::from_iter_in((0..4).map(|x| x * 2), &arena), [0, 2, 4, 6]);
    assert_eq!(*Box::<[u8]>::from_iter_in(std::iter::empty(), &arena), []);

    // `{:p}` prints the value's address.
    let n = Box::new_in(7u64, &arena);
    assert_eq!(format!("{n:p}"), format!("{:p}", &*n as *const u64));

    // A boxed hasher hashes as the hasher does.
    let state = std::collections::hash_map::RandomState::new();
    let mut plain = state.build_hasher();
    let mut boxed = Box::new_in(state.build_hasher(), &arena);
    for h in [&mut plain as &mut dyn Hasher, &mut boxed] {
        h.write(b"arena");
        h.write_u64(9);
        h.write_u8(1);
    }
    assert_eq!(plain.finish(), boxed.finish());

    // A boxed `Unpin` future polls to its value.
    let mut fut = Box::new_in(std::future::ready(11), &arena);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    assert_eq!(std::future::Future::poll(std::pin::Pin::new(&mut fut), &mut cx), std::task::Poll::Ready(11));
}

#[test]
fn strings_and_vectors_collect_and_slice_like_bumpalo() {
    let arena = Arena::new();
    // Inherent `from_iter_in`, no trait import: chars and strs for `String`.
    assert_eq!(String::from_iter_in("abc".chars().rev(), &arena), "cba");
    assert_eq!(String::from_iter_in(["ab", "", "cd"], &arena), "abcd");
    let v = Vec::from_iter_in(1..4, &arena);
    let as_vec: &Vec<'_, i32> = v.as_ref();
    assert_eq!(as_vec.capacity(), v.capacity());

    // Every range type, shared and mutable, through `String`'s own `Index` impls (the
    // helpers' bounds ask for them; `s[..]` alone would also compile through `Deref`).
    fn at<S: std::ops::Index<R, Output = str>, R>(s: &S, range: R) -> &str {
        &s[range]
    }
    fn at_mut<S: std::ops::IndexMut<R, Output = str>, R>(s: &mut S, range: R) -> &mut str {
        &mut s[range]
    }
    let mut s = String::from_str_in("héllo", &arena);
    assert_eq!(
        (at(&s, 0..1), at(&s, 1..3), at(&s, 3..), at(&s, ..1), at(&s, ..), at(&s, 1..=2), at(&s, ..=0)),
        ("h", "é", "llo", "h", "héllo", "é", "h")
    );
    at_mut(&mut s, 3..).make_ascii_uppercase();
    assert_eq!(s, "héLLO");
    // Not on a character boundary: the `str` panic.
    let caught = catch_unwind(AssertUnwindSafe(|| at(&s, 0..2).len()));
    assert!(caught.is_err());
}
