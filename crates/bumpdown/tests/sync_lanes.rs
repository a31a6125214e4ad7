//! The exclusive lanes of `SyncArena` (8, process-wide): claimed by the first threads
//! that allocate through a `&SyncArena`, given back when those threads exit, claimed
//! again by new threads, which go on bumping the windows the old ones left; and the
//! allocations thread-local destructors make at thread exit, before and after the claim
//! is given back.
//!
//! A test binary of its own, its tests one at a time (`serial`), every allocation on a
//! thread that the test spawns and joins (a join returns once the thread's thread-local
//! destructors have run): so the claims are known at every step.

use bumpdown::SyncArena;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex, MutexGuard, PoisonError};

/// Exclusive lanes (`sync.rs`'s `LANES`).
const LANES: usize = 8;
const ALL_CLAIMED: usize = (1 << LANES) - 1;

static SERIAL: Mutex<()> = Mutex::new(());

/// Runs one test at a time: the claims are process-wide.
fn serial() -> MutexGuard<'static, ()> {
    let guard = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
    assert_eq!(SyncArena::debug_claimed_lanes(), 0, "a lane is still claimed before the test");
    guard
}

/// Checks that the `(address, length)` blocks are pairwise disjoint.
fn assert_disjoint(mut ranges: Vec<(usize, usize)>) {
    ranges.sort_unstable();
    for pair in ranges.windows(2) {
        assert!(pair[0].0 + pair[0].1 <= pair[1].0, "two blocks overlap: {:x?} and {:x?}", pair[0], pair[1]);
    }
}

/// Checks that block `i` of thread `tag` still holds `pattern(tag << 32 | i)` and returns
/// the blocks' ranges.
fn check_blocks<T: PartialEq + core::fmt::Debug>(
    tag: u64,
    blocks: &[&mut T],
    pattern: impl Fn(u64) -> T,
) -> Vec<(usize, usize)> {
    blocks
        .iter()
        .enumerate()
        .map(|(i, block)| {
            assert_eq!(**block, pattern(tag << 32 | i as u64), "block {i} of thread {tag} overwritten");
            (core::ptr::from_ref::<T>(block).addr(), size_of::<T>())
        })
        .collect()
}

/// Three generations of nine threads on one arena. In each, the nine are alive at once:
/// eight claim the eight lanes, the ninth shares; once they are joined, every claim is
/// back. The next generation claims the same lanes and bumps on in the windows the
/// previous one left in the arena: no block of any generation overlaps another, and each
/// still holds its pattern at the end.
#[test]
fn claims_are_given_back_at_exit_and_taken_again() {
    let _serial = serial();
    let steps = if cfg!(miri) { 60 } else { 20_000 };
    // Under Miri two generations (the second takes the first one's lanes again): each
    // is nine threads, the slowest part of CI's Miri step under Tree Borrows.
    let generations = if cfg!(miri) { 2 } else { 3 };
    let arena = SyncArena::new();
    let mut kept = Vec::new();
    for generation in 0..generations {
        let barrier = Barrier::new(LANES + 1);
        let threads: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..=LANES as u64)
                .map(|t| {
                    let (arena, barrier) = (&arena, &barrier);
                    let tag = generation * 100 + t;
                    s.spawn(move || {
                        let mut values = vec![arena.alloc(tag << 32)];
                        let lane = SyncArena::debug_thread_lane().expect("no lane after an allocation");
                        barrier.wait();
                        // All nine have their lanes now, and none has exited.
                        let claimed = SyncArena::debug_claimed_lanes();
                        barrier.wait();
                        values.extend((1..steps).map(|i| arena.alloc(tag << 32 | i)));
                        (tag, lane, claimed, values)
                    })
                })
                .collect();
            // Explicit joins: they wait for the threads' thread-local destructors.
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(SyncArena::debug_claimed_lanes(), 0, "generation {generation}: a claim outlived its thread");
        let mut owned: Vec<usize> = threads.iter().filter(|t| t.1 .1).map(|t| t.1 .0).collect();
        owned.sort_unstable();
        assert_eq!(owned, (0..LANES).collect::<Vec<_>>(), "generation {generation}: not one thread per lane");
        assert!(threads.iter().all(|t| t.2 == ALL_CLAIMED), "generation {generation}: claims seen {threads:?}");
        kept.extend(threads.into_iter().map(|(tag, _, _, values)| (tag, values)));
        arena.check_invariants();
    }
    let ranges = kept.iter().flat_map(|(tag, values)| check_blocks(*tag, values, |v| v)).collect();
    assert_disjoint(ranges);
}

/// One step's block in the claim test: eight words, each `tag << 32 | step`.
type Row = [u64; 8];

/// A claim handed over between two live threads with nothing else between them: eight
/// holders claim every lane and then fill windows (refills included) after their last
/// meeting with a ninth thread, which waits, without allocating, until a holder's exit
/// frees a lane, then claims it and bumps on in the window that holder left. Only the
/// claim's `Release` at the holder's exit and `Acquire` in the claimer order the
/// holder's window headers and its last `top` before the claimer's reads (under Miri,
/// with `Relaxed` there, the claimer's read of the header is a data race).
///
/// Each step allocates a row of eight words, so the windows fill with an eighth of the
/// blocks a `u64` a step makes: with a `u64` a step, Tree Borrows took 30 s or 160 s over
/// this file by Miri's schedule alone (why is not known); with rows, 68 s under every
/// schedule tried.
#[test]
fn a_claim_passes_to_a_running_thread_through_the_claims_alone() {
    let _serial = serial();
    // Several windows' worth (a window holds at most 1,022 rows; under Miri, a first
    // window's 62 and part of a second).
    let steps = if cfg!(miri) { 70 } else { 2_500 };
    let arena = SyncArena::new();
    let row = |tag: u64, i: u64| arena.alloc::<Row>([tag << 32 | i; 8]);
    // `claimed`: every holder has its lane; `checked`: the claimer has seen that, so a
    // holder may run on and exit (without it, a holder could finish before the claimer
    // looks, on a loaded machine).
    let (claimed, checked) = (Barrier::new(LANES + 1), Barrier::new(LANES + 1));
    let (holders, (tag, lane, rows)) = std::thread::scope(|s| {
        let holders: Vec<_> = (0..LANES as u64)
            .map(|tag| {
                let (row, claimed, checked) = (&row, &claimed, &checked);
                s.spawn(move || {
                    let mut rows = vec![row(tag, 0)];
                    claimed.wait();
                    checked.wait();
                    rows.extend((1..steps).map(|i| row(tag, i)));
                    (tag, rows)
                })
            })
            .collect();
        let claimer = s.spawn(|| {
            claimed.wait();
            assert_eq!(SyncArena::debug_claimed_lanes(), ALL_CLAIMED);
            checked.wait();
            while SyncArena::debug_claimed_lanes() == ALL_CLAIMED {
                std::thread::yield_now();
            }
            let tag = LANES as u64;
            let mut rows = vec![row(tag, 0)];
            let lane = SyncArena::debug_thread_lane();
            rows.extend((1..steps).map(|i| row(tag, i)));
            (tag, lane, rows)
        });
        let holders: Vec<_> = holders.into_iter().map(|h| h.join().unwrap()).collect();
        (holders, claimer.join().unwrap())
    });
    assert!(matches!(lane, Some((_, true))), "the ninth thread found no free lane: {lane:?}");
    let mut ranges = check_blocks(tag, &rows, |v| [v; 8]);
    for (tag, rows) in &holders {
        ranges.extend(check_blocks(*tag, rows, |v| [v; 8]));
    }
    assert_disjoint(ranges);
    arena.check_invariants();
}

/// What the thread-local destructor of `ON_EXIT` saw and made at its thread's exit.
struct AtExit {
    tag: u64,
    lane: Option<(usize, bool)>,
    claimed: usize,
    values: Vec<&'static mut u64>,
}

impl std::fmt::Debug for AtExit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "thread {}: lane {:?}, claims {:#b}, {} values", self.tag, self.lane, self.claimed, self.values.len())
    }
}

static EXIT_ARENA: SyncArena = SyncArena::new();
static AT_EXIT: Mutex<Vec<AtExit>> = Mutex::new(Vec::new());

/// Allocates from `EXIT_ARENA` when its thread exits (if given a tag).
struct AllocOnDrop(Cell<u64>);

impl Drop for AllocOnDrop {
    fn drop(&mut self) {
        let tag = self.0.get();
        if tag == 0 {
            return;
        }
        let steps = if cfg!(miri) { 30 } else { 5_000 };
        let first = EXIT_ARENA.alloc(tag << 32);
        let (lane, claimed) = (SyncArena::debug_thread_lane(), SyncArena::debug_claimed_lanes());
        let mut values = vec![first];
        values.extend((1..steps).map(|i| EXIT_ARENA.alloc(tag << 32 | i)));
        AT_EXIT.lock().unwrap().push(AtExit { tag, lane, claimed, values });
    }
}

std::thread_local! {
    static ON_EXIT: AllocOnDrop = const { AllocOnDrop(Cell::new(0)) };
}

/// Stores `true` in its flag when dropped, unwinding included.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Allocations from thread-local destructors at thread exit, on three threads: one whose
/// allocating destructor was registered before its lane's claim (and its guard), one
/// registered after, one whose first allocation ever is in that destructor. Whatever
/// order the destructors run in, the first two see opposite sides of the guard: one
/// allocates in its still-claimed lane, the other after the guard switched it to a shared
/// lane. Every claim is back once the threads are joined, and no block overlaps another
/// (those of a live thread allocating all along included).
#[test]
fn thread_local_destructors_allocate_before_and_after_the_claim_is_given_back() {
    let _serial = serial();
    let steps = if cfg!(miri) { 30 } else { 5_000 };
    let mut ranges = Vec::new();
    let stop = AtomicBool::new(false);
    // The neighbour has its claim before the first scenario starts: without this, on a
    // loaded machine, a scenario could run and be joined before the neighbour's first
    // allocation, and the claim count below would be 0.
    let neighbour_claimed = Barrier::new(2);
    std::thread::scope(|s| {
        // Sets `stop` however the scope's body ends: a failed assertion below must end the
        // test, not leave `scope` waiting for a neighbour that never stops.
        let _stop_on_exit = StopOnDrop(&stop);
        // A neighbour allocating throughout (up to a cap), from the same arena.
        let neighbour = s.spawn(|| {
            let mut values = vec![EXIT_ARENA.alloc(7u64 << 32)];
            neighbour_claimed.wait();
            while !stop.load(Ordering::Relaxed) || values.len() < steps {
                if values.len() < 20 * steps {
                    values.push(EXIT_ARENA.alloc(7u64 << 32 | values.len() as u64));
                } else {
                    std::thread::yield_now();
                }
            }
            values
        });
        let scenarios: [fn(); 3] = [
            || {
                ON_EXIT.with(|t| t.0.set(1));
                let v = EXIT_ARENA.alloc(11u64 << 32);
                assert_eq!(*v, 11 << 32);
            },
            || {
                let v = EXIT_ARENA.alloc(12u64 << 32);
                ON_EXIT.with(|t| t.0.set(2));
                assert_eq!(*v, 12 << 32);
            },
            || ON_EXIT.with(|t| t.0.set(3)),
        ];
        neighbour_claimed.wait();
        for scenario in scenarios {
            s.spawn(scenario).join().unwrap();
            // The neighbour holds one claim.
            assert_eq!(SyncArena::debug_claimed_lanes().count_ones(), 1, "a claim outlived its thread");
        }
        stop.store(true, Ordering::Relaxed);
        let values = neighbour.join().unwrap();
        ranges.extend(check_blocks(7, &values, |v| v));
    });
    assert_eq!(SyncArena::debug_claimed_lanes(), 0);
    let at_exit = AT_EXIT.lock().unwrap();
    assert_eq!(at_exit.iter().map(|a| a.tag).collect::<Vec<_>>(), [1, 2, 3], "{at_exit:?}");
    for a in at_exit.iter() {
        let (lane, owned) = a.lane.expect("no lane after an allocation");
        // A destructor that allocated in an exclusive lane ran while the claim was held.
        assert!(!owned || a.claimed & 1 << lane != 0, "{a:?}");
        ranges.extend(check_blocks(a.tag, &a.values, |v| v));
    }
    let owned = |tag: u64| at_exit[tag as usize - 1].lane.unwrap().1;
    assert_ne!(owned(1), owned(2), "both destructors on one side of the guard: {at_exit:?}");
    eprintln!(
        "thread-local destructors at exit allocated in an exclusive lane: registered before the claim {}, after {}, \
         first allocation {}",
        owned(1),
        owned(2),
        owned(3)
    );
    assert_disjoint(ranges);
    EXIT_ARENA.check_invariants();
}
