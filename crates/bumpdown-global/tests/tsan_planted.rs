//! ThreadSanitizer catches a planted race on allocator state: two threads bumping one
//! `Heap`, as if `with_heap` handed every thread the same heap. The race runs only when
//! `BUMPDOWN_PLANT_BUG=1`, and then the process must die with a TSan report
//! (`scripts/tsan.sh` checks both: this guards against a run in which TSan is silently
//! off). Without it each thread bumps a heap of its own, which is correct.

use bumpdown_global::region::Options;
use bumpdown_global::{chunk_size, Heap, Mode};

/// A heap reachable from several threads: only the planted bug shares one.
struct SharedHeap(*mut Heap);

// SAFETY: none for the planted bug, which is the point; otherwise each thread gets a
// pointer to a heap no other thread sees.
unsafe impl Send for SharedHeap {}

/// Bumps `n` blocks of 64 bytes from `heap` and writes each, as a program would.
fn bump(heap: SharedHeap, n: usize) {
    let csz = chunk_size(64, 16, Mode::Recycle).unwrap();
    for i in 0..n {
        // SAFETY: csz from chunk_size, alignment 16. Only the planted bug lets another
        // thread use the heap at the same time.
        let p = unsafe { (*heap.0).alloc::<false>(csz, 16, Mode::Recycle, 0, &|| Options::new(1 << 30)) };
        assert!(!p.is_null());
        // SAFETY: a fresh block of csz bytes.
        unsafe { p.write_bytes(i as u8, csz) };
    }
}

#[test]
fn two_threads_one_heap() {
    let plant = std::env::var_os("BUMPDOWN_PLANT_BUG").is_some();
    let shared: *mut Heap = Box::into_raw(Box::new(Heap::EMPTY));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let heap = if plant { shared } else { Box::into_raw(Box::new(Heap::EMPTY)) };
            let heap = SharedHeap(heap);
            std::thread::spawn(move || bump(heap, 2000))
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert!(!plant, "two threads bumped one heap and ThreadSanitizer did not report it");
}
