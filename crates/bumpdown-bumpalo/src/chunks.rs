//! bumpalo's chunk iterators, [`ChunkIter`] and [`ChunkRawIter`]: bumpdown's
//! [`AllocatedChunks`] and [`AllocatedChunksRaw`] under bumpalo's names and type
//! parameters (`MIN_ALIGN` included, so `ChunkIter<'_, 8>` names the iterator of a
//! `Bump<8>`).

use core::fmt;
use core::iter::{Fuse, FusedIterator};
use core::mem::MaybeUninit;

use bumpdown::{AllocatedChunks, AllocatedChunksRaw};

/// The iterator of [`Bump::iter_allocated_chunks`](crate::Bump::iter_allocated_chunks):
/// each chunk's used bytes, newest chunk first as in bumpalo, but oldest allocation
/// first within a chunk (bumpalo: newest first; bumpdown fills chunks upwards; see
/// MIGRATING.md).
///
/// ```
/// let mut bump = bumpdown_bumpalo::Bump::new();
/// bump.alloc(7u8);
/// let chunks: Vec<_> = bump.iter_allocated_chunks().collect();
/// // SAFETY: one `u8` was allocated, so the chunk's one used byte is initialized.
/// assert_eq!(unsafe { chunks[0][0].assume_init() }, 7);
/// ```
pub struct ChunkIter<'a, const MIN_ALIGN: usize = 1> {
    pub(crate) inner: Fuse<AllocatedChunks<'a>>,
}

impl<'a, const MIN_ALIGN: usize> Iterator for ChunkIter<'a, MIN_ALIGN> {
    type Item = &'a [MaybeUninit<u8>];

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next()
    }
}

impl<const MIN_ALIGN: usize> FusedIterator for ChunkIter<'_, MIN_ALIGN> {}

impl<const MIN_ALIGN: usize> fmt::Debug for ChunkIter<'_, MIN_ALIGN> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkIter").finish_non_exhaustive()
    }
}

/// The iterator of [`Bump::iter_allocated_chunks_raw`](crate::Bump::iter_allocated_chunks_raw):
/// the start and length of each chunk's used bytes, in [`ChunkIter`]'s order.
pub struct ChunkRawIter<'a, const MIN_ALIGN: usize = 1> {
    pub(crate) inner: Fuse<AllocatedChunksRaw<'a>>,
}

impl<const MIN_ALIGN: usize> Iterator for ChunkRawIter<'_, MIN_ALIGN> {
    type Item = (*mut u8, usize);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next()
    }
}

impl<const MIN_ALIGN: usize> FusedIterator for ChunkRawIter<'_, MIN_ALIGN> {}

impl<const MIN_ALIGN: usize> fmt::Debug for ChunkRawIter<'_, MIN_ALIGN> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkRawIter").finish_non_exhaustive()
    }
}
