//! `Bump`: bumpalo's arena type, a thin wrapper around [`bumpdown::Arena`]. Every method
//! forwards to the arena (inlined, so the fast path is the arena's own); the few that
//! bumpdown spells differently are written here over its safe API.

use core::alloc::Layout;
use core::any::TypeId;
use core::ops::{Deref, DerefMut};
use core::ptr::NonNull;

use bumpdown::collections::Vec as ArenaVec;
use bumpdown::Arena;

use crate::chunks::{ChunkIter, ChunkRawIter};
use crate::error::{AllocErr, AllocOrInitError};

/// A bump arena with bumpalo's API: a [`bumpdown::Arena`] underneath.
///
/// Allocation moves a pointer through the current chunk; when it is full the arena takes
/// a bigger chunk from the global allocator. Everything is freed at once, by
/// [`reset`](Bump::reset) or by dropping the `Bump`. **Values in it are never dropped.**
///
/// `MIN_ALIGN` (1, 2, 4, 8 or 16) is an alignment every allocation keeps, as in bumpalo.
/// `Bump` dereferences to its [`Arena`], so bumpdown's own methods (`scope`,
/// `checkpoint`, `stats`, ...) can be called on it too.
///
/// ```
/// use bumpdown_bumpalo::Bump;
///
/// struct Point { x: i32, y: i32 }
///
/// let bump = Bump::new();
/// let p = bump.alloc(Point { x: 1, y: 2 });
/// let xs = bump.alloc_slice_fill_with(3, |i| i * 10);
/// p.x += 10;
/// assert_eq!((p.x, p.y, &*xs), (11, 2, &[0, 10, 20][..]));
/// ```
#[derive(Debug)]
pub struct Bump<const MIN_ALIGN: usize = 1> {
    arena: Arena<MIN_ALIGN>,
}

impl Bump {
    /// Makes an empty arena. Allocates nothing until the first allocation.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.allocated_bytes(), 0);
    /// ```
    pub const fn new() -> Self {
        Bump { arena: Arena::new() }
    }

    /// Like [`new`](Bump::new), which cannot fail (it allocates nothing): always `Ok`.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::try_new().unwrap();
    /// assert_eq!(*bump.alloc(3), 3);
    /// ```
    pub fn try_new() -> Result<Self, AllocErr> {
        Ok(Self::new())
    }

    /// Makes an arena whose first chunk holds at least `capacity` bytes.
    ///
    /// # Panics
    /// If that chunk cannot be allocated.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::with_capacity(4096);
    /// assert!(bump.chunk_capacity() >= 4096);
    /// ```
    #[track_caller]
    pub fn with_capacity(capacity: usize) -> Self {
        Bump { arena: Arena::with_capacity(capacity) }
    }

    /// Like [`with_capacity`](Bump::with_capacity), returning an error instead of
    /// panicking.
    ///
    /// ```
    /// use bumpdown_bumpalo::{AllocErr, Bump};
    ///
    /// assert!(Bump::try_with_capacity(4096).is_ok());
    /// assert_eq!(Bump::try_with_capacity(usize::MAX).err(), Some(AllocErr));
    /// ```
    pub fn try_with_capacity(capacity: usize) -> Result<Self, AllocErr> {
        Ok(Bump { arena: Arena::try_with_capacity(capacity)? })
    }
}

impl<const MIN_ALIGN: usize> Bump<MIN_ALIGN> {
    /// Makes an empty arena whose every allocation is aligned to at least `MIN_ALIGN`.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::<8>::with_min_align();
    /// assert_eq!(bump.alloc(1u8) as *mut u8 as usize % 8, 0);
    /// ```
    pub const fn with_min_align() -> Self {
        Bump { arena: Arena::with_min_align() }
    }

    /// Makes an arena aligned to `MIN_ALIGN` whose first chunk holds at least `capacity`
    /// bytes.
    ///
    /// # Panics
    /// If that chunk cannot be allocated.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::<16>::with_min_align_and_capacity(4096);
    /// assert!(bump.chunk_capacity() >= 4096);
    /// ```
    #[track_caller]
    pub fn with_min_align_and_capacity(capacity: usize) -> Self {
        Bump { arena: Arena::with_min_align_and_capacity(capacity) }
    }

    /// Like [`with_min_align_and_capacity`](Bump::with_min_align_and_capacity),
    /// returning an error instead of panicking.
    ///
    /// ```
    /// use bumpdown_bumpalo::Bump;
    ///
    /// assert!(Bump::<4>::try_with_min_align_and_capacity(4096).is_ok());
    /// assert!(Bump::<4>::try_with_min_align_and_capacity(usize::MAX).is_err());
    /// ```
    pub fn try_with_min_align_and_capacity(capacity: usize) -> Result<Self, AllocErr> {
        Ok(Bump { arena: Arena::try_with_capacity_in(capacity, bumpdown::Global)? })
    }

    /// The minimum alignment, `MIN_ALIGN`.
    ///
    /// ```
    /// assert_eq!(bumpdown_bumpalo::Bump::<8>::with_min_align().min_align(), 8);
    /// ```
    #[inline]
    pub fn min_align(&self) -> usize {
        MIN_ALIGN
    }

    /// The arena underneath, with bumpdown's whole API.
    ///
    /// ```
    /// let mut bump = bumpdown_bumpalo::Bump::new();
    /// bump.alloc(1u32);
    /// let arena: bumpdown::Arena = bump.into_arena();
    /// assert_eq!(arena.stats().used, 4);
    /// ```
    pub fn into_arena(self) -> Arena<MIN_ALIGN> {
        self.arena
    }

    /// The allocation limit set by [`set_allocation_limit`](Bump::set_allocation_limit).
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.allocation_limit(), None);
    /// bump.set_allocation_limit(Some(1 << 20));
    /// assert_eq!(bump.allocation_limit(), Some(1 << 20));
    /// ```
    #[inline]
    pub fn allocation_limit(&self) -> Option<usize> {
        self.arena.allocation_limit()
    }

    /// Caps the bytes the arena takes from the allocator, chunk headers included (`None`:
    /// no cap). A request that would go past it fails; the arena keeps working below it.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// bump.set_allocation_limit(Some(4096));
    /// assert!(bump.try_alloc([0u8; 1000]).is_ok());
    /// assert!(bump.try_alloc([0u8; 8000]).is_err());
    /// ```
    #[inline]
    pub fn set_allocation_limit(&self, limit: Option<usize>) {
        self.arena.set_allocation_limit(limit)
    }

    /// Frees everything allocated, at once. Unlike bumpalo, which keeps only its last
    /// chunk, every chunk is kept and refilled in order, so
    /// [`allocated_bytes`](Bump::allocated_bytes) does not drop; bumpdown's
    /// `reset_with_limit` bounds what is kept.
    ///
    /// ```
    /// let mut bump = bumpdown_bumpalo::Bump::new();
    /// bump.alloc_slice_fill_copy(10_000, 0u8);
    /// let held = bump.allocated_bytes();
    /// bump.reset();
    /// assert_eq!(bump.allocated_bytes(), held);
    /// ```
    #[inline]
    pub fn reset(&mut self) {
        self.arena.reset()
    }

    /// Puts `val` in the arena and returns a reference to it.
    ///
    /// # Panics
    /// If the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(*bump.alloc("x"), "x");
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn alloc<T>(&self, val: T) -> &mut T {
        self.arena.alloc(val)
    }

    /// Like [`alloc`](Bump::alloc), returning an error instead of panicking.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.try_alloc(5u8).map(|x| *x), Ok(5));
    /// ```
    #[inline(always)]
    pub fn try_alloc<T>(&self, val: T) -> Result<&mut T, AllocErr> {
        Ok(self.arena.try_alloc(val)?)
    }

    /// Puts the value `f` returns in the arena. The space is taken before `f` runs; the
    /// compiler *may* then build the value in place, but that is not guaranteed.
    ///
    /// # Panics
    /// If the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let big = bump.alloc_with(|| [7u8; 4096]);
    /// assert_eq!(big[4095], 7);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn alloc_with<F: FnOnce() -> T, T>(&self, f: F) -> &mut T {
        self.arena.alloc_with(f)
    }

    /// Like [`alloc_with`](Bump::alloc_with), returning an error instead of panicking.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.try_alloc_with(|| 1 + 1).map(|x| *x), Ok(2));
    /// ```
    #[inline(always)]
    pub fn try_alloc_with<F: FnOnce() -> T, T>(&self, f: F) -> Result<&mut T, AllocErr> {
        Ok(self.arena.try_alloc_with(f)?)
    }

    /// Takes space for a `T`, then calls `f`: its value goes in the arena, its error is
    /// returned and the space is given back.
    ///
    /// # Panics
    /// If the allocation fails (before `f` is called).
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.alloc_try_with(|| "12".parse::<u32>()).map(|x| *x), Ok(12));
    /// assert!(bump.alloc_try_with(|| "x".parse::<u32>()).is_err());
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_try_with<F: FnOnce() -> Result<T, E>, T, E>(&self, f: F) -> Result<&mut T, E> {
        // One slot, taken before `f` runs; if `f` fails, the dropped Vec gives the slot
        // back (it is the newest block), as bumpalo rewinds.
        let mut slot = ArenaVec::with_capacity_in(1, &self.arena);
        slot.push(f()?);
        Ok(&mut slot.into_bump_slice_mut()[0])
    }

    /// Like [`alloc_try_with`](Bump::alloc_try_with), returning an error instead of
    /// panicking: [`AllocOrInitError::Alloc`] if the space could not be taken (`f` is
    /// not called), [`AllocOrInitError::Init`] with `f`'s error.
    ///
    /// ```
    /// use bumpdown_bumpalo::{AllocOrInitError, Bump};
    ///
    /// let bump = Bump::new();
    /// bump.set_allocation_limit(Some(0));
    /// let r = bump.try_alloc_try_with(|| -> Result<u64, ()> { unreachable!() });
    /// assert!(matches!(r, Err(AllocOrInitError::Alloc(_))));
    /// ```
    #[inline]
    pub fn try_alloc_try_with<F: FnOnce() -> Result<T, E>, T, E>(&self, f: F) -> Result<&mut T, AllocOrInitError<E>> {
        let mut slot = ArenaVec::try_with_capacity_in(1, &self.arena).map_err(|e| AllocOrInitError::Alloc(e.into()))?;
        slot.push(f().map_err(AllocOrInitError::Init)?);
        Ok(&mut slot.into_bump_slice_mut()[0])
    }

    /// Copies `src` into the arena.
    ///
    /// # Panics
    /// If the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.alloc_slice_copy(&[1, 2, 3]), &[1, 2, 3]);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn alloc_slice_copy<T: Copy>(&self, src: &[T]) -> &mut [T] {
        self.arena.alloc_slice_copy(src)
    }

    /// Like [`alloc_slice_copy`](Bump::alloc_slice_copy), returning an error instead of
    /// panicking.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.try_alloc_slice_copy(&[1u8]).map(|s| s.len()), Ok(1));
    /// ```
    #[inline(always)]
    pub fn try_alloc_slice_copy<T: Copy>(&self, src: &[T]) -> Result<&mut [T], AllocErr> {
        Ok(self.arena.try_alloc_slice_copy(src)?)
    }

    /// Clones each element of `src` into the arena.
    ///
    /// # Panics
    /// If the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let names = [String::from("a"), String::from("b")];
    /// assert_eq!(bump.alloc_slice_clone(&names), &names);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_clone<T: Clone>(&self, src: &[T]) -> &mut [T] {
        self.arena.alloc_slice_clone(src)
    }

    /// Like [`alloc_slice_clone`](Bump::alloc_slice_clone), returning an error instead
    /// of panicking.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert!(bump.try_alloc_slice_clone(&[1, 2]).is_ok());
    /// ```
    #[inline]
    pub fn try_alloc_slice_clone<T: Clone>(&self, src: &[T]) -> Result<&mut [T], AllocErr> {
        Ok(self.arena.try_alloc_slice_clone(src)?)
    }

    /// Copies `src` into the arena.
    ///
    /// # Panics
    /// If the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let s = bump.alloc_str("hi");
    /// s.make_ascii_uppercase();
    /// assert_eq!(s, "HI");
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn alloc_str(&self, src: &str) -> &mut str {
        // The self-test of scripts/dependents.sh; off in every normal build.
        #[cfg(bumpdown_bumpalo_broken)]
        let src = crate::broken::off_by_one(src);
        self.arena.alloc_str(src)
    }

    /// Like [`alloc_str`](Bump::alloc_str), returning an error instead of panicking.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.try_alloc_str("hi").map(|s| &*s), Ok("hi"));
    /// ```
    #[inline(always)]
    pub fn try_alloc_str(&self, src: &str) -> Result<&mut str, AllocErr> {
        Ok(self.arena.try_alloc_str(src)?)
    }

    /// Allocates `len` values, the `i`-th made by `f(i)`.
    ///
    /// # Panics
    /// If the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.alloc_slice_fill_with(4, |i| i * i), &[0, 1, 4, 9]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_fill_with<T, F: FnMut(usize) -> T>(&self, len: usize, f: F) -> &mut [T] {
        self.arena.alloc_slice_fill_with(len, f)
    }

    /// Like [`alloc_slice_fill_with`](Bump::alloc_slice_fill_with), returning an error
    /// instead of panicking.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert!(bump.try_alloc_slice_fill_with(usize::MAX, |i| i).is_err());
    /// ```
    #[inline]
    pub fn try_alloc_slice_fill_with<T, F: FnMut(usize) -> T>(&self, len: usize, f: F) -> Result<&mut [T], AllocErr> {
        Ok(self.arena.try_alloc_slice_fill_with(len, f)?)
    }

    /// Allocates `len` values made by `f(i)`, stopping at the first error `f` returns.
    /// The values made before it are dropped and the space is given back.
    ///
    /// # Panics
    /// If the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let ok: Result<&mut [usize], ()> = bump.alloc_slice_try_fill_with(3, |i| Ok(i + 1));
    /// assert_eq!(ok.as_deref(), Ok(&[1, 2, 3][..]));
    /// let err: Result<&mut [usize], usize> = bump.alloc_slice_try_fill_with(3, |i| Err(i));
    /// assert_eq!(err, Err(0));
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_try_fill_with<T, F, E>(&self, len: usize, mut f: F) -> Result<&mut [T], E>
    where
        F: FnMut(usize) -> Result<T, E>,
    {
        // The whole slice is taken first; on error the Vec drops what it holds and gives
        // its block back (it is the arena's newest).
        let mut slice = ArenaVec::with_capacity_in(len, &self.arena);
        for i in 0..len {
            slice.push(f(i)?);
        }
        Ok(slice.into_bump_slice_mut())
    }

    /// Allocates `len` copies of `value`.
    ///
    /// # Panics
    /// If the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.alloc_slice_fill_copy(3, 'z'), &['z'; 3]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_fill_copy<T: Copy>(&self, len: usize, value: T) -> &mut [T] {
        self.arena.alloc_slice_fill_copy(len, value)
    }

    /// Like [`alloc_slice_fill_copy`](Bump::alloc_slice_fill_copy), returning an error
    /// instead of panicking.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert!(bump.try_alloc_slice_fill_copy(2, 0u64).is_ok());
    /// ```
    #[inline]
    pub fn try_alloc_slice_fill_copy<T: Copy>(&self, len: usize, value: T) -> Result<&mut [T], AllocErr> {
        Ok(self.arena.try_alloc_slice_fill_copy(len, value)?)
    }

    /// Allocates `len` clones of `value`.
    ///
    /// # Panics
    /// If the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let v = bump.alloc_slice_fill_clone(2, &String::from("ab"));
    /// assert_eq!(v, ["ab", "ab"]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_fill_clone<T: Clone>(&self, len: usize, value: &T) -> &mut [T] {
        self.arena.alloc_slice_fill_clone(len, value)
    }

    /// Like [`alloc_slice_fill_clone`](Bump::alloc_slice_fill_clone), returning an error
    /// instead of panicking.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert!(bump.try_alloc_slice_fill_clone(2, &1u8).is_ok());
    /// ```
    #[inline]
    pub fn try_alloc_slice_fill_clone<T: Clone>(&self, len: usize, value: &T) -> Result<&mut [T], AllocErr> {
        Ok(self.arena.try_alloc_slice_fill_clone(len, value)?)
    }

    /// Allocates a slice of the items of an iterator that knows its length.
    ///
    /// # Panics
    /// If the iterator yields fewer items than its `len()`, or the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.alloc_slice_fill_iter([1, 2].map(|x| x * 3)), &[3, 6]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_fill_iter<T, I>(&self, iter: I) -> &mut [T]
    where
        I: IntoIterator<Item = T>,
        I::IntoIter: ExactSizeIterator,
    {
        self.arena.alloc_slice_fill_iter(iter)
    }

    /// Like [`alloc_slice_fill_iter`](Bump::alloc_slice_fill_iter) over results,
    /// stopping at the first error (the items before it are dropped).
    ///
    /// # Panics
    /// If the iterator yields fewer items than its `len()`, or the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let ok: Result<&mut [i32], ()> = bump.alloc_slice_try_fill_iter([Ok(1), Ok(2)]);
    /// assert_eq!(ok.as_deref(), Ok(&[1, 2][..]));
    /// let err: Result<&mut [i32], &str> = bump.alloc_slice_try_fill_iter([Ok(1), Err("no")]);
    /// assert_eq!(err, Err("no"));
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_try_fill_iter<T, I, E>(&self, iter: I) -> Result<&mut [T], E>
    where
        I: IntoIterator<Item = Result<T, E>>,
        I::IntoIter: ExactSizeIterator,
    {
        let mut iter = iter.into_iter();
        self.alloc_slice_try_fill_with(iter.len(), |_| {
            iter.next().expect("bumpdown-bumpalo: the iterator yielded fewer items than its len()")
        })
    }

    /// Like [`alloc_slice_fill_iter`](Bump::alloc_slice_fill_iter), returning an error
    /// instead of panicking when the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.try_alloc_slice_fill_iter(0..3).map(|s| s.len()), Ok(3));
    /// ```
    #[inline]
    pub fn try_alloc_slice_fill_iter<T, I>(&self, iter: I) -> Result<&mut [T], AllocErr>
    where
        I: IntoIterator<Item = T>,
        I::IntoIter: ExactSizeIterator,
    {
        Ok(self.arena.try_alloc_slice_fill_iter(iter)?)
    }

    /// Allocates `len` default values.
    ///
    /// # Panics
    /// If the allocation fails.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert_eq!(bump.alloc_slice_fill_default::<u16>(2), &[0, 0]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn alloc_slice_fill_default<T: Default>(&self, len: usize) -> &mut [T] {
        self.arena.alloc_slice_fill_default(len)
    }

    /// Like [`alloc_slice_fill_default`](Bump::alloc_slice_fill_default), returning an
    /// error instead of panicking.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert!(bump.try_alloc_slice_fill_default::<u64>(usize::MAX).is_err());
    /// ```
    #[inline]
    pub fn try_alloc_slice_fill_default<T: Default>(&self, len: usize) -> Result<&mut [T], AllocErr> {
        Ok(self.arena.try_alloc_slice_fill_default(len)?)
    }

    /// Allocates an uninitialized block for `layout`.
    ///
    /// # Panics
    /// If the allocation fails.
    ///
    /// ```
    /// use core::alloc::Layout;
    ///
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// let p = bump.alloc_layout(Layout::from_size_align(24, 8).unwrap());
    /// assert_eq!(p.as_ptr() as usize % 8, 0);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn alloc_layout(&self, layout: Layout) -> NonNull<u8> {
        self.arena.alloc_layout(layout)
    }

    /// Like [`alloc_layout`](Bump::alloc_layout), returning an error instead of
    /// panicking.
    ///
    /// ```
    /// use core::alloc::Layout;
    ///
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// assert!(bump.try_alloc_layout(Layout::new::<u64>()).is_ok());
    /// ```
    #[inline(always)]
    pub fn try_alloc_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocErr> {
        Ok(self.arena.try_alloc_layout(layout)?)
    }

    /// Free bytes left in the current chunk.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::with_capacity(100);
    /// let before = bump.chunk_capacity();
    /// bump.alloc(0u32);
    /// assert_eq!(bump.chunk_capacity(), before - 4);
    /// ```
    #[inline]
    pub fn chunk_capacity(&self) -> usize {
        self.arena.chunk_capacity()
    }

    /// Each chunk's used bytes, newest chunk first: the arena's
    /// [`iter_allocated_chunks`](Arena::iter_allocated_chunks) as bumpalo's
    /// [`ChunkIter`], whose `MIN_ALIGN` is the `Bump`'s. Within a chunk the oldest
    /// allocation comes first (bumpalo: the newest).
    ///
    /// ```
    /// let mut bump = bumpdown_bumpalo::Bump::new();
    /// bump.alloc_str("ab");
    /// let used: usize = bump.iter_allocated_chunks().map(|c| c.len()).sum();
    /// assert_eq!(used, 2);
    /// ```
    #[inline]
    pub fn iter_allocated_chunks(&mut self) -> ChunkIter<'_, MIN_ALIGN> {
        ChunkIter { inner: self.arena.iter_allocated_chunks().fuse() }
    }

    /// The start and length of each chunk's used bytes, in
    /// [`iter_allocated_chunks`](Bump::iter_allocated_chunks)'s order, from `&self`.
    ///
    /// # Safety
    /// As the arena's [`iter_allocated_chunks_raw`](Arena::iter_allocated_chunks_raw):
    /// nothing allocates from the arena, resets it or frees from it while the iterator
    /// is in use, and the bytes are read only where no live reference into the arena says
    /// otherwise.
    #[inline]
    pub unsafe fn iter_allocated_chunks_raw(&self) -> ChunkRawIter<'_, MIN_ALIGN> {
        // SAFETY: forwarded from the caller.
        ChunkRawIter { inner: unsafe { self.arena.iter_allocated_chunks_raw() }.fuse() }
    }

    /// Usable bytes of all chunks the arena holds, chunk headers not counted.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// bump.alloc(1u8);
    /// assert!(bump.allocated_bytes() >= 1);
    /// ```
    #[inline]
    pub fn allocated_bytes(&self) -> usize {
        self.arena.allocated_bytes()
    }

    /// Bytes the arena holds from the allocator, chunk headers included.
    ///
    /// ```
    /// let bump = bumpdown_bumpalo::Bump::new();
    /// bump.alloc(1u8);
    /// assert!(bump.allocated_bytes_including_metadata() > bump.allocated_bytes());
    /// ```
    #[inline]
    pub fn allocated_bytes_including_metadata(&self) -> usize {
        self.arena.allocated_bytes_including_metadata()
    }
}

impl<const MIN_ALIGN: usize> Default for Bump<MIN_ALIGN> {
    /// An empty arena, as [`Bump::with_min_align`].
    fn default() -> Self {
        Self::with_min_align()
    }
}

impl<const MIN_ALIGN: usize> From<Arena<MIN_ALIGN>> for Bump<MIN_ALIGN> {
    /// Wraps a bumpdown arena, with what it holds.
    fn from(arena: Arena<MIN_ALIGN>) -> Self {
        Bump { arena }
    }
}

impl<const MIN_ALIGN: usize> Deref for Bump<MIN_ALIGN> {
    type Target = Arena<MIN_ALIGN>;

    fn deref(&self) -> &Arena<MIN_ALIGN> {
        &self.arena
    }
}

impl<const MIN_ALIGN: usize> DerefMut for Bump<MIN_ALIGN> {
    fn deref_mut(&mut self) -> &mut Arena<MIN_ALIGN> {
        &mut self.arena
    }
}

// SAFETY: every method forwards to the `Arena` this `Bump` owns, whose implementation
// keeps the trait's promises for blocks obtained through `&self`: the blocks are the
// arena's, valid until it is reset or dropped, which needs `&mut` to (or ownership of)
// the `Bump`, impossible while `&self` is borrowed.
unsafe impl<const MIN_ALIGN: usize> bumpdown::collections::ArenaAllocator for Bump<MIN_ALIGN> {
    #[inline]
    fn allocate(&self, layout: Layout) -> Result<NonNull<u8>, bumpdown::AllocError> {
        self.arena.allocate(layout)
    }

    #[inline]
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<u8>, bumpdown::AllocError> {
        // SAFETY: the caller's promises about `ptr`, `old` and `new` are the arena's
        // requirements: `ptr` is a block of this arena.
        unsafe { self.arena.grow(ptr, old, new) }
    }

    #[inline]
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<u8>, bumpdown::AllocError> {
        // SAFETY: as in `grow`.
        unsafe { self.arena.shrink(ptr, old, new) }
    }

    #[inline]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: as in `grow`.
        unsafe { self.arena.deallocate(ptr, layout) }
    }

    /// `Bump`'s own id, so a collection made with `&Bump` gives it back from its
    /// `bump()` (bumpalo's `Vec::bump`, `String::bump`).
    #[inline]
    fn arena_type_id(&self) -> Option<TypeId> {
        Some(TypeId::of::<Self>())
    }
}
