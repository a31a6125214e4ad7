//! Chunks: the blocks an arena takes from its backing allocator.
//!
//! A chunk is one block from the backing allocator with a [`ChunkHeader`] at its low
//! end; the rest, up to the block's end, is the chunk's usable range. A regular chunk is
//! filled upwards from its bottom; an out-of-band chunk holds one allocation at its high
//! end.
//!
//! ```text
//!  base                bottom                             ptr            end
//!   | ChunkHeader | pad | allocated (oldest ... newest) |      free      |
//! ```

use core::alloc::Layout;
use core::mem::{align_of, size_of};
use core::ptr::{self, NonNull};

use crate::backing::BackingAllocator;
use crate::bumping::{CHUNK_ALIGN, MIN_BOTTOM};

/// The header at the low end of every chunk.
///
/// INVARIANT (for every chunk an arena holds):
/// * the block starts at the header and is `size` bytes long, allocated from the
///   arena's backing allocator with `Layout::from_size_align(size, CHUNK_ALIGN)` —
///   except the one chunk a `BufferArena` makes of the caller's buffer
///   (`Chunk::in_buffer`, recorded in `Arena::borrowed`), which is never freed;
/// * `size` is a multiple of `CHUNK_ALIGN` and at least `HEADER_SIZE`;
/// * a regular chunk is in the arena's chunk list: `prev` and `next` link it to the
///   chunks filled before and after it (null at the list's ends); an out-of-band chunk
///   is in the `big` list, linked by `prev` alone (`next` is null);
/// * while the chunk is not the arena's current chunk, `saved_ptr` is the address its
///   bump pointer had (`bottom() <= saved_ptr <= end()`: its used part ends there); for
///   an out-of-band chunk it is the address of its single allocation, which uses the
///   bytes from there to `end()`;
/// * `serial` is the arena's `epoch` just after the chunk was made current (a regular
///   chunk) or made (an out-of-band chunk): serials decrease along the `big` list and
///   along the `prev` chain of the current chunk;
/// * `used_before` (regular chunks) is the bytes in use in the chunks before it in the
///   list when it was made current, which a rewind to a position in it restores.
///
/// (A spare chunk's `saved_ptr`, `serial` and `used_before` are stale; they are set
/// when it becomes current.)
#[repr(C, align(16))]
pub(crate) struct ChunkHeader {
    pub(crate) prev: *mut ChunkHeader,
    pub(crate) next: *mut ChunkHeader,
    pub(crate) size: usize,
    pub(crate) saved_ptr: usize,
    pub(crate) serial: u64,
    pub(crate) used_before: usize,
}

impl ChunkHeader {
    /// The header of a new chunk of `size` bytes, in no list.
    const fn unlinked(size: usize) -> Self {
        ChunkHeader { prev: ptr::null_mut(), next: ptr::null_mut(), size, saved_ptr: 0, serial: 0, used_before: 0 }
    }
}

pub(crate) const HEADER_SIZE: usize = size_of::<ChunkHeader>();

/// Where a chunk's usable part starts: on a cache line. An arena fills a chunk upwards
/// from there, so blocks whose sizes are multiples of 64 bytes stay line-aligned, and
/// copies into them never split a store across two lines. Measured (report, warm
/// tables, 2-core AMD EPYC VM): `alloc_slice_copy` of 256 bytes took 7.0 ns with the
/// part starting 48 bytes after a line (a 16-aligned block plus the 48-byte header)
/// and 4.4 ns line-aligned; 128 bytes 4.1 against 3.5 ns. It costs at most
/// `DATA_ALIGN - CHUNK_ALIGN` = 48 bytes per chunk, and nothing when the block starts
/// 16 bytes after a line, as glibc's large blocks do.
pub(crate) const DATA_ALIGN: usize = 64;

/// The start of the usable part of a chunk at `base` (before the `MIN_BOTTOM` clip).
fn usable_start(base: usize) -> usize {
    crate::bumping::round_up(base + HEADER_SIZE, DATA_ALIGN)
}
const _: () = assert!(HEADER_SIZE % CHUNK_ALIGN == 0 && align_of::<ChunkHeader>() == CHUNK_ALIGN);
const _: () = assert!(HEADER_SIZE == 48, "the header changed size: chunk capacities in docs and tests assume 48 bytes");

/// A chunk, seen from the arena: a pointer to its header, with the provenance of the
/// whole block (every pointer into the chunk is derived from it).
///
/// `Copy`, so that the arena's lists can live in `Cell`s: a `Chunk` is a handle, not an
/// owner. Copies stay valid until the block is freed; `free` is `unsafe` because its
/// caller must make sure that no copy is used after it (the arena unlinks a chunk from
/// every list before freeing it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Chunk(pub(crate) NonNull<ChunkHeader>);

impl Chunk {
    /// Allocates a chunk of `size` bytes (a multiple of `CHUNK_ALIGN`, at least
    /// `HEADER_SIZE`) and writes its header.
    pub(crate) fn allocate<A: BackingAllocator>(alloc: &A, size: usize) -> Option<Chunk> {
        debug_assert!(size % CHUNK_ALIGN == 0 && size >= HEADER_SIZE);
        let layout = Layout::from_size_align(size, CHUNK_ALIGN).ok()?;
        let base = alloc.allocate(layout)?.cast::<ChunkHeader>();
        let chunk = Chunk(base);
        // SAFETY: the block is valid for `size >= HEADER_SIZE` bytes and aligned to
        // CHUNK_ALIGN, the header's alignment.
        unsafe { base.as_ptr().write(ChunkHeader::unlinked(size)) };
        // A chunk starts empty.
        chunk.set_saved_ptr(chunk.bottom_addr());
        Some(chunk)
    }

    /// Makes a chunk of the caller's memory at `base` (aligned to CHUNK_ALIGN, valid for
    /// `size` bytes, a multiple of CHUNK_ALIGN and at least HEADER_SIZE).
    ///
    /// # Safety
    /// The memory is valid for reads and writes and not otherwise used for as long as the
    /// chunk is; it must never be passed to `free`.
    pub(crate) unsafe fn in_buffer(base: NonNull<u8>, size: usize) -> Chunk {
        debug_assert!(size % CHUNK_ALIGN == 0 && size >= HEADER_SIZE && base.as_ptr().addr() % CHUNK_ALIGN == 0);
        let base = base.cast::<ChunkHeader>();
        // SAFETY: the caller promises `size >= HEADER_SIZE` valid, aligned bytes.
        unsafe { base.as_ptr().write(ChunkHeader::unlinked(size)) };
        let chunk = Chunk(base);
        chunk.set_saved_ptr(chunk.bottom_addr());
        chunk
    }

    /// Returns the chunk's block to the backing allocator.
    ///
    /// # Safety
    /// The chunk came from [`Chunk::allocate`] on `alloc`; neither it nor any copy of it
    /// is used again, and no reference into it is live.
    pub(crate) unsafe fn free<A: BackingAllocator>(self, alloc: &A) {
        let size = self.size();
        // SAFETY: `size` is the size it was allocated with (header invariant), so this is
        // the layout `allocate` used, which was valid then.
        let layout = unsafe { Layout::from_size_align_unchecked(size, CHUNK_ALIGN) };
        // SAFETY: the caller promises the block came from `alloc` and is no longer used.
        unsafe { alloc.deallocate(self.0.cast(), layout) }
    }

    #[inline]
    fn header(&self) -> &ChunkHeader {
        // SAFETY: a `Chunk` in use points at an initialized header of a live block:
        // only `free` ends the block, and its caller promises that no copy of the
        // `Chunk` is used afterwards.
        unsafe { self.0.as_ref() }
    }

    /// The whole block's size in bytes, header included.
    #[inline]
    pub(crate) fn size(&self) -> usize {
        self.header().size
    }

    #[inline]
    pub(crate) fn prev(&self) -> Option<Chunk> {
        NonNull::new(self.header().prev).map(Chunk)
    }

    #[inline]
    pub(crate) fn set_prev(&self, prev: Option<Chunk>) {
        let prev = prev.map_or(ptr::null_mut(), |c| c.0.as_ptr());
        // SAFETY: the header is live (see `header`); the arena that owns the chunk has
        // no reference to the header alive while it writes.
        unsafe { (*self.0.as_ptr()).prev = prev }
    }

    #[inline]
    pub(crate) fn next(&self) -> Option<Chunk> {
        NonNull::new(self.header().next).map(Chunk)
    }

    #[inline]
    pub(crate) fn set_next(&self, next: Option<Chunk>) {
        let next = next.map_or(ptr::null_mut(), |c| c.0.as_ptr());
        // SAFETY: as in `set_prev`.
        unsafe { (*self.0.as_ptr()).next = next }
    }

    /// See `ChunkHeader::used_before`.
    #[inline]
    pub(crate) fn used_before(&self) -> usize {
        self.header().used_before
    }

    #[inline]
    pub(crate) fn set_used_before(&self, used: usize) {
        // SAFETY: as in `set_prev`.
        unsafe { (*self.0.as_ptr()).used_before = used }
    }

    #[inline]
    pub(crate) fn saved_ptr(&self) -> usize {
        self.header().saved_ptr
    }

    #[inline]
    pub(crate) fn set_saved_ptr(&self, ptr: usize) {
        // SAFETY: as in `set_prev`.
        unsafe { (*self.0.as_ptr()).saved_ptr = ptr }
    }

    /// See `ChunkHeader::serial`.
    #[inline]
    pub(crate) fn serial(&self) -> u64 {
        self.header().serial
    }

    #[inline]
    pub(crate) fn set_serial(&self, serial: u64) {
        // SAFETY: as in `set_prev`.
        unsafe { (*self.0.as_ptr()).serial = serial }
    }

    #[inline]
    pub(crate) fn base_addr(&self) -> usize {
        self.0.as_ptr().addr()
    }

    #[inline]
    pub(crate) fn end_addr(&self) -> usize {
        self.base_addr() + self.size()
    }

    /// The lowest usable address: after the header, on a cache line (`DATA_ALIGN`), and
    /// never below `MIN_BOTTOM`
    /// (see `bumping`). A chunk that ends below `MIN_BOTTOM` has no usable bytes.
    #[inline]
    pub(crate) fn bottom_addr(&self) -> usize {
        self.bottom_addr_for_end(self.end_addr())
    }

    /// [`bottom_addr`](Chunk::bottom_addr), given the chunk's `end_addr` (read elsewhere).
    #[inline]
    pub(crate) fn bottom_addr_for_end(&self, end: usize) -> usize {
        debug_assert_eq!(end, self.end_addr());
        usable_start(self.base_addr()).max(MIN_BOTTOM).min(end)
    }

    /// Usable bytes, `bottom..end`.
    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.end_addr() - self.bottom_addr()
    }

    /// A pointer into this chunk at `addr`, carrying the chunk's provenance.
    #[inline]
    pub(crate) fn ptr_at(&self, addr: usize) -> *mut u8 {
        debug_assert!(self.base_addr() <= addr && addr <= self.end_addr());
        self.0.as_ptr().cast::<u8>().with_addr(addr)
    }
}

/// The smallest chunk size that holds `size` bytes aligned to `align`, whatever address
/// the block lands at, or `None` on overflow.
pub(crate) fn chunk_size_for(size: usize, align: usize) -> Option<usize> {
    // The header, the padding to a cache line after it (a block is only CHUNK_ALIGN-aligned),
    // and padding for alignments above CHUNK_ALIGN. (A block that lands below MIN_BOTTOM,
    // which never happens on hosted systems, may still be too small: the slow path then
    // reports OutOfMemory.)
    let extra = HEADER_SIZE + (DATA_ALIGN - CHUNK_ALIGN) + if align > CHUNK_ALIGN { align } else { 0 };
    let total = size.checked_add(extra)?.checked_add(CHUNK_ALIGN - 1)?;
    let total = total & !(CHUNK_ALIGN - 1);
    // Layout::from_size_align rejects anything above isize::MAX.
    (total <= isize::MAX as usize).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_sizes_hold_the_request_and_the_header() {
        // The header and the padding to a cache line after it.
        const FIXED: usize = HEADER_SIZE + DATA_ALIGN - CHUNK_ALIGN;
        assert_eq!(chunk_size_for(0, 1), Some(FIXED));
        assert_eq!(chunk_size_for(1, 1), Some(FIXED + CHUNK_ALIGN));
        assert_eq!(chunk_size_for(100, 8), Some(FIXED + 112));
        // Alignments above CHUNK_ALIGN add room to align within the block.
        assert_eq!(chunk_size_for(64, 64), Some(FIXED + 64 + 64));
        for (size, align) in [(1, 1), (17, 16), (4000, 4096), (12345, 32)] {
            let total = chunk_size_for(size, align).unwrap();
            assert_eq!(total % CHUNK_ALIGN, 0);
            // Wherever a CHUNK_ALIGN-aligned block lands, the request fits above the header.
            for base in (4096..4096 + 4096).step_by(CHUNK_ALIGN) {
                let end = base + total;
                // Upwards from the bottom (a regular chunk), and downwards from the end
                // (an out-of-band chunk).
                let start = usable_start(base);
                assert!(start % DATA_ALIGN == 0 && start - base - HEADER_SIZE < DATA_ALIGN);
                let up = crate::bumping::bump_up(start, end, size, align, 1);
                assert!(up.is_some(), "{size} {align} at {base:#x}");
                let down = crate::bumping::bump_checked(end, start, size, align, 1);
                assert!(down.is_some(), "{size} {align} at {base:#x}");
            }
        }
    }

    #[test]
    fn impossible_chunk_sizes_are_none() {
        assert_eq!(chunk_size_for(usize::MAX, 1), None);
        assert_eq!(chunk_size_for(isize::MAX as usize, 1), None);
        assert_eq!(chunk_size_for(isize::MAX as usize - HEADER_SIZE - 100, 1 << 20), None);
    }
}
