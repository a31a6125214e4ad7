//! A heap's zones driven directly: bare chunks of one size per zone of the region, their
//! size told by their address, reused through the zone's own list, and a full zone that
//! refuses without harming anything else.

use std::sync::{Mutex, MutexGuard, PoisonError};

use bumpdown_global::region::{self, zone_size, Options, Place, ZONES};
use bumpdown_global::Heap;

/// The region of this test binary: 64 MiB, so each zone has 4 MiB (a sixteenth of the
/// 64 MiB span).
fn options() -> Options {
    Options::new(64 << 20)
}

const ZONE_BYTES: usize = 4 << 20;

/// The tests share the region: the one that fills the last zone takes its turn alone,
/// and the others leave that zone alone.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(PoisonError::into_inner)
}

fn fill(p: *mut u8, len: usize, seed: u8) {
    // SAFETY: p is a live chunk of at least len bytes.
    unsafe { p.write_bytes(seed, len) };
}

fn holds(p: *mut u8, len: usize, seed: u8) -> bool {
    // SAFETY: as in fill.
    unsafe { std::slice::from_raw_parts(p, len) }.iter().all(|&b| b == seed)
}

#[test]
fn zone_chunks_lie_in_their_zone_and_come_back_through_its_list() {
    let _turn = one_at_a_time();
    let mut heaps = [Heap::EMPTY, Heap::EMPTY];
    let mut live = Vec::new();
    // Zones 0 to ZONES - 2 (the last is the other test's), from two heaps in turn.
    for round in 0..3000 {
        let k = round % (ZONES - 1);
        let h = round % 2;
        // SAFETY: k < ZONES.
        let p = unsafe { heaps[h].alloc_zoned::<false>(k, &options) };
        assert!(!p.is_null(), "round {round}: zone {k} refused");
        assert_eq!(p.addr() % 16, 0);
        assert_eq!(region::place(p), Place::Zone(k), "round {round}");
        assert!(region::contains(p));
        fill(p, zone_size(k), round as u8);
        live.push((p, k, round as u8));
    }
    let mut spans: Vec<_> = live.iter().map(|&(p, k, _)| (p.addr(), p.addr() + zone_size(k))).collect();
    spans.sort();
    assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "two chunks overlap");
    // Every other chunk freed, on the other heap (as another thread would); the rest stay
    // intact, and new chunks of those zones come from the lists, zeroed when asked.
    let mut freed = Vec::new();
    for (i, &(p, k, seed)) in live.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
        assert!(holds(p, zone_size(k), seed));
        // SAFETY: p is a live chunk of zone k, not used again.
        unsafe { heaps[(i + 1) % 2].free_zoned(p, k) };
        freed.push(p);
    }
    for (i, &(p, k, seed)) in live.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
        assert!(holds(p, zone_size(k), seed), "chunk {i} was overwritten");
    }
    let mut reused = 0;
    for round in 0..1500 {
        let k = (2 * round) % (ZONES - 1);
        // SAFETY: k < ZONES.
        let p = unsafe { heaps[1].alloc_zoned::<true>(k, &options) };
        assert!(holds(p, zone_size(k), 0), "round {round}: a zeroed chunk is dirty");
        assert_eq!(region::place(p), Place::Zone(k));
        reused += freed.contains(&p) as usize;
    }
    assert_eq!(reused, 1500, "the freed chunks were not reused first");
}

#[test]
fn a_full_zone_refuses_and_everything_else_goes_on() {
    let _turn = one_at_a_time();
    let mut h = Heap::EMPTY;
    let k = ZONES - 1;
    let mut chunks = Vec::new();
    loop {
        // SAFETY: k < ZONES.
        let p = unsafe { h.alloc_zoned::<false>(k, &options) };
        if p.is_null() {
            break;
        }
        chunks.push(p);
        assert!(chunks.len() <= ZONE_BYTES / zone_size(k), "more chunks than the zone holds");
    }
    // Windows end on region pages; each window's tail is shorter than a chunk.
    assert!(chunks.len() * zone_size(k) > ZONE_BYTES * 9 / 10, "{} chunks", chunks.len());
    // Another zone, and the main span, still serve.
    // SAFETY: 0 < ZONES.
    let other = unsafe { h.alloc_zoned::<true>(0, &options) };
    assert_eq!(region::place(other), Place::Zone(0));
    // A freed chunk of the full zone is the next one handed out.
    let back = chunks[chunks.len() / 2];
    // SAFETY: a live chunk of zone k, not used again.
    unsafe { h.free_zoned(back, k) };
    // SAFETY: k < ZONES.
    assert_eq!(unsafe { h.alloc_zoned::<false>(k, &options) }, back);
    // SAFETY: k < ZONES.
    assert!(unsafe { h.alloc_zoned::<false>(k, &options) }.is_null());
}
