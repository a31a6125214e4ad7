//! The facade's `Vec`, `String` and `Box` against bumpalo 3.20's documented API for the
//! methods added for it (dedup, drain_filter, pop_if, splice, extend_from_slices_copy,
//! from_raw_parts_in, split_off, bump; from_utf16_in, replace_range, `+`; Box's
//! downcast and Default), `CollectionAllocErr` from `try_reserve`, and the `serde`
//! feature. Written here from bumpalo's API docs.

use core::alloc::Layout;
use core::any::Any;
use std::cell::Cell;

use bumpdown_bumpalo::boxed::Box;
use bumpdown_bumpalo::collections::{CollectIn, CollectionAllocErr, String, Vec};
use bumpdown_bumpalo::{format, vec, AllocErr, Bump};

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

// ----- CollectionAllocErr: what bumpalo's `try_reserve` returns -------------------------

/// The two kinds `try_reserve` can fail with, sorted as bumpalo sorts them.
#[test]
fn try_reserve_past_isize_max_or_usize_max_is_a_capacity_overflow() {
    let bump = Bump::new();
    let mut v: Vec<u64> = vec![in &bump; 1, 2];
    let cap = v.capacity();
    // `len + additional` overflows `usize`.
    assert_eq!(v.try_reserve(usize::MAX), Err(CollectionAllocErr::CapacityOverflow));
    assert_eq!(v.try_reserve_exact(usize::MAX), Err(CollectionAllocErr::CapacityOverflow));
    // It fits `usize`, but not `isize::MAX` bytes of `u64`s.
    let too_many = isize::MAX as usize / 8;
    assert_eq!(v.try_reserve(too_many), Err(CollectionAllocErr::CapacityOverflow));
    assert_eq!(v.try_reserve_exact(too_many), Err(CollectionAllocErr::CapacityOverflow));
    // Unchanged, and still usable.
    assert_eq!((v.as_slice(), v.capacity()), (&[1, 2][..], cap));
    v.extend([3, 4, 5]);
    assert_eq!(v, [1, 2, 3, 4, 5]);
    assert_eq!(v.try_reserve(100), Ok(()));
    assert!(v.capacity() >= 105);
    assert_eq!(v.try_reserve_exact(3), Ok(()));

    // Zero-sized elements have room for `usize::MAX` of them: only the count overflows.
    let mut units: Vec<()> = Vec::new_in(&bump);
    assert_eq!(units.try_reserve(usize::MAX), Ok(()));
    units.push(());
    assert_eq!(units.try_reserve(usize::MAX), Err(CollectionAllocErr::CapacityOverflow));
    assert_eq!(units.len(), 1);

    assert_eq!(Vec::<u64>::try_with_capacity_in(too_many, &bump).err(), Some(CollectionAllocErr::CapacityOverflow));
}

#[test]
fn try_reserve_over_the_allocation_limit_is_an_alloc_err_and_leaves_the_collection_usable() {
    let bump = Bump::with_capacity(1024);
    let mut v = Vec::with_capacity_in(4, &bump);
    v.extend([1u8, 2, 3, 4]);
    let mut s = String::from_str_in("abc", &bump);
    // No new chunk may be taken; the first one cannot hold a megabyte.
    bump.set_allocation_limit(Some(bump.allocated_bytes_including_metadata()));
    assert_eq!(v.try_reserve(1 << 20), Err(CollectionAllocErr::AllocErr));
    assert_eq!(v.try_reserve_exact(1 << 20), Err(CollectionAllocErr::AllocErr));
    assert_eq!(s.try_reserve(1 << 20), Err(CollectionAllocErr::AllocErr));
    assert_eq!(Vec::<u8>::try_with_capacity_in(1 << 20, &bump).err(), Some(CollectionAllocErr::AllocErr));
    // Unchanged, and they still grow inside the chunk they have.
    assert_eq!((v.as_slice(), s.as_str()), (&[1, 2, 3, 4][..], "abc"));
    v.push(5);
    s.push_str("de");
    assert_eq!((v.as_slice(), s.as_str()), (&[1, 2, 3, 4, 5][..], "abcde"));
    // Past the limit, the same requests succeed.
    bump.set_allocation_limit(None);
    assert_eq!(v.try_reserve(1 << 20), Ok(()));
    assert_eq!(s.try_reserve(1 << 20), Ok(()));
    assert!(v.capacity() >= (1 << 20) + 5 && s.capacity() >= (1 << 20) + 5);
    assert_eq!((v.as_slice(), s.as_str()), (&[1, 2, 3, 4, 5][..], "abcde"));
}

#[test]
fn string_try_reserve_reports_a_capacity_overflow() {
    let bump = Bump::new();
    let mut s = String::from_str_in("añb", &bump);
    assert_eq!(s.try_reserve(usize::MAX), Err(CollectionAllocErr::CapacityOverflow));
    assert_eq!(s.try_reserve(isize::MAX as usize), Err(CollectionAllocErr::CapacityOverflow));
    s.push('!');
    assert_eq!(s, "añb!");
}

/// Code written against bumpalo's signatures: `?` from `try_reserve`, from a `Layout`
/// error and from `AllocErr`, and an exhaustive match on the two variants.
#[test]
fn question_mark_and_match_work_as_with_bumpalo() {
    fn reserve_both(v: &mut Vec<'_, u32>, s: &mut String<'_>, n: usize) -> Result<(), CollectionAllocErr> {
        v.try_reserve(n)?;
        s.try_reserve(n)?;
        Ok(())
    }
    fn layout_of(n: usize) -> Result<Layout, CollectionAllocErr> {
        Ok(Layout::array::<u64>(n)?)
    }
    fn alloc_in(bump: &Bump) -> Result<u8, CollectionAllocErr> {
        Ok(*bump.try_alloc(7u8)?)
    }
    fn kind(e: &CollectionAllocErr) -> &'static str {
        match e {
            CollectionAllocErr::CapacityOverflow => "overflow",
            CollectionAllocErr::AllocErr => "alloc",
        }
    }

    let bump = Bump::new();
    let mut v = Vec::new_in(&bump);
    let mut s = String::new_in(&bump);
    assert_eq!(reserve_both(&mut v, &mut s, 16), Ok(()));
    assert_eq!(kind(&reserve_both(&mut v, &mut s, usize::MAX).unwrap_err()), "overflow");
    assert_eq!(layout_of(usize::MAX), Err(CollectionAllocErr::CapacityOverflow));
    assert_eq!(layout_of(2).unwrap().size(), 16);
    assert_eq!(alloc_in(&bump), Ok(7));
    let limited = Bump::new();
    limited.set_allocation_limit(Some(0));
    let err = alloc_in(&limited).unwrap_err();
    assert_eq!(kind(&err), "alloc");
    assert_eq!(CollectionAllocErr::from(AllocErr), CollectionAllocErr::AllocErr);
}

#[test]
fn collection_alloc_err_debug_display_error_clone_eq() {
    let overflow = CollectionAllocErr::CapacityOverflow;
    let alloc = CollectionAllocErr::AllocErr;
    // `Debug` is derived, as bumpalo's: the variant's name.
    assert_eq!(std::format!("{overflow:?} {alloc:?}"), "CapacityOverflow AllocErr");
    assert_eq!(overflow.to_string(), "capacity overflow");
    assert_eq!(alloc.to_string(), "memory allocation failed");
    assert_eq!(overflow.clone(), overflow);
    assert_ne!(overflow, alloc);
    // With `std`, it is an `Error`: `?` into a boxed error.
    fn boxed() -> Result<(), std::boxed::Box<dyn std::error::Error>> {
        let bump = Bump::new();
        let mut v: Vec<u8> = Vec::new_in(&bump);
        v.try_reserve(usize::MAX)?;
        Ok(())
    }
    assert_eq!(boxed().unwrap_err().to_string(), "capacity overflow");
}
