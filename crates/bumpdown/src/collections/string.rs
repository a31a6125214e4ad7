//! `String`: a growable UTF-8 string in an arena.

use core::fmt;
use core::ops::{Add, AddAssign, Deref, DerefMut, RangeBounds};
use core::str::{self, Utf8Error};

use super::{ArenaAllocator, FromIteratorIn, Vec};

/// A growable UTF-8 string in an arena, like `std::string::String`.
///
/// ```
/// use bumpdown::collections::String;
/// use core::fmt::Write;
///
/// let arena = bumpdown::Arena::new();
/// let mut s = String::new_in(&arena);
/// s.push_str("bump");
/// s.push('!');
/// write!(s, " {}", 42).unwrap();
/// assert_eq!(s, "bump! 42");
/// assert_eq!(s.char_indices().nth(4), Some((4, '!')));
/// ```
///
/// `bumpdown::format!` formats into one:
///
/// ```
/// let arena = bumpdown::Arena::new();
/// let s = bumpdown::format!(in &arena, "{}-{}", 1, 2);
/// assert_eq!(s, "1-2");
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct String<'a> {
    // INVARIANT: the bytes are valid UTF-8.
    vec: Vec<'a, u8>,
}

/// The error of [`String::from_utf8`]: the bytes were not UTF-8. Gives them back.
///
/// ```
/// let arena = bumpdown::Arena::new();
/// let bytes = bumpdown::vec![in &arena; 0xffu8];
/// let err = bumpdown::collections::String::from_utf8(bytes).unwrap_err();
/// assert_eq!(err.utf8_error().valid_up_to(), 0);
/// assert_eq!(err.into_bytes(), [0xff]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FromUtf8Error<'a> {
    bytes: Vec<'a, u8>,
    error: Utf8Error,
}

impl<'a> FromUtf8Error<'a> {
    /// The bytes that were not UTF-8.
    pub fn into_bytes(self) -> Vec<'a, u8> {
        self.bytes
    }

    /// The bytes, borrowed.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Where the bytes stop being UTF-8.
    pub fn utf8_error(&self) -> Utf8Error {
        self.error
    }
}

impl fmt::Display for FromUtf8Error<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.error, f)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for FromUtf8Error<'_> {}

impl<'a> String<'a> {
    /// An empty string in `arena`; it allocates nothing until text is added.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let s = bumpdown::collections::String::new_in(&arena);
    /// assert!(s.is_empty());
    /// ```
    #[inline]
    pub fn new_in<A: ArenaAllocator + 'a>(arena: &'a A) -> Self {
        String { vec: Vec::new_in(arena) }
    }

    /// An empty string with room for at least `capacity` bytes.
    ///
    /// # Panics
    /// If the arena fails or `capacity` exceeds `isize::MAX`.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let s = bumpdown::collections::String::with_capacity_in(64, &arena);
    /// assert!(s.capacity() >= 64);
    /// ```
    #[inline]
    #[track_caller]
    pub fn with_capacity_in<A: ArenaAllocator + 'a>(capacity: usize, arena: &'a A) -> Self {
        String { vec: Vec::with_capacity_in(capacity, arena) }
    }

    /// A copy of `s` in `arena`.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let s = bumpdown::collections::String::from_str_in("copy me", &arena);
    /// assert_eq!(s, "copy me");
    /// ```
    #[track_caller]
    pub fn from_str_in<A: ArenaAllocator + 'a>(s: &str, arena: &'a A) -> Self {
        let mut string = String::with_capacity_in(s.len(), arena);
        string.push_str(s);
        string
    }

    /// A string over a block the caller allocated from `arena`.
    ///
    /// # Safety
    /// As for [`Vec::from_raw_parts_in`] with `T = u8`, and the first `length` bytes are
    /// UTF-8.
    ///
    /// ```
    /// use core::mem::ManuallyDrop;
    /// use bumpdown::collections::String;
    ///
    /// let arena = bumpdown::Arena::new();
    /// let mut s = ManuallyDrop::new(String::from_str_in("héllo", &arena));
    /// let (ptr, len, cap) = (s.as_mut_ptr(), s.len(), s.capacity());
    /// // SAFETY: the parts of a string of `arena` that will not be used again.
    /// let s = unsafe { String::from_raw_parts_in(ptr, len, cap, &arena) };
    /// assert_eq!(s, "héllo");
    /// ```
    pub unsafe fn from_raw_parts_in<A: ArenaAllocator + 'a>(
        buf: *mut u8,
        length: usize,
        capacity: usize,
        arena: &'a A,
    ) -> Self {
        // SAFETY: the caller's promises are `Vec::from_raw_parts_in`'s, and UTF-8.
        String { vec: unsafe { Vec::from_raw_parts_in(buf, length, capacity, arena) } }
    }

    /// The arena as its own type `A`, if it says so: see [`Vec::arena_as`].
    pub fn arena_as<A: ArenaAllocator + 'static>(&self) -> Option<&'a A> {
        self.vec.arena_as()
    }

    /// bumpalo's name: the arena as the type `A` the caller names; see [`Vec::bump`].
    ///
    /// # Panics
    /// If the arena is not an `A`.
    #[track_caller]
    pub fn bump<A: ArenaAllocator + 'static>(&self) -> &'a A {
        self.vec.bump()
    }

    /// The bytes as a string if they are UTF-8, or an error that gives them back.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let s = bumpdown::collections::String::from_utf8(bumpdown::vec![in &arena; b'h', b'i']).unwrap();
    /// assert_eq!(s, "hi");
    /// ```
    pub fn from_utf8(vec: Vec<'a, u8>) -> Result<Self, FromUtf8Error<'a>> {
        match str::from_utf8(&vec) {
            Ok(_) => Ok(String { vec }),
            Err(error) => Err(FromUtf8Error { bytes: vec, error }),
        }
    }

    /// The bytes as a string, unchecked.
    ///
    /// # Safety
    /// The bytes are valid UTF-8.
    pub unsafe fn from_utf8_unchecked(vec: Vec<'a, u8>) -> Self {
        String { vec }
    }

    /// The bytes as a string in `arena`, each invalid sequence replaced by U+FFFD.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let s = bumpdown::collections::String::from_utf8_lossy_in(b"a\xffb", &arena);
    /// assert_eq!(s, "a\u{FFFD}b");
    /// ```
    #[track_caller]
    pub fn from_utf8_lossy_in<A: ArenaAllocator + 'a>(bytes: &[u8], arena: &'a A) -> Self {
        let mut s = String::with_capacity_in(bytes.len(), arena);
        for chunk in bytes.utf8_chunks() {
            s.push_str(chunk.valid());
            if !chunk.invalid().is_empty() {
                s.push(char::REPLACEMENT_CHARACTER);
            }
        }
        s
    }

    /// The string's bytes as a vector.
    pub fn into_bytes(self) -> Vec<'a, u8> {
        self.vec
    }

    /// Turns the string into a `&str` that lives as long as the arena borrow, without
    /// copying.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let s: &str = bumpdown::format!(in &arena, "{}", 7).into_bump_str();
    /// assert_eq!(s, "7");
    /// ```
    pub fn into_bump_str(self) -> &'a str {
        self.into_bump_str_mut()
    }

    /// Like [`into_bump_str`](String::into_bump_str), mutable.
    pub fn into_bump_str_mut(self) -> &'a mut str {
        let bytes = self.vec.into_bump_slice_mut();
        // SAFETY: the bytes are UTF-8 (the invariant).
        unsafe { str::from_utf8_unchecked_mut(bytes) }
    }

    /// The text.
    #[inline(always)]
    pub fn as_str(&self) -> &str {
        // SAFETY: the bytes are UTF-8 (the invariant).
        unsafe { str::from_utf8_unchecked(&self.vec) }
    }

    /// The text, mutable.
    #[inline(always)]
    pub fn as_mut_str(&mut self) -> &mut str {
        // SAFETY: the bytes are UTF-8; `str`'s API keeps them so.
        unsafe { str::from_utf8_unchecked_mut(&mut self.vec) }
    }

    /// The bytes, mutable.
    ///
    /// # Safety
    /// They are valid UTF-8 again when the borrow ends.
    pub unsafe fn as_mut_vec(&mut self) -> &mut Vec<'a, u8> {
        &mut self.vec
    }

    /// Length in bytes.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.vec.len()
    }

    /// Whether the string is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.vec.is_empty()
    }

    /// How many bytes fit without growing.
    #[inline(always)]
    pub fn capacity(&self) -> usize {
        self.vec.capacity()
    }

    /// Makes room for at least `additional` more bytes; see [`Vec::reserve`].
    #[inline(always)]
    #[track_caller]
    pub fn reserve(&mut self, additional: usize) {
        self.vec.reserve(additional)
    }

    /// Makes room for exactly `additional` more bytes; see [`Vec::reserve_exact`].
    #[track_caller]
    pub fn reserve_exact(&mut self, additional: usize) {
        self.vec.reserve_exact(additional)
    }

    /// Like [`reserve`](String::reserve), returning an error instead of panicking.
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), crate::error::AllocError> {
        self.vec.try_reserve(additional)
    }

    /// Lowers the capacity to the length; see [`Vec::shrink_to_fit`].
    pub fn shrink_to_fit(&mut self) {
        self.vec.shrink_to_fit()
    }

    /// Appends a string slice.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut s = bumpdown::collections::String::new_in(&arena);
    /// s.push_str("ab");
    /// s.push_str("cd");
    /// assert_eq!(s, "abcd");
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn push_str(&mut self, s: &str) {
        self.vec.extend_from_slice_copy(s.as_bytes())
    }

    /// Appends a character.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut s = bumpdown::collections::String::new_in(&arena);
    /// s.push('é');
    /// assert_eq!((s.as_str(), s.len()), ("é", 2));
    /// ```
    #[inline]
    #[track_caller]
    pub fn push(&mut self, ch: char) {
        if ch.is_ascii() {
            self.vec.push(ch as u8);
        } else {
            self.push_str(ch.encode_utf8(&mut [0; 4]));
        }
    }

    /// Removes and returns the last character.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut s = bumpdown::collections::String::from_str_in("hé", &arena);
    /// assert_eq!((s.pop(), s.pop(), s.pop()), (Some('é'), Some('h'), None));
    /// ```
    pub fn pop(&mut self) -> Option<char> {
        let ch = self.chars().next_back()?;
        let new_len = self.len() - ch.len_utf8();
        // SAFETY: `new_len` is a character boundary (the last character starts there).
        unsafe { self.vec.set_len(new_len) };
        Some(ch)
    }

    /// Shortens the string to `new_len` bytes (no effect if it is not longer).
    ///
    /// # Panics
    /// If `new_len` is not on a character boundary.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut s = bumpdown::collections::String::from_str_in("hello", &arena);
    /// s.truncate(2);
    /// assert_eq!(s, "he");
    /// ```
    #[track_caller]
    pub fn truncate(&mut self, new_len: usize) {
        if new_len < self.len() {
            assert!(self.is_char_boundary(new_len), "new_len {new_len} is not a char boundary");
            self.vec.truncate(new_len)
        }
    }

    /// Empties the string; the capacity stays.
    pub fn clear(&mut self) {
        self.vec.clear()
    }

    /// Inserts a character at byte index `idx`.
    ///
    /// # Panics
    /// If `idx` is past the end or not on a character boundary.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut s = bumpdown::collections::String::from_str_in("ac", &arena);
    /// s.insert(1, 'b');
    /// assert_eq!(s, "abc");
    /// ```
    #[track_caller]
    pub fn insert(&mut self, idx: usize, ch: char) {
        self.insert_str(idx, ch.encode_utf8(&mut [0; 4]))
    }

    /// Inserts a string slice at byte index `idx`.
    ///
    /// # Panics
    /// If `idx` is past the end or not on a character boundary.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut s = bumpdown::collections::String::from_str_in("ad", &arena);
    /// s.insert_str(1, "bc");
    /// assert_eq!(s, "abcd");
    /// ```
    #[track_caller]
    pub fn insert_str(&mut self, idx: usize, string: &str) {
        assert!(self.is_char_boundary(idx), "index {idx} is not a char boundary");
        let len = self.len();
        let n = string.len();
        self.vec.reserve(n);
        let base = self.vec.as_mut_ptr();
        // SAFETY: room for `len + n` bytes; the bytes after `idx` move up by `n`
        // (overlapping: `ptr::copy`), then the gap takes `string`, which cannot overlap
        // this buffer (it is borrowed shared while the buffer is borrowed mutably). Both
        // pieces split at character boundaries, so the result is UTF-8.
        unsafe {
            core::ptr::copy(base.add(idx), base.add(idx + n), len - idx);
            core::ptr::copy_nonoverlapping(string.as_ptr(), base.add(idx), n);
            self.vec.set_len(len + n);
        }
    }

    /// Removes and returns the character at byte index `idx`.
    ///
    /// # Panics
    /// If `idx` is not the start of a character of the string.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut s = bumpdown::collections::String::from_str_in("héllo", &arena);
    /// assert_eq!(s.remove(1), 'é');
    /// assert_eq!(s, "hllo");
    /// ```
    #[track_caller]
    pub fn remove(&mut self, idx: usize) -> char {
        let Some(ch) = self[idx..].chars().next() else {
            panic!("cannot remove a char from the end of a string");
        };
        let n = ch.len_utf8();
        let len = self.len();
        let base = self.vec.as_mut_ptr();
        // SAFETY: `idx..idx + n` is one whole character inside the string; the bytes
        // after it move down over it, which keeps the text UTF-8.
        unsafe {
            core::ptr::copy(base.add(idx + n), base.add(idx), len - idx - n);
            self.vec.set_len(len - n);
        }
        ch
    }

    /// Keeps only the characters for which `f` returns true.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut s = bumpdown::collections::String::from_str_in("a1b2", &arena);
    /// s.retain(|c| c.is_alphabetic());
    /// assert_eq!(s, "ab");
    /// ```
    pub fn retain<F: FnMut(char) -> bool>(&mut self, mut f: F) {
        /// Sets the length to the kept bytes, also when `f` panics (the characters not
        /// yet visited are then dropped from the string, which stays UTF-8).
        struct Kept<'s, 'a> {
            vec: &'s mut Vec<'a, u8>,
            write: usize,
        }

        impl Drop for Kept<'_, '_> {
            fn drop(&mut self) {
                // SAFETY: `0..write` holds the kept characters, whole and in order.
                unsafe { self.vec.set_len(self.write) };
            }
        }

        let len = self.len();
        let mut kept = Kept { vec: &mut self.vec, write: 0 };
        let mut read = 0;
        while read < len {
            let base = kept.vec.as_mut_ptr();
            // SAFETY: `read` is a character boundary below `len`; the bytes `read..len`
            // are untouched text (writes go below `read`).
            let rest = unsafe { str::from_utf8_unchecked(core::slice::from_raw_parts(base.add(read), len - read)) };
            let ch = rest.chars().next().expect("a character starts below len");
            let n = ch.len_utf8();
            if f(ch) {
                // SAFETY: `write <= read`, both inside the buffer; one whole character
                // moves down (`ptr::copy` handles overlap).
                unsafe { core::ptr::copy(base.add(read), base.add(kept.write), n) };
                kept.write += n;
            }
            read += n;
        }
    }

    /// Removes the byte range `range` and returns it as an iterator of characters.
    ///
    /// # Panics
    /// If the range is out of bounds or not on character boundaries.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut s = bumpdown::collections::String::from_str_in("hello world", &arena);
    /// let hello: std::string::String = s.drain(..6).collect();
    /// assert_eq!((hello.as_str(), s.as_str()), ("hello ", "world"));
    /// ```
    #[track_caller]
    pub fn drain<R: RangeBounds<usize>>(&mut self, range: R) -> Drain<'_, 'a> {
        let (start, end) = super::vec::resolve_range(range, self.len());
        assert!(self.is_char_boundary(start) && self.is_char_boundary(end), "range is not on char boundaries");
        // The vector's drain removes whole characters, so the string stays UTF-8 whether
        // the iterator is consumed, dropped early or leaked.
        Drain { bytes: self.vec.drain(start..end) }
    }
}

impl<'a> String<'a> {
    /// Decodes UTF-16 `v` into a new string in `arena`, or fails on an unpaired
    /// surrogate.
    ///
    /// ```
    /// use bumpdown::collections::String;
    ///
    /// let arena = bumpdown::Arena::new();
    /// let units: Vec<u16> = "añ𝄞".encode_utf16().collect();
    /// assert_eq!(String::from_utf16_in(&units, &arena).unwrap(), "añ𝄞");
    /// assert!(String::from_utf16_in(&[0xD800], &arena).is_err());
    /// ```
    #[track_caller]
    pub fn from_utf16_in<A: ArenaAllocator + 'a>(v: &[u16], arena: &'a A) -> Result<Self, FromUtf16Error> {
        let mut s = String::with_capacity_in(v.len(), arena);
        for unit in char::decode_utf16(v.iter().copied()) {
            s.push(unit.map_err(|_| FromUtf16Error(()))?);
        }
        Ok(s)
    }

    /// Splits the string at byte `at`: `self` keeps `..at`, the returned string (in the
    /// same arena) holds `at..`.
    ///
    /// # Panics
    /// If `at` is past the end or not on a character boundary.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut s = bumpdown::collections::String::from_str_in("héllo", &arena);
    /// let tail = s.split_off(3);
    /// assert_eq!((s.as_str(), tail.as_str()), ("hé", "llo"));
    /// ```
    #[track_caller]
    pub fn split_off(&mut self, at: usize) -> String<'a> {
        assert!(
            self.is_char_boundary(at),
            "split_off: {at} is not a char boundary of a string of {} bytes",
            self.len()
        );
        // Both halves are whole characters: UTF-8.
        String { vec: self.vec.split_off(at) }
    }

    /// Replaces the byte range `range` with `replace_with`.
    ///
    /// # Panics
    /// If the range is out of bounds or not on character boundaries.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut s = bumpdown::collections::String::from_str_in("a short one", &arena);
    /// s.replace_range(2..7, "long");
    /// assert_eq!(s, "a long one");
    /// ```
    #[track_caller]
    pub fn replace_range<R: RangeBounds<usize>>(&mut self, range: R, replace_with: &str) {
        let (start, end) = super::vec::resolve_range(range, self.len());
        assert!(self.is_char_boundary(start) && self.is_char_boundary(end), "range is not on char boundaries");
        // Whole characters out, a whole `str` in: the bytes stay UTF-8.
        self.vec.splice(start..end, replace_with.bytes());
    }
}

/// The error of [`String::from_utf16_in`]: the input had an unpaired surrogate.
///
/// ```
/// let arena = bumpdown::Arena::new();
/// let err = bumpdown::collections::String::from_utf16_in(&[0xDC00], &arena).unwrap_err();
/// assert_eq!(err.to_string(), "invalid utf-16: lone surrogate found");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FromUtf16Error(());

impl fmt::Display for FromUtf16Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid utf-16: lone surrogate found")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for FromUtf16Error {}

/// `string + "text"`: appends, and gives the string back (as std's `String`).
///
/// ```
/// let arena = bumpdown::Arena::new();
/// let s = bumpdown::collections::String::from_str_in("ab", &arena) + "cd";
/// assert_eq!(s, "abcd");
/// ```
impl Add<&str> for String<'_> {
    type Output = Self;

    #[track_caller]
    fn add(mut self, other: &str) -> Self {
        self.push_str(other);
        self
    }
}

/// `string += "text"`: appends.
///
/// ```
/// let arena = bumpdown::Arena::new();
/// let mut s = bumpdown::collections::String::from_str_in("ab", &arena);
/// s += "cd";
/// assert_eq!(s, "abcd");
/// ```
impl AddAssign<&str> for String<'_> {
    #[track_caller]
    fn add_assign(&mut self, other: &str) {
        self.push_str(other);
    }
}

/// The iterator of [`String::drain`]: the removed characters.
#[derive(Debug)]
pub struct Drain<'s, 'a> {
    // INVARIANT: the bytes not yet yielded are whole characters.
    bytes: super::vec::Drain<'s, 'a, u8>,
}

impl Drain<'_, '_> {
    /// The text not yet yielded.
    pub fn as_str(&self) -> &str {
        // SAFETY: the remaining bytes are whole characters (the invariant).
        unsafe { str::from_utf8_unchecked(self.bytes.as_slice()) }
    }
}

impl Iterator for Drain<'_, '_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let ch = self.as_str().chars().next()?;
        for _ in 0..ch.len_utf8() {
            self.bytes.next();
        }
        Some(ch)
    }
}

impl DoubleEndedIterator for Drain<'_, '_> {
    fn next_back(&mut self) -> Option<char> {
        let ch = self.as_str().chars().next_back()?;
        for _ in 0..ch.len_utf8() {
            self.bytes.next_back();
        }
        Some(ch)
    }
}

impl core::iter::FusedIterator for Drain<'_, '_> {}

impl Deref for String<'_> {
    type Target = str;

    #[inline(always)]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl DerefMut for String<'_> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut str {
        self.as_mut_str()
    }
}

crate::__str_traits!(String; str, &str);
#[cfg(feature = "alloc")]
crate::__str_traits!(@eq String; alloc::string::String, alloc::borrow::Cow<'_, str>);

impl fmt::Write for String<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.vec.try_reserve(s.len()).map_err(|_| fmt::Error)?;
        self.push_str(s);
        Ok(())
    }

    #[inline]
    fn write_char(&mut self, c: char) -> fmt::Result {
        self.vec.try_reserve(c.len_utf8()).map_err(|_| fmt::Error)?;
        self.push(c);
        Ok(())
    }
}

impl<'c> Extend<&'c str> for String<'_> {
    #[track_caller]
    fn extend<I: IntoIterator<Item = &'c str>>(&mut self, iter: I) {
        for s in iter {
            self.push_str(s);
        }
    }
}

impl Extend<char> for String<'_> {
    #[track_caller]
    fn extend<I: IntoIterator<Item = char>>(&mut self, iter: I) {
        let iter = iter.into_iter();
        self.reserve(iter.size_hint().0);
        for c in iter {
            self.push(c);
        }
    }
}

impl<'c> Extend<&'c char> for String<'_> {
    #[track_caller]
    fn extend<I: IntoIterator<Item = &'c char>>(&mut self, iter: I) {
        self.extend(iter.into_iter().copied())
    }
}

impl<'a> String<'a> {
    /// Collects `iter` (of `char`s or `&str`s) into a new string in `arena`:
    /// [`FromIteratorIn::from_iter_in`], callable without importing the trait (as
    /// bumpalo's inherent `String::from_iter_in`).
    ///
    /// ```
    /// use bumpdown::collections::String;
    /// let arena = bumpdown::Arena::new();
    /// assert_eq!(String::from_iter_in("abc".chars().rev(), &arena), "cba");
    /// assert_eq!(String::from_iter_in(["ab", "cd"], &arena), "abcd");
    /// ```
    #[track_caller]
    pub fn from_iter_in<T, I, A>(iter: I, arena: &'a A) -> Self
    where
        Self: FromIteratorIn<'a, T>,
        I: IntoIterator<Item = T>,
        A: ArenaAllocator + 'a,
    {
        <Self as FromIteratorIn<'a, T>>::from_iter_in(iter, arena)
    }
}

// Slicing a `String` by byte ranges, as a `str` is sliced (and with its panics: a bound
// that is out of range or not on a character boundary). Indexing works through `Deref`
// without these; they are for code generic over `Index<Range<usize>>`.
macro_rules! index_by_range {
    ($($range:ty),*) => {$(
        impl core::ops::Index<$range> for String<'_> {
            type Output = str;

            #[track_caller]
            fn index(&self, range: $range) -> &str {
                &self.as_str()[range]
            }
        }

        impl core::ops::IndexMut<$range> for String<'_> {
            #[track_caller]
            fn index_mut(&mut self, range: $range) -> &mut str {
                &mut self.as_mut_str()[range]
            }
        }
    )*};
}
index_by_range!(
    core::ops::Range<usize>,
    core::ops::RangeFrom<usize>,
    core::ops::RangeTo<usize>,
    core::ops::RangeFull,
    core::ops::RangeInclusive<usize>,
    core::ops::RangeToInclusive<usize>
);

impl<'a> FromIteratorIn<'a, char> for String<'a> {
    #[track_caller]
    fn from_iter_in<I, A>(iter: I, arena: &'a A) -> Self
    where
        I: IntoIterator<Item = char>,
        A: ArenaAllocator + 'a,
    {
        let mut s = String::new_in(arena);
        s.extend(iter);
        s
    }
}

impl<'a, 'c> FromIteratorIn<'a, &'c str> for String<'a> {
    #[track_caller]
    fn from_iter_in<I, A>(iter: I, arena: &'a A) -> Self
    where
        I: IntoIterator<Item = &'c str>,
        A: ArenaAllocator + 'a,
    {
        let mut s = String::new_in(arena);
        s.extend(iter);
        s
    }
}
