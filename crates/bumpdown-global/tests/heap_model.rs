//! The engine driven directly: programs of operations on two heaps (as two threads would
//! use them, interleaved) checked against a model: no two live blocks overlap, contents
//! stay intact, zeroed blocks are zero, the newest block is reused and grows in place.

use std::sync::{Mutex, MutexGuard, PoisonError};

use bumpdown_global::heap::PHASE_HEADER;
use bumpdown_global::region::{self, Options, Place};
use bumpdown_global::{chunk_size, Heap, Mode};

/// The tests carve windows from the one region of this process. They take turns: a
/// window carved by another test between two of `newest_block_reuse_...`'s would not
/// be adjacent to its heap's, and its in-place growth would (rightly) fail.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The region for this test binary: 2 GiB of address space (blocks of finished programs
/// are leaked with their heaps), faulted in lazily.
fn options() -> Options {
    Options { size: 2 << 30, huge_pages: false, populate: false }
}

struct Block {
    p: *mut u8,
    size: usize,
    csz: usize,
    align: usize,
    heap: usize,
    seed: u8,
    /// A resize was tried: a grown block may lie in the window of another band than its
    /// new size's, and a failed growth may have moved its heap to a new window; either way
    /// freeing it need not give its bytes back to the bump pointer.
    resized: bool,
}

fn fill(b: &Block) {
    for i in 0..b.size {
        // SAFETY: p is a live block of at least `size` bytes.
        unsafe { b.p.add(i).write(b.seed.wrapping_add(i as u8)) };
    }
}

fn check(b: &Block) {
    for i in 0..b.size {
        // SAFETY: as in fill.
        assert_eq!(unsafe { b.p.add(i).read() }, b.seed.wrapping_add(i as u8), "block {:?} byte {i}", b.p);
    }
}

fn run_program(mode: Mode, phase: usize, seed: u64, ops: usize) {
    let mut heaps = [Heap::EMPTY, Heap::EMPTY];
    let mut live: Vec<Block> = Vec::new();
    // Each heap's last block handed out, while it is live.
    let mut newest: [Option<*mut u8>; 2] = [None; 2];
    let mut x = seed;
    let mut rand = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for op in 0..ops {
        let r = rand();
        let h = (r >> 60) as usize & 1;
        match r % 8 {
            0..=3 => {
                let size = match r % 5 {
                    0 => (r >> 8) as usize % 20_000,
                    _ => (r >> 8) as usize % 300,
                };
                // A phased heap (the `malloc` front end's) is asked for 16-aligned chunks
                // with room for its header in front.
                let (size, align) = match phase {
                    0 => (size, 1usize << ((r >> 32) % 13)),               // 1..=4096
                    _ => (size.max(1) + phase, 1usize << ((r >> 32) % 5)), // 1..=16
                };
                let zero = (r >> 40) % 4 == 0;
                let Some(csz) = chunk_size(size, align, mode) else { continue };
                // SAFETY: csz from chunk_size; align is a power of two <= 4096.
                let p = unsafe {
                    if zero {
                        heaps[h].alloc::<true>(csz, align, mode, phase, &options)
                    } else {
                        heaps[h].alloc::<false>(csz, align, mode, phase, &options)
                    }
                };
                assert!(!p.is_null(), "op {op}: region exhausted");
                assert_eq!((p.addr() + phase) % align.max(csz.min(16)), 0);
                assert!(region::contains(p));
                // The bands' windows lie in the main span (zones are for zone windows).
                assert_eq!(region::place(p), Place::Main, "op {op}");
                if zero {
                    // SAFETY: a fresh block of csz bytes.
                    let bytes = unsafe { std::slice::from_raw_parts(p, csz) };
                    assert!(bytes.iter().all(|&b| b == 0), "op {op}: zeroed block is dirty");
                }
                let b = Block { p, size, csz, align, heap: h, seed: r as u8, resized: false };
                newest[h] = Some(p);
                fill(&b);
                live.push(b);
            }
            4 | 5 if !live.is_empty() => {
                let i = (r >> 8) as usize % live.len();
                let b = live.swap_remove(i);
                check(&b);
                if newest[b.heap] == Some(b.p) {
                    newest[b.heap] = None;
                }
                // Freed on a random heap: blocks move between threads.
                // SAFETY: b is live with chunk size csz; not used again.
                unsafe { heaps[h].free(b.p, b.csz, mode, phase) };
            }
            6 if !live.is_empty() => {
                // Free the newest block of its heap: the next same-size request gets it back.
                let b = live.pop().unwrap();
                let (p, csz, align, heap, resized) = (b.p, b.csz, b.align, b.heap, b.resized);
                check(&b);
                // SAFETY: as above.
                unsafe { heaps[heap].free(p, csz, mode, phase) };
                // SAFETY: csz from chunk_size.
                let q = unsafe { heaps[heap].alloc::<false>(csz, align.min(16), mode, phase, &options) };
                if mode == Mode::Bump && newest[heap] == Some(p) && !resized {
                    assert_eq!(q, p, "op {op}: newest block not reused");
                }
                newest[heap] = Some(q);
                assert_eq!((q.addr() + phase) % align.min(16), 0, "op {op}");
                let b = Block { p: q, size: csz, csz, align: align.min(16), heap, seed: r as u8, resized: false };
                fill(&b);
                live.push(b);
            }
            7 if !live.is_empty() => {
                // Grow or shrink the last block in place if the heap allows.
                let last = live.len() - 1;
                let b = &mut live[last];
                let new_size = (r >> 8) as usize % 40_000;
                let Some(new) = chunk_size(new_size, b.align, mode) else { continue };
                // SAFETY: b is live with chunk size b.csz; new from chunk_size.
                if unsafe { heaps[b.heap].resize_in_place(b.p, b.csz, new, mode, phase) } {
                    b.size = b.size.min(new_size);
                    check(b);
                    b.csz = new;
                    b.size = new_size;
                    fill(b);
                }
                b.resized = true;
            }
            _ => {}
        }
        if op % 1000 == 0 {
            let mut ranges: Vec<(usize, usize)> = live.iter().map(|b| (b.p.addr(), b.p.addr() + b.csz)).collect();
            ranges.sort();
            for w in ranges.windows(2) {
                assert!(w[0].1 <= w[1].0, "op {op}: overlap {w:x?}");
            }
            live.iter().for_each(check);
        }
    }
    for b in live.drain(..) {
        check(&b);
        // SAFETY: live block, not used again.
        unsafe { heaps[b.heap].free(b.p, b.csz, mode, phase) };
    }
}

#[test]
fn recycling_programs() {
    let _turn = one_at_a_time();
    for seed in 1..=4 {
        run_program(Mode::Recycle, 0, (seed as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15), 20_000);
    }
}

#[test]
fn bump_programs() {
    let _turn = one_at_a_time();
    for seed in 1..=4 {
        run_program(Mode::Bump, 0, (seed as u64).wrapping_mul(0xD1B5_4A32_D192_ED03), 20_000);
    }
}

/// The same programs on heaps of the `malloc` front end's phase: 16-aligned requests with
/// room for its header, free-list links `PHASE_HEADER` bytes into each chunk.
#[test]
fn recycling_and_bump_programs_on_phased_heaps() {
    let _turn = one_at_a_time();
    for seed in 1..=4 {
        let seed = (seed as u64).wrapping_mul(0x2545_F491_4F6C_DD1D);
        run_program(Mode::Recycle, PHASE_HEADER, seed, 20_000);
        run_program(Mode::Bump, PHASE_HEADER, seed, 20_000);
    }
}

#[test]
fn newest_block_reuse_and_growth_on_a_fresh_heap() {
    let _turn = one_at_a_time();
    for mode in [Mode::Recycle, Mode::Bump] {
        let mut h = Heap::EMPTY;
        let csz = chunk_size(100, 16, mode).unwrap();
        // SAFETY: csz from chunk_size; blocks freed once below.
        unsafe {
            let a = h.alloc::<false>(csz, 16, mode, 0, &options);
            let b = h.alloc::<false>(csz, 16, mode, 0, &options);
            assert_eq!(b.addr(), a.addr() + csz);
            b.write_bytes(0xEE, csz);
            h.free(b, csz, mode, 0);
            // The dirty bytes came back to the bump pointer: a zeroed request rewrites them.
            let c = h.alloc::<true>(csz, 16, mode, 0, &options);
            assert_eq!(c, b);
            assert!(std::slice::from_raw_parts(c, csz).iter().all(|&x| x == 0));
            // Grow past the first window (64 KiB): the adjacent next window extends it.
            let big = chunk_size(200_000, 16, Mode::Bump).unwrap();
            assert!(h.resize_in_place(c, csz, big, Mode::Bump, 0));
            h.free(c, big, Mode::Bump, 0);
            h.free(a, csz, mode, 0);
        }
    }
}

#[test]
fn each_band_bumps_its_own_window() {
    let _turn = one_at_a_time();
    let mut h = Heap::EMPTY;
    let mode = Mode::Recycle;
    let (tiny, small, large) =
        (chunk_size(5, 1, mode).unwrap(), chunk_size(30, 8, mode).unwrap(), chunk_size(632, 8, mode).unwrap());
    assert_eq!((tiny, small, large), (8, 32, 640));
    // SAFETY: sizes from chunk_size with the alignments passed; every block is freed once.
    unsafe {
        let mut blocks = Vec::new();
        for _ in 0..3 {
            blocks.push((h.alloc::<false>(tiny, 1, mode, 0, &options), tiny));
            blocks.push((h.alloc::<false>(small, 8, mode, 0, &options), small));
            blocks.push((h.alloc::<false>(large, 8, mode, 0, &options), large));
        }
        // Interleaved requests, yet each band's blocks are packed side by side.
        for band in 0..3 {
            let (p0, csz) = blocks[band];
            for k in 1..3 {
                assert_eq!(blocks[band + 3 * k].0.addr(), p0.addr() + k * csz, "band {band}");
            }
        }
        // The newest large block grows in place although smaller blocks came after it.
        let (last, _) = blocks.pop().unwrap();
        h.alloc::<false>(tiny, 1, mode, 0, &options).write(1);
        let grown = chunk_size(1200, 8, mode).unwrap();
        assert!(h.resize_in_place(last, large, grown, mode, 0));
        blocks.push((last, grown));
        // A tiny chunk never changes size in place, and an over-aligned tiny request
        // takes a 16-byte chunk.
        let t = h.alloc::<false>(tiny, 8, mode, 0, &options);
        assert!(!h.resize_in_place(t, tiny, small, mode, 0));
        let sixteen = chunk_size(4, 16, mode).unwrap();
        let o = h.alloc::<false>(sixteen, 16, mode, 0, &options);
        assert_eq!((sixteen, o.addr() % 16), (16, 0));
        blocks.extend([(t, tiny), (o, sixteen)]);
        for (p, csz) in blocks {
            h.free(p, csz, mode, 0);
        }
    }
}

/// A program that keeps asking for over-aligned blocks and freeing them, with other
/// blocks made in between (so the freed one is never the newest), runs in the memory of
/// its first round. Over-aligned requests used to skip the free lists: each took fresh
/// memory, and each freed block went to a list only plainly aligned requests read, so
/// the region grew without bound (found by the `malloc` fuzz target's RSS growth).
#[test]
fn over_aligned_blocks_are_reused_after_a_free() {
    let _turn = one_at_a_time();
    let mut h = Heap::EMPTY;
    let mode = Mode::Recycle;
    for align in [32, 64, 4096] {
        let csz = chunk_size(3000, align, mode).unwrap();
        let spacer = chunk_size(40, 16, mode).unwrap();
        // SAFETY: sizes from chunk_size with the alignments passed; every block is freed
        // once, with the size and alignment it was made with.
        unsafe {
            let mut spacers = Vec::new();
            let mut rounds = |n| {
                for _ in 0..n {
                    let p = h.alloc::<false>(csz, align, mode, 0, &options);
                    assert_eq!(p.addr() % align, 0);
                    p.write_bytes(0xA5, csz);
                    spacers.push(h.alloc::<false>(spacer, 16, mode, 0, &options));
                    h.free(p, csz, mode, 0);
                }
            };
            rounds(1);
            let after_one = region::used();
            rounds(200);
            assert_eq!(region::used(), after_one, "align {align}: 200 rounds took more windows");
            for p in spacers {
                h.free(p, spacer, mode, 0);
            }
        }
    }
}

/// Reallocation as `realloc` does it (in place if the heap agrees, else a move), repeated:
/// a block made small, grown while a block of its new size is free, then freed while a
/// newer block is alive. The program runs in the memory of its first round. Growing in
/// place whenever the block was the newest of its window took fresh memory each round
/// for a class that had a free block (found by the `malloc` fuzz target's RSS growth).
#[test]
fn blocks_resized_while_their_new_class_has_a_free_block_move_there() {
    let _turn = one_at_a_time();
    let mut h = Heap::EMPTY;
    let mode = Mode::Recycle;
    let small = chunk_size(100, 16, mode).unwrap();
    let big = chunk_size(24_000, 16, mode).unwrap();
    // SAFETY: sizes from chunk_size with alignment 16; every block is freed once, with
    // its current size.
    let round = |h: &mut Heap| unsafe {
        let mut a = h.alloc::<false>(small, 16, mode, 0, &options);
        if !h.resize_in_place(a, small, big, mode, 0) {
            let moved = h.alloc::<false>(big, 16, mode, 0, &options);
            h.free(a, small, mode, 0);
            a = moved;
        }
        a.write_bytes(0xA5, big);
        let newer = h.alloc::<false>(small, 16, mode, 0, &options);
        h.free(a, big, mode, 0);
        h.free(newer, small, mode, 0);
    };
    round(&mut h);
    let after_one = region::used();
    for _ in 0..200 {
        round(&mut h);
    }
    assert_eq!(region::used(), after_one, "200 rounds took more windows");
    // SAFETY: as above. A block does not shrink in place into a class with a free block
    // either; the newest block of its window, with no free block of its new class, does.
    unsafe {
        let spare = h.alloc::<false>(small, 16, mode, 0, &options);
        let newer = h.alloc::<false>(small, 16, mode, 0, &options);
        h.free(spare, small, mode, 0);
        // A class no block has had yet: `b` is bumped, the newest of its window.
        let other = chunk_size(10_000, 16, mode).unwrap();
        let b = h.alloc::<false>(other, 16, mode, 0, &options);
        assert!(!h.resize_in_place(b, other, small, mode, 0));
        let fresh_class = chunk_size(40, 16, mode).unwrap();
        assert!(h.resize_in_place(b, other, fresh_class, mode, 0));
        h.free(b, fresh_class, mode, 0);
        h.free(newer, small, mode, 0);
    }
}

/// A heap of phase 8 (the preloaded malloc's: an 8-byte header, then a 16-aligned block)
/// hands out chunks 8 bytes past a multiple of 16, from fresh windows, from the bump
/// pointer after blocks of every size, from its free lists and after growing in place;
/// a phase-0 heap's chunks are 16-aligned.
#[test]
fn a_phased_heap_keeps_its_chunks_at_its_phase() {
    let _turn = one_at_a_time();
    for (phase, mode) in [(8, Mode::Recycle), (8, Mode::Bump), (0, Mode::Recycle)] {
        let mut h = Heap::EMPTY;
        let mut blocks = Vec::new();
        let at_phase = |p: *mut u8| p.addr() % 16 == phase;
        // SAFETY: sizes from chunk_size with alignment 16; every block is freed once, with
        // its current size.
        unsafe {
            for n in [0, 1, 30, 100, 5000, 100_000, 200_000, 3, 700] {
                let csz = chunk_size(n + 8, 16, mode).unwrap();
                let p = h.alloc::<false>(csz, 16, mode, phase, &options);
                assert!(at_phase(p), "phase {phase}: {n} bytes at {p:?}");
                blocks.push((p, csz));
            }
            // The newest grows in place (into a class with no free block).
            let (p, csz) = blocks.pop().unwrap();
            let grown = chunk_size(900, 16, mode).unwrap();
            assert!(h.resize_in_place(p, csz, grown, mode, phase));
            blocks.push((p, grown));
            // Freed blocks come back from the lists at the same phase.
            for (p, csz) in blocks.drain(..).rev().skip(1) {
                h.free(p, csz, mode, phase);
                let q = h.alloc::<false>(csz, 16, mode, phase, &options);
                assert!(at_phase(q));
                h.free(q, csz, mode, phase);
            }
        }
    }
}

/// Blocks left in the large classes (eight arrays grown by moving, as `realloc` grows
/// them, through every class from 16 to 256 KiB, leaving a free block in each) become
/// windows for small blocks instead of the region growing, and the small blocks overlap
/// neither each other nor the arrays. Before, each class's free blocks served that class
/// only: python3's workload kept ~20 MB so, and its region grew by as much.
#[test]
fn large_free_blocks_become_windows_for_small_blocks() {
    let _turn = one_at_a_time();
    let mut h = Heap::EMPTY;
    let mode = Mode::Recycle;
    let small = chunk_size(200, 16, mode).unwrap();
    // SAFETY: sizes from chunk_size with alignment 16; every block is written within its
    // chunk size and freed once, with that size.
    unsafe {
        let mut arrays = [(std::ptr::null_mut::<u8>(), 0); 8];
        let mut freed = 0;
        let mut size = 16 << 10;
        while size <= 256 << 10 {
            let csz = chunk_size(size, 16, mode).unwrap();
            for (i, a) in arrays.iter_mut().enumerate() {
                let q = h.alloc::<false>(csz, 16, mode, 0, &options);
                q.write_bytes(i as u8, csz);
                if !a.0.is_null() {
                    h.free(a.0, a.1, mode, 0);
                    freed += a.1;
                }
                *a = (q, csz);
            }
            size += size / 4;
        }
        assert!(freed > 6 << 20, "{freed}");
        let used = region::used();
        // Nine tenths of the freed bytes in small blocks: more than any window has left.
        let mut blocks = Vec::new();
        for k in 0..freed / 10 * 9 / small {
            let p = h.alloc::<false>(small, 16, mode, 0, &options);
            p.write_bytes(k as u8, small);
            blocks.push(p);
        }
        assert_eq!(region::used(), used, "the small blocks took new windows");
        for (k, &p) in blocks.iter().enumerate() {
            assert!((0..small).all(|j| *p.add(j) == k as u8), "block {k} was overwritten");
        }
        for (i, &(p, csz)) in arrays.iter().enumerate() {
            assert!((0..csz).all(|j| *p.add(j) == i as u8), "array {i} was overwritten");
            h.free(p, csz, mode, 0);
        }
        for p in blocks {
            h.free(p, small, mode, 0);
        }
    }
}

/// Every 64-byte chunk, bumped between chunks of other sizes or taken from its free list,
/// hands out a block that starts on a cache line, at either phase: a `malloc(56)` under
/// the preload (a chunk with its 8-byte header) or a 64-byte value under `BumpGlobal` lies
/// in one line. Under python3's workload, with one window for every chunk over 32 bytes,
/// 90% of its `malloc(56)` blocks straddled two lines. Such a chunk never grows in place
/// (that would move the line window's cursor off the line), so a `realloc` moves it.
#[test]
fn line_chunks_start_their_blocks_on_a_cache_line() {
    let _turn = one_at_a_time();
    for (phase, mode) in [(8, Mode::Recycle), (8, Mode::Bump), (0, Mode::Recycle), (0, Mode::Bump)] {
        let mut h = Heap::EMPTY;
        let line = chunk_size(64 - phase, 16, mode).unwrap();
        assert_eq!(line, 64);
        let on_a_line = |p: *mut u8| (p.addr() + phase) % 64 == 0;
        let mut blocks = Vec::new();
        // SAFETY: sizes from chunk_size with alignment 16; every block is freed once, with
        // its size.
        unsafe {
            for k in 0..5000 {
                // Other sizes in between, as a program interleaves them (48 bytes: the
                // large window's cursor moves off the line).
                let other = chunk_size([24, 40, 100, 300][k % 4], 16, mode).unwrap();
                blocks.push((h.alloc::<false>(other, 16, mode, phase, &options), other));
                let p = h.alloc::<false>(line, 16, mode, phase, &options);
                assert!(on_a_line(p), "phase {phase}, {mode:?}: chunk {k} at {p:?}");
                assert!(region::contains(p) && !region::contains(&k as *const usize as *const u8));
                blocks.push((p, line));
            }
            // The newest line chunk does not grow in place; a smaller chunk does.
            let (p, csz) = blocks.pop().unwrap();
            assert!(!h.resize_in_place(p, csz, chunk_size(100, 16, mode).unwrap(), mode, phase));
            blocks.push((p, csz));
            // Freed line chunks come back from the list on a line, and new ones still land
            // on one.
            for (p, csz) in blocks.drain(..).rev() {
                h.free(p, csz, mode, phase);
            }
            for _ in 0..3 * 5000 {
                let p = h.alloc::<false>(line, 16, mode, phase, &options);
                assert!(on_a_line(p), "phase {phase}, {mode:?}: {p:?} after the frees");
                blocks.push((p, line));
            }
            for (p, csz) in blocks {
                h.free(p, csz, mode, phase);
            }
        }
    }
}
