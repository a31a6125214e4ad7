//! The malloc family over the bumpdown engine, with glibc as the fallback.
//!
//! Every function here is what the exported symbol of the same name does. Region blocks
//! come from the thread's heap (a free-list pop or a bump), routed as `BumpGlobal` routes
//! them ([`bumpdown_global::route`]), except that in recycling mode a block of up to 256
//! bytes is a bare chunk of one of the region's zones (no header: see `region_block`),
//! which under python3's workload took a tenth of the cache misses off the whole process,
//! and whose freed chunks come back in address order through the zone's free bitmap
//! (`Heap::alloc_zoned`), which took a fifth off its time (see `bench/results.md`).
//! Requests the region cannot serve (over 256 KiB in recycling mode, alignment over
//! 4096, region full or missing) go to glibc's `__libc_*` entry points, which never come
//! back to us. Nothing here allocates through `malloc`, takes a lock, or panics.
//!
//! The module is public so that a program can call these functions without the exported
//! symbols (feature `exports` off), as the `malloc` fuzz target does: its process keeps
//! its own `malloc`, and blocks from here go back through [`free`] and [`realloc`] only.

use core::ffi::c_void;
use core::ptr;

use bumpdown_global::classes::{round_up, GRAIN};
use bumpdown_global::heap::MAX_ALIGN;
use bumpdown_global::region::{zone_size, Place, ZONE_MAX};
use bumpdown_global::route::HeapSlot;
use bumpdown_global::route::{self, Resize};
use bumpdown_global::{chunk_size, region, shadow, Mode};

use crate::config::{mode, mode_of_region_block, recycling_known, region_options};
use crate::header::{self, Header, FALLBACK_HDR, HDR};
use crate::tls::TlsHeap;

extern "C" {
    fn __libc_malloc(size: usize) -> *mut c_void;
    fn __libc_calloc(n: usize, size: usize) -> *mut c_void;
    fn __libc_realloc(p: *mut c_void, size: usize) -> *mut c_void;
    fn __libc_memalign(align: usize, size: usize) -> *mut c_void;
    fn __libc_free(p: *mut c_void);
}

/// Sets `errno`.
fn set_errno(code: i32) {
    // SAFETY: __errno_location returns this thread's errno slot.
    unsafe { *libc::__errno_location() = code };
}

/// `ENOMEM` and null.
#[cold]
fn out_of_memory() -> *mut u8 {
    set_errno(libc::ENOMEM);
    ptr::null_mut()
}

/// Allocates a region chunk for `total` bytes (payload plus header room) aligned to
/// `align`, a power of two, and returns it with its size; `None` if the region cannot
/// serve it.
#[inline(always)]
fn region_chunk<const ZERO: bool>(total: usize, align: usize, mode: Mode) -> Option<(*mut u8, usize)> {
    let csz = route::chunk_for(total, align, mode)?;
    // SAFETY: `csz` is for this alignment, a power of two (callers); `region_options` only
    // reads the environment, it never allocates.
    let c = unsafe { route::alloc::<TlsHeap, ZERO>(csz, align, mode, &region_options) };
    if c.is_null() {
        None
    } else {
        Some((c, csz))
    }
}

/// Bytes a chunk needs for an `n`-byte payload `offset` bytes in. Zero-byte payloads
/// count as one, so the caller's pointer is always strictly inside its chunk (and so
/// inside the region: `free` finds it by address).
#[inline(always)]
fn chunk_total(n: usize, offset: usize) -> Option<usize> {
    n.max(1).checked_add(offset)
}

/// The largest request [`malloc`]'s fast path serves: its chunk, with the header, is at
/// most 1 KiB, where classes are 16-byte steps and the chunk size is one rounding.
const FAST_MAX: usize = 1024 - HDR;

/// The chunk size of a `malloc(n)` with `n <= FAST_MAX` in recycling mode: `n`, at least
/// one byte, plus the header, rounded up to the 16-byte class. What the general path
/// computes (`chunk_total`, then `route::chunk_for(_, 16, Mode::Recycle)`; a test compares
/// them), as one rounding: `n = 0` lands in the first class like `n = 1`.
#[inline(always)]
const fn fast_chunk(n: usize) -> usize {
    round_up(n + HDR, GRAIN)
}

/// The zone of a block of `n <= ZONE_MAX` bytes: the smallest whose chunks hold it (a
/// block of 0 bytes takes 16, so that every block is distinct).
#[inline(always)]
const fn zone_of(n: usize) -> usize {
    n.saturating_sub(1) / 16
}

/// A bare zone chunk for `n` bytes (see [`zone_of`]), zeroed when `ZERO`; null when
/// zones do not serve it (`n > ZONE_MAX`, or not in recycling mode) or the zone or the
/// region has no room: the caller then serves it with a header, elsewhere in the region
/// or from glibc.
#[inline(always)]
fn zoned<const ZERO: bool>(n: usize, mode: Mode) -> *mut u8 {
    if n > ZONE_MAX || mode != Mode::Recycle {
        return ptr::null_mut();
    }
    let k = zone_of(n);
    // SAFETY: k < ZONES (n <= ZONE_MAX); the heap's zone path allocates nothing through
    // this library (`region_options` only reads the environment).
    let p = unsafe { TlsHeap::with_heap(|h| h.alloc_zoned::<ZERO>(k, &region_options)) };
    if !p.is_null() {
        shadow::block_allocated(p, zone_size(k), ZERO);
    }
    p
}

/// `malloc`. The fast path (recycling mode, up to `FAST_MAX` bytes, a block from the
/// thread's free list or window) calls nothing, so it saves no registers; everything
/// else starts over in `malloc_general`. Blocks of up to `ZONE_MAX` bytes are bare zone
/// chunks (see `bumpdown_global::heap`'s zones), larger ones have a header.
#[inline(always)]
pub fn malloc(n: usize) -> *mut u8 {
    if recycling_known() {
        if n <= ZONE_MAX {
            // SAFETY: zone_of(n) < ZONES; the fast path allocates nothing.
            let p = unsafe { TlsHeap::with_heap(|h| h.alloc_zoned_fast::<false>(zone_of(n))) };
            if !p.is_null() {
                shadow::block_allocated(p, zone_size(zone_of(n)), false);
                return p;
            }
        } else if n <= FAST_MAX {
            let csz = fast_chunk(n);
            // SAFETY: n <= FAST_MAX, so csz <= FAST_MAX + HDR, 1 KiB: the heap's class
            // is then one shift.
            unsafe { core::hint::assert_unchecked(csz <= FAST_MAX + HDR) };
            // SAFETY: `csz` is `chunk_for(chunk_total(n, HDR), 16, Mode::Recycle)` (see
            // `fast_chunk`), and 16 <= GRAIN.
            let c = unsafe { route::alloc_fast::<TlsHeap, false>(csz, Mode::Recycle) };
            if !c.is_null() {
                // SAFETY: c is a fresh chunk of csz >= n + HDR bytes, 8 bytes past a
                // multiple of 16 (the heap's phase), so c + HDR is 16-aligned.
                return unsafe { finish(c, HDR, csz, false) };
            }
        }
    }
    malloc_general(n)
}

/// `malloc` by the general route: any mode and size, the heap's slow path, the fallback.
/// (`extern "C"`, like the exported `malloc` that ends in it: the call is then a jump,
/// and the fast path keeps the stack as it found it.)
#[inline(never)]
extern "C" fn malloc_general(n: usize) -> *mut u8 {
    let mode = mode();
    let p = zoned::<false>(n, mode);
    if !p.is_null() {
        return p;
    }
    if let Some((c, csz)) = chunk_total(n, HDR).and_then(|t| region_chunk::<false>(t, 16, mode)) {
        // SAFETY: c is a fresh chunk of csz >= n + HDR bytes, 8 bytes past a multiple of
        // 16 (the heap's phase), so c + HDR is 16-aligned.
        return unsafe { finish(c, HDR, csz, false) };
    }
    fallback(n, 16, false)
}

/// Writes the header of a region chunk and returns the caller's pointer. For a memory
/// checker, everything before the pointer stays closed to the program and the block
/// (zeroed or not) is a heap block.
///
/// # Safety
/// `c` is a fresh region chunk of `csz` bytes; `HDR <= offset < csz`, and `c + offset` is
/// aligned as the caller needs.
#[inline(always)]
unsafe fn finish(c: *mut u8, offset: usize, csz: usize, zeroed: bool) -> *mut u8 {
    // SAFETY: offset < csz (callers add offset to the payload size before rounding).
    let p = unsafe { c.add(offset) };
    shadow::no_access(c, offset);
    // SAFETY: p - HDR .. p lies in the chunk (offset >= HDR); p is aligned; the offset is
    // at most MAX_ALIGN and the chunk at most the region.
    unsafe { header::write(p, offset, csz - offset) };
    shadow::block_allocated(p, csz - offset, zeroed);
    p
}

/// Allocates from glibc with our header in front: `n` bytes aligned to `align` (a power
/// of two >= 16), zeroed if asked.
#[cold]
#[inline(never)]
fn fallback(n: usize, align: usize, zero: bool) -> *mut u8 {
    let Some(total) = n.checked_add(align) else {
        return out_of_memory();
    };
    // SAFETY: glibc's own entry points; they do not call back into us.
    let raw = unsafe {
        if align <= 16 {
            if zero {
                __libc_calloc(1, total)
            } else {
                __libc_malloc(total)
            }
        } else {
            __libc_memalign(align, total)
        }
    }
    .cast::<u8>();
    if raw.is_null() {
        return out_of_memory();
    }
    // SAFETY: raw has total = n + align bytes; p = raw + align leaves align >= 16 header bytes.
    let p = unsafe { raw.add(align) };
    if zero && align > 16 {
        // SAFETY: p..p+n is inside the block.
        unsafe { p.write_bytes(0, n) };
    }
    // SAFETY: p-16..p is inside the block (align >= 16); p is 16-aligned.
    unsafe { header::write_fallback(p, align, n) };
    region::note_fallback_alloc(n);
    p
}

/// `free`.
///
/// # Safety
/// `p` is null or a live block from this library (or from glibc before us), not used after.
#[inline(always)]
pub unsafe fn free(p: *mut u8) {
    if p.is_null() {
        return;
    }
    match region::place(p) {
        Place::Main => {
            // SAFETY: a live block of the main span has our header.
            let Header { offset, usable } = unsafe { header::read(p) };
            shadow::block_freed(p);
            let mode = mode_of_region_block();
            // SAFETY: the chunk starts `offset` bytes before p and is offset + usable bytes
            // long (its chunk size); the caller gives it up.
            unsafe { route::free::<TlsHeap>(p.sub(offset), offset + usable, mode) };
        }
        Place::Zone(k) => {
            shadow::block_freed(p);
            // SAFETY: p is a live bare chunk of zone k (zone chunks are handed out bare and
            // start at multiples of 16); the caller gives it up; freeing allocates nothing.
            unsafe { TlsHeap::with_heap(|h| h.free_zoned(p, k)) };
        }
        // SAFETY: forwarded caller contract.
        Place::Outside => unsafe { free_outside(p) },
    }
}

/// The header of region block `p`, or `None` for a block outside the region. A zone's
/// block has none written: it is a bare chunk of the zone's size (the heap's invariant
/// for zones), so its header is known from the address, without reading the word in
/// front of it, which often lies in another cache line, cold: under python3's workload
/// (`bench/py_workload.py`) that read was most of `free`'s cache misses.
///
/// # Safety
/// `p` is a live block from this library (or from glibc).
#[inline(always)]
unsafe fn region_block(p: *mut u8) -> Option<Header> {
    match region::place(p) {
        // SAFETY: a live block of the main span has our header.
        Place::Main => Some(unsafe { header::read(p) }),
        // A bare zone chunk.
        Place::Zone(k) => Some(Header { offset: 0, usable: zone_size(k) }),
        Place::Outside => None,
    }
}

/// Frees a block outside the region.
///
/// # Safety
/// As [`free`], with `p` non-null and outside the region.
#[cold]
unsafe fn free_outside(p: *mut u8) {
    // SAFETY: p is a live fallback or glibc block.
    match unsafe { header::read_fallback(p) } {
        Some(h) => {
            region::note_fallback_free(h.usable);
            // SAFETY: our fallback block starts `offset` bytes before p, from __libc_*.
            unsafe { __libc_free(p.sub(h.offset).cast()) };
        }
        // SAFETY: a block glibc made on its own.
        None => unsafe { __libc_free(p.cast()) },
    }
}

/// `calloc`.
#[inline]
pub fn calloc(n: usize, size: usize) -> *mut u8 {
    let Some(bytes) = n.checked_mul(size) else {
        return out_of_memory();
    };
    let mode = mode();
    let p = zoned::<true>(bytes, mode);
    if !p.is_null() {
        return p;
    }
    if let Some((c, csz)) = chunk_total(bytes, HDR).and_then(|t| region_chunk::<true>(t, 16, mode)) {
        // SAFETY: c is a fresh zeroed chunk of csz >= bytes + HDR bytes, at the heap's phase.
        return unsafe { finish(c, HDR, csz, true) };
    }
    fallback(bytes, 16, true)
}

/// `realloc` (glibc semantics: null `p` is `malloc`, size 0 frees and returns null).
///
/// # Safety
/// `p` is null or a live block from this library (or glibc), not used after success.
pub unsafe fn realloc(p: *mut u8, n: usize) -> *mut u8 {
    if p.is_null() {
        return malloc(n);
    }
    if n == 0 {
        // SAFETY: forwarded caller contract.
        unsafe { free(p) };
        return ptr::null_mut();
    }
    let usable;
    // SAFETY: p is a live block from this library or glibc.
    if let Some(h) = unsafe { region_block(p) } {
        usable = h.usable;
        let mode = mode_of_region_block();
        // A zone chunk (offset 0; a block with a header has at least HDR) keeps a block
        // that still fits and would not fit the next zone down; otherwise it moves.
        if h.offset == 0 && n <= usable && n + 16 > usable {
            return p;
        }
        if h.offset == HDR {
            if let Some(new) = n.checked_add(HDR).and_then(|t| chunk_size(t, 16, mode)) {
                let old = usable + HDR;
                // SAFETY: the chunk p-HDR of `old` bytes is live, from a request aligned to 16
                // as `new` is for.
                match unsafe { route::resize::<TlsHeap>(p.sub(HDR), old, new, mode) } {
                    Resize::Same => return p,
                    Resize::InPlace => {
                        // SAFETY: the header is ours; the chunk is now `new` bytes.
                        unsafe { header::write(p, HDR, new - HDR) };
                        shadow::block_resized(p, usable, new - HDR);
                        return p;
                    }
                    // The header keeps the whole size, so `free` returns the whole chunk.
                    Resize::Refused if new < old && (mode == Mode::Bump || n >= usable / 2) => return p,
                    Resize::Refused => {}
                }
            }
        }
    } else {
        // SAFETY: p is a live fallback or glibc block.
        match unsafe { header::read_fallback(p) } {
            Some(h) if h.offset == FALLBACK_HDR => {
                let Some(total) = n.checked_add(FALLBACK_HDR) else {
                    return out_of_memory();
                };
                // SAFETY: our 16-aligned fallback block starts at p - FALLBACK_HDR, from
                // __libc_malloc.
                let raw = unsafe { __libc_realloc(p.sub(FALLBACK_HDR).cast(), total) }.cast::<u8>();
                if raw.is_null() {
                    return out_of_memory();
                }
                region::note_fallback_free(h.usable);
                region::note_fallback_alloc(n);
                // SAFETY: raw has n + FALLBACK_HDR bytes; glibc copied our header too.
                let q = unsafe { raw.add(FALLBACK_HDR) };
                // SAFETY: the header is inside the new block; q is 16-aligned.
                unsafe { header::write_fallback(q, FALLBACK_HDR, n) };
                return q;
            }
            Some(h) => usable = h.usable,
            // SAFETY: a block glibc made on its own stays with glibc.
            None => return unsafe { __libc_realloc(p.cast(), n) }.cast(),
        }
    }
    // A block of at least GROW_MIN bytes that grows by less than a quarter is taken to be
    // growing step by step (an array or a string being filled): it gets a quarter more,
    // so it moves through every other size class rather than every one. (No overflow:
    // `usable` is the size of a live block, at most isize::MAX.)
    let want = if n > usable && n - usable < usable / 4 && usable >= GROW_MIN { usable + usable / 4 } else { n };
    let alloc = || match malloc(want) {
        q if q.is_null() && want != n => malloc(n),
        q => q,
    };
    // SAFETY: `p` is live with `usable` bytes, `alloc` returns null or a fresh block of at
    // least `want >= n` bytes; the caller gives `p` up on success, when `free` gets it.
    unsafe { route::move_block(p, usable, n, alloc, |p| free(p)) }
}

/// The smallest block [`realloc`] grows by a quarter when it moves (see there). Each
/// move leaves the old block on its class's free list, where a growing array will not
/// want it again: python3's twelve tag lists (`bench/py_workload.py`), grown by ~12.5%
/// a step through eight classes per doubling, left a block in every class, and the
/// workload run three times in one process peaked at 253 MiB (238 with this; glibc 212).
const GROW_MIN: usize = 1024;

/// `reallocarray`: `realloc(p, n * size)` with overflow checked (ENOMEM, `p` untouched).
///
/// # Safety
/// As [`realloc`].
pub unsafe fn reallocarray(p: *mut u8, n: usize, size: usize) -> *mut u8 {
    match n.checked_mul(size) {
        // SAFETY: forwarded caller contract.
        Some(bytes) => unsafe { realloc(p, bytes) },
        None => out_of_memory(),
    }
}

/// `n` bytes aligned to `align`, a power of two.
pub fn aligned(align: usize, n: usize) -> *mut u8 {
    debug_assert!(align.is_power_of_two());
    if align <= 16 {
        return malloc(n);
    }
    let mode = mode();
    if align <= MAX_ALIGN {
        // Any chunk will do, so it comes from the free lists like any other: the caller's
        // pointer is the first `align`-aligned address at least HDR bytes in, which is
        // less than `align` bytes in (c + HDR is 16-aligned). Asking the heap for an
        // aligned chunk instead made these requests skip the lists their blocks were
        // freed to.
        if let Some((c, csz)) = chunk_total(n, align).and_then(|t| region_chunk::<false>(t, 16, mode)) {
            let offset = (c.addr() + HDR).next_multiple_of(align) - c.addr();
            // SAFETY: c is a chunk of csz >= n + align bytes, n >= 1 counted
            // (`chunk_total`), and HDR <= offset < align, so HDR <= offset < csz and
            // c + offset is aligned to `align`.
            return unsafe { finish(c, offset, csz, false) };
        }
    }
    fallback(n, align, false)
}

/// `memalign`: glibc semantics, a non-power-of-two alignment is rounded up.
pub fn memalign(align: usize, n: usize) -> *mut u8 {
    match align.checked_next_power_of_two() {
        Some(align) => aligned(align, n),
        None => {
            set_errno(libc::EINVAL);
            ptr::null_mut()
        }
    }
}

/// `aligned_alloc`: the alignment must be a power of two (else EINVAL).
pub fn aligned_alloc(align: usize, n: usize) -> *mut u8 {
    if !align.is_power_of_two() {
        set_errno(libc::EINVAL);
        return ptr::null_mut();
    }
    aligned(align, n)
}

/// `posix_memalign`: returns 0, EINVAL (bad alignment) or ENOMEM; `*out` set only on 0.
///
/// # Safety
/// `out` is valid for a pointer write.
pub unsafe fn posix_memalign(out: *mut *mut c_void, align: usize, n: usize) -> i32 {
    if !align.is_power_of_two() || align % size_of::<usize>() != 0 {
        return libc::EINVAL;
    }
    let p = aligned(align, n);
    if p.is_null() {
        return libc::ENOMEM;
    }
    // SAFETY: caller guarantees `out` is writable.
    unsafe { out.write(p.cast()) };
    0
}

/// `valloc`: page-aligned.
pub fn valloc(n: usize) -> *mut u8 {
    aligned(region::PAGE, n)
}

/// `pvalloc`: page-aligned, size rounded up to whole pages (at least one).
pub fn pvalloc(n: usize) -> *mut u8 {
    match bumpdown_global::classes::checked_round_up(n.max(1), region::PAGE) {
        Some(n) => aligned(region::PAGE, n),
        None => out_of_memory(),
    }
}

/// `malloc_usable_size`.
///
/// # Safety
/// `p` is null or a live block from this library (or glibc).
pub unsafe fn malloc_usable_size(p: *mut u8) -> usize {
    if p.is_null() {
        return 0;
    }
    // SAFETY: p is a live block from this library or glibc.
    if let Some(h) = unsafe { region_block(p) } {
        return h.usable;
    }
    // SAFETY: live fallback or glibc block.
    match unsafe { header::read_fallback(p) } {
        Some(h) => h.usable,
        // SAFETY: a live glibc block.
        None => unsafe { header::glibc_usable(p) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_chunk_is_the_general_routes_chunk() {
        for n in 0..=FAST_MAX {
            let general = chunk_total(n, HDR).and_then(|t| route::chunk_for(t, 16, Mode::Recycle));
            assert_eq!(Some(fast_chunk(n)), general, "malloc({n})");
        }
        // The next size is past the 16-byte classes: the fast path must not take it.
        assert!(route::chunk_for(FAST_MAX + 1 + HDR, 16, Mode::Recycle).is_some_and(|c| c > 1024));
    }
}
