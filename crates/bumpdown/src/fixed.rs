//! `FixedArena`: a bump arena over memory the caller provides (a stack array, a
//! `static`, a slice of a larger buffer). No backing allocator, so it works without
//! `alloc`; when the buffer is full, allocation fails with
//! [`AllocErrorKind::Full`](crate::AllocErrorKind::Full).

// Handing out `&mut` to fresh, disjoint blocks from `&self` is what an arena is for.
#![allow(clippy::mut_from_ref)]

use core::cell::Cell;
use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::ops::Deref;

use crate::alloc_api::prelude::*;
use crate::arena::empty_chunk;
use crate::bump_trait::Bump;
use crate::bumping::{self, round_down, round_up, CHUNK_ALIGN, MIN_BOTTOM};
use crate::checkpoint::{Checkpoint, Ledger, RawCheckpoint, RewindError};

/// A bump arena over a caller's buffer, with the same allocation API as
/// [`Arena`](crate::Arena).
///
/// ```
/// use bumpdown::FixedArena;
/// use core::mem::MaybeUninit;
///
/// let mut buf = [MaybeUninit::<u8>::uninit(); 256];
/// let mut arena: FixedArena = FixedArena::new(&mut buf);
/// let x = arena.alloc(7u64);
/// let s = arena.alloc_str("on the stack");
/// assert_eq!((*x, &*s), (7, "on the stack"));
/// assert!(arena.try_alloc([0u8; 1024]).is_err()); // full: an error, not a crash
/// arena.reset();
/// assert_eq!(arena.used(), 0);
/// ```
pub struct FixedArena<'buf, const MIN_ALIGN: usize = 1> {
    // INVARIANT: `MIN_BOTTOM <= bottom <= top <= end`, `bottom % CHUNK_ALIGN == 0`,
    // `top % MIN_ALIGN == 0`, `end % MIN_ALIGN == 0`; all three point into the buffer
    // (or its end) with its provenance; `top..end` holds the allocations.
    top: Cell<*mut u8>,
    bottom: *mut u8,
    end: *mut u8,
    ledger: Ledger,
    _buf: PhantomData<&'buf mut [MaybeUninit<u8>]>,
}

// SAFETY: the arena owns its (borrowed) buffer exclusively; moving it to another thread
// moves that exclusive access along. Not `Sync` (the `Cell`s).
unsafe impl<const MIN_ALIGN: usize> Send for FixedArena<'_, MIN_ALIGN> {}

impl<'buf> FixedArena<'buf> {
    /// An arena over `buf`. A few bytes at the start may go unused, to align it (and, on
    /// a system that maps memory below address 4096, the part below it).
    ///
    /// ```
    /// use core::mem::MaybeUninit;
    /// let mut buf = [MaybeUninit::uninit(); 256];
    /// let arena = bumpdown::FixedArena::new(&mut buf);
    /// assert_eq!(*arena.alloc(7u16), 7);
    /// ```
    pub fn new(buf: &'buf mut [MaybeUninit<u8>]) -> Self {
        Self::with_min_align(buf)
    }
}

impl<'buf, const MIN_ALIGN: usize> FixedArena<'buf, MIN_ALIGN> {
    const VALID_MIN_ALIGN: () =
        assert!(MIN_ALIGN.is_power_of_two() && MIN_ALIGN <= CHUNK_ALIGN, "MIN_ALIGN must be 1, 2, 4, 8 or 16");

    /// An arena over `buf` whose every allocation is aligned to at least `MIN_ALIGN` (1,
    /// 2, 4, 8 or 16). `FixedArena::new` infers the default `FixedArena<1>`; other
    /// alignments are named here.
    ///
    /// ```
    /// use core::mem::MaybeUninit;
    /// let mut buf = [MaybeUninit::uninit(); 256];
    /// let arena = bumpdown::FixedArena::<8>::with_min_align(&mut buf);
    /// assert_eq!(arena.alloc(1u8) as *const u8 as usize % 8, 0);
    /// ```
    pub fn with_min_align(buf: &'buf mut [MaybeUninit<u8>]) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID_MIN_ALIGN;
        let start = buf.as_mut_ptr().cast::<u8>();
        // A real slice does not reach the end of the address space, so neither sum wraps.
        let end_addr = round_down(start.addr() + buf.len(), MIN_ALIGN);
        let bottom_addr = round_up(start.addr().max(MIN_BOTTOM), CHUNK_ALIGN);
        let (bottom, end) = if bottom_addr < end_addr {
            (start.with_addr(bottom_addr), start.with_addr(end_addr))
        } else {
            // No usable byte: point at the empty sentinel, as an arena without chunks does.
            (empty_chunk(), empty_chunk())
        };
        FixedArena { top: Cell::new(end), bottom, end, ledger: Ledger::new(), _buf: PhantomData }
    }

    /// Usable bytes of the buffer.
    pub fn capacity(&self) -> usize {
        self.end.addr() - self.bottom.addr()
    }

    /// Bytes in use (allocations and their padding).
    pub fn used(&self) -> usize {
        self.end.addr() - self.top.get().addr()
    }

    /// Free bytes left.
    pub fn chunk_capacity(&self) -> usize {
        self.top.get().addr() - self.bottom.addr()
    }

    /// Panics, printing the addresses involved, if the arena breaks an invariant the
    /// bump arithmetic relies on. Tests and fuzzers call it after every operation.
    ///
    /// ```
    /// let mut buf = [core::mem::MaybeUninit::uninit(); 256];
    /// let arena = bumpdown::FixedArena::new(&mut buf);
    /// arena.alloc(7u32);
    /// arena.check_invariants();
    /// ```
    pub fn check_invariants(&self) {
        let (bottom, top, end) = (self.bottom.addr(), self.top.get().addr(), self.end.addr());
        assert!(MIN_BOTTOM <= bottom && bottom <= top && top <= end, "bottom {bottom:#x} top {top:#x} end {end:#x}");
        assert!(
            bottom % CHUNK_ALIGN == 0 && top % MIN_ALIGN == 0 && end % MIN_ALIGN == 0,
            "misaligned: bottom {bottom:#x} top {top:#x} end {end:#x} (MIN_ALIGN {MIN_ALIGN})"
        );
    }

    /// Frees every allocation.
    pub fn reset(&mut self) {
        self.ledger.reset();
        // SAFETY: `top..end` is the used part of the buffer; `&mut self`: none in use.
        unsafe { crate::poison::fill(self.top.get(), self.end.addr()) };
        self.top.set(self.end);
    }

    /// Saves the arena's position; see [`Arena::checkpoint`](crate::Arena::checkpoint).
    pub fn checkpoint(&self) -> Checkpoint {
        self.ledger.checkpoint(self.raw_checkpoint())
    }

    fn raw_checkpoint(&self) -> RawCheckpoint {
        RawCheckpoint { chunk: None, top: self.top.get(), serial: self.ledger.serial() }
    }

    /// Frees everything allocated after `checkpoint`.
    ///
    /// # Panics
    /// If the checkpoint is from another arena or stale; see
    /// [`try_rewind`](FixedArena::try_rewind).
    #[track_caller]
    pub fn rewind(&mut self, checkpoint: Checkpoint) {
        if let Err(err) = self.try_rewind(checkpoint) {
            panic!("bumpdown: cannot rewind: {err}");
        }
    }

    /// Like [`rewind`](FixedArena::rewind), returning an error for a foreign or stale
    /// checkpoint.
    pub fn try_rewind(&mut self, checkpoint: Checkpoint) -> Result<(), RewindError> {
        self.ledger.rewind_to(&checkpoint, 0)?;
        // A valid checkpoint's top lies in this buffer, at or above today's.
        // SAFETY: the bytes allocated since are in the buffer; `&mut self`: none in use.
        unsafe { crate::poison::fill(self.top.get(), checkpoint.raw.top.addr()) };
        self.top.set(checkpoint.raw.top);
        Ok(())
    }

    /// Runs `f` with the arena and frees what it allocated when it returns (or unwinds).
    ///
    /// ```
    /// use core::mem::MaybeUninit;
    /// let mut buf = [MaybeUninit::<u8>::uninit(); 128];
    /// let mut arena: bumpdown::FixedArena = bumpdown::FixedArena::new(&mut buf);
    /// let n = arena.scope(|a| a.alloc_slice_fill_copy(100, 1u8).len());
    /// assert_eq!((n, arena.used()), (100, 0));
    /// ```
    pub fn scope<R>(&mut self, f: impl for<'s> FnOnce(&'s FixedArena<'buf, MIN_ALIGN>) -> R) -> R {
        let guard = self.scope_guard();
        f(&guard)
    }

    /// Starts a scope that ends (freeing what was allocated through the guard) when the
    /// returned guard drops. The guard derefs to the arena.
    pub fn scope_guard(&mut self) -> FixedScopeGuard<'_, 'buf, MIN_ALIGN> {
        FixedScopeGuard { entry: self.raw_checkpoint(), arena: self }
    }
    crate::alloc_api::alloc_api!('_);
}

// SAFETY: the struct's invariant is the trait's (down): `bottom..top` is the free part of
// the caller's buffer, `top..end` the allocations; the slow path never leaves the buffer.
unsafe impl<const MIN_ALIGN: usize> Cursor for FixedArena<'_, MIN_ALIGN> {
    const MIN_ALIGN: usize = MIN_ALIGN;
    const UP: bool = false;

    #[inline(always)]
    fn cursor_and_limit(&self) -> (*mut u8, usize) {
        (self.top.get(), self.bottom.addr())
    }

    /// The end of the buffer's usable part.
    #[inline(always)]
    fn far_end(&self) -> usize {
        self.end.addr()
    }

    #[inline(always)]
    unsafe fn set_cursor(&self, new_top: *mut u8) {
        debug_assert!(self.limit() <= new_top.addr() && new_top.addr() % MIN_ALIGN == 0);
        self.top.set(new_top)
    }

    /// The buffer has no room: there is nowhere else to go.
    #[cold]
    #[inline(never)]
    fn alloc_slow(&self, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        if Layout::from_size_align(size, align).is_err() {
            return Err(AllocError::INVALID_LAYOUT);
        }
        let top = self.top.get();
        // The fast paths are exact, but a caller may skip them.
        let new_top =
            bumping::bump_checked(top.addr(), self.limit(), size, align, MIN_ALIGN).ok_or(AllocError::FULL)?;
        let p = top.with_addr(new_top);
        // SAFETY: `bump_checked` keeps `new_top` in `bottom..=top`, aligned, derived from
        // `top`; it is at least `bottom >= MIN_BOTTOM`, so not null.
        unsafe {
            self.set_cursor(p);
            Ok(NonNull::new_unchecked(p))
        }
    }
}

impl<const MIN_ALIGN: usize> core::fmt::Debug for FixedArena<'_, MIN_ALIGN> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FixedArena").field("capacity", &self.capacity()).field("used", &self.used()).finish()
    }
}

/// A scope of a [`FixedArena`] that ends when dropped. Derefs to the arena.
pub struct FixedScopeGuard<'a, 'buf, const MIN_ALIGN: usize = 1> {
    arena: &'a FixedArena<'buf, MIN_ALIGN>,
    entry: RawCheckpoint,
}

impl<'buf, const MIN_ALIGN: usize> Deref for FixedScopeGuard<'_, 'buf, MIN_ALIGN> {
    type Target = FixedArena<'buf, MIN_ALIGN>;

    fn deref(&self) -> &Self::Target {
        self.arena
    }
}

impl<const MIN_ALIGN: usize> Drop for FixedScopeGuard<'_, '_, MIN_ALIGN> {
    fn drop(&mut self) {
        // Allocations through the guard borrowed it, so none is alive now; the arena was
        // borrowed mutably to make the guard, so nothing else moved it.
        self.arena.ledger.exit(self.entry.serial);
        // SAFETY: the bytes the guard's allocations used, in the buffer, no longer in use.
        unsafe { crate::poison::fill(self.arena.top.get(), self.entry.top.addr()) };
        self.arena.top.set(self.entry.top);
    }
}

impl<const MIN_ALIGN: usize> Bump for FixedArena<'_, MIN_ALIGN> {
    type Checkpoint = Checkpoint;

    #[inline(always)]
    fn try_alloc_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        FixedArena::try_alloc_layout(self, layout)
    }

    fn checkpoint(&self) -> Checkpoint {
        FixedArena::checkpoint(self)
    }

    fn try_rewind(&mut self, checkpoint: Checkpoint) -> Result<(), RewindError> {
        FixedArena::try_rewind(self, checkpoint)
    }
}
