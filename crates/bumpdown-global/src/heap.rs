//! A thread's heap: its four windows of the region (one per band of sizes) and its free lists.
//!
//! Blocks are bumped **upwards** inside a window, so the newest block can grow in place
//! by moving the bump pointer. A thread touches only its own `Heap`, so nothing here is
//! atomic; the only shared step is carving a new window (one compare-exchange in
//! [`region::carve`]).
//!
//! Each window is a face of the core's bump engine (`bumpdown::engine`): `WindowCursor`
//! is an `unsafe impl Cursor` over the window's bump pointer and end (upward), and every
//! block a window hands out, on the fast path and the slow one, is taken by the engine's
//! `Engine::bump_layout`. A change to the engine's fast path so reaches `BumpGlobal` and
//! the preloaded `malloc`. A window's newest block is freed, grown and shrunk by the
//! engine's own methods too (`Cursor::free_newest`, `grow_newest_in_place`,
//! `shrink_newest_in_place`), the ones every arena face uses. What is the heap's alone is
//! the rest: the slow path (it needs the free lists and the other windows), the free lists
//! for blocks that are not the newest, and the rules of when a block may change size in
//! place (its class, see [`Heap::resize_in_place`]).
//!
//! A heap has four windows, one per *band* of chunk sizes: [`TINY`] chunks, chunks of at
//! most [`SMALL_BAND`] bytes, [`LINE`] chunks, and the others. A program's small blocks are
//! mostly short strings whose bytes are seldom read again, while its larger ones are mostly
//! the nodes and arrays it walks; kept apart, the nodes sit densely in cache lines and
//! pages instead of being spread out by the strings between them (the way a size-segregated
//! allocator such as mimalloc lays them out), and a growing array is more often the newest
//! block of its window, so it grows in place. Free lists are per class, not per window: a
//! listed block may lie in any window's memory. A listed block of at least [`HARVEST_MIN`]
//! bytes may in turn become a window, of any band, when one runs out (`Heap::harvest`):
//! memory a class no longer needs serves the others before the region grows.
//!
//! The [`LINE`] window holds chunks of exactly 64 bytes, placed so that the block handed
//! out (after the `malloc` front end's 8-byte header, at the heap's phase) starts on a
//! cache line: a block of up to `64 - phase` bytes then lies in one line. Among the others
//! a 64-byte chunk starts wherever the sizes before it left the cursor. Measured (python3's
//! workload, `bench/py_workload.py`): its lists and two-element tuples are `malloc(56)`
//! (732,019 calls), and with one window for all larger chunks 90% of them straddled two
//! lines, against none under jemalloc and mimalloc, whose size classes keep a 64-byte block
//! on a line; python's collector read two lines where one would do. The line window's
//! chunks never change size in place and it never takes a listed block (`Heap::harvest`):
//! either would move its cursor off the line phase.
//!
//! Besides its four windows, a heap has one window per *zone* of the region, each bumping
//! chunks of one size (16 to 256 bytes), for a front end that hands blocks out without a
//! header, and reuses freed zone chunks through a short list and then the zone's free
//! bitmap: see [`Heap::alloc_zoned`] and the zones' invariant there.
//!
//! A heap has a *phase*, fixed for its life by its [`HeapSlot`](crate::route::HeapSlot):
//! 0 or [`PHASE_HEADER`]. Its chunks of at least `GRAIN` bytes start `phase` bytes past a
//! multiple of `GRAIN`. `BumpGlobal` hands chunks out as they are (phase 0, so they are
//! 16-aligned); the preloaded `malloc` writes an 8-byte header at the start of each chunk
//! and hands out the address after it (phase 8, so that address is 16-aligned). Only
//! phase-0 heaps take requests aligned to more than `GRAIN`.
//!
//! # INVARIANT
//! * Every chunk of at least `GRAIN` bytes, allocated or listed, starts at the heap's phase
//!   past a multiple of `GRAIN`; a `TINY` chunk starts 8-aligned.
//! * For each window `w` in `windows`: `w.cur <= w.end` (as addresses); `w.cur` is the
//!   phase past a multiple of `GRAIN`, except in the tiny window (index 0), where it is a
//!   multiple of `TINY`; in the line window ([`LINE_BAND`]) it is `line_offset(phase)` past
//!   a multiple of [`LINE`] (so the phase past a multiple of `GRAIN` too); `w.end` is a
//!   multiple of `GRAIN` (a carved window ends on a `region::PAGE` boundary; a window made
//!   of a listed block, see `Heap::harvest`, ends where the block does, rounded down to
//!   `GRAIN`).
//!   When `w.end != 0`, `w.cur..w.end` lies inside the region and belongs to this heap
//!   alone: no block, free or allocated, overlaps it, nor does another window's range.
//! * Every byte of `max(w.cur, w.fresh)..w.end` is zero (never written since it was carved).
//! * `free[c]` is null or the first of a null-terminated singly linked list of blocks of
//!   `class_size(c)` bytes in the region, not allocated, not in any other list, the word
//!   `phase` bytes into each (its *link*) the address of the next. A phased heap lists no
//!   tiny block (its link would lie past the block's end).
//!
//! The link lies where the front end's block starts, `phase` bytes into the chunk: in the
//! line the program last touched when it frees a block, and touches next when it gets one.
//! (For the `malloc` front end the chunk's first word is its header's, in the line before
//! the block when the block starts on a line, see [`LINE`].)
//!
//! The empty heap has `cur == end == 0` in every window: every bump test fails, so the
//! first allocation takes the slow path, which sets the region up; the fast path has no
//! set-up branch.

use core::cell::Cell;
use core::ptr::{self, NonNull};

use bumpdown::bumping::CHUNK_ALIGN;
use bumpdown::engine::{Cursor, Engine};
use bumpdown::AllocError;

use crate::classes::{class_chunk, class_of_chunk, class_size, floor_class, CLASSES, CLASS_MAX, GRAIN, TINY};
use crate::region::{self, zone_size, ZONES};
use crate::shadow;

// Window ends are multiples of GRAIN (of region::PAGE when carved); `bump_up` asks for
// multiples of CHUNK_ALIGN.
const _: () = assert!(region::PAGE % CHUNK_ALIGN == 0 && GRAIN % CHUNK_ALIGN == 0 && region::PAGE % LINE == 0);

/// Chunks of at most this many bytes come from a thread's small window (see the module
/// docs). 32 covers a short string under `BumpGlobal` and, with its 8-byte header, a
/// string of up to 24 bytes under the `malloc` front end.
pub const SMALL_BAND: usize = 32;

/// Chunks of exactly this many bytes (a cache line) come from a window of their own, the
/// [`LINE_BAND`], where each block starts on a line (see the module docs).
pub const LINE: usize = 64;

/// The index of the [`LINE`] window in a heap's windows.
pub const LINE_BAND: usize = 3;

/// Where the line window's chunks start, past a multiple of [`LINE`], for a heap of
/// `phase` (0 or [`PHASE_HEADER`]): `phase` bytes short of a line, so that the block
/// handed out, `phase` bytes into its chunk, starts on one.
#[inline(always)]
const fn line_offset(phase: usize) -> usize {
    (LINE - phase) % LINE
}

/// First window a thread carves for each band; each later one doubles, up to [`MAX_WINDOW`].
pub const FIRST_WINDOW: usize = 64 << 10;
/// Largest window carved for small blocks (a bigger block gets a window of its own size).
pub const MAX_WINDOW: usize = 1 << 20;
/// The smallest listed block [`Heap`] turns into a window instead of carving a new one
/// from the region (see `Heap::harvest`).
pub const HARVEST_MIN: usize = 16 << 10;
/// Largest alignment the region serves; larger ones go to the fallback.
pub const MAX_ALIGN: usize = region::PAGE;

/// The phase of a heap whose front end puts an 8-byte header in front of each block (see
/// the module docs): its chunks start 8 bytes past a multiple of `GRAIN`.
pub const PHASE_HEADER: usize = 8;

/// How freed blocks are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Sizes rounded to classes; freed blocks go to per-thread free lists and are reused
    /// (the newest block is still taken back by the bump pointer). Blocks larger than
    /// [`CLASS_MAX`] are not served by the region.
    Recycle,
    /// Pure bump: only the newest block is taken back; any size is served.
    Bump,
}

/// The chunk size the region uses for a request of `size` bytes aligned to `align` in
/// `mode`, or `None` when the region does not serve it (too large for a class, or
/// overflowing). Never 0. Only recycling mode has the 8-byte tiny class, for requests of at
/// most 8 bytes aligned to at most 8. The same request (size, alignment and mode) must be
/// given when the chunk is freed or resized.
///
/// ```
/// use bumpdown_global::{chunk_size, Mode};
/// assert_eq!(chunk_size(0, 1, Mode::Bump), Some(16));
/// assert_eq!(chunk_size(100, 8, Mode::Bump), Some(112));
/// assert_eq!(chunk_size(5, 1, Mode::Recycle), Some(8));
/// assert_eq!(chunk_size(5, 16, Mode::Recycle), Some(16));
/// assert_eq!(chunk_size(1100, 8, Mode::Recycle), Some(1152));
/// assert_eq!(chunk_size(1 << 20, 8, Mode::Recycle), None);
/// ```
#[inline(always)]
pub const fn chunk_size(size: usize, align: usize, mode: Mode) -> Option<usize> {
    match mode {
        // A tiny chunk is only 8-aligned: an over-aligned request takes the next class.
        Mode::Recycle if size <= CLASS_MAX => Some(class_chunk(size, align)),
        Mode::Recycle => None,
        // Size 0 takes a grain too: every block's start lies strictly inside the region.
        Mode::Bump if size == 0 => Some(GRAIN),
        Mode::Bump if size <= isize::MAX as usize / 2 => crate::classes::checked_round_up(size, GRAIN),
        Mode::Bump => None,
    }
}

/// A thread's allocation state; see the module invariant.
///
/// ```
/// use bumpdown_global::{chunk_size, Heap, Mode};
///
/// // One heap per thread; `with_heap` reaches the current thread's.
/// let csz = chunk_size(100, 16, Mode::Recycle).unwrap();
/// // SAFETY: csz comes from chunk_size; nothing inside the closure allocates through it.
/// let p = unsafe { bumpdown_global::with_heap(|h| h.alloc::<true>(csz, 16, Mode::Recycle, 0, &|| bumpdown_global::region::Options::new(1 << 30))) };
/// assert!(!p.is_null() && p.addr() % 16 == 0);
/// // SAFETY: p is a live chunk of csz bytes that we give up.
/// unsafe { bumpdown_global::with_heap(|h| h.free(p, csz, Mode::Recycle, 0)) };
/// ```
pub struct Heap {
    /// `[tiny, small, large, line]`: indexed by [`band`].
    windows: [Window; 4],
    free: [*mut u8; CLASSES],
    /// What the heap holds of each zone of the region (see [`Heap::alloc_zoned`]).
    zones: [Zone; ZONES],
}

/// A heap's part of zone `k`: chunks of `zone_size(k)` bytes, handed out from `list`,
/// then `batch`, then `window`, then a new batch taken from the zone's free bitmap
/// ([`region::zone_take`]), then a new window. See the zones' invariant.
struct Zone {
    /// The window, in zone `k`, bumping chunks of `zone_size(k)` bytes only.
    window: Window,
    /// A free list of the zone's chunks, links at their start, handed out newest first
    /// (while they are likely still in cache). When it holds [`ZONE_LIST_MAX`], the heap's
    /// further frees of the zone go to the zone's free bitmap.
    list: *mut u8,
    /// Chunks from the zone's free bitmap: bit `i` set for the chunk at `batch_at + i *
    /// zone_size(k)`, handed out lowest address first.
    batch: u64,
    /// The chunk of `batch`'s bit 0 (null before the first batch).
    batch_at: *mut u8,
    /// The length of `list`, at most [`ZONE_LIST_MAX`].
    listed: u32,
    /// Where the next search of the zone's free bitmap starts (a summary word).
    scan: u32,
}

impl Zone {
    const EMPTY: Zone =
        Zone { window: Window::EMPTY, list: ptr::null_mut(), batch: 0, batch_at: ptr::null_mut(), listed: 0, scan: 0 };
}

/// The most chunks a heap lists per zone; the zone's further frees go to its free bitmap
/// ([`region::zone_give`]).
///
/// The list serves a program that frees and allocates blocks of one size by turns, from
/// cache. The bitmap hands blocks out in address order ([`region::zone_take`]), so that
/// blocks allocated one after another lie side by side, as in a fresh window, however
/// they were freed. Under python3's workload (`bench/py_workload.py` in `bumpdown-malloc`:
/// it sorts 150,000 records, which frees their sort keys in sorted order, then builds a
/// JSON text from many small strings and joins them), with an unbounded list the strings
/// came back in the order the keys were freed, scattered over the zone, and the join
/// waited on a cache miss per string: 4.4% of the process's time against 0.8% under
/// jemalloc, whose slabs also hand out their lowest free block first. See
/// `bench/results.md` there.
pub const ZONE_LIST_MAX: u32 = 64;

/// One bump window; see the module invariant.
struct Window {
    /// The bump pointer: the next block starts here.
    cur: *mut u8,
    /// One past the window's last byte (0 when there is no window).
    end: usize,
    /// Where never-written memory starts, when above `cur` (blocks given back to the bump
    /// pointer leave dirty bytes below it).
    fresh: usize,
    /// The size of the next window to carve (0 before the first).
    next: usize,
}

/// A window as the bump engine sees it while it takes, frees or resizes one block: the
/// window's bump pointer and its `fresh` mark, borrowed as `Cell`s (the engine moves them
/// through `&self`), and its end. Made from `&mut Window` ([`Window::cursor`]), so
/// `Window` and [`Heap`] hold no `Cell`.
struct WindowCursor<'w> {
    cur: &'w Cell<*mut u8>,
    fresh: &'w Cell<usize>,
    end: usize,
}

// SAFETY: the module invariant is the trait's (up): `cur <= end`, `end` a multiple of
// `GRAIN` (so of `CHUNK_ALIGN`) and at most `isize::MAX` (user space), or both 0 in
// the empty window; `cur..end` is region memory of this heap alone, unused, readable and
// writable, and `cur` is derived from the region's mapping, whose provenance covers every
// window. The `&mut Window` it is made from keeps anything else from reaching the window
// while it lives. `far_end` is 0 (see its docs), so `far_end <= cursor`; the used part it
// names is, for the engine, every block of the region that ends at or below the cursor,
// all inside the region's mapping, which `cur`'s provenance covers. The engine moves the
// cursor down only through `release_to`, over a newest block that the heap's caller gives
// up. The slow path only refuses.
unsafe impl Cursor for WindowCursor<'_> {
    /// 1, though the cursor is always a multiple of [`TINY`]: the chunk sizes keep it
    /// aligned, so the engine has nothing to round, and with 1 its rounding of a size
    /// folds away even where the compiler cannot see that a chunk size is a multiple of 8.
    const MIN_ALIGN: usize = 1;
    const UP: bool = true;

    #[inline(always)]
    fn cursor_and_limit(&self) -> (*mut u8, usize) {
        (self.cur.get(), self.end)
    }

    /// 0: a live region chunk that ends at the cursor is the window's newest, whichever
    /// window bumped it: another of this heap's (a window can take over the carve that
    /// follows another, see `Heap::refill`, and `Heap::resize_in_place` asks every
    /// window), or, for a block freed by another thread than the one that made it,
    /// another heap's window carved just below this one. The chunk's bytes up to the
    /// cursor are contiguous and free once it is given up, so the engine's `is_newest` is
    /// `p + len == cursor` here. (The heap asks the engine only about live region chunks.)
    #[inline(always)]
    fn far_end(&self) -> usize {
        0
    }

    /// Moves the cursor up (a block taken or grown); `release_to` moves it down.
    #[inline(always)]
    unsafe fn set_cursor(&self, p: *mut u8) {
        debug_assert!(
            self.cur.get().addr() <= p.addr() && p.addr() <= self.end,
            "cursor {p:p} outside {:p}..={:#x}",
            self.cur.get(),
            self.end
        );
        self.cur.set(p)
    }

    /// Gives the bytes from `p` to the cursor back (a freed or shrunk newest block). They
    /// may have been written, so `fresh` (where never-written bytes start) rises to the
    /// old cursor first.
    #[inline(always)]
    unsafe fn release_to(&self, p: *mut u8) {
        debug_assert!(p.addr() <= self.cur.get().addr(), "release_to {p:p} above the cursor {:p}", self.cur.get());
        self.fresh.set(self.fresh.get().max(self.cur.get().addr()));
        self.cur.set(p)
    }

    /// Never called: a window's slow path is its heap's (`Heap::alloc_slow`), which needs
    /// the free lists and the region's options; the heap calls only the engine's fast path
    /// and falls back itself. Refuses, leaving the window as it was.
    #[cold]
    fn alloc_slow(&self, _size: usize, _align: usize) -> Result<NonNull<u8>, AllocError> {
        Err(bumpdown::engine::FULL)
    }
}

impl Window {
    const EMPTY: Window = Window { cur: ptr::null_mut(), end: 0, fresh: 0, next: 0 };

    /// Takes a block of `csz` bytes aligned to `align` from this window, if it fits: the
    /// engine's upward bump over `cur..end` (`bumping::bump_up_sized`, then the cursor
    /// moves past the block). The bytes from the old cursor to the block are skipped (the
    /// caller files them). A chunk size is at most `isize::MAX` (see [`chunk_size`]), so
    /// with `align` 1 (the fast path) the alignment step folds away and the fit is one
    /// addition, whose sum is the new cursor, and one comparison.
    #[inline(always)]
    fn bump(&mut self, csz: usize, align: usize) -> Option<*mut u8> {
        self.cursor().bump_sized(csz, align)
    }

    /// Gets the window at least `need` more bytes (a multiple of `region::PAGE`) from
    /// `carve` (`region::carve` or `region::carve_zone`): the next window size, doubling
    /// from [`FIRST_WINDOW`] to [`MAX_WINDOW`], or `need` if larger. A carve adjacent to
    /// the window extends it (the newest block can keep growing in place); any other
    /// replaces it, the new cursor `offset < LINE` bytes in. Returns the old window's
    /// unused tail (empty when extended), which the caller files or leaves; `None` when
    /// `carve` has no room.
    fn carve_more(
        &mut self,
        carve: impl FnOnce(usize, usize, bool) -> Option<(*mut u8, usize)>,
        need: usize,
        offset: usize,
    ) -> Option<(*mut u8, usize)> {
        debug_assert!(offset < LINE);
        let window = if self.next == 0 { FIRST_WINDOW } else { self.next };
        // A window's first carve is left to fault in lazily (see `Options::populate`).
        let (start, len) = carve(need, need.max(window), self.next != 0)?;
        self.next = (window * 2).min(MAX_WINDOW);
        if start.addr() == self.end {
            self.end += len;
            return Some((self.cur, 0));
        }
        // Never wraps: cur <= end (invariant).
        let tail = (self.cur, self.end - self.cur.addr());
        // SAFETY: offset < LINE <= len (a window is at least a region page): inside the
        // carved window.
        self.cur = unsafe { start.add(offset) };
        self.end = start.addr() + len;
        self.fresh = start.addr();
        Some(tail)
    }

    /// The window as the engine sees it (see [`WindowCursor`]).
    #[inline(always)]
    fn cursor(&mut self) -> WindowCursor<'_> {
        WindowCursor { cur: Cell::from_mut(&mut self.cur), fresh: Cell::from_mut(&mut self.fresh), end: self.end }
    }

    /// Hands out block `p` of `csz` bytes, zeroed when `ZERO`: only its part below `fresh`
    /// can be dirty.
    ///
    /// # Safety
    /// `p` came from [`Window::bump`] on this window for `csz` bytes, with nothing taken
    /// since: `p..p + csz` is a fresh block of this heap's.
    #[inline(always)]
    unsafe fn hand_out<const ZERO: bool>(&self, p: *mut u8, csz: usize) -> *mut u8 {
        handed_out::<ZERO>(p, csz);
        if ZERO && p.addr() < self.fresh {
            let dirty = (self.fresh - p.addr()).min(csz);
            // SAFETY: p..p+dirty is inside the fresh block (the caller), `dirty <= csz`.
            unsafe { p.write_bytes(0, dirty) };
        }
        p
    }
}

/// Takes the first block off the free list whose head is `head` (its link `link` bytes
/// in), and returns it with the new head.
///
/// # Safety
/// The list is not empty and its blocks hold their links `link` bytes in.
#[inline(always)]
unsafe fn unlink(head: &mut *mut u8, link: usize) -> *mut u8 {
    let block = *head;
    let at = block.wrapping_add(link);
    shadow::defined(at, size_of::<*mut u8>());
    // SAFETY: a listed block is ours and holds the next address at its link (invariant).
    *head = unsafe { at.cast::<*mut u8>().read() };
    block
}

/// Puts block `p` at the head of the free list whose head is `head`, its link `link`
/// bytes in.
///
/// # Safety
/// `p` is an owned block in no list, not used again by the caller, with room for an
/// 8-aligned word `link` bytes in; the list's other blocks hold their links there too.
#[inline(always)]
unsafe fn link_in(head: &mut *mut u8, p: *mut u8, link: usize) {
    let at = p.wrapping_add(link);
    shadow::defined(at, size_of::<*mut u8>());
    // SAFETY: `at` is an 8-aligned word inside the owned block (the caller).
    unsafe { at.cast::<*mut u8>().write(*head) };
    shadow::no_access(at, size_of::<*mut u8>());
    *head = p;
}

/// Takes the first block off the free list whose head is `head`, and hands it out
/// (zeroed when `ZERO`).
///
/// # Safety
/// The list is not empty, its blocks are `csz` bytes, and `phase` is the heap's.
#[inline(always)]
unsafe fn pop<const ZERO: bool>(head: &mut *mut u8, csz: usize, phase: usize) -> *mut u8 {
    // SAFETY: forwarded caller contract (links lie at the phase: invariant).
    let block = unsafe { unlink(head, phase) };
    let next = *head;
    // The next pop's read of `next`'s first word is a dependent load from a block freed
    // long ago, most often a cache miss that `malloc` waits for: under python3's workload
    // (`bench/py_workload.py`, perf on a 2-core AMD EPYC VM) 82% of `malloc`'s samples fell
    // on it, and `malloc` was 5.6% of the process's. Started now, the load is mostly done
    // by then: 36% of `malloc`'s samples, 3.1% of the process's. (A null `next`: a hint to
    // nothing.)
    bumpdown::engine::prefetch(next.wrapping_add(phase));
    // SAFETY: the block is `csz` bytes, unlinked: ours now.
    unsafe { reuse::<ZERO>(block, csz) }
}

/// Hands out a reused block `p` of `csz` bytes (from a free list or a zone's batch),
/// zeroed when `ZERO`: any of its bytes may be dirty.
///
/// # Safety
/// `p..p + csz` is a free block the heap owns, in no list, batch or window.
#[inline(always)]
unsafe fn reuse<const ZERO: bool>(p: *mut u8, csz: usize) -> *mut u8 {
    handed_out::<ZERO>(p, csz);
    if ZERO {
        // SAFETY: the block is `csz` bytes, ours (the caller).
        unsafe { p.write_bytes(0, csz) };
    }
    p
}

/// The window a chunk of `csz` bytes is bumped from: 0 (tiny), 1 (small), 2 (large) or
/// [`LINE_BAND`] (3, exactly [`LINE`] bytes). Branch-free: where `csz` is a constant (most
/// of `BumpGlobal`'s calls) it folds away.
#[inline(always)]
const fn band(csz: usize) -> usize {
    (csz > TINY) as usize + (csz > SMALL_BAND) as usize + (csz == LINE) as usize
}
const _: () = assert!(band(LINE) == LINE_BAND && LINE > SMALL_BAND && LINE % GRAIN == 0);

/// The band of every chunk larger than [`SMALL_BAND`] bytes, except the [`LINE`]-byte ones.
const LARGE_BAND: usize = 2;

/// Chunks up to this size have their band in [`BANDS`]; all larger ones are in
/// [`LARGE_BAND`].
const BANDED: usize = 1024;

/// [`band`] of every chunk size up to [`BANDED`], by `csz / GRAIN` (the tiny chunk is
/// index 0; every other chunk size is a multiple of `GRAIN`), which is also the chunk's
/// class there: `Heap::free`, whose size is known only at run time, takes both from one
/// shift and one load, where the comparisons took nine instructions and the class four.
const BANDS: [u8; BANDED / GRAIN + 1] = {
    let mut bands = [0; BANDED / GRAIN + 1];
    let mut i = 1;
    while i < bands.len() {
        bands[i] = band(i * GRAIN) as u8;
        i += 1;
    }
    bands
};
const _: () = {
    assert!(BANDS[0] as usize == band(TINY) && class_of_chunk(TINY) == 0 && TINY < GRAIN);
    assert!(band(BANDED + GRAIN) == LARGE_BAND && BANDED > LINE);
    let mut csz = GRAIN;
    while csz <= BANDED {
        assert!(class_of_chunk(csz) == csz / GRAIN);
        csz += GRAIN;
    }
};

impl Heap {
    /// The empty heap (no windows, empty lists).
    pub const EMPTY: Heap = Heap {
        windows: [Window::EMPTY, Window::EMPTY, Window::EMPTY, Window::EMPTY],
        free: [ptr::null_mut(); CLASSES],
        zones: [Zone::EMPTY; ZONES],
    };

    /// Allocates a chunk of `csz` bytes (from [`chunk_size`]) aligned to `align`
    /// (a power of two `<= MAX_ALIGN`), zeroed when `ZERO`. Null when the region cannot
    /// serve it (not set up, exhausted); the caller then falls back.
    ///
    /// Fast path: a free-list pop, or one comparison and one add in the chunk's band.
    /// Where the caller passes a constant `phase`, it folds away.
    ///
    /// # Safety
    /// `csz` came from `chunk_size(_, align, mode)`; `align` is a power of two
    /// `<= MAX_ALIGN`, and at most `GRAIN` when `phase` is not 0, nor is `csz` then
    /// [`TINY`] (a phased front end's request counts its header); `phase` is the heap's
    /// (0 or [`PHASE_HEADER`], the same in every call on this heap); `init` gives the
    /// options to set the region up with, if it is not yet.
    #[inline(always)]
    pub unsafe fn alloc<const ZERO: bool>(
        &mut self,
        csz: usize,
        align: usize,
        mode: Mode,
        phase: usize,
        init: &impl Fn() -> region::Options,
    ) -> *mut u8 {
        if align <= GRAIN {
            // SAFETY: forwarded caller contract, with `align <= GRAIN`.
            let p = unsafe { self.alloc_fast::<ZERO>(csz, mode, phase) };
            if !p.is_null() {
                return p;
            }
        }
        // SAFETY: forwarded caller contract.
        unsafe { self.alloc_slow::<ZERO>(csz, align, mode, phase, init) }
    }

    /// [`alloc`](Heap::alloc)'s fast path alone, for a request aligned to at most `GRAIN`:
    /// a pop from the class's free list (recycling mode) or a bump in the chunk's window.
    /// Null when neither serves, and it calls nothing: a front end whose slow path starts
    /// over from the request (the `malloc` front end, which then calls `alloc`) keeps no
    /// value across a call on its fast path, so saves no register there.
    ///
    /// # Safety
    /// `csz` came from `chunk_size(_, align, mode)` with `align <= GRAIN`; `phase` is the
    /// heap's (see [`Heap::alloc`]).
    #[inline(always)]
    pub unsafe fn alloc_fast<const ZERO: bool>(&mut self, csz: usize, mode: Mode, phase: usize) -> *mut u8 {
        if mode == Mode::Recycle {
            let class = class_of_chunk(csz);
            // SAFETY: class < CLASSES (csz <= CLASS_MAX in recycle mode).
            let head = unsafe { self.free.get_unchecked_mut(class) };
            if !head.is_null() {
                // SAFETY: the list is not empty; its blocks are `csz` bytes; the heap's phase.
                return unsafe { pop::<ZERO>(head, csz, phase) };
            }
        }
        // SAFETY: band(_) < 4.
        let w = unsafe { self.windows.get_unchecked_mut(band(csz)) };
        // Alignment 1: the block is aligned enough at `cur`, a multiple of GRAIN, or of
        // TINY in the tiny window, whose chunks ask for align <= TINY.
        match w.bump(csz, 1) {
            // SAFETY: `p` was just taken by `bump` for `csz` bytes.
            Some(p) => unsafe { w.hand_out::<ZERO>(p, csz) },
            None => ptr::null_mut(),
        }
    }

    /// The slow path: the chunk's window has no room for `csz` bytes aligned to `align`,
    /// or `align > GRAIN`. Carves a new window if needed.
    ///
    /// # Safety
    /// As [`Heap::alloc`].
    #[cold]
    #[inline(never)]
    unsafe fn alloc_slow<const ZERO: bool>(
        &mut self,
        csz: usize,
        align: usize,
        mode: Mode,
        phase: usize,
        init: &impl Fn() -> region::Options,
    ) -> *mut u8 {
        debug_assert!(phase == 0 || (phase == PHASE_HEADER && align <= GRAIN && csz != TINY));
        if align > GRAIN && mode == Mode::Recycle {
            // Only the head is looked at (no list walk): a program that frees an
            // over-aligned block and asks for one again (`posix_memalign` buffers,
            // cache-padded values) finds its own block there. Without this, such requests
            // never came back to the lists their blocks were freed to, and the region grew
            // by a block per round.
            // csz <= CLASS_MAX in recycle mode, so its class is in range.
            let head = &mut self.free[class_of_chunk(csz)];
            if !head.is_null() && head.addr() & (align - 1) == 0 {
                // SAFETY: the list is not empty; its blocks are `csz` bytes; the heap's phase.
                return unsafe { pop::<ZERO>(head, csz, phase) };
            }
        }
        let i = band(csz);
        for _ in 0..2 {
            let w = &mut self.windows[i];
            let spare = w.cur;
            // Up to GRAIN, every chunk start in the window is aligned enough (at the
            // heap's phase, for a phased heap), as on the fast path.
            if let Some(p) = w.bump(csz, if align <= GRAIN { 1 } else { align }) {
                // SAFETY: `p` was just taken by `bump` for `csz` bytes.
                let p = unsafe { w.hand_out::<ZERO>(p, csz) };
                // The gap before the aligned block.
                let gap = p.addr() - spare.addr();
                if gap != 0 && mode == Mode::Recycle {
                    // SAFETY: spare..p was window i's memory, now skipped, no block
                    // overlaps it.
                    unsafe { self.file_spare(i, spare, gap, phase) };
                }
                return p;
            }
            if !self.refill(i, csz + if align > GRAIN { align } else { 0 }, mode, phase, init) {
                return ptr::null_mut();
            }
        }
        // `refill` gave a window of at least csz + align bytes: unreachable.
        ptr::null_mut()
    }

    /// Gets window `i` at least `need` bytes: in recycling mode, from the largest listed
    /// block of at least [`HARVEST_MIN`] bytes that has room (see `Heap::harvest`); else
    /// from the region, extending the window when the carved one happens to follow it, else
    /// filing the old tail and switching. False when the region cannot give `need` bytes.
    #[cold]
    fn refill(&mut self, i: usize, need: usize, mode: Mode, phase: usize, init: &impl Fn() -> region::Options) -> bool {
        // A listed block would start the line window off its phase (see the module docs).
        if mode == Mode::Recycle && i != LINE_BAND && self.harvest(i, need, phase) {
            return true;
        }
        if !region::initialized() && !region::init(init()) {
            return false;
        }
        // The window starts `phase` bytes in (the tiny window's 8-byte chunks need none; the
        // line window's start `line_offset(phase)` in, a page being a multiple of a line).
        let offset = match i {
            0 => 0,
            LINE_BAND => line_offset(phase),
            _ => phase,
        };
        let need = need.checked_add(offset).and_then(|n| crate::classes::checked_round_up(n, region::PAGE));
        let Some(need) = need else {
            return false;
        };
        let Some((tail, room)) = self.windows[i].carve_more(region::carve, need, offset) else {
            return false;
        };
        if room != 0 && mode == Mode::Recycle {
            // SAFETY: tail..tail+room was window i's unused tail, overlapped by no block,
            // and the window has left it.
            unsafe { self.file_spare(i, tail, room, phase) };
        }
        true
    }

    /// Makes a listed block window `i`'s memory, if one of at least [`HARVEST_MIN`] bytes
    /// has room for `need` bytes at the window's start (the largest at the head of its
    /// list), filing the old window's tail. Returns whether it did.
    ///
    /// Without this, a class's free blocks served only that class. A program whose arrays
    /// grow by `realloc` leaves a block in every class they pass through, each too big for
    /// its small objects: python3's workload (`bench/py_workload.py`), whose twelve tag
    /// lists grow side by side, kept ~20 MB listed in the classes from 24 to 256 KiB while
    /// the region grew under it, 1.10x glibc's peak RSS. Only blocks this large are taken:
    /// a window made of one still serves many small blocks before the next refill.
    #[cold]
    fn harvest(&mut self, i: usize, need: usize, phase: usize) -> bool {
        // Room for the request whichever way the block starts and ends (phase, rounding).
        let Some(need) = need.checked_add(2 * GRAIN) else {
            return false;
        };
        let lo = class_of_chunk(HARVEST_MIN);
        let Some(class) = (lo..CLASSES).rev().find(|&c| !self.free[c].is_null()) else {
            return false;
        };
        let size = class_size(class);
        if size < need {
            return false;
        }
        // SAFETY: the list is not empty (found above); links lie at the phase (invariant).
        let block = unsafe { unlink(&mut self.free[class], phase) };
        shadow::no_access(block, size);
        // The block starts at the heap's phase past a multiple of GRAIN (invariant), where
        // window `i`'s chunks start (the tiny window's need only 8-alignment, which it has);
        // its end is rounded down to GRAIN, as window ends are, and the cut-off bytes (0 or
        // 8) are filed.
        let end = (block.addr() + size) & !(GRAIN - 1);
        let w = &mut self.windows[i];
        let (tail, room) = (w.cur, w.end - w.cur.addr());
        w.cur = block;
        w.end = end;
        // Every byte of it may have been written.
        w.fresh = end;
        // SAFETY: tail..tail+room was window i's unused tail, overlapped by no block, and
        // the window has left it; block+(end-block)..block+size is the end of the block,
        // ours now, past the new window and a multiple of 8 long (both ends are 8-aligned).
        unsafe {
            self.file_spare(i, tail, room, phase);
            self.file_spare(i, block.add(end - block.addr()), block.addr() + size - end, phase);
        }
        true
    }

    /// Files `len` spare bytes at `p`, left by window `i`, as free blocks (largest class
    /// first; only tiny ones from the tiny window, whose memory may be only 8-aligned).
    ///
    /// A phased window's tail is 8 bytes short of a multiple of `GRAIN` (it runs from the
    /// phase to a page boundary): its last 8 bytes would be a tiny block, which only
    /// phase-0 heaps ask for, so a phased heap leaves them unused, unlisted.
    ///
    /// # Safety
    /// `p..p+len` is memory of window `i` (starting where its invariant says a chunk may,
    /// `len` a multiple of 8) owned by this heap that no block overlaps and that will not
    /// be bumped again.
    unsafe fn file_spare(&mut self, i: usize, mut p: *mut u8, mut len: usize, phase: usize) {
        let largest = |len| match floor_class(len) {
            _ if i == 0 && len >= TINY => Some(0),
            Some(0) if phase != 0 => None,
            class => class,
        };
        while let Some(class) = largest(len) {
            let size = class_size(class);
            // SAFETY: p..p+size lies in the spare range (size <= len), a tiny block only
            // for a phase-0 heap (above).
            unsafe { self.push(p, class, phase) };
            // SAFETY: size <= len: stays within (or one past) the spare range.
            p = unsafe { p.add(size) };
            len -= size;
        }
    }

    /// Pushes block `p` on list `class`.
    ///
    /// # Safety
    /// `p` is a region block of `class_size(class)` bytes, aligned as the invariant says,
    /// owned by the caller, in no list, and not used again by the caller; `phase` is the
    /// heap's, and 0 for a tiny block.
    #[inline(always)]
    unsafe fn push(&mut self, p: *mut u8, class: usize, phase: usize) {
        // SAFETY: class < CLASSES (callers compute it from a recycled chunk size).
        let head = unsafe { self.free.get_unchecked_mut(class) };
        // SAFETY: the word `phase` bytes in is 8-aligned and inside the owned block: a
        // tiny block's first word (phase 0), or the word `phase <= 8` bytes into a block of
        // at least GRAIN; the list's links lie at the phase (invariant).
        unsafe { link_in(head, p, phase) };
    }

    /// Frees chunk `p` of `csz` bytes: the newest block of its band's window is taken back
    /// by the bump pointer; in recycling mode others go to their class list; in bump mode
    /// they leak.
    ///
    /// # Safety
    /// `p` is a live region chunk of `csz` bytes (its chunk size in `mode`) from any
    /// thread's heap of this heap's `phase`; it is not used afterwards.
    #[inline(always)]
    pub unsafe fn free(&mut self, p: *mut u8, csz: usize, mode: Mode, phase: usize) {
        // Up to BANDED bytes (most frees), `csz / GRAIN` gives both the band (from the
        // table) and the class: one shift for the two.
        debug_assert!(csz == TINY || csz % GRAIN == 0, "a chunk size");
        let banded = csz <= BANDED;
        let index = csz / GRAIN;
        let band = if banded { BANDS[index] as usize } else { LARGE_BAND };
        // SAFETY: a band is < 4.
        let w = unsafe { self.windows.get_unchecked_mut(band) };
        // SAFETY: `p` is a live chunk of `csz` bytes (so not null), given up. The newest
        // block of its band's window goes back to the bump pointer (whichever window
        // bumped it, see `WindowCursor::far_end`).
        let freed = unsafe { w.cursor().free_newest(NonNull::new_unchecked(p), csz) };
        if !freed && mode == Mode::Recycle {
            let class = if banded { index } else { class_of_chunk(csz) };
            // SAFETY: a recycled chunk is a whole class block; the caller gives it up; a
            // phased heap's chunks are never tiny.
            unsafe { self.push(p, class, phase) };
        }
        shadow::no_access(p, csz);
    }

    /// Resizes chunk `p` from `old` to `new` chunk bytes without moving it, if `p` is
    /// the newest block of a window and that window (possibly extended) has room. Returns
    /// whether it did. A block may so outgrow its band; it stays where it is. A tiny chunk
    /// never changes size in place (it may be only 8-aligned, and a window's bump pointer
    /// must stay 16-aligned), nor does a chunk become tiny.
    ///
    /// In recycling mode a block does not change class in place while its new class has
    /// a free block: the caller then moves it there (or keeps a shrinking block whole),
    /// and its old place goes back to the bump pointer. So a class gets a block from a
    /// window only when all its blocks are in use, as for a fresh request, and the
    /// memory of a program that repeats the same work stays bounded. Resizing in place
    /// anyway made a block for a class that had some to spare: the `malloc` fuzz target,
    /// running one input of reallocations many times, grew by ~250 KB a run.
    ///
    /// # Safety
    /// `p` is a live region chunk of `old` bytes; `new` came from `chunk_size` with the
    /// alignment `p` was allocated with; `phase` is the heap's (see [`Heap::alloc`]).
    #[inline]
    pub unsafe fn resize_in_place(&mut self, p: *mut u8, old: usize, new: usize, mode: Mode, phase: usize) -> bool {
        if old == TINY || new == TINY {
            return old == new;
        }
        if new != old && mode == Mode::Recycle && self.free.get(class_of_chunk(new)).is_some_and(|h| !h.is_null()) {
            return false;
        }
        // SAFETY: a live chunk is not null.
        let block = unsafe { NonNull::new_unchecked(p) };
        // Not in the line window: a resized chunk would move its cursor off the line phase.
        let Some(i) = (0..LINE_BAND).find(|&i| self.windows[i].cursor().is_newest(block, old)) else {
            return false;
        };
        // The engine's resizing of a newest block, as for every arena face.
        let resized = if new <= old {
            // SAFETY: `p` is a live chunk of `old` bytes; when this succeeds the caller
            // uses only its first `new` bytes.
            unsafe { self.windows[i].cursor().shrink_newest_in_place(block, old, new) }
        } else {
            // SAFETY: as above, growing: when it succeeds the block stays at `p`, `new`
            // bytes long. (After `extend` the engine asks again whether it is the newest.)
            let grow = |heap: &mut Heap| unsafe { heap.windows[i].cursor().grow_newest_in_place(block, old, new, 1) };
            grow(self).is_some() || (self.extend(i, new, mode, phase) && grow(self).is_some())
        };
        if !resized {
            return false;
        }
        if new > old {
            shadow::undefined(p.wrapping_add(old), new - old);
        } else {
            shadow::no_access(p.wrapping_add(new), old - new);
        }
        true
    }

    /// Gets window `i` more room for its newest block to grow into, for a resize that did
    /// not fit; false when the region has none. The block can then grow in place only
    /// when the newly carved memory is adjacent (the window is extended); a non-adjacent
    /// window replaces the current one (whose tail is filed), ready for the move that
    /// follows, and the block is no longer the newest.
    #[cold]
    fn extend(&mut self, i: usize, new: usize, mode: Mode, phase: usize) -> bool {
        // The region is set up (the block is in it), so `init` is never called. Asking for
        // `new` bytes makes a non-adjacent window big enough for the moved block.
        self.refill(i, new, mode, phase, &|| region::Options::new(0))
    }
}

/// Zones: headerless chunks whose size the address tells.
///
/// A heap has one more window per zone of the region ([`region::Place::Zone`]): zone `k`'s
/// window bumps chunks of [`zone_size`]`(k)` bytes (16 to 256) and nothing else, carved
/// from that zone alone. Its freed chunks go to a short list of the heap's (the newest
/// frees, reused first) and past that to the zone's free bitmap, shared by every heap,
/// from which a heap whose window is full takes 64 neighbouring chunks at a time, lowest
/// address first (see [`ZONE_LIST_MAX`] for why). A front end that
/// writes a header in front of each block (the `malloc` front end) can hand a zone chunk
/// out bare: `free` finds its size from its address ([`region::place`]). So a `malloc(48)`
/// takes 48 bytes, not 64 with its header, and blocks of one size lie together, as in a
/// size-segregated allocator (jemalloc, mimalloc).
///
/// # INVARIANT (with the module's), for each zone `k` and `z = zones[k]`
/// * `z.window` is empty (`cur == end == 0`) or `cur..end` lies in zone `k`, belongs to
///   this heap alone and overlaps no block; `cur` lies on the zone's chunk grid
///   ([`region::zone_grid`]) and `end` is a multiple of `region::PAGE`; bytes from
///   `max(cur, fresh)` to `end` are zero. So every chunk of zone `k` lies on its grid.
/// * `z.list` is null or the first of a null-terminated list of `z.listed <=`
///   [`ZONE_LIST_MAX`] chunks of zone `k`, not allocated, in no other list, each holding
///   the next's address in its first word.
/// * Each set bit `i` of `z.batch` stands for the chunk at `z.batch_at + i * zone_size(k)`:
///   a chunk of zone `k` that this heap took from the zone's free bitmap, not allocated,
///   in no list and no window.
/// * A free chunk is in at most one place: a heap's list, a heap's batch, or the zone's
///   free bitmap (see `region`'s invariant).
impl Heap {
    /// A chunk of `zone_size(k)` bytes from zone `k`, 16-aligned, zeroed when `ZERO`, from
    /// the zone's free list, batch or window; null when none has one (the caller then calls
    /// [`Heap::alloc_zoned`]). Calls nothing.
    ///
    /// # Safety
    /// `k < ZONES`.
    #[inline(always)]
    pub unsafe fn alloc_zoned_fast<const ZERO: bool>(&mut self, k: usize) -> *mut u8 {
        let csz = zone_size(k);
        // SAFETY: k < ZONES (the caller).
        let z = unsafe { self.zones.get_unchecked_mut(k) };
        if !z.list.is_null() {
            z.listed -= 1;
            // SAFETY: the list is not empty; its chunks are `csz` bytes, links at 0.
            return unsafe { pop::<ZERO>(&mut z.list, csz, 0) };
        }
        if z.batch != 0 {
            let i = z.batch.trailing_zeros() as usize;
            z.batch &= z.batch - 1;
            // SAFETY: bit `i` was set: the chunk there is a free chunk of zone k (`csz`
            // bytes) that this heap took from the bitmap, and clearing the bit took it out
            // of the batch (invariant).
            return unsafe { reuse::<ZERO>(z.batch_at.wrapping_add(i * csz), csz) };
        }
        // Alignment 1: the cursor stays a multiple of 16 (every chunk is).
        match z.window.bump(csz, 1) {
            // SAFETY: `p` was just taken by `bump` for `csz` bytes.
            Some(p) => unsafe { z.window.hand_out::<ZERO>(p, csz) },
            None => ptr::null_mut(),
        }
    }

    /// [`alloc_zoned_fast`](Heap::alloc_zoned_fast), or, when the zone's window is full, a
    /// batch of freed chunks from the zone's free bitmap, or a new window (setting the
    /// region up with `init()` if it is not yet). Null when the zone or the region has no
    /// room: the caller serves the request elsewhere.
    ///
    /// # Safety
    /// `k < ZONES`.
    pub unsafe fn alloc_zoned<const ZERO: bool>(&mut self, k: usize, init: &impl Fn() -> region::Options) -> *mut u8 {
        // SAFETY: k < ZONES (the caller).
        let p = unsafe { self.alloc_zoned_fast::<ZERO>(k) };
        if !p.is_null() || !self.refill_zone(k, init) {
            return p;
        }
        // SAFETY: as above; the batch or the window now has a chunk.
        unsafe { self.alloc_zoned_fast::<ZERO>(k) }
    }

    /// Gives zone `k` a batch of freed chunks from its free bitmap or, when that is empty,
    /// its window a new stretch of the zone; false when neither has any. The old window's
    /// tail, shorter than a chunk (the window is refilled only when a chunk does not fit),
    /// is left unused.
    #[cold]
    fn refill_zone(&mut self, k: usize, init: &impl Fn() -> region::Options) -> bool {
        if !region::initialized() && !region::init(init()) {
            return false;
        }
        let z = &mut self.zones[k];
        if let Some((batch, at)) = region::zone_take(k, &mut z.scan) {
            // The chunks of the set bits are ours now (`zone_take`), and the batch was
            // empty (the fast path found none).
            (z.batch, z.batch_at) = (batch, at);
            return true;
        }
        let carve = |need, want, populate| region::carve_zone(k, need, want, populate);
        if z.window.carve_more(carve, region::PAGE, 0).is_none() {
            return false;
        }
        // A new window's cursor moves up to the zone's grid (a no-op for an extended one,
        // already on it): a window of a PAGE or more still has room for a chunk.
        z.window.cur = region::zone_grid(k, z.window.cur);
        true
    }

    /// Frees chunk `p` of zone `k`: taken back by the bump pointer when it is its zone
    /// window's newest, else listed, or, when the list is full, given to the zone's free
    /// bitmap.
    ///
    /// # Safety
    /// `p` is a live chunk of zone `k` (from any thread's heap), not used afterwards.
    #[inline(always)]
    pub unsafe fn free_zoned(&mut self, p: *mut u8, k: usize) {
        let csz = zone_size(k);
        // SAFETY: k < ZONES (a zone's index).
        let z = unsafe { self.zones.get_unchecked_mut(k) };
        // Closed first: once given to the bitmap, another thread may take it (`link_in`
        // opens the link's word for its write).
        shadow::no_access(p, csz);
        // SAFETY: `p` is a live chunk of `csz` bytes (so not null), given up. (Another
        // heap's zone window may end where this one's starts: as for the bands, see
        // `WindowCursor::far_end`.)
        if unsafe { z.window.cursor().free_newest(NonNull::new_unchecked(p), csz) } {
            return;
        }
        if z.listed < ZONE_LIST_MAX {
            z.listed += 1;
            // SAFETY: p is an owned chunk of at least 16 bytes, 16-aligned, given up; the
            // zone's list has its links at 0 (invariant).
            unsafe { link_in(&mut z.list, p, 0) };
        } else {
            // SAFETY: p is a chunk of zone k, given up, in no list or window.
            unsafe { region::zone_give(k, p) };
        }
    }
}

/// Tells a memory checker that chunk `p` of `csz` bytes is handed out: addressable, and
/// initialised when it is about to be zeroed (or is fresh, untouched mapping) for `ZERO`.
#[inline(always)]
fn handed_out<const ZERO: bool>(p: *mut u8, csz: usize) {
    if ZERO {
        shadow::defined(p, csz);
    } else {
        shadow::undefined(p, csz);
    }
}
