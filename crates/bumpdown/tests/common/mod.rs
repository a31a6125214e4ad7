//! Backing allocators for tests: one that counts and fails on request, one that fails
//! exactly one request.
#![allow(dead_code)]

use bumpdown::{BackingAllocator, Global};
use std::alloc::Layout;
use std::cell::Cell;
use std::ptr::NonNull;

/// Counts calls and bytes, and can be told to fail the n-th allocation (1-based) or
/// everything past a byte budget. Checks on drop that everything was given back.
#[derive(Default)]
pub struct TestAlloc {
    pub allocs: Cell<usize>,
    pub deallocs: Cell<usize>,
    pub live_bytes: Cell<usize>,
    /// Fail the allocation whose 1-based number this is (0: never).
    pub fail_nth: Cell<usize>,
    /// Fail every allocation from then on too.
    pub fail_after: Cell<bool>,
    /// Refuse blocks larger than this, as a real allocator refuses impossible sizes
    /// (Miri aborts instead of returning null, so tests of huge sizes use this).
    pub refuse_above: Cell<Option<usize>>,
}

impl TestAlloc {
    pub fn failing_nth(n: usize) -> Self {
        let a = Self::default();
        a.fail_nth.set(n);
        a.fail_after.set(true);
        a
    }

    /// An allocator with 1 GiB of memory.
    pub fn small_machine() -> Self {
        let a = Self::default();
        a.refuse_above.set(Some(1 << 30));
        a
    }

    pub fn calls(&self) -> usize {
        self.allocs.get() + self.deallocs.get()
    }
}

// SAFETY: forwards to `Global`, which upholds the contract; failing just returns `None`.
unsafe impl BackingAllocator for TestAlloc {
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
        let n = self.allocs.get() + 1;
        let fail = self.fail_nth.get();
        if fail != 0 && (n == fail || (self.fail_after.get() && n > fail)) {
            return None;
        }
        if self.refuse_above.get().is_some_and(|max| layout.size() > max) {
            return None;
        }
        self.allocs.set(n);
        self.live_bytes.set(self.live_bytes.get() + layout.size());
        Global.allocate(layout)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        self.deallocs.set(self.deallocs.get() + 1);
        self.live_bytes.set(self.live_bytes.get() - layout.size());
        // SAFETY: `ptr` came from `Global.allocate(layout)` above.
        unsafe { Global.deallocate(ptr, layout) }
    }
}

impl Drop for TestAlloc {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            assert_eq!(self.live_bytes.get(), 0, "the arena leaked chunks");
            assert_eq!(self.allocs.get(), self.deallocs.get(), "allocations and frees differ");
        }
    }
}

/// Fails exactly the `fail`-th request (1-based), counting failed ones too; forwards
/// everything else to the counting `TestAlloc`.
#[derive(Default)]
pub struct FailOnce {
    pub inner: TestAlloc,
    pub requests: Cell<usize>,
    pub fail: Cell<usize>,
}

// SAFETY: forwards to `TestAlloc`; a failure just returns `None`.
unsafe impl BackingAllocator for FailOnce {
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
        let n = self.requests.get() + 1;
        self.requests.set(n);
        if n == self.fail.get() {
            return None;
        }
        self.inner.allocate(layout)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: from `self.inner.allocate(layout)`.
        unsafe { self.inner.deallocate(ptr, layout) }
    }
}

/// A tiny deterministic generator (xorshift), so property tests need no dependency and
/// run quickly under Miri.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Fewer iterations under Miri, which is ~1000x slower.
pub const fn scaled(native: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        native
    }
}

/// Whether every byte of `bytes` is `byte`. Compares whole slices (a `memcmp`), which
/// Miri runs far faster than a byte-by-byte loop.
pub fn all_bytes_are(bytes: &[u8], byte: u8) -> bool {
    const BLOCK: usize = 4096;
    let block = [byte; BLOCK];
    bytes.chunks(BLOCK).all(|c| c == &block[..c.len()])
}
