//! How failures reach C: `errno`, result codes, and panics stopped at the boundary.

use core::alloc::Layout;
use core::ffi::{c_int, c_void};
use core::ptr::{self, NonNull};
use std::panic::{catch_unwind, AssertUnwindSafe};

use bumpdown::{AllocError, AllocErrorKind, RewindError};

pub use libc::{EINVAL, ENOMEM};

// The result codes of the functions that return `int` (`bumpdown.h` has the same
// values; `tests/header_drift.rs` compares them).
/// Success.
pub const BD_OK: c_int = 0;
/// A required pointer argument was NULL.
pub const BD_ERR_NULL: c_int = 1;
/// The checkpoint was taken from another arena.
pub const BD_ERR_FOREIGN_CHECKPOINT: c_int = 2;
/// The arena was reset or rewound past the checkpoint after it was taken.
pub const BD_ERR_STALE_CHECKPOINT: c_int = 3;
/// The bytes are not a checkpoint made by `bd_checkpoint_save`.
pub const BD_ERR_BAD_CHECKPOINT: c_int = 4;
/// A bug in bumpdown was caught at the boundary.
pub const BD_ERR_INTERNAL: c_int = 5;
/// Memory for the operation could not be allocated (`errno` `ENOMEM`).
pub const BD_ERR_NOMEM: c_int = 6;

/// Sets the calling thread's `errno`.
pub(crate) fn set_errno(code: c_int) {
    // SAFETY: the C library returns a valid pointer to the calling thread's errno.
    #[cfg(any(target_os = "linux", target_os = "emscripten"))]
    unsafe {
        *libc::__errno_location() = code
    };
    // SAFETY: as above.
    #[cfg(any(target_vendor = "apple", target_os = "freebsd"))]
    unsafe {
        *libc::__error() = code
    };
    #[cfg(not(any(target_os = "linux", target_os = "emscripten", target_vendor = "apple", target_os = "freebsd")))]
    compile_error!("bumpdown-c: no errno accessor for this target yet");
}

/// The `errno` for an allocation failure: running out of memory in any way is
/// `ENOMEM`, a request no layout can describe is `EINVAL`.
pub(crate) fn alloc_errno(err: AllocError) -> c_int {
    match err.kind() {
        AllocErrorKind::InvalidLayout => EINVAL,
        _ => ENOMEM,
    }
}

/// The result code for a refused rewind.
pub(crate) fn rewind_code(err: RewindError) -> c_int {
    match err {
        RewindError::ForeignCheckpoint => BD_ERR_FOREIGN_CHECKPOINT,
        _ => BD_ERR_STALE_CHECKPOINT,
    }
}

/// `NULL` with `errno` set: the failure of a function that returns a pointer.
pub(crate) fn null_with(errno: c_int) -> *mut c_void {
    set_errno(errno);
    ptr::null_mut()
}

/// An allocation of `size` bytes aligned to `align` by `alloc`, as C gets it: the block,
/// or `NULL` with `errno` `EINVAL` (no such layout) or `ENOMEM`.
pub(crate) fn alloc_or_null(
    size: usize,
    align: usize,
    alloc: impl FnOnce(Layout) -> Result<NonNull<u8>, AllocError>,
) -> *mut c_void {
    let Ok(layout) = Layout::from_size_align(size, align) else { return null_with(EINVAL) };
    match alloc(layout) {
        Ok(p) => p.as_ptr().cast(),
        Err(err) => null_with(alloc_errno(err)),
    }
}

/// Sets `errno` to `EINVAL` and returns `code`: the failure of an `int` function.
pub(crate) fn fail(code: c_int) -> c_int {
    set_errno(EINVAL);
    code
}

/// Runs `f`, turning a panic (a bug: the core only panics on broken invariants) into
/// `on_panic` with `errno` `EINVAL`, so that nothing unwinds into C.
#[inline(always)]
pub(crate) fn guard<R>(on_panic: R, f: impl FnOnce() -> R) -> R {
    // A panic leaves the arena as it was at that point; the caller learns of it through
    // the result and may only destroy the arena (documented as BD_ERR_INTERNAL).
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            set_errno(EINVAL);
            on_panic
        }
    }
}
