//! bumpalo's `collections` module: [`Vec`] and [`String`] in a [`Bump`], which drop what
//! they own, [`CollectionAllocErr`], and bumpalo's [`CollectIn`] / [`FromIteratorIn`]
//! traits, whose `collect_in` takes one type parameter so `collect_in::<Vec<_>>(&bump)`
//! works.
//!
//! ```
//! use bumpdown_bumpalo::collections::{CollectIn, String, Vec};
//! use bumpdown_bumpalo::Bump;
//!
//! let bump = Bump::new();
//! let mut v = Vec::new_in(&bump);
//! v.extend([3, 1, 2]);
//! v.sort();
//! let squares = v.iter().map(|x| x * x).collect_in::<Vec<_>>(&bump);
//! let s: String = "abc".chars().rev().collect_in(&bump);
//! assert_eq!((squares.as_slice(), s.as_str()), (&[1, 4, 9][..], "cba"));
//! ```
//!
//! `Vec` and `String` are thin wrappers (`#[repr(transparent)]`) around bumpdown's own
//! [`bumpdown::collections::Vec`] and [`String`](bumpdown::collections::String): every
//! method forwards to bumpdown's, inlined. They exist for their constructors, which take
//! `&'bump Bump` as bumpalo's do (bumpdown's take any arena, `&A` where
//! `A: ArenaAllocator`), so that a caller's own type that dereferences to `Bump` can be
//! passed by reference and is deref-coerced to `&Bump`:
//!
//! ```
//! use bumpdown_bumpalo::collections::{String, Vec};
//! use bumpdown_bumpalo::Bump;
//!
//! struct Allocator(Bump);
//! impl core::ops::Deref for Allocator {
//!     type Target = Bump;
//!     fn deref(&self) -> &Bump {
//!         &self.0
//!     }
//! }
//!
//! let allocator = Allocator(Bump::new());
//! let s = String::from_str_in("coerced", &allocator);
//! let v: Vec<u8> = Vec::with_capacity_in(4, &allocator);
//! assert_eq!((s.as_str(), v.capacity() >= 4), ("coerced", true));
//! ```

use core::fmt;

use crate::{AllocErr, Bump};

/// The capacity methods that [`String`] and [`Vec`] forward unchanged to bumpdown's
/// collections (`self.0`), written once; each type gives its own docs before each name.
macro_rules! forward_capacity {
    (
        $(#[$reserve:meta])* reserve;
        $(#[$reserve_exact:meta])* reserve_exact;
        $(#[$try_reserve:meta])* try_reserve;
        $(#[$shrink_to_fit:meta])* shrink_to_fit;
    ) => {
        $(#[$reserve])*
        #[inline(always)]
        #[track_caller]
        pub fn reserve(&mut self, additional: usize) {
            self.0.reserve(additional)
        }

        $(#[$reserve_exact])*
        #[inline]
        #[track_caller]
        pub fn reserve_exact(&mut self, additional: usize) {
            self.0.reserve_exact(additional)
        }

        $(#[$try_reserve])*
        #[inline]
        pub fn try_reserve(&mut self, additional: usize) -> Result<(), CollectionAllocErr> {
            Ok(self.0.try_reserve(additional)?)
        }

        $(#[$shrink_to_fit])*
        #[inline]
        pub fn shrink_to_fit(&mut self) {
            self.0.shrink_to_fit()
        }
    };
}

pub mod string;
pub mod vec;

pub use self::string::String;
pub use self::vec::Vec;

/// Why `try_reserve` failed: bumpalo's error of [`Vec::try_reserve`],
/// [`Vec::try_reserve_exact`] (and, in the facade, [`String::try_reserve`] and
/// [`Vec::try_with_capacity_in`]). The collection is unchanged.
///
/// ```
/// use bumpdown_bumpalo::collections::{CollectionAllocErr, Vec};
/// use bumpdown_bumpalo::Bump;
///
/// let bump = Bump::new();
/// let mut v: Vec<u64> = Vec::new_in(&bump);
/// assert_eq!(v.try_reserve(usize::MAX), Err(CollectionAllocErr::CapacityOverflow));
/// bump.set_allocation_limit(Some(0));
/// assert_eq!(v.try_reserve(8), Err(CollectionAllocErr::AllocErr));
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CollectionAllocErr {
    /// The capacity asked for overflows: more than `isize::MAX` bytes, or a length past
    /// `usize::MAX`.
    CapacityOverflow,
    /// The arena could not provide the memory (out of memory, or over its allocation
    /// limit).
    AllocErr,
}

/// bumpdown's error, sorted into bumpalo's two kinds: a size that cannot form a layout
/// is `CapacityOverflow`, any other failure `AllocErr`.
impl From<bumpdown::AllocError> for CollectionAllocErr {
    #[inline]
    fn from(e: bumpdown::AllocError) -> Self {
        match e.kind() {
            bumpdown::AllocErrorKind::InvalidLayout => CollectionAllocErr::CapacityOverflow,
            _ => CollectionAllocErr::AllocErr,
        }
    }
}

impl From<AllocErr> for CollectionAllocErr {
    #[inline]
    fn from(_: AllocErr) -> Self {
        CollectionAllocErr::AllocErr
    }
}

/// A layout that cannot be made (`Layout::array::<T>(n)?`) is a capacity overflow, as
/// in bumpalo.
impl From<core::alloc::LayoutError> for CollectionAllocErr {
    #[inline]
    fn from(_: core::alloc::LayoutError) -> Self {
        CollectionAllocErr::CapacityOverflow
    }
}

/// bumpdown's addition (bumpalo's has only `Debug`).
impl fmt::Display for CollectionAllocErr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CollectionAllocErr::CapacityOverflow => "capacity overflow",
            CollectionAllocErr::AllocErr => "memory allocation failed",
        })
    }
}

/// bumpdown's addition (bumpalo's has none), with the `std` feature.
#[cfg(feature = "std")]
impl std::error::Error for CollectionAllocErr {}

/// Building a collection from an iterator, in an arena: what [`CollectIn::collect_in`]
/// calls. `Alloc` is what the collection allocates from (`&Bump`).
///
/// ```
/// use bumpdown_bumpalo::collections::{FromIteratorIn, Vec};
/// use bumpdown_bumpalo::Bump;
///
/// let bump = Bump::new();
/// let v: Vec<u8> = FromIteratorIn::from_iter_in(1..=3, &bump);
/// assert_eq!(v, [1, 2, 3]);
/// ```
pub trait FromIteratorIn<A> {
    /// What the collection allocates from.
    type Alloc;

    /// Builds `Self` from the items of `iter`, allocating from `alloc`.
    fn from_iter_in<I>(iter: I, alloc: Self::Alloc) -> Self
    where
        I: IntoIterator<Item = A>;
}

impl<'bump, T> FromIteratorIn<T> for Vec<'bump, T> {
    type Alloc = &'bump Bump;

    fn from_iter_in<I: IntoIterator<Item = T>>(iter: I, bump: &'bump Bump) -> Self {
        Vec::from_iter_in(iter, bump)
    }
}

impl<'bump> FromIteratorIn<char> for String<'bump> {
    type Alloc = &'bump Bump;

    fn from_iter_in<I: IntoIterator<Item = char>>(iter: I, bump: &'bump Bump) -> Self {
        let mut s = String::new_in(bump);
        s.extend(iter);
        s
    }
}

/// bumpdown's addition: the strings concatenated.
impl<'bump, 'c> FromIteratorIn<&'c str> for String<'bump> {
    type Alloc = &'bump Bump;

    fn from_iter_in<I: IntoIterator<Item = &'c str>>(iter: I, bump: &'bump Bump) -> Self {
        let mut s = String::new_in(bump);
        s.extend(iter);
        s
    }
}

#[cfg(feature = "boxed")]
impl<'bump, T> FromIteratorIn<T> for crate::boxed::Box<'bump, [T]> {
    type Alloc = &'bump Bump;

    fn from_iter_in<I: IntoIterator<Item = T>>(iter: I, bump: &'bump Bump) -> Self {
        <Vec<'bump, T> as FromIteratorIn<T>>::from_iter_in(iter, bump).into_boxed_slice()
    }
}

/// `None` if any item is `None`, else the collection of the values (the values taken
/// before the first `None` are dropped).
impl<T, V: FromIteratorIn<T>> FromIteratorIn<Option<T>> for Option<V> {
    type Alloc = V::Alloc;

    fn from_iter_in<I: IntoIterator<Item = Option<T>>>(iter: I, alloc: V::Alloc) -> Self {
        let mut failed = false;
        let values = V::from_iter_in(
            iter.into_iter().map_while(|item| {
                failed = item.is_none();
                item
            }),
            alloc,
        );
        (!failed).then_some(values)
    }
}

/// The first error, or the collection of the values (the values taken before the error
/// are dropped).
impl<T, E, V: FromIteratorIn<T>> FromIteratorIn<Result<T, E>> for Result<V, E> {
    type Alloc = V::Alloc;

    fn from_iter_in<I: IntoIterator<Item = Result<T, E>>>(iter: I, alloc: V::Alloc) -> Self {
        let mut error = None;
        let values = V::from_iter_in(
            iter.into_iter().map_while(|item| match item {
                Ok(value) => Some(value),
                Err(e) => {
                    error = Some(e);
                    None
                }
            }),
            alloc,
        );
        match error {
            Some(e) => Err(e),
            None => Ok(values),
        }
    }
}

/// `collect`, into an arena: `iter.collect_in::<Vec<_>>(&bump)`.
///
/// ```
/// use bumpdown_bumpalo::collections::{CollectIn, Vec};
/// use bumpdown_bumpalo::Bump;
///
/// let bump = Bump::new();
/// let parsed: Result<Vec<u8>, _> = ["1", "2"].iter().map(|s| s.parse::<u8>()).collect_in(&bump);
/// assert_eq!(parsed.unwrap(), [1, 2]);
/// ```
pub trait CollectIn: Iterator + Sized {
    /// Collects the items into a `C` allocated from `alloc`.
    fn collect_in<C: FromIteratorIn<Self::Item>>(self, alloc: C::Alloc) -> C {
        C::from_iter_in(self, alloc)
    }
}

impl<I: Iterator> CollectIn for I {}
