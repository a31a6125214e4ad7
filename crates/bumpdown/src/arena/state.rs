//! `ArenaState`: everything of an [`Arena`](super::Arena) but its bump pointers, behind
//! one pointer: the chunk lists, the slow path, reset, rewind and the statistics. It
//! lives in a block of its own (or at the start of a `BufferArena`'s buffer), so that
//! the code out of line never takes the `Arena`'s own address, and a loop over a
//! stack-local arena keeps the bump pointer in a register (docs/DESIGN.md, "Where the
//! bump pointer lives").

// Handing out `&mut` to fresh, disjoint blocks from `&self` is what an arena is for.
#![allow(clippy::mut_from_ref)]

use core::alloc::Layout;
use core::cell::Cell;
use core::ptr::{self, NonNull};

use crate::alloc_api::prelude::*;
use crate::backing::BackingAllocator;
use crate::bumping::{bump_checked, bump_up, round_up, CHUNK_ALIGN, MAX_END, MIN_BOTTOM};
use crate::checkpoint::{Ledger, RawCheckpoint};
use crate::chunk::{chunk_size_for, Chunk, DATA_ALIGN, HEADER_SIZE};
use crate::engine::Cursor;
use crate::error::AllocError;
use crate::stats::Stats;

/// Size of the first regular chunk (a power of two; each chunk's block is this
/// minus [`MALLOC_SLACK`], so that it and the backing allocator's own header fill
/// a power-of-two size class).
pub(super) const FIRST_CHUNK_CLASS: usize = 512;
/// Default cap on regular chunk sizes: 4 MiB (see `with_max_chunk_size`).
pub(super) const DEFAULT_MAX_CHUNK_CLASS: usize = 4 << 20;
/// What a typical `malloc` adds to each block.
pub(super) const MALLOC_SLACK: usize = 16;
/// A request that needs more than `max chunk size / BIG_DIVISOR` gets an out-of-band
/// chunk of its own.
pub(super) const BIG_DIVISOR: usize = 8;

/// The bookkeeping of an arena (see the module's docs). Its first fields (`ptr`, `end`,
/// `start`, `high_ptr`, `epoch`, `dirty`) are the handle's as of the last call into the
/// state: the `Arena` writes `ptr` and `high_ptr` (and the backing allocator's address)
/// before every call and copies all six back after it, so that its fast paths (bump,
/// reset, scope entry and exit) never read the state. They lie in the same order at the
/// same offsets as in the `Arena`, so that the allocation slow path copies them back in
/// one go (`Arena::sync_from_slow_path`, which checks the offsets).
#[repr(C, align(64))]
pub(crate) struct ArenaState<const MIN_ALIGN: usize, A: BackingAllocator> {
    // INVARIANT (the bump pointers; everything the fast path relies on):
    // * `MIN_BOTTOM <= ptr <= end <= MAX_END`, `end % CHUNK_ALIGN == 0`,
    //   `ptr % MIN_ALIGN == 0`;
    // * with a current chunk, `ptr..end` is its free part: `end` is its `end_addr()`,
    //   `ptr >= start` (its `bottom_addr()`, kept in `start`), both pointers carry its
    //   provenance, and `start..ptr` holds the allocations made in it, oldest first;
    // * without one (a new or emptied arena), `ptr == end == start ==` the address of
    //   the static `EMPTY` sentinel: a chunk of no bytes. Every non-empty request fails
    //   on it, so the fast path needs no "has a chunk yet?" branch, and `new` is a
    //   `const fn`.
    // `ptr` and `end` are the first two fields (`repr(C)`), so one base register reaches
    // both; the C header relies on this order.
    pub(crate) ptr: Cell<*mut u8>,
    pub(crate) end: Cell<*mut u8>,

    // The fields `reset` and scope exits touch come next: with `ptr` and `end` they fill
    // the first cache line (the struct is aligned to 64), so resetting many arenas
    // touches one line each.
    /// Where `current`'s usable part starts (its `bottom_addr()`), or the `EMPTY`
    /// sentinel without a current chunk: a copy kept here so that `reset` and the
    /// byte accounting need not read the chunk header.
    pub(crate) start: Cell<*mut u8>,
    /// The highest `ptr` seen before giving memory back in the current chunk since the
    /// last fold (0: none). Scope exits and rewinds only raise this mark; the peak is
    /// computed from it when chunks or out-of-band blocks change, or on `stats`.
    pub(crate) high_ptr: Cell<usize>,
    /// Counts the changes a rewind cannot undo by just moving `ptr`: chunk switches,
    /// out-of-band chunks taken or freed, checkpoints taken, chunk lists rewound. A
    /// checkpoint whose `epoch` still matches is restored by setting `ptr` alone.
    /// It is also the arena's clock: it never decreases (a `u64` bumped once per slow
    /// event cannot wrap), and each out-of-band chunk and checkpoint takes the value it
    /// moved to as its serial, so a saved epoch tells which came after it.
    pub(crate) epoch: Cell<u64>,
    /// Whether `epoch` moved since the last `reset_with_limit`. While it is `false` the
    /// arena has used only its current chunk since then, holds nothing out of band, and
    /// has handed out no checkpoint, so `reset` only has to move `ptr` (its fast path).
    pub(crate) dirty: Cell<bool>,
    /// Most bytes in use at once since the arena was made, as of the last fold (see
    /// `update_peak`).
    pub(crate) peak_used: Cell<usize>,
    /// The current chunk (see the chunk lists below).
    pub(crate) current: Cell<Option<Chunk>>,

    // Second cache line: bookkeeping of the slow paths (scope entries and exits read only
    // the first).
    /// Checkpoint bookkeeping (see `checkpoint.rs`).
    pub(crate) ledger: Ledger,
    /// Bytes below `saved_ptr` in the chunks before `current` (allocations + padding).
    pub(crate) retired_used: Cell<usize>,
    /// Bytes of the out-of-band allocations.
    pub(crate) big_used: Cell<usize>,

    // INVARIANT (the chunk lists; every chunk the arena holds is in exactly one):
    // * the chunk list, from `first` along `next` (and back along `prev`): every regular
    //   chunk, in the order they are filled. `current` (above) is in it, and is `None`
    //   only when the list is empty. The chunks before `current` were filled since the
    //   last reset (their `saved_ptr` and `used_before` valid, their serials increasing
    //   towards `current`); the chunks after it are spares, empty, in the order they will
    //   be used. A reset or a rewind therefore only moves `current` back along the list,
    //   whatever the number of chunks. And a scope's entry needs no "take a spare first?"
    //   check: an arena with no current chunk has no chunk at all.
    // * `big`: out-of-band chunks, newest first along `prev`, each holding one allocation
    //   at its `saved_ptr`, placed at the chunk's high end (the bytes from it to the
    //   chunk's end are what it uses).
    pub(crate) first: Cell<Option<Chunk>>,
    /// The end address of `first`'s block (0 while there is none): a reset makes `first`
    /// current without reading its header, a line the fill left long before.
    pub(crate) first_end: Cell<usize>,
    pub(crate) big: Cell<Option<Chunk>>,
    /// Bytes held from the backing allocator, all lists, headers included, and this
    /// state's own block (unless it lives in the caller's buffer).
    pub(crate) held: Cell<usize>,
    /// `held` never grows past this (`usize::MAX`: no limit).
    pub(crate) limit: Cell<usize>,
    /// Size class (a power of two) of the next regular chunk.
    pub(crate) next_class: Cell<usize>,
    /// Largest size class of a regular chunk.
    pub(crate) max_class: Cell<usize>,
    /// Why the last failed slow-path call of a scope failed (see `scope.rs`).
    pub(crate) last_error: Cell<AllocError>,
    /// The chunk made of a caller's buffer (`BufferArena`), if any: in the lists like any
    /// regular chunk, but never freed and not counted in `held`.
    pub(crate) borrowed: Cell<Option<Chunk>>,
    /// Whether this state lives at the start of the caller's buffer (`BufferArena`)
    /// rather than in a block of the backing allocator.
    pub(crate) in_buffer: bool,
    /// The backing allocator: the address of the `Arena`'s, set by the `Arena` before
    /// every call into the state (the `Arena` may have moved since the last one). For a
    /// zero-sized allocator it is a dangling, aligned address, which is all a reference
    /// to a zero-sized value needs.
    pub(crate) alloc: Cell<*const A>,
}

// SAFETY: the bump pointer invariant on the struct's fields is the trait's (up):
// `ptr..end` is the free part of the current chunk (or the empty sentinel), `start..ptr`
// its allocations; `alloc_slow` only ever installs chunks that keep the invariant.
unsafe impl<const MIN_ALIGN: usize, A: BackingAllocator> Cursor for ArenaState<MIN_ALIGN, A> {
    const MIN_ALIGN: usize = MIN_ALIGN;
    const UP: bool = true;

    #[inline(always)]
    fn cursor_and_limit(&self) -> (*mut u8, usize) {
        (self.ptr.get(), self.end.get().addr())
    }

    /// The start of the current chunk's usable part (the sentinel's address without one).
    #[inline(always)]
    fn far_end(&self) -> usize {
        self.start.get().addr()
    }

    #[inline(always)]
    unsafe fn set_cursor(&self, p: *mut u8) {
        // SAFETY: the same contract.
        unsafe { self.set_ptr(p) }
    }

    /// The current chunk has no room: finds room in a spare chunk, a new chunk, or an
    /// out-of-band chunk, moves the bump pointer, and returns the block.
    #[cold]
    #[inline(never)]
    fn alloc_slow(&self, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        if Layout::from_size_align(size, align).is_err() {
            return Err(AllocError::INVALID_LAYOUT);
        }
        // The caller's fast check may have been conservative; try the exact one.
        if let Some(p) = self.bump_current_checked(size, align) {
            return Ok(p);
        }
        let need = chunk_size_for(size, align).ok_or(AllocError::INVALID_LAYOUT)?;
        if need > self.max_class.get() / BIG_DIVISOR {
            debug_assert!(!Self::lands_below_ptr(size, align));
            return self.alloc_big(size, align, need);
        }
        let chunk = match self.take_spare(size, align) {
            Some(chunk) => chunk,
            None => {
                let chunk = self.new_regular_chunk(need)?;
                self.link_after_current(chunk);
                chunk
            }
        };
        self.install(chunk);
        // Only a chunk that landed below MIN_BOTTOM (never on hosted systems) can fail here.
        self.bump_current_checked(size, align).ok_or(AllocError::OUT_OF_MEMORY)
    }

    /// Notes the high point for the peak before the pointer moves back down.
    unsafe fn release_to(&self, p: *mut u8) {
        self.mark_high();
        // SAFETY: forwarded: `p` lies between the chunk's start and `ptr`, derived from
        // `ptr`, a multiple of MIN_ALIGN; the bytes above it are free again.
        unsafe { self.set_ptr(p) }
    }

    /// If `ptr` is the allocation of one of the two newest out-of-band chunks, frees
    /// that chunk and returns true.
    unsafe fn free_if_big(&self, ptr: NonNull<u8>) -> bool {
        let mut prev: Option<Chunk> = None;
        let mut cursor = self.big.get();
        for _ in 0..2 {
            let Some(chunk) = cursor else { return false };
            if chunk.saved_ptr() == ptr.as_ptr().addr() {
                self.update_peak();
                match prev {
                    None => self.big.set(chunk.prev()),
                    Some(p) => p.set_prev(chunk.prev()),
                }
                self.big_used.set(self.big_used.get() - (chunk.end_addr() - chunk.saved_ptr()));
                self.bump_epoch();
                self.held.set(self.held.get() - chunk.size());
                // SAFETY: unlinked above; its only allocation is `ptr`, which the caller
                // no longer uses.
                unsafe { chunk.free(self.alloc()) };
                return true;
            }
            prev = cursor;
            cursor = chunk.prev();
        }
        false
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> ArenaState<MIN_ALIGN, A> {
    const VALID_MIN_ALIGN: () =
        assert!(MIN_ALIGN.is_power_of_two() && MIN_ALIGN <= CHUNK_ALIGN, "MIN_ALIGN must be 1, 2, 4, 8 or 16");

    /// The state of an empty arena: no chunks, at the `EMPTY` sentinel, with the
    /// settings the arena had until then.
    pub(crate) fn new(in_buffer: bool, settings: Settings) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID_MIN_ALIGN;
        let empty = empty_chunk();
        ArenaState {
            ptr: Cell::new(empty),
            end: Cell::new(empty),
            current: Cell::new(None),
            first: Cell::new(None),
            first_end: Cell::new(0),
            big: Cell::new(None),
            start: Cell::new(empty),
            held: Cell::new(Self::own_size(in_buffer)),
            limit: Cell::new(settings.limit),
            next_class: Cell::new(FIRST_CHUNK_CLASS.min(settings.max_class)),
            max_class: Cell::new(settings.max_class),
            retired_used: Cell::new(0),
            big_used: Cell::new(0),
            peak_used: Cell::new(0),
            high_ptr: Cell::new(0),
            epoch: Cell::new(0),
            dirty: Cell::new(false),
            last_error: Cell::new(AllocError::OUT_OF_MEMORY),
            ledger: Ledger::new(),
            borrowed: Cell::new(None),
            in_buffer,
            alloc: Cell::new(ptr::null()),
        }
    }

    /// Takes the handle's bump pointer, high mark and allocator address before a call
    /// into the state (see the struct).
    #[inline(always)]
    pub(crate) fn enter(&self, alloc: *const A, ptr: *mut u8, high_ptr: usize) {
        self.alloc.set(alloc);
        self.ptr.set(ptr);
        self.high_ptr.set(high_ptr);
    }

    /// The backing allocator (see the field).
    #[inline(always)]
    pub(crate) fn alloc(&self) -> &A {
        // SAFETY: the `Arena` set the address before this call into the state, and it
        // outlives the call: its own value, borrowed for the call, or a dangling, aligned
        // address for a zero-sized allocator.
        unsafe { &*self.alloc.get() }
    }

    /// Gives an arena with no chunks a first chunk of at least `bytes` bytes
    /// (`Arena::with_capacity_in`).
    pub(crate) fn reserve_first(&self, bytes: usize) -> Result<(), AllocError> {
        debug_assert!(self.first.get().is_none());
        let need = chunk_size_for(bytes, 1).ok_or(AllocError::INVALID_LAYOUT)?;
        let class = class_for(need).ok_or(AllocError::INVALID_LAYOUT)?;
        let chunk = self.new_chunk(class - MALLOC_SLACK)?;
        self.next_class.set(class.saturating_mul(2).min(self.max_class.get()).max(class));
        self.link_after_current(chunk);
        self.install(chunk);
        Ok(())
    }

    /// The bytes of `held` that are the state's own block: none in a caller's buffer.
    pub(crate) const fn own_size(in_buffer: bool) -> usize {
        if in_buffer {
            0
        } else {
            core::mem::size_of::<Self>()
        }
    }

    /// Sets the cap on regular chunk sizes (`Arena::with_max_chunk_size`).
    pub(crate) fn set_max_chunk_size(&self, bytes: usize) {
        self.max_class.set(Settings::DEFAULT.with_max_chunk_size(bytes).max_class);
        self.next_class.set(self.next_class.get().min(self.max_class.get()));
    }

    // ----- The bump pointer (the `Cursor` of `engine.rs` drives it) ------------------

    /// The current bump pointer.
    #[inline(always)]
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr.get()
    }

    /// Moves the bump pointer.
    ///
    /// # Safety
    /// `new_ptr` lies in `start..=end` of the current chunk, is derived from `ptr`, and
    /// is a multiple of `MIN_ALIGN`; the bytes between it and `ptr` are not otherwise in
    /// use.
    #[inline(always)]
    pub(crate) unsafe fn set_ptr(&self, new_ptr: *mut u8) {
        // SAFETY: the same contract.
        unsafe { move_ptr::<MIN_ALIGN>(&self.ptr, self.start.get(), self.end.get(), new_ptr) }
    }

    /// Whether `alloc_slow` places every block of this size and alignment in a regular
    /// chunk, ending at the bump pointer it leaves (so the block starts
    /// `round_up(size, MIN_ALIGN)` below the new `ptr`): true for requests that can never
    /// go out of band, whose chunk needs at most the first chunk's size over
    /// `BIG_DIVISOR` (the cap on chunk sizes is never below the first chunk's). Folds to a
    /// constant for constant arguments.
    #[inline(always)]
    pub(crate) fn lands_below_ptr(size: usize, align: usize) -> bool {
        chunk_size_for(size, align).is_some_and(|need| need <= FIRST_CHUNK_CLASS / BIG_DIVISOR)
    }

    /// Takes `size` bytes aligned to `align` from the current chunk: the engine's bump,
    /// whose upward arithmetic checks every step for any size.
    fn bump_current_checked(&self, size: usize, align: usize) -> Option<NonNull<u8>> {
        // The empty sentinel has room for nothing but zero bytes.
        NonNull::new(Engine::bump_layout(self, size, align)?)
    }

    /// The first spare chunk with room for the request, moved to just after the current
    /// chunk if it was further on (the other spares keep their order).
    fn take_spare(&self, size: usize, align: usize) -> Option<Chunk> {
        let current = self.current.get()?;
        let mut cursor = current.next();
        while let Some(chunk) = cursor {
            if bump_up(chunk.bottom_addr(), chunk.end_addr(), size, align, MIN_ALIGN).is_some() {
                if current.next() != Some(chunk) {
                    self.unlink(chunk);
                    self.link_after_current(chunk);
                }
                return Some(chunk);
            }
            cursor = chunk.next();
        }
        None
    }

    /// Puts `chunk` (in no list) into the chunk list right after the current chunk, or
    /// as the only chunk of an empty list.
    fn link_after_current(&self, chunk: Chunk) {
        let Some(current) = self.current.get() else {
            debug_assert!(self.first.get().is_none(), "chunks but no current one");
            chunk.set_prev(None);
            chunk.set_next(None);
            self.first.set(Some(chunk));
            self.first_end.set(chunk.end_addr());
            return;
        };
        let next = current.next();
        chunk.set_prev(Some(current));
        chunk.set_next(next);
        current.set_next(Some(chunk));
        if let Some(next) = next {
            next.set_prev(Some(chunk));
        }
    }

    /// Takes `chunk` (not the current one) out of the chunk list.
    fn unlink(&self, chunk: Chunk) {
        debug_assert!(self.current.get() != Some(chunk));
        let (prev, next) = (chunk.prev(), chunk.next());
        match prev {
            Some(prev) => prev.set_next(next),
            None => {
                self.first.set(next);
                self.first_end.set(next.map_or(0, |next| next.end_addr()));
            }
        }
        if let Some(next) = next {
            next.set_prev(prev);
        }
    }

    /// Allocates a regular chunk for a request needing `need` bytes of chunk, growing
    /// the size class geometrically up to the cap.
    fn new_regular_chunk(&self, need: usize) -> Result<Chunk, AllocError> {
        let mut class = self.next_class.get();
        while class - MALLOC_SLACK < need {
            class *= 2;
        }
        let chunk = match self.new_chunk(class - MALLOC_SLACK) {
            Ok(chunk) => chunk,
            // Over the limit or out of memory: a chunk just big enough may still fit.
            Err(_) => self.new_chunk(need)?,
        };
        self.next_class.set(class.saturating_mul(2).min(self.max_class.get()));
        Ok(chunk)
    }

    /// Allocates a chunk of `size` bytes, respecting the limit.
    fn new_chunk(&self, size: usize) -> Result<Chunk, AllocError> {
        let held = self.held.get().checked_add(size).ok_or(AllocError::INVALID_LAYOUT)?;
        if held > self.limit.get() {
            return Err(AllocError::LIMIT_REACHED);
        }
        let chunk = Chunk::allocate(self.alloc(), size).ok_or(AllocError::OUT_OF_MEMORY)?;
        self.held.set(held);
        Ok(chunk)
    }

    /// Makes `chunk` the current chunk: it is empty and comes right after the current
    /// chunk in the list (or first, with no current chunk).
    fn install(&self, chunk: Chunk) {
        self.update_peak();
        self.make_current(chunk, chunk.end_addr());
    }

    /// `install`'s steps after the peak's fold, with the chunk's end given by the caller
    /// (`reset_chunks` keeps the first chunk's in `first_end`, so that a reset does not
    /// read the chunk's header, a line the fill left long before). Retires the current
    /// chunk, if any.
    #[inline]
    fn make_current(&self, chunk: Chunk, end: usize) {
        debug_assert!(chunk.prev() == self.current.get());
        self.bump_epoch();
        // The new epoch stamps the chunk: a scope entered before knows it came after
        // (see `chunk_at_epoch`).
        chunk.set_serial(self.epoch.get());
        let old = self.current.get();
        if let Some(old) = old {
            let ptr = self.ptr.get().addr();
            old.set_saved_ptr(ptr);
            self.retired_used.set(self.retired_used.get() + (ptr - old.bottom_addr()));
        }
        let bottom = chunk.bottom_addr_for_end(end);
        chunk.set_used_before(self.retired_used.get());
        chunk.set_saved_ptr(bottom);
        #[cfg(bumpdown_asan)]
        // SAFETY: the chunk is empty: its usable part is free.
        unsafe {
            crate::asan::poison(chunk.ptr_at(bottom), end - bottom)
        };
        self.current.set(Some(chunk));
        // `bottom` and `end` are multiples of CHUNK_ALIGN, hence of MIN_ALIGN;
        // `end <= isize::MAX` (a `Layout`'s size). The pointers carry the chunk's
        // provenance.
        let start = chunk.ptr_at(bottom);
        self.start.set(start);
        self.ptr.set(start);
        self.end.set(chunk.ptr_at(end));
        debug_assert!(end <= MAX_END);
    }

    /// Gives a request too big for regular chunks a chunk of its own.
    fn alloc_big(&self, size: usize, align: usize, need: usize) -> Result<NonNull<u8>, AllocError> {
        self.update_peak();
        let chunk = self.new_chunk(need)?;
        let Some(addr) = bump_checked(chunk.end_addr(), chunk.bottom_addr(), size, align, MIN_ALIGN) else {
            // Landed below MIN_BOTTOM; give it back.
            self.held.set(self.held.get() - chunk.size());
            // SAFETY: just allocated from `self.alloc`, never handed out.
            unsafe { chunk.free(self.alloc()) };
            return Err(AllocError::OUT_OF_MEMORY);
        };
        chunk.set_saved_ptr(addr);
        chunk.set_prev(self.big.get());
        self.big.set(Some(chunk));
        // The new epoch stamps the chunk: a position saved before has a lower one.
        self.bump_epoch();
        chunk.set_serial(self.epoch.get());
        self.big_used.set(self.big_used.get() + (chunk.end_addr() - addr));
        // SAFETY: `addr` is inside the block (bump_checked), which is not null.
        Ok(unsafe { NonNull::new_unchecked(chunk.ptr_at(addr)) })
    }

    // ----- Giving memory back -------------------------------------------------------

    /// `Arena::reset` of an arena that moved past chunks or holds out-of-band ones. Small,
    /// so that its common case (below) saves no registers: the rest is out of line.
    #[inline(never)]
    pub(crate) fn reset_chunks(&mut self) {
        match self.first.get() {
            // Regular chunks only (the common case: a fill that outgrew a chunk): what
            // `reset_with_limit` does, without the steps that have nothing to do here (no
            // out-of-band list to free, no chunk to retire), and the first chunk's end
            // from `first_end`, not from its header.
            Some(first) if self.big.get().is_none() && !crate::poison::ACTIVE && !cfg!(bumpdown_asan) => {
                self.update_peak();
                self.ledger.reset();
                self.retired_used.set(0);
                // Nothing to retire: the chunks after the first become spare as they are.
                self.current.set(None);
                // The new epoch makes every checkpoint stale and stamps the first chunk.
                self.make_current(first, self.first_end.get());
                // One chunk in use, none retired, nothing out of band, every checkpoint
                // stale: the next `reset` can take its fast path.
                self.dirty.set(false);
            }
            _ => self.reset_keeping_all(),
        }
    }

    /// `reset_with_limit(usize::MAX)`, out of line.
    #[cold]
    #[inline(never)]
    fn reset_keeping_all(&mut self) {
        self.reset_with_limit(usize::MAX);
    }

    /// See [`Arena::reset_with_limit`](super::Arena::reset_with_limit); called with the bump pointer handed over.
    pub(crate) fn reset_with_limit(&mut self, retain: usize) {
        if crate::poison::ACTIVE {
            // SAFETY: `&mut self` proves no allocation is in use.
            unsafe { self.give_back_since(None) };
        }
        self.bump_epoch();
        self.update_peak();
        self.ledger.reset();
        self.free_list(self.big.take());
        self.big_used.set(0);
        self.retired_used.set(0);
        let empty = empty_chunk();
        self.ptr.set(empty);
        self.end.set(empty);
        self.start.set(empty);
        self.current.set(None);
        if retain != usize::MAX {
            self.trim_chunks(retain);
        }
        // The chunks are reused in the order they were filled: the list stays as it is.
        if let Some(first) = self.first.get() {
            self.install(first);
        }
        // One chunk in use, none retired, nothing out of band, every checkpoint stale:
        // the next `reset` can take its fast path.
        self.dirty.set(false);
    }

    /// Returns the arena to the position `cp` saved: out-of-band chunks taken since go back
    /// to the backing allocator, regular chunks filled since become spares again (they
    /// follow `cp`'s chunk in the list, so they are reused in the same order).
    ///
    /// # Safety
    /// No allocation made after `cp` is still in use, and the arena has only moved
    /// forward from `cp` (allocations, chunk switches) since it was taken.
    #[inline(always)]
    pub(crate) unsafe fn restore(&self, cp: RawCheckpoint) {
        if crate::poison::ACTIVE {
            // SAFETY: from the caller, nothing allocated after `cp` is in use.
            unsafe { self.give_back_since(cp.chunk.map(|c| (c, cp.ptr))) };
        }
        if self.epoch.get() == cp.serial {
            self.mark_high();
            // Same chunk, same out-of-band chunks, no checkpoint taken since: only the
            // bump pointer moved.
            self.ptr.set(cp.ptr);
            return;
        }
        // SAFETY: forwarded from the caller.
        unsafe { self.restore_chunks(cp) }
    }

    /// `restore` after chunk switches or out-of-band allocations.
    ///
    /// # Safety
    /// As for `restore`.
    #[inline(never)]
    unsafe fn restore_chunks(&self, cp: RawCheckpoint) {
        self.update_peak();
        self.bump_epoch();
        while let Some(chunk) = self.big.get().filter(|c| c.serial() > cp.serial) {
            self.big.set(chunk.prev());
            self.big_used.set(self.big_used.get() - (chunk.end_addr() - chunk.saved_ptr()));
            self.held.set(self.held.get() - chunk.size());
            // SAFETY: unlinked above; its serial says it was made after `cp`, so its
            // allocation is unused (the caller).
            unsafe { chunk.free(self.alloc()) };
        }
        // The ledger only lets through positions the arena moved forward from, so the
        // checkpoint's chunk is the current one or before it. Checked in debug builds
        // (every test), where the walk is affordable.
        debug_assert!(
            cp.chunk.is_none_or(|c| core::iter::successors(self.current.get(), |x| x.prev()).any(|x| x == c)),
            "bumpdown: checkpoint chunk is not in the arena"
        );
        match cp.chunk {
            Some(chunk) => {
                self.current.set(Some(chunk));
                self.start.set(chunk.ptr_at(chunk.bottom_addr()));
                self.end.set(chunk.ptr_at(chunk.end_addr()));
                // What the chunks before it hold, as when it was made current (they have
                // not changed since: only the current chunk moves).
                self.retired_used.set(chunk.used_before());
            }
            None => {
                self.current.set(None);
                self.start.set(empty_chunk());
                self.end.set(empty_chunk());
                self.retired_used.set(0);
            }
        }
        // `cp.ptr` was this chunk's bump pointer then; the allocations above it are gone.
        self.ptr.set(cp.ptr);
        if cp.chunk.is_none() {
            // Back to no chunk in use: the first chunk becomes current (the chunk-list
            // invariant). The position is the same, "nothing in regular chunks".
            self.adopt_first();
        }
    }

    /// The chunk that was current when the epoch was `epoch` (`None`: no chunk), for a
    /// position saved then that the arena has only moved forward from: the newest chunk
    /// of the `prev` chain made current by then. The chunks made current since have
    /// higher stamps (`ChunkHeader::serial`), and the chain's stamps decrease.
    pub(crate) fn chunk_at_epoch(&self, epoch: u64) -> Option<Chunk> {
        let mut cursor = self.current.get();
        while let Some(chunk) = cursor.filter(|c| c.serial() > epoch) {
            cursor = chunk.prev();
        }
        cursor
    }

    /// Makes the first chunk current, if there is one and no current chunk. Moves no
    /// allocation: the arena's position stays "nothing in use".
    fn adopt_first(&self) {
        if let (None, Some(first)) = (self.current.get(), self.first.get()) {
            self.install(first);
        }
    }

    /// Frees regular chunks, keeping them in list order while their sizes add up to at
    /// most `retain` bytes (the caller's buffer counts as nothing). Called with no
    /// current chunk and nothing in use.
    fn trim_chunks(&mut self, retain: usize) {
        debug_assert!(self.current.get().is_none());
        let mut kept = 0usize;
        let mut cursor = self.first.get();
        while let Some(chunk) = cursor {
            cursor = chunk.next();
            let cost = if self.borrowed.get() == Some(chunk) { 0 } else { chunk.size() };
            match kept.checked_add(cost) {
                Some(total) if total <= retain => kept = total,
                _ => {
                    self.unlink(chunk);
                    // SAFETY: `&mut self` proves no allocation is borrowed; the chunk
                    // was just taken out of the list.
                    unsafe { self.release(chunk) }
                }
            }
        }
    }

    /// Records a change that `restore` must undo on its slow path.
    #[inline(always)]
    pub(crate) fn bump_epoch(&self) {
        self.epoch.set(self.epoch.get().wrapping_add(1));
        self.dirty.set(true);
    }

    /// Debug aids (`poison.rs`): marks what the arena used since position `to` (a chunk
    /// and its bump pointer then; `None`: since the arena was empty) as given back.
    /// Walks the chunks from the current one down to `to`'s.
    ///
    /// # Safety
    /// Nothing allocated since `to` is in use, and `to` (if any) is in the current chunk's
    /// `prev` chain.
    #[cold]
    unsafe fn give_back_since(&self, to: Option<(Chunk, *mut u8)>) {
        let mut cursor = self.current.get();
        let mut used_end = self.ptr.get().addr();
        while let Some(chunk) = cursor {
            let stop = to.filter(|&(c, _)| c == chunk);
            let from = stop.map_or(chunk.bottom_addr(), |(_, p)| p.addr());
            // SAFETY: `from..used_end` is the part of this chunk allocated since `to`,
            // unused (the caller); the pointer carries the chunk's provenance.
            unsafe { crate::poison::given_back(chunk.ptr_at(from), used_end) };
            if stop.is_some() {
                return;
            }
            cursor = chunk.prev();
            if let Some(c) = cursor {
                used_end = c.saved_ptr();
            }
        }
    }

    /// Frees every chunk of a list linked by `prev` (the `big` list).
    fn free_list(&self, mut cursor: Option<Chunk>) {
        while let Some(chunk) = cursor {
            cursor = chunk.prev();
            // SAFETY: callers take the list out of the arena first and have `&mut self`
            // or are dropping it, so nothing points into these chunks any more.
            unsafe { self.release(chunk) };
        }
    }

    /// Gives a regular chunk back to the backing allocator, unless it is the caller's
    /// buffer.
    ///
    /// # Safety
    /// The chunk is in no list and nothing points into it.
    unsafe fn release(&self, chunk: Chunk) {
        #[cfg(bumpdown_asan)]
        // SAFETY: the whole chunk is ours until it is freed or handed back just below.
        unsafe {
            crate::asan::unpoison(chunk.ptr_at(chunk.base_addr()), chunk.size())
        };
        if self.borrowed.get() == Some(chunk) {
            self.borrowed.set(None);
            return;
        }
        self.held.set(self.held.get() - chunk.size());
        // SAFETY: from the caller; a chunk that is not the borrowed one came from
        // `Chunk::allocate` on `self.alloc`.
        unsafe { chunk.free(self.alloc()) };
    }

    /// Makes `buf` the arena's first chunk (ignored if too small to hold a header and a
    /// few bytes).
    ///
    /// # Safety
    /// `buf..buf + len` is valid for reads and writes, unused by anything else, for as
    /// long as the arena exists; the arena has no chunks yet.
    pub(crate) unsafe fn adopt_buffer(&self, buf: *mut u8, len: usize) {
        debug_assert!(self.current.get().is_none());
        let base = round_up(buf.addr(), CHUNK_ALIGN);
        let Some(size) = (buf.addr() + len).checked_sub(base).map(|n| n & !(CHUNK_ALIGN - 1)) else { return };
        if size < HEADER_SIZE + DATA_ALIGN {
            return;
        }
        // SAFETY: `base` is aligned, non-null (a slice's address, rounded up), and the
        // caller promises the `size <= len` bytes from it are ours.
        let chunk = unsafe { Chunk::in_buffer(NonNull::new_unchecked(buf.with_addr(base)), size) };
        self.borrowed.set(Some(chunk));
        self.link_after_current(chunk);
        self.install(chunk);
    }

    // ----- Limits and statistics ----------------------------------------------------

    /// See [`Arena::allocated_bytes`](super::Arena::allocated_bytes); called with the bump pointer handed over.
    pub(crate) fn allocated_bytes(&self) -> usize {
        let mut total = 0;
        self.for_each_chunk(|chunk, _| total += chunk.capacity());
        total
    }

    /// See [`Arena::allocated_bytes_including_metadata`](super::Arena::allocated_bytes_including_metadata); called with the bump pointer handed over.
    #[inline]
    pub(crate) fn allocated_bytes_including_metadata(&self) -> usize {
        self.held.get()
    }

    /// Bytes in use right now: allocations plus their alignment padding, in regular and
    /// out-of-band chunks.
    fn used(&self) -> usize {
        self.retired_used.get() + (self.ptr.get().addr() - self.start.get().addr()) + self.big_used.get()
    }

    /// Folds the use since the last fold into `peak_used`: between folds, the chunk and
    /// the out-of-band blocks stay the same, so the most in use was at the highest `ptr`.
    fn update_peak(&self) {
        let high = self.ptr.get().addr().max(self.high_ptr.get());
        let most = self.retired_used.get() + (high - self.start.get().addr()) + self.big_used.get();
        self.peak_used.set(self.peak_used.get().max(most));
        self.high_ptr.set(0);
    }

    /// Notes the current `ptr` before memory is given back in the current chunk.
    #[inline(always)]
    pub(crate) fn mark_high(&self) {
        self.mark_high_at(self.ptr.get().addr());
    }

    /// Notes `ptr` as a high point of the bump pointer in the current chunk. A store
    /// only when it is higher: a loop that keeps reaching the same depth (scopes,
    /// resets) then only compares.
    #[inline(always)]
    pub(crate) fn mark_high_at(&self, ptr: usize) {
        if ptr > self.high_ptr.get() {
            self.high_ptr.set(ptr);
        }
    }

    /// See [`Arena::stats`](super::Arena::stats); called with the bump pointer handed over.
    pub(crate) fn stats(&self) -> Stats {
        self.update_peak();
        let mut stats = Stats {
            chunks: 0,
            big_chunks: 0,
            spare_chunks: 0,
            capacity: 0,
            held_bytes: self.held.get(),
            used: self.used(),
            wasted: 0,
            peak_used: self.peak_used.get(),
        };
        let current = self.current.get();
        self.for_each_chunk(|chunk, list| {
            stats.chunks += 1;
            stats.capacity += chunk.capacity();
            match list {
                List::Big => stats.big_chunks += 1,
                List::Spare => stats.spare_chunks += 1,
                List::Used if Some(chunk) != current => stats.wasted += chunk.end_addr() - chunk.saved_ptr(),
                List::Used => {}
            }
        });
        stats
    }

    /// Calls `f` on every chunk: the chunk list in order (used up to the current chunk,
    /// spare after it), then the out-of-band chunks.
    fn for_each_chunk(&self, mut f: impl FnMut(Chunk, List)) {
        let mut list = List::Used;
        let mut cursor = self.first.get();
        while let Some(chunk) = cursor {
            f(chunk, list);
            if Some(chunk) == self.current.get() {
                list = List::Spare;
            }
            cursor = chunk.next();
        }
        let mut cursor = self.big.get();
        while let Some(chunk) = cursor {
            f(chunk, List::Big);
            cursor = chunk.prev();
        }
    }

    /// See [`Arena::check_invariants`](super::Arena::check_invariants); called with the bump pointer handed over.
    pub(crate) fn check_invariants(&self) {
        let ptr = self.ptr.get().addr();
        let end = self.end.get().addr();
        let start = self.start.get().addr();
        assert!(
            MIN_BOTTOM <= start && start <= ptr && ptr <= end && end <= MAX_END,
            "start {start:#x} ptr {ptr:#x} end {end:#x}"
        );
        assert!(end % CHUNK_ALIGN == 0 && ptr % MIN_ALIGN == 0, "misaligned end {end:#x} or ptr {ptr:#x}");
        assert_eq!(
            self.current.get().is_some(),
            self.first.get().is_some(),
            "chunks but no current one, or the reverse"
        );
        assert_eq!(self.first_end.get(), self.first.get().map_or(0, |first| first.end_addr()), "first_end");
        let mut prev = None;
        let mut cursor = self.first.get();
        let mut seen_current = self.current.get().is_none();
        while let Some(chunk) = cursor {
            assert_eq!(chunk.prev(), prev, "chunk list links out of sync at {:#x}", chunk.base_addr());
            seen_current |= Some(chunk) == self.current.get();
            prev = cursor;
            cursor = chunk.next();
        }
        assert!(seen_current, "the current chunk is not in the chunk list");
        match self.current.get() {
            None => {
                assert!(ptr == empty_chunk().addr() && start == ptr && end == ptr, "empty arena not at the sentinel")
            }
            Some(cur) => {
                assert_eq!(end, cur.end_addr(), "end is not the current chunk's");
                assert_eq!(start, cur.bottom_addr(), "start is not the current chunk's");
            }
        }
        let mut newer_stamp = self.epoch.get() + 1;
        let mut cursor = self.current.get();
        while let Some(chunk) = cursor {
            assert!(chunk.serial() < newer_stamp, "install stamps out of order along the chunk chain");
            newer_stamp = chunk.serial();
            cursor = chunk.prev();
        }
        let (mut held, mut used, mut big_used) = (Self::own_size(self.in_buffer), 0, 0);
        let mut newer_serial = self.epoch.get() + 1;
        self.for_each_chunk(|chunk, list| {
            if self.borrowed.get() != Some(chunk) {
                held += chunk.size();
            }
            assert!(chunk.size() % CHUNK_ALIGN == 0 && chunk.base_addr() % CHUNK_ALIGN == 0);
            let saved = chunk.saved_ptr();
            if list == List::Used && Some(chunk) != self.current.get() {
                assert!(
                    chunk.bottom_addr() <= saved && saved <= chunk.end_addr() && saved % MIN_ALIGN == 0,
                    "saved pointer {saved:#x} outside chunk or misaligned"
                );
                assert_eq!(chunk.used_before(), used, "used_before out of sync");
                used += saved - chunk.bottom_addr();
            }
            if Some(chunk) == self.current.get() {
                assert_eq!(chunk.used_before(), used, "used_before of the current chunk out of sync");
            }
            if list == List::Big {
                assert!(chunk.base_addr() < saved && saved <= chunk.end_addr(), "big allocation outside its chunk");
                big_used += chunk.end_addr() - saved;
                assert!(0 < chunk.serial() && chunk.serial() < newer_serial, "out-of-band serials out of order");
                newer_serial = chunk.serial();
            }
        });
        assert_eq!(held, self.held.get(), "held bytes out of sync");
        assert_eq!(used, self.retired_used.get(), "retired bytes out of sync");
        assert_eq!(big_used, self.big_used.get(), "out-of-band bytes out of sync");
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> ArenaState<MIN_ALIGN, A> {
    /// See [`Arena::debug_owns`](super::Arena::debug_owns); called with the bump pointer handed over.
    pub(crate) fn debug_owns(&self, addr: usize, len: usize) -> bool {
        let mut found = false;
        let current = self.current.get();
        self.for_each_chunk(|chunk, list| {
            let (low, high) = match list {
                List::Spare => return,
                List::Used if Some(chunk) == current => (chunk.bottom_addr(), self.ptr.get().addr()),
                List::Used => (chunk.bottom_addr(), chunk.saved_ptr()),
                List::Big => (chunk.saved_ptr(), chunk.end_addr()),
            };
            found |= low <= addr && addr.checked_add(len).is_some_and(|end| end <= high);
        });
        found
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum List {
    Used,
    Spare,
    Big,
}

/// What the bump pointers of an arena without chunks point at: a chunk of no bytes.
/// Aligned to `MIN_BOTTOM`, so its address is at least `MIN_BOTTOM` (it is not null) and
/// a multiple of `CHUNK_ALIGN`, as the bump arithmetic requires of every chunk end.
/// Never read or written.
#[repr(align(4096))]
struct Empty;
const _: () = assert!(core::mem::align_of::<Empty>() == MIN_BOTTOM);
static EMPTY: Empty = Empty;

pub(crate) const fn empty_chunk() -> *mut u8 {
    ptr::addr_of!(EMPTY).cast_mut().cast()
}

/// Moves the bump pointer `ptr` of the chunk part `start..end` to `new_ptr` (the state's
/// and the handle's `set_ptr`), checked in debug builds.
///
/// # Safety
/// As for `ArenaState::set_ptr`.
#[inline(always)]
pub(crate) unsafe fn move_ptr<const MIN_ALIGN: usize>(
    ptr: &Cell<*mut u8>,
    start: *mut u8,
    end: *mut u8,
    new_ptr: *mut u8,
) {
    debug_assert!(
        start.addr() <= new_ptr.addr() && new_ptr.addr() <= end.addr() && new_ptr.addr() % MIN_ALIGN == 0,
        "bump pointer {new_ptr:p} outside {start:p}..{end:p} or misaligned"
    );
    #[cfg(bumpdown_asan)]
    // SAFETY: both pointers lie in the current chunk (the caller).
    unsafe {
        crate::asan::ptr_moved_up(ptr.get(), new_ptr)
    };
    ptr.set(new_ptr)
}

/// What an arena can be told before it has a state: kept in the `Arena` until then,
/// and in the state after.
#[derive(Clone, Copy)]
pub(crate) struct Settings {
    /// See `ArenaState::limit`.
    pub(crate) limit: usize,
    /// See `ArenaState::max_class`.
    pub(crate) max_class: usize,
}

/// Limits at or above this are no limit: [`Settings::pack`] keeps 57 bits of one.
/// (2^57 bytes is 128 PiB, more than any address space holds.)
pub(crate) const NO_LIMIT_FROM: usize = (1 << 57) - 1;

impl Settings {
    pub(crate) const DEFAULT: Settings = Settings { limit: usize::MAX, max_class: DEFAULT_MAX_CHUNK_CLASS };

    /// The bit every packed word has set (the top one), so that it is above every address.
    const PACKED: usize = 1 << 63;

    /// Whether `word` is one that [`pack`](Settings::pack) made.
    pub(crate) const fn is_packed(word: usize) -> bool {
        word & Self::PACKED != 0
    }

    /// One word for the settings, which an `Arena` without a state keeps in its
    /// `high_ptr`: the top bit set (so the word is above every address), the chunk cap's
    /// log2 in the next six bits, the limit in the low 57 ([`NO_LIMIT_FROM`] and above:
    /// no limit).
    pub(crate) const fn pack(self) -> usize {
        let limit = if self.limit < NO_LIMIT_FROM { self.limit } else { NO_LIMIT_FROM };
        Self::PACKED | (self.max_class.trailing_zeros() as usize) << 57 | limit
    }

    /// The settings that [`pack`](Settings::pack) made `word` from.
    pub(crate) const fn unpack(word: usize) -> Settings {
        let limit = word & NO_LIMIT_FROM;
        Settings { limit: if limit == NO_LIMIT_FROM { usize::MAX } else { limit }, max_class: 1 << (word >> 57 & 63) }
    }

    /// These settings with the cap on regular chunk sizes set to `bytes`, rounded up to
    /// a power of two of at least the first chunk's size.
    pub(crate) fn with_max_chunk_size(self, bytes: usize) -> Settings {
        let class = bytes.checked_next_power_of_two().unwrap_or(1 << (usize::BITS - 1));
        Settings { max_class: class.max(FIRST_CHUNK_CLASS), ..self }
    }
}

/// The smallest size class (a power of two, at least the first chunk's) whose chunk
/// holds `need` bytes.
fn class_for(need: usize) -> Option<usize> {
    Some(need.checked_add(MALLOC_SLACK)?.checked_next_power_of_two()?.max(FIRST_CHUNK_CLASS))
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Drop for ArenaState<MIN_ALIGN, A> {
    fn drop(&mut self) {
        self.current.set(None);
        let mut cursor = self.first.take();
        while let Some(chunk) = cursor {
            cursor = chunk.next();
            // SAFETY: the arena is going away: nothing points into its chunks any more,
            // and the list is no longer reachable.
            unsafe { self.release(chunk) };
        }
        self.free_list(self.big.take());
    }
}

// What `reset` and scope exits touch sits in the first cache line (the struct is aligned
// to 64).
#[cfg(feature = "alloc")]
const _: () = {
    use core::mem::offset_of;
    type S = ArenaState<1, crate::backing::Global>;
    assert!(core::mem::align_of::<S>() == 64);
    assert!(offset_of!(S, dirty) < 64 && offset_of!(S, epoch) < 64 && offset_of!(S, high_ptr) < 64);
};
