//! `Arena` operation programs checked against a model after every step: allocations of
//! every kind, scopes (closures and guards, nested), checkpoints and rewinds (including
//! stale and foreign ones), resets, limits, backing-allocator failures and allocator-api2
//! grow/shrink/deallocate. After every step: `check_invariants`, no two live blocks
//! overlap, each is aligned and inside the arena's used memory with its bytes intact, and
//! the stats match the backing allocator and the positions saved at checkpoints.
//!
//! "With its bytes intact" is checked when it can change the answer, not after every
//! step (which cost O(steps x live bytes), most of the time of long inputs): every byte
//! of a block is checked right before any operation that may drop it from the model
//! (dealloc, grow, shrink, a rewind the model expects to succeed, reset, a scope's or
//! guard's exit) and at the end of the input, and a block whose bytes the arena wrote is
//! checked when it is recorded. Nothing in the program writes a live block after the
//! model's fill, and a block leaves the model only through those operations, so a byte
//! changed at any step is still changed at that later check: the same inputs fail, a few
//! steps later. (Alignment is checked once, when a block is recorded: its address never
//! changes.)
#![no_main]

#[path = "common/model.rs"]
mod model;

use std::alloc::Layout;
use std::ptr::NonNull;

use allocator_api2::alloc::Allocator;
use arbitrary::{Arbitrary, Unstructured};
use bumpdown::{Arena, Checkpoint, RewindError, Scope};
use libfuzzer_sys::fuzz_target;
use model::{all_bytes, layout, typed_alloc, AllocOp, Counting, Model};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Alloc(AllocOp),
    Zeroed {
        size: u16,
        scale: u8,
        align: u8,
    },
    /// `alloc_iter` with a size hint that may be wrong, and an iterator that may itself
    /// allocate from the arena every `side_every` items.
    Iter {
        len: u16,
        hint: u16,
        side_every: u8,
    },
    Checkpoint,
    Rewind {
        pick: u8,
    },
    ForeignRewind,
    Reset,
    ResetWithLimit {
        retain: u32,
    },
    Limit {
        limit: Option<u32>,
    },
    FailNext {
        n: u8,
    },
    Grow {
        pick: u8,
        extra: u16,
        align: u8,
    },
    Shrink {
        pick: u8,
        by: u16,
        align: u8,
    },
    Dealloc {
        pick: u8,
    },
    EnterGuard,
    ExitGuard,
    EnterScope,
    ExitScope,
}

/// A checkpoint as the model sees it.
struct Cp {
    cp: Checkpoint,
    seq: u64,
    depth: usize,
    valid: bool,
    /// `stats().used` when taken, and whether it is still what a rewind must give back
    /// (a deallocation or reallocation of an older block can lower it).
    used: usize,
    exact: bool,
}

struct World<'a> {
    model: Model,
    cps: Vec<Cp>,
    backing: &'a Counting,
    /// Checkpoints of this arena must be refused by the one under test.
    foreign: Arena<1>,
}

type A<'a, const M: usize> = Arena<M, &'a Counting>;

impl World<'_> {
    fn check<const M: usize>(&self, arena: &A<'_, M>) {
        arena.check_invariants();
        let stats = arena.stats();
        assert_eq!(
            stats.held_bytes,
            self.backing.live_bytes.get(),
            "held bytes differ from the backing allocator's count"
        );
        let live = self.model.live_bytes;
        assert!(stats.used >= live, "used {} < live {live}", stats.used);
        // The walk over the used chunks covers exactly the bytes in use, and every live
        // block lies in one of its ranges.
        // SAFETY: nothing allocates, resets or frees while it runs; only addresses and
        // lengths are read.
        let mut ranges: Vec<(usize, usize)> =
            unsafe { arena.iter_allocated_chunks_raw() }.map(|(p, len)| (p.addr(), len)).collect();
        assert_eq!(ranges.iter().map(|r| r.1).sum::<usize>(), stats.used, "chunk walk and stats disagree");
        ranges.sort_unstable();
        for w in ranges.windows(2) {
            assert!(w[0].0 + w[0].1 <= w[1].0, "walked chunks overlap: {:x?} and {:x?}", w[0], w[1]);
        }
        // Every live block lies in a walked range: the ranges are disjoint, so each block
        // lies in at most one, and the blocks lying in some range number all the live
        // blocks exactly when every block lies in one. Counted per range from the model's
        // sorted spans (two binary searches a range), not searched per block: the per
        // block search, after every step, grew with the number of live blocks.
        // `debug_owns` is asked of every range that holds a block, as before: it holds of
        // a part of anything it holds of, so of every block in such a range (it walks
        // every chunk; asked of every block after every step it was a third of the time).
        let mut inside = 0;
        for &(lo, len) in &ranges {
            let n = self.model.spans_within(lo, lo + len);
            if n > 0 {
                assert!(arena.debug_owns(lo, len), "debug_owns refuses the walked range {lo:#x}+{len}");
                inside += n;
            }
        }
        if inside != self.model.span_count() {
            let outside = self.model.live.iter().find(|b| {
                b.size > 0 && !ranges.iter().any(|&(lo, len)| lo <= b.ptr.addr() && b.ptr.addr() + b.size <= lo + len)
            });
            panic!("live block outside every walked chunk: {outside:?}");
        }
        assert!(stats.peak_used >= stats.used);
    }

    fn inexact(&mut self) {
        for cp in &mut self.cps {
            cp.exact = false;
        }
    }
}

/// An iterator whose size hint may lie (`hint`), allocating from `arena` on the side
/// every `side_every` items.
struct Items<'a, 'b, const M: usize> {
    left: usize,
    hint: usize,
    side_every: usize,
    arena: &'a A<'b, M>,
    side: Vec<(*mut u8, usize)>,
    n: usize,
}

impl<const M: usize> Iterator for Items<'_, '_, M> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        self.n += 1;
        if self.side_every != 0 && self.n.is_multiple_of(self.side_every) {
            if let Ok(s) = self.arena.try_alloc_slice_fill_copy(self.n % 40, 0x5Au8) {
                self.side.push((s.as_mut_ptr(), s.len()));
            }
        }
        Some(0xA5A5_A5A5)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.hint, None)
    }
}

fn pick(n: usize, at: u8) -> Option<usize> {
    (n > 0).then(|| usize::from(at) % n)
}

/// Runs ops on the arena (at `depth` 0) or a guard's view of it until the guard's
/// `ExitGuard` or the end. `guard` is set when running inside a `ScopeGuard`.
fn run<const M: usize>(arena: &mut A<'_, M>, ops: &mut std::slice::Iter<'_, Op>, w: &mut World<'_>, depth: usize) {
    while let Some(&op) = ops.next() {
        if let Op::Alloc(op) = op {
            typed_alloc!(&*arena, op, &mut w.model, depth);
            w.check(arena);
            continue;
        }
        match op {
            Op::Zeroed { size, scale, align } => {
                let l = layout(size, scale, align);
                if let Ok(p) = arena.try_alloc_zeroed_layout(l) {
                    // SAFETY: a fresh block of `l.size()` bytes.
                    let bytes = unsafe { std::slice::from_raw_parts(p.as_ptr(), l.size()) };
                    assert!(all_bytes(bytes, 0), "allocate_zeroed gave non-zero bytes");
                    w.model.add(p.as_ptr(), l.size(), l.align(), depth);
                }
            }
            Op::Iter { len, hint, side_every } => {
                let len = usize::from(len % 2048);
                let mut items = Items {
                    left: len,
                    hint: usize::from(hint % 4096),
                    side_every: usize::from(side_every % 8),
                    arena: &*arena,
                    side: Vec::new(),
                    n: 0,
                };
                let result = arena.try_alloc_iter(&mut items);
                let side = std::mem::take(&mut items.side);
                for (p, n) in side {
                    w.model.add_filled(p, n, 1, depth, 0x5A);
                }
                if let Ok(s) = result {
                    assert_eq!(s.len(), len);
                    assert!(s.iter().fold(0, |d, &x| d | (x ^ 0xA5A5_A5A5)) == 0);
                    w.model.add_filled(s.as_mut_ptr().cast(), s.len() * 4, 4, depth, 0xA5);
                }
            }
            Op::Checkpoint => {
                // Fails only while the arena has no bookkeeping block and cannot get one.
                let Ok(cp) = arena.try_checkpoint() else { continue };
                let seq = w.model.tick();
                w.cps.push(Cp { cp, seq, depth, valid: true, used: arena.stats().used, exact: true });
            }
            Op::Rewind { pick: at } => {
                let Some(i) = pick(w.cps.len(), at) else { continue };
                let (cp, valid) = (w.cps[i].cp, w.cps[i].valid && w.cps[i].depth == depth);
                if valid {
                    // A rewind drops the blocks made after the checkpoint: check them first.
                    // (The arena must refuse a checkpoint that is not `valid`: if it took
                    // one, the assertion below fails anyway.)
                    let seq = w.cps[i].seq;
                    w.model.check_contents(|b| b.seq > seq);
                }
                let result = if depth == 0 { arena.try_rewind(cp) } else { bumpdown::Bump::try_rewind(arena, cp) };
                match result {
                    Ok(()) => {
                        assert!(valid, "a stale checkpoint was accepted");
                        let seq = w.cps[i].seq;
                        w.model.forget_after(seq);
                        for later in &mut w.cps[i + 1..] {
                            later.valid = false;
                        }
                        if w.cps[i].exact {
                            assert_eq!(arena.stats().used, w.cps[i].used, "used after rewind");
                        }
                    }
                    // The ledger may refuse a valid checkpoint when its record is full (it
                    // errs on the stale side), never the other way round.
                    Err(RewindError::StaleCheckpoint) => {}
                    Err(e) => panic!("own checkpoint refused as {e:?}"),
                }
            }
            Op::ForeignRewind => {
                let cp = w.foreign.checkpoint();
                let result = if depth == 0 { arena.try_rewind(cp) } else { bumpdown::Bump::try_rewind(arena, cp) };
                assert_eq!(result, Err(RewindError::ForeignCheckpoint));
            }
            Op::Reset if depth == 0 => {
                w.model.check_contents(|_| true);
                arena.reset();
                w.model.clear();
                w.cps.iter_mut().for_each(|c| c.valid = false);
                assert_eq!(arena.stats().used, 0);
            }
            Op::ResetWithLimit { retain } if depth == 0 => {
                w.model.check_contents(|_| true);
                arena.reset_with_limit(retain as usize);
                w.model.clear();
                w.cps.iter_mut().for_each(|c| c.valid = false);
                assert_eq!(arena.stats().used, 0);
                // Chunks up to `retain`, and the arena's bookkeeping block, which a reset
                // keeps.
                assert!(arena.allocated_bytes_including_metadata() <= retain as usize + A::<M>::BOOKKEEPING_BYTES);
            }
            Op::Limit { limit } => {
                arena.set_allocation_limit(limit.map(|l| l as usize));
            }
            Op::FailNext { n } => w.backing.fail_next.set(u32::from(n % 4)),
            Op::Grow { pick: at, extra, align } => {
                let Some(i) = pick(w.model.live.len(), at) else { continue };
                let b = w.model.live[i];
                if b.depth != depth {
                    continue;
                }
                // The block may move (and its old bytes go back to the arena): check it first.
                w.model.check_block(i);
                let old = Layout::from_size_align(b.size, b.align).unwrap();
                let new = Layout::from_size_align(b.size + usize::from(extra), 1 << (align % 8)).unwrap();
                let a: &A<'_, M> = arena;
                // SAFETY: a live block of this arena with layout `old`; replaced by the new
                // one in the model on success.
                if let Ok(p) = unsafe { a.grow(NonNull::new(b.ptr).unwrap(), old, new) } {
                    let p = p.cast::<u8>().as_ptr();
                    // SAFETY: the new block holds `new.size() >= b.size` bytes.
                    let kept = unsafe { std::slice::from_raw_parts(p, b.size) };
                    assert!(all_bytes(kept, b.byte), "grow lost the contents");
                    w.model.remove(i);
                    w.model.add(p, new.size(), new.align(), depth);
                    w.inexact();
                }
            }
            Op::Shrink { pick: at, by, align } => {
                let Some(i) = pick(w.model.live.len(), at) else { continue };
                let b = w.model.live[i];
                if b.depth != depth {
                    continue;
                }
                w.model.check_block(i);
                let old = Layout::from_size_align(b.size, b.align).unwrap();
                let new = Layout::from_size_align(b.size.saturating_sub(usize::from(by)), 1 << (align % 8)).unwrap();
                let a: &A<'_, M> = arena;
                // SAFETY: as for `grow`.
                if let Ok(p) = unsafe { a.shrink(NonNull::new(b.ptr).unwrap(), old, new) } {
                    let p = p.cast::<u8>().as_ptr();
                    // SAFETY: the new block holds `new.size()` bytes.
                    let kept = unsafe { std::slice::from_raw_parts(p, new.size()) };
                    assert!(all_bytes(kept, b.byte), "shrink lost the contents");
                    w.model.remove(i);
                    w.model.add(p, new.size(), new.align(), depth);
                    w.inexact();
                }
            }
            Op::Dealloc { pick: at } => {
                let Some(i) = pick(w.model.live.len(), at) else { continue };
                let b = w.model.live[i];
                if b.depth != depth {
                    continue;
                }
                w.model.check_block(i);
                let a: &A<'_, M> = arena;
                // SAFETY: a live block of this arena with this layout, dropped from the model.
                unsafe {
                    a.deallocate(NonNull::new(b.ptr).unwrap(), Layout::from_size_align(b.size, b.align).unwrap())
                };
                w.model.remove(i);
                w.inexact();
            }
            Op::EnterGuard if depth < 8 => {
                let entry_used = arena.stats().used;
                {
                    let mut g = arena.scope_guard();
                    run_guard(&mut g, ops, w, depth + 1);
                    // The guard's drop frees the blocks made in it: check them first.
                    w.model.check_contents(|b| b.depth > depth);
                }
                w.model.forget_deeper(depth);
                w.cps.iter_mut().filter(|c| c.depth > depth).for_each(|c| c.valid = false);
                if w.cps.iter().all(|c| c.exact) {
                    assert_eq!(arena.stats().used, entry_used, "used after a guard's exit");
                }
            }
            Op::EnterScope if depth < 8 => {
                let entry_used = arena.stats().used;
                arena.scope(|s| run_scope(s, ops, &mut w.model, depth + 1));
                w.model.forget_deeper(depth);
                if w.cps.iter().all(|c| c.exact) {
                    assert_eq!(arena.stats().used, entry_used, "used after a scope's exit");
                }
            }
            Op::ExitGuard if depth > 0 => return,
            _ => {}
        }
        w.check(arena);
    }
}

/// `run` inside a `ScopeGuard`: the same program, on the arena the guard derefs to.
fn run_guard<const M: usize>(
    g: &mut bumpdown::ScopeGuard<'_, M, &Counting>,
    ops: &mut std::slice::Iter<'_, Op>,
    w: &mut World<'_>,
    depth: usize,
) {
    // A guard is the arena for everything but reset (which it refuses: `run` skips it
    // below depth 0), rewinds (through `Bump::try_rewind` on the guard) and nesting.
    // Those need the guard itself, so the loop is written again on it.
    while let Some(&op) = ops.next() {
        if let Op::Alloc(op) = op {
            typed_alloc!(&**g, op, &mut w.model, depth);
            w.check(g);
            continue;
        }
        match op {
            Op::Checkpoint => {
                let Ok(cp) = g.try_checkpoint() else { continue };
                let seq = w.model.tick();
                w.cps.push(Cp { cp, seq, depth, valid: true, used: g.stats().used, exact: true });
            }
            Op::Rewind { pick: at } => {
                let Some(i) = pick(w.cps.len(), at) else { continue };
                let (cp, valid) = (w.cps[i].cp, w.cps[i].valid && w.cps[i].depth == depth);
                if valid {
                    // As in `run`: the blocks a rewind drops are checked first.
                    let seq = w.cps[i].seq;
                    w.model.check_contents(|b| b.seq > seq);
                }
                match bumpdown::Bump::try_rewind(g, cp) {
                    Ok(()) => {
                        assert!(valid, "a stale checkpoint (or one from before the guard) was accepted");
                        w.model.forget_after(w.cps[i].seq);
                        for later in &mut w.cps[i + 1..] {
                            later.valid = false;
                        }
                        if w.cps[i].exact {
                            assert_eq!(g.stats().used, w.cps[i].used, "used after rewind");
                        }
                    }
                    Err(RewindError::StaleCheckpoint) => {}
                    Err(e) => panic!("own checkpoint refused as {e:?}"),
                }
            }
            Op::ForeignRewind => {
                let cp = w.foreign.checkpoint();
                assert_eq!(bumpdown::Bump::try_rewind(g, cp), Err(RewindError::ForeignCheckpoint));
            }
            Op::Limit { limit } => g.set_allocation_limit(limit.map(|l| l as usize)),
            Op::FailNext { n } => w.backing.fail_next.set(u32::from(n % 4)),
            Op::Dealloc { pick: at } => {
                let Some(i) = pick(w.model.live.len(), at) else { continue };
                let b = w.model.live[i];
                if b.depth != depth {
                    continue;
                }
                w.model.check_block(i);
                let a: &A<'_, M> = g;
                // SAFETY: a live block of this arena with this layout, dropped from the model.
                unsafe {
                    a.deallocate(NonNull::new(b.ptr).unwrap(), Layout::from_size_align(b.size, b.align).unwrap())
                };
                w.model.remove(i);
                w.inexact();
            }
            Op::EnterGuard if depth < 8 => {
                let entry_used = g.stats().used;
                {
                    let mut inner = g.scope_guard();
                    run_guard(&mut inner, ops, w, depth + 1);
                    w.model.check_contents(|b| b.depth > depth);
                }
                w.model.forget_deeper(depth);
                w.cps.iter_mut().filter(|c| c.depth > depth).for_each(|c| c.valid = false);
                if w.cps.iter().all(|c| c.exact) {
                    assert_eq!(g.stats().used, entry_used, "used after a nested guard's exit");
                }
            }
            Op::ExitGuard => return,
            _ => {}
        }
        w.check(g);
    }
}

/// Ops inside a closure scope: allocations and nested scopes only.
fn run_scope<const M: usize>(
    s: &mut Scope<'_, '_, M, &Counting>,
    ops: &mut std::slice::Iter<'_, Op>,
    model: &mut Model,
    depth: usize,
) {
    while let Some(&op) = ops.next() {
        if let Op::Alloc(op) = op {
            typed_alloc!(&*s, op, &mut *model, depth);
            s.check_invariants();
            continue;
        }
        match op {
            Op::EnterScope if depth < 8 => {
                s.scope(|inner| run_scope(inner, ops, model, depth + 1));
                model.forget_deeper(depth);
            }
            Op::ExitScope => break,
            _ => {}
        }
    }
    // The scope's exit, when this returns, frees the blocks made in it: check them first.
    model.check_contents(|b| b.depth >= depth);
}

fn program<const M: usize>(first: u8, ops: &[Op]) {
    let backing = Counting::default();
    {
        let mut arena: A<'_, M> = match first % 3 {
            0 => Arena::new_in(&backing),
            1 => Arena::new_in(&backing).with_max_chunk_size(4096),
            _ => Arena::try_with_capacity_in(usize::from(first) * 37, &backing).expect("a small first chunk"),
        };
        let model = Model::with_min_align(M);
        let mut w = World { model, cps: Vec::new(), backing: &backing, foreign: Arena::new() };
        let mut it = ops.iter();
        run(&mut arena, &mut it, &mut w, 0);
        w.model.check(M, true, |addr, len| arena.debug_owns(addr, len));
        arena.reset();
        arena.check_invariants();
        assert_eq!(arena.stats().used, 0);
    }
    assert_eq!(backing.live_bytes.get(), 0, "the arena leaked");
    assert_eq!(backing.live_blocks.get(), 0, "the arena leaked");
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(first) = u8::arbitrary(&mut u) else { return };
    let Ok(ops) = Vec::<Op>::arbitrary(&mut u) else { return };
    match first >> 6 {
        0 => program::<1>(first, &ops),
        1 => program::<4>(first, &ops),
        2 => program::<8>(first, &ops),
        _ => program::<16>(first, &ops),
    }
});
