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
use std::boxed::Box;
use std::vec::Vec;

use crate::arena::Arena;
use crate::scope::Scope;

/// What each depth's scratch arena keeps between calls, at most: 1 MiB. Memory beyond
/// that (a one-off large temporary) goes back to the allocator when the call returns.
pub const SCRATCH_RETAIN: usize = 1 << 20;

/// The arenas of one thread, one per nesting depth.
struct Scratch {
    /// How many `scratch` calls are running on this thread.
    depth: Cell<usize>,
    // INVARIANT: the arena of depth `d` (`first` for 0, `more[d - 1]` above) is used only
    // by the `scratch` call running at depth `d`. The pointers in `more` come from
    // `Box::into_raw` and are freed only in `drop`. Raw pointers, not boxes: growing the
    // vector must not assert uniqueness over arenas that outer calls are using.
    /// Depth 0, where almost every call runs: inline, so reaching it is one address.
    first: UnsafeCell<Arena>,
    more: UnsafeCell<Vec<*mut Arena>>,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for &arena in self.more.get_mut().iter() {
            // SAFETY: from `Box::into_raw`, freed once, here; no call is running (the
            // thread is exiting).
            drop(unsafe { Box::from_raw(arena) });
        }
    }
}

std::thread_local! {
    static SCRATCH: Scratch = const {
        Scratch { depth: Cell::new(0), first: UnsafeCell::new(Arena::new()), more: UnsafeCell::new(Vec::new()) }
    };
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
    // the scope's bump pointer in a register. `try_with` hands out only the address:
    // the guard is built here, in registers, not moved out of a closure.
    let leave = match SCRATCH.try_with(|scratch| scratch as *const Scratch) {
        // SAFETY: the thread's `Scratch`, alive until thread exit (see `Leave::scratch`).
        Ok(scratch) => unsafe { (*scratch).enter() },
        Err(_) => own_arena(),
    };
    // SAFETY: `arena` is this call's alone until `leave` drops: a depth's arena is used
    // only by the call running at that depth (see `Scratch`), and an own arena by no one
    // else. It stays valid until then (arenas are freed at thread exit, which cannot
    // happen while this call runs, or by `leave` itself).
    let arena = unsafe { &mut *leave.arena };
    arena.scope(f)
}

/// The thread's storage is being torn down: an arena of this call's own.
#[cold]
#[inline(never)]
fn own_arena() -> Leave {
    let arena = Box::into_raw(Box::new(Arena::new()));
    Leave { scratch: core::ptr::null(), depth: 0, arena }
}

impl Scratch {
    /// Enters the next depth: its arena (made on first use) and the guard that leaves it.
    #[inline(always)]
    fn enter(&self) -> Leave {
        let depth = self.depth.get();
        let arena = self.arena_at(depth);
        self.depth.set(depth + 1);
        Leave { scratch: self, depth, arena }
    }

    /// The arena for `depth`, made on first use.
    #[inline(always)]
    fn arena_at(&self, depth: usize) -> *mut Arena {
        if depth == 0 {
            return self.first.get();
        }
        // SAFETY: the vector is only touched here, in `grow` and in `drop`, never while a
        // reference into it is alive (callers keep only the raw pointers it holds).
        match unsafe { &*self.more.get() }.get(depth - 1) {
            Some(&arena) => arena,
            None => self.grow(),
        }
    }

    /// Makes the arena for the next depth above 0.
    #[cold]
    #[inline(never)]
    fn grow(&self) -> *mut Arena {
        // SAFETY: as in `arena_at`; no reference into the vector is alive.
        let more = unsafe { &mut *self.more.get() };
        let arena = Box::into_raw(Box::new(Arena::new()));
        more.push(arena);
        arena
    }
}

/// Ends a `scratch` call, also when unwinding: leaves a depth of the thread's arenas
/// (trims its arena, pops the depth), or frees the call's own arena. One plain struct,
/// not an enum of the two: its fields stay in registers across the call.
struct Leave {
    /// The thread's `SCRATCH`, or null for a call with an arena of its own. A pointer,
    /// not a reference: `try_with` lends the value only for its closure. It stays valid
    /// while the call runs: a thread's storage is destroyed at thread exit, after every
    /// call on the thread has returned, and a call made while it is being destroyed
    /// takes the `own_arena` path instead.
    scratch: *const Scratch,
    /// The depth this call entered (unused for an own arena).
    depth: usize,
    /// The call's arena: the depth's, or its own (from `Box::into_raw`).
    arena: *mut Arena,
}

impl Drop for Leave {
    #[inline(always)]
    fn drop(&mut self) {
        if self.scratch.is_null() {
            own_arena_done(self.arena);
            return;
        }
        // SAFETY: the scope on this arena has ended (it was dropped before this guard),
        // and no other call uses this depth's arena.
        let arena = unsafe { &mut *self.arena };
        if arena.allocated_bytes_including_metadata() > SCRATCH_RETAIN {
            trim(arena);
        }
        // SAFETY: valid while the call runs (see the field); only shared references to it
        // exist, and `depth` is a `Cell`.
        unsafe { (*self.scratch).depth.set(self.depth) };
    }
}

/// Frees the arena of a call that had its own.
#[cold]
#[inline(never)]
fn own_arena_done(arena: *mut Arena) {
    // SAFETY: from `Box::into_raw` in `own_arena`, freed once, here; the scope on it has
    // ended (it was dropped before the guard).
    drop(unsafe { Box::from_raw(arena) });
}

/// Gives back what a scratch arena holds beyond its retention bound.
#[cold]
#[inline(never)]
fn trim(arena: &mut Arena) {
    arena.reset_with_limit(SCRATCH_RETAIN);
}
