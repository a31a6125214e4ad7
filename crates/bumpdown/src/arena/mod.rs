//! The `Arena` type: a handle of two bump pointers and the address of its state. The
//! fast path bumps the handle's pointers; everything else (chunk management, the slow
//! path, reset, rewind, stats) lives in `ArenaState` (`state.rs`), reached through one
//! pointer and called with the handle's pointers by value, so that the handle's own
//! address never leaves inline code (docs/DESIGN.md, "Where the bump pointer lives").
//! The typed allocation methods are written once in `alloc_api.rs`; saving and
//! rewinding the position and a scope's entry and exit are in `rewind.rs`, the walk over
//! the used chunks in `chunks.rs`, the scope handle in `scope.rs`.

// Handing out `&mut` to fresh, disjoint blocks from `&self` is what an arena is for.
#![allow(clippy::mut_from_ref)]

use core::alloc::Layout;
use core::cell::Cell;
use core::fmt;
use core::mem::{align_of, size_of};
use core::ptr::{self, NonNull};

use crate::alloc_api::prelude::*;
use crate::backing::{BackingAllocator, Global};
use crate::bumping::{round_up, CHUNK_ALIGN, MAX_END, MIN_BOTTOM};
use crate::engine::Cursor;
use crate::error::AllocError;
use crate::stats::Stats;

mod chunks;
mod rewind;
mod state;

pub use chunks::{AllocatedChunks, AllocatedChunksRaw};
pub(crate) use state::empty_chunk;
use state::{ArenaState, Settings, NO_LIMIT_FROM};

/// A growable bump arena that allocates upwards.
///
/// Allocation moves a pointer up through the current chunk; when the chunk is full,
/// the arena takes a bigger one from its backing allocator `A` (by default the global
/// allocator). Freeing is all at once: [`reset`](Arena::reset) or dropping the arena.
///
/// * `MIN_ALIGN` (1, 2, 4, 8 or 16; default 1) is an alignment the bump pointer always
///   keeps. Allocations of types aligned to at most `MIN_ALIGN` skip the alignment step,
///   at the price of rounding every size up to a multiple of `MIN_ALIGN`.
/// * The current chunk's bump pointer and end live in the `Arena` itself, so an
///   allocation is a load, an addition, a comparison and a store, with no chunk header
///   in between. Blocks follow each other upwards in memory, in the direction `memcpy`
///   writes, and the newest block grows in place (`Vec::push`, `String` appends).
///
/// # Values are never dropped
///
/// **The arena never runs destructors.** `arena.alloc(String::from("x"))` gives you a
/// `&mut String` whose heap buffer is leaked when the arena is reset or dropped. Allocate
/// plain data, or data whose destructors do not matter.
///
/// ```
/// use bumpdown::Arena;
///
/// let arena = Arena::new();
/// let x = arena.alloc(7u64);
/// let s = arena.alloc_str("hello");
/// let v = arena.alloc_slice_copy(&[1, 2, 3]);
/// *x += 1;
/// assert_eq!((*x, &*s, &*v), (8, "hello", &[1, 2, 3][..]));
/// ```
///
/// `Arena` is `Send` (when `A` is) but not `Sync`: one thread allocates at a time.
#[repr(C)]
pub struct Arena<const MIN_ALIGN: usize = 1, A: BackingAllocator = Global> {
    // INVARIANT (the bump pointers; everything the fast path relies on):
    // * `MIN_BOTTOM <= start <= ptr <= end <= MAX_END`, `end % CHUNK_ALIGN == 0`,
    //   `ptr % MIN_ALIGN == 0`;
    // * with a current chunk, `ptr..end` is its free part and `start..ptr` holds the
    //   allocations made in it, oldest first: `end` is its `end_addr()`, `start` its
    //   `bottom_addr()`, and the three pointers carry its provenance;
    // * without one (a new or emptied arena), `ptr == end == start ==` the address of
    //   the static `EMPTY` sentinel: a chunk of no bytes. Every non-empty request fails
    //   on it, so the fast path needs no "has a chunk yet?" branch, and `new` is a
    //   `const fn`.
    // `ptr` and `end` are the first two fields (`repr(C)`), so one base register reaches
    // both; the C header relies on this order.
    pub(crate) ptr: Cell<*mut u8>,
    pub(crate) end: Cell<*mut u8>,
    /// Where the current chunk's usable part starts (the sentinel without one).
    pub(crate) start: Cell<*mut u8>,
    /// With a state: the highest `ptr` seen before giving memory back in the current
    /// chunk since the state last folded the peak (see `ArenaState::high_ptr`). Without
    /// one: the limit and chunk cap set so far, packed (`Settings::pack`). Packed settings
    /// have the top bit set, so they are above every address and marking a high point
    /// (`mark_high_at`, on a reset or a scope exit of an arena with no state yet) never
    /// overwrites them; the slow path's call takes them in this field's argument.
    high_ptr: Cell<usize>,
    /// The state's epoch (see `ArenaState::epoch`; 0 without a state): a scope's entry
    /// and exit compare it.
    epoch: Cell<u64>,
    /// The state's `dirty` (false without a state): `reset`'s fast path tests it.
    dirty: Cell<bool>,
    // INVARIANT (the state): `None` until the arena first needs one (its first chunk, a
    // checkpoint, `with_capacity`); then a block this arena owns (from `alloc`, or the
    // start of a `BufferArena`'s buffer), holding an `ArenaState` that nothing else
    // points to. The state's `end`, `start`, `epoch` and `dirty` equal the fields above;
    // its `ptr` and `high_ptr` are those above as of the last call into it (`sync_to`
    // before each call, `sync_from` after, which copies all six back). The six fields
    // come first, in the same order and at the same offsets in both (`sync_from_slow_path`
    // checks).
    state: Cell<Option<NonNull<ArenaState<MIN_ALIGN, A>>>>,
    alloc: A,
}

// SAFETY: the arena owns its state and chunks outright; the raw pointers are not shared
// with anything outside it. Borrowed allocations hold a `&Arena`, so the arena cannot
// move to another thread while any exist. The backing allocator moves with it, hence
// `A: Send`.
unsafe impl<const MIN_ALIGN: usize, A: BackingAllocator + Send> Send for Arena<MIN_ALIGN, A> {}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Arena<MIN_ALIGN, A> {
    crate::alloc_api::alloc_api!('_);
}

// SAFETY: the bump pointer invariant on the struct's fields is the trait's (up):
// `ptr..end` is the free part of the current chunk (or the empty sentinel), `start..ptr`
// its allocations; the state only ever installs chunks that keep the invariant, and
// `sync_from` copies its pointers after every call.
unsafe impl<const MIN_ALIGN: usize, A: BackingAllocator> Cursor for Arena<MIN_ALIGN, A> {
    const MIN_ALIGN: usize = MIN_ALIGN;
    const UP: bool = true;
    const SLOW_COPIES: bool = true;

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
    unsafe fn set_cursor(&self, new_ptr: *mut u8) {
        // SAFETY: the trait's contract is `move_ptr`'s.
        unsafe { state::move_ptr::<MIN_ALIGN>(&self.ptr, self.start.get(), self.end.get(), new_ptr) }
    }

    /// The current chunk has no room. Inlined: the call out of line is `arena_slow`,
    /// which takes the state's address, the allocator's and the bump pointer by value,
    /// so that the arena's own address never escapes and a loop over a local arena can
    /// keep `ptr` in a register.
    #[inline(always)]
    fn alloc_slow(&self, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        // SAFETY: null: no copy.
        unsafe { self.slow_path(ptr::null(), size, align) }
    }

    /// The copy is made inside `arena_slow`, so that the fast path's side keeps no
    /// register for `src` across the call.
    #[inline(always)]
    unsafe fn alloc_slow_copy(&self, src: *const u8, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        debug_assert!(!src.is_null());
        // SAFETY: forwarded; `src` is not null (the contract), as `slow_path` takes it to
        // mean a copy.
        unsafe { self.slow_path(src, size, align) }
    }

    /// Inlined for the same reason as `alloc_slow`. The panic is in the callee, so that
    /// the caller's inlined tail has no path that does not return (with one, the
    /// compiler saves registers on the fast path too).
    #[inline(always)]
    #[track_caller]
    fn alloc_slow_or_panic(&self, size: usize, align: usize) -> NonNull<u8> {
        let (state, cursor) = (self.state.get(), (self.ptr.get(), self.high_ptr.get()));
        let (block, state) = if size_of::<A>() == 0 {
            arena_slow_or_panic_zst(state, cursor, size, align)
        } else {
            arena_slow_or_panic(state, self.alloc_ptr(), cursor, size, align)
        };
        self.state.set(Some(state));
        // SAFETY: the arena's state (the invariant), not in use elsewhere.
        self.sync_from_slow_path(unsafe { state.as_ref() });
        Self::landed(block, self.ptr.get(), size, align)
    }

    /// Notes the high point for the peak before the pointer moves back down.
    unsafe fn release_to(&self, p: *mut u8) {
        self.mark_high_at(self.ptr.get().addr());
        // SAFETY: forwarded: `p` lies between the chunk's start and `ptr`, derived from
        // `ptr`, a multiple of MIN_ALIGN; the bytes above it are free again.
        unsafe { self.set_cursor(p) }
    }

    /// If `ptr` is the allocation of one of the two newest out-of-band chunks, frees
    /// that chunk and returns true.
    unsafe fn free_if_big(&self, ptr: NonNull<u8>) -> bool {
        // SAFETY: forwarded; the state does not move the bump pointers here.
        self.with_state(|state| unsafe { state.free_if_big(ptr) }).unwrap_or(false)
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Arena<MIN_ALIGN, A> {
    /// `alloc_slow`, and with a non-null `src` also `alloc_slow_copy`: the call out of line
    /// (`arena_slow`, which copies the `size` bytes at `src` into the block when `src` is
    /// not null), then the state's pointers copied back into the handle.
    ///
    /// # Safety
    /// `src` is null, or readable for `size` bytes and apart from the arena's free memory.
    #[inline(always)]
    unsafe fn slow_path(&self, src: *const u8, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        let (state, cursor) = (self.state.get(), (self.ptr.get(), self.high_ptr.get()));
        // SAFETY: forwarded.
        let (block, state) = unsafe {
            if size_of::<A>() == 0 {
                arena_slow_zst(state, (src, size), cursor, align)
            } else {
                arena_slow(state, (src, size), cursor, align, self.alloc_ptr())
            }
        };
        // No state: the block for it could not be allocated. (`high_ptr` still holds the
        // settings then.)
        let Some(state) = state else { return Err(settings_error::<MIN_ALIGN, A>(self.high_ptr.get())) };
        self.state.set(Some(state));
        // SAFETY: the arena's state (the invariant), not in use elsewhere.
        let state = unsafe { state.as_ref() };
        self.sync_from_slow_path(state);
        let p = block.ok_or_else(|| state.last_error.get())?;
        Ok(Self::landed(p, self.ptr.get(), size, align))
    }
}

/// An arena's state, if it has one (the `Arena::state` field's value).
type StatePtr<const MIN_ALIGN: usize, A> = Option<NonNull<ArenaState<MIN_ALIGN, A>>>;

/// The slow path of an [`Arena`] (and of a scope, through it): makes the arena's state
/// if it has none yet (with the settings that `high_ptr` holds then), hands it the bump
/// pointer, and asks it for the block, into which it copies the `size` bytes at `src`
/// unless `src` is null. Returns the block (`None`: the error is in the state's
/// `last_error`) and the state (`None`: its own block could not be allocated).
///
/// The handle calls it directly (seven arguments) or, on a zero-sized allocator such as
/// `Global`, through [`arena_slow_zst`] (six). Every allocation site inlines that call
/// and the copy of the state's fields after it, so their size decides whether the
/// compiler inlines the caller's own small functions (a parser's `fn bin(&self, ..)`
/// with two `alloc`s in it, say). With six arguments they all travel in registers, and
/// the fast path needs no stack frame. The copy's source and length come second and
/// third, where `memcpy` takes them, so that a fast path that ends in `memcpy` moves no
/// register for the slow path's sake.
///
/// # Safety
/// `src` is null, or readable for `size` bytes and apart from the arena's free memory;
/// `alloc` is as `Arena::alloc_ptr` gives it.
#[cold]
#[inline(never)]
unsafe fn arena_slow<const MIN_ALIGN: usize, A: BackingAllocator>(
    state: StatePtr<MIN_ALIGN, A>,
    (src, size): (*const u8, usize),
    (ptr, high_ptr): (*mut u8, usize),
    align: usize,
    alloc: *const A,
) -> (Option<NonNull<u8>>, StatePtr<MIN_ALIGN, A>) {
    let state = match state {
        Some(state) => {
            // SAFETY: the arena's state, which nothing else uses during this call.
            unsafe { state.as_ref() }.enter(alloc, ptr, high_ptr);
            state
        }
        // Without a state, `high_ptr` holds the settings (see `Arena::high_ptr`). A new
        // state starts empty, as the handle is, with no high mark.
        None => match new_state(alloc, Settings::unpack(high_ptr)) {
            Some(state) => {
                // SAFETY: the new state, which nothing else uses.
                unsafe { state.as_ref() }.enter(alloc, ptr, 0);
                state
            }
            None => return (None, None),
        },
    };
    // SAFETY: the arena's state, which nothing else uses during this call.
    let s = unsafe { state.as_ref() };
    let block = s.alloc_slow(size, align).map_err(|err| s.last_error.set(err)).ok();
    if let (Some(p), false) = (block, src.is_null()) {
        // SAFETY: the caller's `src` is readable for `size` bytes and apart from the fresh
        // block `p` of `size` bytes (`Cursor::alloc_slow_copy`).
        unsafe { ptr::copy_nonoverlapping(src, p.as_ptr(), size) };
    }
    // Two words come back in two registers; a `Result` inside would go through memory.
    (block, Some(state))
}

/// [`arena_slow`] for a zero-sized allocator: its address is not passed (one call more
/// on the slow path, one argument fewer at every allocation site).
///
/// # Safety
/// As for [`arena_slow`]; `A` is zero-sized.
#[cold]
#[inline(never)]
unsafe fn arena_slow_zst<const MIN_ALIGN: usize, A: BackingAllocator>(
    state: StatePtr<MIN_ALIGN, A>,
    copy: (*const u8, usize),
    cursor: (*mut u8, usize),
    align: usize,
) -> (Option<NonNull<u8>>, StatePtr<MIN_ALIGN, A>) {
    debug_assert_eq!(size_of::<A>(), 0);
    // SAFETY: forwarded; a zero-sized value may be at any aligned address (what
    // `Arena::alloc_ptr` gives for one).
    unsafe { arena_slow(state, copy, cursor, align, NonNull::<A>::dangling().as_ptr()) }
}

/// [`arena_slow`] for the panicking methods: panics (naming the caller's line) where that
/// returns no block.
#[cold]
#[inline(never)]
#[track_caller]
fn arena_slow_or_panic<const MIN_ALIGN: usize, A: BackingAllocator>(
    state: StatePtr<MIN_ALIGN, A>,
    alloc: *const A,
    cursor: (*mut u8, usize),
    size: usize,
    align: usize,
) -> (NonNull<u8>, NonNull<ArenaState<MIN_ALIGN, A>>) {
    // SAFETY: null: no copy; `alloc` is the caller's, as `Arena::alloc_ptr` gives it.
    match unsafe { arena_slow(state, (ptr::null(), size), cursor, align, alloc) } {
        (Some(block), Some(state)) => (block, state),
        // SAFETY: the arena's state, which nothing else uses during this call.
        (None, Some(state)) => alloc_failed(size, align, unsafe { state.as_ref() }.last_error.get()),
        // No state: `cursor.1` is the settings (see `Arena::high_ptr`).
        (_, None) => alloc_failed(size, align, settings_error::<MIN_ALIGN, A>(cursor.1)),
    }
}

/// [`arena_slow_or_panic`] for a zero-sized allocator: its address is not passed.
#[cold]
#[inline(never)]
#[track_caller]
fn arena_slow_or_panic_zst<const MIN_ALIGN: usize, A: BackingAllocator>(
    state: StatePtr<MIN_ALIGN, A>,
    cursor: (*mut u8, usize),
    size: usize,
    align: usize,
) -> (NonNull<u8>, NonNull<ArenaState<MIN_ALIGN, A>>) {
    debug_assert_eq!(size_of::<A>(), 0);
    // A zero-sized value may be at any aligned address (what `Arena::alloc_ptr` gives).
    arena_slow_or_panic(state, NonNull::<A>::dangling().as_ptr(), cursor, size, align)
}

/// A new, empty state in a block of its own from `alloc` (`None`: no block, or the
/// limit in `settings` is below its size).
#[cold]
#[inline(never)]
fn new_state<const MIN_ALIGN: usize, A: BackingAllocator>(
    alloc: *const A,
    settings: Settings,
) -> Option<NonNull<ArenaState<MIN_ALIGN, A>>> {
    if ArenaState::<MIN_ALIGN, A>::own_size(false) > settings.limit {
        return None;
    }
    // SAFETY: what `Arena::alloc_ptr` gives: the arena's allocator, alive for this call.
    let block = unsafe { &*alloc }.allocate(Layout::new::<ArenaState<MIN_ALIGN, A>>())?;
    let state = block.cast::<ArenaState<MIN_ALIGN, A>>();
    // SAFETY: a fresh block with the state's size and alignment.
    unsafe { state.as_ptr().write(ArenaState::new(false, settings)) };
    Some(state)
}

/// [`no_state_error`] for the settings packed in `word` (an arena's `high_ptr` while it
/// has no state): out of line, so that the inlined slow path stays small.
#[cold]
#[inline(never)]
fn settings_error<const MIN_ALIGN: usize, A: BackingAllocator>(word: usize) -> AllocError {
    no_state_error::<MIN_ALIGN, A>(Settings::unpack(word))
}

/// Why `new_state` failed with `settings`: the limit, or the backing allocator.
#[cold]
fn no_state_error<const MIN_ALIGN: usize, A: BackingAllocator>(settings: Settings) -> AllocError {
    if ArenaState::<MIN_ALIGN, A>::own_size(false) > settings.limit {
        AllocError::LIMIT_REACHED
    } else {
        AllocError::OUT_OF_MEMORY
    }
}

/// Frees an arena's chunks and state (`Drop`), out of line with everything by value.
///
/// # Safety
/// `state` is the arena's, which is going away: nothing points into its chunks.
#[inline(never)]
unsafe fn drop_state<const MIN_ALIGN: usize, A: BackingAllocator>(
    state: NonNull<ArenaState<MIN_ALIGN, A>>,
    alloc: *const A,
) {
    // SAFETY: the arena's state; the caller says nothing uses it any more.
    let in_buffer = unsafe {
        state.as_ref().alloc.set(alloc);
        let in_buffer = state.as_ref().in_buffer;
        ptr::drop_in_place(state.as_ptr());
        in_buffer
    };
    if !in_buffer {
        // SAFETY: `new_state` allocated the block from this allocator with this layout.
        unsafe { (*alloc).deallocate(state.cast(), Layout::new::<ArenaState<MIN_ALIGN, A>>()) }
    }
}

#[cfg(feature = "alloc")]
impl Arena {
    /// Makes an empty arena on the global allocator. Allocates nothing until the first
    /// allocation; `const`, so it can initialize a `thread_local!` without a lazy check.
    ///
    /// ```
    /// use bumpdown::Arena;
    ///
    /// let arena = Arena::new();
    /// assert_eq!(arena.allocated_bytes(), 0);
    ///
    /// thread_local! {
    ///     static SCRATCH: Arena = const { Arena::new() };
    /// }
    /// SCRATCH.with(|arena| assert_eq!(*arena.alloc(5u8), 5));
    /// ```
    pub const fn new() -> Self {
        Self::new_in(Global)
    }

    /// Makes an arena whose first chunk holds at least `bytes` bytes.
    ///
    /// # Panics
    /// If the chunk cannot be allocated. See [`try_with_capacity`](Arena::try_with_capacity).
    ///
    /// ```
    /// let arena = bumpdown::Arena::with_capacity(10_000);
    /// assert!(arena.chunk_capacity() >= 10_000);
    /// ```
    #[track_caller]
    pub fn with_capacity(bytes: usize) -> Self {
        Self::with_capacity_in(bytes, Global)
    }

    /// Like [`with_capacity`](Arena::with_capacity), returning an error instead of panicking.
    ///
    /// ```
    /// assert!(bumpdown::Arena::try_with_capacity(usize::MAX).is_err());
    /// ```
    pub fn try_with_capacity(bytes: usize) -> Result<Self, AllocError> {
        Self::try_with_capacity_in(bytes, Global)
    }
}

/// Arenas with a minimum alignment (bumpalo's spelling): `Arena::new()` infers the
/// default `Arena<1>`, so an arena of another `MIN_ALIGN` names it here.
#[cfg(feature = "alloc")]
impl<const MIN_ALIGN: usize> Arena<MIN_ALIGN> {
    /// Makes an empty arena on the global allocator whose every allocation is aligned to
    /// at least `MIN_ALIGN` (1, 2, 4, 8 or 16), which lets the fast path skip rounding
    /// for types aligned to no more than that.
    ///
    /// ```
    /// let arena = bumpdown::Arena::<8>::with_min_align();
    /// assert_eq!(arena.alloc(1u8) as *const u8 as usize % 8, 0);
    /// ```
    pub const fn with_min_align() -> Self {
        Self::new_in(Global)
    }

    /// Makes an arena with minimum alignment `MIN_ALIGN` whose first chunk holds at
    /// least `bytes` bytes.
    ///
    /// # Panics
    /// If the chunk cannot be allocated.
    ///
    /// ```
    /// let arena = bumpdown::Arena::<16>::with_min_align_and_capacity(10_000);
    /// assert!(arena.chunk_capacity() >= 10_000);
    /// ```
    #[track_caller]
    pub fn with_min_align_and_capacity(bytes: usize) -> Self {
        Self::with_capacity_in(bytes, Global)
    }
}

#[cfg(feature = "alloc")]
impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Arena<MIN_ALIGN, A> {
    const VALID_MIN_ALIGN: () =
        assert!(MIN_ALIGN.is_power_of_two() && MIN_ALIGN <= CHUNK_ALIGN, "MIN_ALIGN must be 1, 2, 4, 8 or 16");

    /// Bytes of the block that holds an arena's bookkeeping (its chunk lists, limit,
    /// statistics and checkpoint records), taken from the backing allocator when the
    /// arena first needs it: at its first allocation (or first checkpoint, or
    /// `with_capacity`), and freed when the arena is dropped. It counts in
    /// [`allocated_bytes_including_metadata`](Arena::allocated_bytes_including_metadata)
    /// and against the [limit](Arena::set_allocation_limit). A [`BufferArena`] keeps it
    /// at the start of its buffer instead.
    ///
    /// [`BufferArena`]: crate::BufferArena
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// assert_eq!(arena.allocated_bytes_including_metadata(), 0);
    /// arena.alloc(1u8);
    /// let chunks = arena.stats().held_bytes - <bumpdown::Arena>::BOOKKEEPING_BYTES;
    /// assert!(chunks >= 1);
    /// ```
    pub const BOOKKEEPING_BYTES: usize = size_of::<ArenaState<MIN_ALIGN, A>>();

    /// Makes an empty arena that takes its chunks from `alloc`.
    ///
    /// ```
    /// use bumpdown::{Arena, Global};
    /// let arena: Arena<8, Global> = Arena::new_in(Global);
    /// assert_eq!(*arena.alloc(3u8), 3);
    /// ```
    pub const fn new_in(alloc: A) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID_MIN_ALIGN;
        let empty = empty_chunk();
        Arena {
            ptr: Cell::new(empty),
            end: Cell::new(empty),
            start: Cell::new(empty),
            high_ptr: Cell::new(Settings::DEFAULT.pack()),
            epoch: Cell::new(0),
            dirty: Cell::new(false),
            state: Cell::new(None),
            alloc,
        }
    }

    /// Makes an arena on `alloc` whose first chunk holds at least `bytes` bytes.
    ///
    /// # Panics
    /// If the chunk cannot be allocated.
    ///
    /// ```
    /// use bumpdown::{Arena, Global};
    /// let arena: Arena<1, Global> = Arena::with_capacity_in(100, Global);
    /// assert!(arena.chunk_capacity() >= 100);
    /// ```
    #[track_caller]
    pub fn with_capacity_in(bytes: usize, alloc: A) -> Self {
        match Self::try_with_capacity_in(bytes, alloc) {
            Ok(arena) => arena,
            Err(err) => alloc_failed(bytes, 1, err),
        }
    }

    /// Like [`with_capacity_in`](Arena::with_capacity_in), returning an error instead of
    /// panicking.
    pub fn try_with_capacity_in(bytes: usize, alloc: A) -> Result<Self, AllocError> {
        let arena = Self::new_in(alloc);
        if bytes > 0 {
            let state = arena.state_or_create()?;
            arena.sync_to(state);
            let result = state.reserve_first(bytes);
            arena.sync_from(state);
            result?;
        }
        Ok(arena)
    }

    /// Sets the cap on the size of regular chunks (default 4 MiB), rounded up to a power
    /// of two of at least 512 bytes. Chunks double in size up to the cap; requests larger
    /// than an eighth of it get a chunk of their own ("out of band"), so one big
    /// allocation does not make every later chunk big.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new().with_max_chunk_size(64 << 10);
    /// arena.alloc_slice_fill_copy(100_000, 0u8); // out of band: > 64 KiB / 8
    /// arena.alloc(1u8);
    /// assert!(arena.stats().big_chunks == 1);
    /// ```
    pub fn with_max_chunk_size(self, bytes: usize) -> Self {
        match self.state() {
            Some(state) => state.set_max_chunk_size(bytes),
            None => self.set_settings(self.settings().with_max_chunk_size(bytes)),
        }
        self
    }

    /// The backing allocator.
    pub fn allocator(&self) -> &A {
        &self.alloc
    }

    // ----- The state behind the handle ----------------------------------------------

    /// The allocator's address for calls into the state: the arena's own `alloc`, or
    /// for a zero-sized allocator a dangling, aligned address (all a reference to a
    /// zero-sized value needs), so that the common case passes no address of the arena.
    #[inline(always)]
    fn alloc_ptr(&self) -> *const A {
        if size_of::<A>() == 0 {
            NonNull::<A>::dangling().as_ptr()
        } else {
            &self.alloc
        }
    }

    /// The state, if the arena has one yet.
    #[inline(always)]
    fn state(&self) -> Option<&ArenaState<MIN_ALIGN, A>> {
        // SAFETY: the arena's own state (the invariant), which lives as long as the arena.
        self.state.get().map(|state| unsafe { state.as_ref() })
    }

    /// The state, made now if the arena has none yet.
    fn state_or_create(&self) -> Result<&ArenaState<MIN_ALIGN, A>, AllocError> {
        let state = match self.state.get() {
            Some(state) => state,
            None => {
                let state = new_state(self.alloc_ptr(), self.settings())
                    .ok_or_else(|| settings_error::<MIN_ALIGN, A>(self.high_ptr.get()))?;
                self.state.set(Some(state));
                // The handle takes the new state's fields (`high_ptr` held the settings
                // so far).
                // SAFETY: the new state, which nothing else uses.
                self.sync_from(unsafe { state.as_ref() });
                state
            }
        };
        // SAFETY: the arena's own state (the invariant), which lives as long as the arena.
        Ok(unsafe { state.as_ref() })
    }

    /// The settings of an arena without a state, kept in `high_ptr` (see there).
    fn settings(&self) -> Settings {
        debug_assert!(self.state.get().is_none());
        Settings::unpack(self.high_ptr.get())
    }

    /// Keeps `settings` in `high_ptr` until the arena has a state.
    fn set_settings(&self, settings: Settings) {
        debug_assert!(self.state.get().is_none());
        self.high_ptr.set(settings.pack());
    }

    /// `state_or_create` for the infallible methods that need a state.
    #[track_caller]
    fn state_or_panic(&self) -> &ArenaState<MIN_ALIGN, A> {
        match self.state_or_create() {
            Ok(state) => state,
            Err(err) => {
                alloc_failed(size_of::<ArenaState<MIN_ALIGN, A>>(), align_of::<ArenaState<MIN_ALIGN, A>>(), err)
            }
        }
    }

    /// Hands the bump pointer and high mark (and the allocator's address) to the state
    /// before a call.
    #[inline(always)]
    fn sync_to(&self, state: &ArenaState<MIN_ALIGN, A>) {
        state.enter(self.alloc_ptr(), self.ptr.get(), self.high_ptr.get());
    }

    /// Copies the fields the handle mirrors back from the state after a call.
    #[inline(always)]
    fn sync_from(&self, state: &ArenaState<MIN_ALIGN, A>) {
        self.ptr.set(state.ptr.get());
        self.end.set(state.end.get());
        self.start.set(state.start.get());
        self.high_ptr.set(state.high_ptr.get());
        self.epoch.set(state.epoch.get());
        self.dirty.set(state.dirty.get());
    }

    /// `sync_from` as one copy of the bytes from `ptr` to `dirty`, for the allocation
    /// slow path, which every allocation site inlines: it takes six instructions there
    /// instead of twelve, and the compiler counts it as one, so a small function of the
    /// caller's that allocates (a parser's `fn bin(&self, ..)` with two `alloc`s) stays
    /// small enough to be inlined itself. Not for the other calls into the state: the
    /// copy's 16-byte loads read fields the call has just stored 8 bytes at a time,
    /// which the CPU cannot forward from its store buffer; a reset after a thousand
    /// chunks took 10 ns longer with it.
    #[inline(always)]
    fn sync_from_slow_path(&self, state: &ArenaState<MIN_ALIGN, A>) {
        use core::mem::offset_of;
        type S<const M: usize, A> = ArenaState<M, A>;
        // The six mirrored fields lie at the same offsets in both, `dirty` last.
        const {
            assert!(offset_of!(Self, ptr) == offset_of!(S<MIN_ALIGN, A>, ptr));
            assert!(offset_of!(Self, end) == offset_of!(S<MIN_ALIGN, A>, end));
            assert!(offset_of!(Self, start) == offset_of!(S<MIN_ALIGN, A>, start));
            assert!(offset_of!(Self, high_ptr) == offset_of!(S<MIN_ALIGN, A>, high_ptr));
            assert!(offset_of!(Self, epoch) == offset_of!(S<MIN_ALIGN, A>, epoch));
            assert!(offset_of!(Self, dirty) == offset_of!(S<MIN_ALIGN, A>, dirty));
            assert!(offset_of!(Self, dirty) + size_of::<bool>() <= offset_of!(Self, state));
        }
        // SAFETY: both structs hold the six fields in their first `dirty + 1` bytes (the
        // assertions above), every byte of which belongs to a `Cell` field, so writing
        // them through a pointer from `&self` is allowed. The state is a separate block,
        // so the ranges do not overlap; the bytes are copied as they are (addresses with
        // their provenance, a valid `bool`).
        unsafe {
            ptr::copy_nonoverlapping(
                ptr::from_ref(state).cast::<u8>(),
                ptr::from_ref(self).cast::<u8>().cast_mut(),
                offset_of!(Self, dirty) + size_of::<bool>(),
            );
        }
        debug_assert!(self.ptr.get() == state.ptr.get() && self.dirty.get() == state.dirty.get());
    }

    /// Runs `f` on the state with the bump pointers handed over (`None`: no state yet).
    #[inline]
    fn with_state<R>(&self, f: impl FnOnce(&ArenaState<MIN_ALIGN, A>) -> R) -> Option<R> {
        let state = self.state()?;
        self.sync_to(state);
        let result = f(state);
        self.sync_from(state);
        Some(result)
    }

    /// The state's epoch (0 without a state; a new state starts there too).
    #[inline(always)]
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.get()
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

    /// Why the last failed slow-path call failed.
    pub(crate) fn last_error(&self) -> AllocError {
        self.state().map_or(AllocError::OUT_OF_MEMORY, |state| state.last_error.get())
    }

    /// The block `p` that the slow path returned for `size` and `align`, leaving the bump
    /// pointer at `ptr`. Where the block is known to end at `ptr` (a regular chunk's, see
    /// `ArenaState::lands_below_ptr`; folds for a constant layout), it is computed from
    /// `ptr` instead: the block is then a constant offset from the bump pointer after
    /// either path, so the caller's loop needs no register copy.
    #[inline(always)]
    pub(crate) fn landed(p: NonNull<u8>, ptr: *mut u8, size: usize, align: usize) -> NonNull<u8> {
        if !ArenaState::<MIN_ALIGN, A>::lands_below_ptr(size, align) {
            return p;
        }
        let below = ptr.wrapping_sub(round_up(size, MIN_ALIGN));
        debug_assert_eq!(p.as_ptr(), below);
        // SAFETY: the block's address, which is not null.
        unsafe { NonNull::new_unchecked(below) }
    }

    /// Makes `buf` the arena's first chunk, its state in the buffer's first bytes (or
    /// nothing, if it is too small for the state, a header and a few bytes).
    ///
    /// # Safety
    /// `buf..buf + len` is valid for reads and writes, unused by anything else, for as
    /// long as the arena exists; the arena has no state yet.
    pub(crate) unsafe fn adopt_buffer(&self, buf: *mut u8, len: usize) {
        debug_assert!(self.state.get().is_none());
        let layout = Layout::new::<ArenaState<MIN_ALIGN, A>>();
        let at = round_up(buf.addr(), layout.align());
        let Some(rest) = (buf.addr() + len).checked_sub(at + layout.size()) else { return };
        let state = buf.with_addr(at).cast::<ArenaState<MIN_ALIGN, A>>();
        // SAFETY: `at..at + size` lies in the buffer (`rest` did not underflow), aligned
        // for the state; the caller lends us the buffer for the arena's life.
        unsafe { state.write(ArenaState::new(true, self.settings())) };
        // SAFETY: not null: inside a slice.
        let state = unsafe { NonNull::new_unchecked(state) };
        self.state.set(Some(state));
        // The handle takes the new state's fields (`high_ptr` held the settings so far).
        // SAFETY: the state just written, which nothing else uses.
        self.sync_from(unsafe { state.as_ref() });
        // SAFETY: the rest of the buffer, after the state, under the caller's promise.
        self.with_state(|state| unsafe { state.adopt_buffer(buf.with_addr(at + layout.size()), rest) });
    }

    // ----- Giving memory back -------------------------------------------------------

    /// Frees every allocation at once. Keeps the regular chunks for reuse (the next
    /// allocations fill them again from the first, touching no new pages and calling no
    /// backing allocator), and returns out-of-band chunks to the backing allocator.
    /// Takes `&mut self`, so no allocation can still be borrowed. Its cost does not grow
    /// with the number of chunks it keeps (only with the out-of-band ones it frees).
    ///
    /// ```
    /// let mut arena = bumpdown::Arena::new();
    /// for _ in 0..1000 { arena.alloc(0u64); }
    /// let held = arena.allocated_bytes();
    /// arena.reset();
    /// for _ in 0..1000 { arena.alloc(0u64); }
    /// assert_eq!(arena.allocated_bytes(), held); // reused, not reallocated
    /// ```
    #[inline(always)]
    pub fn reset(&mut self) {
        // The common case, an arena that used only its current chunk since the last reset
        // (no chunk retired, nothing out of band), is a handful of loads and stores on
        // the handle. (Without a state `dirty` is false and `start` is the sentinel.)
        if !self.dirty.get() {
            debug_assert!(self.state().is_none_or(|state| {
                state.retired_used.get() == 0 && state.big_used.get() == 0 && state.ledger.is_reset()
            }));
            // The chunk and the out-of-band blocks stay as they are, so the peak needs no
            // fold yet: marking the high point is enough (see `update_peak`).
            self.mark_high_at(self.ptr.get().addr());
            // `start` is the current chunk's start (or the sentinel, without one): a
            // multiple of MIN_ALIGN at or below `ptr`.
            // SAFETY: `start..ptr` is the used part of the current chunk (empty for the
            // sentinel), and `&mut self` proves nothing uses it.
            unsafe { crate::poison::given_back(self.start.get(), self.ptr.get().addr()) };
            self.ptr.set(self.start.get());
            return;
        }
        self.reset_chunks()
    }

    /// `reset`'s other cases (`dirty`: the arena has a state).
    #[inline(always)]
    fn reset_chunks(&mut self) {
        let Some(state) = self.state.get() else { return };
        // SAFETY: the arena's state, and `&mut self`: nothing else uses it.
        let state = unsafe { &mut *state.as_ptr() };
        debug_assert!(state.dirty.get());
        self.sync_to(state);
        state.reset_chunks();
        self.sync_from(state);
    }

    /// Like [`reset`](Arena::reset), but keeps regular chunks only up to `retain` bytes in
    /// total (headers included) and frees the rest, so a long-running loop neither calls
    /// the backing allocator every iteration nor hoards a one-off peak. The bookkeeping
    /// block ([`BOOKKEEPING_BYTES`](Arena::BOOKKEEPING_BYTES)) stays until the arena is
    /// dropped.
    ///
    /// ```
    /// let mut arena = bumpdown::Arena::new();
    /// arena.alloc_slice_fill_copy(200_000, 0u8);
    /// arena.reset_with_limit(0);
    /// assert_eq!(arena.allocated_bytes(), 0);
    /// assert_eq!(arena.allocated_bytes_including_metadata(), bumpdown::Arena::<1>::BOOKKEEPING_BYTES);
    /// ```
    pub fn reset_with_limit(&mut self, retain: usize) {
        let Some(state) = self.state.get() else { return };
        // SAFETY: the arena's state, and `&mut self`: nothing else uses it.
        let state = unsafe { &mut *state.as_ptr() };
        self.sync_to(state);
        state.reset_with_limit(retain);
        self.sync_from(state);
    }

    // ----- Limits and statistics ----------------------------------------------------

    /// Caps the bytes the arena holds from its backing allocator (headers included);
    /// `None` removes the cap. Requests that would pass it fail with
    /// [`AllocErrorKind::LimitReached`](crate::AllocErrorKind::LimitReached) and the arena
    /// keeps working below it. Chunks already held are kept even above a new, lower limit.
    /// A limit of 2^57 bytes (128 PiB) or more is no limit.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// arena.set_allocation_limit(Some(4096));
    /// assert!(arena.try_alloc([0u8; 1000]).is_ok());
    /// assert!(arena.try_alloc_slice_fill_copy(5000, 0u8).is_err());
    /// assert!(arena.allocated_bytes_including_metadata() <= 4096);
    /// ```
    pub fn set_allocation_limit(&self, limit: Option<usize>) {
        let limit = limit.filter(|&limit| limit < NO_LIMIT_FROM).unwrap_or(usize::MAX);
        match self.state() {
            Some(state) => state.limit.set(limit),
            None => self.set_settings(Settings { limit, ..self.settings() }),
        }
    }

    /// The limit set by [`set_allocation_limit`](Arena::set_allocation_limit).
    pub fn allocation_limit(&self) -> Option<usize> {
        let limit = match self.state() {
            Some(state) => state.limit.get(),
            None => self.settings().limit,
        };
        (limit != usize::MAX).then_some(limit)
    }

    /// Usable bytes of all chunks the arena holds (in use, kept for reuse, or out of
    /// band), without chunk headers. Walks the chunk lists.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// assert_eq!(arena.allocated_bytes(), 0);
    /// arena.alloc(1u8);
    /// assert!(arena.allocated_bytes() > 0);
    /// ```
    pub fn allocated_bytes(&self) -> usize {
        self.with_state(|state| state.allocated_bytes()).unwrap_or(0)
    }

    /// Bytes the arena holds from its backing allocator: its chunks, headers included,
    /// and its bookkeeping block ([`BOOKKEEPING_BYTES`](Arena::BOOKKEEPING_BYTES)) once
    /// it has one.
    #[inline]
    pub fn allocated_bytes_including_metadata(&self) -> usize {
        self.state().map_or(0, |state| state.allocated_bytes_including_metadata())
    }

    /// Free bytes left in the current chunk.
    ///
    /// ```
    /// let arena = bumpdown::Arena::with_capacity(100);
    /// let before = arena.chunk_capacity();
    /// arena.alloc(0u32);
    /// assert_eq!(arena.chunk_capacity(), before - 4);
    /// ```
    pub fn chunk_capacity(&self) -> usize {
        self.end.get().addr() - self.ptr.get().addr()
    }

    /// A snapshot of the arena's memory use. Walks the chunk lists.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// arena.alloc(1u32);
    /// let stats = arena.stats();
    /// assert_eq!(stats.used, 4);
    /// assert_eq!(stats.chunks, 1);
    /// ```
    pub fn stats(&self) -> Stats {
        self.with_state(|state| state.stats()).unwrap_or_default()
    }

    /// Walks every chunk and panics, printing the addresses involved, if any invariant
    /// the unsafe code relies on is broken. Tests call it after every operation; it is
    /// public so that users' tests and fuzzers can too.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// arena.alloc_str("checked");
    /// arena.check_invariants();
    /// ```
    pub fn check_invariants(&self) {
        let (ptr, end, start) = (self.ptr.get().addr(), self.end.get().addr(), self.start.get().addr());
        assert!(
            MIN_BOTTOM <= start && start <= ptr && ptr <= end && end <= MAX_END,
            "start {start:#x} ptr {ptr:#x} end {end:#x}"
        );
        assert!(end % CHUNK_ALIGN == 0 && ptr % MIN_ALIGN == 0, "misaligned end {end:#x} or ptr {ptr:#x}");
        match self.state() {
            None => {
                assert!(
                    ptr == empty_chunk().addr() && start == ptr && end == ptr,
                    "an arena without state not at the sentinel"
                );
                // Its settings, packed (see the field).
                assert!(Settings::is_packed(self.high_ptr.get()), "an arena without state lost its settings");
            }
            Some(state) => {
                assert!(
                    state.end.get() == self.end.get() && state.start.get() == self.start.get(),
                    "the state's chunk pointers differ from the arena's"
                );
                self.sync_to(state);
                state.check_invariants();
            }
        }
    }

    /// Whether `addr..addr + len` lies inside the used part of one of the arena's chunks.
    /// A debugging aid for tests and fuzzers; walks the chunk lists.
    #[doc(hidden)]
    pub fn debug_owns(&self, addr: usize, len: usize) -> bool {
        self.with_state(|state| state.debug_owns(addr, len)).unwrap_or(false)
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Drop for Arena<MIN_ALIGN, A> {
    #[inline]
    fn drop(&mut self) {
        if let Some(state) = self.state.get() {
            // SAFETY: the arena's state; the arena is going away, so nothing points into
            // its chunks any more.
            unsafe { drop_state(state, self.alloc_ptr()) }
        }
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> fmt::Debug for Arena<MIN_ALIGN, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Arena")
            .field("min_align", &MIN_ALIGN)
            .field("stats", &self.stats())
            .field("allocation_limit", &self.allocation_limit())
            .finish_non_exhaustive()
    }
}

// The layout promised above: the fast path's pointers first (the C header reads them).
#[cfg(feature = "alloc")]
const _: () = {
    use core::mem::offset_of;
    type A = Arena<1, Global>;
    assert!(offset_of!(A, ptr) == 0 && offset_of!(A, end) == size_of::<usize>());
};
