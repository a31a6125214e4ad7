//! Walking what an arena holds: the used part of each chunk, for code that inspects or
//! copies an arena's contents wholesale (bumpalo's `iter_allocated_chunks`).

use core::marker::PhantomData;
use core::mem::MaybeUninit;

use crate::backing::BackingAllocator;
use crate::chunk::Chunk;

use super::Arena;

impl<const MIN_ALIGN: usize, A: BackingAllocator> Arena<MIN_ALIGN, A> {
    /// The bytes in use in each chunk: the chunk being filled first, then the chunks
    /// filled before it (newest first), then the chunks of out-of-band allocations. In a
    /// chunk the oldest allocation comes first (the arena fills upwards; bumpalo, which
    /// fills downwards, yields the newest first). The bytes include alignment padding, so
    /// they are `MaybeUninit`. `&mut self`: no allocation is borrowed while the slices
    /// are.
    ///
    /// ```
    /// let mut arena = bumpdown::Arena::new();
    /// arena.alloc_str("hello ");
    /// arena.alloc_str("world");
    /// let bytes: Vec<u8> = arena
    ///     .iter_allocated_chunks()
    ///     .flatten()
    ///     // SAFETY: only strings were allocated, with no padding between them.
    ///     .map(|b| unsafe { b.assume_init() })
    ///     .collect();
    /// assert_eq!(bytes, b"hello world");
    /// ```
    pub fn iter_allocated_chunks(&mut self) -> AllocatedChunks<'_> {
        AllocatedChunks { raw: self.walk(), _arena: PhantomData }
    }

    /// Like [`iter_allocated_chunks`](Arena::iter_allocated_chunks), from `&self`: each
    /// item is the start and length of a chunk's used bytes.
    ///
    /// # Safety
    /// Nothing allocates from the arena, resets it or frees from it while the iterator
    /// is in use; the caller reads the bytes only where no live reference into the arena
    /// says otherwise (a `&mut` handed out earlier may be writing them).
    pub unsafe fn iter_allocated_chunks_raw(&self) -> AllocatedChunksRaw<'_> {
        AllocatedChunksRaw { raw: self.walk(), _arena: PhantomData }
    }

    fn walk(&self) -> Walk {
        match self.state() {
            Some(state) => {
                Walk { regular: state.current.get(), ptr: Some(self.ptr.get().addr()), big: state.big.get() }
            }
            // Never allocated: nothing to walk.
            None => Walk { regular: None, ptr: None, big: None },
        }
    }
}

/// Where a walk over the used chunks stands.
struct Walk {
    /// The next regular chunk to yield (along `prev` from the current one).
    regular: Option<Chunk>,
    /// The bump pointer of the current chunk, until that chunk is yielded.
    ptr: Option<usize>,
    /// The next out-of-band chunk to yield.
    big: Option<Chunk>,
}

impl Walk {
    /// The next chunk's used bytes: a pointer with the chunk's provenance, and a length.
    fn next(&mut self) -> Option<(*mut u8, usize)> {
        let (chunk, low, high) = if let Some(chunk) = self.regular {
            self.regular = chunk.prev();
            // Filled upwards from the bottom: up to the current chunk's own bump
            // pointer; the others saved theirs.
            (chunk, chunk.bottom_addr(), self.ptr.take().unwrap_or_else(|| chunk.saved_ptr()))
        } else {
            // One allocation, from its start to the chunk's end.
            let chunk = self.big?;
            self.big = chunk.prev();
            (chunk, chunk.saved_ptr(), chunk.end_addr())
        };
        Some((chunk.ptr_at(low), high - low))
    }
}

/// The iterator of [`Arena::iter_allocated_chunks`].
pub struct AllocatedChunks<'a> {
    raw: Walk,
    _arena: PhantomData<&'a mut ()>,
}

impl<'a> Iterator for AllocatedChunks<'a> {
    type Item = &'a [MaybeUninit<u8>];

    fn next(&mut self) -> Option<Self::Item> {
        let (ptr, len) = self.raw.next()?;
        // SAFETY: `ptr..ptr + len` is the used part of a chunk the arena holds (chunk
        // invariants), readable as bytes that may be uninitialized; the arena is borrowed
        // mutably for `'a`, so nothing else reads, writes or frees them meanwhile.
        Some(unsafe { core::slice::from_raw_parts(ptr.cast::<MaybeUninit<u8>>(), len) })
    }
}

/// The iterator of [`Arena::iter_allocated_chunks_raw`].
pub struct AllocatedChunksRaw<'a> {
    raw: Walk,
    _arena: PhantomData<&'a ()>,
}

impl Iterator for AllocatedChunksRaw<'_> {
    type Item = (*mut u8, usize);

    fn next(&mut self) -> Option<Self::Item> {
        self.raw.next()
    }
}
