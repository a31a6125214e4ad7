//! A thread's heap: its window of the region and its free lists.
//!
//! Blocks are bumped **upwards** inside the window, so the newest block can grow in place
//! by moving the bump pointer. A thread touches only its own `Heap`, so nothing here is
//! atomic; the only shared step is carving a new window (one compare-exchange in
//! [`region::carve`]).
//!
//! # INVARIANT
//! * `cur <= end` (as addresses); `cur` and `end` are multiples of `GRAIN`. When `end != 0`,
//!   `cur..end` lies inside the region and belongs to this heap alone: no block, free or
//!   allocated, overlaps it.
//! * Every byte of `max(cur, fresh)..end` is zero (never written since it was carved).
//! * `free[c]` is null or the first of a null-terminated singly linked list of blocks of
//!   `class_size(c)` bytes in the region, each `GRAIN`-aligned, not allocated, not in any
//!   other list, its first word the address of the next.
//!
//! The empty heap has `cur == end == 0`: every bump test fails, so the first allocation
//! takes the slow path, which sets the region up; the fast path has no set-up branch.

use core::ptr;

use crate::classes::{class_of, class_size, floor_class, CLASSES, CLASS_MAX, GRAIN};
use crate::region;
use crate::shadow;

/// First window a thread carves; each later one doubles, up to [`MAX_WINDOW`].
pub const FIRST_WINDOW: usize = 64 << 10;
/// Largest window carved for small blocks (a bigger block gets a window of its own size).
pub const MAX_WINDOW: usize = 1 << 20;
/// Largest alignment the region serves; larger ones go to the fallback.
pub const MAX_ALIGN: usize = region::PAGE;

/// How freed blocks are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Sizes rounded to classes; freed blocks go to per-thread free lists and are reused
    /// (the newest block is still taken back by the bump pointer). Blocks larger than
    /// [`CLASS_MAX`] are not served by the region.
    Recycle,
    /// Pure bump: only the newest block is taken back; any size is served.
    Bump,
}

/// The chunk size the region uses for a request of `size` bytes in `mode`, or `None`
/// when the region does not serve it (too large for a class, or overflowing). Never 0.
///
/// ```
/// use bumpdown_global::{chunk_size, Mode};
/// assert_eq!(chunk_size(0, Mode::Bump), Some(16));
/// assert_eq!(chunk_size(100, Mode::Bump), Some(112));
/// assert_eq!(chunk_size(1100, Mode::Recycle), Some(1280));
/// assert_eq!(chunk_size(1 << 20, Mode::Recycle), None);
/// ```
#[inline(always)]
pub const fn chunk_size(size: usize, mode: Mode) -> Option<usize> {
    match mode {
        Mode::Recycle if size <= CLASS_MAX => Some(class_size(class_of(size))),
        Mode::Recycle => None,
        // Size 0 takes a grain too: every block's start lies strictly inside the region.
        Mode::Bump if size == 0 => Some(GRAIN),
        Mode::Bump if size <= isize::MAX as usize / 2 => crate::classes::checked_round_up(size, GRAIN),
        Mode::Bump => None,
    }
}

/// A thread's allocation state; see the module invariant.
///
/// ```
/// use bumpdown_global::{chunk_size, Heap, Mode};
///
/// // One heap per thread; `with_heap` reaches the current thread's.
/// let csz = chunk_size(100, Mode::Recycle).unwrap();
/// // SAFETY: csz comes from chunk_size; nothing inside the closure allocates through it.
/// let p = unsafe { bumpdown_global::with_heap(|h| h.alloc::<true>(csz, 16, Mode::Recycle, &|| bumpdown_global::region::Options::new(1 << 30))) };
/// assert!(!p.is_null() && p.addr() % 16 == 0);
/// // SAFETY: p is a live chunk of csz bytes that we give up.
/// unsafe { bumpdown_global::with_heap(|h| h.free(p, csz, Mode::Recycle)) };
/// ```
pub struct Heap {
    cur: *mut u8,
    end: usize,
    fresh: usize,
    window: usize,
    free: [*mut u8; CLASSES],
}

impl Heap {
    /// The empty heap (no window, empty lists).
    pub const EMPTY: Heap =
        Heap { cur: ptr::null_mut(), end: 0, fresh: 0, window: 0, free: [ptr::null_mut(); CLASSES] };

    /// Bytes left in the window.
    #[inline(always)]
    fn room(&self) -> usize {
        // Never wraps: cur <= end (invariant; both 0 when empty).
        self.end - self.cur.addr()
    }

    /// Allocates a chunk of `csz` bytes (from [`chunk_size`]) aligned to `align`
    /// (a power of two `<= MAX_ALIGN`), zeroed when `ZERO`. Null when the region cannot
    /// serve it (not set up, exhausted); the caller then falls back.
    ///
    /// Fast path: a free-list pop, or one comparison and one add.
    ///
    /// # Safety
    /// `csz` came from `chunk_size(_, mode)`; `align` is a power of two `<= MAX_ALIGN`;
    /// `init` gives the options to set the region up with, if it is not yet.
    #[inline(always)]
    pub unsafe fn alloc<const ZERO: bool>(
        &mut self,
        csz: usize,
        align: usize,
        mode: Mode,
        init: &impl Fn() -> region::Options,
    ) -> *mut u8 {
        if align <= GRAIN {
            if mode == Mode::Recycle {
                let class = class_of(csz);
                // SAFETY: class < CLASSES (csz <= CLASS_MAX in recycle mode).
                let head = unsafe { self.free.get_unchecked_mut(class) };
                if !head.is_null() {
                    let block = *head;
                    shadow::defined(block, size_of::<*mut u8>());
                    // SAFETY: a listed block is ours and holds the next address (invariant).
                    *head = unsafe { block.cast::<*mut u8>().read() };
                    handed_out::<ZERO>(block, csz);
                    if ZERO {
                        // SAFETY: the block is `class_size(class) == csz` bytes, ours now.
                        unsafe { block.write_bytes(0, csz) };
                    }
                    return block;
                }
            }
            if self.room() >= csz {
                let p = self.cur;
                // SAFETY: csz <= room: stays inside the window.
                self.cur = unsafe { p.add(csz) };
                handed_out::<ZERO>(p, csz);
                if ZERO {
                    // SAFETY: p..p+csz is ours (just bumped).
                    unsafe { self.zero_dirty(p, csz) };
                }
                return p;
            }
        }
        // SAFETY: forwarded caller contract.
        unsafe { self.alloc_slow::<ZERO>(csz, align, mode, init) }
    }

    /// Zeroes the part of `p..p+len` (just bumped from this window) below `fresh`.
    ///
    /// # Safety
    /// `p..p+len` was just bumped from the window (so it lies below the new `cur`).
    #[inline(always)]
    unsafe fn zero_dirty(&mut self, p: *mut u8, len: usize) {
        if p.addr() < self.fresh {
            let dirty = (self.fresh - p.addr()).min(len);
            // SAFETY: p..p+dirty is inside the block the caller owns.
            unsafe { p.write_bytes(0, dirty) };
        }
    }

    /// The slow path: the window has no room for `csz` bytes aligned to `align`, or
    /// `align > GRAIN`. Carves a new window if needed.
    ///
    /// # Safety
    /// As [`Heap::alloc`].
    #[cold]
    #[inline(never)]
    unsafe fn alloc_slow<const ZERO: bool>(
        &mut self,
        csz: usize,
        align: usize,
        mode: Mode,
        init: &impl Fn() -> region::Options,
    ) -> *mut u8 {
        for _ in 0..2 {
            // Where an aligned block would start, and the gap before it.
            let start = (self.cur.addr() + (align - 1)) & !(align - 1);
            let gap = start - self.cur.addr();
            if self.end >= start && self.end - start >= csz {
                // SAFETY: cur + gap = start <= end: inside the window.
                let p = unsafe { self.cur.add(gap) };
                if gap != 0 && mode == Mode::Recycle {
                    // SAFETY: cur..start is window memory no block overlaps.
                    unsafe { self.file_spare(self.cur, gap) };
                }
                // SAFETY: start + csz <= end.
                self.cur = unsafe { p.add(csz) };
                handed_out::<ZERO>(p, csz);
                if ZERO {
                    // SAFETY: p..p+csz was just bumped.
                    unsafe { self.zero_dirty(p, csz) };
                }
                return p;
            }
            if !self.refill(csz + if align > GRAIN { align } else { 0 }, mode, init) {
                return ptr::null_mut();
            }
        }
        // `refill` gave a window of at least csz + align bytes: unreachable.
        ptr::null_mut()
    }

    /// Gets a window of at least `need` bytes: extends the current one when the carved
    /// window happens to follow it, else files the old tail and switches. False when the
    /// region cannot give `need` bytes.
    #[cold]
    fn refill(&mut self, need: usize, mode: Mode, init: &impl Fn() -> region::Options) -> bool {
        if !region::initialized() && !region::init(init()) {
            return false;
        }
        let Some(need) = crate::classes::checked_round_up(need, region::PAGE) else {
            return false;
        };
        let window = if self.window == 0 { FIRST_WINDOW } else { self.window };
        let want = if need > window { need } else { window };
        // A thread's first window is left to fault in lazily (see `Options::populate`).
        let Some((start, len)) = region::carve(need, want, self.window != 0) else {
            return false;
        };
        self.window = (window * 2).min(MAX_WINDOW);
        if start.addr() == self.end {
            // Adjacent: the newest block can keep growing in place.
            self.end += len;
        } else {
            if mode == Mode::Recycle {
                // SAFETY: cur..end is this heap's window tail, overlapped by no block.
                unsafe { self.file_spare(self.cur, self.room()) };
            }
            self.cur = start;
            self.end = start.addr() + len;
            self.fresh = start.addr();
        }
        true
    }

    /// Files `len` spare bytes at `p` as free blocks (largest class first).
    ///
    /// # Safety
    /// `p..p+len` is `GRAIN`-aligned region memory owned by this heap that no block
    /// overlaps and that will not be bumped again.
    unsafe fn file_spare(&mut self, mut p: *mut u8, mut len: usize) {
        while let Some(class) = floor_class(len) {
            let size = class_size(class);
            // SAFETY: p..p+size lies in the spare range (size <= len).
            unsafe { self.push(p, class) };
            // SAFETY: size <= len: stays within (or one past) the spare range.
            p = unsafe { p.add(size) };
            len -= size;
        }
    }

    /// Pushes block `p` on list `class`.
    ///
    /// # Safety
    /// `p` is a `GRAIN`-aligned region block of `class_size(class)` bytes owned by the
    /// caller, in no list, and not used again by the caller.
    #[inline(always)]
    unsafe fn push(&mut self, p: *mut u8, class: usize) {
        // SAFETY: class < CLASSES (callers compute it from a recycled chunk size).
        let head = unsafe { self.free.get_unchecked_mut(class) };
        shadow::defined(p, size_of::<*mut u8>());
        // SAFETY: p is an owned block of at least GRAIN bytes, aligned.
        unsafe { p.cast::<*mut u8>().write(*head) };
        shadow::no_access(p, size_of::<*mut u8>());
        *head = p;
    }

    /// Frees chunk `p` of `csz` bytes: the newest block is taken back by the bump
    /// pointer; in recycling mode others go to their class list; in bump mode they leak.
    ///
    /// # Safety
    /// `p` is a live region chunk of `csz` bytes (its chunk size in `mode`) from any
    /// thread's heap; it is not used afterwards.
    #[inline(always)]
    pub unsafe fn free(&mut self, p: *mut u8, csz: usize, mode: Mode) {
        if p.addr() + csz == self.cur.addr() {
            // The newest block of this window: give it back to the bump pointer.
            self.fresh = self.fresh.max(self.cur.addr());
            self.cur = p;
        } else if mode == Mode::Recycle {
            // SAFETY: a recycled chunk is a whole class block; the caller gives it up.
            unsafe { self.push(p, class_of(csz)) };
        }
        shadow::no_access(p, csz);
    }

    /// Resizes chunk `p` from `old` to `new` chunk bytes without moving it, if `p` is
    /// the newest block of this window and the window (possibly extended) has room.
    /// Returns whether it did.
    ///
    /// # Safety
    /// `p` is a live region chunk of `old` bytes; `new` came from `chunk_size`.
    #[inline]
    pub unsafe fn resize_in_place(&mut self, p: *mut u8, old: usize, new: usize, mode: Mode) -> bool {
        if p.addr() + old != self.cur.addr() {
            return false;
        }
        if new <= old {
            self.fresh = self.fresh.max(self.cur.addr());
        } else if self.end - p.addr() < new && !self.extend(p, old, new, mode) {
            return false;
        }
        // SAFETY: p + new <= end (checked or shrinking): inside the window.
        self.cur = unsafe { p.add(new) };
        if new > old {
            shadow::undefined(p.wrapping_add(old), new - old);
        } else {
            shadow::no_access(p.wrapping_add(new), old - new);
        }
        true
    }

    /// Tries to extend the window so that newest block `p` (of `old` bytes, ending at `cur`)
    /// can reach `new` bytes: only succeeds when the next carved window is adjacent. A
    /// non-adjacent window replaces the current one (whose tail is filed), ready for the
    /// move that follows; `p` then no longer ends at `cur`.
    #[cold]
    fn extend(&mut self, p: *mut u8, old: usize, new: usize, mode: Mode) -> bool {
        // The region is set up (p is in it), so `init` is never called. Asking for `new`
        // bytes makes a non-adjacent window big enough for the moved block.
        self.refill(new, mode, &|| region::Options::new(0))
            && p.addr() + old == self.cur.addr()
            && self.end - p.addr() >= new
    }
}

/// Tells a memory checker that chunk `p` of `csz` bytes is handed out: addressable, and
/// initialised when it is about to be zeroed (or is fresh, untouched mapping) for `ZERO`.
#[inline(always)]
fn handed_out<const ZERO: bool>(p: *mut u8, csz: usize) {
    if ZERO {
        shadow::defined(p, csz);
    } else {
        shadow::undefined(p, csz);
    }
}
