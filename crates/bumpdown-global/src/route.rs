//! Routing: how a front end serves a request from the region, written once for
//! `BumpGlobal` and for `bumpdown-malloc`'s `malloc`.
//!
//! Both front ends decide the same way:
//! * **allocate**: the request's chunk size ([`chunk_for`]) says whether the region serves
//!   it at all; if it does, the current thread's heap tries ([`alloc`]). A `None` or a
//!   null sends the request to the front end's own fallback (`BumpGlobal`: a mapping of
//!   its own or the C library's `malloc`; `bumpdown-malloc`: glibc's `__libc_*` with a
//!   header in front).
//! * **free**: a block is the region's if its address is ([`region::contains`]); it goes
//!   back to the current thread's heap ([`free`]).
//! * **realloc**: a region block whose new request rounds to the same chunk stays, and the
//!   newest block of a window grows or shrinks in place ([`resize`]); any other block moves
//!   ([`move_block`]). A front end that records a block's size (the malloc header) may also
//!   keep a block that shrinks; `BumpGlobal` learns the size from the layout at `dealloc`,
//!   so it keeps one only in bump mode, where it would not be recycled anyway.
//!
//! The front ends differ only in where they keep each thread's heap, a [`HeapSlot`]:
//! `BumpGlobal` uses `ThreadHeap` (a `thread_local!`, see `thread.rs`), the preloaded
//! malloc a slot in initial-exec TLS that it reaches without a call. Everything here is
//! `#[inline(always)]` (or small) and generic over the slot, so each front end's fast path
//! compiles as if it were written out by hand.

use core::ptr;

use crate::heap::{chunk_size, Heap, Mode, MAX_ALIGN};
use crate::region;

/// Where a front end keeps each thread's [`Heap`].
///
/// # Safety
/// `with_heap` hands `f` a heap that only the calling thread ever reaches, which started
/// as [`Heap::EMPTY`] and has been changed only through `Heap`'s own methods, always with
/// this slot's [`CHUNK_PHASE`](HeapSlot::CHUNK_PHASE) (no slot of another phase reaches it).
pub unsafe trait HeapSlot {
    /// The heap's phase (see [`heap`](crate::heap)): 0, or
    /// [`PHASE_HEADER`](crate::heap::PHASE_HEADER) for a front end that writes an 8-byte
    /// header at the start of each chunk. Such a front end asks for alignments of at most
    /// `GRAIN` only.
    const CHUNK_PHASE: usize = 0;

    /// Runs `f` on the current thread's heap.
    ///
    /// # Safety
    /// `f` must not reach the same heap again (directly, or by allocating through a front
    /// end that uses it): that would make a second `&mut Heap`.
    unsafe fn with_heap<R>(f: impl FnOnce(&mut Heap) -> R) -> R;
}

/// The chunk size the region gives a request of `size` bytes aligned to `align` in `mode`,
/// or `None` when the region does not serve it: too large for `mode` or overflowing (see
/// [`chunk_size`]), or aligned to more than [`MAX_ALIGN`]. Such a request goes to the
/// fallback.
///
/// ```
/// use bumpdown_global::heap::MAX_ALIGN;
/// use bumpdown_global::route::chunk_for;
/// use bumpdown_global::Mode;
///
/// assert_eq!(chunk_for(100, 8, Mode::Bump), Some(112));
/// assert_eq!(chunk_for(100, 2 * MAX_ALIGN, Mode::Bump), None);
/// assert_eq!(chunk_for(1 << 20, 8, Mode::Recycle), None);
/// ```
#[inline(always)]
pub const fn chunk_for(size: usize, align: usize, mode: Mode) -> Option<usize> {
    match chunk_size(size, align, mode) {
        Some(csz) if align <= MAX_ALIGN => Some(csz),
        _ => None,
    }
}

/// A fresh region chunk of `csz` bytes aligned to `align`, zeroed when `ZERO`, from the
/// current thread's heap; null when the region cannot serve it now (it could not be set
/// up, or it is exhausted): the caller falls back.
///
/// (It takes the chunk size rather than the request, and returns a pointer rather than an
/// `Option`, so that `BumpGlobal::alloc` stays small enough to be inlined into
/// `__rust_alloc`.)
///
/// # Safety
/// `csz` came from [`chunk_for`]`(_, align, mode)`; `align` is a power of two, at most
/// `GRAIN` when `S::CHUNK_PHASE` is not 0; `init`, called to set the region up if it is
/// not yet, does not allocate through a front end that uses `S`.
#[inline(always)]
pub unsafe fn alloc<S: HeapSlot, const ZERO: bool>(
    csz: usize,
    align: usize,
    mode: Mode,
    init: &impl Fn() -> region::Options,
) -> *mut u8 {
    // SAFETY: `csz` came from `chunk_size(_, align, mode)` and `align` is a power of two
    // at most MAX_ALIGN (`chunk_for`), and at most GRAIN for a phased slot (the caller);
    // `S::CHUNK_PHASE` is the heap's phase (`HeapSlot`'s contract); neither the heap nor
    // `init` allocates through `S` (the caller).
    unsafe { S::with_heap(|heap| heap.alloc::<ZERO>(csz, align, mode, S::CHUNK_PHASE, init)) }
}

/// [`alloc`]'s fast path alone (see [`Heap::alloc_fast`]): a fresh region chunk of `csz`
/// bytes from the current thread's free list or window, or null, having called nothing.
///
/// # Safety
/// `csz` came from [`chunk_for`]`(_, align, mode)` with `align <= GRAIN`.
#[inline(always)]
pub unsafe fn alloc_fast<S: HeapSlot, const ZERO: bool>(csz: usize, mode: Mode) -> *mut u8 {
    // SAFETY: forwarded caller contract; the fast path allocates nothing through `S`.
    unsafe { S::with_heap(|heap| heap.alloc_fast::<ZERO>(csz, mode, S::CHUNK_PHASE)) }
}

/// Gives region chunk `chunk` of `csz` bytes back to the current thread's heap.
///
/// # Safety
/// `chunk` is a live region chunk (from any thread's heap of slot `S`) whose chunk size
/// in `mode` is `csz`; it is not used afterwards.
///
/// (A block the region served was aligned to at most [`MAX_ALIGN`], so its front end
/// computes `csz` with [`chunk_size`]: the test of [`chunk_for`] is known to pass.)
#[inline(always)]
pub unsafe fn free<S: HeapSlot>(chunk: *mut u8, csz: usize, mode: Mode) {
    // SAFETY: forwarded caller contract; freeing never allocates.
    unsafe { S::with_heap(|heap| heap.free(chunk, csz, mode, S::CHUNK_PHASE)) }
}

/// What [`resize`] did with a region chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resize {
    /// The new request has the same chunk size: nothing changed.
    Same,
    /// The chunk was the newest block of its window and now has the new size.
    InPlace,
    /// The chunk cannot change size where it is: the caller moves it (or, to shrink it,
    /// may keep it whole).
    Refused,
}

/// Resizes region chunk `chunk` from `old` to `new` chunk bytes without moving it, if the
/// two are the same or it is the newest block of its window and there is room.
///
/// # Safety
/// `chunk` is a live region chunk whose chunk size in `mode` is `old`; `new` is the
/// [`chunk_size`] in `mode` of a request with the alignment `chunk` was allocated with.
#[inline]
pub unsafe fn resize<S: HeapSlot>(chunk: *mut u8, old: usize, new: usize, mode: Mode) -> Resize {
    if new == old {
        return Resize::Same;
    }
    // SAFETY: forwarded caller contract; `S::CHUNK_PHASE` is the heap's phase (`HeapSlot`'s
    // contract); resizing never allocates.
    if unsafe { S::with_heap(|heap| heap.resize_in_place(chunk, old, new, mode, S::CHUNK_PHASE)) } {
        Resize::InPlace
    } else {
        Resize::Refused
    }
}

/// Moves a block that cannot be resized where it is: `alloc` a new one of `new` bytes,
/// copy what fits of the `old` bytes of `p` into it, `free` `p`, and return the new block.
/// Null when `alloc` fails; `p` is then untouched.
///
/// # Safety
/// `p` is a live block of at least `old` bytes; `alloc` returns null or a fresh block of
/// at least `new` bytes; `free` frees `p`, which is not used afterwards.
#[inline]
pub unsafe fn move_block(
    p: *mut u8,
    old: usize,
    new: usize,
    alloc: impl FnOnce() -> *mut u8,
    free: impl FnOnce(*mut u8),
) -> *mut u8 {
    let q = alloc();
    if !q.is_null() {
        // SAFETY: both blocks are live and at least `min(old, new)` bytes long; `q` is
        // fresh, so distinct from `p`.
        unsafe { ptr::copy_nonoverlapping(p, q, old.min(new)) };
        free(p);
    }
    q
}
