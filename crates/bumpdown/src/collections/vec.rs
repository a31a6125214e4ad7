//! `Vec`: a growable array in an arena, with its by-value iterator and `Drain`.

use core::alloc::Layout;
use core::any::TypeId;
use core::fmt;
use core::marker::PhantomData;
use core::mem::{self, ManuallyDrop};
use core::ops::{Bound, Deref, DerefMut, RangeBounds};
use core::ptr::{self, NonNull};
use core::slice;

pub use super::vec_edit::DrainFilter;
use super::{ArenaAllocator, Box, FromIteratorIn};
use crate::error::{alloc_failed, AllocError};

/// A contiguous growable array in an arena, like `std::vec::Vec`. It drops its elements
/// when dropped, and gives its buffer back if it is still the arena's newest allocation.
///
/// ```
/// use bumpdown::collections::Vec;
///
/// let arena = bumpdown::Arena::new();
/// let mut v = Vec::new_in(&arena);
/// v.push(1);
/// v.extend([2, 3, 4]);
/// v.retain(|x| x % 2 == 0);
/// assert_eq!(v, [2, 4]);
/// assert_eq!(v.iter().sum::<i32>(), 6);
/// ```
///
/// `bumpdown::vec!` builds one like `std`'s `vec!`:
///
/// ```
/// let arena = bumpdown::Arena::new();
/// let v = bumpdown::vec![in &arena; 1, 2, 3];
/// let zeros = bumpdown::vec![in &arena; 0u8; 16];
/// assert_eq!((v.len(), zeros.len()), (3, 16));
/// ```
///
/// The vector borrows the arena, so the arena cannot be reset while it lives:
///
/// ```compile_fail
/// let mut arena = bumpdown::Arena::new();
/// let v = bumpdown::vec![in &arena; 1, 2, 3];
/// arena.reset();
/// drop(v);
/// ```
pub struct Vec<'a, T> {
    // INVARIANT: for a zero-sized `T`, `ptr` is dangling and `cap == usize::MAX`.
    // Otherwise either `cap == 0` and `ptr` is dangling, or `ptr` is a live block of
    // `arena` allocated with `Layout::array::<T>(cap)` (so `cap * size_of::<T>()` is at
    // most `isize::MAX`) that this vector alone uses. The first `len <= cap` elements
    // are initialized and owned by the vector.
    ptr: NonNull<T>,
    len: usize,
    cap: usize,
    arena: &'a dyn ArenaAllocator,
    /// The vector owns `T`s (for the drop check).
    _owns: PhantomData<T>,
}

/// The first capacity a vector takes: small elements get a few at once.
const fn min_non_zero_cap(size: usize) -> usize {
    if size == 1 {
        8
    } else if size <= 1024 {
        4
    } else {
        1
    }
}

/// The panic of the plain methods when the capacity cannot be had.
#[cold]
#[inline(never)]
#[track_caller]
fn capacity_failed<T>(cap: usize, err: AllocError) -> ! {
    alloc_failed(cap.saturating_mul(mem::size_of::<T>()), mem::align_of::<T>(), err)
}

/// Copies `n` bytes: inline for up to 16 (two overlapping loads and stores of the
/// largest power of two that fits, as `memcpy` does inside), through `memcpy` above.
/// Appending short pieces (`push_str` of a word) is then a compare and two moves, not a
/// library call. The bytes move as `MaybeUninit`, so padding inside a `T` is fine.
///
/// # Safety
/// As for `ptr::copy_nonoverlapping::<u8>(src, dst, n)`.
#[inline(always)]
unsafe fn copy_bytes(src: *const u8, dst: *mut u8, n: usize) {
    /// Copies `n` (`size_of::<W>() <= n <= 2 * size_of::<W>()`) bytes as two `W`s: the
    /// first and the last `size_of::<W>()` bytes, which overlap or touch.
    ///
    /// # Safety
    /// As for `copy_bytes`, with `n` in that range.
    #[inline(always)]
    unsafe fn two<W>(src: *const u8, dst: *mut u8, n: usize) {
        let w = mem::size_of::<W>();
        // SAFETY: both words lie inside the `n` readable and writable bytes
        // (`w <= n`); unaligned accesses of `MaybeUninit` copy any bytes.
        unsafe {
            let head = src.cast::<mem::MaybeUninit<W>>().read_unaligned();
            let tail = src.add(n - w).cast::<mem::MaybeUninit<W>>().read_unaligned();
            dst.cast::<mem::MaybeUninit<W>>().write_unaligned(head);
            dst.add(n - w).cast::<mem::MaybeUninit<W>>().write_unaligned(tail);
        }
    }

    // SAFETY: each branch calls `two` with `n` in its range, or copies exactly `n`
    // bytes; the caller provides `n` bytes at both ends.
    unsafe {
        match n {
            0 => {}
            1 => dst.cast::<mem::MaybeUninit<u8>>().write(src.cast::<mem::MaybeUninit<u8>>().read()),
            2..=3 => two::<u16>(src, dst, n),
            4..=7 => two::<u32>(src, dst, n),
            8..=16 => two::<u64>(src, dst, n),
            _ => ptr::copy_nonoverlapping(src, dst, n),
        }
    }
}

/// Resolves a range against `len`.
///
/// # Panics
/// If the range is decreasing or reaches past `len`.
#[track_caller]
pub(super) fn resolve_range(range: impl RangeBounds<usize>, len: usize) -> (usize, usize) {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1).expect("range start overflows usize"),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1).expect("range end overflows usize"),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    assert!(start <= end, "range starts at {start} but ends at {end}");
    assert!(end <= len, "range end {end} is out of bounds for length {len}");
    (start, end)
}

impl<'a, T> Vec<'a, T> {
    /// An empty vector in `arena`. It allocates nothing until an element is pushed.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let v: bumpdown::collections::Vec<u32> = bumpdown::collections::Vec::new_in(&arena);
    /// assert_eq!((v.len(), v.capacity()), (0, 0));
    /// ```
    #[inline]
    pub fn new_in<A: ArenaAllocator + 'a>(arena: &'a A) -> Self {
        Vec { ptr: NonNull::dangling(), len: 0, cap: Self::ZST_CAP, arena, _owns: PhantomData }
    }

    /// A vector over a block the caller allocated from `arena`: the inverse of taking a
    /// vector apart into its pointer, length and capacity.
    ///
    /// # Safety
    /// * `ptr` is a block of `arena` allocated for `capacity` elements of `T` (the layout
    ///   `Layout::array::<T>(capacity)`) and owned by nothing else; it may be dangling if
    ///   `capacity` is 0 or `T` is zero-sized;
    /// * `length <= capacity`, and the first `length` elements are initialized.
    ///
    /// The vector then owns the block: it drops the elements and gives the block back.
    ///
    /// ```
    /// use core::mem::ManuallyDrop;
    /// use bumpdown::collections::Vec;
    ///
    /// let arena = bumpdown::Arena::new();
    /// let mut v = ManuallyDrop::new(bumpdown::vec![in &arena; 1, 2, 3]);
    /// let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    /// // SAFETY: the parts of a vector of `arena` that will not be used again.
    /// let v = unsafe { Vec::from_raw_parts_in(ptr, len, cap, &arena) };
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    pub unsafe fn from_raw_parts_in<A: ArenaAllocator + 'a>(
        ptr: *mut T,
        length: usize,
        capacity: usize,
        arena: &'a A,
    ) -> Self {
        debug_assert!(length <= capacity, "from_raw_parts_in: length {length} > capacity {capacity}");
        let cap = if mem::size_of::<T>() == 0 { Self::ZST_CAP } else { capacity };
        let ptr =
            if cap == 0 { NonNull::dangling() } else { NonNull::new(ptr).expect("from_raw_parts_in: null pointer") };
        Vec { ptr, len: length, cap, arena, _owns: PhantomData }
    }

    /// The capacity of an empty vector: unlimited for zero-sized elements, else zero.
    const ZST_CAP: usize = if mem::size_of::<T>() == 0 { usize::MAX } else { 0 };

    /// An empty vector with room for at least `capacity` elements.
    ///
    /// # Panics
    /// If `capacity` elements do not fit in `isize::MAX` bytes or the arena fails; see
    /// [`try_with_capacity_in`](Vec::try_with_capacity_in).
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let v = bumpdown::collections::Vec::<u64>::with_capacity_in(10, &arena);
    /// assert!(v.capacity() >= 10);
    /// ```
    #[inline]
    #[track_caller]
    pub fn with_capacity_in<A: ArenaAllocator + 'a>(capacity: usize, arena: &'a A) -> Self {
        match Self::try_with_capacity_in(capacity, arena) {
            Ok(v) => v,
            Err(err) => capacity_failed::<T>(capacity, err),
        }
    }

    /// Like [`with_capacity_in`](Vec::with_capacity_in), returning an error instead of
    /// panicking.
    ///
    /// ```
    /// use bumpdown::AllocErrorKind;
    /// let arena = bumpdown::Arena::new();
    /// let err = bumpdown::collections::Vec::<u64>::try_with_capacity_in(usize::MAX / 4, &arena).unwrap_err();
    /// assert_eq!(err.kind(), AllocErrorKind::InvalidLayout);
    /// ```
    pub fn try_with_capacity_in<A: ArenaAllocator + 'a>(capacity: usize, arena: &'a A) -> Result<Self, AllocError> {
        let mut v = Self::new_in(arena);
        if capacity > v.cap {
            v.set_capacity(capacity)?;
        }
        Ok(v)
    }

    /// A vector holding the elements of `array`, moved (not cloned) into the arena. What
    /// `bumpdown::vec![in &arena; a, b, c]` expands to.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let v = bumpdown::collections::Vec::from_array_in([1, 2, 3], &arena);
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    #[track_caller]
    pub fn from_array_in<A: ArenaAllocator + 'a, const N: usize>(array: [T; N], arena: &'a A) -> Self {
        let mut v = Self::with_capacity_in(N, arena);
        let array = ManuallyDrop::new(array);
        // SAFETY: the vector has room for `N` elements; the array's elements move into it
        // (the array itself is never dropped), so each is owned once.
        unsafe {
            ptr::copy_nonoverlapping(array.as_ptr(), v.ptr.as_ptr(), N);
            v.set_len(N);
        }
        v
    }

    /// A vector of `n` clones of `elem` (the last one is `elem` itself). What
    /// `bumpdown::vec![in &arena; elem; n]` expands to.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let v = bumpdown::collections::Vec::from_elem_in("ab", 3, &arena);
    /// assert_eq!(v, ["ab"; 3]);
    /// ```
    #[track_caller]
    pub fn from_elem_in<A: ArenaAllocator + 'a>(elem: T, n: usize, arena: &'a A) -> Self
    where
        T: Clone,
    {
        let mut v = Self::with_capacity_in(n, arena);
        v.resize(n, elem);
        v
    }

    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many elements fit without growing.
    #[inline(always)]
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// The arena this vector allocates from.
    pub fn arena(&self) -> &'a dyn ArenaAllocator {
        self.arena
    }

    /// The arena as its own type `A`, if it is an `A` that says so through
    /// [`ArenaAllocator::arena_type_id`] (bumpdown's arena types do not; the bumpalo
    /// facade's `Bump` does, for bumpalo's [`bump`](Vec::bump)).
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let v = bumpdown::vec![in &arena; 1u8];
    /// assert!(v.arena_as::<bumpdown::Arena>().is_none());
    /// ```
    pub fn arena_as<A: ArenaAllocator + 'static>(&self) -> Option<&'a A> {
        if self.arena.arena_type_id() != Some(TypeId::of::<A>()) {
            return None;
        }
        let arena: *const dyn ArenaAllocator = self.arena;
        // SAFETY: `arena_type_id` returned `A`'s id, which the trait's contract allows
        // only for an `A`: the data pointer of `self.arena` points to an `A`, borrowed
        // for `'a` like `self.arena` itself.
        Some(unsafe { &*arena.cast::<A>() })
    }

    /// bumpalo's name: the arena, as the type `A` the caller names (inferred from the
    /// context, as in `fn f<'b>(v: &Vec<'b, u8>) -> &'b Bump { v.bump() }`).
    ///
    /// # Panics
    /// If the arena is not an `A` (see [`arena_as`](Vec::arena_as)).
    #[track_caller]
    pub fn bump<A: ArenaAllocator + 'static>(&self) -> &'a A {
        match self.arena_as() {
            Some(arena) => arena,
            None => panic!("bumpdown: this collection's arena is not a {}", core::any::type_name::<A>()),
        }
    }

    /// Sets the length.
    ///
    /// # Safety
    /// `new_len <= capacity()`, and the first `new_len` elements are initialized; the
    /// elements between the old and new length are now owned by the caller (when
    /// shrinking) or by the vector (when growing).
    #[inline(always)]
    pub unsafe fn set_len(&mut self, new_len: usize) {
        debug_assert!(new_len <= self.cap);
        self.len = new_len;
    }

    /// A raw pointer to the buffer, valid for reads of `len()` elements while the vector
    /// is not changed.
    #[inline(always)]
    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    /// A raw pointer to the buffer, valid for writes of `capacity()` elements while the
    /// vector is not changed.
    #[inline(always)]
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// The elements, as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: the first `len` elements are initialized and owned by the vector.
        unsafe { slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The elements, as a mutable slice.
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`; `&mut self` makes the borrow unique.
        unsafe { slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    // ----- Capacity ----------------------------------------------------------------

    /// The buffer's layout for `cap` elements (known to be valid: the invariant).
    #[inline(always)]
    fn layout_for(cap: usize) -> Layout {
        // SAFETY: only called with a capacity the buffer was allocated with, which
        // formed a valid array layout then.
        unsafe { Layout::from_size_align_unchecked(cap * mem::size_of::<T>(), mem::align_of::<T>()) }
    }

    /// Moves a buffer of `cap` elements to one for exactly `new_cap` (`T` not zero-sized,
    /// `new_cap` at least the number of initialized elements) and returns its pointer.
    ///
    /// The resizing functions take the vector's parts by value and return the new ones:
    /// a vector's own address is then never taken on its way out of `push`, so in a loop
    /// of pushes its fields stay in registers.
    fn resize_buffer(
        arena: &dyn ArenaAllocator,
        ptr: NonNull<T>,
        cap: usize,
        new_cap: usize,
    ) -> Result<NonNull<T>, AllocError> {
        debug_assert!(mem::size_of::<T>() != 0);
        let new_layout = Layout::array::<T>(new_cap).map_err(|_| AllocError::INVALID_LAYOUT)?;
        let new = if cap == 0 {
            arena.allocate(new_layout)?
        } else if new_cap == 0 {
            // SAFETY: the buffer is live with this layout and (the caller says) holds no
            // elements.
            unsafe { arena.deallocate(ptr.cast(), Self::layout_for(cap)) };
            return Ok(NonNull::dangling());
        } else if new_cap > cap {
            // SAFETY: the buffer is a live block of the arena with the old layout; the
            // new one is larger; on success the caller replaces the old pointer.
            unsafe { arena.grow(ptr.cast(), Self::layout_for(cap), new_layout)? }
        } else {
            // SAFETY: as above, with a smaller layout holding all the elements.
            unsafe { arena.shrink(ptr.cast(), Self::layout_for(cap), new_layout)? }
        };
        Ok(new.cast())
    }

    /// Moves the buffer to one for exactly `new_cap >= len` elements (`T` not zero-sized).
    fn set_capacity(&mut self, new_cap: usize) -> Result<(), AllocError> {
        debug_assert!(new_cap >= self.len);
        self.ptr = Self::resize_buffer(self.arena, self.ptr, self.cap, new_cap)?;
        self.cap = new_cap;
        Ok(())
    }

    /// Grows a buffer of `cap` elements holding `len` for `additional` more, at least
    /// doubling; returns the new pointer and capacity. Precondition: `additional > cap -
    /// len`.
    #[cold]
    fn grow_amortized(
        arena: &dyn ArenaAllocator,
        ptr: NonNull<T>,
        len: usize,
        cap: usize,
        additional: usize,
    ) -> Result<(NonNull<T>, usize), AllocError> {
        // Zero-sized `T` has capacity usize::MAX: needing more overflows.
        let required = len.checked_add(additional).ok_or(AllocError::INVALID_LAYOUT)?;
        let new_cap = required.max(cap.saturating_mul(2)).max(min_non_zero_cap(mem::size_of::<T>()));
        Ok((Self::resize_buffer(arena, ptr, cap, new_cap)?, new_cap))
    }

    /// [`grow_amortized`](Vec::grow_amortized), or the panic of the plain methods: the
    /// one way out of `push` and `reserve`.
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn grow_or_panic(
        arena: &dyn ArenaAllocator,
        ptr: NonNull<T>,
        len: usize,
        cap: usize,
        additional: usize,
    ) -> (NonNull<T>, usize) {
        match Self::grow_amortized(arena, ptr, len, cap, additional) {
            Ok(parts) => parts,
            Err(err) => capacity_failed::<T>(len.saturating_add(additional), err),
        }
    }

    /// Grows for exactly `additional` more elements than `len`.
    /// Precondition: `additional > cap - len`.
    #[cold]
    #[inline(never)]
    fn grow_exact(&mut self, additional: usize) -> Result<(), AllocError> {
        let required = self.len.checked_add(additional).ok_or(AllocError::INVALID_LAYOUT)?;
        self.set_capacity(required)
    }

    /// Makes room for at least `additional` more elements (at least doubling the
    /// capacity when it grows, so a run of pushes costs amortized O(1)).
    ///
    /// # Panics
    /// If the new capacity overflows or the arena fails; see
    /// [`try_reserve`](Vec::try_reserve).
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1];
    /// v.reserve(10);
    /// assert!(v.capacity() >= 11);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn reserve(&mut self, additional: usize) {
        if additional > self.cap - self.len {
            (self.ptr, self.cap) = Self::grow_or_panic(self.arena, self.ptr, self.len, self.cap, additional);
        }
    }

    /// Makes room for exactly `additional` more elements.
    ///
    /// # Panics
    /// As [`reserve`](Vec::reserve).
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::collections::Vec::<u32>::new_in(&arena);
    /// v.reserve_exact(3);
    /// assert_eq!(v.capacity(), 3);
    /// ```
    #[track_caller]
    pub fn reserve_exact(&mut self, additional: usize) {
        if let Err(err) = self.try_reserve_exact(additional) {
            capacity_failed::<T>(self.len.saturating_add(additional), err)
        }
    }

    /// Like [`reserve`](Vec::reserve), returning an error instead of panicking; the
    /// vector is unchanged on error.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1u32];
    /// assert!(v.try_reserve(usize::MAX).is_err());
    /// assert_eq!(v, [1]);
    /// ```
    #[inline]
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), AllocError> {
        if additional > self.cap - self.len {
            (self.ptr, self.cap) = Self::grow_amortized(self.arena, self.ptr, self.len, self.cap, additional)?;
            Ok(())
        } else {
            Ok(())
        }
    }

    /// Like [`reserve_exact`](Vec::reserve_exact), returning an error instead of
    /// panicking.
    pub fn try_reserve_exact(&mut self, additional: usize) -> Result<(), AllocError> {
        if additional > self.cap - self.len {
            self.grow_exact(additional)
        } else {
            Ok(())
        }
    }

    /// Lowers the capacity to the length (in place: the arena does not move blocks to
    /// shrink them, and frees the buffer if the vector is empty and it is the newest
    /// allocation).
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::collections::Vec::<u8>::with_capacity_in(100, &arena);
    /// v.push(1);
    /// v.shrink_to_fit();
    /// assert_eq!(v.capacity(), 1);
    /// ```
    pub fn shrink_to_fit(&mut self) {
        if mem::size_of::<T>() != 0 && self.cap > self.len {
            // Shrinking in place cannot fail; if an arena moves the block and fails, the
            // vector keeps its larger buffer, which is as good.
            let _ = self.set_capacity(self.len);
        }
    }

    // ----- Adding and removing -----------------------------------------------------

    /// Appends an element.
    ///
    /// # Panics
    /// If the capacity cannot grow.
    ///
    /// In a loop, `push` of a `u64` compiles to a compare and a store, with the vector's
    /// fields in registers (x86_64, release; the way out passes them by value, so the
    /// vector's address is never taken):
    ///
    /// ```text
    /// cmp  r12, rdx                    ; len == cap?
    /// je   .grow                       ; cold: grow_or_panic(arena, ptr, len, cap, 1)
    /// mov  qword ptr [rsi + 8*r12], rax  ; write the element
    /// inc  r12                         ; len += 1
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn push(&mut self, value: T) {
        if self.len == self.cap {
            (self.ptr, self.cap) = Self::grow_or_panic(self.arena, self.ptr, self.len, self.cap, 1);
        }
        // SAFETY: `len < cap`: the slot is inside the buffer and uninitialized.
        unsafe { self.ptr.as_ptr().add(self.len).write(value) };
        self.len += 1;
    }

    /// Removes and returns the last element.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2];
    /// assert_eq!((v.pop(), v.pop(), v.pop()), (Some(2), Some(1), None));
    /// ```
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        // SAFETY: the element at the old `len - 1` was initialized; it is no longer part
        // of the vector, so it is read (moved out) once.
        Some(unsafe { self.ptr.as_ptr().add(self.len).read() })
    }

    /// Inserts `element` at `index`, shifting the later elements right.
    ///
    /// # Panics
    /// If `index > len`.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 3];
    /// v.insert(1, 2);
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    #[track_caller]
    pub fn insert(&mut self, index: usize, element: T) {
        let len = self.len;
        assert!(index <= len, "insertion index (is {index}) should be <= len (is {len})");
        self.reserve(1);
        // SAFETY: there is room for `len + 1` elements; the elements `index..len` move up
        // by one (overlapping: `ptr::copy`), then the gap is filled.
        unsafe {
            let at = self.ptr.as_ptr().add(index);
            ptr::copy(at, at.add(1), len - index);
            at.write(element);
            self.set_len(len + 1);
        }
    }

    /// Removes and returns the element at `index`, shifting the later elements left.
    ///
    /// # Panics
    /// If `index >= len`.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2, 3];
    /// assert_eq!(v.remove(0), 1);
    /// assert_eq!(v, [2, 3]);
    /// ```
    #[track_caller]
    pub fn remove(&mut self, index: usize) -> T {
        let len = self.len;
        assert!(index < len, "removal index (is {index}) should be < len (is {len})");
        // SAFETY: `index < len`: the element is read out once, then the later ones move
        // down over it and the length drops by one.
        unsafe {
            let at = self.ptr.as_ptr().add(index);
            let value = at.read();
            ptr::copy(at.add(1), at, len - index - 1);
            self.set_len(len - 1);
            value
        }
    }

    /// Removes and returns the element at `index`, replacing it with the last one: O(1),
    /// but the order changes.
    ///
    /// # Panics
    /// If `index >= len`.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2, 3, 4];
    /// assert_eq!(v.swap_remove(0), 1);
    /// assert_eq!(v, [4, 2, 3]);
    /// ```
    #[track_caller]
    pub fn swap_remove(&mut self, index: usize) -> T {
        let len = self.len;
        assert!(index < len, "swap_remove index (is {index}) should be < len (is {len})");
        // SAFETY: `index < len`: the element is read out, the last one moves into its
        // slot (a no-op copy when they are the same), the length drops by one.
        unsafe {
            let base = self.ptr.as_ptr();
            let value = base.add(index).read();
            ptr::copy(base.add(len - 1), base.add(index), 1);
            self.set_len(len - 1);
            value
        }
    }

    /// Shortens the vector to `len` elements, dropping the rest (no effect if it is not
    /// longer).
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2, 3];
    /// v.truncate(1);
    /// assert_eq!(v, [1]);
    /// ```
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        let tail = ptr::slice_from_raw_parts_mut(
            // SAFETY: `len < self.len`, inside the buffer.
            unsafe { self.ptr.as_ptr().add(len) },
            self.len - len,
        );
        // The length drops first: if a destructor panics, the vector no longer owns any
        // of the tail, whose remaining elements `drop_in_place` still drops.
        self.len = len;
        // SAFETY: the tail's elements are initialized and no longer the vector's.
        unsafe { ptr::drop_in_place(tail) };
    }

    /// Drops every element; the capacity stays.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2, 3];
    /// v.clear();
    /// assert!(v.is_empty() && v.capacity() >= 3);
    /// ```
    #[inline]
    pub fn clear(&mut self) {
        self.truncate(0)
    }

    /// Keeps only the elements for which `f` returns true, in order.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2, 3, 4, 5];
    /// v.retain(|&x| x != 3);
    /// assert_eq!(v, [1, 2, 4, 5]);
    /// ```
    pub fn retain<F: FnMut(&T) -> bool>(&mut self, mut f: F) {
        self.retain_mut(|x| f(x))
    }

    /// Like [`retain`](Vec::retain), with mutable access to each element.
    ///
    /// If `f` or a destructor panics, the elements not yet visited stay in the vector and
    /// nothing is dropped twice.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2, 3];
    /// v.retain_mut(|x| { *x *= 10; *x > 10 });
    /// assert_eq!(v, [20, 30]);
    /// ```
    pub fn retain_mut<F: FnMut(&mut T) -> bool>(&mut self, mut f: F) {
        /// Closes the gap left by removed elements, also when unwinding.
        struct Compact<'v, 'a, T> {
            // INVARIANT: `vec.len` is 0 while this lives; the elements `0..processed`
            // minus the `deleted` removed ones are packed at `0..processed - deleted`,
            // the elements `processed..original_len` are untouched and initialized.
            vec: &'v mut Vec<'a, T>,
            processed: usize,
            deleted: usize,
            original_len: usize,
        }

        impl<T> Drop for Compact<'_, '_, T> {
            fn drop(&mut self) {
                let base = self.vec.ptr.as_ptr();
                if self.deleted > 0 {
                    // SAFETY: by the invariant, the unvisited tail moves down over the gap;
                    // both ranges are inside the buffer and `ptr::copy` handles overlap.
                    unsafe {
                        ptr::copy(
                            base.add(self.processed),
                            base.add(self.processed - self.deleted),
                            self.original_len - self.processed,
                        )
                    };
                }
                self.vec.len = self.original_len - self.deleted;
            }
        }

        let original_len = self.len;
        // Until the guard restores it, the vector owns nothing: a panic can never make it
        // drop an element twice.
        self.len = 0;
        let mut g = Compact { vec: self, processed: 0, deleted: 0, original_len };
        while g.processed != original_len {
            // SAFETY: `processed < original_len`: an initialized, unvisited element.
            let cur = unsafe { &mut *g.vec.ptr.as_ptr().add(g.processed) };
            if !f(cur) {
                // Counted as removed before its destructor runs: if that panics, the
                // element is gone (half-dropped) and must not be dropped again.
                g.processed += 1;
                g.deleted += 1;
                // SAFETY: the element is initialized and no longer counted as the vector's.
                unsafe { ptr::drop_in_place(cur) };
                continue;
            }
            if g.deleted > 0 {
                // SAFETY: the kept element moves down into the gap, a distinct slot
                // (`deleted > 0`) inside the buffer.
                unsafe {
                    let base = g.vec.ptr.as_ptr();
                    ptr::copy_nonoverlapping(base.add(g.processed), base.add(g.processed - g.deleted), 1);
                }
            }
            g.processed += 1;
        }
    }

    /// Removes the elements in `range` and returns them as an iterator. Elements the
    /// iterator does not yield are dropped with it; the later elements then move down.
    ///
    /// Forgetting the iterator (`mem::forget`) leaks the removed elements and the ones
    /// after them, which is safe.
    ///
    /// # Panics
    /// If the range is decreasing or reaches past `len`.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2, 3, 4, 5];
    /// let middle: std::vec::Vec<_> = v.drain(1..4).collect();
    /// assert_eq!(middle, [2, 3, 4]);
    /// assert_eq!(v, [1, 5]);
    /// ```
    #[track_caller]
    pub fn drain<R: RangeBounds<usize>>(&mut self, range: R) -> Drain<'_, 'a, T> {
        let len = self.len;
        let (start, end) = resolve_range(range, len);
        // The vector keeps only the head until the drain is dropped: a leaked drain leaks
        // the rest, and never exposes moved-out elements.
        self.len = start;
        Drain { vec: self, next: start, end, tail_start: end, tail_len: len - end }
    }

    /// Appends clones of every element of `other`.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1];
    /// v.extend_from_slice(&[2, 3]);
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    #[track_caller]
    pub fn extend_from_slice(&mut self, other: &[T])
    where
        T: Clone,
    {
        self.reserve(other.len());
        for item in other {
            // SAFETY: reserved above: `len < cap`. The length counts each clone as soon
            // as it is written, so a panicking `clone` leaves a consistent vector.
            unsafe { self.ptr.as_ptr().add(self.len).write(item.clone()) };
            self.len += 1;
        }
    }

    /// Appends a copy of `other` with one `memcpy`: [`extend_from_slice`] for `Copy`
    /// elements, without a loop of clones.
    ///
    /// [`extend_from_slice`]: Vec::extend_from_slice
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::collections::Vec::new_in(&arena);
    /// v.extend_from_slice_copy(b"bytes");
    /// assert_eq!(v, *b"bytes");
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn extend_from_slice_copy(&mut self, other: &[T])
    where
        T: Copy,
    {
        self.reserve(other.len());
        // SAFETY: reserved: room for `other.len()` more elements after `len`; `other`
        // cannot overlap the spare capacity, which nothing else references. The byte
        // count fits in `isize` (the buffer's does).
        unsafe {
            copy_bytes(other.as_ptr().cast(), self.ptr.as_ptr().add(self.len).cast(), mem::size_of_val(other));
            self.len += other.len();
        }
    }

    /// Resizes to `new_len`, filling with clones of `value` or truncating.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1];
    /// v.resize(3, 0);
    /// assert_eq!(v, [1, 0, 0]);
    /// ```
    #[track_caller]
    pub fn resize(&mut self, new_len: usize, value: T)
    where
        T: Clone,
    {
        if new_len <= self.len {
            self.truncate(new_len);
            return;
        }
        self.reserve(new_len - self.len);
        while self.len + 1 < new_len {
            // SAFETY: reserved: `len < cap`; counted at once (see extend_from_slice).
            unsafe { self.ptr.as_ptr().add(self.len).write(value.clone()) };
            self.len += 1;
        }
        // SAFETY: the last slot, `len < new_len <= cap`.
        unsafe { self.ptr.as_ptr().add(self.len).write(value) };
        self.len += 1;
    }

    /// Moves all elements of `other` to the end of this vector, leaving `other` empty.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut a = bumpdown::vec![in &arena; 1];
    /// let mut b = bumpdown::vec![in &arena; 2, 3];
    /// a.append(&mut b);
    /// assert_eq!((a.len(), b.len()), (3, 0));
    /// ```
    #[track_caller]
    pub fn append(&mut self, other: &mut Vec<'_, T>) {
        let n = other.len;
        self.reserve(n);
        // SAFETY: reserved; the elements move (the other vector gives them up by setting
        // its length to 0), and two vectors never share a buffer.
        unsafe {
            ptr::copy_nonoverlapping(other.ptr.as_ptr(), self.ptr.as_ptr().add(self.len), n);
            other.len = 0;
            self.len += n;
        }
    }

    /// Splits off the elements from `at` on into a new vector in the same arena.
    ///
    /// # Panics
    /// If `at > len`.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2, 3];
    /// let tail = v.split_off(1);
    /// assert_eq!((v.as_slice(), tail.as_slice()), (&[1][..], &[2, 3][..]));
    /// ```
    #[track_caller]
    pub fn split_off(&mut self, at: usize) -> Vec<'a, T> {
        let len = self.len;
        assert!(at <= len, "`at` split index (is {at}) should be <= len (is {len})");
        let mut other =
            Vec { ptr: NonNull::dangling(), len: 0, cap: Self::ZST_CAP, arena: self.arena, _owns: PhantomData };
        other.reserve(len - at);
        // SAFETY: the elements `at..len` move to the new buffer and leave this vector.
        unsafe {
            ptr::copy_nonoverlapping(self.ptr.as_ptr().add(at), other.ptr.as_ptr(), len - at);
            self.len = at;
            other.len = len - at;
        }
        other
    }

    // ----- Turning into other things -----------------------------------------------

    /// Turns the vector into a slice that lives as long as the arena borrow, without
    /// copying. The elements are **never dropped** after this (the slice is plain arena
    /// memory, like [`Arena::alloc_slice_copy`](crate::Arena::alloc_slice_copy)'s), and
    /// spare capacity stays unused until the arena is reset.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let v = bumpdown::vec![in &arena; 1, 2, 3];
    /// let s: &[i32] = v.into_bump_slice();
    /// assert_eq!(s, [1, 2, 3]);
    /// ```
    pub fn into_bump_slice(self) -> &'a [T] {
        self.into_bump_slice_mut()
    }

    /// Like [`into_bump_slice`](Vec::into_bump_slice), mutable.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let v = bumpdown::vec![in &arena; 1, 2, 3];
    /// let s = v.into_bump_slice_mut();
    /// s[0] = 9;
    /// assert_eq!(s, [9, 2, 3]);
    /// ```
    pub fn into_bump_slice_mut(self) -> &'a mut [T] {
        let v = ManuallyDrop::new(self);
        // SAFETY: the vector is never dropped, so its `len` elements stay initialized in
        // a block that the arena keeps until the borrow `'a` ends, and no one else uses.
        unsafe { slice::from_raw_parts_mut(v.ptr.as_ptr(), v.len) }
    }

    /// Turns the vector into a [`Box`] of its elements (which the box drops); spare
    /// capacity stays unused until the arena is reset.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let b = bumpdown::vec![in &arena; 1, 2].into_boxed_slice();
    /// assert_eq!(&*b, [1, 2]);
    /// ```
    pub fn into_boxed_slice(self) -> Box<'a, [T]> {
        let slice = self.into_bump_slice_mut();
        // SAFETY: the elements are initialized, owned by nobody else (the vector was
        // forgotten), and stay valid for `'a`.
        unsafe { Box::from_raw(slice) }
    }
}

impl<T> Drop for Vec<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the first `len` elements are initialized and the vector's. If one of
        // their destructors panics, `drop_in_place` still drops the others, and the
        // buffer is left to the arena (it is reclaimed at reset).
        unsafe { ptr::drop_in_place(self.as_mut_slice()) };
        if mem::size_of::<T>() != 0 && self.cap != 0 {
            // SAFETY: the buffer is a live block of the arena with this layout, not used
            // again.
            unsafe { self.arena.deallocate(self.ptr.cast(), Self::layout_for(self.cap)) };
        }
    }
}

impl<T> Deref for Vec<'_, T> {
    type Target = [T];

    #[inline(always)]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> DerefMut for Vec<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

crate::__slice_traits!(Vec);
#[cfg(feature = "alloc")]
crate::__slice_traits!(Vec eq: [] alloc::vec::Vec<U>;);

impl<T: Clone> Clone for Vec<'_, T> {
    /// A copy in the same arena.
    fn clone(&self) -> Self {
        let mut v = Vec { ptr: NonNull::dangling(), len: 0, cap: Self::ZST_CAP, arena: self.arena, _owns: PhantomData };
        v.extend_from_slice(self);
        v
    }
}

impl<T> Extend<T> for Vec<'_, T> {
    #[track_caller]
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        let iter = iter.into_iter();
        self.reserve(iter.size_hint().0);
        for item in iter {
            self.push(item);
        }
    }
}

impl<'x, T: Copy + 'x> Extend<&'x T> for Vec<'_, T> {
    #[track_caller]
    fn extend<I: IntoIterator<Item = &'x T>>(&mut self, iter: I) {
        self.extend(iter.into_iter().copied())
    }
}

impl<'a, T> Vec<'a, T> {
    /// Collects `iter` into a new vector in `arena`: [`FromIteratorIn::from_iter_in`],
    /// callable without importing the trait (as bumpalo's inherent `Vec::from_iter_in`).
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let v = bumpdown::collections::Vec::from_iter_in((1..4).map(|x| x * 10), &arena);
    /// assert_eq!(v, [10, 20, 30]);
    /// ```
    #[track_caller]
    pub fn from_iter_in<I, A>(iter: I, arena: &'a A) -> Self
    where
        I: IntoIterator<Item = T>,
        A: ArenaAllocator + 'a,
    {
        <Self as FromIteratorIn<'a, T>>::from_iter_in(iter, arena)
    }
}

impl<'a, T> FromIteratorIn<'a, T> for Vec<'a, T> {
    #[track_caller]
    fn from_iter_in<I, A>(iter: I, arena: &'a A) -> Self
    where
        I: IntoIterator<Item = T>,
        A: ArenaAllocator + 'a,
    {
        let mut v = Vec::new_in(arena);
        v.extend(iter);
        v
    }
}

impl<'a, T> IntoIterator for Vec<'a, T> {
    type Item = T;
    type IntoIter = IntoIter<'a, T>;

    /// The elements by value; the buffer goes back to the arena when the iterator drops.
    fn into_iter(self) -> IntoIter<'a, T> {
        let v = ManuallyDrop::new(self);
        IntoIter { ptr: v.ptr, cap: v.cap, next: 0, end: v.len, arena: v.arena, _owns: PhantomData }
    }
}

#[cfg(feature = "std")]
impl std::io::Write for Vec<'_, u8> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.try_reserve(buf.len()).map_err(|_| std::io::ErrorKind::OutOfMemory)?;
        self.extend_from_slice_copy(buf);
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The by-value iterator of a [`Vec`]: `vec.into_iter()`.
///
/// ```
/// let arena = bumpdown::Arena::new();
/// let v = bumpdown::vec![in &arena; 1, 2, 3];
/// let mut it = v.into_iter();
/// assert_eq!((it.next(), it.next_back(), it.len()), (Some(1), Some(3), 1));
/// ```
pub struct IntoIter<'a, T> {
    // INVARIANT: `ptr` and `cap` are the vector's buffer (see `Vec`); the elements
    // `next..end` are initialized and owned by the iterator, the others are not.
    ptr: NonNull<T>,
    cap: usize,
    next: usize,
    end: usize,
    arena: &'a dyn ArenaAllocator,
    _owns: PhantomData<T>,
}

impl<T> IntoIter<'_, T> {
    /// The elements not yet yielded.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `next..end` are initialized and owned by the iterator.
        unsafe { slice::from_raw_parts(self.ptr.as_ptr().add(self.next), self.end - self.next) }
    }

    /// The elements not yet yielded, mutably.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut it = bumpdown::vec![in &arena; 1, 2, 3].into_iter();
    /// it.next();
    /// it.as_mut_slice()[0] = 20;
    /// assert_eq!(it.collect::<Vec<_>>(), [20, 3]);
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: `next..end` are initialized and owned by the iterator, borrowed
        // mutably through `self`.
        unsafe { slice::from_raw_parts_mut(self.ptr.as_ptr().add(self.next), self.end - self.next) }
    }
}

impl<T> Iterator for IntoIter<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.next == self.end {
            return None;
        }
        self.next += 1;
        // SAFETY: the element at the old `next` was owned by the iterator; it leaves the
        // owned range before being read, so it is moved out once.
        Some(unsafe { self.ptr.as_ptr().add(self.next - 1).read() })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.next;
        (n, Some(n))
    }
}

impl<T> DoubleEndedIterator for IntoIter<'_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        if self.next == self.end {
            return None;
        }
        self.end -= 1;
        // SAFETY: as in `next`, from the other end.
        Some(unsafe { self.ptr.as_ptr().add(self.end).read() })
    }
}

impl<T> ExactSizeIterator for IntoIter<'_, T> {}
impl<T> core::iter::FusedIterator for IntoIter<'_, T> {}

impl<T: fmt::Debug> fmt::Debug for IntoIter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("IntoIter").field(&self.as_slice()).finish()
    }
}

impl<T> Drop for IntoIter<'_, T> {
    fn drop(&mut self) {
        let rest = ptr::slice_from_raw_parts_mut(
            // SAFETY: `next <= end <= cap`: inside (or one past) the buffer.
            unsafe { self.ptr.as_ptr().add(self.next) },
            self.end - self.next,
        );
        self.next = self.end;
        // SAFETY: the remaining elements are initialized and owned by the iterator.
        unsafe { ptr::drop_in_place(rest) };
        if mem::size_of::<T>() != 0 && self.cap != 0 {
            // SAFETY: the vector's buffer, with its layout, no longer used.
            unsafe { self.arena.deallocate(self.ptr.cast(), Vec::<T>::layout_for(self.cap)) };
        }
    }
}

/// The iterator of [`Vec::drain`].
pub struct Drain<'v, 'a, T> {
    // INVARIANT: `vec.len` is the drain's start; the elements `next..end` are initialized
    // and owned by the drain; `tail_start..tail_start + tail_len` are the elements after
    // the drained range, still owned by nobody but to be given back to the vector.
    vec: &'v mut Vec<'a, T>,
    next: usize,
    end: usize,
    tail_start: usize,
    tail_len: usize,
}

impl<T> Drain<'_, '_, T> {
    /// The elements not yet yielded.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let mut v = bumpdown::vec![in &arena; 1, 2, 3];
    /// let mut d = v.drain(..);
    /// d.next();
    /// assert_eq!(d.as_slice(), [2, 3]);
    /// ```
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `next..end` are initialized and owned by the drain.
        unsafe { slice::from_raw_parts(self.vec.ptr.as_ptr().add(self.next), self.end - self.next) }
    }
}

impl<T> Iterator for Drain<'_, '_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.next == self.end {
            return None;
        }
        self.next += 1;
        // SAFETY: the element leaves the drain's range before it is read: moved out once.
        Some(unsafe { self.vec.ptr.as_ptr().add(self.next - 1).read() })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.next;
        (n, Some(n))
    }
}

impl<T> DoubleEndedIterator for Drain<'_, '_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        if self.next == self.end {
            return None;
        }
        self.end -= 1;
        // SAFETY: as in `next`, from the other end.
        Some(unsafe { self.vec.ptr.as_ptr().add(self.end).read() })
    }
}

impl<T> ExactSizeIterator for Drain<'_, '_, T> {}
impl<T> core::iter::FusedIterator for Drain<'_, '_, T> {}

impl<T: fmt::Debug> fmt::Debug for Drain<'_, '_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Drain").field(&self.as_slice()).finish()
    }
}

impl<T> Drop for Drain<'_, '_, T> {
    fn drop(&mut self) {
        /// Moves the tail back after the drain's start, also when a destructor of a
        /// drained element panics.
        struct MoveTail<'d, 'v, 'a, T>(&'d mut Drain<'v, 'a, T>);

        impl<T> Drop for MoveTail<'_, '_, '_, T> {
            fn drop(&mut self) {
                let d = &mut *self.0;
                let start = d.vec.len;
                let base = d.vec.ptr.as_ptr();
                // SAFETY: the tail is initialized; it moves down to `start <= tail_start`,
                // inside the buffer (`ptr::copy` handles overlap), and the vector owns it
                // again.
                unsafe { ptr::copy(base.add(d.tail_start), base.add(start), d.tail_len) };
                d.vec.len = start + d.tail_len;
            }
        }

        let guard = MoveTail(self);
        let d = &mut *guard.0;
        let rest = ptr::slice_from_raw_parts_mut(
            // SAFETY: `next <= end <= cap`.
            unsafe { d.vec.ptr.as_ptr().add(d.next) },
            d.end - d.next,
        );
        d.next = d.end;
        // SAFETY: the elements not yielded are initialized and owned by the drain.
        unsafe { ptr::drop_in_place(rest) };
        drop(guard);
    }
}
