//! The reservation: one `mmap` of address space that thread windows are carved from.
//!
//! # INVARIANT
//! * `BASE` is `UNINIT` (0), `FAILED` (1), or the start of a live anonymous mapping of
//!   `PAGE + 2 * span + ZONES * bitmap_slot(span)` bytes whose first word holds `size` (a multiple of `PAGE`), whose
//!   second word holds 1 if carved windows are to be populated, whose third word holds 1
//!   if transparent huge pages were asked for, and whose fourth holds `log2(span)`, `span`
//!   being a power of two, at least `size` and at least `ZONES` MiB. Once it leaves
//!   `UNINIT` it never changes, and the mapping is never unmapped: pointers into it stay
//!   valid for the life of the process.
//! * The data, from `BASE + PAGE`, has two spans: the *main* one, where windows of every
//!   band are carved, and the *zones* ([`Place::Zone`]), [`ZONES`] equal parts of a span,
//!   zone `k` holding only the windows of chunks of `zone_size(k)` bytes (see
//!   [`carve_zone`]), on a grid that starts [`zone_color`]`(k)` bytes into the zone.
//! * `NEXT` is the number of data bytes already handed to windows, in both spans;
//!   `NEXT <= size`, it only grows. The main span's windows are carved at offsets below
//!   `NEXT`, zone `k`'s at offsets in the zone below `ZONE_NEXT[k]` (when that is at most
//!   the zone's length). A zone window's bytes are counted in `NEXT` too, and its main
//!   counterpart is skipped, never handed out. Each byte is handed out at most once.
//!   Bytes at offsets past those cursors have never been written: they are zero.
//! * After the two spans, each zone has a *free bitmap* ([`zone_give`], [`zone_take`]):
//!   one bit per chunk of the zone, set while that chunk is free and owned by the bitmap
//!   (no heap lists it, no window holds it, nothing uses it), and one *summary* bit per
//!   bitmap word, set whenever that word may be non-zero (a set summary bit over a zero
//!   word is allowed; a non-zero word under a clear summary bit is not, except between a
//!   `zone_give`'s two steps). A bit moves to a heap only by the atomic swap that zeroes
//!   its word, so no two heaps take one chunk.
//!
//! The zones cost address space, not memory: `NEXT` counts every carved byte, so the
//! region's limit (`size`) holds for both spans together, and a skipped main range is
//! never touched, so never faulted in.
//!
//! Several threads may race to set the region up: each maps its own reservation and
//! publishes it with one compare-exchange of `BASE`; losers unmap theirs. There is no lock
//! and no waiting, so a `fork` at any moment leaves the child a consistent region.
//!
//! The system calls are the core crate's OS layer ([`bumpdown::os`]).

use core::ptr;
use core::sync::atomic::{AtomicPtr, AtomicU64, AtomicU8, AtomicUsize, Ordering};

use bumpdown::os;

/// The region's granule, **not** the system's page size: the descriptor's size, what
/// windows are rounded to, and the largest alignment the region serves. 4 KiB, the
/// smallest page of any supported system; the real page size (`bumpdown::os::page_size()`)
/// may be larger (16 KiB on Apple silicon, 16 or 64 KiB on some aarch64 Linux kernels).
/// Nothing here needs more: the region's advice to the system applies to the whole pages
/// of each range, and the mapping itself starts on a page boundary.
pub const PAGE: usize = 4096;

const UNINIT: usize = 0;
const FAILED: usize = 1;

/// See the module invariant.
static BASE: AtomicPtr<u8> = AtomicPtr::new(ptr::null_mut());
/// See the module invariant.
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// Number of zones: chunks of 16, 32, ..., `16 * ZONES` bytes (see [`zone_size`]).
pub const ZONES: usize = 16;
const ZONE_LOG: u32 = ZONES.trailing_zeros();
/// The largest chunk a zone holds.
pub const ZONE_MAX: usize = zone_size(ZONES - 1);
/// The smallest span: each zone at least 1 MiB.
const MIN_SPAN: usize = ZONES << 20;

/// The chunk size of zone `k`: `16 * (k + 1)` bytes.
#[inline(always)]
pub const fn zone_size(k: usize) -> usize {
    (k + 1) * 16
}

/// See the module invariant.
static ZONE_NEXT: [AtomicUsize; ZONES] = [const { AtomicUsize::new(0) }; ZONES];

/// Fallback allocations made (any reason).
pub(crate) static FALLBACKS: AtomicUsize = AtomicUsize::new(0);
/// Bytes live in the fallback allocator, as far as the front end can tell.
pub(crate) static FALLBACK_LIVE: AtomicUsize = AtomicUsize::new(0);
/// The largest `NEXT + FALLBACK_LIVE` seen at a carve or a fallback allocation.
pub(crate) static PEAK: AtomicUsize = AtomicUsize::new(0);

/// How to set the region up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Bytes of address space to reserve (rounded up to pages).
    pub size: usize,
    /// Ask for transparent huge pages (`MADV_HUGEPAGE`) on the whole reservation, once the
    /// program has grown big enough for them to matter and only if one faults in fast
    /// enough on this machine (see [`huge_pages`]).
    pub huge_pages: bool,
    /// Fault each window in with one `MADV_POPULATE_WRITE` when it is carved, instead of
    /// one page fault per 4 KiB page as the program first touches it. A thread's first
    /// window is never populated: threads that allocate little cost no memory.
    pub populate: bool,
}

impl Options {
    /// `size` bytes, no huge pages, no populating.
    ///
    /// ```
    /// let o = bumpdown_global::region::Options::new(1 << 30);
    /// assert!(!o.huge_pages && !o.populate);
    /// ```
    pub const fn new(size: usize) -> Options {
        Options { size, huge_pages: false, populate: false }
    }
}

/// The region's base and data size, if it is set up.
#[inline(always)]
fn current() -> Option<(*mut u8, usize)> {
    let base = BASE.load(Ordering::Acquire);
    if base.addr() <= FAILED {
        return None;
    }
    // SAFETY: by the invariant, a published base is a live mapping whose first word holds
    // its data size and is never written again; Acquire pairs with the publishing Release.
    let size = unsafe { base.cast::<usize>().read() };
    Some((base, size))
}

/// The region's base and `log2(span)`, if it is set up.
#[inline(always)]
fn layout() -> Option<(*mut u8, u32)> {
    let base = BASE.load(Ordering::Acquire);
    if base.addr() <= FAILED {
        return None;
    }
    // SAFETY: as in `current`, for the fourth word.
    let shift = unsafe { base.cast::<usize>().add(3).read() } as u32;
    Some((base, shift))
}

/// Whether `p` points into the region's data (where region allocations live), in any
/// span.
#[inline(always)]
pub fn contains(p: *const u8) -> bool {
    match layout() {
        // The data starts at base + PAGE; the descriptor page is never handed out. No
        // overflow: the mapping of PAGE + 2 * span bytes exists.
        Some((base, shift)) => p.addr().wrapping_sub(base.addr() + PAGE) < 2 << shift,
        None => false,
    }
}

/// Where an address lies (see [`place`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In the main span of the region's data.
    Main,
    /// In zone `k`: only chunks of [`zone_size`]`(k)` bytes lie there, at multiples of
    /// 16 (a heap's zone windows, `Heap::alloc_zoned`), so a front end knows such a
    /// block's size from its address alone.
    Zone(usize),
    /// Not in the region (or no region).
    Outside,
}

/// Where `p` lies: in the region's main span, a zone, or outside the region.
#[inline(always)]
pub fn place(p: *const u8) -> Place {
    match layout() {
        // The data starts at base + PAGE; the descriptor page is never handed out.
        Some((base, shift)) => {
            let offset = p.addr().wrapping_sub(base.addr() + PAGE);
            match offset >> shift {
                0 => Place::Main,
                1 => Place::Zone((offset >> (shift - ZONE_LOG)) & (ZONES - 1)),
                _ => Place::Outside,
            }
        }
        None => Place::Outside,
    }
}

/// Sets the region up with `size` bytes (rounded up to pages) unless it already is.
/// Returns whether a region exists afterwards.
#[cold]
#[inline(never)]
pub fn init(options: Options) -> bool {
    if BASE.load(Ordering::Acquire).addr() != UNINIT {
        return current().is_some();
    }
    let Some(size) = options.size.checked_add(PAGE - 1).map(|s| s & !(PAGE - 1)) else {
        return publish_failure();
    };
    let Some(span) = size.checked_next_power_of_two().map(|s| s.max(MIN_SPAN)) else {
        return publish_failure();
    };
    let bitmaps = ZONES * bitmap_slot(span);
    let Some(total) = span.checked_mul(2).and_then(|data| data.checked_add(PAGE + bitmaps)) else {
        return publish_failure();
    };
    if size == 0 {
        return publish_failure();
    }
    // MAP_NORESERVE: address space only, pages are committed on touch.
    let Some(mapped) = os::map_noreserve(total) else {
        return publish_failure();
    };
    let mapped = mapped.as_ptr();
    // SAFETY: the mapping is ours, writable and at least one page long; nobody else can see
    // it until the compare-exchange below publishes it.
    unsafe {
        mapped.cast::<usize>().write(size);
        mapped.cast::<usize>().add(1).write(options.populate as usize);
        mapped.cast::<usize>().add(2).write(options.huge_pages as usize);
        mapped.cast::<usize>().add(3).write(span.trailing_zeros() as usize);
    }
    match BASE.compare_exchange(ptr::null_mut(), mapped, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => true,
        Err(_) => {
            // Another thread published first; nobody has seen our mapping.
            // SAFETY: `mapped` is the `total`-byte mapping made above (page-aligned) and
            // never shared.
            unsafe { os::unmap(mapped, total) };
            current().is_some()
        }
    }
}

/// Transparent huge page size on x86_64 and aarch64 (4 KiB base pages).
pub const HUGE: usize = 2 << 20;

/// The most a 2 MiB huge page may take to fault in for the region to use huge pages:
/// 1.5 ms, about what 512 faults of 4 KiB pages cost (0.37-0.7 s/GiB measured on the
/// development VMs). There a huge page usually faults in at 0.25-0.45 s/GiB, so it saves
/// time, page faults and TLB misses. But a VM that hands idle memory back to its host
/// (virtio-balloon free page reporting works on free 2 MiB blocks, exactly what a huge
/// page needs) has been measured at 2.4-2.7 s/GiB, where huge pages would cost programs
/// 1.3-2.3x their time.
const HUGE_FAULT_BUDGET_NS: u64 = 1_500_000;

/// Whether a region goes on transparent huge pages unless asked otherwise: no. The
/// default of both faces, `BumpGlobal::huge_pages` and the preloaded `malloc`'s
/// `BUMPDOWN_HUGEPAGES`. With them asked for, the region goes on huge pages when one test
/// page faults in fast enough ([`huge_pages`]).
///
/// On by default until 2026-11-27, when one page proved a poor test on the development
/// VM, which hands free 2 MiB blocks back to its host (virtio-balloon free page
/// reporting): in a program faulting in 600 MiB of huge pages, the first took 0.19 ms and
/// the average 4.59 ms (2.3 s/GiB, against 0.86 ms per 2 MiB as small pages) in one run
/// of three, and 0.2 ms in the others, so each run drew its speed by lot. Paired
/// whole-process timings there:
/// * under the preload, 7 rounds, off over on: jq 0.918x (on: 1.78-3.11 s, off:
///   2.09-2.37 s), sort 0.901x, git 0.970x, FileCheck 0.995x, python3 0.995x, clang
///   1.006x, gcc 1.029x (0.97-1.12); peak RSS within 2%;
/// * under `BumpGlobal`, 9 rounds, on over off: the serde_json workload 1.261x
///   (0.98-2.97 s against 1.38-1.66 s), the `syn` parse 1.105x (0.68-1.41 s against
///   0.76-0.97 s); peak RSS the same.
///
/// Where huge pages fault in fast they pay: measured earlier on such a VM, jq went from
/// 4.80-4.99 s to 4.05-4.52 s with them, clang from 3.09-3.11 s to 2.31-2.93 s, and the
/// JSON workload's system time from 0.88 s to 0.55 s.
pub const HUGE_PAGES_BY_DEFAULT: bool = false;

/// Windows carved before huge pages are considered: a program that stays below this
/// never pays for the check (a 2 MiB page faulted in and dropped), nor a huge page's
/// worth of memory for a few kilobytes.
pub const HUGE_CHECK_AT: usize = 32 << 20;

const HUGE_UNDECIDED: u8 = 0;
const HUGE_DECIDING: u8 = 1;
const HUGE_YES: u8 = 2;
const HUGE_NO: u8 = 3;

/// Whether the region is on huge pages: one of the `HUGE_*` states. Moves only forward,
/// once, from `HUGE_UNDECIDED` (see [`decide_huge_pages`]).
static HUGE_STATE: AtomicU8 = AtomicU8::new(HUGE_UNDECIDED);

/// Decides, once per process, whether the region goes on transparent huge pages: if they
/// were asked for and one faults in within `HUGE_FAULT_BUDGET_NS`, the whole data is
/// advised `MADV_HUGEPAGE`. Called when the program has carved [`HUGE_CHECK_AT`] bytes of
/// windows, or asks for a block of 2 MiB or more. Racing callers return at once; the
/// first one decides. Allocates nothing.
#[cold]
#[inline(never)]
pub fn decide_huge_pages() {
    let Some((base, shift)) = layout() else {
        return;
    };
    // SAFETY: the descriptor's third word is immutable once published (invariant).
    let asked = unsafe { base.cast::<usize>().add(2).read() } != 0;
    if !asked
        || HUGE_STATE.compare_exchange(HUGE_UNDECIDED, HUGE_DECIDING, Ordering::Relaxed, Ordering::Relaxed).is_err()
    {
        return;
    }
    let cheap = huge_pages_are_cheap();
    if cheap {
        // SAFETY: the region's data lies inside its mapping, which stays mapped for the life
        // of the process; pages already in place keep their contents. Failure changes
        // nothing.
        unsafe { os::huge_pages(base.add(PAGE), 2 << shift) };
    }
    HUGE_STATE.store(if cheap { HUGE_YES } else { HUGE_NO }, Ordering::Relaxed);
}

/// Faults in one huge page of a throwaway mapping and times it: whether huge pages are
/// cheap enough to use here (see [`HUGE_FAULT_BUDGET_NS`]).
fn huge_pages_are_cheap() -> bool {
    let total = 2 * HUGE;
    let Some(mapped) = os::map(total) else {
        return false;
    };
    let mapped = mapped.as_ptr();
    // SAFETY: the first 2 MiB boundary is less than 2 MiB in, so the 2 MiB from there lie
    // inside the 4 MiB mapping, which is ours alone.
    let page = unsafe { mapped.add(mapped.addr().wrapping_neg() & (HUGE - 1)) };
    // SAFETY: `page..page + HUGE` lies inside our own mapping (above); failure (no THP)
    // changes nothing.
    let advised = unsafe { os::huge_pages(page, HUGE) };
    let start = monotonic_ns();
    // SAFETY: `page` lies in our writable mapping.
    unsafe { page.write_volatile(1) };
    let elapsed = monotonic_ns().saturating_sub(start);
    // SAFETY: the whole mapping made above (page-aligned), used by nobody else.
    unsafe { os::unmap(mapped, total) };
    advised && elapsed <= HUGE_FAULT_BUDGET_NS
}

/// `CLOCK_MONOTONIC` in nanoseconds (0 if the clock cannot be read). Allocates nothing.
fn monotonic_ns() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec to write; the vDSO call allocates nothing.
    if unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) } != 0 {
        return 0;
    }
    (t.tv_sec as u64).wrapping_mul(1_000_000_000).wrapping_add(t.tv_nsec as u64)
}

/// Whether the region's data is on transparent huge pages: asked for, the program grew
/// big enough, and one faulted in fast enough (see [`decide_huge_pages`]).
pub fn huge_pages() -> bool {
    HUGE_STATE.load(Ordering::Relaxed) == HUGE_YES
}

#[cold]
fn publish_failure() -> bool {
    let _ = BASE.compare_exchange(
        ptr::null_mut(),
        ptr::without_provenance_mut(FAILED),
        Ordering::AcqRel,
        Ordering::Acquire,
    );
    current().is_some()
}

/// Whether `init` has been tried (successfully or not).
#[inline(always)]
pub fn initialized() -> bool {
    BASE.load(Ordering::Acquire).addr() != UNINIT
}

/// Carves a window of at most `want` and at least `need` bytes (both multiples of
/// `PAGE`, `need <= want`) from the main span, or `None` when the region is not set up
/// or has fewer than `need` bytes left. The window is fresh: never handed out before,
/// all zero. It is populated if the region was set up so and `populate` is true.
pub fn carve(need: usize, want: usize, populate: bool) -> Option<(*mut u8, usize)> {
    carve_in(need, want, populate, Place::Main)
}

/// [`carve`] from zone `k < ZONES`: for a heap's window of chunks of [`zone_size`]`(k)`
/// bytes alone (see [`Place::Zone`]). It counts against the region's limit as a main
/// window does; `None` also when the zone is full (the caller serves the request
/// elsewhere).
pub fn carve_zone(k: usize, need: usize, want: usize, populate: bool) -> Option<(*mut u8, usize)> {
    carve_in(need, want, populate, Place::Zone(k))
}

fn carve_in(need: usize, want: usize, populate: bool, span: Place) -> Option<(*mut u8, usize)> {
    debug_assert!(need <= want && span != Place::Outside);
    let (base, size) = current()?;
    let (_, shift) = layout()?;
    // A zone's room first: its own cursor, then the limit. (A zone range whose bytes the
    // limit then refuses stays unused: the region is full anyway.)
    let mut want = want;
    let zone_at = match span {
        Place::Zone(k) => {
            let zone = ZONE_NEXT.get(k)?;
            // (A cursor may have gone past the zone's end: see below.)
            let room = (1usize << (shift - ZONE_LOG)).saturating_sub(zone.load(Ordering::Relaxed));
            if room < need {
                return None;
            }
            want = want.min(room);
            let at = zone.fetch_add(want, Ordering::Relaxed);
            if at + want > 1 << (shift - ZONE_LOG) {
                // Another thread took the room first; this range is left (address space).
                return None;
            }
            Some(zone_offset(shift, k) + at)
        }
        _ => None,
    };
    let mut off = NEXT.load(Ordering::Relaxed);
    loop {
        let left = size - off;
        if left < need {
            return None;
        }
        // A zone's range is already taken: the limit counts all of it, or none.
        let len = match zone_at {
            Some(_) if left < want => return None,
            _ => left.min(want),
        };
        match NEXT.compare_exchange_weak(off, off + len, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => {
                note_peak(off + len + FALLBACK_LIVE.load(Ordering::Relaxed));
                if off < HUGE_CHECK_AT && off + len >= HUGE_CHECK_AT {
                    decide_huge_pages();
                }
                // A zone window lies at its zone's cursor; the main range `off..off + len`
                // it was counted as is skipped.
                let at = zone_at.unwrap_or(off);
                // SAFETY: PAGE + at + len <= PAGE + 2 * span: inside the mapping (a main
                // `at` is `off`, `off + len <= size <= span`; a zone's lies inside its
                // zone, checked above).
                let start = unsafe { base.add(PAGE + at) };
                // SAFETY: the descriptor's second word is immutable once published.
                if populate && unsafe { base.cast::<usize>().add(1).read() } != 0 {
                    // SAFETY: the window is ours, inside the read-write mapping. The call
                    // only faults pages in (no effect on kernels before 5.14).
                    unsafe { os::populate(start, len) };
                }
                // Nothing in a fresh window is the program's until a chunk is handed out.
                crate::shadow::no_access(start, len);
                return Some((start, len));
            }
            Err(now) => off = now,
        }
    }
}

/// Raises `PEAK` to `value` if it is larger.
pub(crate) fn note_peak(value: usize) {
    PEAK.fetch_max(value, Ordering::Relaxed);
}

/// Reserved data bytes (0 before set-up or after a failed `mmap`).
pub fn reserved() -> usize {
    current().map_or(0, |(_, size)| size)
}

/// Data bytes handed to thread windows so far.
pub fn used() -> usize {
    NEXT.load(Ordering::Relaxed)
}

/// Records a fallback allocation of `bytes`.
#[inline]
pub fn note_fallback_alloc(bytes: usize) {
    FALLBACKS.fetch_add(1, Ordering::Relaxed);
    let live = FALLBACK_LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    note_peak(live + used());
}

/// Records the release of a fallback allocation of `bytes`.
#[inline]
pub fn note_fallback_free(bytes: usize) {
    FALLBACK_LIVE.fetch_sub(bytes, Ordering::Relaxed);
}

/// Where zone `k` starts, as an offset into the region's data, for a span of `1 << shift`:
/// after the main span, `k` zones in.
#[inline(always)]
const fn zone_offset(shift: u32, k: usize) -> usize {
    (1 << shift) + (k << (shift - ZONE_LOG))
}

/// Where zone `k`'s grid starts past the zone's start: `272 k` bytes, modulo
/// `PAGE - ZONE_MAX`, so that no two zones' first chunks share a page offset, a cache
/// line or (`16 k` modulo 256) a phase within their pages. Zones start at multiples of
/// a large power of two; without the shift, every zone's first chunk lay at the same
/// page offset, and a program's first blocks of each size, often its longest-lived and
/// hottest (jq's parser state and token buffer), contended for one cache set and stalled
/// each other's loads on 4 KiB aliasing. A window carved at a zone's start, a page or
/// more, still holds its first chunk: `zone_color(k) + zone_size(k) <= PAGE`.
#[inline(always)]
pub const fn zone_color(k: usize) -> usize {
    (k * 272) % (PAGE - ZONE_MAX)
}

const _: () = {
    let mut k = 0;
    while k < ZONES {
        assert!(zone_color(k) + zone_size(k) <= PAGE && zone_color(k) % 16 == 0);
        k += 1;
    }
};

/// Words of a zone's free bitmap, for a region of `span`: one bit for each 16-byte
/// granule of a zone (zone 0's chunk count, the most of any zone). A power of two of at
/// least 1,024 (a zone has at least 1 MiB), so a whole number of summary words covers it.
const fn bitmap_words(span: usize) -> usize {
    (span >> ZONE_LOG) / 16 / 64
}

/// Bytes of a zone's free bitmap with its summary (one bit per bitmap word), for a
/// region of `span`. Every zone gets a slot this size (address space only: the pages a
/// zone's bitmap never reaches are never touched).
const fn bitmap_slot(span: usize) -> usize {
    let words = bitmap_words(span);
    (words + words / 64) * 8
}

/// `ceil(2^63 / (k + 1))` for each zone `k`: [`chunk_index`] divides by the chunk count
/// with one multiplication (a division took ~40 cycles where the free path is ~20).
const RECIPROCALS: [u64; ZONES] = {
    let mut r = [0; ZONES];
    let mut k = 0;
    while k < ZONES {
        r[k] = (((1u128 << 63) + k as u128) / (k as u128 + 1)) as u64;
        k += 1;
    }
    r
};

/// `offset / zone_size(k)` for an `offset` of at most `2^47` bytes into zone `k`. Exact:
/// with `n = offset / 16` and `d = k + 1`, `n * ceil(2^63 / d) / 2^63` exceeds `n / d` by
/// less than `n / 2^63 < 1 / d`, too little to reach the next integer.
#[inline(always)]
pub const fn chunk_index(offset: usize, k: usize) -> usize {
    (((offset as u128 / 16) * RECIPROCALS[k] as u128) >> 63) as usize
}

/// Zone `k`'s grid start (the zone's start plus [`zone_color`]`(k)`), its bitmap, its
/// summary and the zone's bytes from its grid start on, if the region is set up.
#[inline(always)]
fn zone_bitmap(k: usize) -> Option<(*mut u8, *const AtomicU64, *const AtomicU64, usize)> {
    let (base, shift) = layout()?;
    let span = 1usize << shift;
    // No overflow, and inside the mapping: zone `k < ZONES` lies in the zones' span (its
    // color is below a page, the zone at least 1 MiB), and its bitmap slot after both
    // spans (the mapping's length, see the invariant).
    let start = base.wrapping_add(PAGE + zone_offset(shift, k) + zone_color(k));
    let bits = base.wrapping_add(PAGE + 2 * span + k * bitmap_slot(span)).cast::<AtomicU64>();
    Some((start, bits, bits.wrapping_add(bitmap_words(span)), (span >> ZONE_LOG) - zone_color(k)))
}

/// The first address at or above `p` (an address in zone `k`, a multiple of 16) where a
/// chunk of zone `k` may start: every chunk of a zone lies on the zone's grid, a whole
/// number of chunks from its start, so that [`chunk_index`] names it (zone windows are
/// carved at page offsets, not all of them on the grid). `p` itself if the region is not
/// set up.
pub fn zone_grid(k: usize, p: *mut u8) -> *mut u8 {
    let Some((start, ..)) = zone_bitmap(k) else {
        return p;
    };
    if p.addr() <= start.addr() {
        // A window at the zone's start: its first chunk lies `zone_color(k)` in.
        return p.wrapping_add(start.addr() - p.addr());
    }
    let offset = p.addr() - start.addr();
    // `ceil(offset / zone_size(k))` chunks in; stays in the zone for a `p` a page or more
    // from its end, as a window's start is.
    p.wrapping_add(chunk_index(offset + zone_size(k) - 16, k) * zone_size(k) - offset)
}

/// Gives chunk `p` of zone `k` to the zone's free bitmap, for any heap to take again
/// with [`zone_take`].
///
/// # Safety
/// `p` is a chunk of zone `k` handed out by a heap, free now and not used afterwards by
/// the caller, in no list and no window: the bitmap owns it.
#[inline]
pub unsafe fn zone_give(k: usize, p: *mut u8) {
    let Some((start, bits, summary, _)) = zone_bitmap(k) else {
        // Unreachable: a zone chunk exists only in a set-up region.
        return;
    };
    let i = chunk_index(p.addr() - start.addr(), k);
    let (word, bit) = (i / 64, i % 64);
    // SAFETY: the chunk lies in zone k (the caller), so `i` is below the zone's chunk
    // count, at most zone 0's, and `word` inside the bitmap's slot; the mapping lives
    // for the process and its bitmaps are only reached atomically.
    let bits = unsafe { &*bits.add(word) };
    // Release: the bytes the freeing thread wrote to the chunk happen before the next
    // owner's, which takes it with an Acquire swap.
    if bits.fetch_or(1 << bit, Ordering::Release) == 0 {
        // SAFETY: as above, for the summary word of `word`.
        unsafe { &*summary.add(word / 64) }.fetch_or(1 << (word % 64), Ordering::Relaxed);
    }
}

/// Takes a word of zone `k`'s free bitmap: the free chunks of 64 neighbours, as a
/// non-zero bit set and the address of the chunk of bit 0, the caller owning each chunk
/// whose bit is set. The search starts at summary word `*scan` and moves up through the
/// zone's carved part, wrapping once; `*scan` is left where a word was found, so that
/// the next search goes on from there and chunks come back in address order. `None`
/// when the bitmap is empty (or the region not set up).
pub fn zone_take(k: usize, scan: &mut u32) -> Option<(u64, *mut u8)> {
    let (start, bits, summary, zone_len) = zone_bitmap(k)?;
    let carved = ZONE_NEXT[k].load(Ordering::Relaxed).saturating_sub(zone_color(k)).min(zone_len);
    let words = chunk_index(carved, k).div_ceil(64);
    let sums = words.div_ceil(64);
    let from = (*scan as usize).min(sums);
    for s in (from..sums).chain(0..from) {
        // SAFETY: `s` is below the summary length of the carved part, inside the slot.
        let sum = unsafe { &*summary.add(s) };
        let mut mask = sum.load(Ordering::Relaxed);
        while mask != 0 {
            let j = mask.trailing_zeros() as usize;
            // The summary bit goes first: a chunk given after the swap below then finds
            // its word zero and sets the bit again (see the invariant).
            sum.fetch_and(!(1 << j), Ordering::Relaxed);
            let word = s * 64 + j;
            // SAFETY: a summary bit is set only over a word that a chunk of the zone was
            // given to, so `word` is below the bitmap's length (`bitmap_words`). Acquire
            // pairs with the givers' Release.
            let taken = unsafe { &*bits.add(word) }.swap(0, Ordering::Acquire);
            if taken != 0 {
                *scan = s as u32;
                // In the zone: chunk `word * 64` lies below the carved end.
                return Some((taken, start.wrapping_add(word * 64 * zone_size(k))));
            }
            mask = sum.load(Ordering::Relaxed);
        }
    }
    None
}
