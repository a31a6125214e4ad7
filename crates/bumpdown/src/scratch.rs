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
use crate::scope::Scope;

/// What each depth's scratch arena keeps between calls, at most: 1 MiB. Memory beyond
/// that (a one-off large temporary) goes back to the allocator when the call returns.
pub const SCRATCH_RETAIN: usize = 1 << 20;

/// The `depth` of a thread whose arenas are gone (its [`Cleanup`] has run): every call
/// from then on takes the own-arena path. Far above any real depth.
const RETIRED: usize = usize::MAX / 2;

/// The arenas of one thread, one per nesting depth.
///
/// Nothing in it needs dropping, so its `thread_local!` has no destructor, and reaching
/// it is an address, with no check of whether it is alive (it always is, until the
/// thread is gone). The arenas are freed by [`Cleanup`], a second thread-local whose
/// destructor is registered the first time the thread's arenas hold memory.
struct Scratch {
    /// How many `scratch` calls are running on this thread, or [`RETIRED`].
    depth: Cell<usize>,
    /// A call whose arena holds more than this many bytes (headers included) when it
    /// returns takes the slow exit (`leave_slow`): 0 until [`Cleanup`] is registered,
    /// then [`SCRATCH_RETAIN`].
    bound: Cell<usize>,
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
            depth: Cell::new(0),
            bound: Cell::new(0),
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
    // is its address; the guard is built here, in registers, not moved out of a closure.
    let scratch = SCRATCH.with(|scratch| scratch as *const Scratch);
    // SAFETY: the thread's `Scratch`, alive until the thread is gone (see `Leave::scratch`).
    let leave = unsafe { (*scratch).enter() };
    // SAFETY: `arena` is this call's alone until `leave` drops: a depth's arena is used
    // only by the call running at that depth (see `Scratch`), and an own arena by no one
    // else. It stays valid until then (depth arenas are freed only by `retire`, which
    // cannot run while this call runs, and an own arena by `leave` itself).
    let arena = unsafe { &mut *leave.arena };
    arena.scope(f)
}

impl Scratch {
    /// Enters the next depth: its arena and the guard that leaves it.
    #[inline(always)]
    fn enter(&self) -> Leave {
        let depth = self.depth.get();
        if depth != 0 {
            return self.enter_above();
        }
        self.depth.set(1);
        // `ManuallyDrop` is `repr(transparent)`: a pointer to it is one to the arena.
        Leave { scratch: self, depth, arena: self.first.get().cast::<Arena>() }
    }

    /// Enters a depth above 0 (its arena made on first use), or, once the thread's
    /// arenas are gone, gives the call an arena of its own.
    #[cold]
    #[inline(never)]
    fn enter_above(&self) -> Leave {
        let depth = self.depth.get();
        if depth >= RETIRED {
            let arena = Box::into_raw(Box::new(Arena::new()));
            return Leave { scratch: core::ptr::null(), depth: 0, arena };
        }
        // SAFETY: the vector is only touched here and in `retire`, never while a
        // reference into it is alive (callers keep only the raw pointers it holds).
        let more = unsafe { &mut *self.more.get() };
        let arena = match more.get(depth - 1) {
            Some(&arena) => arena,
            None => {
                self.register_cleanup();
                let arena = Box::into_raw(Box::new(Arena::new()));
                more.push(arena);
                arena
            }
        };
        self.depth.set(depth + 1);
        Leave { scratch: self, depth, arena }
    }

    /// Makes sure [`Cleanup`] runs at thread exit, and lets calls skip the slow exit
    /// until an arena outgrows [`SCRATCH_RETAIN`].
    fn register_cleanup(&self) {
        // The first access registers the destructor. It fails only while the thread's
        // thread-locals are being destroyed and `Cleanup` already has been: then
        // `retire` has run, and no call gets here (`depth` is `RETIRED`).
        let _ = CLEANUP.try_with(|_| ());
        self.bound.set(SCRATCH_RETAIN);
    }

    /// Frees every arena of the thread; calls made afterwards get arenas of their own.
    ///
    /// # Safety
    /// No `scratch` call is running on this thread, and none has since the last
    /// `retire` (which left `depth` at `RETIRED`, so there is none).
    unsafe fn retire(&self) {
        if self.depth.replace(RETIRED) != 0 {
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

/// Ends a `scratch` call, also when unwinding: leaves a depth of the thread's arenas
/// (trims its arena, pops the depth), or frees the call's own arena. One plain struct,
/// not an enum of the two: its fields stay in registers across the call.
struct Leave {
    /// The thread's `SCRATCH`, or null for a call with an arena of its own. A pointer,
    /// not a reference: `with` lends the value only for its closure. It stays valid
    /// while the call runs: `SCRATCH` has no destructor and lives as long as the thread.
    /// (Its arenas are freed by `retire`, at thread exit, after every call on the thread
    /// has returned; a call made after that gets an arena of its own.)
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
        // SAFETY: valid while the call runs (see the field); only shared references to it
        // exist, and its fields are `Cell`s.
        let scratch = unsafe { &*self.scratch };
        // SAFETY: the scope on this arena has ended (it was dropped before this guard),
        // and no other call uses this depth's arena.
        let arena = unsafe { &mut *self.arena };
        if arena.allocated_bytes_including_metadata() > scratch.bound.get() {
            leave_slow(scratch, arena);
        }
        scratch.depth.set(self.depth);
    }
}

/// The exit of a call whose arena holds memory for the first time on this thread (the
/// thread's cleanup is registered), or more than it may keep (it is trimmed).
#[cold]
#[inline(never)]
fn leave_slow(scratch: &Scratch, arena: &mut Arena) {
    scratch.register_cleanup();
    if arena.allocated_bytes_including_metadata() > SCRATCH_RETAIN {
        arena.reset_with_limit(SCRATCH_RETAIN);
    }
}

/// Frees the arena of a call that had its own.
#[cold]
#[inline(never)]
fn own_arena_done(arena: *mut Arena) {
    // SAFETY: from `Box::into_raw` in `enter_above`, freed once, here; the scope on it has
    // ended (it was dropped before the guard).
    drop(unsafe { Box::from_raw(arena) });
}
