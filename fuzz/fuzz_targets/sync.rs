//! `SyncArena` shared by two threads, each running its own decoded program through the
//! shared arena and through two `LocalArena` handles, on a backing allocator that fails
//! the requests the input picks (a failed window refill is where a handle once kept an
//! unaligned `bottom` and handed out another handle's bytes). After every operation the
//! handles pass `check_invariants`; after both threads finish, every block of both is
//! aligned, disjoint from every other and intact (all of it up to 4 KiB, both ends of a
//! bigger one: see [`model::ends`]), the arena passes `check_invariants`,
//! its held bytes match the backing allocator's count, and reset and drop give
//! everything back. (The threads' interleaving is up to the OS: a crash found here may
//! need a few runs to reproduce.)
//!
//! The second thread is spawned once and kept for every input (see [`Worker`]): spawning
//! two threads per input (one per round) took a fifth of the time under AddressSanitizer.
//!
//! The backing allocator keeps the chunks the arena gives back and hands them out again
//! (see [`Pool`]): mapping fresh pages for every input's chunks was most of the time.
#![no_main]
#![feature(cfg_sanitize)]

#[path = "common/model.rs"]
mod model;

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};

use arbitrary::{Arbitrary, Unstructured};
use bumpdown::{BackingAllocator, Global, SyncArena};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Layout {
        size: u16,
        big: bool,
        align: u8,
    },
    Value,
    Slice {
        len: u8,
    },
    Str {
        len: u8,
    },
    /// Drops the thread's current local handle and takes a new one.
    NewLocal,
    /// Switches between the shared arena and the local handles.
    Toggle,
    /// Makes the other local handle the current one.
    Swap,
    LocalSlice {
        len: u16,
    },
    LocalIter {
        len: u16,
    },
}

/// Counts live bytes, atomically (the arena is shared between threads), and fails the
/// requests whose number (mod 64) is set in `fail`. One for the process (the arena must
/// be `'static` to reach the kept thread), reset for each input; every input ends with
/// `live` back at zero.
struct Counting {
    live: AtomicUsize,
    requests: AtomicUsize,
    fail: AtomicU64,
}

// SAFETY: hands out blocks of `Global` (upholding the contract), fresh or kept by
// `POOL` for exactly that layout and given back by their last owner; a failure just
// returns `None`.
unsafe impl BackingAllocator for Counting {
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
        let n = self.requests.fetch_add(1, Ordering::Relaxed);
        if layout.size() > 64 << 20 || self.fail.load(Ordering::Relaxed) & (1 << (n % 64)) != 0 {
            return None;
        }
        let p = POOL.lock().expect("the pool's lock").take(layout).or_else(|| Global.allocate(layout))?;
        self.live.fetch_add(layout.size(), Ordering::Relaxed);
        Some(p)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
        if let Some(ptr) = POOL.lock().expect("the pool's lock").keep(ptr, layout) {
            // SAFETY: from `Global.allocate(layout)` (directly or through the pool).
            unsafe { Global.deallocate(ptr, layout) }
        }
    }
}

/// Blocks the arena gave back, kept (up to [`POOL_BYTES`] in all) to be handed out again
/// for the same layout. Without it, under AddressSanitizer every input's chunks were
/// fresh mappings, and faulting their pages in was half of this target's time. A kept
/// block is poisoned until it is handed out again, so a use after the arena gave it back
/// is still reported, as it was when it went back to the sanitizer's allocator.
struct Pool {
    blocks: Vec<(Layout, NonNull<u8>)>,
    bytes: usize,
}

// SAFETY: the pool owns the blocks it holds (no one else uses them until `take` hands
// one out); the pointers are only addresses to it.
unsafe impl Send for Pool {}

static POOL: Mutex<Pool> = Mutex::new(Pool { blocks: Vec::new(), bytes: 0 });

/// The most bytes [`POOL`] keeps; a block past it goes back to `Global`.
const POOL_BYTES: usize = 256 << 20;

impl Pool {
    /// A kept block of exactly `layout`, unpoisoned.
    fn take(&mut self, layout: Layout) -> Option<NonNull<u8>> {
        let i = self.blocks.iter().rposition(|&(l, _)| l == layout)?;
        let (_, p) = self.blocks.swap_remove(i);
        self.bytes -= layout.size();
        sanitizer::unpoison(p, layout.size());
        Some(p)
    }

    /// Keeps `p` (a block of `layout` no one uses any more), poisoned, or gives it back
    /// when the pool is full.
    fn keep(&mut self, p: NonNull<u8>, layout: Layout) -> Option<NonNull<u8>> {
        if self.bytes + layout.size() > POOL_BYTES {
            return Some(p);
        }
        sanitizer::poison(p, layout.size());
        self.bytes += layout.size();
        self.blocks.push((layout, p));
        None
    }
}

/// AddressSanitizer's manual poisoning, when the target is built with it (no-ops without).
mod sanitizer {
    use std::ptr::NonNull;

    #[cfg(sanitize = "address")]
    extern "C" {
        fn __asan_poison_memory_region(addr: *const u8, size: usize);
        fn __asan_unpoison_memory_region(addr: *const u8, size: usize);
    }

    /// Marks `size` bytes at `p` unusable: any access is reported.
    #[allow(unused_variables)]
    pub fn poison(p: NonNull<u8>, size: usize) {
        // SAFETY: a block of the sanitizer's allocator, of at least `size` bytes, that
        // no one may use until `unpoison`.
        #[cfg(sanitize = "address")]
        unsafe {
            __asan_poison_memory_region(p.as_ptr(), size)
        };
    }

    /// Makes `size` bytes at `p` usable again.
    #[allow(unused_variables)]
    pub fn unpoison(p: NonNull<u8>, size: usize) {
        // SAFETY: a block of the sanitizer's allocator, of at least `size` bytes, that
        // `poison` marked and that is being handed out.
        #[cfg(sanitize = "address")]
        unsafe {
            __asan_unpoison_memory_region(p.as_ptr(), size)
        };
    }
}

static BACKING: Counting =
    Counting { live: AtomicUsize::new(0), requests: AtomicUsize::new(0), fail: AtomicU64::new(0) };

/// A block one thread holds: address, size, alignment, fill byte.
type Block = (usize, usize, usize, u8);

type Shared = Arc<SyncArena<&'static Counting>>;

/// The second thread, spawned on the first input and kept: it runs one thread program
/// per job (the arena and the ops), lets go of the arena, then sends its blocks back.
/// Each round starts it (a channel send, waking it) just before the main thread starts
/// its own program, as `std::thread::scope` did by spawning it there, so the two
/// programs still run at once on the shared arena and its windows. A panic in it aborts
/// the process like one on the main thread (libfuzzer-sys's panic hook), with its message.
struct Worker {
    jobs: mpsc::Sender<(Shared, Arc<Vec<Op>>)>,
    done: mpsc::Receiver<Vec<Block>>,
}

fn worker() -> &'static Mutex<Worker> {
    static WORKER: OnceLock<Mutex<Worker>> = OnceLock::new();
    WORKER.get_or_init(|| {
        let (jobs, job_rx) = mpsc::channel::<(Shared, Arc<Vec<Op>>)>();
        let (done_tx, done) = mpsc::channel();
        std::thread::spawn(move || {
            for (arena, ops) in job_rx {
                let blocks = thread_program(&arena, &ops, 0x80);
                drop(arena);
                if done_tx.send(blocks).is_err() {
                    break;
                }
            }
        });
        Mutex::new(Worker { jobs, done })
    })
}

fn thread_program(arena: &SyncArena<&Counting>, ops: &[Op], tag: u8) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut handles = [Some(arena.local()), Some(arena.local())];
    let (mut current, mut use_local) = (0, false);
    for (i, &op) in ops.iter().enumerate() {
        let byte = tag | ((i % 64) as u8);
        let local = handles[current].as_ref().filter(|_| use_local);
        match op {
            Op::Layout { size, big, align } => {
                let size = if big { usize::from(size) * 16 } else { usize::from(size % 512) };
                let l = Layout::from_size_align(size, 1 << (align % 13)).unwrap();
                let p = match local {
                    Some(h) => h.try_alloc_layout(l),
                    None => arena.try_alloc_layout(l),
                };
                if let Ok(p) = p {
                    model::fill_ends(p.as_ptr(), size, byte);
                    blocks.push((p.as_ptr() as usize, size, l.align(), byte));
                }
            }
            Op::Value => {
                let v = match local {
                    Some(h) => h.try_alloc(u64::from_ne_bytes([byte; 8])),
                    None => arena.try_alloc(u64::from_ne_bytes([byte; 8])),
                };
                if let Ok(v) = v {
                    blocks.push((v as *mut u64 as usize, 8, 8, byte));
                }
            }
            Op::Slice { len } => {
                let src = vec![byte; usize::from(len)];
                let s = match local {
                    Some(h) => h.try_alloc_slice_copy(&src),
                    None => arena.try_alloc_slice_copy(&src),
                };
                if let Ok(s) = s {
                    blocks.push((s.as_mut_ptr() as usize, s.len(), 1, byte));
                }
            }
            Op::Str { len } => {
                let src: String = std::iter::repeat_n(char::from(byte & 0x7F), usize::from(len)).collect();
                if let Ok(s) = arena.try_alloc_slice_copy(src.as_bytes()) {
                    assert_eq!(&*s, src.as_bytes());
                    blocks.push((s.as_mut_ptr() as usize, s.len(), 1, byte & 0x7F));
                }
            }
            Op::NewLocal => {
                // The old handle gives its window back before the new one starts.
                drop(handles[current].take());
                handles[current] = Some(arena.local());
            }
            Op::Toggle => use_local = !use_local,
            Op::Swap => current = 1 - current,
            Op::LocalSlice { len } => {
                let Some(h) = &handles[current] else { continue };
                if let Ok(s) = h.try_alloc_slice_fill_copy(usize::from(len), byte) {
                    blocks.push((s.as_mut_ptr() as usize, s.len(), 1, byte));
                }
            }
            Op::LocalIter { len } => {
                let Some(h) = &handles[current] else { continue };
                let len = usize::from(len % 1024);
                if let Ok(s) = h.try_alloc_iter((0..len).map(|_| u16::from_ne_bytes([byte; 2]))) {
                    assert_eq!(s.len(), len);
                    blocks.push((s.as_mut_ptr() as usize, s.len() * 2, 2, byte));
                }
            }
        }
        handles.iter().flatten().for_each(|h| h.check_invariants());
    }
    blocks
}

fn check(blocks: &[Block]) {
    let mut spans = Vec::with_capacity(blocks.len());
    for &(addr, size, align, byte) in blocks {
        assert_eq!(addr % align, 0, "misaligned block {addr:#x} (align {align})");
        // Blocks of the arena, which has not been reset since they were made, whose ends
        // were written (by the arena, or by `fill_ends`).
        assert!(model::holds_ends(addr as *const u8, size, byte), "contents changed at {addr:#x}+{size}");
        if size > 0 {
            spans.push((addr, addr + size));
        }
    }
    spans.sort_unstable();
    for w in spans.windows(2) {
        assert!(w[0].1 <= w[1].0, "overlap: {:x?} and {:x?}", w[0], w[1]);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(fail), Ok(a), Ok(b)) = (u64::arbitrary(&mut u), Vec::<Op>::arbitrary(&mut u), Vec::<Op>::arbitrary(&mut u))
    else {
        return;
    };
    let backing = &BACKING;
    assert_eq!(backing.live.load(Ordering::Relaxed), 0, "an earlier input leaked");
    backing.requests.store(0, Ordering::Relaxed);
    backing.fail.store(fail, Ordering::Relaxed);
    let worker = worker().lock().expect("the worker's lock");
    let b = Arc::new(b);
    {
        let mut arena: Shared = Arc::new(SyncArena::new_in(backing));
        for _round in 0..2 {
            worker.jobs.send((Arc::clone(&arena), Arc::clone(&b))).expect("the other thread is gone");
            let left = thread_program(&arena, &a, 0x40);
            let right = worker.done.recv().expect("the other thread panicked");
            let mut all = left;
            all.extend(right);
            check(&all);
            let arena = Arc::get_mut(&mut arena).expect("the other thread let go of the arena");
            arena.check_invariants();
            assert_eq!(arena.allocated_bytes(), backing.live.load(Ordering::Relaxed));
            arena.reset();
            assert_eq!(arena.allocated_bytes(), backing.live.load(Ordering::Relaxed));
        }
    }
    assert_eq!(backing.live.load(Ordering::Relaxed), 0, "the arena leaked");
});
