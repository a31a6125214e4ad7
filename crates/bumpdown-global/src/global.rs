//! `BumpGlobal`: the `GlobalAlloc` face of the engine.

use core::alloc::{GlobalAlloc, Layout};
use core::ptr;

use crate::big;
use crate::classes::GRAIN;
use crate::env::{env_flag, env_size};
use crate::heap::{chunk_size, Mode};
use crate::region;
use crate::route::{self, Resize};
use crate::thread::ThreadHeap;

/// The default reservation: 64 GiB of address space.
///
/// A reservation made with `MAP_NORESERVE` costs no memory until a page is touched, and
/// 64 GiB is 1/2048 of the 47-bit user address space, so it is free to be generous: a pure
/// bump needs 1.13 GiB for one FileCheck run and 1.75 GiB for one clang compile (measured),
/// already more than the 1 GiB of the seed's `bump_alloc`. 64 GiB leaves room for programs
/// thirty times that size, and a program that outgrows it still runs, on the fallback.
pub const DEFAULT_RESERVATION: usize = 64 << 30;

/// Default of [`BumpGlobal::huge_pages`]: off
/// ([`region::HUGE_PAGES_BY_DEFAULT`](crate::region::HUGE_PAGES_BY_DEFAULT) says why).
const HUGE_PAGES: bool = region::HUGE_PAGES_BY_DEFAULT;
/// Default of [`BumpGlobal::populate`]: on. A window is about to be used, so faulting it
/// in with one call beats a trap per page: with huge pages, system time fell further to
/// 0.32 s on the JSON workload (mimalloc: 0.34 s, glibc: 0.94 s).
const POPULATE: bool = true;

/// What happens when the reservation has no room left for a request it would serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exhaustion {
    /// Serve it (and all later ones that do not fit) from the system allocator; frees are
    /// routed by address. A program never dies because it ran longer than expected.
    Fallback,
    /// Print a message to stderr and abort the process (the seed's behaviour).
    Abort,
}

/// A bump `#[global_allocator]` for short-lived programs.
///
/// On first use it reserves address space with one `mmap` (see [`DEFAULT_RESERVATION`];
/// the environment variable `BUMPDOWN_RESERVE`, e.g. `BUMPDOWN_RESERVE=8G`, overrides it).
/// Each thread carves windows of 64 KiB growing to 1 MiB from it with one atomic
/// compare-exchange and bumps inside its window without atomics or locks.
///
/// * Freeing the thread's newest block takes it back; growing it is done in place.
/// * In the default [`Mode::Recycle`], sizes are rounded to size classes and freed blocks
///   are reused from per-thread free lists. Blocks over 256 KiB get mappings of their
///   own, returned to the OS when freed, grown by `mremap` without copying, and put on
///   transparent huge pages from 2 MiB up when [`BumpGlobal::huge_pages`] asks. [`BumpGlobal::bump_only`]
///   serves everything by bumping and reuses only the newest block.
/// * `alloc_zeroed` writes no zeros on memory never used before (fresh `mmap` pages).
/// * Alignments over 4096 bytes go to the system allocator.
/// * Each new window is faulted in with one `MADV_POPULATE_WRITE` call
///   ([`BumpGlobal::populate`]), and with [`BumpGlobal::huge_pages`] the reservation asks
///   for transparent huge pages: page faults are most of what a bump allocator costs.
///
/// All `BumpGlobal` values in a process share one region; the first allocation sets it
/// up with the settings of the value it went through.
///
/// ```
/// use bumpdown_global::BumpGlobal;
///
/// #[global_allocator]
/// static A: BumpGlobal = BumpGlobal::new();
///
/// let v: Vec<u64> = (0..1000).collect();
/// assert_eq!(v.iter().sum::<u64>(), 499_500);
/// assert!(bumpdown_global::stats().used > 0);
/// ```
#[derive(Debug)]
pub struct BumpGlobal {
    reservation: usize,
    mode: Mode,
    exhaustion: Exhaustion,
    huge_pages: bool,
    populate: bool,
}

impl Default for BumpGlobal {
    fn default() -> Self {
        Self::new()
    }
}

impl BumpGlobal {
    /// The default allocator: a [`DEFAULT_RESERVATION`], recycling, system fallback.
    ///
    /// ```
    /// static A: bumpdown_global::BumpGlobal = bumpdown_global::BumpGlobal::new();
    /// ```
    pub const fn new() -> Self {
        Self::with_reservation(DEFAULT_RESERVATION)
    }

    /// Reserves `bytes` (rounded up to pages) instead of the default. `BUMPDOWN_RESERVE`
    /// in the environment still overrides it.
    ///
    /// ```
    /// static A: bumpdown_global::BumpGlobal = bumpdown_global::BumpGlobal::with_reservation(4 << 30);
    /// ```
    pub const fn with_reservation(bytes: usize) -> Self {
        BumpGlobal {
            reservation: bytes,
            mode: Mode::Recycle,
            exhaustion: Exhaustion::Fallback,
            huge_pages: HUGE_PAGES,
            populate: POPULATE,
        }
    }

    /// Pure bump: no size classes and no free lists; only the newest block is reused.
    /// For programs that free little; uses the least CPU per allocation.
    ///
    /// ```
    /// static A: bumpdown_global::BumpGlobal = bumpdown_global::BumpGlobal::new().bump_only();
    /// ```
    pub const fn bump_only(self) -> Self {
        BumpGlobal { mode: Mode::Bump, ..self }
    }

    /// Chooses what happens when the reservation is exhausted.
    ///
    /// ```
    /// use bumpdown_global::{BumpGlobal, Exhaustion};
    /// static A: BumpGlobal = BumpGlobal::new().on_exhaustion(Exhaustion::Abort);
    /// ```
    pub const fn on_exhaustion(self, exhaustion: Exhaustion) -> Self {
        BumpGlobal { exhaustion, ..self }
    }

    /// Whether to ask for transparent huge pages on the reservation (`MADV_HUGEPAGE`) and
    /// for big blocks (default: off); `BUMPDOWN_HUGEPAGES=0|1` overrides it. They are used once the
    /// program has carved [`HUGE_CHECK_AT`](crate::region::HUGE_CHECK_AT) bytes of windows
    /// or asks for a block of 2 MiB or more, and only if a huge page faults in fast enough
    /// on this machine ([`region::huge_pages`](crate::region::huge_pages) says whether).
    ///
    /// ```
    /// static A: bumpdown_global::BumpGlobal = bumpdown_global::BumpGlobal::new().huge_pages(true);
    /// ```
    pub const fn huge_pages(self, on: bool) -> Self {
        BumpGlobal { huge_pages: on, ..self }
    }

    /// Whether to fault each new thread window in with one `MADV_POPULATE_WRITE` call
    /// rather than page by page; `BUMPDOWN_POPULATE=0|1` overrides it.
    ///
    /// ```
    /// static A: bumpdown_global::BumpGlobal = bumpdown_global::BumpGlobal::new().populate(true);
    /// ```
    pub const fn populate(self, on: bool) -> Self {
        BumpGlobal { populate: on, ..self }
    }

    /// The region options to set up with: ours, overridden by the environment.
    fn reservation(&self) -> region::Options {
        region::Options {
            size: env_size(c"BUMPDOWN_RESERVE").unwrap_or(self.reservation),
            huge_pages: env_flag(c"BUMPDOWN_HUGEPAGES", self.huge_pages),
            populate: env_flag(c"BUMPDOWN_POPULATE", self.populate),
        }
    }

    /// The fast path of `alloc` and `alloc_zeroed`: a block from the thread's free list or
    /// window (`route::alloc_fast`), or null, having called nothing. So nothing on it
    /// needs saving across a call (the region's options for setting it up, which the slow
    /// path takes by reference, were stored on the stack on every call).
    #[inline(always)]
    fn alloc_fast<const ZERO: bool>(&self, layout: Layout) -> *mut u8 {
        match route::chunk_for(layout.size(), layout.align(), self.mode) {
            // SAFETY: `csz` is for this alignment, at most GRAIN.
            Some(csz) if layout.align() <= GRAIN => unsafe { route::alloc_fast::<ThreadHeap, ZERO>(csz, self.mode) },
            _ => ptr::null_mut(),
        }
    }

    /// `alloc` and `alloc_zeroed` past their fast path: the region's slow path (a new
    /// window; setting the region up), over-aligned requests, then the fallback. Cold,
    /// so that the compiler lays the fast path out as the straight line.
    #[cold]
    #[inline(never)]
    fn alloc_general<const ZERO: bool>(&self, layout: Layout) -> *mut u8 {
        let p = self.region_alloc::<ZERO>(layout);
        if !p.is_null() {
            return p;
        }
        self.fallback_alloc(layout, ZERO)
    }

    /// Allocates from the region, or null if it cannot serve `layout`.
    #[inline(always)]
    fn region_alloc<const ZERO: bool>(&self, layout: Layout) -> *mut u8 {
        match route::chunk_for(layout.size(), layout.align(), self.mode) {
            // SAFETY: `csz` is for this alignment, a power of two (it is a layout's);
            // `reservation` reads the environment and never allocates.
            Some(csz) => unsafe {
                route::alloc::<ThreadHeap, ZERO>(csz, layout.align(), self.mode, &|| self.reservation())
            },
            None => ptr::null_mut(),
        }
    }

    /// Serves `layout` outside the region (the region could not): from a mapping of its
    /// own if it is big (see `big.rs`), else from the system allocator.
    #[cold]
    #[inline(never)]
    fn fallback_alloc(&self, layout: Layout, zero: bool) -> *mut u8 {
        let servable = route::chunk_for(layout.size(), layout.align(), self.mode).is_some();
        if servable && self.exhaustion == Exhaustion::Abort && layout.size() <= region::reserved() {
            exhausted();
        }
        let p = if big::is_big(layout) {
            big::alloc(layout.size(), self.huge_pages_for(layout.size()))
        } else {
            sys_alloc(layout, zero)
        };
        if !p.is_null() {
            region::note_fallback_alloc(layout.size());
        }
        p
    }

    /// Whether a big block of `size` bytes goes on huge pages: as the region decides (asked
    /// for, and cheap on this machine). A block of 2 MiB or more makes it decide now,
    /// setting the region up if no allocation has yet.
    #[cold]
    fn huge_pages_for(&self, size: usize) -> bool {
        if size >= region::HUGE {
            if !region::initialized() {
                region::init(self.reservation());
            }
            region::decide_huge_pages();
        }
        region::huge_pages()
    }

    /// Frees `p`, a region block of `layout`.
    ///
    /// # Safety
    /// `p` is a live region allocation of `layout` (so `chunk_size` is `Some`).
    #[inline(always)]
    unsafe fn region_free(&self, p: *mut u8, layout: Layout) {
        // Always `Some`: the region served this layout, so it had a chunk size.
        if let Some(csz) = chunk_size(layout.size(), layout.align(), self.mode) {
            // SAFETY: p is a live region chunk of csz bytes (the caller), given up.
            unsafe { route::free::<ThreadHeap>(p, csz, self.mode) }
        }
    }
}

/// Writes why we stop and aborts.
#[cold]
fn exhausted() -> ! {
    let msg = b"bumpdown: the reservation is exhausted (set BUMPDOWN_RESERVE, e.g. BUMPDOWN_RESERVE=64G, or use Exhaustion::Fallback)\n";
    // SAFETY: writes a static buffer to fd 2; abort never returns.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
        libc::abort()
    }
}

/// System allocation of `layout` (libc `malloc`/`calloc`/`posix_memalign`).
fn sys_alloc(layout: Layout, zero: bool) -> *mut u8 {
    if layout.align() <= 16 && layout.align() <= layout.size() {
        // SAFETY: plain libc calls; a non-null result is a fresh block of at least
        // `size` bytes aligned to 16 (glibc's guarantee on x86_64/aarch64).
        unsafe {
            if zero {
                libc::calloc(1, layout.size()).cast()
            } else {
                libc::malloc(layout.size()).cast()
            }
        }
    } else {
        let mut out = ptr::null_mut();
        let align = layout.align().max(size_of::<usize>());
        // SAFETY: align is a power of two and a multiple of the pointer size.
        if unsafe { libc::posix_memalign(&mut out, align, layout.size()) } != 0 {
            return ptr::null_mut();
        }
        let p = out.cast::<u8>();
        if zero {
            // SAFETY: p is a fresh block of layout.size() bytes.
            unsafe { p.write_bytes(0, layout.size()) };
        }
        p
    }
}

// SAFETY: blocks come from the thread's own window (never handed out twice, by the region
// and heap invariants), from its free lists (blocks a program gave up), or from the system
// allocator; each is at least `layout.size()` bytes aligned to `layout.align()`; frees are
// routed by address, so each block returns to the allocator it came from.
unsafe impl GlobalAlloc for BumpGlobal {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = self.alloc_fast::<false>(layout);
        if !p.is_null() {
            return p;
        }
        self.alloc_general::<false>(layout)
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = self.alloc_fast::<true>(layout);
        if !p.is_null() {
            return p;
        }
        self.alloc_general::<true>(layout)
    }

    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if region::contains(p) {
            // SAFETY: GlobalAlloc contract: p is live, allocated by us with `layout`; it
            // is in the region, so the region served it.
            unsafe { self.region_free(p, layout) }
        } else {
            region::note_fallback_free(layout.size());
            if big::is_big(layout) {
                // SAFETY: outside the region and big, so big::alloc or big::realloc made
                // it with this size (big.rs invariant); the caller gives it up.
                unsafe { big::free(p, layout.size()) }
            } else {
                // SAFETY: outside the region and not big, so sys_alloc made it; libc free
                // takes malloc, calloc and posix_memalign blocks alike.
                unsafe { libc::free(p.cast()) }
            }
        }
    }

    #[inline]
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if region::contains(p) {
            // `old` is always `Some`: the region served this layout.
            let (align, mode) = (layout.align(), self.mode);
            if let (Some(old), Some(new)) = (chunk_size(layout.size(), align, mode), chunk_size(new_size, align, mode))
            {
                // SAFETY: p is a live region chunk of `old` bytes; `new` is for its alignment.
                match unsafe { route::resize::<ThreadHeap>(p, old, new, mode) } {
                    Resize::Same | Resize::InPlace => return p,
                    // Keep the block; its tail is lost, as everything freed in bump mode.
                    Resize::Refused if new < old && mode == Mode::Bump => return p,
                    Resize::Refused => {}
                }
            }
        } else if big::is_big(layout) {
            if big::is_big_size(new_size, layout.align()) {
                // SAFETY: outside the region and big: a live big block of layout.size()
                // bytes (big.rs invariant); the caller uses only the result on success.
                let q = unsafe { big::realloc(p, layout.size(), new_size) };
                if !q.is_null() {
                    region::note_fallback_free(layout.size());
                    region::note_fallback_alloc(new_size);
                }
                return q;
            }
        } else if layout.align() <= 16
            && layout.align() <= new_size
            && layout.align() <= layout.size()
            && !big::is_big_size(new_size, layout.align())
        {
            // SAFETY: p came from libc malloc/calloc (align <= 16 <= size); realloc keeps
            // the 16-byte alignment. The result is not big, so it may stay a libc block.
            let q = unsafe { libc::realloc(p.cast(), new_size) }.cast::<u8>();
            if !q.is_null() {
                region::note_fallback_free(layout.size());
                region::note_fallback_alloc(new_size);
            }
            return q;
        }
        // SAFETY: new_size is non-zero and rounds to a valid layout (GlobalAlloc contract).
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: `p` is live with `layout` (the contract); `alloc` gets a valid non-zero
        // layout of `new_size` bytes; `dealloc` gets `p` with its layout, and the caller
        // uses only the result.
        unsafe { route::move_block(p, layout.size(), new_size, || self.alloc(new_layout), |p| self.dealloc(p, layout)) }
    }
}
