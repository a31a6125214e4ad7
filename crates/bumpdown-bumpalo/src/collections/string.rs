//! bumpalo's `collections::string` module: [`String`], a UTF-8 string in a [`Bump`],
//! [`FromUtf8Error`], and bumpdown's [`FromUtf16Error`] and [`Drain`].
//!
//! The facade's `String` is a `#[repr(transparent)]` wrapper around
//! [`bumpdown::collections::String`], as the facade's [`Vec`] is around bumpdown's (see
//! the `vec` module for why).

use alloc::borrow::Cow;
use core::fmt;
use core::ops::{Add, AddAssign, Deref, DerefMut, Index, IndexMut, RangeBounds};
use core::slice::SliceIndex;
use core::str::Utf8Error;

pub use bumpdown::collections::string::{Drain, FromUtf16Error};
use bumpdown::collections::String as ArenaString;

use super::{CollectionAllocErr, FromIteratorIn, Vec};
use crate::Bump;

/// A growable UTF-8 string in a [`Bump`], as bumpalo's `String`. It dereferences to
/// `str`; [`From`] turns it into bumpdown's own
/// [`String`](bumpdown::collections::String), the type underneath, without a copy.
///
/// ```
/// use bumpdown_bumpalo::collections::String;
/// use core::fmt::Write;
///
/// let bump = bumpdown_bumpalo::Bump::new();
/// let mut s = String::from_str_in("bump", &bump);
/// write!(s, "alo {}", 3).unwrap();
/// match &*s {
///     "bumpalo 3" => {}
///     other => panic!("{other}"),
/// }
/// ```
#[repr(transparent)]
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct String<'bump>(ArenaString<'bump>);

impl<'bump> String<'bump> {
    /// An empty string in `bump`; it allocates nothing until text is added.
    #[inline]
    pub fn new_in(bump: &'bump Bump) -> Self {
        String(ArenaString::new_in(bump))
    }

    /// An empty string with room for at least `capacity` bytes.
    ///
    /// # Panics
    /// If the arena fails.
    #[inline]
    #[track_caller]
    pub fn with_capacity_in(capacity: usize, bump: &'bump Bump) -> Self {
        String(ArenaString::with_capacity_in(capacity, bump))
    }

    /// A copy of `s` in `bump`.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let s = bumpdown_bumpalo::collections::String::from_str_in("hello", &bump);
    /// assert_eq!(s, "hello");
    /// ```
    #[inline]
    #[track_caller]
    pub fn from_str_in(s: &str, bump: &'bump Bump) -> Self {
        String(ArenaString::from_str_in(s, bump))
    }

    /// The bytes as a string in `bump`, each invalid sequence replaced by U+FFFD.
    #[inline]
    #[track_caller]
    pub fn from_utf8_lossy_in(bytes: &[u8], bump: &'bump Bump) -> Self {
        String(ArenaString::from_utf8_lossy_in(bytes, bump))
    }

    /// Decodes UTF-16 `v` into a new string in `bump`, or fails on an unpaired
    /// surrogate.
    #[inline]
    #[track_caller]
    pub fn from_utf16_in(v: &[u16], bump: &'bump Bump) -> Result<Self, FromUtf16Error> {
        Ok(String(ArenaString::from_utf16_in(v, bump)?))
    }

    /// Collects `iter` (of `char`s, or of `&str`s: bumpdown's) into a new string in
    /// `bump`. One type parameter, the iterator's, as bumpalo's.
    ///
    /// ```
    /// use bumpdown_bumpalo::collections::String;
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(String::from_iter_in("abc".chars().rev(), &bump), "cba");
    /// assert_eq!(String::from_iter_in(["ab", "cd"], &bump), "abcd");
    /// ```
    #[inline]
    #[track_caller]
    pub fn from_iter_in<I>(iter: I, bump: &'bump Bump) -> Self
    where
        I: IntoIterator,
        Self: FromIteratorIn<I::Item, Alloc = &'bump Bump>,
    {
        <Self as FromIteratorIn<I::Item>>::from_iter_in(iter, bump)
    }

    /// A string over a block the caller allocated from `bump`.
    ///
    /// # Safety
    /// As for [`Vec::from_raw_parts_in`], and the `length` bytes are UTF-8.
    #[inline]
    pub unsafe fn from_raw_parts_in(buf: *mut u8, length: usize, capacity: usize, bump: &'bump Bump) -> Self {
        // SAFETY: the caller's promises are the core's.
        String(unsafe { ArenaString::from_raw_parts_in(buf, length, capacity, bump) })
    }

    /// The bytes as a string if they are UTF-8, or an error that gives them back.
    ///
    /// ```
    /// use bumpdown_bumpalo::collections::String;
    ///
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let s = String::from_utf8(bumpdown_bumpalo::vec![in &bump; b'h', b'i']).unwrap();
    /// assert_eq!(s, "hi");
    /// let err = String::from_utf8(bumpdown_bumpalo::vec![in &bump; 0xff]).unwrap_err();
    /// assert_eq!(err.into_bytes(), [0xff]);
    /// ```
    #[inline]
    pub fn from_utf8(vec: Vec<'bump, u8>) -> Result<Self, FromUtf8Error<'bump>> {
        match ArenaString::from_utf8(vec.into()) {
            Ok(s) => Ok(String(s)),
            Err(e) => Err(FromUtf8Error(e)),
        }
    }

    /// The bytes as a string, unchecked.
    ///
    /// # Safety
    /// The bytes are valid UTF-8.
    #[inline]
    pub unsafe fn from_utf8_unchecked(vec: Vec<'bump, u8>) -> Self {
        // SAFETY: forwarded from the caller.
        String(unsafe { ArenaString::from_utf8_unchecked(vec.into()) })
    }

    /// The [`Bump`] this string allocates from.
    #[inline]
    pub fn bump(&self) -> &'bump Bump {
        // As for `Vec::bump`: made from a `&'bump Bump` only.
        self.0.bump()
    }

    /// The bytes, as a vector (no copy).
    #[inline]
    pub fn into_bytes(self) -> Vec<'bump, u8> {
        Vec::from_inner(self.0.into_bytes())
    }

    /// Turns the string into a `&str` that lives as long as the arena borrow, without
    /// copying.
    #[inline]
    pub fn into_bump_str(self) -> &'bump str {
        self.0.into_bump_str()
    }

    /// Like [`into_bump_str`](String::into_bump_str), mutable (bumpdown's).
    #[inline]
    pub fn into_bump_str_mut(self) -> &'bump mut str {
        self.0.into_bump_str_mut()
    }

    /// The text.
    #[inline(always)]
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The text, mutably.
    #[inline(always)]
    pub fn as_mut_str(&mut self) -> &mut str {
        self.0.as_mut_str()
    }

    /// The text's bytes (inherent, as bumpalo's: `String::as_bytes` names it).
    #[inline(always)]
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// The bytes, as a mutable vector.
    ///
    /// # Safety
    /// The bytes must be UTF-8 again when the borrow ends.
    #[inline]
    pub unsafe fn as_mut_vec(&mut self) -> &mut Vec<'bump, u8> {
        // SAFETY: forwarded from the caller.
        Vec::from_inner_mut(unsafe { self.0.as_mut_vec() })
    }

    /// Length in bytes.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the string is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many bytes fit without growing.
    #[inline(always)]
    pub fn capacity(&self) -> usize {
        self.0.capacity()
    }

    forward_capacity! {
        /// [`Vec::reserve`] in bytes: appending that many more moves nothing.
        ///
        /// ```
        /// use bumpdown_bumpalo::collections::String;
        ///
        /// let bump = bumpdown_bumpalo::Bump::new();
        /// let mut s = String::new_in(&bump);
        /// s.reserve(16);
        /// let room = s.as_ptr();
        /// s.push_str("sixteen bytes...");
        /// assert_eq!((s.as_ptr(), s.len()), (room, 16));
        /// ```
        reserve;
        /// [`Vec::reserve_exact`] in bytes.
        reserve_exact;
        /// [`Vec::try_reserve`] in bytes; the string is unchanged on error. (bumpalo's
        /// `String` has none.)
        ///
        /// ```
        /// use bumpdown_bumpalo::collections::{CollectionAllocErr, String};
        ///
        /// let bump = bumpdown_bumpalo::Bump::new();
        /// let mut s = String::from_str_in("abc", &bump);
        /// assert_eq!(s.try_reserve(usize::MAX), Err(CollectionAllocErr::CapacityOverflow));
        /// assert_eq!(s, "abc");
        /// ```
        try_reserve;
        /// [`Vec::shrink_to_fit`]: the capacity down to the length, in place.
        shrink_to_fit;
    }

    /// Appends a string slice.
    #[inline(always)]
    #[track_caller]
    pub fn push_str(&mut self, s: &str) {
        self.0.push_str(s)
    }

    /// Appends a character.
    #[inline(always)]
    #[track_caller]
    pub fn push(&mut self, ch: char) {
        self.0.push(ch)
    }

    /// Removes the last character and returns it.
    #[inline]
    pub fn pop(&mut self) -> Option<char> {
        self.0.pop()
    }

    /// Keeps the first `new_len` bytes.
    ///
    /// # Panics
    /// If `new_len` is not on a character boundary.
    #[inline]
    #[track_caller]
    pub fn truncate(&mut self, new_len: usize) {
        self.0.truncate(new_len)
    }

    /// Empties the string; the capacity stays.
    #[inline]
    pub fn clear(&mut self) {
        self.0.clear()
    }

    /// Inserts `ch` at byte `idx`.
    ///
    /// # Panics
    /// If `idx` is out of bounds or not on a character boundary.
    #[inline]
    #[track_caller]
    pub fn insert(&mut self, idx: usize, ch: char) {
        self.0.insert(idx, ch)
    }

    /// Inserts `string` at byte `idx`.
    ///
    /// # Panics
    /// If `idx` is out of bounds or not on a character boundary.
    #[inline]
    #[track_caller]
    pub fn insert_str(&mut self, idx: usize, string: &str) {
        self.0.insert_str(idx, string)
    }

    /// Removes the character at byte `idx` and returns it.
    ///
    /// # Panics
    /// If `idx` is out of bounds or not on a character boundary.
    #[inline]
    #[track_caller]
    pub fn remove(&mut self, idx: usize) -> char {
        self.0.remove(idx)
    }

    /// Keeps the characters `f` accepts.
    #[inline]
    pub fn retain<F: FnMut(char) -> bool>(&mut self, f: F) {
        self.0.retain(f)
    }

    /// Removes the byte range `range` and returns its characters as an iterator.
    ///
    /// # Panics
    /// If the range is out of bounds or not on character boundaries.
    #[inline]
    #[track_caller]
    pub fn drain<R: RangeBounds<usize>>(&mut self, range: R) -> Drain<'_, 'bump> {
        self.0.drain(range)
    }

    /// Splits the string at byte `at`: `self` keeps `..at`, the returned string (in the
    /// same arena) holds `at..`.
    ///
    /// # Panics
    /// If `at` is past the end or not on a character boundary.
    #[inline]
    #[track_caller]
    pub fn split_off(&mut self, at: usize) -> Self {
        String(self.0.split_off(at))
    }

    /// Replaces the byte range `range` with `replace_with`.
    ///
    /// # Panics
    /// If the range is out of bounds or not on character boundaries.
    #[inline]
    #[track_caller]
    pub fn replace_range<R: RangeBounds<usize>>(&mut self, range: R, replace_with: &str) {
        self.0.replace_range(range, replace_with)
    }
}

/// Without a copy: the same bytes, in the same arena.
impl<'bump> From<String<'bump>> for ArenaString<'bump> {
    #[inline]
    fn from(s: String<'bump>) -> Self {
        s.0
    }
}

impl Deref for String<'_> {
    type Target = str;

    #[inline(always)]
    fn deref(&self) -> &str {
        self.0.as_str()
    }
}

impl DerefMut for String<'_> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut str {
        self.0.as_mut_str()
    }
}

bumpdown::__str_traits!(String; str, &str, alloc::string::String, Cow<'_, str>);

impl fmt::Write for String<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.write_str(s)
    }

    #[inline]
    fn write_char(&mut self, c: char) -> fmt::Result {
        self.0.write_char(c)
    }
}

/// Slicing by byte ranges, as a `str` is sliced (with its panics), for code generic over
/// `Index`; plain indexing works through `Deref` too.
impl<I: SliceIndex<str>> Index<I> for String<'_> {
    type Output = I::Output;

    #[inline]
    #[track_caller]
    fn index(&self, index: I) -> &I::Output {
        &self.as_str()[index]
    }
}

impl<I: SliceIndex<str>> IndexMut<I> for String<'_> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: I) -> &mut I::Output {
        &mut self.as_mut_str()[index]
    }
}

impl<'c> Extend<&'c str> for String<'_> {
    #[inline]
    #[track_caller]
    fn extend<I: IntoIterator<Item = &'c str>>(&mut self, iter: I) {
        self.0.extend(iter)
    }
}

impl Extend<char> for String<'_> {
    #[inline]
    #[track_caller]
    fn extend<I: IntoIterator<Item = char>>(&mut self, iter: I) {
        self.0.extend(iter)
    }
}

impl<'c> Extend<&'c char> for String<'_> {
    #[inline]
    #[track_caller]
    fn extend<I: IntoIterator<Item = &'c char>>(&mut self, iter: I) {
        self.0.extend(iter)
    }
}

/// Strings of any arena (bumpalo: of the same one).
impl<'s> Extend<String<'s>> for String<'_> {
    #[inline]
    #[track_caller]
    fn extend<I: IntoIterator<Item = String<'s>>>(&mut self, iter: I) {
        iter.into_iter().for_each(|s| self.push_str(&s));
    }
}

impl Extend<alloc::string::String> for String<'_> {
    #[inline]
    #[track_caller]
    fn extend<I: IntoIterator<Item = alloc::string::String>>(&mut self, iter: I) {
        iter.into_iter().for_each(|s| self.push_str(&s));
    }
}

impl<'c> Extend<Cow<'c, str>> for String<'_> {
    #[inline]
    #[track_caller]
    fn extend<I: IntoIterator<Item = Cow<'c, str>>>(&mut self, iter: I) {
        iter.into_iter().for_each(|s| self.push_str(&s));
    }
}

/// `string + "text"`: appends, and gives the string back (as std's `String`).
impl Add<&str> for String<'_> {
    type Output = Self;

    #[inline]
    #[track_caller]
    fn add(mut self, other: &str) -> Self {
        self.push_str(other);
        self
    }
}

/// `string += "text"`: appends.
impl AddAssign<&str> for String<'_> {
    #[inline]
    #[track_caller]
    fn add_assign(&mut self, other: &str) {
        self.push_str(other);
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for String<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

/// The error of [`String::from_utf8`]: the bytes were not UTF-8. Gives them back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FromUtf8Error<'bump>(bumpdown::collections::FromUtf8Error<'bump>);

impl<'bump> FromUtf8Error<'bump> {
    /// The bytes that were not UTF-8.
    #[inline]
    pub fn into_bytes(self) -> Vec<'bump, u8> {
        Vec::from_inner(self.0.into_bytes())
    }

    /// The bytes, borrowed.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// Where the bytes stop being UTF-8.
    #[inline]
    pub fn utf8_error(&self) -> Utf8Error {
        self.0.utf8_error()
    }
}

impl fmt::Display for FromUtf8Error<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for FromUtf8Error<'_> {}
