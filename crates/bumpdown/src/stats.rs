//! A snapshot of an arena's memory use.

/// What [`Arena::stats`](crate::Arena::stats) reports.
///
/// `used` counts the bytes below the bump pointers: allocations and the alignment
/// padding between them (counting padding separately would cost the fast path an
/// instruction). `wasted` is the unused space left at the bottom of chunks the arena
/// moved past because a request did not fit.
///
/// ```
/// let arena = bumpdown::Arena::new();
/// arena.alloc(1u8);
/// arena.alloc(2u64); // 7 bytes of padding above it: 1 + 7 + 8 = 16
/// let stats = arena.stats();
/// assert_eq!(stats.used, 16);
/// assert!(stats.capacity >= stats.used);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Chunks held: in use, kept for reuse, and out of band.
    pub chunks: usize,
    /// Of those, out-of-band chunks (one big allocation each).
    pub big_chunks: usize,
    /// Of those, empty chunks kept by `reset` for reuse.
    pub spare_chunks: usize,
    /// Usable bytes of all chunks held (what `allocated_bytes` returns).
    pub capacity: usize,
    /// Bytes held from the backing allocator, chunk headers included.
    pub held_bytes: usize,
    /// Bytes in use: allocations and their padding.
    pub used: usize,
    /// Unused bytes left behind in chunks the arena has moved past.
    pub wasted: usize,
    /// The most bytes in use at any moment since the arena was made (checked whenever
    /// memory is given back, so it is exact).
    pub peak_used: usize,
}
