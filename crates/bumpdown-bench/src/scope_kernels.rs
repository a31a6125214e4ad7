//! The timed loops of the scope tables: allocation through a scope handle, and
//! entering and leaving scopes.
//!
//! Each contender's loop is written out with the crate's own scope call, the way its
//! users would write it, in an `#[inline(never)]` function that gets the arena as
//! `&mut` (code that passes an arena down to a helper, which opens a scope). The loop
//! bodies are the same for every contender: `black_box` of each allocation, whose
//! value was itself passed through `black_box` once per batch.
//!
//! The scopes rewind on exit, so these batches need no reset between samples. Every
//! arena is sized for a batch and runs two batches before the first sample, so its
//! chunk exists and its pages are mapped; the heap counters check every sample.

use std::hint::black_box;

use crate::contenders::Contender;
use crate::harness::{Sample, Sampler};
use crate::heap;

/// Allocations in each scope of the enter / allocate / exit rows.
pub const PER_SCOPE: usize = 4;

/// A sampler that times `batch(iters)` as `ops` operations. `batch` owns whatever it
/// allocates from; it runs twice (untimed) before the first sample.
pub fn timed(iters: usize, ops: usize, mut batch: impl FnMut(usize) + 'static) -> Sampler {
    for _ in 0..2 {
        batch(iters);
    }
    Box::new(move |clock| {
        let iters = black_box(iters);
        let heap = heap::Snapshot::now();
        let start = clock.start();
        batch(iters);
        let ns_per_op = clock.per_op(start, ops);
        Sample { ns_per_op, heap_calls: heap.calls_since() }
    })
}

/// An arena of contender `A` on the heap whose first chunk holds `bytes`.
pub fn boxed<A: Contender>(bytes: usize) -> Box<A> {
    Box::new(A::with_capacity(bytes))
}

// ----- One scope, a loop of allocations in it --------------------------------------
//
// Two ways to consume each allocation: `black_box` it (a store of the pointer to the
// stack per allocation, besides the value's own store), or, with `CHECKSUM`, fold its
// address into a sum that is `black_box`ed once at the end (only the value's store
// remains, so the loop shows what keeping the bump pointer in a register is worth).

/// What a loop does with each allocation's address.
#[inline(always)]
fn consume<T>(p: &mut T, sum: &mut usize, checksum: bool) {
    if checksum {
        *sum ^= (p as *mut T).addr();
    } else {
        black_box(p);
    }
}

/// bumpdown: `arena.scope(|s| ...)`; the handle keeps its own copy of the bump pointer.
/// `M` is the arena's `MIN_ALIGN` (1 by default).
#[inline(never)]
pub fn loop_bumpdown_scope<T: Copy + 'static, const CHECKSUM: bool, const M: usize>(
    arena: &mut bumpdown::Arena<M>,
    n: usize,
    value: T,
) {
    let sum = arena.scope(|s| {
        let mut sum = 0;
        for _ in 0..n {
            consume(s.alloc(value), &mut sum, CHECKSUM);
        }
        sum
    });
    black_box(sum);
}

/// stumpalo: `arena.with_scope(|s| ...)`.
#[inline(never)]
pub fn loop_stumpalo_scope<T: Copy + 'static, const CHECKSUM: bool>(arena: &mut stumpalo::Arena, n: usize, value: T) {
    let sum = arena.with_scope(|s| {
        let mut sum = 0;
        for _ in 0..n {
            consume(s.alloc(value), &mut sum, CHECKSUM);
        }
        sum
    });
    black_box(sum);
}

/// bump-scope's `Bump` with a minimum alignment of `M` (1 is its default).
pub type BumpScopeAligned<const M: usize> =
    bump_scope::Bump<bump_scope::alloc::Global, bump_scope::settings::BumpSettings<M>>;

/// bump-scope: `bump.scoped(|s| ...)`. `BumpBox::leak` gives the plain `&mut` the
/// others return (a `Copy` value has no destructor to skip).
#[inline(never)]
pub fn loop_bump_scope_scoped<T: Copy + 'static, const CHECKSUM: bool, const M: usize>(
    arena: &mut BumpScopeAligned<M>,
    n: usize,
    value: T,
) where
    bump_scope::settings::MinimumAlignment<M>: bump_scope::settings::SupportedMinimumAlignment,
{
    let sum = arena.scoped(|s| {
        let mut sum = 0;
        for _ in 0..n {
            consume(bump_scope::BumpBox::leak(s.alloc(value)), &mut sum, CHECKSUM);
        }
        sum
    });
    black_box(sum);
}

// ----- Enter a scope, allocate a few values, leave: `n` times ----------------------

/// bumpdown: the closure form.
#[inline(never)]
pub fn enter_bumpdown_scope(arena: &mut bumpdown::Arena, n: usize, value: u64) {
    for _ in 0..n {
        arena.scope(|s| {
            for _ in 0..PER_SCOPE {
                black_box(s.alloc(value));
            }
        });
    }
}

/// bumpdown: the guard form; allocations go through the guard (it derefs to the arena).
#[inline(never)]
pub fn enter_bumpdown_guard(arena: &mut bumpdown::Arena, n: usize, value: u64) {
    for _ in 0..n {
        let guard = arena.scope_guard();
        for _ in 0..PER_SCOPE {
            black_box(guard.alloc(value));
        }
    }
}

/// bumpdown: the current thread's scratch arena; there is no arena to pass.
#[inline(never)]
pub fn enter_bumpdown_scratch(n: usize, value: u64) {
    for _ in 0..n {
        bumpdown::scratch(|s| {
            for _ in 0..PER_SCOPE {
                black_box(s.alloc(value));
            }
        });
    }
}

/// stumpalo: `with_scope`.
#[inline(never)]
pub fn enter_stumpalo_scope(arena: &mut stumpalo::Arena, n: usize, value: u64) {
    for _ in 0..n {
        arena.with_scope(|s| {
            for _ in 0..PER_SCOPE {
                black_box(s.alloc(value));
            }
        });
    }
}

/// bump-scope: `scoped` (which is its `scope_guard` plus a closure call).
#[inline(never)]
pub fn enter_bump_scope_scoped(arena: &mut bump_scope::Bump, n: usize, value: u64) {
    for _ in 0..n {
        arena.scoped(|s| {
            for _ in 0..PER_SCOPE {
                black_box(bump_scope::BumpBox::leak(s.alloc(value)));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every scope rewinds: a thousand rounds of 32 bytes fit in 4 KiB.
    #[test]
    fn scopes_rewind_on_exit() {
        let mut arena = bumpdown::Arena::with_capacity(4096);
        let before = arena.stats().used;
        loop_bumpdown_scope::<_, false, 1>(&mut arena, 100, 7u64);
        enter_bumpdown_scope(&mut arena, 1000, 7);
        enter_bumpdown_guard(&mut arena, 1000, 7);
        assert_eq!(arena.stats().used, before);

        // stumpalo counts chunk bytes only: without rewinding it would need more chunks.
        let mut stumpalo = stumpalo::Arena::with_capacity(4096);
        let chunks = stumpalo.allocated_bytes();
        loop_stumpalo_scope::<_, false>(&mut stumpalo, 100, 7u64);
        enter_stumpalo_scope(&mut stumpalo, 1000, 7);
        assert_eq!(stumpalo.allocated_bytes(), chunks);

        let mut bump = boxed::<bump_scope::Bump>(4096);
        loop_bump_scope_scoped::<_, false, 1>(&mut bump, 100, 7u64);
        enter_bump_scope_scoped(&mut bump, 1000, 7);
        assert_eq!(bump.stats().allocated(), 0);
    }
}
