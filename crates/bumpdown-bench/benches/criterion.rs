//! `cargo bench -p bumpdown-bench`: the speed table's main rows through criterion,
//! for its statistics (confidence intervals, change since the last run).
//!
//! The cells are the report's own ([`rows::Row::cells`]): the same kernels, the same
//! arenas sized and warmed beforehand, both forms. A criterion iteration is one of
//! the report's timed batches (1,000–10,000 allocations or resets), so criterion's
//! time is per batch and its throughput (elements/s) per allocation or reset.
//! `cargo bench -p bumpdown-bench -- alloc_u64/` runs one row; criterion's own
//! options (`--measurement-time`, `--sample-size`, ...) follow the `--` too.
//! The markdown report with every row is `cargo run --release -p bumpdown-bench`.

// `criterion_group!` defines a `pub fn benches` that cannot carry a doc comment.
#![allow(missing_docs)]

use std::time::Duration;

use bumpdown_bench::harness::Clock;
use bumpdown_bench::rows;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// Rows run through criterion: every scalar size, a short and a long slice and
/// string copy, and both resets.
const ROWS: [&str; 11] = [
    "alloc_u8",
    "alloc_u16",
    "alloc_u32",
    "alloc_u64",
    "alloc_u128",
    "alloc_slice_u8_32",
    "alloc_slice_u64_32",
    "alloc_str_16",
    "alloc_str_64",
    "clear",
    "clear_and_reuse",
];

fn speed_rows(c: &mut Criterion) {
    let clock = Clock::calibrate();
    for row in rows::all().into_iter().filter(|row| ROWS.contains(&row.name.as_str())) {
        let mut group = c.benchmark_group(row.name.as_str());
        for mut cell in row.cells() {
            group.throughput(Throughput::Elements(cell.ops as u64));
            let id = format!("{}/{}", cell.contender, cell.form.key());
            group.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    let mut total = 0.0;
                    for _ in 0..iters {
                        total += (cell.sampler)(&clock).ns_per_op * cell.ops as f64;
                    }
                    Duration::from_secs_f64(total * 1e-9)
                })
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    // Shorter than criterion's defaults: 11 rows × 14 cells would take 20 minutes.
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50);
    targets = speed_rows
}
criterion_main!(benches);
