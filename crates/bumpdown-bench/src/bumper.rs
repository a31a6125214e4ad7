//! The Bumper.jl workload: a function that needs a temporary array.
//!
//! Bumper.jl's README shows `f(x)` taking a temporary `y` of `length(x)` elements
//! (30 in its benchmark), filling it with `x .+ 1` and returning `sum(y)`, with the
//! temporary from a heap array, from Bumper's default buffer, or from a static array.
//! Here the same function is written four ways, plus the work alone as a floor; each is `#[inline(never)]`, as a
//! helper function would be, and is called once per operation.
//!
//! Keeping the work real: the input reaches each call through `black_box`, so its
//! length (30) is known only at run time, and the result goes to `black_box`. The
//! filled temporary passes through `black_box` before it is summed: that is an escape
//! with a memory clobber, so the compiler must really allocate it, store every element
//! and load them all back. It can neither drop the heap allocation (a `malloc`/`free`
//! pair whose memory is never observed may be deleted) nor fold fill and sum together.

use std::hint::black_box;
use std::mem::MaybeUninit;

use crate::harness::Sampler;
use crate::heap;

/// Elements of the temporary, as in Bumper.jl's benchmark.
pub const LEN: usize = 30;

/// The input: small integers, like Bumper.jl's `rand(1:10, 30)`, but fixed.
pub static INPUT: [i64; LEN] = input();

const fn input() -> [i64; LEN] {
    let mut x = [0; LEN];
    let mut i = 0;
    while i < LEN {
        x[i] = (i * 7 % 10 + 1) as i64;
        i += 1;
    }
    x
}

/// Uses the filled temporary: makes it escape (see the module comment), then sums it.
#[inline(always)]
fn use_temp(tmp: &mut [i64]) -> i64 {
    let tmp = black_box(tmp);
    tmp.iter().sum()
}

/// (a) A heap `Vec`: one `malloc` and one `free` per call.
#[inline(never)]
pub fn with_vec(x: &[i64]) -> i64 {
    let mut tmp: Vec<i64> = x.iter().map(|v| v + 1).collect();
    use_temp(&mut tmp)
}

/// (b) `bumpdown::scratch`: the thread's scratch arena, nothing passed in.
#[inline(never)]
pub fn with_scratch(x: &[i64]) -> i64 {
    bumpdown::scratch(|s| use_temp(s.alloc_slice_fill_with(x.len(), |i| x[i] + 1)))
}

/// (c) A scope of an arena the caller passes in.
#[inline(never)]
pub fn with_arena_scope(arena: &mut bumpdown::Arena, x: &[i64]) -> i64 {
    arena.scope(|s| use_temp(s.alloc_slice_fill_with(x.len(), |i| x[i] + 1)))
}

/// (d) A stack array of the largest length the caller expects, zeroed as safe Rust
/// requires, then sliced to the input's length.
#[inline(never)]
pub fn with_stack_array(x: &[i64]) -> i64 {
    let mut buf = [0i64; LEN];
    let tmp = &mut buf[..x.len()];
    for (i, t) in tmp.iter_mut().enumerate() {
        *t = x[i] + 1;
    }
    use_temp(tmp)
}

/// (e) The work alone: a stack array left uninitialized, so no allocator and no zeroing.
/// No way can be faster than this one; the gap between it and another way is what that
/// way's memory costs.
#[inline(never)]
pub fn with_uninit_stack_array(x: &[i64]) -> i64 {
    let mut buf = [MaybeUninit::<i64>::uninit(); LEN];
    let tmp = &mut buf[..x.len()];
    for (i, t) in tmp.iter_mut().enumerate() {
        t.write(x[i] + 1);
    }
    // SAFETY: every element of `tmp` was written just above, and `MaybeUninit<i64>` has
    // the layout of `i64`.
    let tmp = unsafe { &mut *(tmp as *mut [MaybeUninit<i64>] as *mut [i64]) };
    use_temp(tmp)
}

/// The expected result: the sum of `x + 1` over the input.
pub fn expected() -> i64 {
    INPUT.iter().map(|v| v + 1).sum()
}

/// A sampler that times `iters` calls of `call`, ns per call. It checks the answer
/// once (untimed), and warms up with two batches.
///
/// `uncounted`: run the batch with the heap counters paused. The `Vec` way calls the
/// heap on every call, and three `lock`-prefixed counter updates per `malloc` and two
/// per `free` would be timed as if they were part of the allocator.
pub fn sampler(iters: usize, uncounted: bool, mut call: impl FnMut(&[i64]) -> i64 + 'static) -> Sampler {
    assert_eq!(call(&INPUT), expected(), "every way computes the same sum");
    let mut calls = move |iters: usize| {
        for _ in 0..iters {
            black_box(call(black_box(&INPUT)));
        }
    };
    crate::scope_kernels::timed(iters, iters, move |iters| {
        if uncounted {
            heap::uncounted(|| calls(iters));
        } else {
            calls(iters);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_way_computes_the_same_sum() {
        let mut arena = bumpdown::Arena::new();
        let want = expected();
        assert_eq!(want, INPUT.iter().sum::<i64>() + LEN as i64);
        assert_eq!(with_vec(&INPUT), want);
        assert_eq!(with_scratch(&INPUT), want);
        assert_eq!(with_arena_scope(&mut arena, &INPUT), want);
        assert_eq!(with_stack_array(&INPUT), want);
        assert_eq!(with_uninit_stack_array(&INPUT), want);
        assert_eq!(arena.stats().used, 0);
    }

    #[test]
    fn input_is_small_integers() {
        assert!(INPUT.iter().all(|v| (1..=10).contains(v)));
    }
}
