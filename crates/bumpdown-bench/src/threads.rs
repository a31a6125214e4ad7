//! Arenas shared between threads: every thread allocates `u64`s as fast as it can.
//!
//! Two ways to share: through the shared arena itself (`&SyncArena`,
//! `&SyncBlinkAlloc`, a `Mutex<bumpalo::Bump>` locked per allocation), and through a
//! per-thread handle on it (`SyncArena::local`, `SyncBlinkAlloc::local`). Each sample
//! starts the threads together at a spinning start line; each thread times its own loop
//! and the sample is the slowest thread's nanoseconds per allocation. The arena is reset
//! (untimed) between samples. Every row's contenders take their samples in the same
//! rotating rounds, so that one thread and two are measured moments apart: this shared
//! machine's speed drifts (one `&SyncArena` loop took 1.05 ns per allocation for some
//! seconds, then 1.8 ns, with nothing changed), and rows measured one after the other
//! compared two states of the machine, not one thread with two.

use std::alloc::Layout;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
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
    /// With more than one thread: their aggregate throughput over one thread's, the same
    /// contender and access, as the median of the rounds' ratios (`threads` times the
    /// one-thread sample over this one); `threads`x is perfect scaling. Absent in runs
    /// stored before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaling: Option<f64>,
}

/// Runs `body` on `threads` threads started together; returns the slowest thread's ns
/// per allocation.
///
/// The threads meet at a spinning start line, not a sleeping `Barrier`. With a `Barrier`,
/// a `Mutex` locked per allocation took 7 ns on two threads, its one-thread time, against
/// 30-50 ns from a spinning start (2-core AMD EPYC VM): the thread woken from its futex
/// started so late that the two loops barely overlapped.
fn timed_threads(threads: usize, body: impl Fn() + Sync) -> f64 {
    let arrived = AtomicUsize::new(0);
    let slowest = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (arrived, body) = (&arrived, &body);
                s.spawn(move || {
                    arrived.fetch_add(1, Ordering::AcqRel);
                    let mut spins = 0u32;
                    while arrived.load(Ordering::Acquire) < threads {
                        // More threads than cores: let the late one run.
                        spins += 1;
                        if spins.is_multiple_of(4096) {
                            std::thread::yield_now();
                        }
                        std::hint::spin_loop();
                    }
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

/// Measures every row, all in the same rotating rounds (see the module docs).
pub fn measure(options: &Options, run: &Run) -> Vec<ThreadCell> {
    let plan = Plan { warmup: 2, samples: options.effort.thread_samples() };
    let clock = Clock::calibrate();
    run.section(Phase::Threads, 1);
    run.step("1 and 2 threads, shared and per-thread handle, interleaved");
    let mut keys = Vec::new();
    let mut all: Vec<Sampler> = Vec::new();
    for threads in THREAD_COUNTS {
        for mode in [Mode::Shared, Mode::Local] {
            for (name, sampler) in samplers(threads, mode) {
                keys.push((threads, mode, name));
                all.push(sampler);
            }
        }
    }
    let results = harness::run_interleaved(&mut all, &clock, plan);
    keys.iter()
        .zip(&results)
        .map(|(&(threads, mode, contender), samples)| {
            let mut sorted: Vec<f64> = samples.iter().map(|s| s.ns_per_op).collect();
            let median_ns = harness::median(&mut sorted);
            let one = keys.iter().position(|&k| k == (1, mode, contender));
            let scaling = one.filter(|_| threads > 1).map(|one| scaling(&results[one], samples, threads));
            ThreadCell {
                threads,
                mode,
                contender: contender.to_owned(),
                median_ns,
                range: (sorted[0], sorted[sorted.len() - 1]),
                scaling,
            }
        })
        .collect()
}

/// `threads` threads' aggregate throughput over one thread's: the median over rounds of
/// `threads` times round `r`'s one-thread sample over its `threads`-thread sample (both
/// ns per allocation by the slowest thread), so that each ratio compares two samples
/// taken moments apart.
fn scaling(one: &[Sample], many: &[Sample], threads: usize) -> f64 {
    let mut ratios: Vec<f64> = one.iter().zip(many).map(|(a, b)| threads as f64 * a.ns_per_op / b.ns_per_op).collect();
    harness::median(&mut ratios)
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
        let scaled: Vec<&ThreadCell> = self.iter().filter(|c| c.scaling.is_some()).collect();
        if scaled.is_empty() {
            return;
        }
        md.push_str(&prose("thread_scaling", &[]));
        let rows = distinct(scaled.iter().map(|c| (c.threads, c.mode))).into_iter().map(|(t, mode)| {
            let cell = |n: &&str| {
                let c = scaled.iter().find(|c| c.threads == t && c.mode == mode && c.contender == *n)?;
                c.scaling.map(|x| format!("{x:.2}x"))
            };
            (format!("{t} | {}", mode.key()), names.iter().map(cell).collect())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two threads each as fast as one, in every round but the third, where the machine
    /// was slow for the one-thread sample only: 1.6x. Medians compared apart would say
    /// 3.2x (one thread's median 2 ns, two threads' 1.25 ns).
    #[test]
    fn scaling_pairs_samples_by_round() {
        let one = [1.0, 1.0, 2.0, 2.0, 2.0].map(sample);
        let two = [1.25, 1.25, 1.25, 2.5, 2.5].map(sample);
        assert_eq!(scaling(&one, &two, 2), 1.6);
    }
}
