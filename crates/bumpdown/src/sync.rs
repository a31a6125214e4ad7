//! `SyncArena`: one arena shared by many threads, with a lock-free fast path.
//!
//! Threads do not bump the shared chunk's `top` directly: with two threads at once its
//! cache line would bounce between cores on every allocation. The arena instead has
//! *lanes*, each alone on its cache lines, and every thread is dealt one lane, once, on
//! its first slow path, with the same index in every `SyncArena`. A lane holds a
//! *window*: a block of the current chunk (4 KiB, doubling to 64 KiB) whose header, at
//! its start, has its own `top`.
//!
//! * The first `LANES` (8) threads alive at once each *claim* an exclusive lane: a bit in
//!   a process-wide bitmap (`CLAIMS`), taken with an `Acquire` compare-and-swap. No
//!   other thread touches that lane's window `top` in any arena while the claim is held,
//!   so the fast path is a plain load, the range check and a plain store: no atomic
//!   read-modify-write, no `lock` prefix.
//! * A thread that finds every lane claimed is dealt one of `LANES` *shared* lanes
//!   (round robin), whose `top` is bumped with one atomic subtraction (`lock xadd`), so
//!   any number of threads can share one. Those threads allocate through the slow path
//!   (a call, then that subtraction): correct, a few nanoseconds slower.
//! * A claim is released when its thread exits, by a thread-local guard registered on
//!   the claiming slow path (the fast path's thread-local has nothing to drop, so reading
//!   it stays one load). The guard first switches the thread to a shared lane, then
//!   clears its bit with `Release`: the next claimer's `Acquire` sees every store the
//!   old owner made to the lane's windows, and allocations the thread makes afterwards
//!   (from other thread-locals' destructors) take the shared path. A thread whose guard
//!   cannot be registered (its thread-locals are already being torn down) does not claim.
//!   A claim whose guard never runs (a thread whose thread-local destructors do not run,
//!   the other threads' claims in a `fork`ed child) stays taken: its lane is lost to the
//!   others, which costs speed, never soundness.
//!
//! Refilling a lane, like replacing a full chunk, takes the arena's lock; large or very
//! aligned requests skip the lanes and bump the current chunk as before.
//!
//! Chunks are freed only by `reset` (`&mut self`) or drop, and windows live inside
//! chunks, so a thread still bumping a window or chunk that another thread has just
//! replaced is bumping live memory: it may waste its tail, never misuse it.
//!
//! Not async-signal-safe: a signal handler that allocates from a `SyncArena` on a thread
//! interrupted between its fast path's load and store would be handed the same bytes
//! (and the slow path takes a lock anyway).
//!
//! For the highest throughput each thread takes a [`LocalArena`] (`arena.local()`): it
//! carves windows out of the shared arena with one atomic step each and bumps inside
//! them with plain loads and stores, the same fast path as [`Arena`](crate::Arena).

// Handing out `&mut` to fresh, disjoint blocks from `&self` is what an arena is for.
#![allow(clippy::mut_from_ref)]

use core::cell::Cell;
use core::fmt;
use core::mem;
use core::ptr;
use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::vec::Vec;

use crate::alloc_api::prelude::*;
use crate::arena::empty_chunk;
use crate::backing::{BackingAllocator, Global};
use crate::bumping::{self, round_down, CHUNK_ALIGN, MIN_BOTTOM};
use crate::error::block_or_panic;

/// Size of a shared chunk's first allocation from the backing allocator; they double
/// from there up to `MAX_CHUNK`.
const FIRST_CHUNK: usize = 16 * 1024;
const MAX_CHUNK: usize = 4 << 20;
/// Requests above this get a chunk of their own and leave the current one in place.
const BIG: usize = MAX_CHUNK / 8;
/// Windows a `LocalArena` takes, and those `SyncArena`'s lanes hold: the first size,
/// the largest.
const FIRST_WINDOW: usize = 4 * 1024;
const MAX_WINDOW: usize = 64 * 1024;

/// Exclusive lanes of a `SyncArena`, and as many shared ones: threads that can claim
/// an exclusive lane bump without atomics, the rest share the others. A few more than
/// the usual core count costs only a cache-line pair each (windows are taken lazily).
const LANES: usize = 8;
const _: () = assert!(LANES <= usize::BITS as usize);
/// A lane window's alignment and the bytes its header takes: a pair of cache lines, so
/// that no block handed out (from this window or the one below) shares a line, or an
/// adjacent-line prefetch pair, with the window's contended `top`.
const WINDOW_ALIGN: usize = 128;
const WINDOW_HEADER: usize = 128;
/// Requests above this size (or aligned above `WINDOW_ALIGN`) skip the lanes: they
/// would waste too much of a window.
const LANE_MAX_REQUEST: usize = MAX_WINDOW / 4;
const _: () = assert!(core::mem::size_of::<SharedChunk>() <= WINDOW_HEADER);
const _: () = assert!(WINDOW_ALIGN % core::mem::align_of::<SharedChunk>() == 0);
const _: () = assert!(WINDOW_ALIGN >= CHUNK_ALIGN && WINDOW_HEADER % WINDOW_ALIGN == 0);
// A window of `w >= FIRST_WINDOW` bytes holds any request of at most `w / 4` bytes
// aligned to at most WINDOW_ALIGN above its header; the largest window holds the largest
// lane request.
const _: () = assert!(FIRST_WINDOW - FIRST_WINDOW / 4 >= WINDOW_ALIGN + WINDOW_HEADER);
const _: () = assert!(4 * LANE_MAX_REQUEST <= MAX_WINDOW);

/// The header at the start of every shared chunk, and of every lane window. Aligned to a
/// cache line, so that the contended `top` shares its line with nothing but the fields
/// read with it.
#[repr(C, align(64))]
struct SharedChunk {
    // INVARIANT: `top <= end` and `top % WORD == 0`. While `top >= bottom`,
    // `bottom..top` is free and `top..end` handed out. A fast bump that did not fit
    // still subtracted its size, so `top` may end up below `bottom` (or even wrap below
    // zero): every path treats a `top` outside `bottom..=end` as "full". `top` only
    // moves down while shared; `reset` (`&mut`) moves it back to `end`.
    //
    // In an exclusive lane's window, and in the exclusive lanes' sentinel, `top` is
    // never subtracted from atomically: only the thread holding the lane's claim
    // writes it (`bump_owned`: a load, and a store only when the block fits), so it
    // stays in `bottom..=end` (and the sentinel's at 0). A claim passes to another
    // thread only through `CLAIMS` (`Release`, then `Acquire`), so each owner sees the
    // last value its predecessor stored.
    top: AtomicUsize,
    bottom: usize,
    end: usize,
    /// `end - bottom`, kept so that the fast path's range check reads one field.
    span: usize,
    /// The chunk's block, with its provenance: allocations are made from it by address.
    base: *mut u8,
    /// The block's size (for a chunk, its layout is `size` bytes aligned to the header;
    /// for a window, the window's bytes, header included).
    size: usize,
    /// The next older chunk in the arena's list (fixed once published); null in a
    /// window.
    prev: *mut SharedChunk,
}

/// One lane of a `SyncArena`: the window its threads bump, alone on its pair of cache
/// lines.
#[repr(align(128))]
struct Lane {
    // INVARIANT: `window` is the lane's sentinel (`OWNED_EMPTY` for an exclusive lane,
    // `empty_shared(i)` for shared lane `i`) or the header of a window (a block of
    // `header.size` bytes, aligned to WINDOW_ALIGN, with `bottom = start +
    // WINDOW_HEADER` and `end = start + size`) inside a chunk of this arena's list,
    // published with `Release` after its header was written. It is replaced only with
    // the arena's lock held (for an exclusive lane, only by its claim's holder), or by
    // `reset` (`&mut`). An exclusive lane's window `top` is bumped only by the thread
    // holding the claim (see `SharedChunk::top`); a shared lane's only atomically.
    window: AtomicPtr<SharedChunk>,
}

impl Lane {
    /// The lane's window, as it is now.
    #[inline(always)]
    fn window(&self) -> &SharedChunk {
        // SAFETY: the sentinel or a window in a live chunk of the arena that owns this
        // lane, alive while the lane is borrowed (invariant); `Acquire` pairs with the
        // `Release` that published it, so its header is seen.
        unsafe { &*self.window.load(Ordering::Acquire) }
    }

    /// A block of `size` bytes aligned to `align` from a shared lane's window, or `None`
    /// if the window has no room.
    #[inline(always)]
    fn bump(&self, size: usize, align: usize) -> Option<NonNull<u8>> {
        // SAFETY: inside a live chunk, so not null.
        self.window().bump_padded(size, align).map(|p| unsafe { NonNull::new_unchecked(p) })
    }

    /// A block of `size > 0` bytes aligned to `align` from an exclusive lane's window, or
    /// `None` if the window has no room.
    ///
    /// # Safety
    /// This is exclusive lane `i` and the calling thread holds claim `i` (`LANE` is `i`).
    #[inline(always)]
    unsafe fn bump_owned(&self, size: usize, align: usize) -> Option<*mut u8> {
        // A `Relaxed` load suffices: the window is stored only by this lane's claim
        // holders (program order here, `CLAIMS`' `Release`/`Acquire` from a previous
        // holder) and through `&mut` (`reset`, construction), all of which happen
        // before this load; so are the header writes before each store.
        let window = self.window.load(Ordering::Relaxed);
        // SAFETY: the sentinel or a window in a live chunk (invariant), its header seen
        // (above); the caller holds the claim, so this thread alone writes its `top`.
        unsafe { (*window).bump_owned(size, align) }
    }
}

/// The exclusive lanes' claims, process-wide: bit `i` is set while a live thread holds
/// exclusive lane `i` (in every `SyncArena`). Set by `claim_lane` (`Acquire`), cleared
/// by that thread's `LaneClaim` guard at its exit (`Release`).
static CLAIMS: AtomicUsize = AtomicUsize::new(0);

/// Deals shared lanes round robin to the threads that find every claim taken.
static NEXT_SHARED: AtomicUsize = AtomicUsize::new(0);

/// `LANE` of a thread that has not been dealt a lane yet.
const UNDEALT: usize = usize::MAX;

std::thread_local! {
    /// This thread's lane, in every `SyncArena`: `i < LANES` while it holds claim `i`
    /// (exclusive lane `i`), `LANES + i` for shared lane `i`, `UNDEALT` before its first
    /// slow path. Const-initialised with nothing to drop, so reading it is one load and
    /// it stays readable while the thread's other thread-locals are destroyed.
    ///
    /// INVARIANT: `LANE == i < LANES` only between this thread's successful claim of
    /// bit `i` of `CLAIMS` and its `LaneClaim` guard's release of it; once the guard has
    /// run, `LANE` is a shared lane for good.
    static LANE: Cell<usize> = const { Cell::new(UNDEALT) };

    /// Registered (touched) on the slow path that claims, before the claim: its drop at
    /// thread exit gives the claim back.
    static CLAIM_GUARD: LaneClaim = const { LaneClaim };
}

/// Releases the thread's claim at thread exit (see the module docs).
struct LaneClaim;

impl Drop for LaneClaim {
    fn drop(&mut self) {
        let lane = LANE.get();
        if lane < LANES {
            // Shared from here on, first: allocations this thread still makes (other
            // thread-locals' destructors) must not touch the lane once it is released.
            LANE.set(LANES + lane);
            // `Release`: every store this thread made to the lane's window `top`s
            // happens before the next claimer's `Acquire`.
            CLAIMS.fetch_and(!(1 << lane), Ordering::Release);
        }
    }
}

/// This thread's lane (see `LANE`), dealt on first use.
#[inline]
fn lane_index() -> usize {
    let lane = LANE.get();
    if lane != UNDEALT {
        return lane;
    }
    deal_lane()
}

/// Claims a free exclusive lane for this thread, or deals it a shared one.
#[cold]
#[inline(never)]
fn deal_lane() -> usize {
    // The guard first, so that a claim is only ever taken by a thread whose guard will
    // give it back; at thread exit, once thread-locals are being destroyed, this fails.
    let lane = match CLAIM_GUARD.try_with(|_| ()) {
        Ok(()) => claim_lane(),
        Err(_) => None,
    };
    let lane = lane.unwrap_or_else(|| LANES + NEXT_SHARED.fetch_add(1, Ordering::Relaxed) % LANES);
    LANE.set(lane);
    lane
}

/// Takes the lowest free bit of `CLAIMS`, or `None` if all `LANES` are taken.
fn claim_lane() -> Option<usize> {
    const ALL: usize = usize::MAX >> (usize::BITS as usize - LANES);
    let mut claims = CLAIMS.load(Ordering::Relaxed);
    loop {
        let free = !claims & ALL;
        if free == 0 {
            return None;
        }
        let lane = free.trailing_zeros() as usize;
        // `Acquire` on success: pairs with the `Release` of the guard that freed the
        // bit, so the previous holder's stores to the lane's windows are seen.
        match CLAIMS.compare_exchange_weak(claims, claims | 1 << lane, Ordering::Acquire, Ordering::Relaxed) {
            Ok(_) => return Some(lane),
            Err(now) => claims = now,
        }
    }
}

/// Shared chunks hand out multiples of this many bytes, so that one atomic subtraction
/// leaves `top` aligned for any request aligned to at most this much.
const WORD: usize = 8;

/// A chunk of no bytes: every request fails on it, so an empty arena needs no
/// "has a chunk yet?" branch. One per shared lane, each on its own pair of cache lines,
/// one for `current` and the handles, and one for every exclusive lane (`OWNED_EMPTY`):
/// a shared lane without a window still takes one atomic step on its sentinel's `top`,
/// and with one sentinel per shared lane, threads (of any `SyncArena` in the process)
/// contend on a sentinel only as much as they do on a lane. The exclusive lanes'
/// sentinel is only ever read: its `top` stays 0.
#[repr(align(128))]
struct Sentinel(SharedChunk);
// SAFETY: the sentinel's only mutable field is the atomic `top`. The shared `fetch_sub`
// does write it (a shared lane that has no window yet bumps its sentinel), which is
// sound for an atomic; with `bottom == end == 0` no value of `top` ever fits a request
// (see `SharedChunk::bump`), so nothing is handed out of it. `bump_owned` stores only
// after a fit, and on `OWNED_EMPTY` (`top == 0`, which no one else writes) nothing of
// positive size fits. Its raw pointers are null and never dereferenced.
unsafe impl Sync for Sentinel {}
static EMPTY: [Sentinel; LANES + 2] = [const {
    Sentinel(SharedChunk {
        top: AtomicUsize::new(0),
        bottom: 0,
        end: 0,
        span: 0,
        base: ptr::null_mut(),
        size: 0,
        prev: ptr::null_mut(),
    })
}; LANES + 2];

/// The sentinel of shared lane `i`, or (`i == LANES`) of `current` and of a handle
/// without a window, or (`i == LANES + 1`, `OWNED_EMPTY`) of every exclusive lane.
const fn empty_shared(i: usize) -> *mut SharedChunk {
    ptr::addr_of!(EMPTY[i].0).cast_mut()
}

/// The exclusive lanes' sentinel: never written (see `Sentinel`).
const OWNED_EMPTY: usize = LANES + 1;

/// Whether `p` is one of the sentinels.
fn is_empty_shared(p: *const SharedChunk) -> bool {
    let first = EMPTY.as_ptr().addr();
    (first..first + core::mem::size_of_val(&EMPTY)).contains(&p.addr())
}

/// The shared lanes of an arena without windows: each at its own sentinel.
const fn empty_lanes() -> [Lane; LANES] {
    let mut lanes = [const { Lane { window: AtomicPtr::new(ptr::null_mut()) } }; LANES];
    let mut i = 0;
    while i < LANES {
        lanes[i] = Lane { window: AtomicPtr::new(empty_shared(i)) };
        i += 1;
    }
    lanes
}

/// The exclusive lanes of an arena without windows: all at `OWNED_EMPTY`.
const fn owned_empty_lanes() -> [Lane; LANES] {
    [const { Lane { window: AtomicPtr::new(empty_shared(OWNED_EMPTY)) } }; LANES]
}

impl SharedChunk {
    /// Takes `size` bytes aligned to `align` (a power of two; `size > 0`) from the free
    /// part, or `None` if they do not fit. The blocks carry no data between threads, so
    /// the atomic steps need no ordering beyond their own atomicity.
    ///
    /// Exact: the block ends where `top` was, so a block that is still the newest can be
    /// given back by moving `top` up again (a handle's window, see `give_back`).
    #[inline(always)]
    fn bump(&self, size: usize, align: usize) -> Option<*mut u8> {
        if align <= WORD && size <= MIN_BOTTOM {
            // One `lock xadd`: never retried, however many threads bump at once.
            let size = bumping::round_up(size, WORD);
            let old = self.top.fetch_sub(size, Ordering::Relaxed);
            return bumping::bump_fetched(old, self.bottom, self.span, size).map(|start| self.base.with_addr(start));
        }
        self.bump_cas(size, align)
    }

    /// Like `bump`, for the typed API's blocks in a lane's window, which are never given
    /// back: a type aligned to 16 takes 8 bytes more, so that an aligned block lies inside
    /// whatever one `lock xadd` takes (at most 8 bytes of padding, where `bump` needs a
    /// compare-and-swap loop). Measured through `&SyncArena`, one thread: `alloc::<u128>`
    /// from 4.36 to 3.78 ns (report, through-a-reference table, same run, 2-core AMD EPYC
    /// VM).
    #[inline(always)]
    fn bump_padded(&self, size: usize, align: usize) -> Option<*mut u8> {
        if align <= CHUNK_ALIGN && size <= MIN_BOTTOM {
            let size = bumping::round_up(size, WORD);
            let take = bumping::fetched_take(size, align, WORD);
            let old = self.top.fetch_sub(take, Ordering::Relaxed);
            return bumping::bump_fetched_aligned(old, self.bottom, self.span, take, size, align)
                .map(|start| self.base.with_addr(start));
        }
        self.bump_cas(size, align)
    }

    /// `bump_padded` for a window only the calling thread bumps (an exclusive lane's, or
    /// one not published yet): a load, the range check, and a store only if the block
    /// fits, so a window that is full, or the sentinel, is never written.
    #[inline(always)]
    fn bump_owned(&self, size: usize, align: usize) -> Option<*mut u8> {
        debug_assert!(size > 0);
        let top = self.top.load(Ordering::Relaxed);
        let new = bumping::bump_owned(top, self.bottom, self.span, size, align, WORD)?;
        self.top.store(new, Ordering::Relaxed);
        Some(self.base.with_addr(new))
    }

    /// `bump` for any size and alignment: a compare-and-swap loop.
    #[inline(always)]
    fn bump_cas(&self, size: usize, align: usize) -> Option<*mut u8> {
        let mut top = self.top.load(Ordering::Relaxed);
        loop {
            let new = bumping::bump_shared(top, self.bottom, self.span, size, align, WORD)?;
            match self.top.compare_exchange_weak(top, new, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(self.base.with_addr(new)),
                Err(now) => top = now,
            }
        }
    }
}

/// Everything the lock guards.
struct Books {
    /// The newest chunk of the list (regular and big ones alike), or null.
    newest: *mut SharedChunk,
    /// Size of the next regular chunk.
    next_size: usize,
    /// Bytes held from the backing allocator.
    held: usize,
    chunks: usize,
    /// INVARIANT: bit `i` is clear only if lane `i` (exclusive lane `i < LANES`, shared
    /// lane `i - LANES` above) holds its sentinel: a lane gets a window only under the
    /// lock, which sets its bit. So `reset` writes back only the lanes whose bits are set:
    /// one or two for a program on one thread, where writing all sixteen, each on its own
    /// pair of cache lines, took `clear` from 9.2 to 20.5 ns.
    lanes_used: usize,
}

const _: () = assert!(2 * LANES <= usize::BITS as usize);

/// An arena that many threads allocate from at once, through `&SyncArena`.
///
/// The fast path is lock-free: the first 8 threads alive at once each own a lane, whose
/// window they bump with a plain load and store, as [`Arena`](crate::Arena) does; more
/// threads share other lanes, through one atomic subtraction on the slow path (see the
/// module docs). For more speed, give each thread a [`LocalArena`] with
/// [`local`](SyncArena::local): it bumps a window of the shared arena with no atomics at
/// all. Everything lives until [`reset`](SyncArena::reset) or drop; values are never
/// dropped.
///
/// ```
/// use bumpdown::SyncArena;
///
/// let arena = SyncArena::new();
/// let total: u64 = std::thread::scope(|s| {
///     let workers: Vec<_> = (0..4u64)
///         .map(|t| {
///             let arena = &arena;
///             s.spawn(move || {
///                 let local = arena.local();
///                 let v = local.alloc_slice_fill_with(1000, |i| t * 1000 + i as u64);
///                 let shared = arena.alloc(v.iter().sum::<u64>());
///                 *shared
///             })
///         })
///         .collect();
///     workers.into_iter().map(|w| w.join().unwrap()).sum()
/// });
/// assert_eq!(total, (0..4000).sum());
/// ```
pub struct SyncArena<A: BackingAllocator = Global> {
    // INVARIANT: `current` is the sentinel `empty_shared(LANES)` or a regular chunk of
    // the list in `books`, published with `Release` after its header was written. Every chunk in the list
    // stays allocated until `reset` or drop (both `&mut self`).
    current: AtomicPtr<SharedChunk>,
    /// Windows of the current chunks, one per exclusive lane: lane `i` is bumped only by
    /// the thread holding claim `i` (`LANE == i`), see `Lane`.
    lanes: [Lane; LANES],
    /// Windows of the current chunks, one per shared lane: bumped atomically by the
    /// threads that hold no claim (`LANE == LANES + i`).
    shared: [Lane; LANES],
    books: Mutex<Books>,
    alloc: A,
}

// SAFETY: the chunks (and the windows in them) are owned by the arena; shared access
// goes through atomics (`top`, `current`, the lanes) or the mutex (`books`); the rest of
// a header is written before it is published and never after. The backing allocator is
// used from several threads, hence `A: Sync` (and `Send` to move or drop the arena
// elsewhere).
unsafe impl<A: BackingAllocator + Send + Sync> Sync for SyncArena<A> {}
// SAFETY: as above; moving the arena moves ownership of everything it holds.
unsafe impl<A: BackingAllocator + Send> Send for SyncArena<A> {}

impl SyncArena {
    /// An empty arena on the global allocator; allocates nothing until first used.
    pub const fn new() -> Self {
        Self::new_in(Global)
    }

    /// An arena whose first chunk holds at least `bytes` bytes, on the global allocator.
    ///
    /// # Panics
    /// If the chunk cannot be allocated. See [`try_with_capacity_in`](Self::try_with_capacity_in).
    ///
    /// ```
    /// let arena = bumpdown::SyncArena::with_capacity(100_000);
    /// assert!(arena.allocated_bytes() >= 100_000);
    /// arena.alloc_slice_copy(&[0u8; 100_000]);
    /// assert_eq!(arena.chunk_count(), 1);
    /// ```
    #[track_caller]
    pub fn with_capacity(bytes: usize) -> Self {
        match Self::try_with_capacity_in(bytes, Global) {
            Ok(arena) => arena,
            Err(err) => crate::error::alloc_failed(bytes, 1, err),
        }
    }
}

impl SyncArena {
    /// The calling thread's lane, for tests: `Some((i, true))` while it holds exclusive
    /// lane `i`, `Some((i, false))` when it bumps shared lane `i`, `None` before its first
    /// slow path.
    #[doc(hidden)]
    pub fn debug_thread_lane() -> Option<(usize, bool)> {
        match LANE.get() {
            UNDEALT => None,
            lane => Some((lane % LANES, lane < LANES)),
        }
    }

    /// The exclusive lanes claimed by live threads, process-wide (bit `i` for lane `i`),
    /// for tests.
    #[doc(hidden)]
    pub fn debug_claimed_lanes() -> usize {
        CLAIMS.load(Ordering::Relaxed)
    }
}

impl Default for SyncArena {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: BackingAllocator> SyncArena<A> {
    /// An empty arena that takes its chunks from `alloc`.
    pub const fn new_in(alloc: A) -> Self {
        SyncArena {
            current: AtomicPtr::new(empty_shared(LANES)),
            // No lane has a window yet.
            lanes: owned_empty_lanes(),
            shared: empty_lanes(),
            books: Mutex::new(Books {
                newest: ptr::null_mut(),
                next_size: FIRST_CHUNK,
                held: 0,
                chunks: 0,
                lanes_used: 0,
            }),
            alloc,
        }
    }

    /// An arena taking its chunks from `alloc`, whose first chunk holds at least `bytes`
    /// bytes; an error if that chunk cannot be allocated (or `bytes` is absurd).
    ///
    /// ```
    /// assert!(bumpdown::SyncArena::try_with_capacity_in(usize::MAX, bumpdown::Global).is_err());
    /// ```
    pub fn try_with_capacity_in(bytes: usize, alloc: A) -> Result<Self, AllocError> {
        let arena = Self::new_in(alloc);
        if bytes > 0 {
            let size = chunk_size_for(bytes, 1)?.max(FIRST_CHUNK);
            let chunk = new_chunk(&arena.alloc, size)?;
            let mut books = arena.books.lock().unwrap_or_else(PoisonError::into_inner);
            books.newest = chunk;
            books.held = size;
            books.chunks = 1;
            books.next_size = size.saturating_mul(2).clamp(FIRST_CHUNK, MAX_CHUNK);
            drop(books);
            // A regular chunk of any size can be the current one (only its single-block
            // use makes a chunk "big"). Published after its header was written.
            arena.current.store(chunk, Ordering::Release);
        }
        Ok(arena)
    }

    crate::alloc_api::alloc_api!('_);

    /// A handle for one thread that bumps windows of this arena without atomics; see
    /// [`LocalArena`].
    pub fn local(&self) -> LocalArena<'_, A> {
        let empty = empty_chunk();
        LocalArena {
            top: Cell::new(empty),
            bottom: Cell::new(empty),
            end: Cell::new(empty),
            source: Cell::new(empty_shared(LANES)),
            next_window: Cell::new(FIRST_WINDOW),
            shared: self,
        }
    }

    /// Bytes held from the backing allocator.
    pub fn allocated_bytes(&self) -> usize {
        self.books.lock().unwrap_or_else(PoisonError::into_inner).held
    }

    /// Chunks held.
    pub fn chunk_count(&self) -> usize {
        self.books.lock().unwrap_or_else(PoisonError::into_inner).chunks
    }

    /// Frees everything. The current chunk is kept for reuse; the others go back to the
    /// backing allocator.
    ///
    /// ```
    /// let mut arena = bumpdown::SyncArena::new();
    /// arena.alloc_slice_copy(&[0u8; 100_000]);
    /// arena.reset();
    /// assert_eq!(arena.chunk_count(), 1);
    /// ```
    pub fn reset(&mut self) {
        let current = *self.current.get_mut();
        let books = self.books.get_mut().unwrap_or_else(PoisonError::into_inner);
        // The windows live in the chunks freed or emptied below. One store per lane that
        // has a window (`lanes_used`); the others hold their sentinels already.
        let mut used = mem::take(&mut books.lanes_used);
        while used != 0 {
            let i = used.trailing_zeros() as usize;
            used &= used - 1;
            if i < LANES {
                *self.lanes[i].window.get_mut() = empty_shared(OWNED_EMPTY);
            } else {
                *self.shared[i - LANES].window.get_mut() = empty_shared(i - LANES);
            }
        }
        let mut cursor = books.newest;
        books.newest = ptr::null_mut();
        while !cursor.is_null() {
            // SAFETY: a chunk of the list, live; `&mut self` proves no one uses it.
            let (prev, size) = unsafe { ((*cursor).prev, (*cursor).size) };
            if cursor == current {
                // SAFETY: as above; it becomes the whole list, empty again.
                unsafe {
                    (*cursor).prev = ptr::null_mut();
                    *(*cursor).top.get_mut() = (*cursor).end;
                }
                books.newest = cursor;
            } else {
                books.held -= size;
                books.chunks -= 1;
                // SAFETY: unlinked above; nothing points into it any more.
                unsafe { free_chunk(&self.alloc, cursor) };
            }
            cursor = prev;
        }
    }

    /// Walks every chunk and lane window and panics, printing the addresses involved, if
    /// an invariant the lock-free paths rely on is broken. Tests and fuzzers call it
    /// after every operation; it takes the arena's lock.
    ///
    /// ```
    /// let arena = bumpdown::SyncArena::new();
    /// arena.alloc_slice_copy(&[1u8; 10_000]);
    /// arena.check_invariants();
    /// ```
    pub fn check_invariants(&self) {
        let books = self.books.lock().unwrap_or_else(PoisonError::into_inner);
        let current = self.current.load(Ordering::Acquire);
        let (mut held, mut chunks, mut current_seen) = (0, 0, is_empty_shared(current));
        let mut ranges = Vec::new();
        let mut cursor = books.newest;
        while !cursor.is_null() {
            // SAFETY: a chunk of the list, live while the arena is (invariant).
            let chunk = unsafe { &*cursor };
            let (start, top) = (chunk.base.addr(), chunk.top.load(Ordering::Relaxed));
            assert!(
                start < chunk.bottom
                    && chunk.bottom <= chunk.end
                    && chunk.end <= start + chunk.size
                    && chunk.span == chunk.end - chunk.bottom,
                "chunk {start:#x}: bottom {:#x} end {:#x} size {:#x}",
                chunk.bottom,
                chunk.end,
                chunk.size
            );
            assert!(top % WORD == 0, "chunk {start:#x}: top {top:#x} not a multiple of {WORD}");
            held += chunk.size;
            chunks += 1;
            current_seen |= cursor == current;
            ranges.push((chunk.bottom, chunk.end));
            cursor = chunk.prev;
        }
        assert!(current_seen, "the current chunk is not in the list");
        let owned_empty = EMPTY[OWNED_EMPTY].0.top.load(Ordering::Relaxed);
        assert_eq!(owned_empty, 0, "the exclusive lanes' sentinel was written");
        assert_eq!((held, chunks), (books.held, books.chunks), "the books are out of sync with the list");
        for (i, lane) in self.lanes.iter().chain(&self.shared).enumerate() {
            let window = lane.window.load(Ordering::Acquire);
            if is_empty_shared(window) {
                let owned = window == empty_shared(OWNED_EMPTY);
                assert_eq!(owned, i < LANES, "lane {i} at another kind's sentinel");
                continue;
            }
            assert!(books.lanes_used & (1 << i) != 0, "lane {i} has a window but is not marked used");
            // SAFETY: a window in a live chunk (the lane's invariant).
            let w = unsafe { &*window };
            if i < LANES {
                // Only the owner writes it, always in range (a stale value is too).
                let top = w.top.load(Ordering::Relaxed);
                assert!(
                    w.bottom <= top && top <= w.end && top % WORD == 0,
                    "exclusive window {:#x}: top {top:#x} out of range",
                    w.base.addr()
                );
            }
            let start = w.base.addr();
            assert!(start % WINDOW_ALIGN == 0, "window {start:#x} misaligned");
            assert!(
                w.bottom == start + WINDOW_HEADER && w.end == start + w.size && w.span == w.end - w.bottom,
                "window {start:#x}: bad bounds"
            );
            assert!(
                ranges.iter().any(|&(bottom, end)| bottom <= start && w.end <= end),
                "window {start:#x}..{:#x} outside every chunk",
                w.end
            );
        }
    }

    /// The body of both slow paths. A thread that holds no claim comes here on every
    /// allocation, so its shared lane's bump (one `lock xadd`) comes first, before the
    /// call into `alloc_slow_lane`: with 8 threads holding claims, a 9th thread's
    /// `alloc::<u64>` through `&SyncArena` took 8.7 ns through `alloc_slow_lane`, 4.2 ns
    /// so (every thread took 3.24 ns before lanes could be claimed, 1.06 ns now with a
    /// claim; 100,000 allocations between resets, best of 30, 2-core AMD EPYC VM).
    #[inline(always)]
    fn slow_path(&self, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        let layout = Layout::from_size_align(size, align).map_err(|_| AllocError::INVALID_LAYOUT)?;
        if size == 0 {
            return Ok(dangling(align));
        }
        if let Some(lane) = self.shared.get(LANE.get().wrapping_sub(LANES)) {
            if size <= LANE_MAX_REQUEST && align <= WINDOW_ALIGN {
                if let Some(p) = lane.bump(size, align) {
                    return Ok(p);
                }
            }
        }
        self.alloc_slow_lane(layout)
    }

    /// The slow path of `try_alloc_layout` (`layout.size() > 0`): this thread has no
    /// lane yet, or holds no claim (see the module docs), or its lane's window has no
    /// room for `layout`. Deals the lane, then either finds room in it (a thread that
    /// just claimed may find a window its lane's previous holder left; a shared lane may
    /// have been refilled by another thread) or, under the lock, gives the lane a new
    /// window. Large or very aligned requests go to the current chunk instead.
    #[cold]
    #[inline(never)]
    fn alloc_slow_lane(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        let (size, align) = (layout.size(), layout.align());
        if size > LANE_MAX_REQUEST || align > WINDOW_ALIGN {
            return self.alloc_in_chunk(layout).map(|(p, _)| p);
        }
        let index = lane_index();
        let owned = index < LANES;
        let lane = if owned { &self.lanes[index] } else { &self.shared[index - LANES] };
        // Bumps the lane's window the way its kind allows.
        let bump = || {
            if owned {
                // SAFETY: exclusive lane `index`, and `LANE == index`: this thread holds
                // the claim (`LANE`'s invariant).
                unsafe { lane.bump_owned(size, align) }.map(|p| {
                    // SAFETY: inside a live chunk, so not null.
                    unsafe { NonNull::new_unchecked(p) }
                })
            } else {
                lane.bump(size, align)
            }
        };
        if let Some(p) = bump() {
            return Ok(p);
        }
        let mut books = self.books.lock().unwrap_or_else(PoisonError::into_inner);
        // Only lock holders replace a lane's window: if another thread sharing the lane
        // did while this one waited, its window may have room.
        if !owned {
            if let Some(p) = bump() {
                return Ok(p);
            }
        }
        // Sizes double per lane; the sentinel's size is 0. At most MAX_WINDOW, since
        // `size <= LANE_MAX_REQUEST`. The window cannot change while the lock is held
        // (nor, for an exclusive lane, but by this thread).
        let window_size = (lane.window().size * 2).clamp(FIRST_WINDOW, MAX_WINDOW).max((size * 4).next_power_of_two());
        // SAFETY: a small size (at most MAX_WINDOW) and a power-of-two alignment.
        let window_layout = unsafe { Layout::from_size_align_unchecked(window_size, WINDOW_ALIGN) };
        let (start, _) = self.alloc_locked(&mut books, window_layout)?;
        let start = start.as_ptr();
        let end = start.addr() + window_size;
        let header = start.cast::<SharedChunk>();
        // SAFETY: `start` is a fresh block of `window_size >= WINDOW_HEADER` bytes aligned
        // to WINDOW_ALIGN (enough for the header), which no other thread knows of yet.
        unsafe {
            header.write(SharedChunk {
                top: AtomicUsize::new(end),
                bottom: start.addr() + WINDOW_HEADER,
                end,
                span: end - (start.addr() + WINDOW_HEADER),
                base: start,
                size: window_size,
                prev: ptr::null_mut(),
            });
        }
        // SAFETY: just written; not shared yet.
        let header_ref = unsafe { &*header };
        // Cannot fail: `size <= window_size / 4` and `align <= WINDOW_ALIGN` (see the
        // constants' assertions). Not published yet, so this thread is its only user:
        // the owner's bump keeps an exclusive window's `top` in range.
        let p = header_ref.bump_owned(size, align).ok_or(AllocError::OUT_OF_MEMORY)?;
        // Publish the header (written above) to the threads that load the lane. The old
        // window's tail is lost until `reset`.
        lane.window.store(header, Ordering::Release);
        books.lanes_used |= 1 << index;
        drop(books);
        // SAFETY: inside the window, so not null.
        Ok(unsafe { NonNull::new_unchecked(p) })
    }

    /// Allocates `layout` (`size > 0`) from the current chunk, or through the slow path.
    /// Returns the block and the chunk it is in.
    fn alloc_in_chunk(&self, layout: Layout) -> Result<(NonNull<u8>, *mut SharedChunk), AllocError> {
        let current = self.current.load(Ordering::Acquire);
        // SAFETY: `current` is the sentinel or a live chunk (invariant); `Acquire` pairs
        // with the `Release` that published it, so its header is seen.
        match unsafe { &*current }.bump(layout.size(), layout.align()) {
            // SAFETY: inside a chunk, so not null.
            Some(p) => Ok((unsafe { NonNull::new_unchecked(p) }, current)),
            None => self.alloc_slow_chunk(layout),
        }
    }

    /// The chunk slow path: validates the request, then takes the lock and either finds
    /// room in a chunk another thread just installed, or allocates a chunk. Returns the
    /// block and the chunk it is in.
    #[cold]
    #[inline(never)]
    fn alloc_slow_chunk(&self, layout: Layout) -> Result<(NonNull<u8>, *mut SharedChunk), AllocError> {
        let mut books = self.books.lock().unwrap_or_else(PoisonError::into_inner);
        self.alloc_locked(&mut books, layout)
    }

    /// `alloc_slow_chunk` with the lock (`books`) held.
    fn alloc_locked(&self, books: &mut Books, layout: Layout) -> Result<(NonNull<u8>, *mut SharedChunk), AllocError> {
        let (size, align) = (layout.size(), layout.align());
        let current = self.current.load(Ordering::Acquire);
        // SAFETY: `current` is the sentinel or a live chunk.
        if let Some(p) = unsafe { &*current }.bump(size, align) {
            // SAFETY: inside a live chunk, so not null.
            return Ok((unsafe { NonNull::new_unchecked(p) }, current));
        }
        let need = chunk_size_for(size, align)?;
        let big = need > BIG;
        let chunk_size = if big { need } else { need.max(books.next_size) };
        let chunk = new_chunk(&self.alloc, chunk_size)?;
        // SAFETY: a fresh chunk with room for `need` bytes; not shared yet.
        let p = unsafe { &*chunk }.bump(size, align).ok_or(AllocError::OUT_OF_MEMORY)?;
        // SAFETY: not published yet: this thread is the only one to see the header.
        unsafe { (*chunk).prev = books.newest };
        books.newest = chunk;
        books.held += chunk_size;
        books.chunks += 1;
        if !big {
            books.next_size = (books.next_size * 2).min(MAX_CHUNK);
            // Publish the header (written above) to the threads that load `current`.
            self.current.store(chunk, Ordering::Release);
        }
        // SAFETY: inside the chunk, so not null.
        Ok((unsafe { NonNull::new_unchecked(p) }, chunk))
    }
}

/// A dangling, aligned pointer: where zero-sized blocks go.
fn dangling(align: usize) -> NonNull<u8> {
    // SAFETY: `align` is a power of two, so not zero.
    unsafe { NonNull::new_unchecked(ptr::without_provenance_mut(align)) }
}

/// The smallest chunk, header included, that surely holds a block of `size` bytes
/// aligned to `align`; an error when that does not fit in `isize`.
fn chunk_size_for(size: usize, align: usize) -> Result<usize, AllocError> {
    core::mem::size_of::<SharedChunk>()
        .checked_add(size)
        .and_then(|n| n.checked_add(align.max(CHUNK_ALIGN)))
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or(AllocError::INVALID_LAYOUT)
}

/// Allocates a chunk of `size` bytes with its header written; `prev` is null.
fn new_chunk<A: BackingAllocator>(alloc: &A, size: usize) -> Result<*mut SharedChunk, AllocError> {
    let layout =
        Layout::from_size_align(size, core::mem::align_of::<SharedChunk>()).map_err(|_| AllocError::INVALID_LAYOUT)?;
    let base = alloc.allocate(layout).ok_or(AllocError::OUT_OF_MEMORY)?.as_ptr();
    let start = base.addr();
    let bottom = start + core::mem::size_of::<SharedChunk>();
    let end = round_down(start + size, CHUNK_ALIGN);
    let chunk = base.cast::<SharedChunk>();
    // SAFETY: the block is at least a header long (callers ask for more) and aligned
    // for it; we own it.
    unsafe {
        let span = end - bottom;
        chunk.write(SharedChunk { top: AtomicUsize::new(end), bottom, end, span, base, size, prev: ptr::null_mut() });
    }
    Ok(chunk)
}

/// # Safety
/// `chunk` came from `new_chunk` on `alloc` and nothing points into it any more.
unsafe fn free_chunk<A: BackingAllocator>(alloc: &A, chunk: *mut SharedChunk) {
    // SAFETY: from the caller: a live chunk; its header says how it was allocated.
    unsafe {
        let (base, size) = ((*chunk).base, (*chunk).size);
        let layout = Layout::from_size_align_unchecked(size, core::mem::align_of::<SharedChunk>());
        alloc.deallocate(NonNull::new_unchecked(base), layout);
    }
}

impl<A: BackingAllocator> Drop for SyncArena<A> {
    fn drop(&mut self) {
        let books = self.books.get_mut().unwrap_or_else(PoisonError::into_inner);
        let mut cursor = books.newest;
        while !cursor.is_null() {
            // SAFETY: a chunk of the list; the arena is going away, so nothing uses it.
            unsafe {
                let prev = (*cursor).prev;
                free_chunk(&self.alloc, cursor);
                cursor = prev;
            }
        }
    }
}

impl<A: BackingAllocator> fmt::Debug for SyncArena<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let books = self.books.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("SyncArena").field("held", &books.held).field("chunks", &books.chunks).finish_non_exhaustive()
    }
}

/// One thread's handle on a [`SyncArena`]: it takes windows of the shared arena (4 KiB
/// growing to 64 KiB, one atomic step each) and bumps inside them with plain loads and
/// stores. It has the whole typed API of [`Arena`](crate::Arena), and what it allocates
/// lives as long as the shared arena's borrow, not the handle's. When dropped, it gives
/// the unused rest of its window back if no one allocated after it.
pub struct LocalArena<'a, A: BackingAllocator = Global> {
    // INVARIANT: `top` and `bottom` obey the `Arena` bump pointer invariant for the
    // window `bottom..end` (a block of the shared arena, aligned to CHUNK_ALIGN, carved
    // from chunk `source`), or all three are the `EMPTY` sentinel of `arena/mod.rs` and
    // `source` is this module's sentinel `empty_shared(LANES)`. `top..end` holds this
    // handle's allocations.
    top: Cell<*mut u8>,
    bottom: Cell<*mut u8>,
    end: Cell<*mut u8>,
    source: Cell<*mut SharedChunk>,
    next_window: Cell<usize>,
    shared: &'a SyncArena<A>,
}

impl<'a, A: BackingAllocator> LocalArena<'a, A> {
    /// A window of `size` bytes and the chunk it came from.
    fn take_window(&self, size: usize) -> Result<(NonNull<u8>, *mut SharedChunk), AllocError> {
        // SAFETY: a valid layout (small size, alignment a power of two).
        let layout = unsafe { Layout::from_size_align_unchecked(size, CHUNK_ALIGN) };
        self.shared.alloc_in_chunk(layout)
    }

    /// Returns the free part of the window to its chunk, if the window is still the
    /// chunk's newest block, and leaves the handle without a window (at the sentinel).
    ///
    /// The handle must not keep any part of the window: once the bytes are back, the
    /// chunk may hand them to another handle, and a `bottom` left at the old `top`
    /// would break the alignment the bump arithmetic relies on (`bottom %
    /// CHUNK_ALIGN == 0`). Going back to the sentinel is what keeps a handle whose
    /// refill then fails usable and apart from the others.
    fn give_back(&self) {
        // SAFETY: the sentinel or a chunk of the shared arena, live while `shared` is
        // borrowed.
        let source = unsafe { &*self.source.get() };
        // The shared `top` stays a multiple of WORD; the bytes above the rounded-down
        // value are this handle's allocations or a few lost bytes.
        let (bottom, top) = (self.bottom.get().addr(), round_down(self.top.get().addr(), WORD));
        if top > bottom {
            // Fails harmlessly when another thread allocated from the chunk since.
            let _ = source.top.compare_exchange(bottom, top, Ordering::Relaxed, Ordering::Relaxed);
        }
        let empty = empty_chunk();
        self.top.set(empty);
        self.bottom.set(empty);
        self.end.set(empty);
        self.source.set(empty_shared(LANES));
    }

    /// Panics, printing the addresses involved, if the handle's window breaks an
    /// invariant the bump arithmetic relies on. Tests and fuzzers call it after every
    /// operation.
    ///
    /// ```
    /// let arena = bumpdown::SyncArena::new();
    /// let local = arena.local();
    /// local.alloc_str("checked");
    /// local.check_invariants();
    /// ```
    pub fn check_invariants(&self) {
        let (top, bottom, end) = (self.top.get().addr(), self.limit(), self.far_end());
        let source = self.source.get();
        if is_empty_shared(source) {
            let empty = empty_chunk().addr();
            assert!(
                top == empty && bottom == empty && end == empty,
                "a handle without a window is not at the sentinel"
            );
            return;
        }
        assert!(MIN_BOTTOM <= bottom && bottom <= top && top <= end, "bottom {bottom:#x} top {top:#x} end {end:#x}");
        assert!(bottom % CHUNK_ALIGN == 0, "misaligned bottom {bottom:#x}");
        // SAFETY: a chunk of the shared arena, live while `shared` is borrowed.
        let chunk = unsafe { &*source };
        assert!(
            chunk.bottom <= bottom && end <= chunk.end,
            "window {bottom:#x}..{end:#x} outside its chunk {:#x}..{:#x}",
            chunk.bottom,
            chunk.end
        );
    }

    crate::alloc_api::alloc_api!('a);
}

// SAFETY: the struct's invariant is the trait's (down): `bottom..top` is the free part
// of the handle's window (or the empty sentinel), `top..end` its allocations; the window
// is this handle's alone until `give_back` returns its free part.
unsafe impl<A: BackingAllocator> Cursor for LocalArena<'_, A> {
    /// A handle keeps no alignment beyond what each allocation asks for.
    const MIN_ALIGN: usize = 1;
    const UP: bool = false;

    #[inline(always)]
    fn cursor_and_limit(&self) -> (*mut u8, usize) {
        (self.top.get(), self.bottom.get().addr())
    }

    #[inline(always)]
    fn far_end(&self) -> usize {
        self.end.get().addr()
    }

    #[inline(always)]
    unsafe fn set_cursor(&self, new_top: *mut u8) {
        debug_assert!(self.limit() <= new_top.addr() && new_top.addr() <= self.far_end());
        self.top.set(new_top);
    }

    /// The window is full: takes a new one (or, for a large request, a block straight
    /// from the shared arena).
    #[cold]
    #[inline(never)]
    fn alloc_slow(&self, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        let layout = Layout::from_size_align(size, align).map_err(|_| AllocError::INVALID_LAYOUT)?;
        let window = self.next_window.get();
        if size > window / 4 || align > CHUNK_ALIGN {
            return self.shared.try_alloc_layout(layout);
        }
        self.give_back();
        let (block, source) = self.take_window(window)?;
        self.next_window.set((window * 2).min(MAX_WINDOW));
        let end = block.as_ptr().wrapping_add(window);
        self.source.set(source);
        self.bottom.set(block.as_ptr());
        self.end.set(end);
        self.top.set(end);
        let new_top = bumping::bump_checked(end.addr(), block.as_ptr().addr(), size, align, 1)
            .ok_or(AllocError::OUT_OF_MEMORY)?;
        let p = end.with_addr(new_top);
        // SAFETY: inside the fresh window (it holds `window >= 4 * size` bytes).
        unsafe { self.set_cursor(p) };
        // SAFETY: inside a chunk, so not null.
        Ok(unsafe { NonNull::new_unchecked(p) })
    }
}

/// The shared arena's bump is atomic: there is no cursor to hand out, so `SyncArena`
/// gives the typed API its hooks directly.
impl<A: BackingAllocator> crate::engine::sealed::Sealed for SyncArena<A> {}

impl<A: BackingAllocator> Engine for SyncArena<A> {
    /// A block for a `T` (not zero-sized), taken at once: with other threads bumping
    /// the same window there is no "place first, claim later".
    #[inline(always)]
    fn bump_value<T>(&self) -> Option<*mut T> {
        self.bump_layout(size_of::<T>(), align_of::<T>()).map(<*mut u8>::cast)
    }

    /// Nothing to do: `bump_value` already took the block.
    #[inline(always)]
    unsafe fn claim_value<T>(&self, _p: *mut T) {}

    #[inline(always)]
    fn bump_array(&self, len: usize, elem_size: usize, align: usize) -> Option<*mut u8> {
        self.bump_layout(len.checked_mul(elem_size)?, align)
    }

    /// A block of `size` bytes aligned to `align` from this thread's exclusive lane, or
    /// `None` (the thread has no lane yet, or only a shared one, or its window has no
    /// room). On x86-64 a hit is: the thread-local lane index (`fs:`-relative), a
    /// compare, a load of the lane's window, a load of its `top`, the range check and a
    /// store: no atomic read-modify-write.
    #[inline(always)]
    fn bump_layout(&self, size: usize, align: usize) -> Option<*mut u8> {
        if size == 0 {
            return Some(dangling(align).as_ptr());
        }
        let index = LANE.get();
        // Straight to the window's `Option<*mut u8>`: a detour through `Option<NonNull>`
        // costs a null test on the way back.
        let lane = self.lanes.get(index)?;
        // SAFETY: `index < LANES`, so this thread holds claim `index` (`LANE`'s
        // invariant) and `lane` is exclusive lane `index`.
        unsafe { lane.bump_owned(size, align) }
    }

    /// The lane missed: see `slow_path`.
    #[cold]
    #[inline(never)]
    fn slow(&self, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        self.slow_path(size, align)
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn slow_or_panic(&self, size: usize, align: usize) -> NonNull<u8> {
        block_or_panic(self.slow_path(size, align), size, align)
    }

    /// Copies to a fresh block: another thread may have bumped past it, so nothing
    /// grows in place.
    unsafe fn grow_array<T>(&self, buf: NonNull<T>, cap: usize, new_cap: usize) -> Result<NonNull<T>, AllocError> {
        let fresh = self.alloc_array::<T>(new_cap)?;
        // SAFETY: distinct live blocks; `cap` initialized elements move to the new one.
        unsafe { ptr::copy_nonoverlapping(buf.as_ptr(), fresh.as_ptr(), cap) };
        Ok(fresh)
    }

    /// Keeps the whole block: its tail cannot be given back while other threads bump.
    unsafe fn shrink_array_to_fit<T>(&self, buf: NonNull<T>, _len: usize, _cap: usize) -> NonNull<T> {
        buf
    }
}

impl<A: BackingAllocator> Drop for LocalArena<'_, A> {
    fn drop(&mut self) {
        self.give_back();
    }
}

impl<A: BackingAllocator> fmt::Debug for LocalArena<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalArena")
            .field("window_free", &(self.top.get().addr() - self.limit()))
            .finish_non_exhaustive()
    }
}
