//! The typed allocation API shared by every arena type: values, slices, strings,
//! iterators, layouts.
//!
//! Every method is a thin front door over two fast paths (`bump_value` for sizes known
//! at compile time, `bump_array` for lengths known at run time) and the one slow path.
//! Plain methods panic through `alloc_failed`; `try_` methods return the `AllocError`.
//!
//! The API's bodies are ordinary generic code, the provided methods of
//! [`Engine`](crate::engine::Engine) (`engine.rs`): each takes and returns raw blocks
//! (`alloc_value`, `value_block`, `init_array`, `copy_array`, `collect_array`, `format`,
//! `zeroed_layout_block`), over the two fast paths and the slow path, for both bump
//! directions. This file only gives those blocks a lifetime: the macro `alloc_api!`
//! stamps the public signatures, their docs and a short body into each face's
//! inherent impl, so that `arena.alloc(x)` needs no trait import. The macro's argument
//! is the lifetime of what it hands out: the borrow of the face (`'_`) for `Arena`, the
//! scope's brand for `Scope`; [`hand_out`] is the one place that lifetime is given.

// Handing out `&mut` to fresh, disjoint blocks from `&self` is what an arena is for.
#![allow(clippy::mut_from_ref)]

/// What `alloc_api!` refers to, for the modules that invoke it.
pub(crate) mod prelude {
    pub(crate) use super::{hand_out, hand_out_slice, unwrap_or_fail};
    pub(crate) use crate::engine::{formatted_len, Cursor, Engine};
    pub(crate) use crate::error::{alloc_failed, AllocError};
    pub(crate) use core::alloc::Layout;
    pub(crate) use core::mem::{align_of, size_of, MaybeUninit};
    pub(crate) use core::ptr::NonNull;
}
use prelude::*;

/// The deliberate slowdown of the benchmark's self-test (`--cfg bumpdown_slow_alloc`,
/// never in a normal build): about a hundred cycles of busy work at the top of every
/// `alloc`, so that `bumpdown-bench compare` must flag the rows that call it
/// (`crates/bumpdown-bench/tests/slowdown.rs`).
#[cfg(bumpdown_slow_alloc)]
#[inline(never)]
pub(crate) fn planted_slowdown() {
    for i in 0..64u32 {
        core::hint::black_box(i);
    }
}

macro_rules! alloc_api {
    ($ret:lifetime) => {
    /// Moves `val` into the arena and returns a reference to it. It is never dropped.
    ///
    /// # Panics
    /// If the backing allocator fails or the allocation limit is reached.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let point = arena.alloc((1.0, 2.0));
    /// point.0 += 1.0;
    /// assert_eq!(*point, (2.0, 2.0));
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn alloc<T>(&self, val: T) -> &$ret mut T {
        #[cfg(bumpdown_slow_alloc)]
        $crate::alloc_api::planted_slowdown();
        // SAFETY: a fresh block holding `val` (`Engine::alloc_value`).
        unsafe { hand_out(Engine::alloc_value(self, val)) }
    }

    /// Like [`alloc`](Self::alloc), returning an error instead of panicking (`val` is
    /// dropped then).
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// assert_eq!(*arena.try_alloc(5u16).unwrap(), 5);
    /// ```
    #[inline(always)]
    pub fn try_alloc<T>(&self, val: T) -> Result<&$ret mut T, AllocError> {
        self.try_alloc_with(|| val)
    }

    /// Allocates room for a `T`, then calls `f` to write it in place: large values need
    /// not be built on the stack first. `f` may itself allocate from this arena.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let big = arena.alloc_with(|| [7u8; 4096]);
    /// assert_eq!(big[4095], 7);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn alloc_with<T, F: FnOnce() -> T>(&self, f: F) -> &$ret mut T {
        let p = Engine::value_block::<T>(self);
        // SAFETY: a fresh block for one `T`; `f` may allocate, but the block is already
        // taken. Once written, it holds a `T`.
        unsafe {
            p.as_ptr().write(f());
            hand_out(p)
        }
    }

    /// Like [`alloc_with`](Self::alloc_with), returning an error instead of panicking
    /// (`f` is not called then).
    #[inline(always)]
    pub fn try_alloc_with<T, F: FnOnce() -> T>(&self, f: F) -> Result<&$ret mut T, AllocError> {
        let p = Engine::try_value_block::<T>(self)?;
        // SAFETY: as in `alloc_with`.
        unsafe {
            p.as_ptr().write(f());
            Ok(hand_out(p))
        }
    }

    /// Allocates room for a `T` and leaves it uninitialized: for values built in place
    /// (`MaybeUninit::write`, or field by field through raw pointers). It is never
    /// dropped.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let slot = arena.alloc_uninit::<[u64; 4]>();
    /// let value = slot.write([1, 2, 3, 4]);
    /// assert_eq!(value[3], 4);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn alloc_uninit<T>(&self) -> &$ret mut MaybeUninit<T> {
        // SAFETY: a fresh block for a `T` (dangling for a zero-sized `T`), which
        // `MaybeUninit` needs no initialization to view.
        unsafe { hand_out(Engine::value_block::<T>(self).cast::<MaybeUninit<T>>()) }
    }

    /// Like [`alloc_uninit`](Self::alloc_uninit), returning an error instead of
    /// panicking.
    #[inline(always)]
    pub fn try_alloc_uninit<T>(&self) -> Result<&$ret mut MaybeUninit<T>, AllocError> {
        // SAFETY: as in `alloc_uninit`.
        Ok(unsafe { hand_out(Engine::try_value_block::<T>(self)?.cast::<MaybeUninit<T>>()) })
    }

    /// Allocates room for `len` elements of `T`, uninitialized.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let slots = arena.alloc_uninit_slice::<u32>(3);
    /// for (i, slot) in slots.iter_mut().enumerate() {
    ///     slot.write(i as u32 * 10);
    /// }
    /// // SAFETY: every element was written above.
    /// let values = unsafe { &*(slots as *const [_] as *const [u32]) };
    /// assert_eq!(values, &[0, 10, 20]);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn alloc_uninit_slice<T>(&self, len: usize) -> &$ret mut [MaybeUninit<T>] {
        unwrap_or_fail::<T, _>(self.try_alloc_uninit_slice(len), len)
    }

    /// Like [`alloc_uninit_slice`](Self::alloc_uninit_slice), returning an error instead
    /// of panicking.
    #[inline(always)]
    pub fn try_alloc_uninit_slice<T>(&self, len: usize) -> Result<&$ret mut [MaybeUninit<T>], AllocError> {
        let p = Engine::alloc_array::<T>(self, len)?;
        // SAFETY: a fresh block for `len` elements (dangling for a zero-sized `T`), which
        // `MaybeUninit` needs no initialization to view.
        Ok(unsafe { hand_out_slice(p.cast::<MaybeUninit<T>>(), len) })
    }

    /// Allocates room for `len` elements of `T` with every byte zero. Whether all-zero
    /// bytes are a valid `T` is the caller's to know, hence `MaybeUninit`: for integers,
    /// floats and raw pointers it is, and `assume_init` is sound.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let zeros = arena.alloc_zeroed_slice::<u64>(100);
    /// // SAFETY: zero bytes are a valid `u64`.
    /// let zeros = unsafe { &*(zeros as *const [_] as *const [u64]) };
    /// assert!(zeros.iter().all(|&x| x == 0));
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_zeroed_slice<T>(&self, len: usize) -> &$ret mut [MaybeUninit<T>] {
        unwrap_or_fail::<T, _>(self.try_alloc_zeroed_slice(len), len)
    }

    /// Like [`alloc_zeroed_slice`](Self::alloc_zeroed_slice), returning an error
    /// instead of panicking.
    #[inline]
    pub fn try_alloc_zeroed_slice<T>(&self, len: usize) -> Result<&$ret mut [MaybeUninit<T>], AllocError> {
        let slice = self.try_alloc_uninit_slice::<T>(len)?;
        // SAFETY: the slice's own `len * size_of::<T>()` bytes (it was allocated, so the
        // product did not overflow); any bytes are a valid `MaybeUninit<T>`.
        unsafe { slice.as_mut_ptr().write_bytes(0, len) };
        Ok(slice)
    }

    /// Formats into the arena and returns the text: `format!` without a `String`, for
    /// `no_std` arenas too. The arguments are formatted twice (once to measure, once to
    /// write), so `Display` implementations must print the same thing both times.
    ///
    /// # Panics
    /// If the arena cannot hold the text, or a `Display` implementation fails or prints
    /// something else the second time.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let s = arena.alloc_fmt(format_args!("{}-{:03}", "id", 7));
    /// assert_eq!(s, "id-007");
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_fmt(&self, args: core::fmt::Arguments<'_>) -> &$ret mut str {
        match self.try_alloc_fmt(args) {
            Ok(s) => s,
            Err(err) => alloc_failed(formatted_len(args).unwrap_or(usize::MAX), 1, err),
        }
    }

    /// Like [`alloc_fmt`](Self::alloc_fmt), returning an error instead of panicking
    /// when the arena cannot hold the text.
    ///
    /// # Panics
    /// If a `Display` implementation fails or prints something else the second time.
    #[inline]
    pub fn try_alloc_fmt(&self, args: core::fmt::Arguments<'_>) -> Result<&$ret mut str, AllocError> {
        let (p, len) = Engine::format(self, args)?;
        // SAFETY: `Engine::format` filled the fresh block with `len` bytes of UTF-8.
        Ok(unsafe { core::str::from_utf8_unchecked_mut(hand_out_slice(p, len)) })
    }

    /// Runs `init` on a fresh array of `len` uninitialized `T` and returns it as
    /// initialized. `init` must initialize every element (or panic).
    #[inline(always)]
    fn try_alloc_slice_init<T>(
        &self,
        len: usize,
        init: impl FnOnce(&mut [MaybeUninit<T>]),
    ) -> Result<&$ret mut [T], AllocError> {
        let p = Engine::init_array(self, len, init)?;
        // SAFETY: `init` initialized every element (callers below do so on every path
        // that returns; on a panic this is never reached, and the written elements leak).
        Ok(unsafe { hand_out_slice(p, len) })
    }

    /// Copies a slice into the arena.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let s = arena.alloc_slice_copy(&[1u32, 2, 3]);
    /// s[0] = 9;
    /// assert_eq!(s, &[9, 2, 3]);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn alloc_slice_copy<T: Copy>(&self, src: &[T]) -> &$ret mut [T] {
        unwrap_or_fail::<T, _>(self.try_alloc_slice_copy(src), src.len())
    }

    /// Like [`alloc_slice_copy`](Self::alloc_slice_copy), returning an error instead of
    /// panicking.
    #[inline(always)]
    pub fn try_alloc_slice_copy<T: Copy>(&self, src: &[T]) -> Result<&$ret mut [T], AllocError> {
        let p = Engine::copy_array(self, src)?;
        // SAFETY: a fresh block holding a copy of `src`.
        Ok(unsafe { hand_out_slice(p, src.len()) })
    }

    /// Clones each element of a slice into the arena.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let words = arena.alloc_slice_clone(&[Some("a"), None]);
    /// assert_eq!(words, &[Some("a"), None]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_clone<T: Clone>(&self, src: &[T]) -> &$ret mut [T] {
        unwrap_or_fail::<T, _>(self.try_alloc_slice_clone(src), src.len())
    }

    /// Like [`alloc_slice_clone`](Self::alloc_slice_clone), returning an error instead
    /// of panicking.
    #[inline]
    pub fn try_alloc_slice_clone<T: Clone>(&self, src: &[T]) -> Result<&$ret mut [T], AllocError> {
        self.try_alloc_slice_init(src.len(), |dst| {
            for (d, s) in dst.iter_mut().zip(src) {
                d.write(s.clone());
            }
        })
    }

    /// Allocates a slice of `len` copies of `value`.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// assert_eq!(arena.alloc_slice_fill_copy(3, 7u8), &[7, 7, 7]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_fill_copy<T: Copy>(&self, len: usize, value: T) -> &$ret mut [T] {
        unwrap_or_fail::<T, _>(self.try_alloc_slice_fill_copy(len, value), len)
    }

    /// Like [`alloc_slice_fill_copy`](Self::alloc_slice_fill_copy), returning an error
    /// instead of panicking.
    #[inline]
    pub fn try_alloc_slice_fill_copy<T: Copy>(&self, len: usize, value: T) -> Result<&$ret mut [T], AllocError> {
        self.try_alloc_slice_init(len, |dst| dst.fill(MaybeUninit::new(value)))
    }

    /// Allocates a slice of `len` clones of `value`.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let v = arena.alloc_slice_fill_clone(2, &Some("x"));
    /// assert_eq!(v, &[Some("x"), Some("x")]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_fill_clone<T: Clone>(&self, len: usize, value: &T) -> &$ret mut [T] {
        unwrap_or_fail::<T, _>(self.try_alloc_slice_fill_clone(len, value), len)
    }

    /// Like [`alloc_slice_fill_clone`](Self::alloc_slice_fill_clone), returning an error
    /// instead of panicking.
    #[inline]
    pub fn try_alloc_slice_fill_clone<T: Clone>(&self, len: usize, value: &T) -> Result<&$ret mut [T], AllocError> {
        self.try_alloc_slice_init(len, |dst| {
            for d in dst {
                d.write(value.clone());
            }
        })
    }

    /// Allocates a slice of `len` elements, element `i` being `f(i)`.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// assert_eq!(arena.alloc_slice_fill_with(4, |i| i * i), &[0, 1, 4, 9]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_fill_with<T, F: FnMut(usize) -> T>(&self, len: usize, f: F) -> &$ret mut [T] {
        unwrap_or_fail::<T, _>(self.try_alloc_slice_fill_with(len, f), len)
    }

    /// Like [`alloc_slice_fill_with`](Self::alloc_slice_fill_with), returning an error
    /// instead of panicking.
    #[inline]
    pub fn try_alloc_slice_fill_with<T, F: FnMut(usize) -> T>(
        &self,
        len: usize,
        mut f: F,
    ) -> Result<&$ret mut [T], AllocError> {
        self.try_alloc_slice_init(len, |dst| {
            for (i, d) in dst.iter_mut().enumerate() {
                d.write(f(i));
            }
        })
    }

    /// Allocates a slice of `len` default values.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// assert_eq!(arena.alloc_slice_fill_default::<u8>(2), &[0, 0]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_fill_default<T: Default>(&self, len: usize) -> &$ret mut [T] {
        unwrap_or_fail::<T, _>(self.try_alloc_slice_fill_default(len), len)
    }

    /// Like [`alloc_slice_fill_default`](Self::alloc_slice_fill_default), returning an
    /// error instead of panicking.
    #[inline]
    pub fn try_alloc_slice_fill_default<T: Default>(&self, len: usize) -> Result<&$ret mut [T], AllocError> {
        self.try_alloc_slice_fill_with(len, |_| T::default())
    }

    /// Allocates a slice from an iterator that knows its length.
    ///
    /// # Panics
    /// If the iterator yields fewer items than its `len()` said (extra items are not
    /// taken), or the allocation fails.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// assert_eq!(arena.alloc_slice_fill_iter([1, 2, 3].map(|x| x * 10)), &[10, 20, 30]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_fill_iter<T, I>(&self, iter: I) -> &$ret mut [T]
    where
        I: IntoIterator<Item = T>,
        I::IntoIter: ExactSizeIterator,
    {
        let iter = iter.into_iter();
        let len = iter.len();
        unwrap_or_fail::<T, _>(self.try_alloc_slice_fill_iter(iter), len)
    }

    /// Like [`alloc_slice_fill_iter`](Self::alloc_slice_fill_iter), returning an error
    /// instead of panicking when the allocation fails.
    #[inline]
    pub fn try_alloc_slice_fill_iter<T, I>(&self, iter: I) -> Result<&$ret mut [T], AllocError>
    where
        I: IntoIterator<Item = T>,
        I::IntoIter: ExactSizeIterator,
    {
        let mut iter = iter.into_iter();
        self.try_alloc_slice_fill_with(iter.len(), |_| {
            iter.next().expect("bumpdown: the iterator yielded fewer items than its len()")
        })
    }

    /// Allocates a slice from any iterator, growing it as items come. The iterator may
    /// itself allocate from this arena.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let evens = arena.alloc_iter((0..10).filter(|x| x % 2 == 0));
    /// assert_eq!(evens, &[0, 2, 4, 6, 8]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_iter<T, I: IntoIterator<Item = T>>(&self, iter: I) -> &$ret mut [T] {
        unwrap_or_fail::<T, _>(self.try_alloc_iter(iter), usize::MAX)
    }

    /// Like [`alloc_iter`](Self::alloc_iter), returning an error instead of panicking.
    /// Items already taken from the iterator are leaked on error.
    pub fn try_alloc_iter<T, I: IntoIterator<Item = T>>(&self, iter: I) -> Result<&$ret mut [T], AllocError> {
        let (p, len) = Engine::collect_array(self, iter.into_iter())?;
        // SAFETY: a block holding the `len` items collected.
        Ok(unsafe { hand_out_slice(p, len) })
    }

    /// Copies a string into the arena.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let s = arena.alloc_str("hello");
    /// s.make_ascii_uppercase();
    /// assert_eq!(s, "HELLO");
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn alloc_str(&self, src: &str) -> &$ret mut str {
        let bytes = self.alloc_slice_copy(src.as_bytes());
        // SAFETY: a byte-for-byte copy of a `str`.
        unsafe { core::str::from_utf8_unchecked_mut(bytes) }
    }

    /// Like [`alloc_str`](Self::alloc_str), returning an error instead of panicking.
    #[inline(always)]
    pub fn try_alloc_str(&self, src: &str) -> Result<&$ret mut str, AllocError> {
        let bytes = self.try_alloc_slice_copy(src.as_bytes())?;
        // SAFETY: a byte-for-byte copy of a `str`.
        Ok(unsafe { core::str::from_utf8_unchecked_mut(bytes) })
    }

    /// Allocates a block for `layout`. The block is uninitialized and lives as long as
    /// the arena (until `reset`).
    ///
    /// ```
    /// use core::alloc::Layout;
    /// let arena = bumpdown::Arena::new();
    /// let p = arena.alloc_layout(Layout::from_size_align(24, 8).unwrap());
    /// assert_eq!(p.as_ptr() as usize % 8, 0);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn alloc_layout(&self, layout: Layout) -> NonNull<u8> {
        match self.try_alloc_layout(layout) {
            Ok(p) => p,
            Err(err) => alloc_failed(layout.size(), layout.align(), err),
        }
    }

    /// Like [`alloc_layout`](Self::alloc_layout), returning an error instead of
    /// panicking.
    #[inline(always)]
    pub fn try_alloc_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        Engine::alloc_layout_block(self, layout)
    }

    /// Allocates a block for `layout` with every byte zero. Memory the arena has never
    /// handed out before and knows to read as zero (a `VmArena`'s fresh pages) is not
    /// written again.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// let arena = bumpdown::Arena::new();
    /// let p = arena.try_alloc_zeroed_layout(Layout::new::<[u32; 8]>()).unwrap();
    /// assert!(unsafe { core::slice::from_raw_parts(p.as_ptr(), 32) }.iter().all(|&b| b == 0));
    /// ```
    #[inline]
    pub fn try_alloc_zeroed_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        Engine::zeroed_layout_block(self, layout)
    }
    };
}
pub(crate) use alloc_api;

/// Gives a block the face just handed out the lifetime of the face's blocks: what every
/// method of `alloc_api!` ends with.
///
/// # Safety
/// `p` is a fresh block of the face (or dangling, for a zero-sized `T`) holding a valid
/// `T` that nothing else references, and `'r` is the lifetime `alloc_api!` was invoked
/// with: the borrow of the face, during which it cannot be reset, rewound or dropped,
/// or a scope's brand, which ends before the scope gives its memory back.
#[inline(always)]
pub(crate) unsafe fn hand_out<'r, T>(p: NonNull<T>) -> &'r mut T {
    // SAFETY: from the caller.
    unsafe { &mut *p.as_ptr() }
}

/// `hand_out` for an array of `len` elements.
///
/// # Safety
/// As for `hand_out`, for `len` valid elements at `p`.
#[inline(always)]
pub(crate) unsafe fn hand_out_slice<'r, T>(p: NonNull<T>, len: usize) -> &'r mut [T] {
    // SAFETY: from the caller.
    unsafe { core::slice::from_raw_parts_mut(p.as_ptr(), len) }
}

/// The plain methods' way out: the value, or the panic of `alloc_failed`.
#[inline(always)]
#[track_caller]
pub(crate) fn unwrap_or_fail<T, R>(result: Result<R, AllocError>, len: usize) -> R {
    match result {
        Ok(r) => r,
        Err(err) => alloc_failed(len.saturating_mul(size_of::<T>()), align_of::<T>(), err),
    }
}
