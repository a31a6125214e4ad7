//! The bump engine: what every arena type is made of, written once.
//!
//! A face (`Arena`, the scope handle, `FixedArena`, `VmArena`, a `SyncArena`'s
//! `LocalArena`) is a [`Cursor`]: a bump pointer, the limit it may move to, and one
//! slow-path call for when a request does not fit. The engine turns that into
//! everything the typed API (`alloc_api.rs`) and the allocator traits need, for either
//! direction:
//!
//! * **up** (`UP = true`; `Arena`, its scopes, `FixedArena`, `VmArena`): the free range is
//!   `cursor..limit` and blocks are taken from its low end, so the newest block ends at
//!   the cursor and grows in place by moving it. The used part is `far_end..cursor`.
//!   For a type's size and alignment the new cursor is computed first (one add, one
//!   mask) and the block is a constant below it (`bumping::bump_up_small`).
//! * **down** (`UP = false`; `LocalArena`): the free range is
//!   `limit..cursor` and blocks are taken from its high end, so the cursor is a block's
//!   start (the seed's "always bump downwards": the size and the rounding share one
//!   subtraction). The used part is `cursor..far_end`.
//!
//! The arithmetic itself is in `bumping.rs`; this module only applies it to a face's
//! pointers. [`Engine`] is the interface the typed API calls: every `Cursor` has it
//! (blanket impl), and `SyncArena`, whose shared bump is atomic, implements it directly.
//!
//! Everything here is `#[inline(always)]` or generic, and the direction and `MIN_ALIGN`
//! are constants, so each face's fast path folds to the same instructions as if it were
//! written by hand for that face (the bench's fast-path table counts them).
//!
//! # Faces outside this crate
//! `bumpdown-global`'s per-thread windows (under `BumpGlobal` and the preloaded
//! `malloc`) are a face too: each window is a `Cursor`, and its heap takes blocks
//! through [`Engine::bump_layout`] and frees and resizes its newest block through
//! [`Cursor::free_newest`], [`Cursor::grow_newest_in_place`] and
//! [`Cursor::shrink_newest_in_place`], so a change to the engine reaches them.
//! That is why this module, [`Cursor`] and [`Engine`] are `pub` but `#[doc(hidden)]`,
//! like `bumping` and `os`: a surface for the sibling crates of this workspace, not a
//! stable API (it may change in any release). The trait cannot be sealed, since the
//! point is that another crate implements it; it is `unsafe` instead, so an
//! implementation states in a SAFETY comment why it keeps the invariant below. The
//! dependency goes one way only (`bumpdown-global` -> `bumpdown`), and nothing here needs
//! more than `core`.

use core::alloc::Layout;
use core::mem::{self, align_of, size_of, MaybeUninit};
use core::ptr::{self, NonNull};

use crate::bumping::{self, round_up, MIN_BOTTOM};
use crate::error::{block_or_panic, AllocError};

/// The error of a slow path that has no room and nowhere else to look
/// ([`AllocErrorKind::Full`](crate::AllocErrorKind::Full)), for a face outside this crate
/// (whose slow path cannot name `AllocError`'s crate-private constants).
pub const FULL: AllocError = AllocError::FULL;

/// A bump pointer, its limit and its slow path: what a face provides.
///
/// # Safety
/// An implementation promises, for as long as the face is borrowed:
/// * down: `MIN_BOTTOM <= limit() <= cursor() <= far_end()`, `limit() % CHUNK_ALIGN == 0`;
///   up: `far_end() <= cursor() <= limit() <= bumping::MAX_END`, `limit() % CHUNK_ALIGN == 0`;
///   and `cursor() % MIN_ALIGN == 0` in both;
/// * the free range (see the module docs) is memory the face owns, not in use, valid for
///   reads and writes, and `cursor()` carries the provenance of the whole block it lies
///   in (free and used part);
/// * `alloc_slow` returns a fresh block that fits the request, or an error with the face
///   still valid; it may move the cursor and the limit.
pub unsafe trait Cursor {
    /// An alignment the cursor always keeps (1, 2, 4, 8 or 16).
    const MIN_ALIGN: usize;
    /// Whether the cursor moves up (see the module docs).
    const UP: bool;
    /// Whether `set_cursor` prefetches ahead of the cursor itself (`VmArena`), so that
    /// the engine's own prefetch for large values would be a second one.
    const PREFETCHES: bool = false;
    /// Whether the face writes its own `alloc_slow_copy` (the copy inside its call out of
    /// line), so that the engine's copies take it. Without one the engine keeps one
    /// `memcpy` after either path: with the default, the copy in the slow path is a
    /// second call site, and `VmArena`'s fast path took three more instructions.
    const SLOW_COPIES: bool = false;

    /// The bump pointer, and how far it may move (the free range's far end): the two
    /// fields every fast path reads, so a face names them in one place.
    fn cursor_and_limit(&self) -> (*mut u8, usize);
    /// The used part's far end: a down face's chunk end, an up face's lowest block start.
    ///
    /// The engine reads it only to tell whether a block is the newest
    /// ([`is_newest`](Cursor::is_newest)): an up face's live block that starts at or above
    /// it and ends at the cursor is. (`bumpdown-global`'s windows return 0: a region block
    /// that ends at a window's cursor is its newest, whichever window bumped it.)
    fn far_end(&self) -> usize;

    /// The bump pointer.
    #[inline(always)]
    fn cursor(&self) -> *mut u8 {
        self.cursor_and_limit().0
    }

    /// How far the cursor may move.
    #[inline(always)]
    fn limit(&self) -> usize {
        self.cursor_and_limit().1
    }

    /// Moves the bump pointer.
    ///
    /// # Safety
    /// `p` is derived from `cursor()`, a multiple of `MIN_ALIGN`, inside
    /// `limit()..=far_end()` (down) or `far_end()..=limit()` (up); the bytes it hands out
    /// or gives back are not otherwise in use.
    unsafe fn set_cursor(&self, p: *mut u8);

    /// The slow path: the free range has no room for `size` bytes aligned to `align`
    /// (any values; this validates them). Returns a fresh block, the cursor moved past it.
    fn alloc_slow(&self, size: usize, align: usize) -> Result<NonNull<u8>, AllocError>;

    /// The slow path of a copy: a fresh block of `size` bytes aligned to `align` (as for
    /// `alloc_slow`) holding a copy of the `size` bytes at `src`. A face whose slow path
    /// is a call with the handle's fields by value (`Arena`, the scope handle) does the
    /// copy inside that call and sets [`SLOW_COPIES`](Cursor::SLOW_COPIES), so that `src`
    /// need not be kept across the call: `alloc_str` through `&Arena` saves one
    /// callee-saved register fewer and no longer pads the stack, two pushes and two pops
    /// fewer on every call (the bench's fast-path table: +7 instructions that serve the
    /// `memcpy` call instead of +11, as stumpalo's). The default is `alloc_slow` and a copy.
    ///
    /// # Safety
    /// `src` is not null, and `src..src + size` is valid for reads and does not overlap the
    /// face's free range.
    #[inline(always)]
    unsafe fn alloc_slow_copy(&self, src: *const u8, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        // SAFETY: forwarded.
        unsafe { copy_into(self.alloc_slow(size, align), src, size) }
    }

    /// The slow path of the plain (panicking) methods. A face whose slow path must take
    /// its cursor by value (the scope handle) writes its own.
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn alloc_slow_or_panic(&self, size: usize, align: usize) -> NonNull<u8> {
        block_or_panic(self.alloc_slow(size, align), size, align)
    }

    /// Frees `ptr` if it is a block with a chunk of its own (out of band); returns
    /// whether it did. Faces without such blocks keep this default.
    ///
    /// # Safety
    /// `ptr` is a live block of this face, not used again.
    unsafe fn free_if_big(&self, _ptr: NonNull<u8>) -> bool {
        false
    }

    /// Moves the cursor back over bytes that are free again (a freed or shrunk newest
    /// block). Faces that keep statistics or poison freed bytes write their own.
    ///
    /// # Safety
    /// As for `set_cursor`; `p` lies between the cursor and `far_end()`, and the bytes
    /// between it and the cursor are no longer used.
    unsafe fn release_to(&self, p: *mut u8) {
        // SAFETY: forwarded.
        unsafe { self.set_cursor(p) }
    }

    /// Every byte at or above this address that the next allocation hands out reads as
    /// zero, before the allocation (a `VmArena`'s never-used pages); `usize::MAX` when
    /// the face knows of no such memory (the default).
    fn zero_from(&self) -> usize {
        usize::MAX
    }

    /// Makes room for an up face's newest block to end at `end` (`end` at or above the
    /// cursor); `VmArena` commits memory here. The default allows what the limit allows.
    fn make_room_to(&self, end: usize) -> Result<(), AllocError> {
        if end <= self.limit() {
            Ok(())
        } else {
            Err(AllocError::FULL)
        }
    }

    // ----- Provided: resizing the newest block ----------------------------------------

    /// Whether `ptr..ptr + size` is the newest block. Exact for a live block of this face
    /// (every caller asks about one); for anything else the answer means nothing, but it
    /// is still an answer (no overflow, no panic).
    #[inline]
    fn is_newest(&self, ptr: NonNull<u8>, size: usize) -> bool {
        let (addr, cursor, far) = (ptr.as_ptr().addr(), self.cursor().addr(), self.far_end());
        if Self::UP {
            // A live block lies in memory, so `addr + size` is its end (no wrap). One of
            // the current chunk's ends at or below the cursor, exactly at it when newest.
            // One outside the chunk (an older chunk's, an out-of-band one) that starts at
            // or above `far` starts at or past the chunk's end, so it ends past the cursor
            // (such blocks are not zero-sized). Wrapping arithmetic keeps the test total.
            let end = addr.wrapping_add(size).wrapping_add(Self::MIN_ALIGN - 1) & !(Self::MIN_ALIGN - 1);
            far <= addr && end == cursor
        } else {
            // `cursor <= far_end`. A block starting at the cursor that is not from this
            // chunk (an out-of-band block that starts where the chunk ends) reaches past it.
            addr == cursor && size <= far - cursor
        }
    }

    /// Makes the newest block `new_size >= old_size` bytes aligned to `align`, in place:
    /// an up face moves its cursor; a down face moves the block's bytes down into the
    /// free range (`ptr::copy`), reusing its own space. `None` (nothing changed) when
    /// `ptr` is not the newest block or there is no room.
    ///
    /// # Safety
    /// `ptr` is a live block of this face of `old_size` bytes; on `Some` it is not used
    /// again (the returned block replaces it).
    #[inline]
    unsafe fn grow_newest_in_place(
        &self,
        ptr: NonNull<u8>,
        old_size: usize,
        new_size: usize,
        align: usize,
    ) -> Option<NonNull<u8>> {
        if !self.is_newest(ptr, old_size) {
            return None;
        }
        let cursor = self.cursor();
        if Self::UP {
            if ptr.as_ptr().addr() % align != 0 || new_size > isize::MAX as usize {
                return None;
            }
            // Checked: `ptr <= MAX_END` and `new_size <= isize::MAX` rule a wrap out on
            // 64-bit targets, but on a 32-bit one a block may lie above `isize::MAX`.
            let end = bumping::checked_round_up(ptr.as_ptr().addr().checked_add(new_size)?, Self::MIN_ALIGN)?;
            self.make_room_to(end).ok()?;
            // SAFETY: `end` is at or above the cursor (the block grows), within what
            // `make_room_to` allowed, a multiple of MIN_ALIGN, derived from the cursor.
            unsafe { self.set_cursor(cursor.with_addr(end)) };
            // The grown block with the cursor's provenance, which covers its new bytes
            // (the caller's `ptr` may cover only the old ones). Not null: `ptr` is not.
            // SAFETY: the address of `ptr`, which is not null.
            return Some(unsafe { NonNull::new_unchecked(cursor.with_addr(ptr.as_ptr().addr())) });
        }
        // The block's end: the allocation took `round_up(old_size, MIN_ALIGN)` bytes.
        let old_end = round_up(ptr.as_ptr().addr() + old_size, Self::MIN_ALIGN);
        let new_top = bumping::bump_checked(old_end, self.limit(), new_size, align, Self::MIN_ALIGN)?;
        let dst = cursor.with_addr(new_top);
        // SAFETY: `dst..dst + new_size` is the free range plus the old block (bumped down
        // from the block's end); `ptr::copy` allows the overlap. The new cursor is inside
        // `limit..=old_end`, derived from the cursor, aligned; it is at least `limit >=
        // MIN_BOTTOM`, so not null. The pointer moves first, so that the bytes are handed
        // out (and, under AddressSanitizer, addressable) before the copy writes them.
        unsafe {
            self.set_cursor(dst);
            ptr::copy(ptr.as_ptr(), dst, old_size);
            Some(NonNull::new_unchecked(dst))
        }
    }

    /// Gives the newest block back to the free range, if `ptr..ptr + size` is the newest
    /// block; returns whether it was. The one place a freed block's space comes back:
    /// [`dealloc_raw`](Cursor::dealloc_raw) and `bumpdown-global`'s heap both call it.
    ///
    /// # Safety
    /// `ptr` is a live block of this face of `size` bytes; when this returns `true` it is
    /// not used again.
    #[inline]
    unsafe fn free_newest(&self, ptr: NonNull<u8>, size: usize) -> bool {
        if !self.is_newest(ptr, size) {
            return false;
        }
        let addr = if Self::UP {
            ptr.as_ptr().addr()
        } else {
            // The block took `round_up(size, MIN_ALIGN)` bytes from the cursor, so its
            // rounded end is at most the chunk's end.
            round_up(ptr.as_ptr().addr() + size, Self::MIN_ALIGN)
        };
        // From the cursor, not from `ptr`: the caller's pointer may carry less than the
        // whole chunk's provenance (a reborrow of the block alone), and the cursor must
        // keep reaching the free range.
        let p = self.cursor().with_addr(addr);
        // SAFETY: the newest block, which the caller gives up; `p` is its far side, a
        // multiple of MIN_ALIGN, derived from the cursor.
        unsafe { self.release_to(p) };
        true
    }

    /// Shrinks the newest block in place to `new_size <= old_size` bytes, giving its tail
    /// back (an up face only: a down face's newest block starts at the cursor, so its
    /// tail is not next to the free range); returns whether it did.
    ///
    /// # Safety
    /// `ptr` is a live block of this face of `old_size` bytes; when this returns `true`
    /// nothing past its first `new_size` bytes is used again.
    #[inline]
    unsafe fn shrink_newest_in_place(&self, ptr: NonNull<u8>, old_size: usize, new_size: usize) -> bool {
        debug_assert!(new_size <= old_size);
        if !Self::UP || !self.is_newest(ptr, old_size) {
            return false;
        }
        let end = round_up(ptr.as_ptr().addr() + new_size, Self::MIN_ALIGN);
        // SAFETY: the newest block, shrinking: `end` lies between the block's start and the
        // cursor (rounded as the block's own end was), and the caller uses nothing past
        // `new_size` bytes.
        unsafe { self.release_to(self.cursor().with_addr(end)) };
        true
    }

    /// Frees a block if it is the newest one (its space is reused at once,
    /// [`free_newest`](Cursor::free_newest)) or an out-of-band one (see `free_if_big`);
    /// otherwise its space comes back at the next reset.
    ///
    /// # Safety
    /// `ptr` is a live block of this face made with `layout`, never used again.
    unsafe fn dealloc_raw(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: forwarded from the caller.
        if unsafe { !self.free_newest(ptr, layout.size()) } {
            // SAFETY: forwarded from the caller.
            unsafe { self.free_if_big(ptr) };
        }
    }

    /// Grows a block to `new` (`new.size() >= old.size()`), keeping its bytes: in place
    /// when it is the newest block and there is room, otherwise by copying it to a fresh
    /// block (and freeing the old one if it was out of band).
    ///
    /// # Safety
    /// `ptr` is a live block of this face made with `old`; on success it must not be
    /// used again (the returned block replaces it).
    unsafe fn grow_raw(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<u8>, AllocError>
    where
        Self: Engine,
    {
        debug_assert!(new.size() >= old.size());
        // SAFETY: forwarded from the caller.
        if let Some(p) = unsafe { self.grow_newest_in_place(ptr, old.size(), new.size(), new.align()) } {
            return Ok(p);
        }
        let fresh = Engine::alloc_layout_block(self, new)?;
        // SAFETY: `fresh` is a new block of at least `old.size()` bytes, distinct from the
        // live block `ptr` (the face never hands out memory twice).
        unsafe { ptr::copy_nonoverlapping(ptr.as_ptr(), fresh.as_ptr(), old.size()) };
        // SAFETY: the bytes are copied; the caller will not use the old block again.
        unsafe { self.free_if_big(ptr) };
        Ok(fresh)
    }

    /// Shrinks a block to `new` (`new.size() <= old.size()`): in place when `ptr` is
    /// aligned enough for `new` (an up face gives the newest block's tail back), otherwise
    /// a fresh block.
    ///
    /// # Safety
    /// As for [`grow_raw`](Cursor::grow_raw).
    unsafe fn shrink_raw(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Result<NonNull<u8>, AllocError>
    where
        Self: Engine,
    {
        debug_assert!(new.size() <= old.size());
        if ptr.as_ptr().addr() % new.align() != 0 {
            let fresh = Engine::alloc_layout_block(self, new)?;
            // SAFETY: distinct live blocks, `new.size() <= old.size()` bytes readable.
            unsafe { ptr::copy_nonoverlapping(ptr.as_ptr(), fresh.as_ptr(), new.size()) };
            return Ok(fresh);
        }
        // Otherwise (not the newest, or a down face) the tail stays until the next reset.
        // SAFETY: forwarded from the caller.
        unsafe { self.shrink_newest_in_place(ptr, old.size(), new.size()) };
        Ok(ptr)
    }
}

/// Where the typed API (`alloc_api.rs`) gets its memory: the fast paths, the slow path, and
/// the growing and shrinking of array blocks (`alloc_iter`).
///
/// Sealed: it is implemented only in this crate (for every [`Cursor`], and by `SyncArena`). Its provided
/// methods write through the blocks its required ones return, so an implementation
/// outside this crate (possible, and safe to write, now that the module is public for
/// `bumpdown-global`) could make them write anywhere; a face outside the crate
/// implements the `unsafe` trait `Cursor` instead.
pub trait Engine: sealed::Sealed {
    /// Where a `T` (not zero-sized) goes if it fits the fast path; the block is not yet
    /// taken (`claim_value` takes it, after the value is written). A raw pointer, not
    /// `NonNull`: `Option<NonNull>` would make LLVM test the address for null.
    fn bump_value<T>(&self) -> Option<*mut T>;

    /// Takes the block `bump_value` placed at `p`.
    ///
    /// # Safety
    /// `p` came from `bump_value` on this face, with nothing allocated since.
    unsafe fn claim_value<T>(&self, p: *mut T);

    /// A block for `len` elements of `elem_size > 0` bytes, taken; `None` if it does not
    /// fit the fast path (or the size overflows).
    fn bump_array(&self, len: usize, elem_size: usize, align: usize) -> Option<*mut u8>;

    /// A block of `size` bytes aligned to `align`, taken; `None` if it does not fit the
    /// fast path.
    fn bump_layout(&self, size: usize, align: usize) -> Option<*mut u8>;

    /// [`bump_layout`](Engine::bump_layout) for a size known to be at most `isize::MAX`
    /// (a slice's `size_of_val`, a `Layout`'s size): an upward face then tests the fit with one addition, whose
    /// sum is the new cursor, and one comparison with its limit.
    #[inline(always)]
    fn bump_sized(&self, size: usize, align: usize) -> Option<*mut u8> {
        self.bump_layout(size, align)
    }

    /// The slow path (see `Cursor::alloc_slow`).
    fn slow(&self, size: usize, align: usize) -> Result<NonNull<u8>, AllocError>;

    /// The slow path of the plain methods: the block, or the panic of `alloc_failed`.
    #[track_caller]
    fn slow_or_panic(&self, size: usize, align: usize) -> NonNull<u8>;

    /// Whether `slow_copy` is the face's own (see `Cursor::SLOW_COPIES`).
    const SLOW_COPIES: bool = false;

    /// The slow path of a copy (see `Cursor::alloc_slow_copy`).
    ///
    /// # Safety
    /// `src` is not null, and `src..src + size` is valid for reads and does not overlap the
    /// face's free memory.
    #[inline(always)]
    unsafe fn slow_copy(&self, src: *const u8, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        // SAFETY: forwarded.
        unsafe { copy_into(self.slow(size, align), src, size) }
    }

    /// Grows an array block of `cap` initialized `T` (not zero-sized) to `new_cap > cap`.
    ///
    /// # Safety
    /// `buf` is a live block of this face for `cap` elements of `T`, all initialized.
    unsafe fn grow_array<T>(&self, buf: NonNull<T>, cap: usize, new_cap: usize) -> Result<NonNull<T>, AllocError>;

    /// Gives back the part of an array block past its first `len` elements when it can;
    /// returns where the elements are now.
    ///
    /// # Safety
    /// `buf` is a live block of this face for `cap` elements of `T`, the first `len`
    /// initialized.
    unsafe fn shrink_array_to_fit<T>(&self, buf: NonNull<T>, len: usize, cap: usize) -> NonNull<T>;

    /// See `Cursor::zero_from`.
    fn zero_from(&self) -> usize {
        usize::MAX
    }

    /// A block for `layout`, fast path first: what `try_alloc_layout` and the copying
    /// branches of `grow_raw` / `shrink_raw` take.
    #[inline(always)]
    fn alloc_layout_block(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        // A `Layout`'s size is at most `isize::MAX`.
        match self.bump_sized(layout.size(), layout.align()) {
            // SAFETY: a block inside the face's memory, so not null.
            Some(p) => Ok(unsafe { NonNull::new_unchecked(p) }),
            None => self.slow(layout.size(), layout.align()),
        }
    }

    /// A fresh block for `len` elements of `T`, taken. Zero-sized `T` costs nothing;
    /// `len * size_of::<T>()` overflowing is `InvalidLayout`.
    #[inline(always)]
    fn alloc_array<T>(&self, len: usize) -> Result<NonNull<T>, AllocError> {
        if size_of::<T>() == 0 {
            return Ok(NonNull::dangling());
        }
        match self.bump_array(len, size_of::<T>(), align_of::<T>()) {
            // SAFETY: a block inside the face's memory, so not null.
            Some(p) => Ok(unsafe { NonNull::new_unchecked(p) }.cast()),
            // An overflowing product becomes usize::MAX, which the slow path rejects.
            None => self.slow(len.saturating_mul(size_of::<T>()), align_of::<T>()).map(NonNull::cast),
        }
    }

    // ----- Provided: the typed API's bodies ---------------------------------------------
    //
    // What each method of `alloc_api!` does, as raw blocks: the macro only gives the
    // results the lifetime of the face's blocks. Plain (`#[track_caller]`) versions panic
    // through `alloc_failed`; `try_` versions return the error with the face unchanged.

    /// Moves `val` into a fresh block. Zero-sized values take no memory.
    #[inline(always)]
    #[track_caller]
    fn alloc_value<T>(&self, val: T) -> NonNull<T> {
        if size_of::<T>() == 0 {
            let p = NonNull::<T>::dangling();
            // SAFETY: writing a zero-sized value through an aligned non-null pointer
            // touches no memory.
            unsafe { p.as_ptr().write(val) };
            return p;
        }
        let p = match self.bump_value::<T>() {
            Some(p) => {
                // Write before storing the new cursor, so that a run of allocations keeps
                // the cursor in a register instead of reloading it after each value's store.
                // SAFETY: `p` is in the free range, aligned for `T`, with room for it;
                // nothing else uses those bytes.
                unsafe { p.write(val) };
                // SAFETY: `p` came from `bump_value` and now holds the value.
                unsafe { self.claim_value(p) };
                p
            }
            None => {
                let p = self.slow_or_panic(size_of::<T>(), align_of::<T>()).cast::<T>().as_ptr();
                // SAFETY: the slow path returned a fresh block of `T`'s layout.
                unsafe { p.write(val) };
                p
            }
        };
        // SAFETY: a block inside the face's memory, so not null.
        unsafe { NonNull::new_unchecked(p) }
    }

    /// A fresh block for a `T`, taken, or the panic of `alloc_failed`. Dangling for a
    /// zero-sized `T`.
    #[inline(always)]
    #[track_caller]
    fn value_block<T>(&self) -> NonNull<T> {
        if size_of::<T>() == 0 {
            return NonNull::dangling();
        }
        match self.bump_value::<T>() {
            Some(p) => {
                // SAFETY: from `bump_value`; inside the face's memory, so not null.
                unsafe {
                    self.claim_value(p);
                    NonNull::new_unchecked(p)
                }
            }
            None => self.slow_or_panic(size_of::<T>(), align_of::<T>()).cast(),
        }
    }

    /// Like `value_block`, returning the slow path's error.
    #[inline(always)]
    fn try_value_block<T>(&self) -> Result<NonNull<T>, AllocError> {
        if size_of::<T>() == 0 {
            return Ok(NonNull::dangling());
        }
        match self.bump_value::<T>() {
            Some(p) => {
                // SAFETY: from `bump_value`; inside the face's memory, so not null.
                unsafe {
                    self.claim_value(p);
                    Ok(NonNull::new_unchecked(p))
                }
            }
            None => self.slow(size_of::<T>(), align_of::<T>()).map(NonNull::cast),
        }
    }

    /// A fresh array of `len` elements that `init` initializes, every one (or panics:
    /// then the elements it wrote leak, and the block stays taken).
    #[inline(always)]
    fn init_array<T>(&self, len: usize, init: impl FnOnce(&mut [MaybeUninit<T>])) -> Result<NonNull<T>, AllocError> {
        let p = self.alloc_array::<T>(len)?;
        // SAFETY: a fresh block for `len` elements (dangling for a zero-sized `T`), which
        // `MaybeUninit` needs no initialization to view; the view ends with `init`.
        init(unsafe { core::slice::from_raw_parts_mut(p.as_ptr().cast::<MaybeUninit<T>>(), len) });
        Ok(p)
    }

    /// Collects `iter` into one array, growing it in place while it is the newest block
    /// (copying it when the iterator allocated meanwhile), then giving back the unused
    /// tail. Returns the array and its length. On error, the items taken leak.
    fn collect_array<T, I: Iterator<Item = T>>(&self, iter: I) -> Result<(NonNull<T>, usize), AllocError> {
        if size_of::<T>() == 0 {
            let mut len = 0usize;
            for item in iter {
                mem::forget(item);
                len = len.checked_add(1).ok_or(AllocError::INVALID_LAYOUT)?;
            }
            // Zero-sized values need no memory: the forgotten items are the elements.
            return Ok((NonNull::dangling(), len));
        }
        let mut cap = iter.size_hint().0.max(4);
        let mut buf = self.alloc_array::<T>(cap)?;
        let mut len = 0;
        for item in iter {
            if len == cap {
                let new_cap = cap.checked_mul(2).ok_or(AllocError::INVALID_LAYOUT)?;
                // SAFETY: `buf` holds `cap` initialized elements of a live block of this
                // face with that array layout; `new_cap > cap`.
                buf = unsafe { self.grow_array(buf, cap, new_cap) }?;
                cap = new_cap;
            }
            // SAFETY: `len < cap`, inside the block.
            unsafe { buf.as_ptr().add(len).write(item) };
            len += 1;
        }
        // SAFETY: `buf` holds `len` initialized elements of a live block with room for
        // `cap >= len`.
        Ok((unsafe { self.shrink_array_to_fit(buf, len, cap) }, len))
    }

    /// Formats `args` into a fresh block of exactly its length (measured by formatting
    /// once first), and returns the block and the length: valid UTF-8.
    ///
    /// # Panics
    /// If a `Display` implementation fails, or prints something else the second time.
    fn format(&self, args: core::fmt::Arguments<'_>) -> Result<(NonNull<u8>, usize), AllocError> {
        if let Some(s) = args.as_str() {
            return self.copy_array(s.as_bytes()).map(|p| (p, s.len()));
        }
        let len = formatted_len(args).expect("a Display implementation returned an error");
        self.init_array::<u8>(len, |buf| format_into(buf, args)).map(|p| (p, len))
    }

    /// A fresh array holding a copy of `src`.
    #[inline(always)]
    fn copy_array<T: Copy>(&self, src: &[T]) -> Result<NonNull<T>, AllocError> {
        if size_of::<T>() == 0 {
            return Ok(NonNull::dangling());
        }
        // One copy after either path (`copy_bytes`: short ones inline), except for a face
        // that copies inside its slow path's call (`SLOW_COPIES`), whose slow path returns
        // the copied block.
        // `size_of_val` of a slice that exists is at most `isize::MAX`.
        let p = match self.bump_sized(size_of_val(src), align_of::<T>()) {
            // SAFETY: a block inside the face's memory, so not null.
            Some(p) => unsafe { NonNull::new_unchecked(p) },
            None if Self::SLOW_COPIES => {
                // SAFETY: `src` is a slice's pointer (not null), readable for its size, and
                // not in the face's free range (it is not handed out yet).
                return unsafe { self.slow_copy(src.as_ptr().cast(), size_of_val(src), align_of::<T>()) }
                    .map(NonNull::cast);
            }
            None => self.slow(size_of_val(src), align_of::<T>())?,
        }
        .cast::<T>();
        // SAFETY: `p` is a fresh block of `src`'s size, which cannot overlap `src` (live
        // memory the face did not just hand out).
        unsafe { crate::copy::copy_bytes(src.as_ptr().cast(), p.as_ptr().cast(), size_of_val(src)) };
        Ok(p)
    }

    /// A block for `layout` with every byte zero; bytes at or above `zero_from` (memory
    /// that reads as zero, never handed out) are not written again.
    #[inline]
    fn zeroed_layout_block(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        let zero_from = self.zero_from();
        let p = self.alloc_layout_block(layout)?;
        let dirty = zero_from.saturating_sub(p.as_ptr().addr()).min(layout.size());
        // SAFETY: the first `dirty` bytes of the fresh block; the rest lies at or above
        // `zero_from`, which reads as zero (`Cursor::zero_from`).
        unsafe { p.as_ptr().write_bytes(0, dirty) };
        Ok(p)
    }
}

/// `block` (a fresh block of `size` bytes, or the slow path's error) with the `size` bytes
/// at `src` copied into it: the default slow path of a copy (`Cursor::alloc_slow_copy`,
/// `Engine::slow_copy`).
///
/// # Safety
/// `src..src + size` is valid for reads and apart from the block.
#[inline(always)]
unsafe fn copy_into(
    block: Result<NonNull<u8>, AllocError>,
    src: *const u8,
    size: usize,
) -> Result<NonNull<u8>, AllocError> {
    let p = block?;
    // SAFETY: `p` is a fresh block of `size` bytes, apart from `src` (the caller).
    unsafe { ptr::copy_nonoverlapping(src, p.as_ptr(), size) };
    Ok(p)
}

/// How many bytes `args` formats to; `None` if a `Display` implementation fails.
pub(crate) fn formatted_len(args: core::fmt::Arguments<'_>) -> Option<usize> {
    struct Count(usize);
    impl core::fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            self.0 = self.0.checked_add(s.len()).ok_or(core::fmt::Error)?;
            Ok(())
        }
    }
    let mut count = Count(0);
    core::fmt::write(&mut count, args).ok().map(|()| count.0)
}

/// Formats `args` into `buf`, which must be exactly as long as the text
/// (`formatted_len`), filling every byte with valid UTF-8.
///
/// # Panics
/// If formatting fails or gives a text of another length this time.
fn format_into(buf: &mut [MaybeUninit<u8>], args: core::fmt::Arguments<'_>) {
    struct Fill<'a> {
        buf: &'a mut [MaybeUninit<u8>],
        len: usize,
    }
    impl core::fmt::Write for Fill<'_> {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            let dst = self.buf.get_mut(self.len..).and_then(|rest| rest.get_mut(..s.len())).ok_or(core::fmt::Error)?;
            // SAFETY: `dst` and `s` have the same length; `MaybeUninit<u8>` has the
            // layout of `u8`; a `&str` cannot overlap a fresh block.
            unsafe { ptr::copy_nonoverlapping(s.as_ptr(), dst.as_mut_ptr().cast::<u8>(), s.len()) };
            self.len += s.len();
            Ok(())
        }
    }
    let mut fill = Fill { buf, len: 0 };
    let ok = core::fmt::write(&mut fill, args).is_ok();
    // Every byte written, and they are the concatenation of `str`s: valid UTF-8.
    assert!(ok && fill.len == fill.buf.len(), "a Display implementation printed different text the second time");
}

/// Asks the CPU to start loading the line
/// [`PREFETCH_AHEAD`](bumping::PREFETCH_AHEAD) bytes above `top` (see [`prefetch`]).
#[inline(always)]
pub(crate) fn prefetch_ahead(top: *mut u8) {
    // `wrapping_add` makes no claim about the address.
    prefetch(top.wrapping_add(bumping::PREFETCH_AHEAD));
}

/// Asks the CPU to start loading the cache line that holds `p`, for a read or write soon
/// (one `prefetcht0` on x86-64; nothing elsewhere, or under Miri). Any address will do,
/// null or unmapped included: nothing is read that the program sees.
#[inline(always)]
pub fn prefetch(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: a prefetch is only a hint: it reads nothing the program sees and never
    // faults, whatever the address.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = p;
}

/// A block of `size` bytes aligned to `align` from the free range, cursor moved. `SIZED`:
/// `size` is at most `isize::MAX`, so an upward face tests the fit with one addition
/// (`bumping::bump_up_sized`).
#[inline(always)]
fn bump_layout<C: Cursor + ?Sized, const SIZED: bool>(face: &C, size: usize, align: usize) -> Option<*mut u8> {
    let cursor = face.cursor();
    let start = if C::UP && SIZED {
        bumping::bump_up_sized(cursor.addr(), face.limit(), size, align, C::MIN_ALIGN)?
    } else if C::UP {
        bumping::bump_up(cursor.addr(), face.limit(), size, align, C::MIN_ALIGN)?
    } else {
        bumping::bump(cursor.addr(), face.limit(), size, align, C::MIN_ALIGN)?
    };
    // SAFETY: from `bumping`: inside the free range, derived from the cursor, a multiple
    // of MIN_ALIGN; a block that fits ends (up) at most at the limit.
    unsafe { take(face, cursor, start, size) };
    Some(cursor.with_addr(start))
}

/// Moves the cursor past a block of `size` bytes at `start`, which `bumping` placed.
///
/// # Safety
/// `start` came from a `bumping` function for this face's cursor and limit, for `size`.
#[inline(always)]
unsafe fn take<C: Cursor + ?Sized>(face: &C, cursor: *mut u8, start: usize, size: usize) {
    let new_cursor = if C::UP {
        // The rounded size fits below the limit (checked by `bumping`).
        start + round_up(size, C::MIN_ALIGN)
    } else {
        start
    };
    // SAFETY: from the caller: inside the free range, a multiple of MIN_ALIGN.
    unsafe { face.set_cursor(cursor.with_addr(new_cursor)) }
}

pub(crate) mod sealed {
    /// What keeps [`Engine`](super::Engine) to this crate's implementations.
    pub trait Sealed {}
    impl<C: super::Cursor> Sealed for C {}
}

impl<C: Cursor> Engine for C {
    const SLOW_COPIES: bool = C::SLOW_COPIES;

    /// For `T = u64` and `MIN_ALIGN = 1`, an up face's (`Arena`'s) `alloc` compiles to
    /// (x86_64):
    ///
    /// ```text
    /// mov  rcx, qword ptr [rdi]       ; cursor
    /// add  rcx, 15                    ; cursor + size_of::<u64>() + (align - 1)
    /// and  rcx, -8                    ; the block's end, aligned (folds away when
    ///                                 ; align <= MIN_ALIGN: then a single `lea`)
    /// cmp  rcx, qword ptr [rdi + 8]   ; past the limit?
    /// ja   .slow                      ; the only branch: out of line, cold
    /// lea  rax, [rcx - 8]             ; the block (returned; a store folds it in)
    /// mov  qword ptr [rcx - 8], rsi   ; write the value
    /// mov  qword ptr [rdi], rcx       ; store the new cursor
    /// ret
    /// ```
    ///
    /// A down face's is the same without the `lea`: `cursor - 8`, masked, is both the
    /// block and the new cursor.
    ///
    /// `tests/fast_path_asm.rs` checks the instruction and branch counts.
    #[inline(always)]
    fn bump_value<T>(&self) -> Option<*mut T> {
        let cursor = self.cursor();
        let (size, align) = (size_of::<T>(), align_of::<T>());
        // The `if`s fold: the size, the alignment and the direction are constants.
        let start = match (C::UP, size <= MIN_BOTTOM) {
            (true, true) => bumping::bump_up_small(cursor.addr(), self.limit(), size, align, C::MIN_ALIGN),
            // A type's size is at most `isize::MAX`.
            (true, false) => bumping::bump_up_sized(cursor.addr(), self.limit(), size, align, C::MIN_ALIGN),
            (false, true) => bumping::bump_small(cursor.addr(), self.limit(), size, align, C::MIN_ALIGN),
            (false, false) => bumping::bump(cursor.addr(), self.limit(), size, align, C::MIN_ALIGN),
        }?;
        // A large value: start loading the lines ahead (see `PREFETCH_VALUE`). Folds away
        // for smaller types and for a face that prefetches on every allocation.
        if C::UP && !C::PREFETCHES && size >= bumping::PREFETCH_VALUE {
            prefetch_ahead(cursor.with_addr(start));
        }
        // `alloc` writes the value before it claims the block: under AddressSanitizer
        // the bytes must be addressable before that write.
        #[cfg(bumpdown_asan)]
        // SAFETY: the block is in the free range: `start..cursor` (down) or
        // `start..start + size` (up).
        unsafe {
            if C::UP {
                crate::asan::unpoison(cursor.with_addr(start), size)
            } else {
                crate::asan::unpoison(cursor.with_addr(start), cursor.addr() - start)
            }
        };
        Some(cursor.with_addr(start).cast())
    }

    #[inline(always)]
    unsafe fn claim_value<T>(&self, p: *mut T) {
        // SAFETY: from `bump_value` with nothing allocated since (the caller).
        unsafe { take(self, self.cursor(), p.addr(), size_of::<T>()) }
    }

    #[inline(always)]
    fn bump_array(&self, len: usize, elem_size: usize, align: usize) -> Option<*mut u8> {
        let cursor = self.cursor();
        let start = if C::UP {
            bumping::bump_up_array(cursor.addr(), self.limit(), len, elem_size, align, C::MIN_ALIGN)?
        } else {
            bumping::bump_array(cursor.addr(), self.limit(), len, elem_size, align, C::MIN_ALIGN)?
        };
        // SAFETY: from `bumping`, which checked that `len * elem_size` fits (so the
        // product does not overflow).
        unsafe { take(self, cursor, start, len * elem_size) };
        Some(cursor.with_addr(start))
    }

    #[inline(always)]
    fn bump_layout(&self, size: usize, align: usize) -> Option<*mut u8> {
        bump_layout::<C, false>(self, size, align)
    }

    #[inline(always)]
    fn bump_sized(&self, size: usize, align: usize) -> Option<*mut u8> {
        bump_layout::<C, true>(self, size, align)
    }

    #[inline(always)]
    fn slow(&self, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        self.alloc_slow(size, align)
    }

    #[inline(always)]
    #[track_caller]
    fn slow_or_panic(&self, size: usize, align: usize) -> NonNull<u8> {
        self.alloc_slow_or_panic(size, align)
    }

    #[inline(always)]
    unsafe fn slow_copy(&self, src: *const u8, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        // SAFETY: forwarded.
        unsafe { self.alloc_slow_copy(src, size, align) }
    }

    #[inline(always)]
    fn zero_from(&self) -> usize {
        Cursor::zero_from(self)
    }

    unsafe fn grow_array<T>(&self, buf: NonNull<T>, cap: usize, new_cap: usize) -> Result<NonNull<T>, AllocError> {
        let old_size = cap * size_of::<T>();
        let new_size = new_cap.checked_mul(size_of::<T>()).ok_or(AllocError::INVALID_LAYOUT)?;
        // SAFETY: forwarded from the caller; on success `buf` is replaced.
        if let Some(p) = unsafe { self.grow_newest_in_place(buf.cast(), old_size, new_size, align_of::<T>()) } {
            return Ok(p.cast());
        }
        let fresh = self.alloc_array::<T>(new_cap)?;
        // SAFETY: distinct live blocks; `cap` initialized elements move to the new one.
        unsafe { ptr::copy_nonoverlapping(buf.as_ptr(), fresh.as_ptr(), cap) };
        // SAFETY: the old block is no longer used; if it had an out-of-band chunk of its
        // own, that chunk goes back now.
        unsafe { self.free_if_big(buf.cast()) };
        Ok(fresh)
    }

    unsafe fn shrink_array_to_fit<T>(&self, buf: NonNull<T>, len: usize, cap: usize) -> NonNull<T> {
        let block = cap * size_of::<T>();
        if len == cap || !self.is_newest(buf.cast(), block) {
            return buf;
        }
        if C::UP {
            let end = round_up(buf.as_ptr().addr() + len * size_of::<T>(), C::MIN_ALIGN);
            // SAFETY: the newest block, shrinking: its elements past `len` are unused,
            // and `end` lies between its start and the cursor.
            unsafe { self.release_to(self.cursor().with_addr(end)) };
            return buf;
        }
        // Down: move the elements as high as the block allows while keeping every
        // allocation aligned to MIN_ALIGN; `buf` is aligned to it, so `dst` stays inside.
        let align = align_of::<T>().max(C::MIN_ALIGN);
        // `(cap - len) * size_of::<T>()` is inside the block, so it does not overflow.
        let high = buf.as_ptr().addr() + (cap - len) * size_of::<T>();
        let dst = self.cursor().with_addr(bumping::round_down(high, align)).cast::<T>();
        // SAFETY: `buf <= dst <= buf + (cap - len)` and `dst` is aligned for `T` (rounding
        // down to a multiple of `align_of::<T>()` from an aligned offset), so the `len`
        // elements fit in the block at `dst`; `ptr::copy` handles the overlap. The new
        // cursor is `dst`: inside the block, derived from the cursor, a multiple of
        // MIN_ALIGN; the bytes below it are unused now.
        unsafe {
            ptr::copy(buf.as_ptr(), dst, len);
            self.set_cursor(dst.cast());
            NonNull::new_unchecked(dst)
        }
    }
}
