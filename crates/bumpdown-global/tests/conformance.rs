//! The conformance suite, run by a program whose own global allocator is `BumpGlobal`
//! (`harness = false`: the test harness itself allocates through it too).

use std::alloc::{alloc, alloc_zeroed, dealloc, realloc, GlobalAlloc, Layout};
use std::hint::black_box;

use bumpdown_global::{stats, BumpGlobal, DEFAULT_RESERVATION};

// Huge pages asked for (they are off by default), so that the tests walk that path too
// wherever the region's test page says they are fast.
#[global_allocator]
static A: BumpGlobal = BumpGlobal::new().huge_pages(true);

/// Fills `len` bytes at `p` with a pattern derived from `seed`.
fn fill(p: *mut u8, len: usize, seed: usize) {
    for i in 0..len {
        // SAFETY: callers pass live blocks of at least `len` bytes.
        unsafe { p.add(i).write((seed.wrapping_mul(31).wrapping_add(i) % 251) as u8) };
    }
}

/// Checks the pattern written by `fill`.
fn check(p: *const u8, len: usize, seed: usize) {
    for i in 0..len {
        // SAFETY: callers pass live blocks of at least `len` bytes.
        let b = unsafe { p.add(i).read() };
        assert_eq!(b, (seed.wrapping_mul(31).wrapping_add(i) % 251) as u8, "block {seed} byte {i}");
    }
}

fn sizes() -> impl Iterator<Item = usize> {
    [
        1usize,
        7,
        8,
        15,
        16,
        17,
        31,
        48,
        100,
        1000,
        1024,
        1025,
        4095,
        4096,
        5000,
        65536,
        100_000,
        262_144,
        262_145,
        1 << 21,
    ]
    .into_iter()
}

fn alignments_and_contents() {
    let mut live = Vec::new();
    let mut seed = 0;
    let mut align = 1;
    while align <= 8192 {
        for size in sizes() {
            let layout = Layout::from_size_align(size, align).unwrap();
            // SAFETY: non-zero size.
            let p = unsafe { alloc(layout) };
            assert!(!p.is_null(), "size {size} align {align}");
            assert_eq!(p.addr() % align, 0, "size {size} align {align}");
            fill(p, size, seed);
            live.push((p, layout, seed));
            seed += 1;
        }
        align *= 2;
    }
    for &(p, layout, seed) in &live {
        check(p, layout.size(), seed);
    }
    // No two live blocks overlap.
    let mut ranges: Vec<(usize, usize)> = live.iter().map(|&(p, l, _)| (p.addr(), p.addr() + l.size())).collect();
    ranges.sort();
    for w in ranges.windows(2) {
        assert!(w[0].1 <= w[1].0, "overlap {w:x?}");
    }
    for (p, layout, _) in live {
        // SAFETY: allocated above with `layout`.
        unsafe { dealloc(p, layout) };
    }
}

fn size_zero_and_huge() {
    let zero = Layout::from_size_align(0, 1).unwrap();
    // SAFETY: BumpGlobal documents that it accepts size 0 (the trait leaves it to us).
    let p = unsafe { A.alloc(zero) };
    assert!(!p.is_null());
    // SAFETY: allocated just above with `zero`.
    unsafe { A.dealloc(p, zero) };
    for size in [isize::MAX as usize - 4096, 1usize << 62, 1 << 50] {
        let layout = Layout::from_size_align(size, 16).unwrap();
        // SAFETY: non-zero size.
        let p = unsafe { A.alloc(layout) };
        assert!(p.is_null(), "{size} bytes should not be available");
        // SAFETY: non-zero size.
        assert!(unsafe { A.alloc_zeroed(layout) }.is_null());
    }
    // After failures, allocation still works and old blocks stay intact.
    let v: Vec<u32> = (0..1000).collect();
    assert_eq!(v.iter().sum::<u32>(), 499_500);
}

fn realloc_up_and_down() {
    for &(from, to) in &[
        (8usize, 4000usize),
        (4000, 8),
        (100, 100_000),
        (100_000, 50),
        (300_000, 10),
        (10, 300_000),
        (1 << 20, 3 << 20),
    ] {
        let layout = Layout::from_size_align(from, 8).unwrap();
        // SAFETY: non-zero size.
        let p = unsafe { alloc(layout) };
        fill(p, from, from);
        let other = Box::new([7u8; 100]); // so that `p` is not always the newest block
                                          // SAFETY: p is live with `layout`; `to` is non-zero.
        let q = unsafe { realloc(p, layout, to) };
        assert!(!q.is_null());
        check(q, from.min(to), from);
        assert_eq!(*other, [7u8; 100]);
        // SAFETY: q is live with the new size.
        unsafe { dealloc(q, Layout::from_size_align(to, 8).unwrap()) };
    }
}

fn big_blocks_have_mappings_of_their_own() {
    let before = stats();
    let layout = Layout::from_size_align(5 << 20, 4096).unwrap();
    // SAFETY: non-zero size; freed below with the size realloc gave it.
    unsafe {
        let p = alloc_zeroed(layout);
        assert!(!p.is_null());
        // A block this big makes the region decide on huge pages; with them, it starts on
        // a huge-page boundary.
        let huge = bumpdown_global::region::huge_pages();
        assert!(!huge || p.addr() % (2 << 20) == 0, "2 MiB and more start on a huge-page boundary");
        assert_eq!(p.addr() % 4096, 0);
        assert_eq!(*p.add(layout.size() - 1), 0);
        fill(p, layout.size(), 3);
        let during = stats();
        assert_eq!(during.used, before.used, "not carved from the reservation");
        assert_eq!(during.fallbacks, before.fallbacks + 1);
        assert_eq!(during.fallback_live, before.fallback_live + layout.size());
        let q = realloc(p, layout, 9 << 20);
        assert!(!q.is_null());
        assert_eq!(q.addr() % 4096, 0);
        check(q, layout.size(), 3);
        dealloc(q, Layout::from_size_align(9 << 20, 4096).unwrap());
    }
    assert_eq!(stats().fallback_live, before.fallback_live, "freed blocks are no longer counted");
}

fn newest_block_is_reused_and_grows_in_place() {
    // A new thread: its free lists are empty, so blocks come from its window.
    std::thread::spawn(newest_block_on_a_fresh_heap).join().unwrap();
}

fn newest_block_on_a_fresh_heap() {
    let layout = Layout::from_size_align(200, 8).unwrap();
    // SAFETY: non-zero sizes; each block is freed with its layout.
    unsafe {
        let a = alloc(layout);
        let b = alloc(layout);
        assert_eq!(b.addr(), a.addr() + 208, "consecutive bumps from one window");
        dealloc(b, layout);
        let c = alloc(layout);
        assert_eq!(c, b, "the newest block is taken back");
        // Grow the newest block in place, several times over.
        let mut size = 200;
        let mut p = c;
        while size < 200_000 {
            let q = realloc(p, Layout::from_size_align(size, 8).unwrap(), size * 2);
            assert_eq!(q, c, "newest block grows in place");
            p = q;
            size *= 2;
        }
        dealloc(p, Layout::from_size_align(size, 8).unwrap());
        dealloc(a, layout);
    }
}

fn freed_blocks_are_recycled() {
    std::thread::spawn(recycle_on_a_fresh_heap).join().unwrap();
}

fn recycle_on_a_fresh_heap() {
    let layout = Layout::from_size_align(48, 8).unwrap();
    // SAFETY: non-zero sizes; each block is freed once with its layout.
    unsafe {
        let blocks: Vec<*mut u8> = (0..100).map(|_| alloc(layout)).collect();
        let guard = alloc(layout); // keeps the others from being the newest
        for &p in &blocks {
            dealloc(p, layout);
        }
        let again: Vec<*mut u8> = (0..100).map(|_| alloc(layout)).collect();
        let missing: Vec<_> = again.iter().filter(|p| !blocks.contains(p)).collect();
        assert!(
            missing.is_empty(),
            "blocks {:?}\nagain {:?} guard {:?} missing {missing:?}",
            &blocks[..5],
            &again[..5],
            guard
        );
        for p in &again {
            assert!(blocks.contains(p), "a 48-byte request reuses a freed 48-byte block");
        }
        for p in again {
            dealloc(p, layout);
        }
        dealloc(guard, layout);
    }
}

fn zeroed_is_zero_even_after_reuse() {
    for round in 0..3 {
        for size in sizes() {
            let layout = Layout::from_size_align(size, 16).unwrap();
            // SAFETY: non-zero size; freed below with `layout`.
            unsafe {
                let p = alloc_zeroed(layout);
                assert!(std::slice::from_raw_parts(p, size).iter().all(|&b| b == 0), "size {size} round {round}");
                p.write_bytes(0xAB, size);
                dealloc(p, layout);
                // Same size again: reuses the dirty block (newest or recycled).
                let q = alloc_zeroed(layout);
                assert!(std::slice::from_raw_parts(q, size).iter().all(|&b| b == 0), "reused, size {size}");
                q.write_bytes(0xCD, size);
                let keep = alloc(Layout::from_size_align(16, 16).unwrap());
                dealloc(q, layout);
                // And via a shrink of the newest block followed by a zeroed bump.
                let r = alloc_zeroed(Layout::from_size_align(size + 64, 16).unwrap());
                assert!(std::slice::from_raw_parts(r, size + 64).iter().all(|&b| b == 0));
                dealloc(r, Layout::from_size_align(size + 64, 16).unwrap());
                dealloc(keep, Layout::from_size_align(16, 16).unwrap());
            }
        }
    }
}

fn many_threads() {
    let threads: Vec<_> = (0..8)
        .map(|t| {
            std::thread::spawn(move || {
                let mut live: Vec<Vec<u8>> = Vec::new();
                let mut x = 0x9E37_79B9u32 ^ t;
                for i in 0..20_000usize {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    let len = (x % 3000) as usize;
                    live.push(vec![(t as usize + i) as u8; len]);
                    if x % 3 == 0 {
                        let v = live.swap_remove((x as usize / 3) % live.len());
                        assert!(v.iter().all(|&b| b == v[0]));
                    }
                }
                for v in &live {
                    assert!(v.iter().all(|&b| b == v[0]));
                }
                live // freed by another thread
            })
        })
        .collect();
    for h in threads {
        let live = h.join().unwrap();
        for v in &live {
            assert!(v.iter().all(|&b| b == v[0]));
        }
    }
}

fn fork_child_allocates() {
    let before: Vec<u64> = (0..10_000).collect();
    // SAFETY: the child only allocates, checks, and leaves with _exit.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let mut ok = before.iter().sum::<u64>() == 49_995_000;
        let handles: Vec<_> =
            (0..2).map(|_| std::thread::spawn(|| (0..1000).map(|i| vec![i as u8; 100]).collect::<Vec<_>>())).collect();
        for h in handles {
            ok &= h.join().map(|v| v.len() == 1000 && v[999][99] == 231).unwrap_or(false);
        }
        let s: String = (0..10_000).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        ok &= s.len() == 10_000;
        // SAFETY: leaves the child without running the parent's exit handlers.
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    let mut status = 0;
    // SAFETY: waits for our own child.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "child status {status:#x}");
    assert_eq!(before.len(), 10_000);
}

fn stats_are_counted() {
    let s = stats();
    let expected = std::env::var("BUMPDOWN_RESERVE")
        .ok()
        .and_then(|v| bumpdown_global::parse_size(v.as_bytes()))
        .unwrap_or(DEFAULT_RESERVATION);
    assert_eq!(s.reserved, expected);
    assert!(s.used > 0 && s.used <= s.reserved);
    assert!(s.peak >= s.used);
    // 8192-aligned and over-256-KiB blocks above went to the system.
    assert!(s.fallbacks > 0, "{s:?}");
    let big = black_box(vec![1u8; 1 << 20]);
    assert!(stats().fallback_live >= 1 << 20);
    drop(big);
}

fn main() {
    let tests: &[(&str, fn())] = &[
        ("alignments_and_contents", alignments_and_contents),
        ("size_zero_and_huge", size_zero_and_huge),
        ("realloc_up_and_down", realloc_up_and_down),
        ("big_blocks_have_mappings_of_their_own", big_blocks_have_mappings_of_their_own),
        ("newest_block_is_reused_and_grows_in_place", newest_block_is_reused_and_grows_in_place),
        ("freed_blocks_are_recycled", freed_blocks_are_recycled),
        ("zeroed_is_zero_even_after_reuse", zeroed_is_zero_even_after_reuse),
        ("many_threads", many_threads),
        ("fork_child_allocates", fork_child_allocates),
        ("stats_are_counted", stats_are_counted),
    ];
    for (name, test) in tests {
        test();
        println!("test {name} ... ok");
    }
    println!("conformance: {} tests passed", tests.len());
}
