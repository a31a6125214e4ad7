//! The malloc family (`bumpdown_malloc::malloc`, exports off) under AddressSanitizer,
//! with the engine's poisoning on (`--cfg bumpdown_asan`, see `bumpdown_global::shadow`).
//! Built only with that cfg; `run-sanitizers.sh` runs it:
//!
//! 1. a long program of mallocs, callocs, reallocs, aligned allocations and frees, each
//!    block filled over its whole usable size and checked before it goes: our code (headers,
//!    free-list links, copies) and the test touch only unpoisoned bytes, or ASan reports;
//! 2. with `BUMPDOWN_PLANT_BUG=uaf` or `=overflow`, a read after `free` or a write one byte
//!    past a block must die with an ASan report.
//!
//! ASan keeps the process's own malloc; ours serves only these calls. Requests stay below
//! the region's limits: a large aligned request would fall back to `__libc_memalign`,
//! which ASan replaces while our `free` hands the block to glibc's `__libc_free`.
#![cfg(bumpdown_asan)]

use bumpdown_malloc::malloc as m;

/// A small deterministic generator (xorshift64).
struct Rng(u64);

impl Rng {
    /// The next number below `n`.
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A live block: pointer, usable size, fill byte.
type Block = (*mut u8, usize, u8);

/// Fills the usable bytes of `p` with `seed`.
fn fill(p: *mut u8, usable: usize, seed: u8) {
    // SAFETY: `usable` bytes at p are the caller's (malloc_usable_size's promise).
    unsafe { p.write_bytes(seed, usable) };
}

/// Checks that the first `n` bytes of `p` still hold `seed`.
fn check(p: *const u8, n: usize, seed: u8) {
    // SAFETY: the block is live with at least `n` usable bytes.
    let bytes = unsafe { std::slice::from_raw_parts(p, n) };
    assert!(bytes.iter().all(|&b| b == seed), "block {p:?} lost its contents");
}

/// A new block from one of the allocating entry points, filled with `seed`.
fn allocate(rng: &mut Rng, seed: u8) -> Block {
    let n = match rng.below(8) {
        0 => 0,
        1..=5 => rng.below(300),
        6 => rng.below(5000),
        _ => rng.below(100_000),
    };
    let p = match rng.below(5) {
        0 | 1 => m::malloc(n),
        2 => {
            let p = m::calloc(1, n);
            check(p, n, 0); // calloc's n bytes are zero
            p
        }
        3 => m::aligned(16 << rng.below(5), n.min(4000)),
        _ => m::valloc(n.min(4000)),
    };
    assert!(!p.is_null());
    // SAFETY: p is live.
    let usable = unsafe { m::malloc_usable_size(p) };
    fill(p, usable, seed);
    (p, usable, seed)
}

#[test]
fn operation_program_touches_only_its_blocks() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut live: Vec<Block> = Vec::new();
    for step in 0..30_000u32 {
        let seed = (step % 251) as u8;
        match rng.below(4) {
            0 | 1 => live.push(allocate(&mut rng, seed)),
            2 if !live.is_empty() => {
                let (p, usable, old) = live.swap_remove(rng.below(live.len()));
                check(p, usable, old);
                // SAFETY: p is live and dropped from `live`.
                unsafe { m::free(p) };
            }
            _ if !live.is_empty() => {
                let i = rng.below(live.len());
                let (p, usable, old) = live[i];
                let n = rng.below(usable * 2 + 64) + 1;
                // SAFETY: p is live; on success it is replaced below.
                let q = unsafe { m::realloc(p, n) };
                assert!(!q.is_null());
                check(q, usable.min(n), old);
                // SAFETY: q is live.
                let usable = unsafe { m::malloc_usable_size(q) };
                fill(q, usable, seed);
                live[i] = (q, usable, seed);
            }
            _ => {}
        }
    }
    for (p, usable, seed) in live {
        check(p, usable, seed);
        // SAFETY: p is live.
        unsafe { m::free(p) };
    }
}

#[test]
fn planted_bug() {
    let p = m::malloc(100);
    // SAFETY: p is live.
    let usable = unsafe { m::malloc_usable_size(p) };
    fill(p, usable, 1);
    match std::env::var("BUMPDOWN_PLANT_BUG").as_deref() {
        Ok("uaf") => {
            // SAFETY: p is live; it is given up here.
            unsafe { m::free(p) };
            // SAFETY: none; ASan must stop the process here.
            let v = unsafe { p.add(5).read_volatile() };
            panic!("read {v} from a freed block: ASan did not catch it");
        }
        Ok("overflow") => {
            // SAFETY: none; ASan must stop the process here.
            unsafe { p.add(usable).write_volatile(2) };
            panic!("wrote past a block: ASan did not catch it");
        }
        _ => {
            // SAFETY: p is live.
            unsafe { m::free(p) };
        }
    }
}
