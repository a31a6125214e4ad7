//! Every item of bumpalo 3.20's public API that the facade provides, named here with
//! bumpalo's signature: the list is `scripts/bumpalo-api.py`'s (docs/MIGRATING.md, "bumpalo
//! 3.20's API, item by item"), and this file follows its order. A function is coerced to
//! a function pointer of bumpalo's signature, its generic parameters given by turbofish in
//! bumpalo's order; a trait impl is asked for by a bound; an auto trait bumpalo's type
//! lacks (`!Send`, `!Sync`) must be lacking here too. Where behaviour matters the item is
//! called and its result checked (most are tested at length in compat.rs and
//! compat_collections.rs). Items the facade does not provide are in MIGRATING.md, each
//! with its reason. Written from the list, no code of bumpalo's.

// Spelled out on purpose: a signature is written whole, a lifetime parameter exists to
// name an impl's lifetime in the coercions, and `v == &x` is bumpalo's `PartialEq<&[T]>`.
#![allow(clippy::type_complexity, clippy::extra_unused_lifetimes, clippy::op_ref)]

use core::alloc::Layout;
use core::any::Any;
use core::borrow::{Borrow, BorrowMut};
use core::fmt::{self, Debug, Display};
use core::hash::{Hash, Hasher};
use core::iter::FusedIterator;
use core::ops::{Add, AddAssign, Deref, DerefMut, Index, IndexMut};
use core::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};
use core::ptr::NonNull;
use std::borrow::Cow;
use std::future::Future;

use bumpdown_bumpalo::boxed::Box;
use bumpdown_bumpalo::collections::{self, string, vec};
use bumpdown_bumpalo::collections::{CollectIn, CollectionAllocErr, FromIteratorIn, String, Vec};
use bumpdown_bumpalo::{AllocErr, AllocOrInitError, Bump, ChunkIter, ChunkRawIter};

/// Compiles only where `T` is `Unpin` (as each of bumpalo's types is).
fn is_unpin<T: ?Sized + Unpin>() {}

/// Compiles only where the type has every trait in the bound.
macro_rules! assert_impl {
    ($ty:ty: $($bound:tt)+) => {{
        fn check<X: ?Sized + $($bound)+>() {}
        check::<$ty>();
    }};
}

/// Compiles only where `T` lacks `Send` (or `Sync`): a method found through two impls,
/// one of them only for `Send` types, is ambiguous there, and the type is inferred from
/// the one impl left otherwise.
macro_rules! assert_not_impl {
    ($ty:ty: $tr:path) => {{
        trait Lacks<M> {
            fn lacks() {}
        }
        impl<X: ?Sized> Lacks<()> for X {}
        struct Has;
        impl<X: ?Sized + $tr> Lacks<Has> for X {}
        let _ = <$ty as Lacks<_>>::lacks;
    }};
}

// ---------------------------------------------------------------------------------------
// `Bump`
// ---------------------------------------------------------------------------------------

#[test]
fn bump_constructors() {
    let _: fn() -> Bump = Bump::new;
    let _: fn() -> Result<Bump, AllocErr> = Bump::try_new;
    let _: fn(usize) -> Bump = Bump::with_capacity;
    let _: fn(usize) -> Result<Bump, AllocErr> = Bump::try_with_capacity;
    let _: fn() -> Bump<8> = Bump::<8>::with_min_align;
    let _: fn(usize) -> Bump<8> = Bump::<8>::with_min_align_and_capacity;
    let _: fn(usize) -> Result<Bump<8>, AllocErr> = Bump::<8>::try_with_min_align_and_capacity;
    let _: fn(&Bump<16>) -> usize = Bump::<16>::min_align;
    let _: fn(&Bump) -> Option<usize> = Bump::allocation_limit;
    let _: fn(&Bump, Option<usize>) = Bump::set_allocation_limit;
    let _: fn(&mut Bump) = Bump::reset;

    assert_eq!(Bump::<16>::with_min_align().min_align(), 16);
    let bump = Bump::new();
    bump.set_allocation_limit(Some(1 << 20));
    assert_eq!(bump.allocation_limit(), Some(1 << 20));
}

#[test]
fn bump_allocation_methods() {
    let _: for<'a> fn(&'a Bump, u32) -> &'a mut u32 = Bump::alloc::<u32>;
    let _: for<'a> fn(&'a Bump, u32) -> Result<&'a mut u32, AllocErr> = Bump::try_alloc::<u32>;
    let _: for<'a> fn(&'a Bump, fn() -> u32) -> &'a mut u32 = Bump::alloc_with::<fn() -> u32, u32>;
    let _: for<'a> fn(&'a Bump, fn() -> u32) -> Result<&'a mut u32, AllocErr> =
        Bump::try_alloc_with::<fn() -> u32, u32>;
    type Init = fn() -> Result<u32, char>;
    let _: for<'a> fn(&'a Bump, Init) -> Result<&'a mut u32, char> = Bump::alloc_try_with::<Init, u32, char>;
    let _: for<'a> fn(&'a Bump, Init) -> Result<&'a mut u32, AllocOrInitError<char>> =
        Bump::try_alloc_try_with::<Init, u32, char>;
    let _: for<'a, 's> fn(&'a Bump, &'s [u8]) -> &'a mut [u8] = Bump::alloc_slice_copy::<u8>;
    let _: for<'a, 's> fn(&'a Bump, &'s [u8]) -> Result<&'a mut [u8], AllocErr> = Bump::try_alloc_slice_copy::<u8>;
    let _: for<'a, 's> fn(&'a Bump, &'s [u8]) -> &'a mut [u8] = Bump::alloc_slice_clone::<u8>;
    let _: for<'a, 's> fn(&'a Bump, &'s [u8]) -> Result<&'a mut [u8], AllocErr> = Bump::try_alloc_slice_clone::<u8>;
    let _: for<'a, 's> fn(&'a Bump, &'s str) -> &'a mut str = Bump::alloc_str;
    let _: for<'a, 's> fn(&'a Bump, &'s str) -> Result<&'a mut str, AllocErr> = Bump::try_alloc_str;
    type Fill = fn(usize) -> u32;
    let _: for<'a> fn(&'a Bump, usize, Fill) -> &'a mut [u32] = Bump::alloc_slice_fill_with::<u32, Fill>;
    type TryFill = fn(usize) -> Result<u32, char>;
    let _: for<'a> fn(&'a Bump, usize, TryFill) -> Result<&'a mut [u32], char> =
        Bump::alloc_slice_try_fill_with::<u32, TryFill, char>;
    let _: for<'a> fn(&'a Bump, usize, Fill) -> Result<&'a mut [u32], AllocErr> =
        Bump::try_alloc_slice_fill_with::<u32, Fill>;
    let _: for<'a> fn(&'a Bump, usize, u32) -> &'a mut [u32] = Bump::alloc_slice_fill_copy::<u32>;
    let _: for<'a> fn(&'a Bump, usize, u32) -> Result<&'a mut [u32], AllocErr> = Bump::try_alloc_slice_fill_copy::<u32>;
    let _: for<'a, 'v> fn(&'a Bump, usize, &'v u32) -> &'a mut [u32] = Bump::alloc_slice_fill_clone::<u32>;
    let _: for<'a, 'v> fn(&'a Bump, usize, &'v u32) -> Result<&'a mut [u32], AllocErr> =
        Bump::try_alloc_slice_fill_clone::<u32>;
    type Items = Range<u32>;
    let _: for<'a> fn(&'a Bump, Items) -> &'a mut [u32] = Bump::alloc_slice_fill_iter::<u32, Items>;
    type TryItems = std::vec::IntoIter<Result<u32, char>>;
    let _: for<'a> fn(&'a Bump, TryItems) -> Result<&'a mut [u32], char> =
        Bump::alloc_slice_try_fill_iter::<u32, TryItems, char>;
    let _: for<'a> fn(&'a Bump, Items) -> Result<&'a mut [u32], AllocErr> =
        Bump::try_alloc_slice_fill_iter::<u32, Items>;
    let _: for<'a> fn(&'a Bump, usize) -> &'a mut [u32] = Bump::alloc_slice_fill_default::<u32>;
    let _: for<'a> fn(&'a Bump, usize) -> Result<&'a mut [u32], AllocErr> = Bump::try_alloc_slice_fill_default::<u32>;
    let _: fn(&Bump, Layout) -> NonNull<u8> = Bump::alloc_layout;
    let _: fn(&Bump, Layout) -> Result<NonNull<u8>, AllocErr> = Bump::try_alloc_layout;

    // The same on a `Bump` of another minimum alignment.
    let _: for<'a> fn(&'a Bump<8>, u32) -> &'a mut u32 = Bump::<8>::alloc::<u32>;
    let _: for<'a, 's> fn(&'a Bump<8>, &'s str) -> &'a mut str = Bump::<8>::alloc_str;

    let bump = Bump::new();
    let items: TryItems = std::vec![Ok(1), Err('x'), Ok(3)].into_iter();
    assert_eq!(bump.alloc_slice_try_fill_iter(items), Err('x'));
    let items: TryItems = std::vec![Ok(1), Ok(2)].into_iter();
    assert_eq!(bump.alloc_slice_try_fill_iter(items).unwrap(), [1, 2]);
}

#[test]
fn bump_chunks_and_sizes() {
    let _: fn(&Bump) -> usize = Bump::chunk_capacity;
    let _: for<'a> fn(&'a mut Bump) -> ChunkIter<'a> = Bump::iter_allocated_chunks;
    let _: for<'a> fn(&'a mut Bump<8>) -> ChunkIter<'a, 8> = Bump::<8>::iter_allocated_chunks;
    let _: for<'a> unsafe fn(&'a Bump) -> ChunkRawIter<'a> = Bump::iter_allocated_chunks_raw;
    let _: for<'a> unsafe fn(&'a Bump<8>) -> ChunkRawIter<'a, 8> = Bump::<8>::iter_allocated_chunks_raw;
    let _: fn(&Bump) -> usize = Bump::allocated_bytes;
    let _: fn(&Bump) -> usize = Bump::allocated_bytes_including_metadata;

    let mut bump = Bump::<8>::with_min_align();
    bump.alloc(5u64);
    let mut chunks = bump.iter_allocated_chunks();
    let first = chunks.next().unwrap();
    assert_eq!(first.len(), 8);
    // Fused: `None` for good once the chunks are done.
    assert!(chunks.next().is_none() && chunks.next().is_none());
    // SAFETY: nothing allocates while the iterator is in use, and no reference into the
    // arena is live.
    let mut raw = unsafe { bump.iter_allocated_chunks_raw() };
    assert_eq!(raw.next().map(|(_, len)| len), Some(8));
    assert!(raw.next().is_none() && raw.next().is_none());
}

#[test]
fn bump_trait_impls() {
    assert_impl!(Bump: Send + Debug + Default);
    assert_impl!(Bump<4>: Send + Debug + Default);
    assert_not_impl!(Bump: Sync);
    is_unpin::<Bump>();
    assert_eq!(Bump::<4>::default().min_align(), 4);
    let bump = Bump::new();
    assert!(std::format!("{bump:?}").contains("Arena"));
}

#[test]
fn allocator_api2_for_a_shared_bump() {
    assert_impl!(&Bump: allocator_api2::alloc::Allocator);
    assert_impl!(&Bump<8>: allocator_api2::alloc::Allocator);
}

#[test]
fn chunk_iterators() {
    assert_impl!(ChunkIter<'static>: Debug + Iterator<Item = &'static [core::mem::MaybeUninit<u8>]> + FusedIterator);
    assert_impl!(ChunkIter<'static, 8>: Debug + FusedIterator);
    assert_impl!(ChunkRawIter<'static>: Debug + Iterator<Item = (*mut u8, usize)> + FusedIterator);
    assert_impl!(ChunkRawIter<'static, 8>: Debug + FusedIterator);
    assert_not_impl!(ChunkIter<'static>: Send);
    assert_not_impl!(ChunkIter<'static>: Sync);
    assert_not_impl!(ChunkRawIter<'static>: Send);
    assert_not_impl!(ChunkRawIter<'static>: Sync);
    is_unpin::<ChunkIter<'static>>();
    is_unpin::<ChunkRawIter<'static>>();
}

// ---------------------------------------------------------------------------------------
// `AllocErr`, `AllocOrInitError`
// ---------------------------------------------------------------------------------------

#[test]
fn errors() {
    assert_impl!(AllocErr: Send + Sync + Clone + PartialEq + Eq + Debug + Display);
    is_unpin::<AllocErr>();
    assert_impl!(AllocOrInitError<char>: Send + Sync + Clone + PartialEq + Eq + Debug + Display + From<AllocErr>);
    is_unpin::<AllocOrInitError<char>>();
    let e: AllocOrInitError<char> = AllocErr.into();
    match e {
        AllocOrInitError::Alloc(AllocErr) => {}
        AllocOrInitError::Init(_) => unreachable!(),
    }
    assert_eq!(AllocOrInitError::Init('x'), AllocOrInitError::<char>::Init('x'));
}

// ---------------------------------------------------------------------------------------
// `collections`
// ---------------------------------------------------------------------------------------

#[test]
fn collections_module_paths() {
    // The re-exports are the module's own types.
    let bump = Bump::new();
    let v: collections::Vec<u8> = vec::Vec::new_in(&bump);
    let s: collections::String = string::String::new_in(&bump);
    assert!(v.is_empty() && s.is_empty());
}

#[test]
fn vec_constructors_and_accessors() {
    type V<'b> = Vec<'b, u32>;
    // `'b` is the impl's lifetime, fixed for each call: a named parameter here.
    fn signatures<'b>() {
        let _: fn(&'b Bump) -> V<'b> = V::new_in;
        let _: fn(usize, &'b Bump) -> V<'b> = V::with_capacity_in;
        let _: fn(Range<u32>, &'b Bump) -> V<'b> = V::from_iter_in::<Range<u32>>;
        let _: unsafe fn(*mut u32, usize, usize, &'b Bump) -> V<'b> = V::from_raw_parts_in;
        let _: for<'v> fn(&'v V<'b>) -> &'b Bump = V::bump;
        let _: fn(&V<'b>) -> usize = V::capacity;
        let _: fn(&mut V<'b>, usize) = V::reserve;
        let _: fn(&mut V<'b>, usize) = V::reserve_exact;
        let _: fn(&mut V<'b>, usize) -> Result<(), CollectionAllocErr> = V::try_reserve;
        let _: fn(&mut V<'b>, usize) -> Result<(), CollectionAllocErr> = V::try_reserve_exact;
        let _: fn(&mut V<'b>) = V::shrink_to_fit;
        let _: fn(V<'b>) -> &'b [u32] = V::into_bump_slice;
        let _: fn(V<'b>) -> &'b mut [u32] = V::into_bump_slice_mut;
        let _: fn(&mut V<'b>, usize) = V::truncate;
        let _: for<'v> fn(&'v V<'b>) -> &'v [u32] = V::as_slice;
        let _: for<'v> fn(&'v mut V<'b>) -> &'v mut [u32] = V::as_mut_slice;
        let _: fn(&V<'b>) -> *const u32 = V::as_ptr;
        let _: fn(&mut V<'b>) -> *mut u32 = V::as_mut_ptr;
        let _: unsafe fn(&mut V<'b>, usize) = V::set_len;
        let _: fn(&mut V<'b>, usize) -> u32 = V::swap_remove;
        let _: fn(&mut V<'b>, usize, u32) = V::insert;
        let _: fn(&mut V<'b>, usize) -> u32 = V::remove;
        let _: fn(&mut V<'b>, fn(&u32) -> bool) = V::retain::<fn(&u32) -> bool>;
        let _: fn(&mut V<'b>, fn(&mut u32) -> bool) = V::retain_mut::<fn(&mut u32) -> bool>;
        type Pred = fn(&mut u32) -> bool;
        let _: for<'v> fn(&'v mut V<'b>, Pred) -> vec::DrainFilter<'v, 'b, u32, Pred> = V::drain_filter::<Pred>;
        let _: fn(&mut V<'b>, fn(&mut u32) -> u32) = V::dedup_by_key::<fn(&mut u32) -> u32, u32>;
        let _: fn(&mut V<'b>, fn(&mut u32, &mut u32) -> bool) = V::dedup_by::<fn(&mut u32, &mut u32) -> bool>;
        let _: fn(&mut V<'b>, u32) = V::push;
        let _: fn(&mut V<'b>) -> Option<u32> = V::pop;
        let _: fn(&mut V<'b>, &mut V<'b>) = V::append;
        let _: for<'v> fn(&'v mut V<'b>, Range<usize>) -> vec::Drain<'v, 'b, u32> = V::drain::<Range<usize>>;
        let _: fn(&mut V<'b>) = V::clear;
        let _: fn(&V<'b>) -> usize = V::len;
        let _: fn(&V<'b>) -> bool = V::is_empty;
        let _: fn(&mut V<'b>, usize) -> V<'b> = V::split_off;
        let _: fn(V<'b>) -> Box<'b, [u32]> = V::into_boxed_slice;
        let _: fn(&mut V<'b>, usize, u32) = V::resize;
        let _: fn(&mut V<'b>, &[u32]) = V::extend_from_slice;
        let _: fn(&mut V<'b>, &[u32]) = V::extend_from_slice_copy;
        let _: fn(&mut V<'b>, &[&[u32]]) = V::extend_from_slices_copy;
        let _: fn(&mut V<'b>) = V::dedup;
        type Splice<'v, 'b> = vec::Splice<'v, 'b, std::vec::IntoIter<u32>>;
        let _: for<'v> fn(&'v mut V<'b>, Range<usize>, std::vec::Vec<u32>) -> Splice<'v, 'b> =
            V::splice::<Range<usize>, std::vec::Vec<u32>>;
    }
    signatures();

    let bump = Bump::new();
    let mut v = V::from_iter_in([4, 5, 6], &bump);
    assert_eq!(v.pop_if(|x| *x > 5), Some(6));
    assert_eq!(v.pop_if(|x| *x > 5), None);
    let removed: std::vec::Vec<u32> = v.splice(0..1, std::vec![7, 8]).collect();
    assert_eq!((removed, v.as_slice()), (std::vec![4], &[7, 8, 5][..]));
}

#[test]
fn vec_trait_impls() {
    type V<'b> = Vec<'b, u32>;
    assert_not_impl!(V<'static>: Send);
    assert_not_impl!(V<'static>: Sync);
    is_unpin::<V<'static>>();
    assert_impl!(V<'static>: Clone + Hash + Debug + PartialOrd + Ord + Eq);
    assert_impl!(V<'static>: Index<usize, Output = u32> + IndexMut<Range<usize>, Output = [u32]>);
    assert_impl!(V<'static>: Deref<Target = [u32]> + DerefMut);
    assert_impl!(V<'static>: IntoIterator<Item = u32, IntoIter = vec::IntoIter<'static, u32>>);
    assert_impl!(&'static V<'static>: IntoIterator<Item = &'static u32>);
    assert_impl!(&'static mut V<'static>: IntoIterator<Item = &'static mut u32>);
    assert_impl!(V<'static>: Extend<u32> + Extend<&'static u32>);
    assert_impl!(V<'static>: AsRef<V<'static>> + AsMut<V<'static>> + AsRef<[u32]> + AsMut<[u32]>);
    assert_impl!(V<'static>: Borrow<[u32]> + BorrowMut<[u32]>);
    assert_impl!(Vec<'static, u8>: std::io::Write);
    assert_impl!(V<'static>: serde::Serialize);
    assert_impl!(V<'static>: FromIteratorIn<u32, Alloc = &'static Bump>);
    // `PartialEq` against bumpalo's right-hand sides, with elements of another type.
    #[derive(Debug)]
    struct Cents(u32);
    impl PartialEq<u32> for Cents {
        fn eq(&self, other: &u32) -> bool {
            self.0 == *other
        }
    }
    let bump = Bump::new();
    let v = Vec::from_iter_in([Cents(1), Cents(2)], &bump);
    let w = Vec::from_iter_in([1u32, 2], &bump);
    let (mut a, mut s) = ([1u32, 2], std::vec![1u32, 2]);
    assert!(v == w);
    assert!(v == &[1u32, 2][..]);
    assert!(v == &mut s[..]);
    assert!(v == [1u32, 2]);
    assert!(v == &[1u32, 2]);
    assert!(v == &mut a);
}

#[test]
fn vec_iterators() {
    type It = vec::IntoIter<'static, u32>;
    let _: for<'i> fn(&'i It) -> &'i [u32] = It::as_slice;
    let _: for<'i> fn(&'i mut It) -> &'i mut [u32] = It::as_mut_slice;
    is_unpin::<It>();
    // Not `Send` nor `Sync` as bumpalo's (MIGRATING.md says why): only the rest.
    assert_impl!(It: Debug + Iterator<Item = u32> + DoubleEndedIterator + ExactSizeIterator + FusedIterator);
    type Dr = vec::Drain<'static, 'static, u32>;
    is_unpin::<Dr>();
    assert_impl!(Dr: Debug + Iterator<Item = u32> + DoubleEndedIterator + ExactSizeIterator + FusedIterator);
    type Sp = vec::Splice<'static, 'static, std::vec::IntoIter<u32>>;
    is_unpin::<Sp>();
    assert_impl!(Sp: Debug + Iterator<Item = u32> + DoubleEndedIterator + ExactSizeIterator);
    type Df = vec::DrainFilter<'static, 'static, u32, fn(&mut u32) -> bool>;
    is_unpin::<Df>();
    assert_impl!(Df: Debug + Iterator<Item = u32>);
    assert_not_impl!(Df: Send);
    assert_not_impl!(Df: Sync);

    let bump = Bump::new();
    let mut v = Vec::from_iter_in(1..=6u32, &bump);
    let mut it = v.clone().into_iter();
    it.as_mut_slice()[0] = 10;
    assert_eq!(it.as_slice(), [10, 2, 3, 4, 5, 6]);
    let mut splice = v.splice(1..3, [20, 30, 40]);
    assert_eq!((splice.len(), splice.next_back(), splice.next()), (2, Some(3), Some(2)));
    assert!(std::format!("{splice:?}").starts_with("Splice"));
    drop(splice);
    assert_eq!(v, [1, 20, 30, 40, 4, 5, 6]);
}

#[test]
fn string_methods() {
    type S<'b> = String<'b>;
    // `'b` is the impl's lifetime, fixed for each call: a named parameter here.
    fn signatures<'b>() {
        let _: fn(&'b Bump) -> S<'b> = S::new_in;
        let _: fn(usize, &'b Bump) -> S<'b> = S::with_capacity_in;
        let _: fn(Vec<'b, u8>) -> Result<S<'b>, string::FromUtf8Error<'b>> = S::from_utf8;
        let _: for<'v> fn(&'v [u8], &'b Bump) -> S<'b> = S::from_utf8_lossy_in;
        let _: for<'v> fn(&'v [u16], &'b Bump) -> Result<S<'b>, string::FromUtf16Error> = S::from_utf16_in;
        let _: for<'v> fn(&'v str, &'b Bump) -> S<'b> = S::from_str_in;
        let _: fn(std::vec::Vec<char>, &'b Bump) -> S<'b> = S::from_iter_in::<std::vec::Vec<char>>;
        let _: unsafe fn(*mut u8, usize, usize, &'b Bump) -> S<'b> = S::from_raw_parts_in;
        let _: unsafe fn(Vec<'b, u8>) -> S<'b> = S::from_utf8_unchecked;
        let _: for<'s> fn(&'s S<'b>) -> &'b Bump = S::bump;
        let _: fn(S<'b>) -> Vec<'b, u8> = S::into_bytes;
        let _: fn(S<'b>) -> &'b str = S::into_bump_str;
        let _: for<'s> fn(&'s S<'b>) -> &'s str = S::as_str;
        let _: for<'s> fn(&'s mut S<'b>) -> &'s mut str = S::as_mut_str;
        let _: fn(&mut S<'b>, &str) = S::push_str;
        let _: fn(&S<'b>) -> usize = S::capacity;
        let _: fn(&mut S<'b>, usize) = S::reserve;
        let _: fn(&mut S<'b>, usize) = S::reserve_exact;
        let _: fn(&mut S<'b>) = S::shrink_to_fit;
        let _: fn(&mut S<'b>, char) = S::push;
        let _: for<'s> fn(&'s S<'b>) -> &'s [u8] = S::as_bytes;
        let _: fn(&mut S<'b>, usize) = S::truncate;
        let _: fn(&mut S<'b>) -> Option<char> = S::pop;
        let _: fn(&mut S<'b>, usize) -> char = S::remove;
        let _: fn(&mut S<'b>, fn(char) -> bool) = S::retain::<fn(char) -> bool>;
        let _: fn(&mut S<'b>, usize, char) = S::insert;
        let _: fn(&mut S<'b>, usize, &str) = S::insert_str;
        let _: for<'s> unsafe fn(&'s mut S<'b>) -> &'s mut Vec<'b, u8> = S::as_mut_vec;
        let _: fn(&S<'b>) -> usize = S::len;
        let _: fn(&S<'b>) -> bool = S::is_empty;
        let _: fn(&mut S<'b>, usize) -> S<'b> = S::split_off;
        let _: fn(&mut S<'b>) = S::clear;
        let _: for<'s> fn(&'s mut S<'b>, Range<usize>) -> string::Drain<'s, 'b> = S::drain::<Range<usize>>;
        let _: fn(&mut S<'b>, Range<usize>, &str) = S::replace_range::<Range<usize>>;

        type E<'b> = string::FromUtf8Error<'b>;
        let _: for<'e> fn(&'e E<'b>) -> &'e [u8] = E::as_bytes;
        let _: fn(E<'b>) -> Vec<'b, u8> = E::into_bytes;
        let _: fn(&E<'b>) -> core::str::Utf8Error = E::utf8_error;
    }
    signatures();
}

#[test]
fn string_trait_impls() {
    type S = String<'static>;
    assert_not_impl!(S: Send);
    assert_not_impl!(S: Sync);
    is_unpin::<S>();
    assert_impl!(S: PartialOrd + Ord + Eq + Clone + Display + Debug + Hash + fmt::Write);
    assert_impl!(S: Extend<char> + Extend<&'static char> + Extend<&'static str>);
    assert_impl!(S: Extend<S> + Extend<std::string::String> + Extend<Cow<'static, str>>);
    assert_impl!(S: PartialEq + PartialEq<str> + PartialEq<&'static str> + PartialEq<Cow<'static, str>>);
    assert_impl!(S: PartialEq<std::string::String>);
    assert_impl!(str: PartialEq<S>);
    assert_impl!(&'static str: PartialEq<S>);
    assert_impl!(Cow<'static, str>: PartialEq<S>);
    assert_impl!(std::string::String: PartialEq<S>);
    assert_impl!(S: Add<&'static str, Output = S> + AddAssign<&'static str>);
    assert_impl!(S: Index<Range<usize>, Output = str> + Index<RangeTo<usize>, Output = str>);
    assert_impl!(S: Index<RangeFrom<usize>, Output = str> + Index<RangeFull, Output = str>);
    assert_impl!(S: Index<RangeInclusive<usize>, Output = str> + Index<RangeToInclusive<usize>, Output = str>);
    assert_impl!(S: IndexMut<Range<usize>> + IndexMut<RangeTo<usize>> + IndexMut<RangeFrom<usize>>);
    assert_impl!(S: IndexMut<RangeFull> + IndexMut<RangeInclusive<usize>> + IndexMut<RangeToInclusive<usize>>);
    assert_impl!(S: Deref<Target = str> + DerefMut + AsRef<str> + AsRef<[u8]> + Borrow<str> + BorrowMut<str>);
    assert_impl!(S: serde::Serialize + FromIteratorIn<char, Alloc = &'static Bump>);

    type E = string::FromUtf8Error<'static>;
    assert_not_impl!(E: Send);
    assert_not_impl!(E: Sync);
    is_unpin::<E>();
    assert_impl!(E: Debug + Display);
    is_unpin::<string::FromUtf16Error>();
    assert_impl!(string::FromUtf16Error: Send + Sync + Debug + Display);
    type Dr = string::Drain<'static, 'static>;
    is_unpin::<Dr>();
    assert_impl!(Dr: Debug + Iterator<Item = char> + DoubleEndedIterator + FusedIterator);

    let bump = Bump::new();
    let mut s = String::from_str_in("a", &bump);
    s.extend([String::from_str_in("b", &bump)]);
    s.extend([std::string::String::from("c")]);
    s.extend([Cow::Borrowed("d"), Cow::Owned("e".into())]);
    assert_eq!(s, "abcde");
    assert!(Cow::Borrowed("abcde") == s && s == Cow::Borrowed("abcde"));
    assert!(*"abcde" == s && "abcde" == s);
    let m: &mut str = s.borrow_mut();
    m.make_ascii_uppercase();
    assert_eq!(s, "ABCDE");
}

#[test]
fn collect_in_and_from_iterator_in() {
    fn signatures<'b>() {
        let _: fn(Range<u32>, &'b Bump) -> Vec<'b, u32> = <Range<u32> as CollectIn>::collect_in::<Vec<'b, u32>>;
        let _: fn(Range<u32>, &'b Bump) -> Vec<'b, u32> =
            <Vec<'b, u32> as FromIteratorIn<u32>>::from_iter_in::<Range<u32>>;
    }
    signatures();
    assert_impl!(Option<Vec<'static, u32>>: FromIteratorIn<Option<u32>, Alloc = &'static Bump>);
    assert_impl!(Result<Vec<'static, u32>, char>: FromIteratorIn<Result<u32, char>, Alloc = &'static Bump>);
    assert_impl!(Box<'static, [u32]>: FromIteratorIn<u32, Alloc = &'static Bump>);
}

#[test]
fn collection_alloc_err() {
    is_unpin::<CollectionAllocErr>();
    assert_impl!(CollectionAllocErr: Send + Sync + Clone + PartialEq + Eq + Debug);
    assert_impl!(CollectionAllocErr: From<AllocErr> + From<core::alloc::LayoutError>);
    match CollectionAllocErr::from(AllocErr) {
        CollectionAllocErr::AllocErr => {}
        CollectionAllocErr::CapacityOverflow => unreachable!(),
    }
}

#[test]
fn macros() {
    let bump = Bump::new();
    let v = bumpdown_bumpalo::vec![in &bump; 1u8, 2];
    let w = bumpdown_bumpalo::vec![in &bump; 0u8; 3];
    let s = bumpdown_bumpalo::format!(in &bump, "{}-{}", v.len(), w.len());
    assert_eq!((v, w, s.as_str()), (Vec::from_iter_in([1, 2], &bump), Vec::from_iter_in([0; 3], &bump), "2-3"));
}

// ---------------------------------------------------------------------------------------
// `boxed::Box`
// ---------------------------------------------------------------------------------------

#[test]
fn box_functions() {
    type B<'a> = Box<'a, u32>;
    // `'a` is the impl's lifetime, fixed for each call: a named parameter here.
    fn signatures<'a>() {
        let _: fn(u32, &'a Bump) -> B<'a> = B::new_in;
        let _: fn(B<'a>) -> u32 = B::into_inner;
        let _: unsafe fn(*mut u32) -> B<'static> = B::from_raw;
        let _: fn(B<'a>) -> *mut u32 = B::into_raw;
        let _: fn(B<'a>) -> &'a mut u32 = B::leak;
        type D<'a> = Box<'a, dyn Any>;
        let _: fn(D<'a>) -> Result<Box<'a, u32>, D<'a>> = D::downcast::<u32>;
        type DS<'a> = Box<'a, dyn Any + Send>;
        let _: fn(DS<'a>) -> Result<Box<'a, u32>, DS<'a>> = DS::downcast::<u32>;
        let _: fn(Range<u32>, &'a Bump) -> Box<'a, [u32]> = Box::<[u32]>::from_iter_in::<Range<u32>>;
    }
    signatures();
}

#[test]
fn box_trait_impls() {
    type B = Box<'static, u32>;
    assert_impl!(Box<'static, [u32]>: Default);
    assert_impl!(Box<'static, str>: Default);
    assert_impl!(B: PartialEq + PartialOrd + Ord + Eq + Hash + Display + Debug + fmt::Pointer);
    assert_impl!(B: Deref<Target = u32> + DerefMut + Borrow<u32> + BorrowMut<u32> + AsRef<u32> + AsMut<u32>);
    assert_impl!(Box<'static, std::collections::hash_map::DefaultHasher>: Hasher);
    assert_impl!(Box<'static, Range<u32>>: Iterator<Item = u32> + DoubleEndedIterator + ExactSizeIterator + FusedIterator);
    assert_impl!(Box<'static, dyn Any>: Unpin);
    assert_impl!(B: Send + Sync);
    assert_not_impl!(Box<'static, std::rc::Rc<u32>>: Send);
    assert_not_impl!(Box<'static, std::cell::Cell<u32>>: Sync);
    assert_impl!(Box<'static, core::future::Ready<u32>>: Future<Output = u32>);
    assert_impl!(Box<'static, [u32]>: From<Box<'static, [u32; 2]>> + From<Vec<'static, u32>>);
    assert_impl!(Box<'static, [u32; 2]>: TryFrom<Box<'static, [u32]>>);
    assert_impl!(B: serde::Serialize);

    // Boxes of two lifetimes compare.
    let outer = Bump::new();
    let a = Box::new_in(1u32, &outer);
    {
        let inner = Bump::new();
        let b = Box::new_in(2u32, &inner);
        fn lt<'a, 'b>(a: &Box<'a, u32>, b: &Box<'b, u32>) -> (bool, Option<core::cmp::Ordering>) {
            (a == b, a.partial_cmp(b))
        }
        assert_eq!(lt(&a, &b), (false, Some(core::cmp::Ordering::Less)));
    }
}
