//! The current thread's [`Heap`], in a thread-local slot that never allocates.
//!
//! `thread_local!` with a `const` initialiser and a type without `Drop` compiles to a
//! plain `#[thread_local]` static on Linux: no lazy initialisation, no destructor
//! registration, so no allocation that would recurse into the allocator. The price: a
//! thread's window tail and free lists are abandoned when it exits (address space, not
//! resident memory, for the untouched tail).

use core::cell::UnsafeCell;

use crate::heap::Heap;

std::thread_local! {
    static HEAP: UnsafeCell<Heap> = const { UnsafeCell::new(Heap::EMPTY) };
}

/// Runs `f` on the current thread's heap.
///
/// # Safety
/// `f` must not call `with_heap` (directly or by allocating through a front end that
/// does): that would make a second `&mut Heap`.
#[inline(always)]
pub unsafe fn with_heap<R>(f: impl FnOnce(&mut Heap) -> R) -> R {
    // SAFETY: the slot belongs to this thread, and by the caller's promise no other
    // reference to it exists while `f` runs.
    HEAP.with(|heap| f(unsafe { &mut *heap.get() }))
}
