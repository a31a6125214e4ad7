//! Debug aids for memory an arena takes back (reset, rewind, scope exit).
//!
//! * With the `poison` feature, the bytes are overwritten with [`POISON_BYTE`], so a read
//!   through a pointer that outlived its allocation sees `0xDBDB...` instead of the old
//!   value: easy to spot in a debugger, and a pointer read from there is not canonical on
//!   x86_64 (using it faults).
//! * Built with AddressSanitizer and `--cfg bumpdown_asan` (see `asan.rs`), an `Arena`
//!   also marks the free part of its chunks unaddressable and unmarks each block as it
//!   is handed out, so the faulting access itself is reported.
//!
//! Without either, every hook here is empty and the callers' `if ACTIVE` walks fold away:
//! the fast path does not change.

/// The byte the `poison` feature fills freed memory with ("dead bytes").
///
/// ```
/// let mut arena = bumpdown::Arena::new();
/// let p: *const u32 = arena.alloc(7u32);
/// arena.reset();
/// // Reading `p` now is a bug; with the `poison` feature it would read 0xDBDBDBDB.
/// # let _ = p;
/// ```
pub const POISON_BYTE: u8 = 0xDB;

/// Whether the hooks do anything. Constant: `if ACTIVE { .. }` folds away when false.
pub(crate) const ACTIVE: bool = cfg!(feature = "poison") || cfg!(bumpdown_asan);

/// The bytes `start..end` of an `Arena` chunk were given back: fill them (`poison`) and
/// mark them unaddressable (ASan) until the bump pointer hands them out again. Nothing
/// happens for an empty or inverted range.
///
/// # Safety
/// If `start < end`: the range lies in a chunk the arena owns, `start` carries its
/// provenance, and nothing uses those bytes any more.
#[inline(always)]
pub(crate) unsafe fn given_back(start: *mut u8, end: usize) {
    if !ACTIVE || start.addr() >= end {
        return;
    }
    // SAFETY: forwarded from the caller.
    unsafe { fill(start, end) };
    #[cfg(bumpdown_asan)]
    // SAFETY: forwarded from the caller: the range is ours and unused.
    unsafe {
        crate::asan::poison(start, end - start.addr())
    };
}

/// Fills `start..end` with [`POISON_BYTE`] when the `poison` feature is on. For the
/// arenas without ASan annotations (`FixedArena`, `VmArena`).
///
/// # Safety
/// As for [`given_back`].
#[inline(always)]
pub(crate) unsafe fn fill(start: *mut u8, end: usize) {
    #[cfg(feature = "poison")]
    if start.addr() < end {
        // SAFETY: from the caller: ours, writable, unused.
        unsafe { start.write_bytes(POISON_BYTE, end - start.addr()) };
    }
    #[cfg(not(feature = "poison"))]
    let _ = (start, end);
}
