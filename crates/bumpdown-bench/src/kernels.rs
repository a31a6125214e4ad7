//! The timed loops, and the two ways each column is reached.
//!
//! A row's work is a [`Work`] value: one step of allocations, repeated `iters`
//! times per sample. Each column of the speed table runs it in two [`Form`]s:
//!
//! * [`Form::Local`]: the arena is a local of the function that runs the batch.
//!   The compiler may keep its bump pointer in a register across the loop.
//! * [`Form::Ref`]: the arena lives on the heap and the batch runs in an
//!   `#[inline(never)]` function that only gets `&Arena`, as in code that passes an
//!   arena down to helpers. Every step must then load and store the pointer.
//!
//! A batch allocates through the column's handle ([`Column::with_handle`]): the
//! arena itself, or for the scope column a scope entered on the arena for the
//! batch (in the `Ref` form, the `#[inline(never)]` function gets `&Scope`). The
//! clock runs while the handle is there, so for the scope column it starts inside
//! the scope and stops before leaving it: the allocation rows time allocations;
//! the `clear` rows time entering and leaving scopes.
//!
//! Before each timed batch the arena is reset (untimed). Every arena was sized and
//! filled once before the first sample, so a batch never needs a new chunk; the
//! heap counters check that for every sample.

use std::hint::black_box;

use serde::{Deserialize, Serialize};

use crate::contenders::{Batch, Column, Handle};
use crate::harness::{Clock, Sample, Sampler};
use crate::heap;
use crate::procs;

/// How the benchmark reaches the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// Stack-local arena, inlined loop.
    Local,
    /// `&Arena` passed to a non-inlined function.
    Ref,
}

impl Form {
    /// Both forms, in report order.
    pub const ALL: [Form; 2] = [Form::Local, Form::Ref];

    /// Short name in the benchmark ids and `compare`'s table.
    pub fn key(self) -> &'static str {
        match self {
            Form::Local => "local",
            Form::Ref => "ref",
        }
    }
}

/// One step of a row: a fixed handful of allocations.
pub trait Work: Copy + 'static {
    /// Allocations per step.
    const ALLOCS: usize;
    /// Bytes one step allocates (for sizing the arena).
    fn bytes(&self) -> usize;
    /// Performs the step; every result goes through `black_box`.
    fn step<H: Handle>(self, arena: &H);
}

/// Hands a block's address to `black_box`, so the copy into it must be made: one
/// 8-byte store, the same for every contender. `black_box` of the slice or string
/// itself stores a fat pointer, address and length, into two adjacent stack slots; where
/// those straddled a 32-byte boundary the loop took a cycle longer, and where they fall
/// depends on the process's stack offset and the function's frame. That moved
/// `alloc_str_lit_8` through `&VmArena` between 0.82 and 1.09 ns from one process to the
/// next (two-core AMD EPYC VM), and made `&Arena` lose that row 1.32x in a stored run.
#[inline(always)]
fn sink<T: ?Sized>(block: &mut T) {
    black_box(core::ptr::from_mut(block).cast::<u8>());
}

/// `arena.alloc(value)`, `M` times in a row.
#[derive(Clone, Copy)]
pub struct Alloc<T, const M: usize>(pub T);

impl<T: Copy + 'static, const M: usize> Work for Alloc<T, M> {
    const ALLOCS: usize = M;
    fn bytes(&self) -> usize {
        M * size_of::<T>()
    }
    #[inline(always)]
    fn step<H: Handle>(self, arena: &H) {
        for _ in 0..M {
            black_box(arena.alloc(self.0));
        }
    }
}

/// `arena.alloc_slice_copy(src)` with a length known only at run time.
#[derive(Clone, Copy)]
pub struct Slice<T: 'static>(pub &'static [T]);

impl<T: Copy + 'static> Work for Slice<T> {
    const ALLOCS: usize = 1;
    fn bytes(&self) -> usize {
        size_of_val(self.0)
    }
    #[inline(always)]
    fn step<H: Handle>(self, arena: &H) {
        sink(arena.alloc_slice_copy(self.0));
    }
}

/// `arena.alloc_str(src)` with a length known only at run time.
#[derive(Clone, Copy)]
pub struct Str(pub &'static str);

impl Work for Str {
    const ALLOCS: usize = 1;
    fn bytes(&self) -> usize {
        self.0.len()
    }
    #[inline(always)]
    fn step<H: Handle>(self, arena: &H) {
        sink(arena.alloc_str(self.0));
    }
}

/// Copy of a `'static` byte slice whose length `N` is a compile-time constant.
#[derive(Clone, Copy)]
pub struct SliceLit<const N: usize>(pub &'static [u8; N]);

impl<const N: usize> Work for SliceLit<N> {
    const ALLOCS: usize = 1;
    fn bytes(&self) -> usize {
        N
    }
    #[inline(always)]
    fn step<H: Handle>(self, arena: &H) {
        sink(arena.alloc_slice_lit(self.0.as_slice()));
    }
}

/// Copy of a `'static` string whose length `N` is a compile-time constant.
/// Holds the bytes so `N` stays in the type; they are ASCII (checked on creation).
#[derive(Clone, Copy)]
pub struct StrLit<const N: usize>(&'static [u8; N]);

impl<const N: usize> StrLit<N> {
    /// # Panics
    /// If `bytes` is not ASCII.
    pub fn new(bytes: &'static [u8; N]) -> Self {
        assert!(bytes.is_ascii(), "string sources are ASCII");
        Self(bytes)
    }
}

impl<const N: usize> Work for StrLit<N> {
    const ALLOCS: usize = 1;
    fn bytes(&self) -> usize {
        N
    }
    #[inline(always)]
    fn step<H: Handle>(self, arena: &H) {
        // SAFETY: `StrLit::new` checked the bytes are ASCII, hence UTF-8. The check
        // is not repeated here because the timed loop must contain only the copy.
        let src: &'static str = unsafe { std::str::from_utf8_unchecked(self.0) };
        sink(arena.alloc_str_lit(src));
    }
}

/// Arena capacity for `iters` steps of `work`: the payload plus a quarter for
/// alignment padding, plus a page for chunk headers.
pub fn capacity_for<W: Work>(work: &W, iters: usize) -> usize {
    let payload = work.bytes() * iters;
    payload + payload / 4 + 4096
}

/// `iters` steps of `work`, inlined where the handle is.
#[derive(Clone, Copy)]
struct Steps<W> {
    work: W,
    iters: usize,
}

impl<W: Work> Batch for Steps<W> {
    type Output = ();
    #[inline(always)]
    fn run<H: Handle>(self, handle: &H) {
        for _ in 0..self.iters {
            self.work.step(handle);
        }
    }
}

/// One timed sample of `iters` steps of `work` (`ops` operations): with the loop
/// inlined where the handle is, or with `BEHIND_REF` in [`batch_behind_ref`], which
/// gets only `&handle`. The clock runs inside the batch, so a scope column's entry and
/// exit stay out of the allocation rows.
struct Timed<'c, W, const BEHIND_REF: bool> {
    work: W,
    iters: usize,
    ops: usize,
    clock: &'c Clock,
}

impl<W: Work, const BEHIND_REF: bool> Batch for Timed<'_, W, BEHIND_REF> {
    type Output = Sample;
    #[inline(always)]
    fn run<H: Handle>(self, handle: &H) -> Sample {
        let work = black_box(self.work);
        place_first_block(handle);
        let heap = heap::Snapshot::now();
        let start = self.clock.start();
        if BEHIND_REF {
            batch_behind_ref(handle, work, self.iters);
        } else {
            for _ in 0..self.iters {
                work.step(handle);
            }
        }
        let ns_per_op = self.clock.per_op(start, self.ops);
        Sample { ns_per_op, heap_calls: heap.calls_since() }
    }
}

/// Allocates [`procs::this_block_offset`] bytes (untimed, inside the batch's own handle
/// call, so a scope column keeps them until its batch ends): the batch's first block
/// then starts that far into the cache line where the arena's first free byte is.
#[inline(always)]
fn place_first_block<H: Handle>(handle: &H) {
    const BYTES: [u8; 48] = [0x5a; 48];
    let n = procs::this_block_offset();
    if n > 0 {
        black_box(handle.alloc_slice_copy(&BYTES[..n]));
    }
}

/// A filled-then-reset arena: its chunk exists and its pages are mapped.
fn prepared<C: Column, W: Work>(work: W, iters: usize) -> C {
    let mut arena = C::with_capacity(capacity_for(&work, iters));
    for _ in 0..2 {
        arena.with_handle(Steps { work, iters });
        arena.reset();
    }
    arena
}

/// A sampler for `work` on column `C` in `form`.
pub fn sampler<C: Column, W: Work>(form: Form, work: W, iters: usize) -> Sampler {
    let ops = iters * W::ALLOCS;
    match form {
        Form::Local => {
            let mut slot = Some(prepared::<C, W>(work, iters));
            Box::new(move |clock| local_batch(&mut slot, work, iters, ops, clock))
        }
        Form::Ref => {
            let mut arena = Box::new(prepared::<C, W>(work, iters));
            Box::new(move |clock| {
                arena.reset();
                arena.with_handle(Timed::<W, true> { work, iters, ops, clock })
            })
        }
    }
}

/// One sample with the arena moved into this frame, as a local whose address nothing
/// outside this frame sees (as in a user's `let arena = Arena::new();` and a loop).
///
/// Not through `black_box`: its argument's address goes to the optimizer barrier,
/// and the compiler builds the local in that same slot, so the arena would count as
/// escaped and every field access would go through memory.
#[inline(never)]
fn local_batch<C: Column, W: Work>(slot: &mut Option<C>, work: W, iters: usize, ops: usize, clock: &Clock) -> Sample {
    let mut arena: C = slot.take().expect("arena is returned after each sample");
    arena.reset();
    let sample = arena.with_handle(Timed::<W, false> { work, iters, ops, clock });
    *slot = Some(arena);
    sample
}

/// The batch, out of line: the arena (or scope) is only known as a reference.
#[inline(never)]
fn batch_behind_ref<H: Handle, W: Work>(arena: &H, work: W, iters: usize) {
    for _ in 0..iters {
        work.step(arena);
    }
}

/// Allocations each arena holds when the `clear` rows reset it.
pub const CLEAR_FILL: usize = 8;
/// Arenas reset per `clear` sample: a single reset is too short to time alone.
pub const CLEAR_ARENAS: usize = 128;

/// [`CLEAR_FILL`] `u64`s.
#[derive(Clone, Copy)]
struct Fill;

impl Batch for Fill {
    type Output = ();
    #[inline(always)]
    fn run<H: Handle>(self, arena: &H) {
        for i in 0..CLEAR_FILL {
            black_box(arena.alloc(i as u64));
        }
    }
}

/// No allocation: after a reset, the rest of the `clear` rows' round. It is
/// nothing for an arena; the scope column enters and leaves a scope.
#[derive(Clone, Copy)]
struct Nothing;

impl Batch for Nothing {
    type Output = ();
    #[inline(always)]
    fn run<H: Handle>(self, _: &H) {}
}

/// One round of the `clear` rows without its allocations: `reset`, then an empty
/// batch. For an arena it is the reset; for the scope column (whose reset is
/// nothing) entering and leaving a scope, which is how a scope user frees.
#[inline(always)]
fn clear<C: Column>(arena: &mut C) {
    arena.reset();
    arena.with_handle(Nothing);
}

/// A sampler for `clear`: the time of one `reset` of an arena holding
/// [`CLEAR_FILL`] allocations (the scope column: of entering and leaving a scope;
/// see `clear`). Each sample fills [`CLEAR_ARENAS`] arenas (untimed), then
/// times clearing all of them.
pub fn clear_sampler<C: Column>(form: Form) -> Sampler {
    let mut arenas: Box<[C; CLEAR_ARENAS]> = Box::new(std::array::from_fn(|_| C::with_capacity(4096)));
    for arena in arenas.iter_mut() {
        arena.with_handle(Fill);
        clear(arena);
    }
    match form {
        Form::Local => {
            let mut slot = Some(arenas);
            Box::new(move |clock| local_clear(&mut slot, clock))
        }
        Form::Ref => Box::new(move |clock| {
            for arena in arenas.iter_mut() {
                arena.with_handle(Fill);
            }
            let heap = heap::Snapshot::now();
            let start = clock.start();
            clear_each_behind_ref(&mut arenas[..]);
            let ns_per_op = clock.per_op(start, CLEAR_ARENAS);
            Sample { ns_per_op, heap_calls: heap.calls_since() }
        }),
    }
}

/// `clear`, with the arenas moved into this frame for the sample.
#[inline(never)]
fn local_clear<C: Column>(slot: &mut Option<Box<[C; CLEAR_ARENAS]>>, clock: &Clock) -> Sample {
    let boxed = slot.take().expect("arenas are returned after each sample");
    let mut arenas: [C; CLEAR_ARENAS] = black_box(*boxed);
    for arena in arenas.iter_mut() {
        arena.with_handle(Fill);
    }
    let heap = heap::Snapshot::now();
    let start = clock.start();
    for arena in arenas.iter_mut() {
        clear(arena);
    }
    let ns_per_op = clock.per_op(start, CLEAR_ARENAS);
    let heap_calls = heap.calls_since();
    *slot = Some(Box::new(arenas));
    Sample { ns_per_op, heap_calls }
}

#[inline(never)]
fn clear_each_behind_ref<C: Column>(arenas: &mut [C]) {
    for arena in arenas {
        clear(arena);
    }
}

/// A sampler for `clear_and_reuse`: one operation is a `reset` followed by
/// [`CLEAR_FILL`] allocations (the scope column: a scope holding them), repeated
/// `iters` times on one arena.
pub fn clear_and_reuse_sampler<C: Column>(form: Form, iters: usize) -> Sampler {
    let mut arena = Box::new(C::with_capacity(4096));
    arena.with_handle(Fill);
    arena.reset();
    match form {
        Form::Local => {
            let mut slot = Some(*arena);
            Box::new(move |clock| local_clear_and_reuse(&mut slot, iters, clock))
        }
        Form::Ref => Box::new(move |clock| {
            arena.with_handle(Fill);
            let heap = heap::Snapshot::now();
            let start = clock.start();
            reset_and_refill_behind_ref(&mut *arena, iters);
            let ns_per_op = clock.per_op(start, iters);
            Sample { ns_per_op, heap_calls: heap.calls_since() }
        }),
    }
}

/// As [`local_batch`], the arena a local of this frame.
#[inline(never)]
fn local_clear_and_reuse<C: Column>(slot: &mut Option<C>, iters: usize, clock: &Clock) -> Sample {
    let mut arena: C = slot.take().expect("arena is returned after each sample");
    arena.with_handle(Fill);
    let heap = heap::Snapshot::now();
    let start = clock.start();
    for _ in 0..iters {
        arena.reset();
        arena.with_handle(Fill);
    }
    let ns_per_op = clock.per_op(start, iters);
    let heap_calls = heap.calls_since();
    *slot = Some(arena);
    Sample { ns_per_op, heap_calls }
}

#[inline(never)]
fn reset_and_refill_behind_ref<C: Column>(arena: &mut C, iters: usize) {
    for _ in 0..iters {
        arena.reset();
        arena.with_handle(Fill);
    }
}
