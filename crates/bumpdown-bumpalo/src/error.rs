//! bumpalo's error types: `AllocErr` (a unit struct, so `Err(AllocErr)` patterns keep
//! working) and `AllocOrInitError`.

use core::fmt;

/// An allocation failed: out of memory, over the allocation limit, or a size that
/// overflows. Returned by every `try_*` method of [`Bump`](crate::Bump).
///
/// bumpdown's own error says which of those it was; [`Bump`](crate::Bump) dereferences to
/// the [`Arena`](bumpdown::Arena), whose `try_*` methods return it.
///
/// ```
/// use bumpdown_bumpalo::{AllocErr, Bump};
///
/// let bump = Bump::new();
/// bump.set_allocation_limit(Some(0));
/// assert_eq!(bump.try_alloc(1u64), Err(AllocErr));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocErr;

impl fmt::Display for AllocErr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("memory allocation failed")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for AllocErr {}

impl From<bumpdown::AllocError> for AllocErr {
    fn from(_: bumpdown::AllocError) -> Self {
        AllocErr
    }
}

/// Why [`Bump::try_alloc_try_with`](crate::Bump::try_alloc_try_with) failed: the
/// allocation, or the initializer.
///
/// ```
/// use bumpdown_bumpalo::{AllocOrInitError, Bump};
///
/// let bump = Bump::new();
/// let r = bump.try_alloc_try_with(|| "x".parse::<u32>());
/// assert!(matches!(r, Err(AllocOrInitError::Init(_))));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocOrInitError<E> {
    /// The allocation failed; the initializer was not called.
    Alloc(AllocErr),
    /// The initializer returned this error. The memory set aside for the value stays
    /// in the arena until it is reset.
    Init(E),
}

impl<E> From<AllocErr> for AllocOrInitError<E> {
    fn from(e: AllocErr) -> Self {
        AllocOrInitError::Alloc(e)
    }
}

impl<E: fmt::Display> fmt::Display for AllocOrInitError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocOrInitError::Alloc(e) => e.fmt(f),
            AllocOrInitError::Init(e) => write!(f, "initialization failed: {e}"),
        }
    }
}

#[cfg(feature = "std")]
impl<E: std::error::Error + 'static> std::error::Error for AllocOrInitError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AllocOrInitError::Alloc(e) => Some(e),
            AllocOrInitError::Init(e) => Some(e),
        }
    }
}
