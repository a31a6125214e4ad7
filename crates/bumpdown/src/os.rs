//! Address-space reservation for `VmArena`: the few system calls it needs, declared here
//! rather than pulled in through a dependency.
//!
//! A reservation is `PROT_NONE` address space (`MAP_NORESERVE`: it costs no memory and
//! no commit charge); `commit` makes a page-aligned part of it readable and writable;
//! `discard` gives the pages of a part back to the system (they read as zero after);
//! `populate` faults a committed part in ahead of use, in one system call.
//!
//! Under Miri, which cannot map memory, a reservation is an ordinary zeroed heap block
//! and commit/populate do nothing, so the arena's pointer logic is still checked.

use core::ptr::NonNull;

/// Page size assumed for rounding; the real page size divides it on every supported
/// system (4 KiB on x86_64 Linux; 16 KiB on Apple silicon, which is why this is 16 KiB).
pub(crate) const PAGE: usize = 16 * 1024;

#[cfg(not(miri))]
mod sys {
    use core::ffi::{c_int, c_void};

    extern "C" {
        pub fn mmap(addr: *mut c_void, len: usize, prot: c_int, flags: c_int, fd: c_int, off: i64) -> *mut c_void;
        pub fn munmap(addr: *mut c_void, len: usize) -> c_int;
        pub fn mprotect(addr: *mut c_void, len: usize, prot: c_int) -> c_int;
        pub fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
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

    #[cfg(target_os = "macos")]
    pub const MAP_ANONYMOUS: c_int = 0x1000;
    #[cfg(target_os = "macos")]
    pub const MAP_NORESERVE: c_int = 0x40;
}

/// Reserves `len` bytes (a multiple of [`PAGE`]) of address space, none of it usable yet.
pub(crate) fn reserve(len: usize) -> Option<NonNull<u8>> {
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
        NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })
    }
}

/// Returns a reservation to the system.
///
/// # Safety
/// `base..base + len` is a whole reservation from [`reserve`], no longer used.
pub(crate) unsafe fn release(base: NonNull<u8>, len: usize) {
    #[cfg(not(miri))]
    // SAFETY: from the caller: the whole mapping, unused. A failure leaves it mapped,
    // which leaks address space but is otherwise harmless.
    unsafe {
        sys::munmap(base.as_ptr().cast(), len);
    }
    #[cfg(miri)]
    // SAFETY: from the caller: allocated by `reserve` with this layout.
    unsafe {
        std::alloc::dealloc(base.as_ptr(), core::alloc::Layout::from_size_align_unchecked(len, PAGE))
    }
}

/// Makes `start..start + len` (page-aligned, inside a reservation) readable and
/// writable. Returns whether the system agreed.
///
/// # Safety
/// The range lies inside a reservation from [`reserve`].
pub(crate) unsafe fn commit(start: *mut u8, len: usize) -> bool {
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

/// Faults in the committed range ahead of use (Linux 5.14+; elsewhere, or on failure,
/// the pages fault in on first touch as usual).
///
/// # Safety
/// The range is committed and lies inside a reservation from [`reserve`].
pub(crate) unsafe fn populate(start: *mut u8, len: usize) {
    #[cfg(all(target_os = "linux", not(miri)))]
    // SAFETY: from the caller: committed memory of our own mapping; populating it does
    // not change its contents (pages not yet touched read as zero either way).
    unsafe {
        sys::madvise(start.cast(), len, sys::MADV_POPULATE_WRITE);
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = (start, len);
}

/// Asks for transparent huge pages on the range (Linux; a hint elsewhere ignored).
///
/// # Safety
/// The range lies inside a reservation from [`reserve`].
pub(crate) unsafe fn huge_pages(start: *mut u8, len: usize) {
    #[cfg(all(target_os = "linux", not(miri)))]
    // SAFETY: from the caller: our own mapping; the advice changes no contents.
    unsafe {
        sys::madvise(start.cast(), len, sys::MADV_HUGEPAGE);
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = (start, len);
}

/// Gives the pages of a committed range back to the system: they stay committed.
/// Returns whether they now read as zero (Linux: yes; elsewhere the pages are left as
/// they are and this returns `false`).
///
/// # Safety
/// The range is committed, page-aligned, inside a reservation, and nothing in it is in
/// use.
pub(crate) unsafe fn discard(start: *mut u8, len: usize) -> bool {
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
