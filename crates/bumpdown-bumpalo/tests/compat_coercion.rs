//! Deref coercion into the facade's constructors: bumpalo's take `&'bump Bump` itself,
//! so a crate's own arena type that dereferences to `Bump` (oxc_allocator's `Allocator`
//! does) is passed as `&allocator` and the compiler turns it into `&Bump`. Every
//! constructor here gets a `&Wrapper` (one `Deref` away from `Bump`) or a `&Outer` (two
//! away), never a `&Bump`; each test then checks that the memory came from the wrapped
//! `Bump`.

use core::alloc::Layout;
use core::ops::Deref;

use bumpdown_bumpalo::boxed::Box;
use bumpdown_bumpalo::collections::{CollectIn, FromIteratorIn, String, Vec};
use bumpdown_bumpalo::{format, vec, Bump};

/// A crate's own arena: a `Bump` inside, and `Deref` to it.
struct Wrapper {
    bump: Bump,
}

impl Deref for Wrapper {
    type Target = Bump;

    fn deref(&self) -> &Bump {
        &self.bump
    }
}

/// Two `Deref` steps from `Bump`.
struct Outer(Wrapper);

impl Deref for Outer {
    type Target = Wrapper;

    fn deref(&self) -> &Wrapper {
        &self.0
    }
}

fn wrapper() -> Wrapper {
    Wrapper { bump: Bump::new() }
}

/// The collection's `Bump` is the wrapped one.
fn same(a: &Bump, b: &Bump) -> bool {
    core::ptr::eq(a, b)
}

#[test]
fn vec_constructors_take_a_reference_to_a_type_that_derefs_to_bump() {
    let w = wrapper();

    let mut v = Vec::new_in(&w);
    v.push(1u32);
    assert!(same(v.bump(), &w));

    let v: Vec<u64> = Vec::with_capacity_in(16, &w);
    assert!(v.capacity() >= 16 && same(v.bump(), &w));

    let v: Vec<u64> = Vec::try_with_capacity_in(16, &w).unwrap();
    assert!(v.capacity() >= 16 && same(v.bump(), &w));

    let v = Vec::from_iter_in(0..4u8, &w);
    assert_eq!(v, [0, 1, 2, 3]);
    assert!(same(v.bump(), &w));

    let v = Vec::from_array_in([5u8, 6], &w);
    assert_eq!(v, [5, 6]);
    let v = Vec::from_elem_in(7u8, 3, &w);
    assert_eq!(v, [7, 7, 7]);

    let p = w.alloc_layout(Layout::array::<u16>(4).unwrap()).cast::<u16>();
    // SAFETY: a fresh block of `w`'s `Bump` for 4 `u16`s, none initialized (length 0),
    // owned by the vector alone from here on.
    let mut v = unsafe { Vec::from_raw_parts_in(p.as_ptr(), 0, 4, &w) };
    v.extend([1u16, 2, 3, 4]);
    assert_eq!((v.as_slice(), v.capacity()), (&[1, 2, 3, 4][..], 4));
    assert!(same(v.bump(), &w));
    assert!(w.allocated_bytes() > 0);
}

#[test]
fn string_constructors_take_a_reference_to_a_type_that_derefs_to_bump() {
    let w = wrapper();

    let mut s = String::new_in(&w);
    s.push_str("abc");
    assert_eq!(s, "abc");
    assert!(same(s.bump(), &w));

    let s = String::with_capacity_in(32, &w);
    assert!(s.capacity() >= 32 && same(s.bump(), &w));

    let s = String::from_str_in("from_str_in", &w);
    assert_eq!(s, "from_str_in");
    assert!(same(s.bump(), &w));

    let s = String::from_utf8_lossy_in(b"a\xffb", &w);
    assert_eq!(s, "a\u{FFFD}b");
    assert!(same(s.bump(), &w));

    let units: std::vec::Vec<u16> = "z€𝄞".encode_utf16().collect();
    let s = String::from_utf16_in(&units, &w).unwrap();
    assert_eq!(s, "z€𝄞");
    assert!(String::from_utf16_in(&[0xD800], &w).is_err());

    let s = String::from_iter_in("olleh".chars().rev(), &w);
    assert_eq!(s, "hello");
    let s = String::from_iter_in(["ab", "cd"], &w);
    assert_eq!(s, "abcd");
    assert!(same(s.bump(), &w));

    let mut bytes = core::mem::ManuallyDrop::new(String::from_str_in("raw", &w).into_bytes());
    let (ptr, len, cap) = (bytes.as_mut_ptr(), bytes.len(), bytes.capacity());
    // SAFETY: the parts of a string of `w`'s `Bump` (UTF-8), never used again.
    let s = unsafe { String::from_raw_parts_in(ptr, len, cap, &w) };
    assert_eq!(s, "raw");
    assert!(same(s.bump(), &w));

    // `from_utf8` takes a `Vec` whose own constructor was coerced.
    let s = String::from_utf8(Vec::from_iter_in(*b"ok", &w)).unwrap();
    assert_eq!(s, "ok");
}

#[test]
fn box_constructors_take_a_reference_to_a_type_that_derefs_to_bump() {
    let w = wrapper();
    let before = w.allocated_bytes();
    let b = Box::new_in([1u64; 8], &w);
    assert_eq!(*b, [1; 8]);
    assert!(w.allocated_bytes() > before, "the box is in the wrapped Bump");
    let b = Box::from_iter_in((1..=3).map(|x| x * 2), &w);
    assert_eq!(*b, [2, 4, 6]);
}

#[test]
fn macros_take_a_reference_to_a_type_that_derefs_to_bump() {
    let w = wrapper();
    let empty: Vec<u8> = vec![in &w];
    assert!(empty.is_empty() && same(empty.bump(), &w));
    let list = vec![in &w; 1, 2, 3];
    assert_eq!(list, [1, 2, 3]);
    assert!(same(list.bump(), &w));
    let zeros = vec![in &w; 0u8; 5];
    assert_eq!(zeros, [0; 5]);
    let s = format!(in &w, "{}-{}", 1, "two");
    assert_eq!(s, "1-two");
    assert!(same(s.bump(), &w));
}

#[test]
fn collect_in_and_from_iter_in_take_a_reference_to_a_type_that_derefs_to_bump() {
    let w = wrapper();
    // `C::Alloc` is `&Bump` once `C` is named, so the argument coerces.
    let v = (1..=3).collect_in::<Vec<_>>(&w);
    assert_eq!(v, [1, 2, 3]);
    assert!(same(v.bump(), &w));
    let s = "abc".chars().rev().collect_in::<String>(&w);
    assert_eq!(s, "cba");
    let boxed = (0..2).collect_in::<Box<[i32]>>(&w);
    assert_eq!(*boxed, [0, 1]);
    let v = <Vec<u8> as FromIteratorIn<u8>>::from_iter_in([9], &w);
    assert_eq!(v, [9]);
    let all: Option<Vec<u8>> = [Some(1), Some(2)].into_iter().collect_in::<Option<Vec<u8>>>(&w);
    assert_eq!(all.unwrap(), [1, 2]);
}

#[test]
fn two_deref_steps_coerce_too() {
    let o = Outer(wrapper());
    let s = String::from_str_in("outer", &o);
    let v = Vec::from_iter_in([1u8], &o);
    let b = Box::new_in(3u8, &o);
    let f = format!(in &o, "{}", *b);
    assert_eq!((s.as_str(), v.as_slice(), f.as_str()), ("outer", &[1u8][..], "3"));
    assert!(same(s.bump(), &o.0.bump) && same(v.bump(), &o.0.bump));
}

#[test]
fn the_wrappers_deref_to_str_and_slices_as_bumpalos_do() {
    let w = wrapper();
    // Patterns on `&*s` and `&*v` need `str` and `[T]` as the `Deref` targets.
    let s = String::from_str_in("yes", &w);
    assert!(matches!(&*s, "yes"));
    let v = vec![in &w; 1, 2, 3];
    let [first, .., last] = &*v else { panic!("three elements") };
    assert_eq!((*first, *last), (1, 3));
    // And into bumpdown's own types without a copy.
    let ptr = v.as_ptr();
    let core: bumpdown::collections::Vec<i32> = v.into();
    assert_eq!(core.as_ptr(), ptr);
    let core: bumpdown::collections::String = s.into();
    assert_eq!(core, "yes");
}

#[test]
fn the_wrappers_are_the_size_of_bumpdowns_types() {
    use core::mem::size_of;
    assert_eq!(size_of::<Vec<u8>>(), size_of::<bumpdown::collections::Vec<u8>>());
    assert_eq!(size_of::<String>(), size_of::<bumpdown::collections::String>());
    assert_eq!(size_of::<Box<[u8]>>(), size_of::<bumpdown::collections::Box<[u8]>>());
    assert_eq!(size_of::<Option<Box<u8>>>(), size_of::<usize>());
}
