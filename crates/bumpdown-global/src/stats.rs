//! Counters a program can read about the allocator.

use core::sync::atomic::Ordering;

use crate::region;

/// A snapshot of the allocator's counters (process-wide).
///
/// ```
/// let s = bumpdown_global::stats();
/// assert!(s.used <= s.reserved || s.reserved == 0);
/// assert!(s.peak >= s.used);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Bytes of address space reserved (0 until the first allocation, or if `mmap` failed).
    pub reserved: usize,
    /// Bytes of the reservation handed to thread windows. The region returns nothing to
    /// the OS, so this never decreases; freed blocks are reused inside it.
    pub used: usize,
    /// The largest `used` plus bytes live in the fallback allocator seen so far.
    pub peak: usize,
    /// Allocations served outside the region: blocks over 256 KiB (each by a mapping of
    /// its own), and by the system allocator those too aligned, or too many for an
    /// exhausted reservation.
    pub fallbacks: usize,
    /// Bytes live in the fallback allocator now.
    pub fallback_live: usize,
}

/// Reads the counters. Cheap (a few relaxed loads); values from different threads may
/// be a little stale.
pub fn stats() -> Stats {
    let used = region::used();
    let fallback_live = region::FALLBACK_LIVE.load(Ordering::Relaxed);
    Stats {
        reserved: region::reserved(),
        used,
        peak: region::PEAK.load(Ordering::Relaxed).max(used + fallback_live),
        fallbacks: region::FALLBACKS.load(Ordering::Relaxed),
        fallback_live,
    }
}
