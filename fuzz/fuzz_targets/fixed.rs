//! `FixedArena` over a buffer of fuzzer-chosen size and offset: allocations, checkpoints
//! and rewinds (stale, foreign, taken in ended scopes), scopes and guards, resets. After
//! every step the live blocks are aligned, intact, disjoint and inside the buffer, and
//! `used()` is what the model expects at rewinds and scope exits. A full buffer is an
//! error, never a write outside it.
#![no_main]

#[path = "common/model.rs"]
mod model;

use std::mem::MaybeUninit;

use arbitrary::{Arbitrary, Unstructured};
use bumpdown::{Checkpoint, FixedArena, RewindError};
use libfuzzer_sys::fuzz_target;
use model::{typed_alloc, AllocOp, Model};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Alloc(AllocOp),
    Checkpoint,
    Rewind { pick: u8 },
    ForeignRewind,
    Reset,
    EnterGuard,
    ExitGuard,
    EnterScope,
}

struct Cp {
    cp: Checkpoint,
    seq: u64,
    depth: usize,
    valid: bool,
    used: usize,
}

struct World {
    model: Model,
    cps: Vec<Cp>,
    /// The buffer's address range.
    range: (usize, usize),
}

impl World {
    fn check<const M: usize>(&self, arena: &FixedArena<'_, M>) {
        arena.check_invariants();
        let (lo, hi) = self.range;
        self.model.check(M, false, |addr, len| lo <= addr && addr + len <= hi);
        let live: usize = self.model.live.iter().map(|b| b.size).sum();
        assert!(arena.used() >= live && arena.used() <= arena.capacity());
        assert_eq!(arena.used() + arena.chunk_capacity(), arena.capacity());
    }
}

/// The arena itself (depth 0, `&mut`) or a shared view of it inside a guard or scope.
enum At<'g, 'b, const M: usize> {
    Top(&'g mut FixedArena<'b, M>),
    View(&'g FixedArena<'b, M>),
}

impl<'b, const M: usize> At<'_, 'b, M> {
    fn arena(&self) -> &FixedArena<'b, M> {
        match self {
            At::Top(a) => a,
            At::View(a) => a,
        }
    }
}

/// Runs ops until the end, or `ExitGuard` when `depth > 0`. Rewinds and resets need the
/// arena itself (`&mut`), so they run only at depth 0.
fn run<const M: usize>(mut at: At<'_, '_, M>, ops: &mut std::slice::Iter<'_, Op>, w: &mut World, depth: usize) {
    while let Some(&op) = ops.next() {
        match (op, &mut at) {
            (Op::Alloc(op), at) => typed_alloc!(at.arena(), op, &mut w.model, depth),
            (Op::Checkpoint, at) => {
                let cp = at.arena().checkpoint();
                let seq = w.model.tick();
                w.cps.push(Cp { cp, seq, depth, valid: true, used: at.arena().used() });
            }
            (Op::Rewind { pick }, At::Top(a)) => {
                if w.cps.is_empty() {
                    continue;
                }
                let i = usize::from(pick) % w.cps.len();
                let valid = w.cps[i].valid && w.cps[i].depth == 0;
                match a.try_rewind(w.cps[i].cp) {
                    Ok(()) => {
                        assert!(valid, "a stale checkpoint was accepted");
                        w.model.forget_after(w.cps[i].seq);
                        w.cps[i + 1..].iter_mut().for_each(|c| c.valid = false);
                        assert_eq!(a.used(), w.cps[i].used, "used after rewind");
                    }
                    Err(RewindError::StaleCheckpoint) => {}
                    Err(e) => panic!("own checkpoint refused as {e:?}"),
                }
            }
            (Op::ForeignRewind, At::Top(a)) => {
                let mut other = [MaybeUninit::new(0u8); 64];
                let other = FixedArena::<1>::new(&mut other);
                assert_eq!(a.try_rewind(other.checkpoint()), Err(RewindError::ForeignCheckpoint));
            }
            (Op::Reset, At::Top(a)) => {
                a.reset();
                w.model.clear();
                w.cps.iter_mut().for_each(|c| c.valid = false);
                assert_eq!(a.used(), 0);
            }
            (Op::EnterGuard, at) if depth < 8 => {
                let used = at.arena().used();
                match at {
                    At::Top(a) => {
                        let g = a.scope_guard();
                        run(At::View(&g), ops, w, depth + 1);
                    }
                    // A guard's view is `&FixedArena`, which cannot start a guard: run the
                    // inner ops at the next depth on the same view.
                    At::View(a) => run(At::View(a), ops, w, depth + 1),
                }
                w.model.forget_deeper(depth);
                w.cps.iter_mut().filter(|c| c.depth > depth).for_each(|c| c.valid = false);
                if let At::Top(a) = at {
                    assert_eq!(a.used(), used, "used after a guard's exit");
                }
            }
            (Op::EnterScope, At::Top(a)) => {
                let used = a.used();
                a.scope(|s| run(At::View(s), ops, w, depth + 1));
                w.model.forget_deeper(depth);
                w.cps.iter_mut().filter(|c| c.depth > depth).for_each(|c| c.valid = false);
                assert_eq!(a.used(), used, "used after a scope's exit");
            }
            (Op::ExitGuard, _) if depth > 0 => return,
            _ => {}
        }
        w.check(at.arena());
    }
}

fn program<const M: usize>(len: usize, offset: usize, ops: &[Op]) {
    let mut storage = vec![MaybeUninit::new(0u8); len + offset];
    let buf = &mut storage[offset..];
    let lo = buf.as_ptr() as usize;
    let range = (lo, lo + buf.len());
    let mut arena = FixedArena::<M>::with_min_align(buf);
    assert!(arena.capacity() <= len);
    let mut w = World { model: Model::default(), cps: Vec::new(), range };
    let mut it = ops.iter();
    run(At::Top(&mut arena), &mut it, &mut w, 0);
    w.model.check(M, true, |addr, len| range.0 <= addr && addr + len <= range.1);
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(len), Ok(offset), Ok(m)) = (u16::arbitrary(&mut u), u8::arbitrary(&mut u), u8::arbitrary(&mut u)) else {
        return;
    };
    let Ok(ops) = Vec::<Op>::arbitrary(&mut u) else { return };
    let (len, offset) = (usize::from(len) % 20_000, usize::from(offset % 32));
    match m % 3 {
        0 => program::<1>(len, offset, &ops),
        1 => program::<8>(len, offset, &ops),
        _ => program::<16>(len, offset, &ops),
    }
});
