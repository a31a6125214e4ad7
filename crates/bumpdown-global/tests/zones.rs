//! A heap's zones driven directly: bare chunks of one size per zone of the region, their
//! size told by their address, reused through the heap's list for the zone and then the
//! zone's free bitmap, and a full zone that refuses without harming anything else.

use std::sync::{Mutex, MutexGuard, PoisonError};

use std::collections::HashSet;

use bumpdown_global::heap::ZONE_LIST_MAX;
use bumpdown_global::region::{self, chunk_index, zone_color, zone_size, Options, Place, PAGE, ZONES};
use bumpdown_global::Heap;

/// The region of this test binary: 64 MiB, so each zone has 4 MiB (a sixteenth of the
/// 64 MiB span).
fn options() -> Options {
    Options::new(64 << 20)
}

const ZONE_BYTES: usize = 4 << 20;

/// The zone of `freed_chunks_come_back_in_address_order_from_the_zone_bitmap`.
const BITMAP_ZONE: usize = ZONES - 2;
/// The zones of `zone_chunks_lie_in_their_zone_and_come_back_through_its_list`.
const LIST_ZONES: usize = ZONES - 2;

/// The tests share the region: the one that fills the last zone takes its turn alone,
/// and the others leave that zone alone; the one that watches the free bitmap has zone
/// [`BITMAP_ZONE`] to itself.
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
    // Zones 0 to LIST_ZONES - 1 (the last two are the other tests'), from two heaps in
    // turn; few enough per zone that every freed one fits its heap's list.
    const ROUNDS: usize = 1500;
    const _: () = assert!(ROUNDS / LIST_ZONES / 2 < ZONE_LIST_MAX as usize);
    for round in 0..ROUNDS {
        let k = round % LIST_ZONES;
        let h = round % 2;
        // SAFETY: k < ZONES.
        let p = unsafe { heaps[h].alloc_zoned::<false>(k, &options) };
        assert!(!p.is_null(), "round {round}: zone {k} refused");
        assert_eq!(p.addr() % 16, 0);
        assert_eq!(region::place(p), Place::Zone(k), "round {round}");
        assert_eq!(region::zone_grid(k, p), p, "round {round}: off the zone's grid");
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
    for round in 0..ROUNDS / 2 {
        let k = (2 * round) % LIST_ZONES;
        // SAFETY: k < ZONES.
        let p = unsafe { heaps[1].alloc_zoned::<true>(k, &options) };
        assert!(holds(p, zone_size(k), 0), "round {round}: a zeroed chunk is dirty");
        assert_eq!(region::place(p), Place::Zone(k));
        reused += freed.contains(&p) as usize;
    }
    assert_eq!(reused, ROUNDS / 2, "the freed chunks were not reused first");
}

#[test]
fn freed_chunks_come_back_in_address_order_from_the_zone_bitmap() {
    let _turn = one_at_a_time();
    let k = BITMAP_ZONE;
    let (mut maker, mut freer) = (Heap::EMPTY, Heap::EMPTY);
    const N: usize = 3000;
    let chunks: Vec<*mut u8> = (0..N)
        // SAFETY: k < ZONES.
        .map(|_| unsafe { maker.alloc_zoned::<false>(k, &options) })
        .collect();
    assert!(chunks.iter().all(|p| !p.is_null()));
    // All but the newest freed on the other heap (as another thread would), scattered:
    // its list takes the first ZONE_LIST_MAX, the zone's bitmap the rest.
    let order: Vec<usize> = (0..N - 1).map(|i| i * 1237 % (N - 1)).collect();
    assert_eq!(order.iter().collect::<HashSet<_>>().len(), N - 1);
    for (i, &c) in order.iter().enumerate() {
        fill(chunks[c], zone_size(k), i as u8);
        // SAFETY: a live chunk of zone k, not used again.
        unsafe { freer.free_zoned(chunks[c], k) };
    }
    let listed = ZONE_LIST_MAX as usize;
    let in_bitmap: HashSet<*mut u8> = order[listed..].iter().map(|&c| chunks[c]).collect();
    // The maker gets the rest of its window, then every chunk of the bitmap, lowest
    // address first, before the zone grows; the freer's listed ones are not among them.
    let used = region::used();
    let mut back = Vec::new();
    let mut fresh = 0;
    while back.len() < in_bitmap.len() {
        // SAFETY: k < ZONES.
        let p = unsafe { maker.alloc_zoned::<true>(k, &options) };
        assert!(holds(p, zone_size(k), 0), "a zeroed chunk is dirty");
        if in_bitmap.contains(&p) {
            back.push(p);
        } else {
            assert!(back.is_empty() && p > chunks[N - 1], "{p:p} is neither fresh nor freed");
            fresh += 1;
            assert!(fresh * zone_size(k) <= 1 << 20, "the bitmap's chunks do not come back");
        }
    }
    assert!(back.windows(2).all(|w| w[0] < w[1]), "not in address order");
    assert_eq!(back.iter().collect::<HashSet<_>>().len(), back.len(), "a chunk came back twice");
    assert_eq!(region::used(), used, "the zone grew while it had free chunks");
    // The freer's list hands out its newest first.
    for &c in order[..listed].iter().rev() {
        // SAFETY: k < ZONES.
        assert_eq!(unsafe { freer.alloc_zoned::<false>(k, &options) }, chunks[c]);
    }
}

#[test]
fn chunk_index_divides_exactly() {
    for k in 0..ZONES {
        let csz = zone_size(k);
        for i in [0, 1, 2, 63, 64, 65, 1 << 20, (1 << 28) - 1, 1 << 28, (1 << 43) / csz - 1] {
            for d in [0, csz / 32 * 16, csz - 16] {
                assert_eq!(chunk_index(i * csz + d, k), i, "zone {k}, chunk {i}, {d} bytes in");
            }
        }
        // Every chunk boundary of a 4 MiB zone, and its last granule.
        for i in 0..ZONE_BYTES / csz {
            assert_eq!(chunk_index(i * csz, k), i);
            assert_eq!(chunk_index(i * csz + csz - 16, k), i);
        }
    }
}

/// Every zone's grid starts at its own page offset, in its own cache line, at its own
/// phase modulo the largest chunk, and its first chunk fits in the zone's first page.
#[test]
fn zones_start_their_grids_apart() {
    let colors: Vec<usize> = (0..ZONES).map(zone_color).collect();
    for (k, &c) in colors.iter().enumerate() {
        assert!(c % 16 == 0 && c + zone_size(k) <= PAGE, "zone {k}: color {c}");
        for (j, &d) in colors.iter().enumerate().take(k) {
            assert_ne!(c / 64, d / 64, "zones {j} and {k} start in one cache line");
            assert_ne!(c % 256, d % 256, "zones {j} and {k} share a phase modulo 256");
        }
    }
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

/// Two threads allocate from one zone and free each other's chunks, so that both give to
/// the zone's free bitmap and take from it at once: no chunk is handed out twice, and
/// each chunk's bytes, written by one thread, reach the other intact. (Run under
/// ThreadSanitizer by `scripts/tsan.sh`, which also checks that the bytes a thread wrote
/// before giving a chunk happen before the next owner's.)
#[test]
fn two_threads_give_and_take_through_the_bitmap() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc;

    let _turn = one_at_a_time();
    let k = LIST_ZONES - 1;
    let csz = zone_size(k);
    // Whether each chunk is handed out, by its address in 16-byte steps (distinct within
    // a zone of 4 MiB). Relaxed, and no lock: the only order between one thread's last
    // use of a chunk and the other's first is the bitmap's, which ThreadSanitizer checks.
    static LIVE: [AtomicBool; 1 << 18] = [const { AtomicBool::new(false) }; 1 << 18];
    let live = |p: *mut u8| &LIVE[(p.addr() / 16) % (1 << 18)];
    // Chunk addresses cross between the threads as integers (a raw pointer is not Send);
    // each thread turns them back with the region's provenance.
    let (to_a, from_b) = mpsc::channel::<Vec<(usize, u8)>>();
    let (to_b, from_a) = mpsc::channel::<Vec<(usize, u8)>>();
    let worker = move |id: u8, send: mpsc::Sender<Vec<(usize, u8)>>, recv: mpsc::Receiver<Vec<(usize, u8)>>| {
        let mut heap = Heap::EMPTY;
        for round in 0..40u8 {
            let mut made = Vec::new();
            for i in 0..500 {
                // SAFETY: k < ZONES.
                let p = unsafe { heap.alloc_zoned::<false>(k, &options) };
                assert!(!p.is_null());
                assert!(!live(p).swap(true, Ordering::Relaxed), "chunk {p:p} handed out twice");
                let seed = id.wrapping_mul(101).wrapping_add(round).wrapping_add(i as u8);
                fill(p, csz, seed);
                made.push((p.expose_provenance(), seed));
            }
            send.send(made).unwrap();
            for (addr, seed) in recv.recv().unwrap() {
                let p = std::ptr::with_exposed_provenance_mut::<u8>(addr);
                assert!(holds(p, csz, seed), "chunk {p:p} was overwritten");
                assert!(live(p).swap(false, Ordering::Relaxed));
                // SAFETY: a live chunk of zone k, handed over by the other thread, not
                // used again.
                unsafe { heap.free_zoned(p, k) };
            }
        }
    };
    let b = std::thread::spawn(move || worker(1, to_a, from_a));
    worker(0, to_b, from_b);
    b.join().unwrap();
}

/// A producer thread allocates, a consumer thread frees: the consumer's list for the zone
/// fills, and its further frees reach the producer through the zone's bitmap, so the
/// producer goes on for many times the zone's size with a bounded number live.
#[test]
fn a_producer_gets_back_what_its_consumer_frees() {
    use std::sync::mpsc;

    let _turn = one_at_a_time();
    let k = LIST_ZONES - 1;
    let per_zone = ZONE_BYTES / zone_size(k);
    let (send, recv) = mpsc::sync_channel::<Vec<usize>>(4);
    let consumer = std::thread::spawn(move || {
        let mut heap = Heap::EMPTY;
        for batch in recv {
            for addr in batch {
                // SAFETY: a live chunk of zone k from the producer, not used again.
                unsafe { heap.free_zoned(std::ptr::with_exposed_provenance_mut(addr), k) };
            }
        }
    });
    let mut heap = Heap::EMPTY;
    for round in 0..5 * per_zone / 100 {
        let batch = (0..100)
            .map(|i| {
                // SAFETY: k < ZONES.
                let p = unsafe { heap.alloc_zoned::<false>(k, &options) };
                assert!(!p.is_null(), "round {round}, chunk {i}: the zone is full");
                p.expose_provenance()
            })
            .collect();
        send.send(batch).unwrap();
    }
    drop(send);
    consumer.join().unwrap();
}
