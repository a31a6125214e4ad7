//! The error every fallible method returns.

use core::fmt;

/// Why an allocation failed. Returned by every `try_*` method; the arena stays usable
/// and everything allocated before stays valid.
///
/// ```
/// use bumpdown::{Arena, AllocErrorKind};
///
/// let arena = Arena::new();
/// arena.set_allocation_limit(Some(0));
/// let err = arena.try_alloc(1u64).unwrap_err();
/// assert_eq!(err.kind(), AllocErrorKind::LimitReached);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AllocError {
    kind: AllocErrorKind,
}

/// The reason inside an [`AllocError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AllocErrorKind {
    /// The requested size or alignment cannot form a valid layout: the size overflows
    /// `isize::MAX` (for example `len * size_of::<T>()`), or the alignment is not a
    /// power of two.
    InvalidLayout,
    /// Satisfying the request would take the arena past its allocation limit.
    LimitReached,
    /// The backing allocator returned null.
    OutOfMemory,
    /// A fixed-size arena has no room left.
    Full,
}

impl AllocError {
    pub(crate) const INVALID_LAYOUT: Self = Self { kind: AllocErrorKind::InvalidLayout };
    pub(crate) const LIMIT_REACHED: Self = Self { kind: AllocErrorKind::LimitReached };
    pub(crate) const OUT_OF_MEMORY: Self = Self { kind: AllocErrorKind::OutOfMemory };
    pub(crate) const FULL: Self = Self { kind: AllocErrorKind::Full };

    /// Why the allocation failed.
    ///
    /// ```
    /// use bumpdown::{Arena, AllocErrorKind};
    ///
    /// let arena = Arena::new();
    /// let err = arena.try_alloc_slice_fill_copy(usize::MAX, 0u32).unwrap_err();
    /// assert_eq!(err.kind(), AllocErrorKind::InvalidLayout);
    /// ```
    pub const fn kind(&self) -> AllocErrorKind {
        self.kind
    }
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.kind {
            AllocErrorKind::InvalidLayout => "allocation size overflows isize::MAX or alignment is not a power of two",
            AllocErrorKind::LimitReached => "allocation would exceed the arena's allocation limit",
            AllocErrorKind::OutOfMemory => "the backing allocator is out of memory",
            AllocErrorKind::Full => "the fixed-size arena is full",
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for AllocError {}

/// The single panic of every plain (non-`try_`) method. Kept out of line so the
/// callers' fast paths stay small.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn alloc_failed(size: usize, align: usize, err: AllocError) -> ! {
    panic!("bumpdown: cannot allocate {size} bytes aligned to {align}: {err}")
}

/// A slow path's block, or the panic of `alloc_failed`: the way out of the plain
/// methods' slow paths.
#[inline(always)]
#[track_caller]
pub(crate) fn block_or_panic(
    result: Result<core::ptr::NonNull<u8>, AllocError>,
    size: usize,
    align: usize,
) -> core::ptr::NonNull<u8> {
    match result {
        Ok(p) => p,
        Err(err) => alloc_failed(size, align, err),
    }
}
