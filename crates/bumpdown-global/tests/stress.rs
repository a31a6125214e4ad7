//! Threads hammering `BumpGlobal` as the program's own global allocator (`harness =
//! false`): allocations of every size and alignment, frees, reallocs and zeroed blocks,
//! blocks handed to the next thread and freed or grown there, contents checked
//! throughout. The threads start together, so they carve windows concurrently.
//!
//! The program runs the stress twice: in itself, with a roomy reservation (large and
//! over-aligned blocks still take the fallback), and in a child process whose reservation
//! is a few MiB, so the threads use the region up while they race and carry on from the
//! fallback, with frees routed by address across both.
//!
//! It is written for ThreadSanitizer (`scripts/tsan.sh`): the allocator keeps per-thread
//! state behind one atomic carve, and any unsynchronised access to a heap or to a block
//! it hands out twice is a report. Without TSan it is an ordinary (quick) test.

use std::alloc::{alloc, alloc_zeroed, dealloc, realloc, Layout};
use std::process::Command;
use std::ptr::NonNull;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Barrier};

use bumpdown_global::{stats, BumpGlobal};

#[global_allocator]
static A: BumpGlobal = BumpGlobal::new();

/// Threads in each run (the machines this runs on have few cores; TSan is slow).
const THREADS: usize = 4;
/// Operations per thread.
const STEPS: usize = 12_000;
/// Live blocks a thread keeps at most; past it, it frees instead of allocating.
const MAX_LIVE: usize = 1_500;
/// The reservation of the child run: small enough that the threads exhaust it early.
const TIGHT_RESERVE: &str = "6M";

/// A block from the global allocator, filled with `seed`.
struct Block {
    p: NonNull<u8>,
    layout: Layout,
    seed: u8,
}

// SAFETY: a `Block` owns its allocation alone (nothing else points into it), so moving
// it to another thread moves the only access; the channel orders the two threads' uses.
unsafe impl Send for Block {}

impl Block {
    /// Allocates `size` (non-zero) bytes aligned to `align` and fills them with `seed`;
    /// with `zeroed`, checks first that the allocator gave zeros.
    fn new(size: usize, align: usize, seed: u8, zeroed: bool) -> Block {
        let layout = Layout::from_size_align(size, align).unwrap();
        // SAFETY: size is non-zero.
        let p = unsafe {
            if zeroed {
                alloc_zeroed(layout)
            } else {
                alloc(layout)
            }
        };
        let p = NonNull::new(p).unwrap_or_else(|| panic!("no memory for {layout:?}: {:?}", stats()));
        assert_eq!(p.as_ptr().addr() % align, 0, "{layout:?}");
        let mut block = Block { p, layout, seed: 0 };
        if zeroed {
            assert!(block.bytes().iter().all(|&b| b == 0), "zeroed block {layout:?} is dirty");
        }
        block.fill(seed);
        block
    }

    /// The block's bytes.
    fn bytes(&self) -> &[u8] {
        // SAFETY: p is a live allocation of layout.size() bytes that this Block owns.
        unsafe { std::slice::from_raw_parts(self.p.as_ptr(), self.layout.size()) }
    }

    /// Fills the whole block with `seed`.
    fn fill(&mut self, seed: u8) {
        // SAFETY: p is a live allocation of layout.size() bytes that this Block owns.
        unsafe { self.p.as_ptr().write_bytes(seed, self.layout.size()) };
        self.seed = seed;
    }

    /// Asserts the block still holds its seed in every byte.
    fn check(&self) {
        let seed = self.seed;
        if let Some(i) = self.bytes().iter().position(|&b| b != seed) {
            panic!("block {:?} {:?}: byte {i} is {:#x}, not {seed:#x}", self.p, self.layout, self.bytes()[i]);
        }
    }

    /// Reallocates to `size` (non-zero) bytes, checks the kept prefix, refills with `seed`.
    fn resize(&mut self, size: usize, seed: u8) {
        self.check();
        // SAFETY: p is live with `layout`; size is non-zero and, with the same power-of-two
        // alignment, well under isize::MAX.
        let q = unsafe { realloc(self.p.as_ptr(), self.layout, size) };
        let q = NonNull::new(q).unwrap_or_else(|| panic!("no memory to grow to {size}: {:?}", stats()));
        let kept = self.layout.size().min(size);
        self.p = q;
        self.layout = Layout::from_size_align(size, self.layout.align()).unwrap();
        assert_eq!(q.as_ptr().addr() % self.layout.align(), 0, "{:?}", self.layout);
        if let Some(i) = self.bytes()[..kept].iter().position(|&b| b != self.seed) {
            panic!("realloc to {:?} lost byte {i} of {kept}", self.layout);
        }
        self.fill(seed);
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        self.check();
        // SAFETY: p is live with `layout` and not used after this.
        unsafe { dealloc(self.p.as_ptr(), self.layout) };
    }
}

/// A xorshift generator: the same program on every run for a given thread.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A request size: mostly small, some pages, a few over `CLASS_MAX` (256 KiB, so the
    /// fallback serves them).
    fn size(&mut self) -> usize {
        match self.below(100) {
            0..=69 => 1 + self.below(256),
            70..=94 => 257 + self.below(8 << 10),
            95..=98 => (8 << 10) + self.below(120 << 10),
            _ => (300 << 10) + self.below(300 << 10),
        }
    }

    /// An alignment: mostly small, some up to a page, rarely 8 KiB (served by the fallback).
    fn align(&mut self) -> usize {
        match self.below(100) {
            0..=79 => 1 << self.below(5),
            80..=98 => 1 << (5 + self.below(8)),
            _ => 8192,
        }
    }
}

/// One thread's program: allocate, free, grow and shrink, pass blocks on to `next` and
/// adopt those that arrive on `inbox`. Returns the blocks still live at the end, which the
/// caller frees on its own thread.
fn worker(id: usize, start: &Barrier, next: Sender<Block>, inbox: Receiver<Block>) -> Vec<Block> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (id as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
    let mut live: Vec<Block> = Vec::new();
    start.wait();
    for step in 0..STEPS {
        let seed = step as u8 ^ id as u8;
        match rng.below(100) {
            0..=39 if live.len() < MAX_LIVE => {
                let (size, align, zeroed) = (rng.size(), rng.align(), rng.below(4) == 0);
                live.push(Block::new(size, align, seed, zeroed));
            }
            0..=64 if !live.is_empty() => drop(live.swap_remove(rng.below(live.len()))),
            65..=79 if !live.is_empty() => {
                let i = rng.below(live.len());
                let size = rng.size();
                live[i].resize(size, seed);
            }
            80..=89 if !live.is_empty() => {
                // The last block this thread took on, often its newest: that one grows or
                // shrinks in place while its window has room.
                let size = rng.size();
                live.last_mut().unwrap().resize(size, seed);
            }
            90..=99 if !live.is_empty() => {
                // The next thread keeps its inbox until our sender is gone: this fails only
                // if it panicked.
                next.send(live.swap_remove(rng.below(live.len()))).expect("the next thread panicked");
            }
            _ => {}
        }
        // Adopt what the previous thread passed on so far.
        while let Ok(block) = inbox.try_recv() {
            block.check();
            live.push(block);
        }
    }
    drop(next);
    // Blocks still in flight to us, until the previous thread is done.
    for block in inbox {
        block.check();
        live.push(block);
    }
    live.iter().for_each(Block::check);
    live
}

/// Runs `THREADS` workers in a ring (each passes blocks to the next), started together,
/// and frees what they leave on this thread.
fn stress() {
    let start = Arc::new(Barrier::new(THREADS));
    let (senders, inboxes): (Vec<_>, Vec<_>) = (0..THREADS).map(|_| channel::<Block>()).unzip();
    let mut handles = Vec::new();
    for (id, inbox) in inboxes.into_iter().enumerate() {
        let next = senders[(id + 1) % THREADS].clone();
        let start = Arc::clone(&start);
        handles.push(std::thread::spawn(move || worker(id, &start, next, inbox)));
    }
    drop(senders);
    let mut left = 0;
    for h in handles {
        let live = h.join().unwrap();
        left += live.len();
        drop(live);
    }
    assert_eq!(stats().fallback_live, 0, "every fallback block was freed: {:?}", stats());
    println!("stress: {THREADS} threads x {STEPS} steps, {left} blocks freed by the main thread, {:?}", stats());
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("tight") {
        stress();
        let s = stats();
        assert!(s.used + (1 << 20) >= s.reserved, "the threads used the region up: {s:?}");
        assert!(s.fallbacks > 1000, "and carried on from the fallback: {s:?}");
        println!("stress (reservation {TIGHT_RESERVE}, exhausted): ok");
        return;
    }
    stress();
    println!("stress: ok");
    let status = Command::new(std::env::current_exe().unwrap())
        .arg("tight")
        .env("BUMPDOWN_RESERVE", TIGHT_RESERVE)
        .status()
        .unwrap();
    assert!(status.success(), "the run with a {TIGHT_RESERVE} reservation failed: {status}");
}
