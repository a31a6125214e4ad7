//! The typed allocation API shared by every arena type: values, slices, strings,
//! iterators, layouts.
//!
//! Every method is a thin front door over two fast paths (`bump_value` for sizes known
//! at compile time, `bump_array` for lengths known at run time) and the one slow path.
//! Plain methods panic through `alloc_failed`; `try_` methods return the `AllocError`.
//!
//! The API is written once, as the macro `alloc_api!`, and stamped into each type. The
//! macro's argument is the lifetime of what it hands out: the borrow of the arena
//! (`'_`) for `Arena`, the scope's brand for `Scope`. It reaches the memory only through
//! hooks each type provides: `alloc_slow` and `alloc_slow_or_panic`, and the
//! direction-dependent ones (`bump_value`, `claim_value`, `bump_array`, `bump_layout`,
//! `grow_array`, `shrink_array_to_fit`). The arenas that bump downwards get the latter
//! from `downward_hooks!`, written over their `top`, `bottom_addr`, `set_top`,
//! `chunk_end_addr` and `free_if_big`; `VmArena`, which bumps upwards, writes its own
//! (`alloc_api!('_, hooks_provided)`).

// Handing out `&mut` to fresh, disjoint blocks from `&self` is what an arena is for.
#![allow(clippy::mut_from_ref)]

use crate::arena::Arena;
use crate::backing::BackingAllocator;
/// What `alloc_api!` refers to, for the modules that invoke it.
pub(crate) mod prelude {
    pub(crate) use super::{round_down_ptr, unwrap_or_fail, zst};
    pub(crate) use crate::bumping::{self, MIN_BOTTOM};
    pub(crate) use crate::error::{alloc_failed, AllocError};
    pub(crate) use core::alloc::Layout;
    pub(crate) use core::mem::{self, align_of, size_of, MaybeUninit};
    pub(crate) use core::ptr::{self, NonNull};
}
use prelude::*;

macro_rules! alloc_api {
    // The arena types that bump downwards get the downward hooks too.
    ($ret:lifetime) => {
        $crate::typed::alloc_api!($ret, hooks_provided);
        $crate::typed::downward_hooks!();
    };
    ($ret:lifetime, hooks_provided) => {
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
        if size_of::<T>() == 0 {
            return zst(val);
        }
        let p = match self.bump_value::<T>() {
            Some(p) => {
                // Write before storing the new top, so that a run of allocations keeps
                // `top` in a register instead of reloading it after each value's store.
                // SAFETY: `p` is in the free part of the current chunk, aligned for `T`,
                // with room for it; nothing else uses those bytes.
                unsafe { p.write(val) };
                // SAFETY: `p` came from `bump_value` and now holds the value.
                unsafe { self.claim_value(p) };
                p
            }
            None => {
                let p = self.alloc_slow_or_panic(size_of::<T>(), align_of::<T>()).cast::<T>().as_ptr();
                // SAFETY: the slow path returned a fresh block of `T`'s layout.
                unsafe { p.write(val) };
                p
            }
        };
        // SAFETY: `p` is a fresh, initialized `T` that no one else references; it lives
        // until the arena is reset (`&mut self`) or dropped, which this borrow prevents.
        unsafe { &mut *p }
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
        let p = self.alloc_block::<T>();
        // SAFETY: a fresh block for one `T`; `f` may allocate, but the bump pointer has
        // already moved past this block.
        unsafe {
            p.as_ptr().write(f());
            &mut *p.as_ptr()
        }
    }

    /// Like [`alloc_with`](Self::alloc_with), returning an error instead of panicking
    /// (`f` is not called then).
    #[inline(always)]
    pub fn try_alloc_with<T, F: FnOnce() -> T>(&self, f: F) -> Result<&$ret mut T, AllocError> {
        let p = self.try_alloc_block::<T>()?;
        // SAFETY: as in `alloc_with`.
        unsafe {
            p.as_ptr().write(f());
            Ok(&mut *p.as_ptr())
        }
    }

    /// A fresh block for a `T`, bump pointer moved, or panics.
    #[inline(always)]
    #[track_caller]
    fn alloc_block<T>(&self) -> NonNull<T> {
        if size_of::<T>() == 0 {
            return NonNull::dangling();
        }
        match self.bump_value::<T>() {
            Some(p) => {
                // SAFETY: from `bump_value`, see `alloc`; inside a chunk, so not null.
                unsafe {
                    self.claim_value(p);
                    NonNull::new_unchecked(p)
                }
            }
            None => self.alloc_slow_or_panic(size_of::<T>(), align_of::<T>()).cast(),
        }
    }

    #[inline(always)]
    fn try_alloc_block<T>(&self) -> Result<NonNull<T>, AllocError> {
        if size_of::<T>() == 0 {
            return Ok(NonNull::dangling());
        }
        match self.bump_value::<T>() {
            Some(p) => {
                // SAFETY: from `bump_value`, see `alloc`; inside a chunk, so not null.
                unsafe {
                    self.claim_value(p);
                    Ok(NonNull::new_unchecked(p))
                }
            }
            None => self.alloc_slow(size_of::<T>(), align_of::<T>()).map(NonNull::cast),
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
        // SAFETY: a fresh block for a `T` (or dangling for a zero-sized `T`), which
        // `MaybeUninit` needs no initialization to view; borrowed as long as the arena.
        unsafe { self.alloc_block::<T>().cast::<MaybeUninit<T>>().as_mut() }
    }

    /// Like [`alloc_uninit`](Self::alloc_uninit), returning an error instead of
    /// panicking.
    #[inline(always)]
    pub fn try_alloc_uninit<T>(&self) -> Result<&$ret mut MaybeUninit<T>, AllocError> {
        // SAFETY: as in `alloc_uninit`.
        Ok(unsafe { self.try_alloc_block::<T>()?.cast::<MaybeUninit<T>>().as_mut() })
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
        let p = self.try_alloc_array_uninit::<T>(len)?;
        // SAFETY: a fresh block for `len` elements (or dangling for a zero-sized `T`),
        // which `MaybeUninit` needs no initialization to view.
        Ok(unsafe { core::slice::from_raw_parts_mut(p.as_ptr().cast::<MaybeUninit<T>>(), len) })
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
            Err(err) => {
                let len = $crate::typed::formatted_len(args).unwrap_or(usize::MAX);
                alloc_failed(len, 1, err)
            }
        }
    }

    /// Like [`alloc_fmt`](Self::alloc_fmt), returning an error instead of panicking
    /// when the arena cannot hold the text.
    ///
    /// # Panics
    /// If a `Display` implementation fails or prints something else the second time.
    #[inline]
    pub fn try_alloc_fmt(&self, args: core::fmt::Arguments<'_>) -> Result<&$ret mut str, AllocError> {
        if let Some(s) = args.as_str() {
            return self.try_alloc_str(s);
        }
        let len = $crate::typed::formatted_len(args).expect("a Display implementation returned an error");
        let buf = self.try_alloc_uninit_slice::<u8>(len)?;
        let text = $crate::typed::format_into(buf, args);
        Ok(text)
    }

    /// A fresh block for `len` elements of `T`, bump pointer moved. Zero-sized `T`
    /// costs nothing; `len * size_of::<T>()` overflowing is `InvalidLayout`.
    #[inline(always)]
    pub(crate) fn try_alloc_array_uninit<T>(&self, len: usize) -> Result<NonNull<T>, AllocError> {
        if size_of::<T>() == 0 {
            return Ok(NonNull::dangling());
        }
        match self.bump_array(len, size_of::<T>(), align_of::<T>()) {
            // SAFETY: a block inside a chunk, so not null.
            Some(p) => Ok(unsafe { NonNull::new_unchecked(p) }.cast()),
            // An overflowing product becomes usize::MAX, which the slow path rejects.
            None => self.alloc_slow(len.saturating_mul(size_of::<T>()), align_of::<T>()).map(NonNull::cast),
        }
    }

    /// Runs `init` on a fresh array of `len` uninitialized `T` and returns it as
    /// initialized. `init` must initialize every element (or panic).
    #[inline(always)]
    fn try_alloc_slice_init<T>(
        &self,
        len: usize,
        init: impl FnOnce(&mut [MaybeUninit<T>]),
    ) -> Result<&$ret mut [T], AllocError> {
        let p = self.try_alloc_array_uninit::<T>(len)?;
        // SAFETY: `p` is a fresh block for `len` elements (or dangling for a zero-sized
        // `T`), which `MaybeUninit` needs no initialization to view.
        let slice = unsafe { core::slice::from_raw_parts_mut(p.as_ptr().cast::<MaybeUninit<T>>(), len) };
        init(slice);
        // SAFETY: `init` initialized every element (callers below do so on every path
        // that returns; on a panic this is never reached, and the written elements leak).
        Ok(unsafe { &mut *(slice as *mut [MaybeUninit<T>] as *mut [T]) })
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
        let p = self.try_alloc_array_uninit::<T>(src.len())?;
        // SAFETY: `p` is a fresh block for `src.len()` elements, which cannot overlap
        // `src` (live memory the arena did not just hand out).
        unsafe {
            ptr::copy_nonoverlapping(src.as_ptr(), p.as_ptr(), src.len());
            Ok(core::slice::from_raw_parts_mut(p.as_ptr(), src.len()))
        }
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
        let iter = iter.into_iter();
        if size_of::<T>() == 0 {
            let mut len = 0usize;
            for item in iter {
                mem::forget(item);
                len = len.checked_add(1).ok_or(AllocError::INVALID_LAYOUT)?;
            }
            // SAFETY: zero-sized values need no memory; the `len` forgotten items become
            // the slice's elements.
            return Ok(unsafe { core::slice::from_raw_parts_mut(NonNull::<T>::dangling().as_ptr(), len) });
        }
        let mut cap = iter.size_hint().0.max(4);
        let mut buf = self.try_alloc_array_uninit::<T>(cap)?;
        let mut len = 0;
        for item in iter {
            if len == cap {
                let new_cap = cap.checked_mul(2).ok_or(AllocError::INVALID_LAYOUT)?;
                // SAFETY: `buf` holds `cap` initialized elements of a live block of this
                // arena with that array layout; `new_cap > cap`.
                buf = unsafe { self.grow_array(buf, cap, new_cap) }?;
                cap = new_cap;
            }
            // SAFETY: `len < cap`, inside the block.
            unsafe { buf.as_ptr().add(len).write(item) };
            len += 1;
        }
        // SAFETY: `buf` holds `len` initialized elements of a live block with room for
        // `cap >= len`.
        let buf = unsafe { self.shrink_array_to_fit(buf, len, cap) };
        // SAFETY: `len` initialized elements at `buf`, borrowed as long as the arena.
        Ok(unsafe { core::slice::from_raw_parts_mut(buf.as_ptr(), len) })
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
        match self.bump_layout(layout.size(), layout.align()) {
            // SAFETY: a block inside a chunk, so not null.
            Some(p) => Ok(unsafe { NonNull::new_unchecked(p) }),
            None => self.alloc_slow(layout.size(), layout.align()),
        }
    }
    };
}
pub(crate) use alloc_api;

/// The direction-dependent half of the typed API for the arenas that bump downwards
/// (`Arena`, `Scope`, `FixedArena`): where a block goes, how the newest block grows and
/// shrinks. An arena that bumps upwards writes these itself (see `vm.rs`).
macro_rules! downward_hooks {
    () => {
        /// Where a `T` would go, without moving the bump pointer; `None` if the current
        /// chunk is too small. Never called for zero-sized `T`.
        ///
        /// For `T = u64` and `MIN_ALIGN = 1`, `alloc` compiles to (x86_64, release):
        ///
        /// ```text
        /// mov  rax, qword ptr [rdi]       ; top
        /// add  rax, -8                    ; top - size_of::<u64>()  (cannot wrap: top >= 4096)
        /// and  rax, -8                    ; align down (folds away when align <= MIN_ALIGN)
        /// cmp  rax, qword ptr [rdi + 8]   ; below bottom?
        /// jb   .slow                      ; the only branch: out of line, cold
        /// mov  qword ptr [rax], rsi       ; write the value
        /// mov  qword ptr [rdi], rax       ; store the new top
        /// ret
        /// ```
        ///
        /// `tests/fast_path_asm.rs` checks the instruction and branch counts.
        #[inline(always)]
        fn bump_value<T>(&self) -> Option<*mut T> {
            let top = self.top();
            let new_top = if size_of::<T>() <= MIN_BOTTOM {
                // Folds: the size is a constant.
                bumping::bump_small(top.addr(), self.bottom_addr(), size_of::<T>(), align_of::<T>(), MIN_ALIGN)
            } else {
                bumping::bump(top.addr(), self.bottom_addr(), size_of::<T>(), align_of::<T>(), MIN_ALIGN)
            }?;
            // `alloc` writes the value before it claims the block (`claim_value`): under
            // AddressSanitizer the bytes must be addressable before that write.
            #[cfg(bumpdown_asan)]
            // SAFETY: `new_top..top` is in the free part of the current chunk.
            unsafe {
                crate::asan::unpoison(top.with_addr(new_top), top.addr() - new_top)
            };
            // A raw pointer, not `NonNull`: `Option<NonNull>` would make LLVM test the
            // address for null (the `None` niche) on the fast path.
            Some(top.with_addr(new_top).cast())
        }

        /// Moves the bump pointer past a `T` that `bump_value` placed at `p`.
        ///
        /// # Safety
        /// `p` came from `bump_value` on this arena, with nothing allocated since.
        #[inline(always)]
        unsafe fn claim_value<T>(&self, p: *mut T) {
            // SAFETY: from `bump_value`: inside `bottom..=top`, derived from `top`, a
            // multiple of MIN_ALIGN.
            unsafe { self.set_top(p.cast()) }
        }

        /// A block for `len` elements of `elem_size > 0` bytes in the current chunk, bump
        /// pointer moved; `None` if it does not fit (or the size overflows).
        #[inline(always)]
        fn bump_array(&self, len: usize, elem_size: usize, align: usize) -> Option<*mut u8> {
            let top = self.top();
            let new_top = bumping::bump_array(top.addr(), self.bottom_addr(), len, elem_size, align, MIN_ALIGN)?;
            let p = top.with_addr(new_top);
            // SAFETY: from `bump_array`: inside `bottom..=top`, derived from `top`, a
            // multiple of MIN_ALIGN.
            unsafe { self.set_top(p) };
            Some(p)
        }

        /// A block of `size` bytes aligned to the power of two `align` in the current chunk,
        /// bump pointer moved; `None` if it does not fit.
        #[inline(always)]
        fn bump_layout(&self, size: usize, align: usize) -> Option<*mut u8> {
            let top = self.top();
            let new_top = bumping::bump(top.addr(), self.bottom_addr(), size, align, MIN_ALIGN)?;
            let p = top.with_addr(new_top);
            // SAFETY: from `bump`: inside `bottom..=top`, derived from `top`, a multiple of
            // MIN_ALIGN.
            unsafe { self.set_top(p) };
            Some(p)
        }

        /// Whether `ptr..ptr + size` is the newest allocation of the current chunk.
        pub(crate) fn is_newest(&self, ptr: NonNull<u8>, size: usize) -> bool {
            let top = self.top().addr();
            // `top <= end`, so this cannot overflow. An allocation starting at `top` that is
            // not from this chunk (an out-of-band block that happens to start where the chunk
            // ends) would reach past the end.
            ptr.as_ptr().addr() == top && size <= self.chunk_end_addr() - top
        }

        /// Grows the newest allocation in place: moves its `old_size` bytes down so that it
        /// becomes a block of `new_size >= old_size` bytes aligned to `align`, reusing its
        /// own space. `None` (nothing changed) when `ptr` is not the newest allocation of
        /// the current chunk or the chunk has no room.
        ///
        /// # Safety
        /// `ptr` is a live block of this arena of `old_size` bytes; on `Some` it is not
        /// used again (the returned block replaces it).
        #[inline]
        pub(crate) unsafe fn grow_newest_in_place(
            &self,
            ptr: NonNull<u8>,
            old_size: usize,
            new_size: usize,
            align: usize,
        ) -> Option<NonNull<u8>> {
            if !self.is_newest(ptr, old_size) {
                return None;
            }
            // The block's end: the allocation took `round_up(old_size, MIN_ALIGN)` bytes.
            let old_end = bumping::round_up(ptr.as_ptr().addr() + old_size, MIN_ALIGN);
            let new_top = bumping::bump_checked(old_end, self.bottom_addr(), new_size, align, MIN_ALIGN)?;
            let dst = self.top().with_addr(new_top);
            // SAFETY: `dst..dst + new_size` is the free part plus the old block (bumped
            // down from the block's end); `ptr::copy` allows the overlap. The new top is
            // inside `bottom..=old_end`, derived from `top`, aligned; it is at least
            // `bottom`, so not null. The pointer moves first, so that the bytes are handed
            // out (and, under AddressSanitizer, addressable) before the copy writes them.
            unsafe {
                self.set_top(dst);
                ptr::copy(ptr.as_ptr(), dst, old_size);
                Some(NonNull::new_unchecked(dst))
            }
        }

        /// Grows an array block: in place (moving its bytes down) when it is the newest
        /// allocation and the chunk has room, otherwise by copying it to a fresh block.
        ///
        /// # Safety
        /// `buf` is a live block of this arena for `cap` elements of `T` (not zero-sized),
        /// all initialized, and `new_cap > cap`.
        unsafe fn grow_array<T>(&self, buf: NonNull<T>, cap: usize, new_cap: usize) -> Result<NonNull<T>, AllocError> {
            let old_size = cap * size_of::<T>();
            let new_size = new_cap.checked_mul(size_of::<T>()).ok_or(AllocError::INVALID_LAYOUT)?;
            // SAFETY: forwarded from the caller; on success `buf` is replaced.
            if let Some(p) = unsafe { self.grow_newest_in_place(buf.cast(), old_size, new_size, align_of::<T>()) } {
                return Ok(p.cast());
            }
            let fresh = self.try_alloc_array_uninit::<T>(new_cap)?;
            // SAFETY: distinct live blocks; `cap` initialized elements move to the new one.
            unsafe { ptr::copy_nonoverlapping(buf.as_ptr(), fresh.as_ptr(), cap) };
            // SAFETY: the old block is no longer used; if it had an out-of-band chunk of its
            // own, that chunk goes back now.
            unsafe { self.free_if_big(buf.cast()) };
            Ok(fresh)
        }

        /// When `buf` is the newest allocation, moves its `len` elements to the top of the
        /// block and gives the rest back. Returns where the elements are.
        ///
        /// # Safety
        /// `buf` is a live block of this arena for `cap` elements of `T`, the first `len`
        /// initialized.
        unsafe fn shrink_array_to_fit<T>(&self, buf: NonNull<T>, len: usize, cap: usize) -> NonNull<T> {
            let block = cap * size_of::<T>();
            if len == cap || !self.is_newest(buf.cast(), block) {
                return buf;
            }
            // Move the elements as high as the block allows while keeping every allocation
            // aligned to MIN_ALIGN; `buf` is aligned to it, so `dst` stays inside the block.
            let align = align_of::<T>().max(MIN_ALIGN);
            let dst = round_down_ptr(buf.as_ptr().wrapping_add(cap - len).cast(), align).cast::<T>();
            // SAFETY: `buf <= dst <= buf + (cap - len)` and `dst` is aligned for `T` (rounding
            // down to a multiple of `align_of::<T>()` from an aligned offset), so the `len`
            // elements fit in the block at `dst`; `ptr::copy` handles the overlap. The new top
            // is `dst`: inside the block, derived from the arena's pointers, a multiple of
            // MIN_ALIGN; the bytes below it are unused now.
            unsafe {
                ptr::copy(buf.as_ptr(), dst, len);
                self.set_top(dst.cast());
                NonNull::new_unchecked(dst)
            }
        }
    };
}
pub(crate) use downward_hooks;

impl<const MIN_ALIGN: usize, A: BackingAllocator> Arena<MIN_ALIGN, A> {
    alloc_api!('_);
}

/// Rounds a pointer down to a multiple of `align`, keeping its provenance.
pub(crate) fn round_down_ptr(p: *mut u8, align: usize) -> *mut u8 {
    p.with_addr(bumping::round_down(p.addr(), align))
}

/// A zero-sized value needs no memory: any aligned non-null pointer holds it.
#[inline(always)]
pub(crate) fn zst<'a, T>(val: T) -> &'a mut T {
    let p = NonNull::<T>::dangling();
    // SAFETY: writing a zero-sized value through an aligned non-null pointer touches no
    // memory; the reference to it is valid for any lifetime.
    unsafe {
        p.as_ptr().write(val);
        &mut *p.as_ptr()
    }
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

/// How many bytes `args` formats to; `None` if a `Display` implementation fails.
pub(crate) fn formatted_len(args: core::fmt::Arguments<'_>) -> Option<usize> {
    struct Count(usize);
    impl core::fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            self.0 = self.0.checked_add(s.len()).ok_or(core::fmt::Error)?;
            Ok(())
        }
    }
    let mut count = Count(0);
    core::fmt::write(&mut count, args).ok().map(|()| count.0)
}

/// Formats `args` into `buf`, which must be exactly as long as the text
/// (`formatted_len`), and returns the text.
///
/// # Panics
/// If formatting fails or gives a text of another length this time.
pub(crate) fn format_into<'b>(buf: &'b mut [MaybeUninit<u8>], args: core::fmt::Arguments<'_>) -> &'b mut str {
    struct Fill<'a> {
        buf: &'a mut [MaybeUninit<u8>],
        len: usize,
    }
    impl core::fmt::Write for Fill<'_> {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            let dst = self.buf.get_mut(self.len..).and_then(|rest| rest.get_mut(..s.len())).ok_or(core::fmt::Error)?;
            // SAFETY: `dst` and `s` have the same length; `MaybeUninit<u8>` has the
            // layout of `u8`; a `&str` cannot overlap a fresh block.
            unsafe { ptr::copy_nonoverlapping(s.as_ptr(), dst.as_mut_ptr().cast::<u8>(), s.len()) };
            self.len += s.len();
            Ok(())
        }
    }
    let mut fill = Fill { buf, len: 0 };
    let ok = core::fmt::write(&mut fill, args).is_ok();
    assert!(ok && fill.len == fill.buf.len(), "a Display implementation printed different text the second time");
    // SAFETY: every byte was written (`len == buf.len()`), and the bytes are the
    // concatenation of `str`s, so valid UTF-8.
    unsafe { core::str::from_utf8_unchecked_mut(&mut *(fill.buf as *mut [MaybeUninit<u8>] as *mut [u8])) }
}
