//! The operating system's memory calls, declared here rather than pulled in through a
//! dependency: the one OS layer of the workspace. `VmArena` reserves and commits with it,
//! and `bumpdown-global` maps its region and its big blocks with it.
//!
//! **Not a stable API.** The module is public only so that the workspace's other crates
//! can share it; it is hidden from the docs and may change in any release.
//!
//! Two kinds of mapping:
//! * A *reservation* ([`reserve`]) is `PROT_NONE` address space (`MAP_NORESERVE`: it costs
//!   no memory and no commit charge); [`commit`] makes a page-aligned part of it readable
//!   and writable, [`discard`] gives the pages of a part back to the system (they read as
//!   zero after), [`release`] unmaps it.
//! * A *mapping* ([`map`], [`map_noreserve`]) is fresh zeroed read-write memory at once;
//!   [`unmap`] gives back all or a page-aligned part of it.
//!
//! The hints ([`populate`], [`huge_pages`]) work on either and apply to the whole pages
//! inside the range they are given, so callers need not know the real page size.
//!
//! Under Miri, which cannot map memory, a reservation is an ordinary zeroed heap block and
//! commit/populate do nothing, so `VmArena`'s pointer logic is still checked; [`map`] and
//! [`map_noreserve`] fail (their callers fall back to other memory).

use core::ptr::NonNull;
use core::sync::atomic::{AtomicUsize, Ordering};

/// `VmArena`'s commit granule, **not** the page size: every address and length it passes
/// to [`reserve`], [`commit`] and [`discard`] is a multiple of it. 16 KiB is a multiple of
/// the page size of the usual systems (4 KiB on x86_64, 16 KiB on Apple silicon), so a
/// granule is always whole pages there. (A 64 KiB-page aarch64 Linux kernel would need a
/// larger one.) Ask [`page_size`] for the real page size.
pub const PAGE: usize = 16 * 1024;

#[cfg(not(miri))]
mod sys {
    use core::ffi::{c_int, c_long, c_void};

    extern "C" {
        pub fn mmap(addr: *mut c_void, len: usize, prot: c_int, flags: c_int, fd: c_int, off: i64) -> *mut c_void;
        pub fn munmap(addr: *mut c_void, len: usize) -> c_int;
        pub fn mprotect(addr: *mut c_void, len: usize, prot: c_int) -> c_int;
        pub fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
        pub fn sysconf(name: c_int) -> c_long;
        #[cfg(target_os = "linux")]
        pub fn mremap(addr: *mut c_void, old_len: usize, new_len: usize, flags: c_int, ...) -> *mut c_void;
    }

    pub const PROT_NONE: c_int = 0;
    pub const PROT_READ: c_int = 1;
    pub const PROT_WRITE: c_int = 2;
    pub const MAP_PRIVATE: c_int = 2;
    pub const MAP_FAILED: *mut c_void = !0usize as *mut c_void;
    #[cfg(target_os = "linux")]
    pub const MADV_DONTNEED: c_int = 4;

    #[cfg(target_os = "linux")]
    pub const MAP_ANONYMOUS: c_int = 0x20;
    #[cfg(target_os = "linux")]
    pub const MAP_NORESERVE: c_int = 0x4000;
    #[cfg(target_os = "linux")]
    pub const MADV_HUGEPAGE: c_int = 14;
    #[cfg(target_os = "linux")]
    pub const MADV_POPULATE_WRITE: c_int = 23;
    #[cfg(target_os = "linux")]
    pub const MREMAP_MAYMOVE: c_int = 1;
    #[cfg(target_os = "linux")]
    pub const SC_PAGESIZE: c_int = 30;

    #[cfg(target_os = "macos")]
    pub const MAP_ANONYMOUS: c_int = 0x1000;
    #[cfg(target_os = "macos")]
    pub const MAP_NORESERVE: c_int = 0x40;
    #[cfg(target_os = "macos")]
    pub const SC_PAGESIZE: c_int = 29;
}

/// The page size, asked of the system on the first call (0 until then).
static PAGE_SIZE: AtomicUsize = AtomicUsize::new(0);

/// The system's page size in bytes (a power of two): 4 KiB on x86_64, 16 KiB on Apple
/// silicon, 4, 16 or 64 KiB on aarch64 Linux. Asked of the system once, then cached.
#[inline]
pub fn page_size() -> usize {
    match PAGE_SIZE.load(Ordering::Relaxed) {
        0 => ask_page_size(),
        size => size,
    }
}

#[cold]
fn ask_page_size() -> usize {
    #[cfg(not(miri))]
    // SAFETY: `sysconf` only reads a configuration value; it takes no pointers.
    let asked = unsafe { sys::sysconf(sys::SC_PAGESIZE) };
    // Miri's machine has 4 KiB pages.
    #[cfg(miri)]
    let asked = 4096;
    // `sysconf` cannot fail for `_SC_PAGESIZE`; should it, 4 KiB is the smallest page
    // of any supported system (hints then may cover part of a page, which they ignore).
    let size = usize::try_from(asked).ok().filter(|s| s.is_power_of_two()).unwrap_or(4096);
    // Racing first callers store the same value.
    PAGE_SIZE.store(size, Ordering::Relaxed);
    size
}

/// The whole pages inside `start..start + len`, as a start and a length (0 when there is
/// no whole page). The range must not wrap around the address space. (Only the Linux
/// hints need it.)
#[cfg(all(target_os = "linux", not(miri)))]
fn whole_pages(start: *mut u8, len: usize) -> (*mut u8, usize) {
    use crate::bumping::{round_down, round_up};
    let page = page_size();
    // No overflow: the range lies in user address space, far below `usize::MAX - page`.
    let from = round_up(start.addr(), page);
    let to = round_down(start.addr() + len, page);
    (start.with_addr(from), to.saturating_sub(from))
}

/// Reserves `len` bytes (a multiple of [`PAGE`]) of address space, none of it usable yet.
pub fn reserve(len: usize) -> Option<NonNull<u8>> {
    #[cfg(not(miri))]
    {
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing
        // touches no existing memory.
        let p = unsafe {
            sys::mmap(
                core::ptr::null_mut(),
                len,
                sys::PROT_NONE,
                sys::MAP_PRIVATE | sys::MAP_ANONYMOUS | sys::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == sys::MAP_FAILED {
            return None;
        }
        NonNull::new(p.cast())
    }
    #[cfg(miri)]
    {
        let layout = core::alloc::Layout::from_size_align(len, PAGE).ok()?;
        // SAFETY: `len` is not zero (callers reserve at least a page).
        NonNull::new(unsafe { alloc::alloc::alloc_zeroed(layout) })
    }
}

/// Returns a reservation to the system.
///
/// # Safety
/// `base..base + len` is a whole reservation from [`reserve`], no longer used.
pub unsafe fn release(base: NonNull<u8>, len: usize) {
    #[cfg(not(miri))]
    // SAFETY: from the caller: the whole mapping, unused. A failure leaves it mapped,
    // which leaks address space but is otherwise harmless.
    unsafe {
        sys::munmap(base.as_ptr().cast(), len);
    }
    #[cfg(miri)]
    // SAFETY: from the caller: allocated by `reserve` with this layout.
    unsafe {
        alloc::alloc::dealloc(base.as_ptr(), core::alloc::Layout::from_size_align_unchecked(len, PAGE))
    }
}

/// Maps `len > 0` bytes of fresh zeroed read-write memory (private, anonymous) wherever the
/// system likes, charged against its commit limit at once: with overcommit limited, a
/// request the system cannot back fails here rather than on first touch. `None` if the
/// system refuses. Allocates nothing.
pub fn map(len: usize) -> Option<NonNull<u8>> {
    map_with(len, 0)
}

/// Like [`map`] but with `MAP_NORESERVE`: address space now, memory and commit charge only
/// for the pages the program touches. For large reservations that are mostly never used.
pub fn map_noreserve(len: usize) -> Option<NonNull<u8>> {
    #[cfg(not(miri))]
    let flags = sys::MAP_NORESERVE;
    #[cfg(miri)]
    let flags = 0;
    map_with(len, flags)
}

/// [`map`] with extra `mmap` flags.
fn map_with(len: usize, flags: core::ffi::c_int) -> Option<NonNull<u8>> {
    #[cfg(not(miri))]
    {
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing
        // touches no existing memory.
        let p = unsafe {
            sys::mmap(
                core::ptr::null_mut(),
                len,
                sys::PROT_READ | sys::PROT_WRITE,
                sys::MAP_PRIVATE | sys::MAP_ANONYMOUS | flags,
                -1,
                0,
            )
        };
        if p == sys::MAP_FAILED {
            return None;
        }
        NonNull::new(p.cast())
    }
    #[cfg(miri)]
    {
        let _ = (len, flags);
        None
    }
}

/// Unmaps `start..start + len`.
///
/// # Safety
/// `start` is page-aligned ([`page_size`]) and the range lies inside one mapping from
/// [`map`], [`map_noreserve`] or [`remap`]; nothing in it is used afterwards.
pub unsafe fn unmap(start: *mut u8, len: usize) {
    #[cfg(not(miri))]
    // SAFETY: from the caller: our own mapping's pages, unused from now on. A failure
    // leaves them mapped, which leaks address space but is otherwise harmless.
    unsafe {
        sys::munmap(start.cast(), len);
    }
    // Under Miri nothing was ever mapped, so there is nothing to unmap.
    #[cfg(miri)]
    let _ = (start, len);
}

/// Moves or resizes the mapping `start..start + old_len` to `new_len` bytes (`mremap` with
/// `MREMAP_MAYMOVE`, Linux): the pages move, the bytes are not copied; pages added at the
/// end read as zero. Returns the new start, or `None` with the old mapping left intact.
///
/// # Safety
/// `start..start + old_len` (`start` page-aligned) is all that is mapped of a mapping from
/// [`map`], [`map_noreserve`] or [`remap`]: the whole of it, or what is left once the rest
/// was unmapped. On success it is not used afterwards.
#[cfg(target_os = "linux")]
pub unsafe fn remap(start: *mut u8, old_len: usize, new_len: usize) -> Option<NonNull<u8>> {
    #[cfg(not(miri))]
    {
        // SAFETY: from the caller: a whole mapping of ours. MREMAP_MAYMOVE leaves it
        // untouched on failure and otherwise unmaps it, handing back the new range.
        let p = unsafe { sys::mremap(start.cast(), old_len, new_len, sys::MREMAP_MAYMOVE) };
        if p == sys::MAP_FAILED {
            return None;
        }
        NonNull::new(p.cast())
    }
    #[cfg(miri)]
    {
        let _ = (start, old_len, new_len);
        None
    }
}

/// Makes `start..start + len` (page-aligned, inside a reservation) readable and
/// writable. Returns whether the system agreed.
///
/// # Safety
/// The range lies inside a reservation from [`reserve`].
pub unsafe fn commit(start: *mut u8, len: usize) -> bool {
    #[cfg(not(miri))]
    // SAFETY: from the caller: part of our own mapping; changing its protection affects
    // nothing else.
    unsafe {
        sys::mprotect(start.cast(), len, sys::PROT_READ | sys::PROT_WRITE) == 0
    }
    #[cfg(miri)]
    {
        let _ = (start, len);
        true
    }
}

/// Faults in the whole pages of a read-write range ahead of use (Linux 5.14+; elsewhere,
/// or on failure, the pages fault in on first touch as usual).
///
/// # Safety
/// The range is committed memory of a reservation from [`reserve`], or lies inside a
/// mapping from [`map`] or [`map_noreserve`].
pub unsafe fn populate(start: *mut u8, len: usize) {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        let (start, len) = whole_pages(start, len);
        if len > 0 {
            // SAFETY: from the caller: writable memory of our own mapping (`whole_pages`
            // only shrinks the range); populating it does not change its contents (pages
            // not yet touched read as zero either way).
            unsafe {
                sys::madvise(start.cast(), len, sys::MADV_POPULATE_WRITE);
            }
        }
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = (start, len);
}

/// Asks for transparent huge pages on the whole pages of the range (Linux). Returns whether
/// the system took the advice (never elsewhere, nor on a kernel without them).
///
/// # Safety
/// The range lies inside a reservation from [`reserve`] or a mapping from [`map`] or
/// [`map_noreserve`].
pub unsafe fn huge_pages(start: *mut u8, len: usize) -> bool {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        let (start, len) = whole_pages(start, len);
        // SAFETY: from the caller: our own mapping (`whole_pages` only shrinks the range);
        // the advice changes no contents.
        len > 0 && unsafe { sys::madvise(start.cast(), len, sys::MADV_HUGEPAGE) } == 0
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    {
        let _ = (start, len);
        false
    }
}

/// Gives the pages of a committed range back to the system: they stay committed.
/// Returns whether they now read as zero (Linux: yes; elsewhere the pages are left as
/// they are and this returns `false`).
///
/// # Safety
/// The range is committed, page-aligned, inside a reservation, and nothing in it is in
/// use.
pub unsafe fn discard(start: *mut u8, len: usize) -> bool {
    #[cfg(all(target_os = "linux", not(miri)))]
    // SAFETY: from the caller: unused committed memory of our own private anonymous
    // mapping; on Linux MADV_DONTNEED makes it read as zero afterwards.
    unsafe {
        sys::madvise(start.cast(), len, sys::MADV_DONTNEED) == 0
    }
    #[cfg(miri)]
    // SAFETY: from the caller: unused memory of our own block.
    unsafe {
        start.write_bytes(0, len);
        true
    }
    #[cfg(not(any(target_os = "linux", miri)))]
    {
        let _ = (start, len);
        false
    }
}

#[cfg(all(test, not(miri)))]
mod tests {
    use super::*;

    #[test]
    fn page_size_is_a_power_of_two_asked_once() {
        let size = page_size();
        assert!(size.is_power_of_two() && size >= 4096);
        assert_eq!(PAGE_SIZE.load(Ordering::Relaxed), size);
        assert_eq!(page_size(), size);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn whole_pages_shrink_to_page_boundaries() {
        let page = page_size();
        let at = |addr: usize| core::ptr::without_provenance_mut::<u8>(addr);
        assert_eq!(whole_pages(at(4 * page), 2 * page), (at(4 * page), 2 * page));
        assert_eq!(whole_pages(at(4 * page + 1), 2 * page), (at(5 * page), page));
        assert_eq!(whole_pages(at(4 * page + 1), page), (at(5 * page), 0));
        assert_eq!(whole_pages(at(4 * page), page - 1), (at(4 * page), 0));
    }

    #[test]
    fn a_mapping_is_zeroed_writable_and_can_be_trimmed() {
        let page = page_size();
        let p = map(4 * page).expect("mmap").as_ptr();
        assert_eq!(p.addr() % page, 0);
        // SAFETY: the 4 pages just mapped, ours alone; the unmapped pages are not touched
        // again, and the rest is unmapped whole at the end.
        unsafe {
            assert!((0..4 * page).all(|i| p.add(i).read() == 0));
            p.add(page).write(7);
            populate(p, 4 * page);
            let _ = huge_pages(p, 4 * page);
            unmap(p, page);
            assert_eq!(p.add(page).read(), 7);
            unmap(p.add(page), 3 * page);
        }
        let q = map_noreserve(1 << 30).expect("mmap MAP_NORESERVE").as_ptr();
        // SAFETY: a fresh mapping of 1 GiB, ours alone, unmapped whole.
        unsafe {
            q.add((1 << 30) - 1).write(1);
            unmap(q, 1 << 30);
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn remap_keeps_the_contents() {
        let page = page_size();
        let p = map(page).expect("mmap").as_ptr();
        // SAFETY: our fresh mapping of one page; after a successful remap only the new one
        // is used, and it is unmapped whole.
        unsafe {
            p.write(42);
            let q = remap(p, page, 8 * page).expect("mremap").as_ptr();
            assert_eq!(q.read(), 42);
            assert_eq!(q.add(8 * page - 1).read(), 0);
            unmap(q, 8 * page);
        }
    }
}
