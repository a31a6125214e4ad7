//! Scopes: temporary allocation that is freed when a closure returns or a guard drops.
//!
//! A [`Scope`] is a small value holding its own copy of the arena's bump pointer and
//! chunk end. Used as a local in a loop, the compiler can keep the pointer in a register:
//! allocating is then an addition and a compare, with no store-to-load round trip
//! through memory.
//! The slow path passes the pointers to the arena by value and back, so the scope's
//! address never escapes. On exit the arena returns to the scope's entry position.
//!
//! Lifetimes carry the safety:
//! * [`Arena::scope`] takes `&mut Arena`: nothing else can allocate from the arena while
//!   the scope lives, so the scope owns everything above its entry position.
//! * A scope's allocations live for its brand `'s`, a lifetime the closure must accept
//!   for *any* value (`for<'s>`), so nothing allocated in it can be returned or stored
//!   outside. Allocations of an outer scope are not tied to a borrow of the outer handle,
//!   so they stay usable while an inner scope (which borrows the handle mutably) runs.
//! * [`ScopeGuard`] derefs to the arena itself: its allocations borrow the guard, so they
//!   cannot outlive the guard's drop, which rewinds.

use core::marker::PhantomData;
use core::ops::Deref;

use crate::alloc_api::prelude::*;
use crate::arena::Arena;
use crate::backing::{BackingAllocator, Global};
use crate::checkpoint::ScopeEntry;

/// A handle for allocating in a scope of an [`Arena`]; see [`Arena::scope`]. It has the
/// arena's whole allocation API, and what it allocates lives for the scope, `'s`.
///
/// `'env` is the lifetime of what the scope may borrow: the arena's borrow for a scope of
/// an arena, the outer scope for a nested one. Values borrowing anything that outlives
/// `'env` can be allocated in the scope.
pub struct Scope<'s, 'env, const MIN_ALIGN: usize = 1, A: BackingAllocator = Global> {
    // INVARIANT: `ptr` and `end` obey the arena's bump pointer invariant for the
    // arena's current chunk (the arena's own `ptr` may lag behind: it is brought up to
    // date before anything else looks at the arena). The arena is exclusively this
    // scope's while it lives (it was borrowed mutably to make it).
    ptr: core::cell::Cell<*mut u8>,
    end: core::cell::Cell<*mut u8>,
    arena: &'s Arena<MIN_ALIGN, A>,
    /// The arena's position when the scope was entered: where its exit returns it.
    entry: ScopeEntry,
    /// `'s` is invariant, so scopes of different arenas or depths cannot be swapped.
    _brand: PhantomData<fn(&'s ()) -> &'s ()>,
    /// Gives the closure the implied bound `'env: 's`.
    _env: PhantomData<&'s &'env ()>,
}

/// Restores the arena to a guard's entry position when dropped: a [`ScopeGuard`]'s end.
struct Exit<'a, const MIN_ALIGN: usize, A: BackingAllocator> {
    arena: &'a Arena<MIN_ALIGN, A>,
    entry: ScopeEntry,
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Drop for Exit<'_, MIN_ALIGN, A> {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: the scope that allocated after `entry` has ended (its allocations
        // borrowed the guard, which is dropping), and the arena was exclusively the
        // scope's, so it only moved forward from `entry`.
        unsafe { self.arena.exit_scope(self.entry) }
    }
}

/// Restores the arena to a closure scope's entry position if the closure unwinds. The
/// arena's `ptr` then lags behind the scope's (it was last brought up to date by a slow
/// path or a nested scope): the memory is all given back the same, but the peak
/// statistic may miss what the scope allocated since, and with the `poison` feature
/// those bytes are not filled.
struct Unwind<'a, const MIN_ALIGN: usize, A: BackingAllocator> {
    arena: &'a Arena<MIN_ALIGN, A>,
    entry: ScopeEntry,
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Drop for Unwind<'_, MIN_ALIGN, A> {
    /// A single out-of-line call with the fields by value: small enough to be inlined
    /// into the landing pad, so the guard need not be written to the stack on every
    /// entry.
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: the closure has unwound, so the scope has ended and none of its
        // allocations is in use (they cannot outlive `'s`); the arena was exclusively the
        // scope's, so it only moved forward from `entry`.
        unsafe { self.arena.exit_scope_slow(self.entry) }
    }
}

/// Runs `f` in a scope of `arena` and returns the arena to where it was, also when `f`
/// unwinds.
///
/// # Safety
/// Nothing else allocates from `arena`, rewinds or resets it until this returns.
#[inline(always)]
unsafe fn run_scope<'env, const MIN_ALIGN: usize, A: BackingAllocator, R>(
    arena: &'env Arena<MIN_ALIGN, A>,
    f: impl for<'s> FnOnce(&mut Scope<'s, 'env, MIN_ALIGN, A>) -> R,
) -> R {
    // SAFETY: the caller's contract.
    unsafe { run_scope_telling(arena, f).0 }
}

/// [`run_scope`], also telling whether the scope's exit took its fast path: `true` when
/// the arena's epoch did not move while `f` ran, so it neither gained nor gave back
/// memory (`scratch` then has nothing to trim).
///
/// # Safety
/// Nothing else allocates from `arena`, rewinds or resets it until this returns.
#[inline(always)]
pub(crate) unsafe fn run_scope_telling<'env, const MIN_ALIGN: usize, A: BackingAllocator, R>(
    arena: &'env Arena<MIN_ALIGN, A>,
    f: impl for<'s> FnOnce(&mut Scope<'s, 'env, MIN_ALIGN, A>) -> R,
) -> (R, bool) {
    let mut scope = Scope::enter(arena);
    // Only for unwinding: the normal way out is `leave`, below. The guard holds nothing
    // that changes while `f` runs, so the scope's `ptr` can live in a register with no
    // copy kept on the stack for a landing pad.
    let unwind = Unwind { arena, entry: scope.entry };
    let result = f(&mut scope);
    core::mem::forget(unwind);
    let fast = scope.leave();
    (result, fast)
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Arena<MIN_ALIGN, A> {
    /// Runs `f` with a [`Scope`]: everything allocated through it is freed when `f`
    /// returns or unwinds, and the arena is back where it was (chunks taken meanwhile are
    /// kept for reuse). Scopes nest with [`Scope::scope`].
    ///
    /// ```
    /// let mut arena = bumpdown::Arena::new();
    /// let total = arena.scope(|s| {
    ///     let tmp = s.alloc_slice_fill_with(30, |i| i as i64);
    ///     tmp.iter().sum::<i64>()
    /// });
    /// assert_eq!(total, 435);
    /// assert_eq!(arena.stats().used, 0);
    /// ```
    ///
    /// Nothing allocated in the scope can leave it:
    ///
    /// ```compile_fail
    /// let mut arena = bumpdown::Arena::new();
    /// let escaped = arena.scope(|s| s.alloc(1u32));
    /// ```
    #[inline]
    pub fn scope<'env, R>(&'env mut self, f: impl for<'s> FnOnce(&mut Scope<'s, 'env, MIN_ALIGN, A>) -> R) -> R {
        // SAFETY: `&mut self`: the arena is ours alone while the scope runs.
        unsafe { run_scope(self, f) }
    }

    /// Starts a scope that ends when the returned guard is dropped, for code that cannot
    /// use a closure. The guard derefs to the arena: allocate through it as usual; those
    /// allocations cannot outlive the guard.
    ///
    /// ```
    /// let mut arena = bumpdown::Arena::new();
    /// {
    ///     let guard = arena.scope_guard();
    ///     let tmp = guard.alloc_str("temporary");
    ///     assert_eq!(tmp, "temporary");
    /// } // freed here
    /// assert_eq!(arena.stats().used, 0);
    /// ```
    pub fn scope_guard(&mut self) -> ScopeGuard<'_, MIN_ALIGN, A> {
        let arena: &Self = self;
        ScopeGuard { exit: Exit { arena, entry: arena.scope_entry() } }
    }
}

impl<'s, 'env, const MIN_ALIGN: usize, A: BackingAllocator> Scope<'s, 'env, MIN_ALIGN, A> {
    /// A handle starting at the arena's current position.
    #[inline(always)]
    fn enter(arena: &'s Arena<MIN_ALIGN, A>) -> Self {
        // First: it may make a spare chunk current.
        let entry = arena.scope_entry();
        Scope {
            ptr: core::cell::Cell::new(entry.ptr),
            end: core::cell::Cell::new(arena.end.get()),
            arena,
            entry,
            _brand: PhantomData,
            _env: PhantomData,
        }
    }

    /// Brings the arena's bump pointer up to date with this handle's.
    #[inline(always)]
    fn sync_to_arena(&self) {
        self.arena.ptr.set(self.ptr.get());
    }

    /// Takes the arena's bump pointers after it moved them.
    #[inline(always)]
    fn sync_from_arena(&self) {
        self.ptr.set(self.arena.ptr.get());
        self.end.set(self.arena.end.get());
    }

    /// Runs `f` in a nested scope: what it allocates is freed when it returns, while
    /// everything this scope allocated before stays valid, inside and after.
    ///
    /// ```
    /// let mut arena = bumpdown::Arena::new();
    /// arena.scope(|outer| {
    ///     let kept = outer.alloc(1u32);
    ///     outer.scope(|inner| {
    ///         let tmp = inner.alloc(2u32);
    ///         *kept += *tmp;
    ///     });
    ///     assert_eq!(*kept, 3);
    /// });
    /// ```
    #[inline]
    pub fn scope<R>(&mut self, f: impl for<'i> FnOnce(&mut Scope<'i, 's, MIN_ALIGN, A>) -> R) -> R {
        self.sync_to_arena();
        // SAFETY: the arena is this scope's alone, and `&mut self` keeps this scope from
        // allocating until the nested one has ended.
        let result = unsafe { run_scope(self.arena, f) };
        self.sync_from_arena();
        result
    }

    /// Panics, printing the addresses involved, if the arena, with this scope's
    /// allocations, breaks an invariant (see
    /// [`Arena::check_invariants`](crate::Arena::check_invariants)).
    ///
    /// ```
    /// let mut arena = bumpdown::Arena::new();
    /// arena.scope(|s| {
    ///     s.alloc_str("checked");
    ///     s.check_invariants();
    /// });
    /// ```
    pub fn check_invariants(&self) {
        self.with_arena(|arena| arena.check_invariants());
    }

    /// The arena's statistics, counting this scope's allocations.
    ///
    /// ```
    /// let mut arena = bumpdown::Arena::new();
    /// arena.scope(|s| {
    ///     s.alloc(0u64);
    ///     assert_eq!(s.stats().used, 8);
    /// });
    /// ```
    pub fn stats(&self) -> crate::stats::Stats {
        self.sync_to_arena();
        self.arena.stats()
    }

    /// Runs `f` on the arena with this handle's bump pointer handed over, then takes the
    /// pointers back: how the collections reach the arena's resizing routines.
    #[inline]
    pub(crate) fn with_arena<R>(&self, f: impl FnOnce(&Arena<MIN_ALIGN, A>) -> R) -> R {
        self.sync_to_arena();
        let result = f(self.arena);
        self.sync_from_arena();
        result
    }

    crate::alloc_api::alloc_api!('s);
}

// SAFETY: the handle's `ptr` and `end` are the arena's bump pointers while the scope
// runs (the arena is the scope's alone; `sync_to_arena` / `sync_from_arena` hand them
// over around every call into it), so the arena's invariant is the trait's (up).
unsafe impl<const MIN_ALIGN: usize, A: BackingAllocator> Cursor for Scope<'_, '_, MIN_ALIGN, A> {
    const MIN_ALIGN: usize = MIN_ALIGN;
    const UP: bool = true;
    const SLOW_COPIES: bool = true;

    #[inline(always)]
    fn cursor_and_limit(&self) -> (*mut u8, usize) {
        (self.ptr.get(), self.end.get().addr())
    }

    /// The start of the current chunk's usable part: the arena's, since every chunk
    /// switch goes through it.
    #[inline(always)]
    fn far_end(&self) -> usize {
        self.arena.start.get().addr()
    }

    #[inline(always)]
    unsafe fn set_cursor(&self, new_ptr: *mut u8) {
        debug_assert!(
            self.far_end() <= new_ptr.addr() && new_ptr.addr() <= self.limit() && new_ptr.addr() % MIN_ALIGN == 0
        );
        #[cfg(bumpdown_asan)]
        // SAFETY: both pointers lie in the arena's current chunk (the caller).
        unsafe {
            crate::asan::ptr_moved_up(self.ptr.get(), new_ptr)
        };
        self.ptr.set(new_ptr)
    }

    /// Inlined: the call out of line is `scope_slow`, which takes the handle's `ptr` by
    /// value, so that the handle's own address never escapes.
    #[inline(always)]
    fn alloc_slow(&self, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        // SAFETY: null: no copy.
        unsafe { self.slow_path(core::ptr::null(), size, align) }
    }

    /// The copy is made inside `scope_slow`, so that the fast path's side keeps no
    /// register for `src` across the call.
    #[inline(always)]
    unsafe fn alloc_slow_copy(&self, src: *const u8, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        debug_assert!(!src.is_null());
        // SAFETY: forwarded; `src` is not null (the contract), as `slow_path` takes it to
        // mean a copy.
        unsafe { self.slow_path(src, size, align) }
    }

    /// Inlined for the same reason as `alloc_slow`. The panic is in the callee, as for
    /// `Arena`: with a path that does not return in the caller's inlined tail, the
    /// compiler saved three registers on the fast path too (the fast-path table's
    /// `bumpdown Scope` column counted them, +6 instructions a call).
    #[inline(always)]
    #[track_caller]
    fn alloc_slow_or_panic(&self, size: usize, align: usize) -> NonNull<u8> {
        let p = scope_slow_or_panic(self.arena, self.ptr.get(), size, align);
        self.sync_from_arena();
        Arena::<MIN_ALIGN, A>::landed(p, self.ptr.get(), size, align)
    }

    unsafe fn free_if_big(&self, ptr: NonNull<u8>) -> bool {
        // SAFETY: forwarded; the arena is this scope's alone.
        unsafe { self.arena.free_if_big(ptr) }
    }
}

/// The slow path of a scope: takes the scope's bump pointer by value and leaves the new
/// pointers in the arena, so that the scope's own address never escapes (the compiler
/// can then keep its `top` in a register). Copies the `size` bytes at `src` into the
/// block unless `src` is null. The copy's source and length come second and third,
/// where `memcpy` takes them, so that a fast path ending in `memcpy` moves no register
/// for the slow path's sake (with the pointer second, the fast-path table counted two
/// more instructions in the scope's `alloc_slice_copy`).
///
/// # Safety
/// `src` is null, or readable for `size` bytes and apart from the arena's free memory.
#[cold]
#[inline(never)]
unsafe fn scope_slow<const MIN_ALIGN: usize, A: BackingAllocator>(
    arena: &Arena<MIN_ALIGN, A>,
    (src, size): (*const u8, usize),
    ptr: *mut u8,
    align: usize,
) -> Option<NonNull<u8>> {
    arena.ptr.set(ptr);
    // An `Option` comes back in one register; a `Result` would go through memory and
    // cost the caller's fast path a stack frame. The error stays in the arena's state.
    if src.is_null() {
        arena.alloc_slow(size, align).ok()
    } else {
        // SAFETY: forwarded.
        unsafe { arena.alloc_slow_copy(src, size, align) }.ok()
    }
}

/// `scope_slow` for the panicking methods: panics (naming the caller's line) where that
/// returns no block.
#[cold]
#[inline(never)]
#[track_caller]
fn scope_slow_or_panic<const MIN_ALIGN: usize, A: BackingAllocator>(
    arena: &Arena<MIN_ALIGN, A>,
    ptr: *mut u8,
    size: usize,
    align: usize,
) -> NonNull<u8> {
    // SAFETY: null: no copy.
    match unsafe { scope_slow(arena, (core::ptr::null(), size), ptr, align) } {
        Some(p) => p,
        None => alloc_failed(size, align, arena.last_error()),
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Scope<'_, '_, MIN_ALIGN, A> {
    /// `alloc_slow`, and with a non-null `src` also `alloc_slow_copy`: the call out of
    /// line, then the arena's pointers read back into the handle.
    ///
    /// # Safety
    /// `src` is null, or readable for `size` bytes and apart from the arena's free memory.
    #[inline(always)]
    unsafe fn slow_path(&self, src: *const u8, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        // SAFETY: forwarded.
        let result = unsafe { scope_slow(self.arena, (src, size), self.ptr.get(), align) };
        // The arena holds the moved pointers (and the error); reading them from there
        // keeps this handle's own address out of the call.
        self.sync_from_arena();
        let p = result.ok_or_else(|| self.arena.last_error())?;
        Ok(Arena::<MIN_ALIGN, A>::landed(p, self.ptr.get(), size, align))
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Scope<'_, '_, MIN_ALIGN, A> {
    /// Ends the scope after its closure returned: returns the arena to the entry position.
    /// `true` if it took the usual case below.
    ///
    /// The usual case (no chunk switch, out-of-band block or checkpoint since entry: the
    /// epoch did not move) works from the handle's own `top`, which the compiler keeps
    /// in a register: note the low point for the peak, put back the entry `top`. It is
    /// `sync_to_arena` followed by `Arena::exit_scope`, without the round trip of `top`
    /// through memory.
    #[inline(always)]
    fn leave(self) -> bool {
        let arena = self.arena;
        if !crate::poison::ACTIVE && arena.epoch() == self.entry.epoch {
            arena.mark_high_at(self.ptr.get().addr());
            arena.ptr.set(self.entry.ptr);
            true
        } else {
            self.sync_to_arena();
            // SAFETY: the closure has returned, so none of the scope's allocations is in
            // use (they cannot outlive `'s`); the arena was exclusively the scope's, so it
            // only moved forward from `entry`, and its `top` is now up to date.
            unsafe { arena.exit_scope_slow(self.entry) };
            false
        }
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> core::fmt::Debug for Scope<'_, '_, MIN_ALIGN, A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Scope").field("stats", &self.stats()).finish()
    }
}

/// A scope that ends when dropped; see [`Arena::scope_guard`]. Derefs to the arena.
pub struct ScopeGuard<'a, const MIN_ALIGN: usize = 1, A: BackingAllocator = Global> {
    exit: Exit<'a, MIN_ALIGN, A>,
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> ScopeGuard<'_, MIN_ALIGN, A> {
    /// Starts a nested scope that ends when the returned guard drops.
    ///
    /// ```
    /// let mut arena = bumpdown::Arena::new();
    /// let mut outer = arena.scope_guard();
    /// outer.alloc(1u8);
    /// {
    ///     let inner = outer.scope_guard();
    ///     inner.alloc([0u8; 100]);
    /// }
    /// assert_eq!(outer.stats().used, 1);
    /// ```
    pub fn scope_guard(&mut self) -> ScopeGuard<'_, MIN_ALIGN, A> {
        let arena = self.exit.arena;
        ScopeGuard { exit: Exit { arena, entry: arena.scope_entry() } }
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> ScopeGuard<'_, MIN_ALIGN, A> {
    /// Rewinds to a checkpoint taken since this guard began; see [`Bump`](crate::Bump).
    pub(crate) fn try_rewind_guarded(
        &mut self,
        checkpoint: crate::checkpoint::Checkpoint,
    ) -> Result<(), crate::checkpoint::RewindError> {
        // SAFETY: allocations through the guard borrow it, so `&mut self` proves none is
        // in use; those made before the guard are protected by refusing checkpoints
        // older than its entry; a nested guard would borrow this one mutably.
        unsafe { self.exit.arena.rewind_unborrowed(checkpoint, self.exit.entry.epoch) }
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> Deref for ScopeGuard<'_, MIN_ALIGN, A> {
    type Target = Arena<MIN_ALIGN, A>;

    fn deref(&self) -> &Self::Target {
        self.exit.arena
    }
}

impl<const MIN_ALIGN: usize, A: BackingAllocator> core::fmt::Debug for ScopeGuard<'_, MIN_ALIGN, A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ScopeGuard").field("arena", self.exit.arena).finish()
    }
}
