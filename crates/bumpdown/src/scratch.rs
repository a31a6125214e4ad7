//! `scratch`: temporary memory from the current thread's own arenas (Bumper.jl's
//! `@no_escape` with its task-local default buffer, checked by the compiler).
//!
//! Each nesting depth of `scratch` calls on a thread has an arena of its own. A nested
//! call cannot share its caller's arena: the caller's scope keeps its bump pointer in a
//! local, and it may still allocate while the nested call runs (the closure can capture
//! it). With one arena per depth, every scope owns its arena outright, which is what
//! makes `Scope` sound. Arenas are created the first time a depth is reached, kept for
//! the next call (so a hot loop makes no backing-allocator calls), trimmed to
//! [`SCRATCH_RETAIN`] bytes when a call returns, and freed when the thread exits.

use core::cell::{Cell, UnsafeCell};
use core::mem::ManuallyDrop;
use std::boxed::Box;
use std::vec::Vec;

use crate::arena::Arena;
use crate::scope::{run_scope_telling, Scope};

/// What each depth's scratch arena keeps between calls, at most: 1 MiB. Memory beyond
/// that (a one-off large temporary) goes back to the allocator when the call returns.
pub const SCRATCH_RETAIN: usize = 1 << 20;

/// The `depth` of a thread whose arenas are gone (its [`Cleanup`] has run): every call
/// from then on takes the own-arena path. Far above any real depth.
const RETIRED: usize = usize::MAX / 2;

/// The `depth` of a thread that has not called `scratch` yet: its first call takes the
/// slow entry, which registers [`Cleanup`], so that no later exit has to check for it.
/// Below [`RETIRED`], far above any real depth.
const FRESH: usize = usize::MAX / 4;

/// The arenas of one thread, one per nesting depth.
///
/// Nothing in it needs dropping, so its `thread_local!` has no destructor, and reaching
/// it is an address, with no check of whether it is alive (it always is, until the
/// thread is gone). The arenas are freed by [`Cleanup`], a second thread-local whose
/// destructor is registered by the thread's first `scratch` call.
struct Scratch {
    /// How many `scratch` calls are running on this thread, [`FRESH`] before the first,
    /// or [`RETIRED`].
    depth: Cell<usize>,
    // INVARIANT: the arena of depth `d` (`first` for 0, `more[d - 1]` above) is used only
    // by the `scratch` call running at depth `d`. The pointers in `more` come from
    // `Box::into_raw`. Every arena is freed only by `retire`, after which `depth` stays
    // `RETIRED`. Raw pointers, not boxes: growing the vector must not assert uniqueness
    // over arenas that outer calls are using.
    /// Depth 0, where almost every call runs: inline, so reaching it is one address.
    first: UnsafeCell<ManuallyDrop<Arena>>,
    more: UnsafeCell<ManuallyDrop<Vec<*mut Arena>>>,
}

/// Frees the thread's scratch arenas when the thread exits.
struct Cleanup;

impl Drop for Cleanup {
    fn drop(&mut self) {
        SCRATCH.with(|scratch| {
            // SAFETY: thread-local destructors run one at a time, after the thread's own
            // code, so no `scratch` call is running on this thread (depth 0).
            unsafe { scratch.retire() }
        });
    }
}

std::thread_local! {
    static SCRATCH: Scratch = const {
        Scratch {
            depth: Cell::new(FRESH),
            first: UnsafeCell::new(ManuallyDrop::new(Arena::new())),
            more: UnsafeCell::new(ManuallyDrop::new(Vec::new())),
        }
    };
    static CLEANUP: Cleanup = const { Cleanup };
}

/// Runs `f` with a [`Scope`] of the current thread's scratch arena; everything allocated
/// through it is freed when `f` returns. Calls nest (each depth has its own arena), and
/// may be made from anywhere: inside another `scratch`, a `Drop`, or while unwinding.
///
/// ```
/// fn mean(xs: &[f64]) -> f64 {
///     bumpdown::scratch(|s| {
///         let tmp = s.alloc_slice_copy(xs);
///         tmp.sort_by(f64::total_cmp);
///         tmp.iter().sum::<f64>() / tmp.len() as f64
///     })
/// }
/// assert_eq!(mean(&[3.0, 1.0, 2.0]), 2.0);
/// ```
///
/// Allocations cannot escape:
///
/// ```compile_fail
/// let leaked = bumpdown::scratch(|s| s.alloc(1u32));
/// ```
#[inline]
pub fn scratch<R>(f: impl for<'s> FnOnce(&mut Scope<'s, '_>) -> R) -> R {
    // One call of `f`, on either path, so that the compiler inlines it here and keeps
    // the scope's bump pointer in a register. `SCRATCH` has no destructor, so `with`
    // is its address.
    let scratch = SCRATCH.with(|scratch| scratch as *const Scratch);
    // SAFETY: the thread's `Scratch`: it has no destructor and lives as long as the
    // thread. (Its arenas are freed by `retire`, at thread exit, after every call on the
    // thread has returned; a call made after that gets an arena of its own.)
    let scratch = unsafe { &*scratch };
    // The guard is one pointer, which the scope keeps in a register anyway; its drop
    // runs only when `f` unwinds.
    let leave = Leave { arena: scratch.enter() };
    // SAFETY: `arena` is this call's alone until `leave` is done: a depth's arena is used
    // only by the call running at that depth (see `Scratch`), and an own arena by no one
    // else. It stays valid until then (depth arenas are freed only by `retire`, which
    // cannot run while this call runs, and an own arena by `leave` itself).
    let (result, unchanged) = unsafe { run_scope_telling(&*leave.arena, f) };
    let arena = ManuallyDrop::new(leave).arena;
    // `depth` is 1 now exactly when this call entered at depth 0 (and so has the depth-0
    // arena, `first`): the calls nested in it have put it back, a call nested in another
    // finds 2 or more, and on a retired thread it stays `RETIRED`.
    if unchanged && scratch.depth.get() == 1 {
        // Depth 0, and the arena gained no memory (its epoch did not move: a new chunk
        // or an out-of-band block moves it), so there is nothing to trim.
        scratch.depth.set(0);
    } else {
        // SAFETY: the scope has ended, and `arena` is the call's.
        unsafe { leave_slow(arena) }
    }
    result
}

impl Scratch {
    /// Enters the next depth and returns its arena; once the thread's arenas are gone, a
    /// new arena of the call's own.
    #[inline(always)]
    fn enter(&self) -> *mut Arena {
        if self.depth.get() != 0 {
            return self.enter_above();
        }
        self.depth.set(1);
        // `ManuallyDrop` is `repr(transparent)`: a pointer to it is one to the arena.
        self.first.get().cast::<Arena>()
    }

    /// `enter` at a depth above 0 (the arena made on first use), on the thread's first
    /// call (which registers [`Cleanup`]), or once the thread's arenas are gone (an own
    /// arena, from `Box::into_raw`; `depth` stays [`RETIRED`]).
    #[cold]
    #[inline(never)]
    fn enter_above(&self) -> *mut Arena {
        let mut depth = self.depth.get();
        if depth >= RETIRED {
            return Box::into_raw(Box::new(Arena::new()));
        }
        if depth == FRESH {
            // The first access registers the destructor. It fails only while the
            // thread's thread-locals are being destroyed and `Cleanup` already has been:
            // then `retire` has run, and `depth` is `RETIRED`, not `FRESH`.
            let _ = CLEANUP.try_with(|_| ());
            depth = 0;
        }
        self.depth.set(depth + 1);
        if depth == 0 {
            return self.first.get().cast::<Arena>();
        }
        // SAFETY: the vector is only touched here and in `retire`, never while a
        // reference into it is alive (callers keep only the raw pointers it holds).
        let more = unsafe { &mut *self.more.get() };
        match more.get(depth - 1) {
            Some(&arena) => arena,
            None => {
                let arena = Box::into_raw(Box::new(Arena::new()));
                more.push(arena);
                arena
            }
        }
    }

    /// Frees every arena of the thread; calls made afterwards get arenas of their own.
    ///
    /// # Safety
    /// No `scratch` call is running on this thread, and none has since the last
    /// `retire` (which left `depth` at `RETIRED`, so there is none).
    unsafe fn retire(&self) {
        if self.depth.replace(RETIRED) != 0 {
            // Never `FRESH`: `Cleanup` is registered by the first call, which leaves 0.
            return;
        }
        // SAFETY: no call is running, so nothing uses the arenas or the vector; `depth`
        // is `RETIRED` from now on, so nothing will again.
        unsafe {
            ManuallyDrop::drop(&mut *self.first.get());
            let more = &mut *self.more.get();
            for &arena in more.iter() {
                // From `Box::into_raw` in `enter_above`, freed once, here.
                drop(Box::from_raw(arena));
            }
            ManuallyDrop::drop(more);
        }
    }
}

/// Ends a `scratch` call whose closure unwound (a call that returns is ended by
/// `scratch` itself, without it).
struct Leave {
    /// The call's arena: the depth's, or its own (from `Box::into_raw`).
    arena: *mut Arena,
}

impl Drop for Leave {
    fn drop(&mut self) {
        // SAFETY: the closure unwound, so its scope has ended (it was dropped before this
        // guard); `arena` is the call's.
        unsafe { leave_slow(self.arena) }
    }
}

/// Ends a call other than depth 0's usual exit: trims the depth's arena to
/// [`SCRATCH_RETAIN`] and pops the depth, or frees an own arena. Which one follows from
/// `depth`: it is [`RETIRED`] now exactly when it was when the call began (`retire`
/// runs only when no call is running), that is when the call got an own arena.
///
/// # Safety
/// `arena` is the one `enter` gave the call, and the call's scope has ended.
#[cold]
#[inline(never)]
unsafe fn leave_slow(arena: *mut Arena) {
    let scratch = SCRATCH.with(|scratch| scratch as *const Scratch);
    // SAFETY: the thread's `Scratch`, alive until the thread is gone; only shared
    // references to it exist, and `depth` is a `Cell`.
    let depth = unsafe { &(*scratch).depth };
    if depth.get() >= RETIRED {
        // SAFETY: an own arena (see above), from `Box::into_raw` in `enter_above`, freed
        // once, here.
        drop(unsafe { Box::from_raw(arena) });
        return;
    }
    // SAFETY: the depth's arena, the call's alone, alive until `retire` (see `Scratch`).
    let arena = unsafe { &mut *arena };
    if arena.allocated_bytes_including_metadata() > SCRATCH_RETAIN {
        // The arena's bookkeeping block stays: the chunks get the rest.
        arena.reset_with_limit(SCRATCH_RETAIN - <Arena>::BOOKKEEPING_BYTES);
    }
    depth.set(depth.get() - 1);
}
