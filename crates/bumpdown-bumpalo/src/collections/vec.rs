//! bumpalo's `collections::vec` module: [`Vec`], a vector in a [`Bump`], and its
//! iterators (bumpdown's own: [`IntoIter`], [`Drain`], [`DrainFilter`]; [`Splice`], the
//! removed elements of [`Vec::splice`] as an `IntoIter` under bumpalo's name).
//!
//! The facade's `Vec` is a `#[repr(transparent)]` wrapper around
//! [`bumpdown::collections::Vec`]: every method forwards to it, inlined, so the code is
//! bumpdown's. It exists for the constructors' signatures: bumpalo's take
//! `&'bump Bump` itself, so a caller's `&T` where `T: Deref<Target = Bump>` is
//! deref-coerced to `&Bump`, which a constructor generic over the arena type cannot
//! offer.

use core::fmt;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut, Index, IndexMut, RangeBounds};
use core::slice::SliceIndex;

pub use bumpdown::collections::vec::{Drain, DrainFilter, IntoIter};
use bumpdown::collections::Vec as ArenaVec;

use super::CollectionAllocErr;
use crate::Bump;

/// A contiguous growable array in a [`Bump`], as bumpalo's `Vec`: it drops its
/// elements when dropped, and gives its buffer back if that is still the arena's newest
/// allocation.
///
/// It dereferences to `[T]`, as bumpalo's does. [`From`] turns it into bumpdown's own
/// [`Vec`](bumpdown::collections::Vec), the type underneath, without a copy.
///
/// ```
/// use bumpdown_bumpalo::collections::Vec;
/// use bumpdown_bumpalo::Bump;
///
/// let bump = Bump::new();
/// let mut v = Vec::new_in(&bump);
/// v.extend([3, 1, 2]);
/// v.sort();
/// assert_eq!(v, [1, 2, 3]);
/// ```
#[repr(transparent)]
pub struct Vec<'bump, T>(ArenaVec<'bump, T>);

impl<'bump, T> Vec<'bump, T> {
    /// An empty vector in `bump`; it allocates nothing until an element is pushed.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let v: bumpdown_bumpalo::collections::Vec<u8> = bumpdown_bumpalo::collections::Vec::new_in(&bump);
    /// assert_eq!((v.len(), v.capacity()), (0, 0));
    /// ```
    #[inline]
    pub fn new_in(bump: &'bump Bump) -> Self {
        Vec(ArenaVec::new_in(bump))
    }

    /// An empty vector with room for at least `capacity` elements.
    ///
    /// # Panics
    /// If the capacity overflows or the arena fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let v = bumpdown_bumpalo::collections::Vec::<u64>::with_capacity_in(10, &bump);
    /// assert!(v.capacity() >= 10);
    /// ```
    #[inline]
    #[track_caller]
    pub fn with_capacity_in(capacity: usize, bump: &'bump Bump) -> Self {
        Vec(ArenaVec::with_capacity_in(capacity, bump))
    }

    /// Like [`with_capacity_in`](Vec::with_capacity_in), returning an error instead of
    /// panicking (bumpdown's; bumpalo has no such constructor).
    ///
    /// ```
    /// use bumpdown_bumpalo::collections::{CollectionAllocErr, Vec};
    ///
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let err = Vec::<u64>::try_with_capacity_in(usize::MAX, &bump).unwrap_err();
    /// assert_eq!(err, CollectionAllocErr::CapacityOverflow);
    /// ```
    #[inline]
    pub fn try_with_capacity_in(capacity: usize, bump: &'bump Bump) -> Result<Self, CollectionAllocErr> {
        Ok(Vec(ArenaVec::try_with_capacity_in(capacity, bump)?))
    }

    /// Collects `iter` into a new vector in `bump`.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let v = bumpdown_bumpalo::collections::Vec::from_iter_in((1..4).map(|x| x * 10), &bump);
    /// assert_eq!(v, [10, 20, 30]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn from_iter_in<I: IntoIterator<Item = T>>(iter: I, bump: &'bump Bump) -> Self {
        Vec(ArenaVec::from_iter_in(iter, bump))
    }

    /// A vector holding the elements of `array`, moved into the arena: what
    /// `vec![in &bump; a, b, c]` expands to (bumpdown's).
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let v = bumpdown_bumpalo::collections::Vec::from_array_in([1, 2], &bump);
    /// assert_eq!(v, [1, 2]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn from_array_in<const N: usize>(array: [T; N], bump: &'bump Bump) -> Self {
        Vec(ArenaVec::from_array_in(array, bump))
    }

    /// A vector of `n` clones of `elem`: what `vec![in &bump; elem; n]` expands to
    /// (bumpdown's).
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let v = bumpdown_bumpalo::collections::Vec::from_elem_in('x', 3, &bump);
    /// assert_eq!(v, ['x'; 3]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn from_elem_in(elem: T, n: usize, bump: &'bump Bump) -> Self
    where
        T: Clone,
    {
        Vec(ArenaVec::from_elem_in(elem, n, bump))
    }

    /// A vector over a block the caller allocated from `bump`.
    ///
    /// # Safety
    /// As for [`bumpdown::collections::Vec::from_raw_parts_in`]: `ptr` is a block of
    /// `bump` allocated for `capacity` elements (`Layout::array::<T>(capacity)`) and
    /// owned by nothing else (or dangling if `capacity` is 0 or `T` is zero-sized), and
    /// its first `length <= capacity` elements are initialized.
    ///
    /// ```
    /// use core::mem::ManuallyDrop;
    /// use bumpdown_bumpalo::collections::Vec;
    ///
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let mut v = ManuallyDrop::new(Vec::from_iter_in([1, 2, 3], &bump));
    /// let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    /// // SAFETY: the parts of a vector of `bump` that is never used again.
    /// let v = unsafe { Vec::from_raw_parts_in(ptr, len, cap, &bump) };
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    #[inline]
    pub unsafe fn from_raw_parts_in(ptr: *mut T, length: usize, capacity: usize, bump: &'bump Bump) -> Self {
        // SAFETY: the caller's promises are the core's.
        Vec(unsafe { ArenaVec::from_raw_parts_in(ptr, length, capacity, bump) })
    }

    /// The [`Bump`] this vector allocates from.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let v = bumpdown_bumpalo::vec![in &bump; 1u8];
    /// assert!(core::ptr::eq(v.bump(), &bump));
    /// ```
    #[inline]
    pub fn bump(&self) -> &'bump Bump {
        // Every constructor takes a `&'bump Bump`, and the inner vector is never
        // handed out mutably, so its arena is a `Bump`: this does not panic.
        self.0.bump()
    }

    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many elements fit without growing.
    #[inline(always)]
    pub fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// Sets the length.
    ///
    /// # Safety
    /// As for [`bumpdown::collections::Vec::set_len`]: `new_len <= capacity()`, and the
    /// first `new_len` elements are initialized.
    #[inline(always)]
    pub unsafe fn set_len(&mut self, new_len: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.set_len(new_len) }
    }

    /// A raw pointer to the buffer.
    #[inline(always)]
    pub fn as_ptr(&self) -> *const T {
        self.0.as_ptr()
    }

    /// A raw mutable pointer to the buffer.
    #[inline(always)]
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.0.as_mut_ptr()
    }

    /// The elements, as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[T] {
        self.0.as_slice()
    }

    /// The elements, as a mutable slice.
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.0.as_mut_slice()
    }

    forward_capacity! {
        /// Makes room for at least `additional` more elements.
        ///
        /// # Panics
        /// If the capacity overflows or the arena fails.
        reserve;
        /// Makes room for exactly `additional` more elements.
        ///
        /// # Panics
        /// If the capacity overflows or the arena fails.
        reserve_exact;
        /// Like [`reserve`](Vec::reserve), returning an error instead of panicking; the
        /// vector is unchanged on error.
        ///
        /// ```
        /// use bumpdown_bumpalo::collections::{CollectionAllocErr, Vec};
        ///
        /// let bump = bumpdown_bumpalo::Bump::new();
        /// let mut v = Vec::from_iter_in([1u32], &bump);
        /// assert_eq!(v.try_reserve(usize::MAX), Err(CollectionAllocErr::CapacityOverflow));
        /// assert_eq!(v.try_reserve(10), Ok(()));
        /// assert!(v.capacity() >= 11);
        /// ```
        try_reserve;
        /// Lowers the capacity to the length, in place.
        shrink_to_fit;
    }

    /// Like [`reserve_exact`](Vec::reserve_exact), returning an error instead of
    /// panicking; the vector is unchanged on error.
    ///
    /// ```
    /// use bumpdown_bumpalo::collections::{CollectionAllocErr, Vec};
    ///
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// bump.set_allocation_limit(Some(0));
    /// let mut v = Vec::<u8>::new_in(&bump);
    /// assert_eq!(v.try_reserve_exact(16), Err(CollectionAllocErr::AllocErr));
    /// ```
    #[inline]
    pub fn try_reserve_exact(&mut self, additional: usize) -> Result<(), CollectionAllocErr> {
        Ok(self.0.try_reserve_exact(additional)?)
    }

    /// Appends an element.
    ///
    /// # Panics
    /// If the capacity cannot grow.
    #[inline(always)]
    #[track_caller]
    pub fn push(&mut self, value: T) {
        self.0.push(value)
    }

    /// Removes the last element and returns it, or `None` if the vector is empty.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        self.0.pop()
    }

    /// Removes the last element if `predicate` accepts it.
    #[inline]
    pub fn pop_if(&mut self, predicate: impl FnOnce(&mut T) -> bool) -> Option<T> {
        self.0.pop_if(predicate)
    }

    /// Inserts `element` at `index`, shifting the later elements right.
    ///
    /// # Panics
    /// If `index > len()`, or the capacity cannot grow.
    #[inline]
    #[track_caller]
    pub fn insert(&mut self, index: usize, element: T) {
        self.0.insert(index, element)
    }

    /// Removes the element at `index`, shifting the later elements left.
    ///
    /// # Panics
    /// If `index >= len()`.
    #[inline]
    #[track_caller]
    pub fn remove(&mut self, index: usize) -> T {
        self.0.remove(index)
    }

    /// Removes the element at `index`, replacing it with the last one.
    ///
    /// # Panics
    /// If `index >= len()`.
    #[inline]
    #[track_caller]
    pub fn swap_remove(&mut self, index: usize) -> T {
        self.0.swap_remove(index)
    }

    /// Keeps the first `len` elements and drops the rest.
    #[inline]
    pub fn truncate(&mut self, len: usize) {
        self.0.truncate(len)
    }

    /// Drops every element; the capacity stays.
    #[inline]
    pub fn clear(&mut self) {
        self.0.clear()
    }

    /// Keeps the elements `f` accepts, in order.
    #[inline]
    pub fn retain<F: FnMut(&T) -> bool>(&mut self, f: F) {
        self.0.retain(f)
    }

    /// Like [`retain`](Vec::retain), with mutable access to each element.
    #[inline]
    pub fn retain_mut<F: FnMut(&mut T) -> bool>(&mut self, f: F) {
        self.0.retain_mut(f)
    }

    /// Removes consecutive elements that `same_bucket` calls equal, keeping the first.
    #[inline]
    pub fn dedup_by<F: FnMut(&mut T, &mut T) -> bool>(&mut self, same_bucket: F) {
        self.0.dedup_by(same_bucket)
    }

    /// Removes consecutive elements with equal keys, keeping the first.
    #[inline]
    pub fn dedup_by_key<F: FnMut(&mut T) -> K, K: PartialEq>(&mut self, key: F) {
        self.0.dedup_by_key(key)
    }

    /// Removes consecutive equal elements, keeping the first.
    #[inline]
    pub fn dedup(&mut self)
    where
        T: PartialEq,
    {
        self.0.dedup()
    }

    /// Removes the elements of `range` and returns them as an iterator.
    ///
    /// # Panics
    /// If the range is decreasing or out of bounds.
    #[inline]
    #[track_caller]
    pub fn drain<R: RangeBounds<usize>>(&mut self, range: R) -> Drain<'_, 'bump, T> {
        self.0.drain(range)
    }

    /// An iterator that removes and yields the elements `filter` accepts.
    #[inline]
    pub fn drain_filter<F: FnMut(&mut T) -> bool>(&mut self, filter: F) -> DrainFilter<'_, 'bump, T, F> {
        self.0.drain_filter(filter)
    }

    /// Replaces the elements of `range` with `replace_with`, returning the removed ones.
    ///
    /// Unlike bumpalo's, the replacement is done at once, not when the [`Splice`] is
    /// dropped (the vector is borrowed until then either way).
    ///
    /// # Panics
    /// If the range is decreasing or out of bounds, or the arena fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let mut v = bumpdown_bumpalo::vec![in &bump; 1, 2, 3, 4];
    /// let removed: Vec<_> = v.splice(1..3, [7, 8, 9]).collect();
    /// assert_eq!((removed, &v[..]), (vec![2, 3], &[1, 7, 8, 9, 4][..]));
    /// ```
    #[inline]
    #[track_caller]
    pub fn splice<R, I>(&mut self, range: R, replace_with: I) -> Splice<'_, 'bump, I::IntoIter>
    where
        R: RangeBounds<usize>,
        I: IntoIterator<Item = T>,
    {
        Splice { removed: self.0.splice(range, replace_with), _borrow: PhantomData }
    }

    /// Appends clones of the elements of `other`.
    #[inline]
    #[track_caller]
    pub fn extend_from_slice(&mut self, other: &[T])
    where
        T: Clone,
    {
        self.0.extend_from_slice(other)
    }

    /// Appends copies of the elements of `other` (one copy of the whole slice).
    #[inline]
    #[track_caller]
    pub fn extend_from_slice_copy(&mut self, other: &[T])
    where
        T: Copy,
    {
        self.0.extend_from_slice_copy(other)
    }

    /// Appends copies of the elements of each slice of `slices`, growing once.
    #[inline]
    #[track_caller]
    pub fn extend_from_slices_copy(&mut self, slices: &[&[T]])
    where
        T: Copy,
    {
        self.0.extend_from_slices_copy(slices)
    }

    /// Sets the length to `new_len`, dropping elements or appending clones of `value`.
    #[inline]
    #[track_caller]
    pub fn resize(&mut self, new_len: usize, value: T)
    where
        T: Clone,
    {
        self.0.resize(new_len, value)
    }

    /// Moves every element of `other` to the end of `self`, leaving `other` empty.
    #[inline]
    #[track_caller]
    pub fn append(&mut self, other: &mut Vec<'_, T>) {
        self.0.append(&mut other.0)
    }

    /// Splits the vector at `at`: `self` keeps `..at`, the returned vector (in the same
    /// arena) holds `at..`.
    ///
    /// # Panics
    /// If `at > len()`.
    #[inline]
    #[track_caller]
    pub fn split_off(&mut self, at: usize) -> Self {
        Vec(self.0.split_off(at))
    }

    /// Turns the vector into a slice that lives as long as the arena borrow, without
    /// copying. The elements are never dropped after this.
    #[inline]
    pub fn into_bump_slice(self) -> &'bump [T] {
        self.0.into_bump_slice()
    }

    /// Like [`into_bump_slice`](Vec::into_bump_slice), mutable.
    #[inline]
    pub fn into_bump_slice_mut(self) -> &'bump mut [T] {
        self.0.into_bump_slice_mut()
    }

    /// Turns the vector into a [`Box`](crate::boxed::Box) of its elements.
    #[cfg(feature = "boxed")]
    #[inline]
    pub fn into_boxed_slice(self) -> crate::boxed::Box<'bump, [T]> {
        crate::boxed::Box::from(self.0.into_boxed_slice())
    }

    /// Views a vector of bumpdown's, whose arena is a `Bump`, as the facade's (for
    /// `String::as_mut_vec`).
    #[inline(always)]
    pub(crate) fn from_inner_mut<'v>(inner: &'v mut ArenaVec<'bump, T>) -> &'v mut Self {
        // SAFETY: `Vec` is `#[repr(transparent)]` over `ArenaVec<'bump, T>`: the same
        // layout and validity, so the pointer is to a valid `Vec`, borrowed uniquely for
        // `'v` as `inner` was.
        unsafe { &mut *(inner as *mut ArenaVec<'bump, T>).cast::<Self>() }
    }

    /// Wraps a vector of bumpdown's whose arena is known to be a `Bump`.
    #[inline(always)]
    pub(crate) fn from_inner(inner: ArenaVec<'bump, T>) -> Self {
        Vec(inner)
    }
}

/// Without a copy: the same buffer, in the same arena.
impl<'bump, T> From<Vec<'bump, T>> for ArenaVec<'bump, T> {
    #[inline]
    fn from(v: Vec<'bump, T>) -> Self {
        v.0
    }
}

/// A vector's elements, boxed: [`Vec::into_boxed_slice`]. (Here rather than in `boxed.rs`,
/// so that `boxed` does not import `collections`, which imports it.)
#[cfg(feature = "boxed")]
impl<'a, T> From<Vec<'a, T>> for crate::boxed::Box<'a, [T]> {
    #[inline]
    fn from(v: Vec<'a, T>) -> Self {
        v.into_boxed_slice()
    }
}

impl<T> Deref for Vec<'_, T> {
    type Target = [T];

    #[inline(always)]
    fn deref(&self) -> &[T] {
        self.0.as_slice()
    }
}

impl<T> DerefMut for Vec<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        self.0.as_mut_slice()
    }
}

impl<T, I: SliceIndex<[T]>> Index<I> for Vec<'_, T> {
    type Output = I::Output;

    #[inline]
    #[track_caller]
    fn index(&self, index: I) -> &I::Output {
        &self.as_slice()[index]
    }
}

impl<T, I: SliceIndex<[T]>> IndexMut<I> for Vec<'_, T> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: I) -> &mut I::Output {
        &mut self.as_mut_slice()[index]
    }
}

bumpdown::__slice_traits!(Vec);
bumpdown::__slice_traits!(Vec eq: [] alloc::vec::Vec<U>;);

impl<T: Clone> Clone for Vec<'_, T> {
    /// A copy in the same arena.
    fn clone(&self) -> Self {
        Vec(self.0.clone())
    }
}

impl<T> Extend<T> for Vec<'_, T> {
    #[inline]
    #[track_caller]
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.0.extend(iter)
    }
}

impl<'x, T: Copy + 'x> Extend<&'x T> for Vec<'_, T> {
    #[inline]
    #[track_caller]
    fn extend<I: IntoIterator<Item = &'x T>>(&mut self, iter: I) {
        self.0.extend(iter)
    }
}

impl<'bump, T> IntoIterator for Vec<'bump, T> {
    type Item = T;
    type IntoIter = IntoIter<'bump, T>;

    /// The elements by value; the buffer goes back to the arena when the iterator drops.
    #[inline]
    fn into_iter(self) -> IntoIter<'bump, T> {
        self.0.into_iter()
    }
}

#[cfg(feature = "std")]
impl std::io::Write for Vec<'_, u8> {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }

    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.0.write_all(buf)
    }

    #[inline]
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(feature = "serde")]
impl<T: serde::Serialize> serde::Serialize for Vec<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// The iterator of [`Vec::splice`]: the removed elements, bumpdown's [`IntoIter`] of
/// them under bumpalo's name and type parameters (`I` is the replacement's iterator,
/// already used up: the replacement is done when `splice` returns).
pub struct Splice<'a, 'bump, I: Iterator + 'a> {
    removed: IntoIter<'bump, I::Item>,
    /// The vector stays borrowed while the `Splice` lives, as in bumpalo; `I` is kept in
    /// the type for its auto traits, as bumpalo's.
    _borrow: PhantomData<(&'a mut (), I)>,
}

impl<I: Iterator> Iterator for Splice<'_, '_, I> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        self.removed.next()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.removed.size_hint()
    }
}

impl<I: Iterator> DoubleEndedIterator for Splice<'_, '_, I> {
    #[inline]
    fn next_back(&mut self) -> Option<I::Item> {
        self.removed.next_back()
    }
}

impl<I: Iterator> ExactSizeIterator for Splice<'_, '_, I> {}

impl<I: Iterator> fmt::Debug for Splice<'_, '_, I>
where
    I::Item: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Splice").field(&self.removed.as_slice()).finish()
    }
}
