//! `VmArena` operation programs on a small reservation (so running out of it is common):
//! allocations of every kind, zeroed ones (which skip the memset for fresh pages),
//! checkpoints and rewinds, nested guards, resets under both reset policies, limits and
//! allocator-api2 grow (in place for the newest block) / shrink / deallocate. After
//! every step `check_invariants` holds, the live blocks are aligned, intact, disjoint and
//! inside the used part of the reservation, and `stats().used` is exact at rewinds and
//! guard exits.
#![no_main]

#[path = "common/model.rs"]
mod model;

use std::alloc::Layout;
use std::ptr::NonNull;

use allocator_api2::alloc::Allocator;
use arbitrary::{Arbitrary, Unstructured};
use bumpdown::{Checkpoint, ResetPolicy, RewindError, VmArena, VmOptions, VmScopeGuard};
use libfuzzer_sys::fuzz_target;
use model::{all_bytes, layout, typed_alloc, AllocOp, Model};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Alloc(AllocOp),
    Zeroed { size: u16, scale: u8, align: u8 },
    Iter { len: u16, hint: u16 },
    Checkpoint,
    Rewind { pick: u8 },
    ForeignRewind,
    Reset,
    Limit { limit: Option<u32> },
    Grow { pick: u8, extra: u16, align: u8 },
    Shrink { pick: u8, by: u16, align: u8 },
    Dealloc { pick: u8 },
    EnterGuard,
    ExitGuard,
}

struct Cp {
    cp: Checkpoint,
    seq: u64,
    depth: usize,
    valid: bool,
    used: usize,
    exact: bool,
}

struct World {
    model: Model,
    cps: Vec<Cp>,
    base: usize,
    /// Whether a block made before the innermost open guard was freed through it.
    outer_freed: bool,
}

impl World {
    fn check<const M: usize>(&self, arena: &VmArena<M>) {
        arena.check_invariants();
        let used = arena.stats().used;
        let (lo, hi) = (self.base, self.base + used);
        self.model.check(M, false, |addr, len| lo <= addr && addr + len <= hi);
        let live: usize = self.model.live.iter().map(|b| b.size).sum();
        assert!(used >= live && used <= arena.reserved());
        assert!(arena.allocated_bytes() <= arena.reserved());
    }
}

/// The arena itself (depth 0) or a guard on it.
enum At<'g, 'a, const M: usize> {
    Top(&'g mut VmArena<M>),
    Guard(&'g mut VmScopeGuard<'a, M>),
}

impl<const M: usize> At<'_, '_, M> {
    fn arena(&self) -> &VmArena<M> {
        match self {
            At::Top(a) => a,
            At::Guard(g) => g,
        }
    }

    fn try_rewind(&mut self, cp: Checkpoint) -> Result<(), RewindError> {
        match self {
            At::Top(a) => a.try_rewind(cp),
            At::Guard(g) => g.try_rewind(cp),
        }
    }
}

fn run<const M: usize>(mut at: At<'_, '_, M>, ops: &mut std::slice::Iter<'_, Op>, w: &mut World, depth: usize) {
    while let Some(&op) = ops.next() {
        let arena = at.arena();
        match op {
            Op::Alloc(op) => typed_alloc!(arena, op, &mut w.model, depth),
            Op::Zeroed { size, scale, align } => {
                let l = layout(size, scale, align);
                if let Ok(p) = arena.try_alloc_zeroed_layout(l) {
                    // SAFETY: a fresh block of `l.size()` bytes.
                    let bytes = unsafe { std::slice::from_raw_parts(p.as_ptr(), l.size()) };
                    assert!(all_bytes(bytes, 0), "a zeroed block has non-zero bytes");
                    w.model.add(p.as_ptr(), l.size(), l.align(), depth);
                }
            }
            Op::Iter { len, hint } => {
                let len = usize::from(len % 4096);
                let hint = usize::from(hint % 8192);
                struct Liar(usize, usize);
                impl Iterator for Liar {
                    type Item = u16;
                    fn next(&mut self) -> Option<u16> {
                        self.0.checked_sub(1).map(|n| {
                            self.0 = n;
                            0x6B6B
                        })
                    }
                    fn size_hint(&self) -> (usize, Option<usize>) {
                        (self.1, None)
                    }
                }
                if let Ok(s) = arena.try_alloc_iter(Liar(len, hint)) {
                    assert_eq!(s.len(), len);
                    w.model.add_filled(s.as_mut_ptr().cast(), len * 2, 2, depth, 0x6B);
                }
            }
            Op::Checkpoint => {
                let cp = arena.checkpoint();
                let seq = w.model.tick();
                w.cps.push(Cp { cp, seq, depth, valid: true, used: arena.stats().used, exact: true });
            }
            Op::Rewind { pick } => {
                if w.cps.is_empty() {
                    continue;
                }
                let i = usize::from(pick) % w.cps.len();
                let valid = w.cps[i].valid && w.cps[i].depth == depth;
                match at.try_rewind(w.cps[i].cp) {
                    Ok(()) => {
                        assert!(valid, "a stale checkpoint was accepted");
                        w.model.forget_after(w.cps[i].seq);
                        w.cps[i + 1..].iter_mut().for_each(|c| c.valid = false);
                        if w.cps[i].exact {
                            assert_eq!(at.arena().stats().used, w.cps[i].used, "used after rewind");
                        }
                    }
                    Err(RewindError::StaleCheckpoint) => {}
                    Err(e) => panic!("own checkpoint refused as {e:?}"),
                }
            }
            Op::ForeignRewind => {
                let other: VmArena<1> = VmArena::new(1 << 14);
                assert_eq!(at.try_rewind(other.checkpoint()), Err(RewindError::ForeignCheckpoint));
            }
            Op::Reset => {
                if let At::Top(a) = &mut at {
                    a.reset();
                    w.model.clear();
                    w.cps.iter_mut().for_each(|c| c.valid = false);
                    assert_eq!(a.stats().used, 0);
                }
            }
            Op::Limit { limit } => arena.set_allocation_limit(limit.map(|l| l as usize)),
            Op::Grow { pick, extra, align } | Op::Shrink { pick, by: extra, align } => {
                if w.model.live.is_empty() {
                    continue;
                }
                let i = usize::from(pick) % w.model.live.len();
                let b = w.model.live[i];
                if b.depth != depth {
                    continue;
                }
                let old = Layout::from_size_align(b.size, b.align).unwrap();
                let grow = matches!(op, Op::Grow { .. });
                let size = if grow { b.size + usize::from(extra) } else { b.size.saturating_sub(usize::from(extra)) };
                let new = Layout::from_size_align(size, 1 << (align % 8)).unwrap();
                let a: &VmArena<M> = arena;
                let ptr = NonNull::new(b.ptr).unwrap();
                // SAFETY: a live block of this arena with layout `old`, replaced in the
                // model by the new one on success.
                let result = unsafe {
                    if grow {
                        a.grow(ptr, old, new)
                    } else {
                        a.shrink(ptr, old, new)
                    }
                };
                if let Ok(p) = result {
                    let p = p.cast::<u8>().as_ptr();
                    let kept = b.size.min(size);
                    // SAFETY: the new block holds at least `kept` bytes.
                    let bytes = unsafe { std::slice::from_raw_parts(p, kept) };
                    assert!(all_bytes(bytes, b.byte), "grow/shrink lost the contents");
                    w.model.remove(i);
                    w.model.add(p, size, new.align(), depth);
                    w.cps.iter_mut().for_each(|c| c.exact = false);
                }
            }
            Op::Dealloc { pick } => {
                if w.model.live.is_empty() {
                    continue;
                }
                // Any live block, also one made before the current guard: freeing the
                // newest block lowers `top`, and a guard's exit must then keep it lower
                // (it once raised `top` back to its entry).
                let i = usize::from(pick) % w.model.live.len();
                let b = w.model.live[i];
                w.outer_freed |= b.depth < depth;
                let a: &VmArena<M> = arena;
                // SAFETY: a live block with this layout, dropped from the model.
                unsafe {
                    a.deallocate(NonNull::new(b.ptr).unwrap(), Layout::from_size_align(b.size, b.align).unwrap())
                };
                w.model.remove(i);
                w.cps.iter_mut().for_each(|c| c.exact = false);
            }
            Op::EnterGuard if depth < 8 => {
                let used = arena.stats().used;
                let outer_freed = std::mem::take(&mut w.outer_freed);
                {
                    let mut g = match &mut at {
                        At::Top(a) => a.scope_guard(),
                        At::Guard(g) => g.scope_guard(),
                    };
                    run(At::Guard(&mut g), ops, w, depth + 1);
                }
                w.model.forget_deeper(depth);
                w.cps.iter_mut().filter(|c| c.depth > depth).for_each(|c| c.valid = false);
                let after = at.arena().stats().used;
                if w.outer_freed {
                    // Blocks from before the guard were freed through it: at most `used`.
                    assert!(after <= used, "a guard's exit raised `top` over freed blocks: {after} > {used}");
                } else if w.cps.iter().all(|c| c.exact) {
                    assert_eq!(after, used, "used after a guard's exit");
                }
                w.outer_freed |= outer_freed;
            }
            Op::ExitGuard if depth > 0 => return,
            _ => {}
        }
        w.check(at.arena());
    }
}

fn program<const M: usize>(reserve: usize, policy: u8, ops: &[Op]) {
    let mut options = VmOptions::new(reserve).commit_batch(16 << 10);
    if policy % 2 == 1 {
        options = options.reset_policy(ResetPolicy::ReleaseAbove(usize::from(policy) * 1024));
    }
    let mut arena = VmArena::<M>::with_min_align_and_options(options);
    // The reservation's start: where the first allocation of a fresh arena goes.
    let base = arena.alloc_layout(Layout::new::<u8>()).as_ptr() as usize;
    arena.reset();
    let mut w = World { model: Model::default(), cps: Vec::new(), base, outer_freed: false };
    let mut it = ops.iter();
    run(At::Top(&mut arena), &mut it, &mut w, 0);
    w.model.check(M, true, |_, _| true);
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(reserve), Ok(policy), Ok(m)) = (u8::arbitrary(&mut u), u8::arbitrary(&mut u), u8::arbitrary(&mut u)) else {
        return;
    };
    let Ok(ops) = Vec::<Op>::arbitrary(&mut u) else { return };
    // 16 KiB to 4 MiB of address space.
    let reserve = (usize::from(reserve) + 1) << 14;
    match m % 3 {
        0 => program::<1>(reserve, policy, &ops),
        1 => program::<8>(reserve, policy, &ops),
        _ => program::<16>(reserve, policy, &ops),
    }
});
