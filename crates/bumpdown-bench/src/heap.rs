//! A global allocator that counts what the arenas ask of the heap.
//!
//! Every contender gets its chunks from Rust's global allocator, so counting the
//! calls here tells, for all of them alike, whether a chunk was allocated inside a
//! timed region (which would make that sample measure `malloc`, not bumping) and
//! what a `reset` keeps. The live counts are relaxed atomics: one uncontended
//! `lock add` per chunk allocation, and chunk allocations never happen in a timed
//! region of a valid sample. Calls are counted per thread, so a sample's check sees
//! only its own thread (tests sample while other tests allocate). The seed-004
//! `malloc` contenders call libc directly, so they bypass these counters and pay
//! nothing for them. The one timed loop whose work *is* heap allocation (the Bumper
//! workload's `Vec`) runs with its thread's counting paused ([`uncounted`]), so it
//! pays a thread-local load and a branch instead of the atomic adds.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ffi::CStr;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};

/// The system allocator (or mimalloc, see [`HEAP_VAR`]), with counters.
pub struct Counting;

// Constant-initialised and without destructors, so using them never allocates
// (which the allocator itself must not do).
std::thread_local! {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc` on this thread so far.
    static CALLS: Cell<usize> = const { Cell::new(0) };
    /// While set, this thread's heap calls are not counted; see [`uncounted`].
    static PAUSED: Cell<bool> = const { Cell::new(false) };
}
/// Bytes currently allocated.
static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);
/// Blocks currently allocated.
static LIVE_BLOCKS: AtomicUsize = AtomicUsize::new(0);

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The environment variable that makes the counting heap forward to mimalloc instead
/// of the system allocator, with the value [`MIMALLOC`]: set for the child processes
/// of the fresh-arena table, which measures the way stumpalo's own benchmark does
/// (mimalloc as the global allocator).
pub const HEAP_VAR: &str = "BUMPDOWN_BENCH_HEAP";
/// See [`HEAP_VAR`].
pub const MIMALLOC: &str = "mimalloc";

/// Which allocator the counting heap forwards to: 0 not decided yet, 1 the system's,
/// 2 mimalloc. Decided at the process's first heap call, before any block exists, and
/// never changed, so every block is freed by the allocator that made it.
static BACKEND: AtomicU8 = AtomicU8::new(0);

/// Whether this process's heap is mimalloc (see [`HEAP_VAR`]).
#[inline(always)]
pub fn on_mimalloc() -> bool {
    match BACKEND.load(Relaxed) {
        1 => false,
        2 => true,
        _ => decide_backend(),
    }
}

/// Reads [`HEAP_VAR`] without allocating (this runs inside the allocator).
#[cold]
fn decide_backend() -> bool {
    const NAME: &CStr = c"BUMPDOWN_BENCH_HEAP";
    debug_assert_eq!(NAME.to_bytes(), HEAP_VAR.as_bytes());
    // SAFETY: a NUL-terminated name; the bench never changes its environment, so the
    // returned string (if any) stays valid while it is read.
    let value = unsafe { libc::getenv(NAME.as_ptr()) };
    // SAFETY: `getenv` returns null or a NUL-terminated string.
    let mimalloc = !value.is_null() && unsafe { CStr::from_ptr(value) }.to_bytes() == MIMALLOC.as_bytes();
    // Two threads deciding at once read the same environment and store the same value.
    BACKEND.store(if mimalloc { 2 } else { 1 }, Relaxed);
    mimalloc
}

/// Counts a block of `size` bytes that has just been handed out.
#[inline(always)]
fn count_new(block: *mut u8, size: usize) -> *mut u8 {
    if !block.is_null() && !PAUSED.get() {
        CALLS.set(CALLS.get() + 1);
        LIVE_BYTES.fetch_add(size, Relaxed);
        LIVE_BLOCKS.fetch_add(1, Relaxed);
    }
    block
}

/// Runs `f` with this thread's heap calls not counted. Every block `f` allocates must
/// be freed inside it, and it must free no block allocated before, or the live counts
/// drift.
pub fn uncounted<R>(f: impl FnOnce() -> R) -> R {
    /// Resumes counting, also if `f` unwinds.
    struct Resume;
    impl Drop for Resume {
        fn drop(&mut self) {
            PAUSED.set(false);
        }
    }
    PAUSED.set(true);
    let _resume = Resume;
    f()
}

/// The allocator this process's heap forwards to (see [`on_mimalloc`]): the same one for
/// the whole process, so every block is freed by the allocator that made it.
#[inline(always)]
fn backend() -> &'static dyn GlobalAlloc {
    if on_mimalloc() {
        &mimalloc::MiMalloc
    } else {
        &System
    }
}

// SAFETY: every method forwards to `System` or to mimalloc (the same one for the whole
// process, see `BACKEND`) with the caller's arguments unchanged, so that allocator's
// guarantees carry over; the counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract for `layout`.
        let block = unsafe { backend().alloc(layout) };
        count_new(block, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let block = unsafe { backend().alloc_zeroed(layout) };
        count_new(block, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !PAUSED.get() {
            LIVE_BYTES.fetch_sub(layout.size(), Relaxed);
            LIVE_BLOCKS.fetch_sub(1, Relaxed);
        }
        // SAFETY: the caller passes a block this allocator returned, with its layout;
        // it came from the backend `on_mimalloc` names, which never changes.
        unsafe { backend().dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        let block = unsafe { backend().realloc(ptr, layout, new_size) };
        if !block.is_null() && !PAUSED.get() {
            CALLS.set(CALLS.get() + 1);
            LIVE_BYTES.fetch_add(new_size, Relaxed);
            LIVE_BYTES.fetch_sub(layout.size(), Relaxed);
        }
        block
    }
}

/// A reading of the counters.
#[derive(Clone, Copy, Debug)]
pub struct Snapshot {
    /// Allocation calls so far on this thread.
    pub calls: usize,
    /// Bytes live now.
    pub live_bytes: usize,
    /// Blocks live now.
    pub live_blocks: usize,
}

impl Snapshot {
    /// Reads the counters.
    #[inline(always)]
    pub fn now() -> Self {
        Self { calls: CALLS.get(), live_bytes: LIVE_BYTES.load(Relaxed), live_blocks: LIVE_BLOCKS.load(Relaxed) }
    }

    /// Allocation calls this thread made since `self` was taken (on this thread).
    #[inline(always)]
    pub fn calls_since(self) -> usize {
        CALLS.get() - self.calls
    }
}
