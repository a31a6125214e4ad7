//! Big blocks: each request over the largest size class gets a mapping of its own.
//!
//! A block this large is usually one buffer read or written from end to end (a file's
//! contents, a big `Vec`): it is worth a system call, it should go back to the OS when it
//! is freed, and it should sit on huge pages so that filling it takes one fault per 2 MiB
//! instead of one per 4 KiB page. (Before, these blocks went to the C library's `malloc`,
//! which maps them too, but on small pages: the serde_json workload took 22,000 page
//! faults for its 100 MB input alone.)
//!
//! # INVARIANT
//! Every live block for which [`is_big`] holds and that lies outside the region was made by
//! [`alloc`] or [`realloc`] here: it starts a private anonymous mapping of exactly
//! [`mapping_len`]`(size)` bytes, where `size` is the size the program knows it by. The
//! front end keeps this true by routing on the layout alone (see `global.rs`): a request
//! that `is_big` and that the region does not serve comes here, never to the C library,
//! and a block moves between here and the C library only by copying.

use core::alloc::Layout;
use core::ptr;

use bumpdown::bumping::round_up;
use bumpdown::os;

use crate::classes::CLASS_MAX;
use crate::region::{HUGE, PAGE};

/// Whether `layout` is served by a mapping of its own when the region does not serve it.
#[inline(always)]
pub fn is_big(layout: Layout) -> bool {
    is_big_size(layout.size(), layout.align())
}

/// [`is_big`] for a size and an alignment that need not form a valid `Layout`.
#[inline(always)]
pub fn is_big_size(size: usize, align: usize) -> bool {
    size > CLASS_MAX && align <= PAGE
}

/// Bytes mapped for a block of `size` bytes: whole pages of the system, so that the
/// slack trimmed in [`alloc`] is whole pages too (`size > CLASS_MAX`, so this cannot
/// overflow unless `size` is within a page of `usize::MAX`, which `Layout` rules out).
fn mapping_len(size: usize) -> usize {
    round_up(size, os::page_size())
}

/// Maps a zeroed block of `size` bytes (`is_big`), page-aligned; with `huge`, blocks of
/// 2 MiB or more start on a 2 MiB boundary and are advised onto transparent huge pages.
/// Null if the system refuses.
pub fn alloc(size: usize, huge: bool) -> *mut u8 {
    let len = mapping_len(size);
    let huge = huge && len >= HUGE;
    // Room to slide the block to a 2 MiB boundary; the slack is unmapped below. (A mapping
    // starts on a page boundary, so it is at most `HUGE - page` bytes below the next one.)
    let Some(total) = len.checked_add(if huge { HUGE - os::page_size() } else { 0 }) else {
        return ptr::null_mut();
    };
    let Some(mapped) = os::map(total) else {
        return ptr::null_mut();
    };
    let mapped = mapped.as_ptr();
    if !huge {
        return mapped;
    }
    let head = mapped.addr().wrapping_neg() & (HUGE - 1);
    let tail = total - head - len;
    // SAFETY: `head` and `tail` are multiples of the page size (mapped, len and HUGE are:
    // the page size divides 2 MiB on every supported system), and the
    // three parts `[0, head)`, `[head, head + len)`, `[head + len, total)` tile our own
    // fresh mapping; nobody has seen it yet. Trimming the slack leaves exactly `len`
    // bytes mapped, as the invariant says. The advice may fail (no THP): that changes
    // nothing but speed.
    unsafe {
        let block = mapped.add(head);
        if head > 0 {
            os::unmap(mapped, head);
        }
        if tail > 0 {
            os::unmap(block.add(len), tail);
        }
        os::huge_pages(block, len);
        block
    }
}

/// Returns a block to the OS.
///
/// # Safety
/// `p` is a live block of `size` bytes made here (see the module invariant), not used
/// afterwards.
pub unsafe fn free(p: *mut u8, size: usize) {
    // SAFETY: by the invariant, `p` starts a mapping of exactly mapping_len(size) bytes
    // that only this block uses.
    unsafe { os::unmap(p, mapping_len(size)) };
}

/// Resizes a block to `new_size` bytes (also `> CLASS_MAX`) with `mremap`: the pages move,
/// the bytes are not copied. Null if the system refuses; the old block is then intact.
///
/// # Safety
/// `p` is a live block of `old_size` bytes made here; on success it is not used afterwards.
pub unsafe fn realloc(p: *mut u8, old_size: usize, new_size: usize) -> *mut u8 {
    let (old_len, new_len) = (mapping_len(old_size), mapping_len(new_size));
    if old_len == new_len {
        return p;
    }
    // SAFETY: `p` starts our mapping of exactly old_len bytes (invariant: what `alloc`
    // left mapped of an `os::map`, or an earlier `os::remap`), page-aligned; MREMAP_MAYMOVE
    // leaves it untouched on failure and otherwise hands back exactly new_len bytes with
    // the old contents, so the invariant holds for the result with `new_size`.
    match unsafe { os::remap(p, old_len, new_len) } {
        Some(q) => q.as_ptr(),
        None => ptr::null_mut(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_is_over_the_largest_class_and_page_aligned_at_most() {
        assert!(!is_big(Layout::from_size_align(CLASS_MAX, 8).unwrap()));
        assert!(is_big(Layout::from_size_align(CLASS_MAX + 1, 8).unwrap()));
        assert!(is_big(Layout::from_size_align(CLASS_MAX + 1, PAGE).unwrap()));
        assert!(!is_big(Layout::from_size_align(CLASS_MAX + 1, 2 * PAGE).unwrap()));
    }

    #[test]
    fn huge_blocks_start_on_a_huge_boundary_and_keep_their_bytes_through_realloc() {
        let size = 3 * HUGE + 100;
        let p = alloc(size, true);
        assert!(!p.is_null());
        assert_eq!(p.addr() % HUGE, 0);
        // SAFETY: p is a fresh zeroed block of `size` bytes.
        unsafe {
            assert_eq!(*p.add(size - 1), 0);
            p.write_bytes(0xa5, size);
            let q = realloc(p, size, 5 * HUGE);
            assert!(!q.is_null());
            assert_eq!(*q, 0xa5);
            assert_eq!(*q.add(size - 1), 0xa5);
            assert_eq!(*q.add(5 * HUGE - 1), 0, "grown pages are fresh");
            let r = realloc(q, 5 * HUGE, CLASS_MAX + 1);
            assert!(!r.is_null());
            assert_eq!(*r.add(CLASS_MAX), 0xa5);
            free(r, CLASS_MAX + 1);
        }
    }

    #[test]
    fn small_pages_blocks_are_page_aligned() {
        let p = alloc(CLASS_MAX + 1, false);
        assert!(!p.is_null());
        assert_eq!(p.addr() % PAGE, 0);
        // SAFETY: p is a live block of CLASS_MAX + 1 bytes made here.
        unsafe {
            p.add(CLASS_MAX).write(7);
            free(p, CLASS_MAX + 1);
        }
    }

    #[test]
    fn impossible_sizes_are_refused() {
        assert!(alloc(usize::MAX / 2, true).is_null());
    }
}
