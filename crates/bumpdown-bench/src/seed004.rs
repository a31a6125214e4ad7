//! The seed-004 workload: ten million 64-byte allocations, each written in full,
//! then everything freed at once, then the same again on the warm allocator.
//!
//! It asks what an arena costs per allocation once chunk growth, page faults and
//! reuse after a reset are included, and how much memory it holds at its peak.
//! Every contender runs in a process of its own, so each starts from a fresh heap
//! and `getrusage`'s peak RSS is its own.
//!
//! Besides the arenas there are four reference points:
//! * `bare-bump`: a pointer moving through a buffer that was written in full
//!   beforehand (untimed): no bounds check, no chunks, no page faults. The floor.
//! * `bare-bump (fresh pages)`: the same over a buffer never touched before, so its
//!   first pass takes one page fault per 4 KiB page: the first-touch floor that every
//!   arena growing on fresh memory sits on, unless it populates pages ahead.
//! * `malloc-free-each`: glibc `malloc`, write, `free`, per allocation, as the
//!   original C benchmark did. Its memory is reused at once, so it stays small.
//! * `malloc-all-free-all`: all `malloc`s, then all `free`s, the heap-only way to
//!   hold ten million objects at once. Its peak RSS includes the 80 MB array of
//!   pointers it needs to free them.

use std::alloc::{GlobalAlloc, Layout};
use std::fmt::Write;
use std::hint::black_box;
use std::ptr;
use std::time::Instant;

use bumpdown::{ResetPolicy, VmArena, VmOptions};

use serde::{Deserialize, Serialize};

use crate::charts::{chart, colour_of, pale, x_grid, Chart, INK, MUTED};
use crate::cli::{Effort, Options};
use crate::contenders::{self, Contender, Visitor};
use crate::harness::{self, relative_spread};
use crate::procs;
use crate::progress::{self, Phase};
use crate::section::{self, prose, Context, Figure, Figures};
use crate::svg::{ticks, Anchor};
use crate::table::grid;
use crate::text::{ns, thousands};

/// Allocations per pass.
pub const COUNT: usize = 10_000_000;
/// Bytes per allocation.
pub const SIZE: usize = 64;
/// Bytes allocated per pass.
pub const PAYLOAD: usize = COUNT * SIZE;

/// The floor contender's name.
pub const BARE_BUMP: &str = "bare-bump";
/// The first-touch floor's name.
pub const FIRST_TOUCH: &str = "bare-bump (fresh pages)";
/// glibc `malloc`, write, `free`, per allocation.
pub const MALLOC_EACH: &str = "malloc-free-each";
const MALLOC_ALL: &str = "malloc-all-free-all";
const MIMALLOC_EACH: &str = "mimalloc-free-each";
/// `VmArena` with its other settings: pages given back on reset, no populating ahead
/// (the default populates), and transparent huge pages (opt-in).
const VM_RELEASE: &str = "VmArena (release pages)";
const VM_NO_POPULATE: &str = "VmArena (no populate)";
const VM_HUGE: &str = "VmArena (huge pages)";
const VM_BACKGROUND: &str = "VmArena (huge pages, populating thread)";

/// One contender's run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Seed004Result {
    pub name: String,
    /// Pass 1 (cold).
    pub cold: Pass,
    /// Pass 2 (warm).
    pub warm: Pass,
    /// Time to free everything between the passes (reset or `free`s), ms.
    pub release_ms: f64,
    /// Peak resident set of the child process, bytes.
    pub peak_rss: u64,
    /// How far the rounds' figures moved (empty in a child's own output).
    #[serde(default)]
    pub spread: Seed004Spread,
}

/// The relative spread (`max / min - 1`) of a contender's timed figures and peak RSS
/// over its rounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Seed004Spread {
    /// Of the cold pass's ns per allocation.
    pub cold_ns: f64,
    /// Of the warm pass's ns per allocation.
    pub warm_ns: f64,
    /// Of the release time.
    pub release_ms: f64,
    /// Of the peak RSS.
    pub peak_rss: f64,
}

/// Every contender, floors first.
pub fn names() -> Vec<String> {
    let mut names = vec![BARE_BUMP.to_owned(), FIRST_TOUCH.to_owned()];
    names.extend(contenders::names().into_iter().map(str::to_owned));
    names.extend(
        [VM_RELEASE, VM_NO_POPULATE, VM_HUGE, VM_BACKGROUND, MALLOC_EACH, MIMALLOC_EACH, MALLOC_ALL].map(str::to_owned),
    );
    names
}

/// Parent side: runs one child per contender.
pub fn measure(options: &Options, run: &progress::Run) -> Result<Vec<Seed004Result>, String> {
    let names = names();
    let rounds = rounds(options.effort);
    run.section(Phase::Seed004, names.len() * rounds);
    let mut runs: Vec<Vec<Seed004Result>> = vec![Vec::new(); names.len()];
    for _ in 0..rounds {
        for (name, runs) in names.iter().zip(&mut runs) {
            run.step(name);
            runs.push(procs::run_child(options, &["seed004", name], &[], run)?);
        }
    }
    Ok(runs.iter().map(|runs| median_run(runs)).collect())
}

/// Rounds of the whole contender list: every contender runs once per round, so a change in
/// the host's speed during the measurement touches them all alike. (One round alone put the
/// same `VmArena` warm pass anywhere from 0.9x to 1.8x glibc's speed.)
pub fn rounds(effort: Effort) -> usize {
    effort.pick(3, 5)
}

/// The median of each figure over one contender's runs (at least one).
fn median_run(runs: &[Seed004Result]) -> Seed004Result {
    // `rounds` is odd: each median is one round's figure.
    let median = |f: &dyn Fn(&Seed004Result) -> f64| harness::median(&mut runs.iter().map(f).collect::<Vec<_>>());
    let spread = |f: &dyn Fn(&Seed004Result) -> f64| relative_spread(&runs.iter().map(f).collect::<Vec<_>>());
    let pass = |p: fn(&Seed004Result) -> &Pass| Pass {
        ns: median(&|r| p(r).ns),
        faults: median(&|r| p(r).faults as f64) as u64,
        cpu_ns: median(&|r| p(r).cpu_ns),
    };
    Seed004Result {
        name: runs[0].name.clone(),
        cold: pass(|r| &r.cold),
        warm: pass(|r| &r.warm),
        release_ms: median(&|r| r.release_ms),
        peak_rss: median(&|r| r.peak_rss as f64) as u64,
        spread: Seed004Spread {
            cold_ns: spread(&|r| r.cold.ns),
            warm_ns: spread(&|r| r.warm.ns),
            release_ms: spread(&|r| r.release_ms),
            peak_rss: spread(&|r| r.peak_rss as f64),
        },
    }
}

/// Child side: runs contender `name` and prints its result (JSON, one line).
pub fn child_main(name: &str) -> Result<(), String> {
    let Run { cold, release_ms, warm } = match name {
        BARE_BUMP => bare_bump(true),
        FIRST_TOUCH => bare_bump(false),
        MALLOC_EACH => malloc_free_each(),
        MALLOC_ALL => malloc_all_free_all(),
        MIMALLOC_EACH => mimalloc_free_each(),
        VM_RELEASE => vm_arena(VmOptions::new(VM_RESERVE).reset_policy(ResetPolicy::ReleaseAbove(0))),
        VM_NO_POPULATE => vm_arena(VmOptions::new(VM_RESERVE).populate(false)),
        VM_HUGE => vm_arena(VmOptions::new(VM_RESERVE).huge_pages(true)),
        VM_BACKGROUND => vm_arena(VmOptions::new(VM_RESERVE).huge_pages(true).populate_in_background(true)),
        _ => {
            let mut run = ArenaRun { name, result: None };
            contenders::visit_all(&mut run);
            run.result.ok_or_else(|| format!("no seed004 contender named {name:?}"))?
        }
    };
    let peak_rss = usage().peak_rss;
    let result =
        Seed004Result { name: name.to_owned(), cold, warm, release_ms, peak_rss, spread: Seed004Spread::default() };
    println!("{}", serde_json::to_string(&result).expect("a result serializes"));
    Ok(())
}

/// One pass over all `COUNT` allocations.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Pass {
    /// Nanoseconds per allocation.
    pub ns: f64,
    /// Minor page faults during the pass (each maps a fresh page).
    pub faults: u64,
    /// CPU time of the whole process (every thread, user and system) per allocation,
    /// in ns: more than `ns` when a thread of the allocator's works alongside.
    pub cpu_ns: f64,
}

/// A contender's whole run.
struct Run {
    cold: Pass,
    release_ms: f64,
    warm: Pass,
}

/// Times one pass of `step(i)` for every `i`.
#[inline(always)]
fn pass(mut step: impl FnMut(usize)) -> Pass {
    let before = usage();
    let start = Instant::now();
    for i in 0..COUNT {
        step(i);
    }
    let ns = start.elapsed().as_nanos() as f64 / COUNT as f64;
    let after = usage();
    Pass {
        ns,
        faults: after.minor_faults - before.minor_faults,
        cpu_ns: (after.cpu_ns - before.cpu_ns) as f64 / COUNT as f64,
    }
}

/// The bytes every contender writes for allocation `i`.
#[inline(always)]
fn payload(i: usize) -> [u8; SIZE] {
    [i as u8; SIZE]
}

/// Times `release`, in ms.
fn release_time(release: impl FnOnce()) -> f64 {
    let start = Instant::now();
    release();
    start.elapsed().as_secs_f64() * 1e3
}

struct ArenaRun<'a> {
    name: &'a str,
    result: Option<Run>,
}

impl Visitor for ArenaRun<'_> {
    fn visit<A: Contender>(&mut self) {
        if A::NAME == self.name {
            self.result = Some(arena::<A>());
        }
    }
}

/// An arena as a user would have it: created empty, growing as it goes.
#[inline(never)]
fn arena<A: Contender>() -> Run {
    passes(A::new())
}

/// Both passes over `arena`, with a reset between them.
#[inline(always)]
fn passes<A: Contender>(mut arena: A) -> Run {
    let cold = pass(|i| {
        black_box(arena.alloc(payload(i)));
    });
    let release = release_time(|| arena.reset());
    let warm = pass(|i| {
        black_box(arena.alloc(payload(i)));
    });
    drop(arena);
    Run { cold, release_ms: release, warm }
}

/// Address space for the `VmArena` variants: far more than the payload, and free.
const VM_RESERVE: usize = 64 << 30;

/// `arena`, for a `VmArena` with other options than the default contender's.
#[inline(never)]
fn vm_arena(options: VmOptions) -> Run {
    passes::<VmArena>(VmArena::with_options(options))
}

/// A pointer bumped through one buffer, written in full first when `pretouch` (else
/// its first pass faults every page in: a buffer this large is a fresh `mmap`).
#[inline(never)]
fn bare_bump(pretouch: bool) -> Run {
    let layout = Layout::from_size_align(PAYLOAD, 4096).expect("valid layout");
    // SAFETY: `layout` has a non-zero size.
    let buffer = unsafe { std::alloc::alloc(layout) };
    assert!(!buffer.is_null(), "out of memory");
    if pretouch {
        // Touch every page first (untimed): the floor pays no page faults.
        // SAFETY: `buffer` is valid for `PAYLOAD` bytes.
        unsafe { ptr::write_bytes(buffer, 1, PAYLOAD) };
    }
    let run = || {
        let mut next = buffer;
        pass(|i| {
            let slot = next.cast::<[u8; SIZE]>();
            // SAFETY: `pass` makes `COUNT` steps, each taking the next `SIZE`
            // bytes, so `slot` lies within the `COUNT * SIZE`-byte buffer, and
            // `[u8; SIZE]` has alignment 1.
            unsafe {
                slot.write(payload(i));
                next = next.add(SIZE);
            }
            black_box(slot);
        })
    };
    let cold = run();
    let warm = run();
    // SAFETY: allocated above with `layout`, not used after this.
    unsafe { std::alloc::dealloc(buffer, layout) };
    Run { cold, release_ms: 0.0, warm }
}

/// Allocates `SIZE` bytes with glibc's `malloc`.
#[inline(always)]
fn malloc_block() -> *mut [u8; SIZE] {
    // SAFETY: `malloc` has no preconditions.
    let block = unsafe { libc::malloc(SIZE) }.cast::<[u8; SIZE]>();
    assert!(!block.is_null(), "out of memory");
    block
}

#[inline(never)]
fn malloc_free_each() -> Run {
    let run = || {
        pass(|i| {
            let block = malloc_block();
            // SAFETY: `block` is a live, `malloc`-aligned allocation of `SIZE` bytes,
            // freed exactly once, right after it is written.
            unsafe {
                block.write(payload(i));
                black_box(block);
                libc::free(block.cast());
            }
        })
    };
    let cold = run();
    let warm = run();
    Run { cold, release_ms: 0.0, warm }
}

/// `malloc_free_each` with mimalloc (linked in, not installed as the global allocator).
#[inline(never)]
fn mimalloc_free_each() -> Run {
    let layout = Layout::new::<[u8; SIZE]>();
    let run = || {
        pass(|i| {
            // SAFETY: a non-zero-sized layout; the block is written, then freed once
            // with the same layout.
            unsafe {
                let block = mimalloc::MiMalloc.alloc(layout).cast::<[u8; SIZE]>();
                assert!(!block.is_null(), "out of memory");
                block.write(payload(i));
                black_box(block);
                mimalloc::MiMalloc.dealloc(block.cast(), layout);
            }
        })
    };
    let cold = run();
    let warm = run();
    Run { cold, release_ms: 0.0, warm }
}

#[inline(never)]
fn malloc_all_free_all() -> Run {
    // Written in full up front so the pointer array's page faults stay untimed.
    let mut blocks: Vec<*mut [u8; SIZE]> = vec![ptr::dangling_mut(); COUNT];
    let fill = |blocks: &mut [*mut [u8; SIZE]]| {
        pass(|i| {
            let block = malloc_block();
            // SAFETY: `block` is a live allocation of `SIZE` bytes.
            unsafe { block.write(payload(i)) };
            blocks[i] = black_box(block);
        })
    };
    let free_all = |blocks: &[*mut [u8; SIZE]]| {
        for &block in blocks {
            // SAFETY: each pointer came from `malloc` in the fill just before and
            // is freed once.
            unsafe { libc::free(block.cast()) };
        }
    };
    let cold = fill(&mut blocks);
    let release = release_time(|| free_all(&blocks));
    let warm = fill(&mut blocks);
    free_all(&blocks);
    Run { cold, release_ms: release, warm }
}

/// What `getrusage` says about this process.
struct Usage {
    /// Peak resident set, bytes.
    peak_rss: u64,
    /// Minor page faults so far.
    minor_faults: u64,
    /// User and system CPU time of every thread so far, ns.
    cpu_ns: u64,
}

fn usage() -> Usage {
    // SAFETY: `rusage` is plain data; all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable `rusage`.
    let status = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert_eq!(status, 0, "getrusage(RUSAGE_SELF) cannot fail");
    Usage {
        // Linux reports kilobytes (KiB).
        peak_rss: u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024,
        minor_faults: u64::try_from(usage.ru_minflt).unwrap_or(0),
        cpu_ns: [usage.ru_utime, usage.ru_stime]
            .iter()
            .map(|t| {
                u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(t.tv_usec).unwrap_or(0) * 1000
            })
            .sum(),
    }
}

impl section::Section for Vec<Seed004Result> {
    fn markdown(&self, md: &mut String, cx: &Context) {
        let (results, rounds) = (self, rounds(cx.effort));
        md.push_str(&prose(
            "seed004",
            &[
                ("count", &thousands(COUNT)),
                ("size", &SIZE),
                ("rounds", &rounds),
                ("payload_mb", &(PAYLOAD / 1_000_000)),
            ],
        ));
        let warm = |name: &str| results.iter().find(|r| r.name == name).map(|r| r.warm.ns).filter(|ns| *ns > 0.0);
        let floor = warm(BARE_BUMP);
        let first_touch = results.iter().find(|r| r.name == FIRST_TOUCH).map(|r| r.cold.ns);
        let ratio = |x: f64, base: Option<f64>| base.filter(|b| *b > 0.0).map(|b| format!("{:.2}x", x / b));
        let columns = [
            "pass 1 (cold) ns/alloc",
            "cold vs first touch",
            "pass 1 CPU ns/alloc",
            "pass 2 (warm) ns/alloc",
            "warm vs bare bump",
            "page faults pass 1 / 2",
            "free between passes",
            "peak RSS",
            "peak RSS / payload",
        ];
        let lines = results.iter().map(|r| {
            let cells = vec![
                Some(ns(r.cold.ns)),
                ratio(r.cold.ns, first_touch),
                Some(ns(r.cold.cpu_ns)),
                Some(ns(r.warm.ns)),
                ratio(r.warm.ns, floor),
                Some(format!("{} / {}", r.cold.faults, r.warm.faults)),
                (r.release_ms > 0.0).then(|| format!("{:.1} ms", r.release_ms)),
                Some(format!("{:.0} MB", r.peak_rss as f64 / 1e6)),
                Some(format!("{:.2}x", r.peak_rss as f64 / PAYLOAD as f64)),
            ];
            (r.name.clone(), cells)
        });
        grid(md, "contender", &columns, lines);
        md.push_str(&prose("seed004_malloc", &[]));
        if let (Some(vm), Some(glibc)) = (warm(<VmArena as Contender>::NAME), warm(MALLOC_EACH)) {
            md.push_str(&prose(
                "seed004_vm",
                &[
                    ("vm", &ns(vm)),
                    ("glibc", &ns(glibc)),
                    ("ratio", &format!("{:.2}", glibc / vm)),
                    ("payload_mb", &(PAYLOAD / 1_000_000)),
                    ("prefetch_kib", &(bumpdown::bumping::PREFETCH_AHEAD / 1024)),
                ],
            ));
        }
        let _ = writeln!(md, "![seed-004: cold and warm ns per allocation]({}seed004.svg)\n", cx.images);
    }

    fn charts(&self, charts: &mut Vec<Chart>) {
        if self.is_empty() {
            return;
        }
        let (label_width, plot_w, bar, gap, top) = (170.0, 560.0, 12.0, 12.0, 80.0);
        let group = bar * 2.0 + gap;
        let height = top + group * self.len() as f64 + 50.0;
        let width = label_width + plot_w + 90.0;
        let largest = self.iter().flat_map(|r| [r.cold.ns, r.warm.ns]).fold(0.0, f64::max);
        let axis = ticks(largest, 6);
        let max = *axis.last().unwrap_or(&1.0);
        let x_of = |ns: f64| label_width + plot_w * ns / max;

        let heading = format!("Seed-004: {} allocations of {} bytes", thousands(COUNT), SIZE);
        let how =
            "ns per allocation; pass 1 (cold, pale) grows the arena and faults pages in, pass 2 (warm, solid) reuses them";
        let mut svg = chart(width, height, &heading, how, &[("pass 1: cold", "#cbd5e1"), ("pass 2: warm", "#475569")]);
        let bottom = top + group * self.len() as f64;
        x_grid(&mut svg, &axis, x_of, (top, bottom), |tick| format!("{tick}"));
        svg.text((label_width + plot_w / 2.0, bottom + 36.0), 11.0, Anchor::Middle, MUTED, "ns per allocation");
        for (i, r) in self.iter().enumerate() {
            let y0 = top + group * i as f64 + gap / 2.0;
            svg.text((label_width - 10.0, y0 + bar + 4.0), 12.0, Anchor::End, INK, &r.name);
            let colour = colour_of(&r.name);
            for (k, (pass, ns)) in [("cold", r.cold.ns), ("warm", r.warm.ns)].into_iter().enumerate() {
                let y = y0 + bar * k as f64;
                let fill = if k == 0 { pale(colour) } else { colour.to_owned() };
                let tip = format!("{}, {pass}", r.name);
                svg.rect_titled(label_width, y + 0.5, x_of(ns) - label_width, bar - 1.0, &fill, &tip);
                svg.text((x_of(ns) + 4.0, y + bar - 2.5), 10.0, Anchor::Start, INK, &format!("{ns:.2} ns"));
            }
        }
        let title = "Seed-004: ten million 64-byte allocations, cold and warm".to_owned();
        charts.push(Chart { file: "seed004.svg", title, svg: svg.finish() });
    }

    fn figures(&self, figures: &mut Figures) {
        for r in self {
            let s = r.spread;
            let mut push = |what: &str, median, spread| {
                figures.push((format!("seed004: {}, {what}", r.name), Figure { median, spread }))
            };
            push("cold", r.cold.ns, s.cold_ns);
            push("warm", r.warm.ns, s.warm_ns);
            push("release ms", r.release_ms, s.release_ms);
            push("peak RSS MiB", r.peak_rss as f64 / (1 << 20) as f64, s.peak_rss);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::section::Section as _;

    #[test]
    fn floor_comes_first_and_names_are_unique() {
        let mut names = names();
        assert_eq!(names[..2], [BARE_BUMP, FIRST_TOUCH]);
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count);
    }

    #[test]
    fn rounds_give_each_figures_median_and_spread() {
        let run = |cold: f64, warm: f64, faults: u64, rss: u64| Seed004Result {
            name: "x".to_owned(),
            cold: Pass { ns: cold, faults, cpu_ns: cold + 1.0 },
            warm: Pass { ns: warm, faults: 0, cpu_ns: warm },
            release_ms: warm / 10.0,
            peak_rss: rss,
            spread: Seed004Spread::default(),
        };
        let median = median_run(&[run(4.0, 2.0, 9, 100), run(3.0, 1.0, 7, 110), run(5.0, 1.5, 8, 105)]);
        assert_eq!((median.cold.ns, median.cold.faults, median.cold.cpu_ns), (4.0, 8, 5.0));
        assert_eq!((median.warm.ns, median.release_ms, median.peak_rss), (1.5, 0.15, 105));
        let s = median.spread;
        assert_eq!((s.cold_ns, s.warm_ns, s.release_ms), (5.0 / 3.0 - 1.0, 1.0, 0.2 / 0.1 - 1.0));
        assert!((s.peak_rss - 0.1).abs() < 1e-12, "{s:?}");
    }

    #[test]
    fn the_seed004_section_compares_vm_arenas_warm_pass_with_glibc() {
        let result = |name: &str, warm: f64| Seed004Result {
            name: name.to_owned(),
            cold: Pass { ns: 30.0, faults: 1, cpu_ns: 30.0 },
            warm: Pass { ns: warm, faults: 0, cpu_ns: warm },
            release_ms: 0.0,
            peak_rss: 1 << 20,
            spread: Default::default(),
        };
        let mut md = String::new();
        vec![result("VmArena", 7.5), result(MALLOC_EACH, 15.0)].markdown(&mut md, &Context::for_tests());
        assert!(md.contains("glibc `malloc`+`free` 15.0 ns: **2.00x faster**"), "{md}");
        // Without glibc's row (a filtered run) there is nothing to compare with.
        let mut md = String::new();
        vec![result("VmArena", 7.5)].markdown(&mut md, &Context::for_tests());
        assert!(!md.contains("faster**"), "{md}");
    }
}
