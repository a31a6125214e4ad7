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
use crate::bumping::{round_down, round_up, CHUNK_ALIGN, MAX_END, MIN_BOTTOM};
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
    // INVARIANT: `MIN_BOTTOM <= start <= ptr <= end <= MAX_END`, `end % CHUNK_ALIGN == 0`,
    // `start % MIN_ALIGN == 0`, `ptr % MIN_ALIGN == 0`; all three point into the buffer
    // (or its end) with its provenance; `start..ptr` holds the allocations, `ptr..end`
    // is free. (Or all three are the empty sentinel, for a buffer with no usable byte.)
    ptr: Cell<*mut u8>,
    start: *mut u8,
    end: *mut u8,
    ledger: Ledger,
    _buf: PhantomData<&'buf mut [MaybeUninit<u8>]>,
}

// SAFETY: the arena owns its (borrowed) buffer exclusively; moving it to another thread
// moves that exclusive access along. Not `Sync` (the `Cell`s).
unsafe impl<const MIN_ALIGN: usize> Send for FixedArena<'_, MIN_ALIGN> {}

impl<'buf> FixedArena<'buf> {
    /// An arena over `buf`. Up to 15 bytes at the end may go unused, to align it (and, on
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
        let base = buf.as_mut_ptr().cast::<u8>();
        // A real slice does not reach the end of the address space (it ends at most at
        // `isize::MAX`), so neither sum wraps.
        let end_addr = round_down(base.addr() + buf.len(), CHUNK_ALIGN);
        let start_addr = round_up(base.addr().max(MIN_BOTTOM), MIN_ALIGN);
        let (start, end) = if start_addr < end_addr {
            (base.with_addr(start_addr), base.with_addr(end_addr))
        } else {
            // No usable byte: point at the empty sentinel, as an arena without chunks does.
            (empty_chunk(), empty_chunk())
        };
        debug_assert!(end.addr() <= MAX_END);
        FixedArena { ptr: Cell::new(start), start, end, ledger: Ledger::new(), _buf: PhantomData }
    }

    /// Usable bytes of the buffer.
    pub fn capacity(&self) -> usize {
        self.end.addr() - self.start.addr()
    }

    /// Bytes in use (allocations and their padding).
    pub fn used(&self) -> usize {
        self.ptr.get().addr() - self.start.addr()
    }

    /// Free bytes left.
    pub fn chunk_capacity(&self) -> usize {
        self.end.addr() - self.ptr.get().addr()
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
        let (start, ptr, end) = (self.start.addr(), self.ptr.get().addr(), self.end.addr());
        assert!(
            MIN_BOTTOM <= start && start <= ptr && ptr <= end && end <= MAX_END,
            "start {start:#x} ptr {ptr:#x} end {end:#x}"
        );
        assert!(
            start % MIN_ALIGN == 0 && ptr % MIN_ALIGN == 0 && end % CHUNK_ALIGN == 0,
            "misaligned: start {start:#x} ptr {ptr:#x} end {end:#x} (MIN_ALIGN {MIN_ALIGN})"
        );
    }

    /// Frees every allocation.
    pub fn reset(&mut self) {
        self.ledger.reset();
        // SAFETY: `start..ptr` is the used part of the buffer; `&mut self`: none in use.
        unsafe { crate::poison::fill(self.start, self.ptr.get().addr()) };
        self.ptr.set(self.start);
    }

    /// Saves the arena's position; see [`Arena::checkpoint`](crate::Arena::checkpoint).
    pub fn checkpoint(&self) -> Checkpoint {
        self.ledger.checkpoint(self.raw_checkpoint())
    }

    fn raw_checkpoint(&self) -> RawCheckpoint {
        RawCheckpoint { chunk: None, ptr: self.ptr.get(), serial: self.ledger.serial() }
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
        // A valid checkpoint's pointer lies in this buffer, usually at or below today's
        // (above it only if the newest block before it was freed since: those bytes are
        // unused too).
        // SAFETY: the bytes allocated since are in the buffer; `&mut self`: none in use.
        unsafe { crate::poison::fill(checkpoint.raw.ptr, self.ptr.get().addr()) };
        self.ptr.set(checkpoint.raw.ptr);
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

// SAFETY: the struct's invariant is the trait's (up): `ptr..end` is the free part of the
// caller's buffer, `start..ptr` the allocations; the slow path never leaves the buffer.
unsafe impl<const MIN_ALIGN: usize> Cursor for FixedArena<'_, MIN_ALIGN> {
    const MIN_ALIGN: usize = MIN_ALIGN;
    const UP: bool = true;

    #[inline(always)]
    fn cursor_and_limit(&self) -> (*mut u8, usize) {
        (self.ptr.get(), self.end.addr())
    }

    /// The start of the buffer's usable part.
    #[inline(always)]
    fn far_end(&self) -> usize {
        self.start.addr()
    }

    #[inline(always)]
    unsafe fn set_cursor(&self, new_ptr: *mut u8) {
        debug_assert!(
            self.start.addr() <= new_ptr.addr() && new_ptr.addr() <= self.end.addr() && new_ptr.addr() % MIN_ALIGN == 0
        );
        self.ptr.set(new_ptr)
    }

    /// The buffer has no room: there is nowhere else to go.
    #[cold]
    #[inline(never)]
    fn alloc_slow(&self, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        if Layout::from_size_align(size, align).is_err() {
            return Err(AllocError::INVALID_LAYOUT);
        }
        // The fast paths are exact, but a caller may skip them; the engine's bump checks
        // every step. A block lies at or above `ptr >= MIN_BOTTOM`, so it is not null.
        Engine::bump_layout(self, size, align).and_then(NonNull::new).ok_or(AllocError::FULL)
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
        unsafe { crate::poison::fill(self.entry.ptr, self.arena.ptr.get().addr()) };
        self.arena.ptr.set(self.entry.ptr);
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
