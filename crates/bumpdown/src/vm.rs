//! `VmArena`: one contiguous reservation of address space, committed as the bump
//! pointer advances.
//!
//! The arena reserves a range up front (it costs address space, not memory), makes the
//! low end of it usable in growing batches, and bumps **upwards** through it. Nothing
//! ever moves, the whole arena is one range, and the newest block can grow in place
//! without copying: its end is the bump pointer. Reset is O(1).

// Handing out `&mut` to fresh, disjoint blocks from `&self` is what an arena is for.
#![allow(clippy::mut_from_ref)]

use core::cell::{Cell, OnceCell};
use core::fmt;
use core::ops::Deref;

use crate::alloc_api::prelude::*;
use crate::bump_trait::Bump;
use crate::bumping::{round_down, round_up, MAX_END};
use crate::checkpoint::{Checkpoint, Ledger, RawCheckpoint, RewindError};
use crate::os::{self, PAGE};
use crate::populate::Populator;
use crate::stats::Stats;

/// Transparent huge page size on x86_64 and aarch64 (4 KiB base pages).
const HUGE_PAGE: usize = 2 << 20;

/// The first commit step; later ones double up to [`VmOptions::commit_batch`].
const FIRST_BATCH: usize = 64 * 1024;

/// Default of [`VmOptions::commit_batch`]: 128 KiB.
///
/// Small on purpose. A populated batch is zeroed by the kernel just before the program
/// writes it, so a batch that still sits in the CPU's L2 cache is written at cache speed.
/// On the seed-004 workload (640 MB of 64-byte allocations, each written once; 2-core
/// Xeon VM) the cold pass took 31-33 ns per allocation with 128-512 KiB batches, 37-38 ns
/// with 64 KiB (more system calls) and 48-49 ns with 8 MiB, slower than page faults in a
/// chunked arena (44-46 ns). The `mprotect` and `madvise` per batch cost about 1% of that.
pub const DEFAULT_COMMIT_BATCH: usize = 128 * 1024;

/// How far at most the populating thread of [`VmOptions::populate_in_background`]
/// works ahead of the bump pointer: 16 MiB. Nearer the start it is the size of the
/// arena so far (at least one commit batch), so a small arena holds at most about twice
/// what it has handed out.
pub const BACKGROUND_AHEAD: usize = 16 << 20;

/// Bytes per system call of the populating thread: one huge page's block.
const BACKGROUND_PIECE: usize = HUGE_PAGE;

/// With a populating thread, memory is made readable and writable this much further
/// than the thread is asked to go, so that the arena changes protections rarely: an
/// `mprotect` waits for the thread's populating call in progress to finish.
const PREPARE_STEP: usize = 64 << 20;

/// What [`VmArena::reset`] does with the pages the arena used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResetPolicy {
    /// Keep every page: the next pass reuses them without a page fault. The default.
    KeepPages,
    /// Keep the pages of the first `n` bytes and give the rest back to the system, so
    /// that resident memory drops after a peak. They stay committed and are faulted in
    /// again (as zeros) when next used.
    ReleaseAbove(usize),
}

/// How a [`VmArena`] reserves and commits memory; see [`VmArena::with_options`].
///
/// ```
/// use bumpdown::{ResetPolicy, VmArena, VmOptions};
///
/// let options = VmOptions::new(4 << 20)
///     .populate(false)
///     .reset_policy(ResetPolicy::ReleaseAbove(1 << 20));
/// let arena: VmArena = VmArena::with_options(options);
/// assert_eq!(arena.reserved(), 4 << 20);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VmOptions {
    reserve: usize,
    commit_batch: usize,
    populate: bool,
    background: bool,
    huge_pages: bool,
    reset: ResetPolicy,
}

impl VmOptions {
    /// Reserve `bytes` of address space (rounded up to 16 KiB). Defaults: commit in
    /// batches growing from 64 KiB to [`DEFAULT_COMMIT_BATCH`], populate each batch ahead
    /// of use, no huge pages, keep pages on reset.
    pub const fn new(bytes: usize) -> Self {
        VmOptions {
            reserve: bytes,
            commit_batch: DEFAULT_COMMIT_BATCH,
            populate: true,
            background: false,
            huge_pages: false,
            reset: ResetPolicy::KeepPages,
        }
    }

    /// The largest step in which memory is committed (rounded to 16 KiB; at least 64 KiB).
    pub const fn commit_batch(mut self, bytes: usize) -> Self {
        self.commit_batch = bytes;
        self
    }

    /// Whether each committed batch is faulted in at once, in one system call
    /// (`MADV_POPULATE_WRITE`, Linux 5.14+), instead of one page fault per 4 KiB page
    /// on first touch. On by default: with the default batch size it made the first pass
    /// of the seed-004 workload about 1.35x faster (see [`DEFAULT_COMMIT_BATCH`]).
    pub const fn populate(mut self, on: bool) -> Self {
        self.populate = on;
        if !on {
            self.background = false;
        }
        self
    }

    /// Whether a thread of the arena's own populates pages ahead of the bump pointer, so
    /// that page faults and the kernel's zeroing of fresh pages run on another core while
    /// the program writes the pages populated before. Off by default; turns
    /// [`populate`](VmOptions::populate) on.
    ///
    /// The thread starts at the arena's first commit (an arena that never allocates has
    /// none), stays up to [`BACKGROUND_AHEAD`] bytes ahead, sleeps when it has caught up,
    /// and is joined when the arena is dropped. Memory it has populated ahead counts in
    /// [`allocated_bytes`](VmArena::allocated_bytes), and never goes past the
    /// [allocation limit](VmArena::set_allocation_limit). Where no thread can be made,
    /// the arena populates on its own, as without this option.
    ///
    /// It needs a core with nothing else to do, and it pays off only where faults are
    /// mostly the kernel zeroing memory, that is with [`huge_pages`](VmOptions::huge_pages).
    /// Measured on the seed-004 workload (2-core Xeon VM): with huge pages the first pass
    /// took 0.35-0.37x the time of 4 KiB first-touch faults when the second core was
    /// idle (and less CPU time in all, 25.7 against 37.2 ns per allocation); with the
    /// second core busy it gained nothing, since the thread then takes turns with the
    /// program; with 4 KiB pages it made the first pass slower (46-49 against 26-29 ns
    /// per allocation: both cores wait on the same page-table locks). The benchmark
    /// report's seed-004 table has a row for it, with the CPU time it costs.
    ///
    /// ```
    /// use bumpdown::{VmArena, VmOptions};
    ///
    /// let arena: VmArena = VmArena::with_options(VmOptions::new(1 << 30).huge_pages(true).populate_in_background(true));
    /// let block = arena.alloc_slice_fill_copy(1 << 20, 7u8);
    /// assert!(block.iter().all(|&b| b == 7));
    /// ```
    pub const fn populate_in_background(mut self, on: bool) -> Self {
        self.background = on;
        if on {
            self.populate = true;
        }
        self
    }

    /// Whether to ask for transparent huge pages (`MADV_HUGEPAGE`). Off by default:
    /// on virtual machines that hand idle memory back to their host, huge pages can make
    /// first touch several times slower. Measure before turning it on.
    ///
    /// With huge pages, memory is committed in whole aligned 2 MiB blocks (a huge page
    /// needs its whole block committed at once), so the arena holds up to 2 MiB more
    /// than it has handed out.
    pub const fn huge_pages(mut self, on: bool) -> Self {
        self.huge_pages = on;
        self
    }

    /// What [`VmArena::reset`] does with the pages.
    pub const fn reset_policy(mut self, policy: ResetPolicy) -> Self {
        self.reset = policy;
        self
    }
}

/// An arena over one contiguous reservation of virtual memory.
///
/// Reserve generously (address space is free: a 64 GiB reservation costs nothing until
/// used); memory is committed in batches as the bump pointer advances. Unlike [`Arena`],
/// a `VmArena`
/// * never moves or splits anything: every allocation's address is stable and all of
///   them lie in one range;
/// * grows its newest block in place, without copying (the allocator-api2 `grow`, and
///   `alloc_iter`), so a vector or string built last grows for free;
/// * resets in O(1), keeping its pages or giving them back per [`ResetPolicy`].
///
/// It has the same typed allocation API as [`Arena`] (`alloc`, `alloc_slice_copy`,
/// `alloc_str`, `alloc_iter`, `alloc_layout`, their `try_` forms, ...), checkpoints, scope
/// guards and the [`Bump`] trait. Like `Arena` it never runs destructors. Running out of
/// the reservation is an [`AllocError`], never a crash.
///
/// ```
/// use bumpdown::VmArena;
///
/// let mut arena: VmArena = VmArena::new(1 << 20); // reserve 1 MiB (64 GiB is fine too)
/// let a = arena.alloc(1u64);
/// let b = arena.alloc_str("stable");
/// assert_eq!((*a, &*b), (1, "stable"));
/// assert!(arena.stats().used >= 14);
/// arena.reset();
/// assert_eq!(arena.stats().used, 0);
/// ```
///
/// [`Arena`]: crate::Arena
#[repr(C)]
pub struct VmArena<const MIN_ALIGN: usize = 1> {
    // INVARIANT (the bump pointers):
    // * `base <= top <= committed <= base + reserved`, all three carrying the
    //   reservation's provenance; `top % MIN_ALIGN == 0`;
    // * `base..top` holds the allocations; `top..committed` is free, readable and
    //   writable; `committed..base + reserved` is reserved but inaccessible;
    // * `committed - base` is a multiple of `PAGE`, and `base + reserved <= MAX_END`;
    // * `committed <= prepared <= base + reserved`: `committed..prepared` is readable and
    //   writable too, made so ahead of use for the populating thread (`prepared ==
    //   committed` without one), and never goes back to inaccessible. `prepared - base`
    //   is a multiple of `PAGE` and at most the allocation limit when it was raised.
    // `top` and `committed` come first (`repr(C)`), as `Arena`'s `top` and `bottom` do.
    top: Cell<*mut u8>,
    committed: Cell<*mut u8>,
    base: NonNull<u8>,
    reserved: usize,
    /// Every byte at or above `max(touched, top)` reads as zero: it was never handed out
    /// since the reservation was made or its page was discarded. Raised whenever `top`
    /// moves down (reset, rewind, scope exit, deallocation).
    touched: Cell<usize>,
    /// Most bytes in use at once, as of the last fold (see `peak`).
    peak: Cell<usize>,
    /// `committed - base` never grows past this many bytes.
    limit: Cell<usize>,
    /// The next commit step.
    next_batch: Cell<usize>,
    /// End of the readable and writable part (an address; see the invariant above).
    prepared: Cell<usize>,
    /// The populating thread, started at the first commit when the options ask for one
    /// (`None` inside if the system refused a thread). Dropped before the reservation
    /// is released.
    populator: OnceCell<Option<Populator>>,
    options: VmOptions,
    ledger: Ledger,
}

// SAFETY: the arena owns its reservation outright; the raw pointers are not shared with
// anything outside it. Borrowed allocations hold a `&VmArena`, so the arena cannot move
// to another thread while any exist.
unsafe impl<const MIN_ALIGN: usize> Send for VmArena<MIN_ALIGN> {}

impl VmArena {
    /// Reserves `bytes` of address space (rounded up to 16 KiB) with the default
    /// [`VmOptions`].
    ///
    /// # Panics
    /// If the reservation fails. See [`try_new`](VmArena::try_new).
    ///
    /// ```
    /// let arena = bumpdown::VmArena::new(1 << 20);
    /// assert_eq!(*arena.alloc(5u32), 5);
    /// ```
    #[track_caller]
    pub fn new(bytes: usize) -> Self {
        Self::with_min_align_and_options(VmOptions::new(bytes))
    }

    /// Like [`new`](VmArena::new), returning an error instead of panicking.
    ///
    /// ```
    /// assert!(bumpdown::VmArena::try_new(usize::MAX).is_err());
    /// ```
    pub fn try_new(bytes: usize) -> Result<Self, AllocError> {
        Self::try_with_min_align_and_options(VmOptions::new(bytes))
    }

    /// Makes an arena with the given options.
    ///
    /// # Panics
    /// If the reservation fails.
    ///
    /// ```
    /// use bumpdown::{VmArena, VmOptions};
    /// let arena = VmArena::with_options(VmOptions::new(1 << 20).populate(false));
    /// assert_eq!(arena.reserved(), 1 << 20);
    /// ```
    #[track_caller]
    pub fn with_options(options: VmOptions) -> Self {
        Self::with_min_align_and_options(options)
    }

    /// Like [`with_options`](VmArena::with_options), returning an error instead of
    /// panicking.
    pub fn try_with_options(options: VmOptions) -> Result<Self, AllocError> {
        Self::try_with_min_align_and_options(options)
    }
}

impl<const MIN_ALIGN: usize> VmArena<MIN_ALIGN> {
    const VALID_MIN_ALIGN: () =
        assert!(MIN_ALIGN.is_power_of_two() && MIN_ALIGN <= 16, "MIN_ALIGN must be 1, 2, 4, 8 or 16");

    /// Reserves `bytes` of address space for an arena whose every allocation is aligned
    /// to at least `MIN_ALIGN` (1, 2, 4, 8 or 16). `VmArena::new` infers the default
    /// `VmArena<1>`; other alignments are named here.
    ///
    /// # Panics
    /// If the reservation fails.
    ///
    /// ```
    /// let arena = bumpdown::VmArena::<8>::with_min_align(1 << 20);
    /// assert_eq!(arena.alloc(1u8) as *const u8 as usize % 8, 0);
    /// ```
    #[track_caller]
    pub fn with_min_align(bytes: usize) -> Self {
        Self::with_min_align_and_options(VmOptions::new(bytes))
    }

    /// Makes an arena with minimum alignment `MIN_ALIGN` and the given options.
    ///
    /// # Panics
    /// If the reservation fails.
    #[track_caller]
    pub fn with_min_align_and_options(options: VmOptions) -> Self {
        match Self::try_with_min_align_and_options(options) {
            Ok(arena) => arena,
            Err(err) => panic!("bumpdown: cannot reserve {} bytes of address space: {err}", options.reserve),
        }
    }

    /// Like [`with_min_align_and_options`](VmArena::with_min_align_and_options),
    /// returning an error instead of panicking.
    ///
    /// ```
    /// use bumpdown::{VmArena, VmOptions};
    /// assert!(VmArena::<4>::try_with_min_align_and_options(VmOptions::new(usize::MAX)).is_err());
    /// ```
    pub fn try_with_min_align_and_options(mut options: VmOptions) -> Result<Self, AllocError> {
        let () = Self::VALID_MIN_ALIGN;
        let reserved = options.reserve.max(PAGE).checked_add(PAGE - 1).ok_or(AllocError::INVALID_LAYOUT)? & !(PAGE - 1);
        if reserved > MAX_END / 2 {
            return Err(AllocError::INVALID_LAYOUT);
        }
        options.commit_batch = round_up(options.commit_batch.max(FIRST_BATCH).min(reserved), PAGE);
        let base = os::reserve(reserved).ok_or(AllocError::OUT_OF_MEMORY)?;
        let base_addr = base.as_ptr().addr();
        if base_addr.checked_add(reserved).is_none_or(|end| end > MAX_END) {
            // SAFETY: the whole reservation just made, unused.
            unsafe { os::release(base, reserved) };
            return Err(AllocError::OUT_OF_MEMORY);
        }
        if options.huge_pages {
            // SAFETY: the range is the reservation.
            unsafe { os::huge_pages(base.as_ptr(), reserved) };
        }
        Ok(VmArena {
            top: Cell::new(base.as_ptr()),
            committed: Cell::new(base.as_ptr()),
            base,
            reserved,
            touched: Cell::new(base_addr),
            peak: Cell::new(0),
            limit: Cell::new(usize::MAX),
            next_batch: Cell::new(FIRST_BATCH.min(options.commit_batch)),
            prepared: Cell::new(base_addr),
            populator: OnceCell::new(),
            options,
            ledger: Ledger::new(),
        })
    }

    /// Bytes of address space reserved.
    pub fn reserved(&self) -> usize {
        self.reserved
    }

    /// Bytes committed (usable without a system call), or populated ahead by the
    /// [populating thread](VmOptions::populate_in_background) if that is further: what
    /// the arena holds from the system.
    pub fn allocated_bytes(&self) -> usize {
        let populated = self.populator.get().and_then(Option::as_ref).map_or(0, Populator::asked);
        self.committed.get().addr().max(populated) - self.base_addr()
    }

    /// Same as [`allocated_bytes`](VmArena::allocated_bytes): a `VmArena` keeps no
    /// metadata in its reservation.
    pub fn allocated_bytes_including_metadata(&self) -> usize {
        self.allocated_bytes()
    }

    /// Bytes that can be allocated before the next commit.
    pub fn chunk_capacity(&self) -> usize {
        self.committed.get().addr() - self.top.get().addr()
    }

    /// Caps committed memory at `limit` bytes (rounded down to 16 KiB): allocations that
    /// would need more fail with [`AllocErrorKind::LimitReached`](crate::AllocErrorKind).
    /// `None` removes the cap. Memory already committed stays.
    ///
    /// ```
    /// let arena: bumpdown::VmArena = bumpdown::VmArena::new(4 << 20);
    /// arena.set_allocation_limit(Some(1 << 20));
    /// assert!(arena.try_alloc_slice_fill_copy(2 << 20, 0u8).is_err());
    /// assert!(arena.try_alloc_slice_fill_copy(1000, 0u8).is_ok());
    /// ```
    pub fn set_allocation_limit(&self, limit: Option<usize>) {
        self.limit.set(limit.unwrap_or(usize::MAX));
    }

    /// The cap set by [`set_allocation_limit`](VmArena::set_allocation_limit).
    pub fn allocation_limit(&self) -> Option<usize> {
        Some(self.limit.get()).filter(|&l| l != usize::MAX)
    }

    /// Panics, printing the addresses involved, if an invariant the bump pointer
    /// relies on is broken. Tests and fuzzers call it after every operation.
    ///
    /// ```
    /// let arena: bumpdown::VmArena = bumpdown::VmArena::new(1 << 20);
    /// arena.alloc_str("checked");
    /// arena.check_invariants();
    /// ```
    pub fn check_invariants(&self) {
        let (base, top, committed) = (self.base_addr(), self.top.get().addr(), self.committed.get().addr());
        let (end, prepared) = (base + self.reserved, self.prepared.get());
        assert!(
            base <= top && top <= committed && committed <= end && end <= MAX_END,
            "base {base:#x} top {top:#x} committed {committed:#x} end {end:#x}"
        );
        assert!(top % MIN_ALIGN == 0, "top {top:#x} not a multiple of {MIN_ALIGN}");
        assert!((committed - base) % PAGE == 0, "committed {committed:#x} not on a page boundary");
        assert!(
            committed <= prepared && prepared <= end && (prepared - base) % PAGE == 0,
            "prepared {prepared:#x} outside {committed:#x}..={end:#x} or off a page boundary"
        );
    }

    /// A snapshot of the arena's memory use: `capacity` and `held_bytes` are the
    /// committed bytes, `used` the bytes from the start of the reservation to the bump
    /// pointer (alignment padding included, so `wasted` is 0), `peak_used` the most
    /// ever in use at once.
    ///
    /// ```
    /// let arena: bumpdown::VmArena = bumpdown::VmArena::new(1 << 20);
    /// arena.alloc(1u32);
    /// assert_eq!(arena.stats().used, 4);
    /// ```
    pub fn stats(&self) -> Stats {
        Stats {
            chunks: usize::from(self.allocated_bytes() > 0),
            big_chunks: 0,
            spare_chunks: 0,
            capacity: self.allocated_bytes(),
            held_bytes: self.allocated_bytes(),
            used: self.used(),
            wasted: 0,
            peak_used: self.peak.get().max(self.touched.get() - self.base_addr()).max(self.used()),
        }
    }

    /// Frees everything: the bump pointer returns to the start of the reservation, in
    /// O(1). What happens to the pages follows the [`ResetPolicy`].
    ///
    /// ```
    /// let mut arena: bumpdown::VmArena = bumpdown::VmArena::new(1 << 20);
    /// let first = arena.alloc(1u8) as *const u8;
    /// arena.reset();
    /// assert_eq!(arena.alloc(2u8) as *const u8, first);
    /// ```
    pub fn reset(&mut self) {
        self.ledger.reset();
        // SAFETY: `&mut self` proves no allocation is borrowed; `base` is the start of
        // the range, aligned to a page.
        unsafe { self.lower_top(self.base.as_ptr()) };
        if let ResetPolicy::ReleaseAbove(keep) = self.options.reset {
            self.discard_above(keep);
        }
    }

    /// Gives the touched pages above `keep` bytes back to the system.
    fn discard_above(&self, keep: usize) {
        let base = self.base_addr();
        let from = round_up(keep.min(self.reserved), PAGE).max(round_up(self.used(), PAGE));
        let to = round_up(self.touched.get() - base, PAGE);
        if to <= from {
            return;
        }
        self.fold_peak();
        // SAFETY: `base + from .. base + to` is page-aligned, committed (`touched` never
        // passes `committed`, a page multiple) and above `top`, so unused.
        if unsafe { os::discard(self.base.as_ptr().wrapping_add(from), to - from) } {
            self.touched.set(base + from);
        }
    }

    /// Saves the arena's position; see [`Arena::checkpoint`](crate::Arena::checkpoint).
    pub fn checkpoint(&self) -> Checkpoint {
        let raw = RawCheckpoint { chunk: None, ptr: self.top.get(), serial: 0 };
        self.ledger.checkpoint(raw)
    }

    /// Frees everything allocated after `checkpoint`.
    ///
    /// # Panics
    /// If the checkpoint is from another arena or stale. See
    /// [`try_rewind`](VmArena::try_rewind).
    ///
    /// ```
    /// let mut arena: bumpdown::VmArena = bumpdown::VmArena::new(1 << 20);
    /// let cp = arena.checkpoint();
    /// arena.alloc_slice_fill_copy(1000, 0u8);
    /// arena.rewind(cp);
    /// assert_eq!(arena.stats().used, 0);
    /// ```
    #[track_caller]
    pub fn rewind(&mut self, checkpoint: Checkpoint) {
        if let Err(err) = self.try_rewind(checkpoint) {
            panic!("bumpdown: cannot rewind: {err}");
        }
    }

    /// Like [`rewind`](VmArena::rewind), returning an error for a foreign or stale
    /// checkpoint (the arena is left as it was).
    pub fn try_rewind(&mut self, checkpoint: Checkpoint) -> Result<(), RewindError> {
        // SAFETY: `&mut self`: nothing allocated is borrowed.
        unsafe { self.rewind_unborrowed(checkpoint, 0) }
    }

    /// # Safety
    /// No allocation made after the checkpoint is in use.
    unsafe fn rewind_unborrowed(&self, checkpoint: Checkpoint, after: u64) -> Result<(), RewindError> {
        let target = checkpoint.raw.ptr;
        self.ledger.rewind_to(&checkpoint, after)?;
        // The ledger proved it is ours and not stale, so `base <= target`. A pointer
        // below the reservation must never become `top`: check anyway.
        if target.addr() < self.base_addr() {
            debug_assert!(false, "a valid checkpoint below the reservation");
            return Err(RewindError::StaleCheckpoint);
        }
        // SAFETY: from the caller; `target` was this arena's `top` when the checkpoint
        // was taken (the ledger checked it is ours), so it carries the reservation's
        // provenance and is a multiple of MIN_ALIGN.
        unsafe { self.free_from(target) };
        Ok(())
    }

    /// Frees everything at or above `mark`, a position `top` had earlier.
    ///
    /// `mark` may lie above `top`: freeing or shrinking the newest block lowers `top`,
    /// also below a checkpoint or scope entry taken after that block was made.
    /// Everything allocated since `mark` is gone then, so `top` stays where it is
    /// (raising it would leak the bytes in between until the next reset).
    ///
    /// # Safety
    /// `mark` was this arena's `top` (so it is in `base..`, carries the reservation's
    /// provenance and is a multiple of MIN_ALIGN), and nothing allocated since then is
    /// in use.
    #[inline]
    unsafe fn free_from(&self, mark: *mut u8) {
        if mark.addr() < self.top.get().addr() {
            // SAFETY: from the caller, and `mark < top`.
            unsafe { self.lower_top(mark) };
        }
    }

    /// Starts a scope that ends when the returned guard drops: everything allocated
    /// through the guard is freed then. The guard derefs to the arena.
    ///
    /// ```
    /// let mut arena: bumpdown::VmArena = bumpdown::VmArena::new(1 << 20);
    /// {
    ///     let scope = arena.scope_guard();
    ///     scope.alloc_slice_fill_copy(100, 0u8);
    /// }
    /// assert_eq!(arena.stats().used, 0);
    /// ```
    pub fn scope_guard(&mut self) -> VmScopeGuard<'_, MIN_ALIGN> {
        VmScopeGuard::enter(self)
    }

    /// Runs `f` with a scope: everything allocated through it is freed when `f` returns
    /// (or unwinds). The closure's result cannot borrow the scope.
    ///
    /// ```
    /// let mut arena: bumpdown::VmArena = bumpdown::VmArena::new(1 << 20);
    /// let sum: u64 = arena.scope(|s| s.alloc_slice_fill_with(100, |i| i as u64).iter().sum());
    /// assert_eq!(sum, 4950);
    /// assert_eq!(arena.stats().used, 0);
    /// ```
    pub fn scope<R>(&mut self, f: impl FnOnce(&mut VmScopeGuard<'_, MIN_ALIGN>) -> R) -> R {
        f(&mut self.scope_guard())
    }

    // ----- Internals -----------------------------------------------------------------

    fn base_addr(&self) -> usize {
        self.base.as_ptr().addr()
    }

    fn used(&self) -> usize {
        self.top.get().addr() - self.base_addr()
    }

    fn fold_peak(&self) {
        let most = self.touched.get().max(self.top.get().addr()) - self.base_addr();
        self.peak.set(self.peak.get().max(most));
    }

    /// Moves the bump pointer down to `new_top`, noting how far it had come.
    ///
    /// # Safety
    /// `new_top` is in `base..=top`, derived from the reservation, a multiple of
    /// MIN_ALIGN, and nothing at or above it is in use.
    #[inline(always)]
    unsafe fn lower_top(&self, new_top: *mut u8) {
        let top = self.top.get().addr();
        debug_assert!(self.base_addr() <= new_top.addr() && new_top.addr() <= top);
        // SAFETY: `new_top..top` is committed and no longer in use (the caller).
        unsafe { crate::poison::fill(new_top, top) };
        self.touched.set(self.touched.get().max(top));
        self.top.set(new_top);
    }

    /// Commits memory up to address `end` (`end >= top`), in batches.
    fn commit_to(&self, end: usize) -> Result<(), AllocError> {
        let committed = self.committed.get();
        if end <= committed.addr() {
            return Ok(());
        }
        let base = self.base_addr();
        // `end >= top >= base`.
        let need = end - base;
        if need > self.reserved {
            return Err(AllocError::FULL);
        }
        let need = round_up(need, PAGE);
        let cap = round_down(self.limit.get(), PAGE).min(self.reserved);
        if need > cap {
            return Err(AllocError::LIMIT_REACHED);
        }
        let have = committed.addr() - base;
        let batch = self.next_batch.get();
        let mut want = need.max(have.saturating_add(batch)).min(cap);
        if self.options.huge_pages {
            // End on a 2 MiB boundary, so that every huge page's block is committed whole.
            want = (round_up(base + want, HUGE_PAGE) - base).min(cap);
        }
        let populator = self.populator();
        // With a populating thread: ask it to work ahead of `want`, on memory made usable
        // in large steps (changing protections stalls while the thread populates).
        let (ahead, further) = match populator {
            Some(_) => {
                let ahead = want.clamp(self.options.commit_batch, BACKGROUND_AHEAD);
                let ahead = (round_up(base + want.saturating_add(ahead), HUGE_PAGE) - base).min(cap);
                (ahead, ahead.saturating_add(PREPARE_STEP).min(cap))
            }
            None => (want, want),
        };
        if base + ahead > self.prepared.get() {
            // If the system refuses that much, `want` is all this call needs.
            self.prepare(further).or_else(|err| if further > want { self.prepare(want) } else { Err(err) })?;
        }
        match populator {
            // SAFETY: the end asked for is at most `prepared`, so everything from the
            // thread's start (the reservation's base) up to it is readable and writable,
            // and stays mapped until the thread is joined (in `drop`, before the
            // reservation is released).
            Some(populator) => unsafe { populator.ask(base + want, (base + ahead).min(self.prepared.get())) },
            // SAFETY: `have..want` was just made readable and writable.
            None if self.options.populate => unsafe { os::populate(committed, want - have) },
            None => {}
        }
        self.committed.set(committed.wrapping_add(want - have));
        self.next_batch.set(batch.saturating_mul(2).min(self.options.commit_batch));
        Ok(())
    }

    /// Makes the reservation readable and writable up to `end` bytes from its base
    /// (`end <= reserved`, a page multiple).
    fn prepare(&self, end: usize) -> Result<(), AllocError> {
        let from = self.prepared.get();
        let to = self.base_addr() + end;
        if to <= from {
            return Ok(());
        }
        // SAFETY: `from..to` (page multiples, as `prepared` and `end` are) lies inside
        // the reservation.
        if !unsafe { os::commit(self.base.as_ptr().with_addr(from), to - from) } {
            return Err(AllocError::OUT_OF_MEMORY);
        }
        self.prepared.set(to);
        Ok(())
    }

    /// The populating thread, started on first use if the options ask for one.
    fn populator(&self) -> Option<&Populator> {
        // Populating is a Linux system call (and Miri runs none).
        if !self.options.background || !cfg!(target_os = "linux") || cfg!(miri) {
            return None;
        }
        self.populator.get_or_init(|| Populator::start(self.base_addr(), BACKGROUND_PIECE)).as_ref()
    }

    crate::alloc_api::alloc_api!('_);
}

// SAFETY: the struct's invariant is the trait's (up): `top..committed` is free, readable
// and writable, `base..top` holds the allocations, `committed` is page-aligned (so a
// multiple of CHUNK_ALIGN) and at most `MAX_END`; `top` carries the reservation's
// provenance. The slow path only commits more and moves `top` past a fresh block.
unsafe impl<const MIN_ALIGN: usize> Cursor for VmArena<MIN_ALIGN> {
    const MIN_ALIGN: usize = MIN_ALIGN;
    const UP: bool = true;
    const PREFETCHES: bool = true;

    #[inline(always)]
    fn cursor_and_limit(&self) -> (*mut u8, usize) {
        (self.top.get(), self.committed.get().addr())
    }

    #[inline(always)]
    fn far_end(&self) -> usize {
        self.base_addr()
    }

    /// Moves the bump pointer and prefetches ahead of it (see `prefetch_ahead`).
    #[inline(always)]
    unsafe fn set_cursor(&self, p: *mut u8) {
        self.top.set(p);
        crate::engine::prefetch_ahead(p);
    }

    /// The committed part has no room: commits more (or fails at the limit or the end
    /// of the reservation).
    #[cold]
    #[inline(never)]
    fn alloc_slow(&self, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        if Layout::from_size_align(size, align).is_err() {
            return Err(AllocError::INVALID_LAYOUT);
        }
        let top = self.top.get();
        let align = align.max(MIN_ALIGN);
        let start = top.addr().checked_add(align - 1).ok_or(AllocError::FULL)? & !(align - 1);
        let end = start.checked_add(round_up(size, MIN_ALIGN)).ok_or(AllocError::FULL)?;
        self.commit_to(end)?;
        // SAFETY: `start..end` is committed and free (at or above `top`); `end` is a
        // multiple of MIN_ALIGN derived from `top`.
        unsafe {
            self.top.set(top.with_addr(end));
            Ok(NonNull::new_unchecked(top.with_addr(start)))
        }
    }

    /// Poisons what comes back (with the feature) and notes how far `top` had come.
    unsafe fn release_to(&self, p: *mut u8) {
        // SAFETY: forwarded: `p` is in `base..=top`, derived from `top`, a multiple of
        // MIN_ALIGN, and nothing at or above it is in use.
        unsafe { self.lower_top(p) }
    }

    /// Fresh pages read as zero: every byte at or above `max(touched, top)` (see
    /// `touched`).
    fn zero_from(&self) -> usize {
        self.touched.get().max(self.top.get().addr())
    }

    /// Commits memory for the newest block to grow in place.
    fn make_room_to(&self, end: usize) -> Result<(), AllocError> {
        self.commit_to(end)
    }
}

impl<const MIN_ALIGN: usize> Drop for VmArena<MIN_ALIGN> {
    fn drop(&mut self) {
        // Stop and join the populating thread first: it works on the reservation.
        drop(self.populator.take());
        // SAFETY: the whole reservation; `&mut self` proves nothing points into it, and
        // no thread works on it any more.
        unsafe { os::release(self.base, self.reserved) }
    }
}

impl<const MIN_ALIGN: usize> fmt::Debug for VmArena<MIN_ALIGN> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VmArena")
            .field("min_align", &MIN_ALIGN)
            .field("reserved", &self.reserved)
            .field("options", &self.options)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl<const MIN_ALIGN: usize> Bump for VmArena<MIN_ALIGN> {
    type Checkpoint = Checkpoint;

    fn try_alloc_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        VmArena::try_alloc_layout(self, layout)
    }

    fn checkpoint(&self) -> Checkpoint {
        VmArena::checkpoint(self)
    }

    fn try_rewind(&mut self, checkpoint: Checkpoint) -> Result<(), RewindError> {
        VmArena::try_rewind(self, checkpoint)
    }
}

/// A scope of a [`VmArena`] that ends when dropped; see [`VmArena::scope_guard`].
/// Derefs to the arena; allocations through it cannot outlive it.
pub struct VmScopeGuard<'a, const MIN_ALIGN: usize = 1> {
    // INVARIANT: the arena is this guard's alone while it lives (borrowed mutably to
    // make it, or from an outer guard borrowed mutably); `entry` was its `top` then.
    arena: &'a VmArena<MIN_ALIGN>,
    entry: *mut u8,
    serial: u64,
}

impl<'a, const MIN_ALIGN: usize> VmScopeGuard<'a, MIN_ALIGN> {
    fn enter(arena: &'a VmArena<MIN_ALIGN>) -> Self {
        VmScopeGuard { arena, entry: arena.top.get(), serial: arena.ledger.serial() }
    }

    /// Starts a nested scope that ends when the returned guard drops.
    ///
    /// ```
    /// let mut arena: bumpdown::VmArena = bumpdown::VmArena::new(1 << 20);
    /// let mut outer = arena.scope_guard();
    /// outer.alloc(1u8);
    /// {
    ///     let inner = outer.scope_guard();
    ///     inner.alloc(2u64);
    /// }
    /// assert_eq!(outer.stats().used, 1);
    /// ```
    pub fn scope_guard(&mut self) -> VmScopeGuard<'_, MIN_ALIGN> {
        VmScopeGuard::enter(self.arena)
    }

    /// Rewinds to a checkpoint taken since this guard began.
    ///
    /// # Errors
    /// For a foreign or stale checkpoint, or one taken before the guard.
    pub fn try_rewind(&mut self, checkpoint: Checkpoint) -> Result<(), RewindError> {
        // SAFETY: allocations through the guard borrow it, so `&mut self` proves none is
        // in use; those made before the guard are protected by refusing checkpoints
        // older than its entry.
        unsafe { self.arena.rewind_unborrowed(checkpoint, self.serial) }
    }
}

impl<const MIN_ALIGN: usize> Deref for VmScopeGuard<'_, MIN_ALIGN> {
    type Target = VmArena<MIN_ALIGN>;

    fn deref(&self) -> &VmArena<MIN_ALIGN> {
        self.arena
    }
}

impl<const MIN_ALIGN: usize> Drop for VmScopeGuard<'_, MIN_ALIGN> {
    fn drop(&mut self) {
        self.arena.ledger.exit(self.serial);
        // SAFETY: allocations made through the guard borrowed it and have ended; `entry`
        // was the arena's `top` when the guard began. `top` may have gone below it since
        // (a block made before the guard freed through it), which `free_from` allows.
        unsafe { self.arena.free_from(self.entry) };
    }
}

impl<const MIN_ALIGN: usize> Bump for VmScopeGuard<'_, MIN_ALIGN> {
    type Checkpoint = Checkpoint;

    fn try_alloc_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        self.arena.try_alloc_layout(layout)
    }

    fn checkpoint(&self) -> Checkpoint {
        self.arena.checkpoint()
    }

    fn try_rewind(&mut self, checkpoint: Checkpoint) -> Result<(), RewindError> {
        VmScopeGuard::try_rewind(self, checkpoint)
    }
}
