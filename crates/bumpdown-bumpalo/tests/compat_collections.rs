//! The facade's `Vec`, `String` and `Box` against bumpalo 3.20's documented API for the
//! methods added for it (dedup, drain_filter, pop_if, splice, extend_from_slices_copy,
//! from_raw_parts_in, split_off, bump; from_utf16_in, replace_range, `+`; Box's
//! downcast and Default) and the `serde` feature. Written here from bumpalo's API docs.

use core::any::Any;
use std::cell::Cell;

use bumpdown_bumpalo::boxed::Box;
use bumpdown_bumpalo::collections::{CollectIn, String, Vec};
use bumpdown_bumpalo::{format, vec, Bump};

/// Counts drops, to check that what a method removes is dropped exactly once.
#[derive(Debug)]
struct Counted<'c>(u32, &'c Cell<usize>);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.1.set(self.1.get() + 1);
    }
}

#[test]
fn dedup_forms_keep_the_first_of_each_run_and_drop_the_rest() {
    let bump = Bump::new();
    let mut v = vec![in &bump; 1, 1, 2, 3, 3, 3, 1];
    v.dedup();
    assert_eq!(v, [1, 2, 3, 1]);

    let mut v = vec![in &bump; 1, 3, 5, 2, 4, 7];
    v.dedup_by_key(|x| *x % 2);
    assert_eq!(v, [1, 2, 7]);

    // `dedup_by(current, kept)`: the first argument is the candidate for removal.
    let mut seen = std::vec::Vec::new();
    let mut v = vec![in &bump; 10, 11, 20];
    v.dedup_by(|current, kept| {
        seen.push((*current, *kept));
        *current / 10 == *kept / 10
    });
    assert_eq!(v, [10, 20]);
    assert_eq!(seen, [(11, 10), (20, 10)]);

    let drops = Cell::new(0);
    let mut v = Vec::new_in(&bump);
    for i in [1, 1, 1, 2, 2, 3] {
        v.push(Counted(i, &drops));
    }
    v.dedup_by(|a, b| a.0 == b.0);
    assert_eq!(drops.get(), 3);
    assert_eq!(v.iter().map(|c| c.0).collect::<std::vec::Vec<_>>(), [1, 2, 3]);
    drop(v);
    assert_eq!(drops.get(), 6);

    let mut empty: Vec<u8> = Vec::new_in(&bump);
    empty.dedup();
    assert!(empty.is_empty());
}

#[test]
fn a_panicking_dedup_predicate_loses_and_doubles_nothing() {
    let bump = Bump::new();
    let drops = Cell::new(0);
    let mut v = Vec::new_in(&bump);
    for i in [1, 1, 2, 3] {
        v.push(Counted(i, &drops));
    }
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        v.dedup_by(|a, _| if a.0 == 3 { panic!("predicate") } else { false })
    }));
    assert!(result.is_err());
    assert_eq!((v.len(), drops.get()), (4, 0));
    drop(v);
    assert_eq!(drops.get(), 4);
}

#[test]
fn pop_if_pops_only_what_the_predicate_accepts() {
    let bump = Bump::new();
    let mut v = vec![in &bump; 1, 2, 4];
    assert_eq!(v.pop_if(|x| *x % 2 == 0), Some(4));
    assert_eq!(v.pop_if(|x| *x % 2 == 1), None);
    assert_eq!(
        v.pop_if(|x| {
            *x += 10;
            false
        }),
        None
    );
    assert_eq!(v, [1, 12]);
    let mut empty: Vec<i32> = Vec::new_in(&bump);
    assert_eq!(empty.pop_if(|_| true), None);
}

#[test]
fn drain_filter_yields_in_order_and_keeps_the_rest_in_order() {
    let bump = Bump::new();
    let mut v: Vec<u32> = (1..=10).collect_in(&bump);
    let threes: Vec<u32> = v.drain_filter(|x| *x % 3 == 0).collect_in(&bump);
    assert_eq!(threes, [3, 6, 9]);
    assert_eq!(v, [1, 2, 4, 5, 7, 8, 10]);

    // The filter may change the elements it keeps.
    v.drain_filter(|x| {
        *x *= 2;
        false
    })
    .for_each(drop);
    assert_eq!(v, [2, 4, 8, 10, 14, 16, 20]);

    // Dropped early: what it did not look at stays.
    let mut it = v.drain_filter(|x| *x > 5);
    assert_eq!(it.next(), Some(8));
    drop(it);
    assert_eq!(v, [2, 4, 10, 14, 16, 20]);
}

#[test]
fn drain_filter_drops_each_element_once_even_if_the_filter_panics() {
    let bump = Bump::new();
    let drops = Cell::new(0);
    let mut v = Vec::new_in(&bump);
    for i in 0..8 {
        v.push(Counted(i, &drops));
    }
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let taken: std::vec::Vec<_> =
            v.drain_filter(|c| if c.0 == 5 { panic!("filter") } else { c.0 % 2 == 0 }).collect();
        drop(taken);
    }));
    assert!(result.is_err());
    // 0, 2 and 4 were taken (and dropped with the partial collection); 5..8 stay.
    assert_eq!(drops.get(), 3);
    assert_eq!(v.iter().map(|c| c.0).collect::<std::vec::Vec<_>>(), [1, 3, 5, 6, 7]);
    drop(v);
    assert_eq!(drops.get(), 8);

    // A forgotten iterator leaks the elements; the vector stays valid (empty).
    let mut v = vec![in &bump; 1, 2, 3];
    core::mem::forget(v.drain_filter(|_| true));
    assert!(v.is_empty());
    v.push(4);
    assert_eq!(v, [4]);
}

#[test]
fn splice_replaces_a_range_and_returns_what_it_removed() {
    let bump = Bump::new();
    let mut v = vec![in &bump; 1, 2, 3, 4, 5];
    let removed: Vec<i32> = v.splice(1..4, [20, 30]).collect_in(&bump);
    assert_eq!((v.as_slice(), removed.as_slice()), (&[1, 20, 30, 5][..], &[2, 3, 4][..]));
    let removed: std::vec::Vec<i32> = v.splice(.., core::iter::empty()).collect();
    assert_eq!((v.len(), removed.as_slice()), (0, &[1, 20, 30, 5][..]));
    v.splice(0..0, 7..10).for_each(drop);
    assert_eq!(v, [7, 8, 9]);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| v.splice(2..9, []).count()));
    assert!(r.is_err());
}

#[test]
fn extend_from_slices_copy_appends_every_slice() {
    let bump = Bump::new();
    let mut v = Vec::new_in(&bump);
    v.extend_from_slices_copy(&[b"ab".as_slice(), b"", b"cde"]);
    assert_eq!(v, *b"abcde");
    assert!(v.capacity() >= 5);
    v.extend_from_slices_copy(&[]);
    assert_eq!(v.len(), 5);
}

#[test]
fn from_raw_parts_in_takes_back_a_vec_and_a_string() {
    let bump = Bump::new();
    let mut v = core::mem::ManuallyDrop::new(vec![in &bump; 1u64, 2, 3]);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: the parts of a vector of `bump`, whose original is never used again.
    let mut v = unsafe { Vec::from_raw_parts_in(ptr, len, cap, &bump) };
    v.push(4);
    assert_eq!(v, [1, 2, 3, 4]);

    let mut s = core::mem::ManuallyDrop::new(String::from_str_in("ünï", &bump));
    let (ptr, len, cap) = (s.as_mut_ptr(), s.len(), s.capacity());
    // SAFETY: as above, for a string: the bytes are UTF-8.
    let mut s = unsafe { String::from_raw_parts_in(ptr, len, cap, &bump) };
    s.push_str("code");
    assert_eq!(s, "ünïcode");

    // SAFETY: capacity 0 with a dangling pointer is an empty vector.
    let empty: Vec<u32> = unsafe { Vec::from_raw_parts_in(core::ptr::NonNull::dangling().as_ptr(), 0, 0, &bump) };
    assert!(empty.is_empty());
}

#[test]
fn split_off_of_vec_and_string() {
    let bump = Bump::new();
    let mut v = vec![in &bump; 1, 2, 3, 4];
    let tail = v.split_off(1);
    assert_eq!((v.as_slice(), tail.as_slice()), (&[1][..], &[2, 3, 4][..]));

    let mut s = String::from_str_in("añb", &bump);
    let tail = s.split_off(3);
    assert_eq!((s.as_str(), tail.as_str()), ("añ", "b"));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| String::from_str_in("añ", &bump).split_off(2)));
    assert!(r.is_err(), "2 is inside 'ñ'");
}

#[test]
fn bump_gives_back_the_bump_a_collection_was_made_in() {
    fn arena_of<'b>(v: &Vec<'b, u8>) -> &'b Bump {
        v.bump()
    }
    let bump = Bump::new();
    let v = vec![in &bump; 1u8];
    assert!(core::ptr::eq(arena_of(&v), &bump));
    let s = String::from_str_in("x", &bump);
    let b: &Bump = s.bump();
    assert!(core::ptr::eq(b, &bump));
    // A collection of bumpdown's made in the arena underneath (through `Deref`) has no
    // `Bump`; one converted from the facade's keeps it.
    let core = bumpdown::vec![in &*bump; 1u8];
    assert!(core.arena_as::<Bump>().is_none());
    let core: bumpdown::collections::Vec<u8> = v.into();
    assert!(core::ptr::eq(core.arena_as::<Bump>().unwrap(), &bump));
}

#[test]
fn string_from_utf16_replace_range_and_add() {
    let bump = Bump::new();
    let units: std::vec::Vec<u16> = "z€𝄞".encode_utf16().collect();
    assert_eq!(String::from_utf16_in(&units, &bump).unwrap(), "z€𝄞");
    let err = String::from_utf16_in(&[0x61, 0xD834], &bump).unwrap_err();
    assert!(!err.to_string().is_empty());

    let mut s = String::from_str_in("one two three", &bump);
    s.replace_range(4..7, "2");
    assert_eq!(s, "one 2 three");
    s.replace_range(..3, "");
    s.replace_range(s.len().., "!");
    assert_eq!(s, " 2 three!");
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        String::from_str_in("é", &bump).replace_range(1.., "")
    }));
    assert!(r.is_err(), "1 is inside 'é'");

    let s = String::from_str_in("a", &bump) + "b" + "c";
    let mut t = format!(in &bump, "{}", s);
    t += "d";
    assert_eq!(t, "abcd");
}

/// A `'static` value that counts its drops, so it can be boxed as `dyn Any`.
struct Tracked(std::rc::Rc<Cell<usize>>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

#[test]
fn box_downcast_and_default() {
    let bump = Bump::new();
    let drops = std::rc::Rc::new(Cell::new(0));
    let raw = Box::into_raw(Box::new_in(Tracked(drops.clone()), &bump));
    // SAFETY: a box's own pointer, owned by the new box alone.
    let any: Box<dyn Any> = unsafe { Box::from_raw(raw as *mut dyn Any) };
    let any = any.downcast::<u32>().unwrap_err();
    assert_eq!(drops.get(), 0, "a failed downcast gives the box back, value intact");
    let tracked: Box<Tracked> = any.downcast::<Tracked>().ok().unwrap();
    assert_eq!(drops.get(), 0);
    drop(tracked);
    assert_eq!(drops.get(), 1, "the downcast box drops the value once");

    let raw = Box::into_raw(Box::new_in(5u16, &bump));
    // SAFETY: as above.
    let sendable: Box<dyn Any + Send> = unsafe { Box::from_raw(raw as *mut (dyn Any + Send)) };
    let sendable = sendable.downcast::<i16>().unwrap_err();
    assert_eq!(*sendable.downcast::<u16>().unwrap(), 5);

    let before = bump.allocated_bytes();
    let empty: Box<[std::string::String]> = Box::default();
    assert!(empty.is_empty());
    let empty: Box<str> = Default::default();
    assert_eq!(&*empty, "");
    assert_eq!(bump.allocated_bytes(), before, "empty boxes take no arena memory");
}

#[test]
fn serde_serializes_vec_string_and_box() {
    let bump = Bump::new();
    let v = vec![in &bump; 1, 2, 3];
    let s = String::from_str_in("a\"b", &bump);
    let b = Box::new_in((7, "x"), &bump);
    assert_eq!(serde_json::to_string(&v).unwrap(), "[1,2,3]");
    assert_eq!(serde_json::to_string(&s).unwrap(), r#""a\"b""#);
    assert_eq!(serde_json::to_string(&b).unwrap(), r#"[7,"x"]"#);
    let nested = vec![in &bump; Box::new_in(String::from_str_in("n", &bump), &bump)];
    assert_eq!(serde_json::to_string(&nested).unwrap(), r#"["n"]"#);
}

/// bumpalo's inherent `from_iter_in` on `Vec`, `String` and `Box<[T]>` (no trait
/// import), `AsRef<Vec>`, `String` range indexing, and `Box`'s conversions.
#[test]
fn from_iter_in_ranges_and_box_conversions_as_in_bumpalo() {
    fn total<'b, V: AsRef<Vec<'b, u32>>>(v: V) -> u32 {
        v.as_ref().iter().sum()
    }
    let bump = Bump::new();
    let v = Vec::from_iter_in([1u32, 2, 3], &bump);
    assert_eq!(total(&v), 6);
    fn at<S: core::ops::Index<R, Output = str>, R>(s: &S, range: R) -> &str {
        &s[range]
    }
    let s = String::from_iter_in(['b', 'u', 'm', 'p'], &bump);
    assert_eq!((at(&s, ..2), at(&s, 2..)), ("bu", "mp"));
    let b = Box::from_iter_in(v.iter().map(|x| x * 2), &bump);
    assert_eq!(*b, [2, 4, 6]);
    let arr: Box<[u32; 3]> = b.try_into().ok().unwrap();
    let back: Box<[u32]> = arr.into();
    let from_vec: Box<[u32]> = v.into();
    assert_eq!(*back, [2, 4, 6]);
    assert_eq!(*from_vec, [1, 2, 3]);
}
