//! The scratch arenas of a thread go back to the allocator when the thread exits.
//! (A file of its own, without the test harness, `harness = false` in Cargo.toml: it
//! counts every byte of the process's heap, and the harness's own thread allocates while
//! a test runs.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bumpdown::scratch;

/// The system allocator, counting the bytes it has handed out and not yet taken back.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` with the same arguments.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` above, that is from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static HEAP: Counting = Counting;

/// A thread that fills its depth-0 and depth-1 scratch arenas, then exits.
fn a_thread_using_scratch() {
    std::thread::spawn(|| {
        let sum = scratch(|outer| {
            let a = outer.alloc_slice_fill_copy(8_000, 1u8);
            let inner = scratch(|s| s.alloc_slice_fill_copy(4_000, 2u8).iter().map(|&b| b as usize).sum::<usize>());
            a.iter().map(|&b| b as usize).sum::<usize>() + inner
        });
        assert_eq!(sum, 16_000);
    })
    .join()
    .unwrap();
}

fn main() {
    a_threads_scratch_arenas_are_freed_when_it_exits();
    println!("test a_threads_scratch_arenas_are_freed_when_it_exits ... ok");
}

fn a_threads_scratch_arenas_are_freed_when_it_exits() {
    // The first thread pays the standard library's one-time allocations.
    a_thread_using_scratch();
    let before = LIVE.load(Ordering::Relaxed);
    for _ in 0..4 {
        a_thread_using_scratch();
    }
    // Each thread held at least 12,000 bytes of chunks when it exited.
    let after = LIVE.load(Ordering::Relaxed);
    assert_eq!(after, before, "{} bytes not given back by 4 threads", after.wrapping_sub(before) as isize);
}
