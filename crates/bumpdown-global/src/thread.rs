//! The current thread's [`Heap`], in a thread-local slot that never allocates.
//!
//! `thread_local!` with a `const` initialiser and a type without `Drop` compiles to a
//! plain `#[thread_local]` static on Linux: no lazy initialisation, no destructor
//! registration, so no allocation that would recurse into the allocator. The price: a
//! thread's window tail and free lists are abandoned when it exits (address space, not
//! resident memory, for the untouched tail).

use core::cell::UnsafeCell;

use crate::heap::Heap;
use crate::route::HeapSlot;

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

/// The slot of [`with_heap`] as a [`HeapSlot`]: where `BumpGlobal` keeps each thread's heap.
///
/// ```
/// use bumpdown_global::route::{self, Resize};
/// use bumpdown_global::{Mode, ThreadHeap};
///
/// let init = || bumpdown_global::region::Options::new(1 << 30);
/// let csz = route::chunk_for(100, 16, Mode::Bump).unwrap();
/// // SAFETY: `csz` is for alignment 16, a power of two; `init` does not allocate.
/// let p = unsafe { route::alloc::<ThreadHeap, false>(csz, 16, Mode::Bump, &init) };
/// assert!(!p.is_null() && p.addr() % 16 == 0);
/// // SAFETY: `p` is the thread's newest chunk, of `csz` bytes; it is not used afterwards.
/// unsafe {
///     assert_eq!(route::resize::<ThreadHeap>(p, csz, csz + 16, Mode::Bump), Resize::InPlace);
///     route::free::<ThreadHeap>(p, csz + 16, Mode::Bump);
/// }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ThreadHeap;

// SAFETY: `HEAP` is a thread-local that starts as `Heap::EMPTY` and is reached only
// through `with_heap`, which hands out the calling thread's own.
unsafe impl HeapSlot for ThreadHeap {
    #[inline(always)]
    unsafe fn with_heap<R>(f: impl FnOnce(&mut Heap) -> R) -> R {
        // SAFETY: forwarded caller contract.
        unsafe { with_heap(f) }
    }
}
