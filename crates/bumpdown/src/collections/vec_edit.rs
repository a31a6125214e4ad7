//! `Vec`'s editing methods that take out or merge runs of elements: `dedup` and its
//! forms, `pop_if`, `drain_filter`, `splice`, `extend_from_slices_copy` (bumpalo 3.20's
//! names). Written over `Vec`'s public API, so the one file that touches its fields stays
//! `vec.rs`.

use core::fmt;
use core::ops::RangeBounds;
use core::ptr;

use super::vec::{resolve_range, IntoIter};
use super::Vec;

impl<'a, T> Vec<'a, T> {
    /// Removes every element that `same_bucket` says repeats the element kept before it:
    /// `same_bucket(current, kept)` is called for each element after the first, with the
    /// last element kept so far; `true` removes (drops) `current`. The elements kept stay
    /// in order.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; "a", "A", "b", "B", "b"];
    /// v.dedup_by(|x, y| x.eq_ignore_ascii_case(y));
    /// assert_eq!(v, ["a", "b"]);
    /// ```
    pub fn dedup_by<F: FnMut(&mut T, &mut T) -> bool>(&mut self, mut same_bucket: F) {
        // `kept` elements stay in front, in order; each one kept is swapped forward over
        // the removed ones, which gather behind and are dropped by `truncate` at the end.
        // If `same_bucket` panics, the vector still holds every element (some reordered).
        let mut kept = usize::from(!self.is_empty());
        for next in 1..self.len() {
            let (front, back) = self.split_at_mut(next);
            if !same_bucket(&mut back[0], &mut front[kept - 1]) {
                self.swap(kept, next);
                kept += 1;
            }
        }
        self.truncate(kept);
    }

    /// Removes consecutive elements with the same key, keeping the first of each run.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 10, 11, 20, 21, 22, 30];
    /// v.dedup_by_key(|x| *x / 10);
    /// assert_eq!(v, [10, 20, 30]);
    /// ```
    pub fn dedup_by_key<K: PartialEq, F: FnMut(&mut T) -> K>(&mut self, mut key: F) {
        self.dedup_by(|a, b| key(a) == key(b));
    }

    /// Removes consecutive equal elements, keeping the first of each run.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 1, 2, 1, 1];
    /// v.dedup();
    /// assert_eq!(v, [1, 2, 1]);
    /// ```
    pub fn dedup(&mut self)
    where
        T: PartialEq,
    {
        self.dedup_by(|a, b| a == b);
    }

    /// Removes and returns the last element if `predicate` returns `true` for it.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2, 3];
    /// assert_eq!(v.pop_if(|x| *x == 3), Some(3));
    /// assert_eq!(v.pop_if(|x| *x == 3), None);
    /// assert_eq!(v, [1, 2]);
    /// ```
    pub fn pop_if(&mut self, predicate: impl FnOnce(&mut T) -> bool) -> Option<T> {
        let last = self.last_mut()?;
        if predicate(last) {
            self.pop()
        } else {
            None
        }
    }

    /// Appends the elements of every slice of `slices`, in order, reserving room for all
    /// of them once.
    ///
    /// # Panics
    /// If the total length overflows or the arena fails.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 0u8];
    /// v.extend_from_slices_copy(&[&[1, 2], &[], &[3]]);
    /// assert_eq!(v, [0, 1, 2, 3]);
    /// ```
    #[track_caller]
    pub fn extend_from_slices_copy(&mut self, slices: &[&[T]])
    where
        T: Copy,
    {
        let total = slices.iter().try_fold(0usize, |sum, s| sum.checked_add(s.len()));
        self.reserve(total.expect("extend_from_slices_copy: total length overflows usize"));
        for slice in slices {
            self.extend_from_slice_copy(slice);
        }
    }

    /// An iterator that removes and yields every element for which `filter` returns
    /// `true`, in order; the others stay, in order. Dropping the iterator early keeps
    /// every element it has not looked at yet.
    ///
    /// ```
    /// use bumpdown::collections::{CollectIn, Vec};
    ///
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2, 3, 4, 5, 6];
    /// let evens: Vec<i32> = v.drain_filter(|x| *x % 2 == 0).collect_in(&arena);
    /// assert_eq!((v.as_slice(), evens.as_slice()), (&[1, 3, 5][..], &[2, 4, 6][..]));
    /// ```
    pub fn drain_filter<F: FnMut(&mut T) -> bool>(&mut self, filter: F) -> DrainFilter<'_, 'a, T, F> {
        let old_len = self.len();
        // SAFETY: 0 <= capacity. While the iterator lives the vector claims no element,
        // so forgetting the iterator leaks them instead of exposing moved-out slots; its
        // `Drop` sets the length back.
        unsafe { self.set_len(0) };
        DrainFilter { vec: self, next: 0, removed: 0, old_len, filter }
    }

    /// Replaces the elements in `range` with the items of `replace_with`, and returns the
    /// removed elements. The replacement happens at once (the removed elements are moved
    /// to a new block of the arena first), not when the iterator is dropped as in std.
    ///
    /// # Panics
    /// If the range is decreasing or reaches past the length, or the arena fails.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2, 3, 4];
    /// let removed: std::vec::Vec<i32> = v.splice(1..3, [7, 8, 9]).collect();
    /// assert_eq!((v.as_slice(), removed.as_slice()), (&[1, 7, 8, 9, 4][..], &[2, 3][..]));
    /// ```
    #[track_caller]
    pub fn splice<R, I>(&mut self, range: R, replace_with: I) -> IntoIter<'a, T>
    where
        R: RangeBounds<usize>,
        I: IntoIterator<Item = T>,
    {
        let (start, end) = resolve_range(range, self.len());
        let mut tail = self.split_off(end);
        let removed = self.split_off(start);
        self.extend(replace_with);
        self.append(&mut tail);
        removed.into_iter()
    }
}

/// The iterator of [`Vec::drain_filter`].
pub struct DrainFilter<'v, 'a, T, F: FnMut(&mut T) -> bool> {
    // INVARIANT: the vector's length is 0 while this lives; of its first `old_len` slots,
    // `..next - removed` hold the elements kept so far (moved down, in order),
    // `next - removed..next` are moved out, and `next..old_len` are not looked at yet.
    vec: &'v mut Vec<'a, T>,
    next: usize,
    removed: usize,
    old_len: usize,
    filter: F,
}

impl<T, F: FnMut(&mut T) -> bool> Iterator for DrainFilter<'_, '_, T, F> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        while self.next < self.old_len {
            let base = self.vec.as_mut_ptr();
            // SAFETY: `next < old_len <= capacity`, and slot `next` holds an element not
            // looked at yet (the invariant); nothing else refers to it.
            let current = unsafe { &mut *base.add(self.next) };
            // A panic here leaves `next` on this element: `Drop` keeps it.
            let take = (self.filter)(current);
            self.next += 1;
            if take {
                self.removed += 1;
                // SAFETY: the element is initialized and its slot is now counted as moved
                // out, so it is read exactly once.
                return Some(unsafe { ptr::read(current) });
            }
            if self.removed > 0 {
                // SAFETY: both slots are within the block; the destination slot
                // (`next - 1 - removed`) is a moved-out one, distinct from the source.
                unsafe { ptr::copy_nonoverlapping(current, base.add(self.next - 1 - self.removed), 1) };
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.old_len - self.next))
    }
}

impl<T, F: FnMut(&mut T) -> bool> Drop for DrainFilter<'_, '_, T, F> {
    fn drop(&mut self) {
        let tail = self.old_len - self.next;
        let base = self.vec.as_mut_ptr();
        // SAFETY: the elements not looked at (`next..old_len`) move down over the
        // moved-out slots (`ptr::copy` allows the overlap); the vector then holds the
        // kept elements and those, all initialized.
        unsafe {
            if self.removed > 0 && tail > 0 {
                ptr::copy(base.add(self.next), base.add(self.next - self.removed), tail);
            }
            self.vec.set_len(self.old_len - self.removed);
        }
    }
}

impl<T: fmt::Debug, F: FnMut(&mut T) -> bool> fmt::Debug for DrainFilter<'_, '_, T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DrainFilter").field("looked_at", &self.next).field("removed", &self.removed).finish()
    }
}
