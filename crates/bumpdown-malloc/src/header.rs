//! The bytes in front of every block this library returns.
//!
//! A **region** block has one word in front of it, the last 8 bytes of its chunk's
//! start: the heap hands this library chunks that start 8 bytes past a multiple of 16
//! (`bumpdown_global::heap::PHASE_HEADER`), so the block after the word is 16-aligned.
//! Except a block of up to 256 bytes in recycling mode: a bare chunk of one of the
//! region's zones (`bumpdown_global::region::Place::Zone`), where all chunks have one
//! size, so its size is known from its address (`malloc::region_block`).
//!
//! ```text
//!   p - 8: offset << 48 | usable   offset: distance from the chunk start to p (8 for a
//!                                  plain block, more for an over-aligned one);
//!                                  usable: bytes the caller may use from p
//!   p    : the caller's bytes (16-aligned, or aligned as requested)
//! ```
//!
//! A **fallback** block (from glibc, with our header) has two words, as a glibc block
//! has 16 bytes in front of it:
//!
//! ```text
//!   p - 16: FALLBACK_TAG | offset  distance from the start of the glibc block to p
//!   p -  8: usable
//! ```
//!
//! Under a memory checker (see [`bumpdown_global::shadow`]) a region block's header is
//! unaddressable to the program: it is opened only while this module reads or writes it,
//! so a write just before a block, or past the end of the one in front, is reported.
//! Fallback headers stay open: glibc may unmap the block and later map other blocks on
//! the same addresses, and AddressSanitizer would keep our closure of those bytes.
//!
//! Region blocks are told apart from fallback blocks by address
//! ([`bumpdown_global::region::contains`]); the tag then tells our fallback blocks apart
//! from blocks glibc made on its own (e.g. before we were loaded), which have no header.

use bumpdown_global::shadow;

/// A region block's header size, and the offset of a plain (16-aligned) region block.
pub const HDR: usize = 8;

/// A fallback block's header size, and the offset of a plain (16-aligned) fallback block.
pub const FALLBACK_HDR: usize = 16;

/// Marks the offset word of a block we allocated from glibc.
pub const FALLBACK_TAG: usize = 0xB0D0 << 48;

const TAG_MASK: usize = 0xFFFF << 48;

/// Where a region header's offset starts; the usable size takes the bits below.
const OFFSET_SHIFT: u32 = 48;

/// A block's header, read.
#[derive(Clone, Copy)]
pub struct Header {
    /// Distance from the chunk (or glibc block) start to the caller's pointer.
    pub offset: usize,
    /// Bytes the caller may use.
    pub usable: usize,
}

/// Writes the header of region block `p`.
///
/// # Safety
/// The 8 bytes before `p` are ours to write (inside the chunk); `p` is 8-aligned;
/// `offset < 2^16` and `usable < 2^48` (a region chunk is far smaller).
#[inline(always)]
pub unsafe fn write(p: *mut u8, offset: usize, usable: usize) {
    debug_assert!(offset < 1 << (usize::BITS - OFFSET_SHIFT) && usable < 1 << OFFSET_SHIFT);
    let h = p.wrapping_sub(HDR);
    shadow::undefined(h, HDR);
    // SAFETY: caller guarantees p-8..p is ours and p is 8-aligned.
    unsafe { h.cast::<usize>().write(offset << OFFSET_SHIFT | usable) };
    shadow::no_access(h, HDR);
}

/// Reads the header of region block `p`.
///
/// # Safety
/// `p` is a live region block returned by this library.
#[inline(always)]
pub unsafe fn read(p: *mut u8) -> Header {
    let h = p.wrapping_sub(HDR);
    shadow::defined(h, HDR);
    // SAFETY: a region block has its header in the 8 bytes before it.
    let word = unsafe { h.cast::<usize>().read() };
    shadow::no_access(h, HDR);
    Header { offset: word >> OFFSET_SHIFT, usable: word & ((1 << OFFSET_SHIFT) - 1) }
}

/// Writes the header of fallback block `p` (left open to memory checkers).
///
/// # Safety
/// The 16 bytes before `p` are ours to write (inside the glibc block); `p` is 16-aligned.
#[inline(always)]
pub unsafe fn write_fallback(p: *mut u8, offset: usize, usable: usize) {
    let h = p.wrapping_sub(FALLBACK_HDR);
    shadow::undefined(h, FALLBACK_HDR);
    // SAFETY: caller guarantees p-16..p is ours; p is 16-aligned, so both words are aligned.
    unsafe {
        h.cast::<usize>().write(offset | FALLBACK_TAG);
        p.sub(8).cast::<usize>().write(usable);
    }
}

/// For a pointer outside the region: our fallback block's header, or `None` for a block
/// glibc made without us.
///
/// # Safety
/// `p` is a live block from this library or from glibc's malloc (whose chunk header
/// occupies the 16 bytes before `p`, so they are readable).
#[inline]
pub unsafe fn read_fallback(p: *mut u8) -> Option<Header> {
    let h = p.wrapping_sub(FALLBACK_HDR);
    shadow::defined(h, FALLBACK_HDR);
    // SAFETY: as above, the 16 bytes before p are readable for either kind.
    let (offset, usable) = unsafe { (h.cast::<usize>().read(), p.sub(8).cast::<usize>().read()) };
    if offset & TAG_MASK == FALLBACK_TAG {
        Some(Header { offset: offset & !TAG_MASK, usable })
    } else {
        // glibc's own chunk header: back to how it was.
        shadow::no_access(h, FALLBACK_HDR);
        None
    }
}

/// `malloc_usable_size` of a block glibc made without us, from glibc's chunk header
/// (size word at `p - 8`, low bits flags, bit 1 "mmapped").
///
/// # Safety
/// `p` is a live glibc malloc block.
pub unsafe fn glibc_usable(p: *mut u8) -> usize {
    // (Under valgrind, which replaces glibc's malloc, the word is memcheck's red zone:
    // opened for the read, closed after; the answer is then meaningless.)
    shadow::defined(p.wrapping_sub(8), 8);
    // SAFETY: glibc keeps its chunk size word just before the user pointer.
    let word = unsafe { p.sub(8).cast::<usize>().read() };
    shadow::no_access(p.wrapping_sub(8), 8);
    let size = word & !7;
    if word & 2 != 0 {
        size.saturating_sub(16)
    } else {
        size.saturating_sub(8)
    }
}
