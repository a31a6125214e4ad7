//! The 16 bytes in front of every block this library returns.
//!
//! ```text
//!   p - 16: offset   distance from the start of the chunk (region) or of the glibc block
//!                    (fallback) to p; fallback blocks also carry FALLBACK_TAG in the top bits
//!   p -  8: usable   bytes the caller may use from p: what `malloc_usable_size` returns
//!   p     : the caller's bytes (16-aligned, or aligned as requested)
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

/// Header size; also the offset of an ordinary (16-aligned) block.
pub const HDR: usize = 16;

/// Marks the offset word of a block we allocated from glibc.
pub const FALLBACK_TAG: usize = 0xB0D0 << 48;
const TAG_MASK: usize = 0xFFFF << 48;

/// A block's header, read.
#[derive(Clone, Copy)]
pub struct Header {
    /// Distance from the chunk (or glibc block) start to the caller's pointer.
    pub offset: usize,
    /// Bytes the caller may use.
    pub usable: usize,
}

/// Writes the header of block `p`.
///
/// # Safety
/// The 16 bytes before `p` are ours to write (inside the chunk or glibc block).
#[inline(always)]
pub unsafe fn write(p: *mut u8, offset: usize, usable: usize) {
    let h = p.wrapping_sub(16);
    shadow::undefined(h, 16);
    // SAFETY: caller guarantees p-16..p is ours; p is 16-aligned, so both words are aligned.
    unsafe {
        h.cast::<usize>().write(offset);
        p.sub(8).cast::<usize>().write(usable);
    }
    close_unless_fallback(h, offset);
}

/// Closes header `h` to memory checkers unless its offset word is tagged as a fallback
/// block's (see the module docs).
#[inline(always)]
fn close_unless_fallback(h: *mut u8, offset: usize) {
    if offset & TAG_MASK != FALLBACK_TAG {
        shadow::no_access(h, 16);
    }
}

/// Reads the header of block `p`.
///
/// # Safety
/// `p` is a live block returned by this library (region or fallback).
#[inline(always)]
pub unsafe fn read(p: *mut u8) -> Header {
    let h = p.wrapping_sub(16);
    shadow::defined(h, 16);
    // SAFETY: our blocks have a header in the 16 bytes before them.
    let header = unsafe { Header { offset: h.cast::<usize>().read(), usable: p.sub(8).cast::<usize>().read() } };
    close_unless_fallback(h, header.offset);
    header
}

/// For a pointer outside the region: our fallback block's header, or `None` for a block
/// glibc made without us.
///
/// # Safety
/// `p` is a live block from this library or from glibc's malloc (whose chunk header
/// occupies the 16 bytes before `p`, so they are readable).
#[inline]
pub unsafe fn read_fallback(p: *mut u8) -> Option<Header> {
    // SAFETY: as above, the 16 bytes before p are readable for either kind.
    let h = unsafe { read(p) };
    if h.offset & TAG_MASK == FALLBACK_TAG {
        Some(Header { offset: h.offset & !TAG_MASK, usable: h.usable })
    } else {
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
