//! Arenas shared between threads: every thread allocates `u64`s as fast as it can.
//!
//! Two ways to share: through the shared arena itself (`&SyncArena`,
//! `&SyncBlinkAlloc`, a `Mutex<bumpalo::Bump>` locked per allocation), and through a
//! per-thread handle on it (`SyncArena::local`, `SyncBlinkAlloc::local`). Each sample
//! starts the threads together at a barrier; each thread times its own loop and the
//! sample is the slowest thread's nanoseconds per allocation. The arena is reset
//! (untimed) between samples, and the contenders take their samples in rotating rounds.

use std::alloc::Layout;
use std::hint::black_box;
use std::sync::{Barrier, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::cli::Options;
use crate::harness::relative_spread;
use crate::harness::{self, Clock, Plan, Sample, Sampler};
use crate::progress::{Phase, Run};
use crate::section::{self, prose, Context, Figure, Figures};
use crate::table::{colour, distinct, grid};
use crate::text::{ns, thousands};

/// Allocations per thread per sample.
pub const PER_THREAD: usize = 200_000;

/// The thread counts measured (the machine's cores, at most 2 here).
pub const THREAD_COUNTS: [usize; 2] = [1, 2];

/// How the threads reach the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Through the shared arena, by reference.
    Shared,
    /// Through a per-thread handle on it.
    Local,
}

impl Mode {
    /// The name in the report.
    pub fn key(self) -> &'static str {
        match self {
            Mode::Shared => "shared",
            Mode::Local => "per-thread handle",
        }
    }
}

/// One contender on one row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThreadCell {
    /// Threads allocating at once.
    pub threads: usize,
    /// How they reach the arena.
    pub mode: Mode,
    pub contender: String,
    /// Median over samples of the slowest thread's ns per allocation.
    pub median_ns: f64,
    /// Fastest and slowest sample.
    pub range: (f64, f64),
}

/// Runs `body(thread_index)` on `threads` threads started together; returns the
/// slowest thread's ns per allocation.
fn timed_threads(threads: usize, body: impl Fn() + Sync) -> f64 {
    let barrier = Barrier::new(threads);
    let slowest = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (barrier, body) = (&barrier, &body);
                s.spawn(move || {
                    barrier.wait();
                    let start = Instant::now();
                    body();
                    start.elapsed().as_nanos() as f64
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a benchmark thread panicked")).fold(0.0, f64::max)
    });
    slowest / PER_THREAD as f64
}

fn sample(ns_per_op: f64) -> Sample {
    Sample { ns_per_op, heap_calls: 0 }
}

/// The samplers of one row, with their names.
fn samplers(threads: usize, mode: Mode) -> Vec<(&'static str, Sampler)> {
    let mut list: Vec<(&'static str, Sampler)> = Vec::new();
    let mut arena = bumpdown::SyncArena::new();
    list.push((
        "bumpdown SyncArena",
        Box::new(move |_: &Clock| {
            let shared = &arena;
            let ns = timed_threads(threads, || match mode {
                Mode::Shared => {
                    for i in 0..PER_THREAD {
                        black_box(shared.alloc(i as u64));
                    }
                }
                Mode::Local => {
                    let local = shared.local();
                    for i in 0..PER_THREAD {
                        black_box(local.alloc(i as u64));
                    }
                }
            });
            arena.reset();
            sample(ns)
        }),
    ));
    let mut blink = blink_alloc::SyncBlinkAlloc::new();
    list.push((
        "blink-alloc SyncBlinkAlloc",
        Box::new(move |_: &Clock| {
            let shared = &blink;
            let layout = Layout::new::<u64>();
            let ns = timed_threads(threads, || match mode {
                Mode::Shared => {
                    for i in 0..PER_THREAD {
                        let p = shared.allocate(layout).expect("out of memory").cast::<u64>();
                        // SAFETY: a fresh block for a `u64`.
                        unsafe { p.as_ptr().write(i as u64) };
                        black_box(p);
                    }
                }
                Mode::Local => {
                    let local = shared.local();
                    for i in 0..PER_THREAD {
                        let p = local.allocate(layout).expect("out of memory").cast::<u64>();
                        // SAFETY: a fresh block for a `u64`.
                        unsafe { p.as_ptr().write(i as u64) };
                        black_box(p);
                    }
                }
            });
            blink.reset();
            sample(ns)
        }),
    ));
    if mode == Mode::Shared {
        let mut bump = Mutex::new(bumpalo::Bump::new());
        list.push((
            "Mutex<bumpalo::Bump>",
            Box::new(move |_: &Clock| {
                let shared = &bump;
                let ns = timed_threads(threads, || {
                    for i in 0..PER_THREAD {
                        let guard = shared.lock().expect("poisoned");
                        black_box(guard.alloc(i as u64) as *mut u64);
                    }
                });
                bump.get_mut().expect("poisoned").reset();
                sample(ns)
            }),
        ));
    }
    list
}

/// Measures every row.
pub fn measure(options: &Options, run: &Run) -> Vec<ThreadCell> {
    let plan = Plan { warmup: 2, samples: options.effort.thread_samples() };
    let clock = Clock::calibrate();
    let rows: Vec<(usize, Mode)> = THREAD_COUNTS.iter().flat_map(|&t| [(t, Mode::Shared), (t, Mode::Local)]).collect();
    run.section(Phase::Threads, rows.len());
    let mut cells = Vec::new();
    for (threads, mode) in rows {
        run.step(&format!("{threads} thread(s), {}", mode.key()));
        let (names, mut samplers): (Vec<_>, Vec<_>) = samplers(threads, mode).into_iter().unzip();
        let results = harness::run_interleaved(&mut samplers, &clock, plan);
        for (contender, samples) in names.into_iter().zip(results) {
            let mut ns: Vec<f64> = samples.iter().map(|s| s.ns_per_op).collect();
            let median_ns = harness::median(&mut ns);
            cells.push(ThreadCell {
                threads,
                mode,
                contender: contender.to_owned(),
                median_ns,
                range: (ns[0], ns[ns.len() - 1]),
            });
        }
    }
    cells
}

impl section::Section for Vec<ThreadCell> {
    fn markdown(&self, md: &mut String, _: &Context) {
        md.push_str(&prose("threads", &[("per_thread", &thousands(PER_THREAD))]));
        let names = distinct(self.iter().map(|c| c.contender.as_str()));
        let header: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        let rows = distinct(self.iter().map(|c| (c.threads, c.mode))).into_iter().map(|(t, mode)| {
            let row: Vec<&ThreadCell> = self.iter().filter(|c| c.threads == t && c.mode == mode).collect();
            let fastest = row.iter().map(|c| c.median_ns).fold(f64::INFINITY, f64::min);
            let cell = |c: &&ThreadCell| {
                let (ratio, (lo, hi)) = (c.median_ns / fastest, c.range);
                format!("{} {ratio:.2}x ({} ns [{}–{}])", colour(ratio), ns(c.median_ns), ns(lo), ns(hi))
            };
            (
                format!("{t} | {}", mode.key()),
                names.iter().map(|n| row.iter().find(|c| c.contender == *n).map(cell)).collect(),
            )
        });
        grid(md, "threads | access", &header, rows);
    }

    fn figures(&self, figures: &mut Figures) {
        for c in self {
            let name = format!("threads: {} ({}), {}", c.threads, c.mode.key(), c.contender);
            figures.push((name, Figure { median: c.median_ns, spread: relative_spread(&[c.range.0, c.range.1]) }));
        }
    }
}
