//! The C API's Rust side (`bumpdown_c::ffi::bd_*`), called as C would: growable and
//! fixed arenas, `bd_alloc_slow` with any size and alignment (bad ones must give NULL),
//! `bd_strdup`/`bd_strndup`, checkpoints saved, rewound, tampered with and used on the
//! wrong arena, resets and stats. Live blocks are checked for contents and overlap after
//! every step.
#![no_main]

#[path = "common/model.rs"]
mod model;

use core::ffi::c_char;
use core::mem::MaybeUninit;

use arbitrary::{Arbitrary, Unstructured};
use bumpdown_c::ffi::*;
use libfuzzer_sys::fuzz_target;
use model::Model;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Alloc { which: bool, size: u32, align: u32 },
    Strdup { which: bool, len: u8 },
    Strndup { which: bool, len: u8, n: u8 },
    Save { which: bool },
    Rewind { which: bool, pick: u8 },
    Tamper { pick: u8, word: u8, xor: u64 },
    Reset { which: bool },
    ResetWithLimit { which: bool, retain: u32 },
    Stats { which: bool },
}

#[derive(Arbitrary, Debug)]
struct Setup {
    fixed: [bool; 2],
    capacity: [u16; 2],
    max_chunk: [u16; 2],
    limit: [u32; 2],
}

struct Cp {
    arena: usize,
    raw: bd_checkpoint,
    seq: u64,
    valid: bool,
    tampered: bool,
}

fn sizes(size: u32) -> usize {
    match size >> 30 {
        0 => (size % 256) as usize,
        1 => (size % 70_000) as usize,
        2 => (size % (4 << 20)) as usize,
        // Near the overflow edge: must be refused, never wrap.
        _ => usize::MAX - (size % 4096) as usize,
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(setup) = Setup::arbitrary(&mut u) else { return };
    let Ok(ops) = Vec::<Op>::arbitrary(&mut u) else { return };
    // Fixed arenas live in these buffers (u64 so that some are aligned, offset by one
    // byte so that others are not).
    let mut bufs = [vec![0u64; 4096], vec![0u64; 4096]];
    let mut arenas = [core::ptr::null_mut(); 2];
    for i in 0..2 {
        // SAFETY: the buffer outlives the arena (destroyed below, before `bufs` drops).
        arenas[i] = unsafe {
            if setup.fixed[i] {
                let len = usize::from(setup.capacity[i]) % (bufs[i].len() * 8 - 1);
                bd_arena_create_fixed(bufs[i].as_mut_ptr().cast::<u8>().add(i).cast(), len)
            } else {
                let opts = bd_options {
                    initial_capacity: usize::from(setup.capacity[i]),
                    max_chunk_size: usize::from(setup.max_chunk[i]) * 64,
                    limit: setup.limit[i] as usize,
                };
                bd_arena_create_with(&opts)
            }
        };
    }
    // One model per arena; checkpoints remember which arena they came from.
    let mut models = [Model::default(), Model::default()];
    let mut cps: Vec<Cp> = Vec::new();
    for op in ops {
        match op {
            Op::Alloc { which, size, align } => {
                let i = usize::from(which);
                let size = sizes(size);
                let align = match align >> 28 {
                    0 => 1usize << (align % 14),
                    _ => align as usize & 0xFFFF,
                };
                // SAFETY: a handle from `bd_arena_create*` or NULL.
                let p = unsafe { bd_alloc_slow(arenas[i], size, align) };
                let good = !arenas[i].is_null() && align.is_power_of_two();
                if !good || size > isize::MAX as usize {
                    assert!(p.is_null(), "bad input gave a block");
                }
                if !p.is_null() {
                    models[i].add(p.cast(), size, align, 0);
                }
            }
            Op::Strdup { which, len } | Op::Strndup { which, len, .. } => {
                let i = usize::from(which);
                let src: Vec<u8> = (0..len).map(|k| k % 200 + 1).chain([0]).collect();
                let s = src.as_ptr().cast::<c_char>();
                let (p, want) = match op {
                    // SAFETY: a NUL-terminated string.
                    Op::Strdup { .. } => (unsafe { bd_strdup(arenas[i], s) }, usize::from(len)),
                    Op::Strndup { n, .. } => {
                        // SAFETY: a NUL-terminated string; `n` may be shorter or longer.
                        (unsafe { bd_strndup(arenas[i], s, usize::from(n)) }, usize::from(len.min(n)))
                    }
                    _ => unreachable!(),
                };
                if !p.is_null() {
                    // SAFETY: the copy has `want` bytes and a NUL.
                    let copy = unsafe { core::slice::from_raw_parts(p.cast::<u8>(), want + 1) };
                    assert_eq!(&copy[..want], &src[..want]);
                    assert_eq!(copy[want], 0);
                    models[i].add(p.cast(), want + 1, 1, 0);
                }
            }
            Op::Save { which } => {
                let i = usize::from(which);
                let mut raw = bd_checkpoint { opaque_: [MaybeUninit::new(0); 8] };
                // SAFETY: a handle (or NULL) and a writable checkpoint.
                let rc = unsafe { bd_checkpoint_save(arenas[i], &mut raw) };
                if arenas[i].is_null() {
                    assert_eq!(rc, BD_ERR_NULL);
                    continue;
                }
                // An arena that never allocated needs its bookkeeping block first, which
                // a refusing `malloc` or the limit can deny.
                if rc == BD_ERR_NOMEM {
                    continue;
                }
                assert_eq!(rc, BD_OK);
                let seq = models[i].tick();
                cps.push(Cp { arena: i, raw, seq, valid: true, tampered: false });
            }
            Op::Rewind { which, pick } => {
                let i = usize::from(which);
                if cps.is_empty() || arenas[i].is_null() {
                    continue;
                }
                let k = usize::from(pick) % cps.len();
                // SAFETY: a handle and a checkpoint struct, saved or tampered with.
                let rc = unsafe { bd_rewind(arenas[i], &cps[k].raw) };
                if cps[k].tampered {
                    assert_eq!(rc, BD_ERR_BAD_CHECKPOINT, "a tampered checkpoint was not refused");
                } else if cps[k].arena != i {
                    assert_eq!(rc, BD_ERR_FOREIGN_CHECKPOINT);
                } else if !cps[k].valid {
                    assert_eq!(rc, BD_ERR_STALE_CHECKPOINT);
                } else if rc == BD_OK {
                    models[i].forget_after(cps[k].seq);
                    let seq = cps[k].seq;
                    cps.iter_mut().filter(|c| c.arena == i && c.seq > seq).for_each(|c| c.valid = false);
                } else {
                    assert_eq!(rc, BD_ERR_STALE_CHECKPOINT);
                }
            }
            Op::Tamper { pick, word, xor } => {
                if cps.is_empty() || xor == 0 {
                    continue;
                }
                let k = usize::from(pick) % cps.len();
                if cps[k].tampered {
                    // A second change could undo the first.
                    continue;
                }
                let w = usize::from(word % 8);
                // SAFETY: every word was written by `bd_checkpoint_save`.
                let old = unsafe { cps[k].raw.opaque_[w].assume_init() };
                cps[k].raw.opaque_[w] = MaybeUninit::new(old ^ xor);
                let i = cps[k].arena;
                // SAFETY: a handle and an initialized checkpoint struct.
                let rc = unsafe { bd_rewind(arenas[i], &cps[k].raw) };
                assert_eq!(rc, BD_ERR_BAD_CHECKPOINT, "a tampered checkpoint was not refused");
                cps[k].tampered = true;
            }
            Op::Reset { which } | Op::ResetWithLimit { which, .. } => {
                let i = usize::from(which);
                // SAFETY: a handle or NULL.
                let rc = unsafe {
                    match op {
                        Op::ResetWithLimit { retain, .. } => bd_reset_with_limit(arenas[i], retain as usize),
                        _ => bd_reset(arenas[i]),
                    }
                };
                if arenas[i].is_null() {
                    assert_eq!(rc, BD_ERR_NULL);
                    continue;
                }
                assert_eq!(rc, BD_OK);
                models[i].clear();
                cps.iter_mut().filter(|c| c.arena == i).for_each(|c| c.valid = false);
            }
            Op::Stats { which } => {
                let i = usize::from(which);
                let mut s = bd_stats::default();
                // SAFETY: a handle or NULL, and a writable struct.
                let rc = unsafe { bd_arena_stats(arenas[i], &mut s) };
                if arenas[i].is_null() {
                    assert_eq!(rc, BD_ERR_NULL);
                    continue;
                }
                assert_eq!(rc, BD_OK);
                let live: usize = models[i].live.iter().map(|b| b.size).sum();
                assert!(s.used >= live && s.peak_used >= s.used && s.chunks >= s.spare_chunks + s.big_chunks);
            }
        }
        for m in &models {
            m.check(1, false, |_, _| true);
        }
    }
    for m in &models {
        m.check(1, true, |_, _| true);
    }
    for a in arenas {
        // SAFETY: each handle once (NULL is allowed).
        unsafe { bd_arena_destroy(a) };
    }
    drop(bufs);
});
