//! Timing, interleaving and statistics.
//!
//! A *sample* is one timed batch of allocations (see `kernels`), converted to
//! nanoseconds per operation. All contenders of a row take their samples in
//! rounds, one batch each per round, with the starting contender rotating from
//! round to round: slow drifts of the machine (frequency, a noisy neighbour) then
//! hit every contender alike instead of whichever happened to run during them.
//! The figure reported is the median, which ignores the occasional sample hit by
//! an interrupt or a page fault.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// One timed batch.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Nanoseconds per operation, clock overhead removed.
    pub ns_per_op: f64,
    /// Heap allocation calls made inside the timed region. Anything but zero
    /// means the arena fetched a chunk while being timed.
    pub heap_calls: usize,
}

/// Takes one sample of one contender on the current row.
pub type Sampler = Box<dyn FnMut(&Clock) -> Sample>;

/// `Instant`, with its own cost measured once so it can be taken off samples.
pub struct Clock {
    overhead_ns: f64,
}

impl Clock {
    /// Measures the cost of an empty timed region.
    pub fn calibrate() -> Self {
        let mut gaps: Vec<f64> = (0..2001)
            .map(|_| {
                let start = Instant::now();
                black_box(());
                start.elapsed().as_nanos() as f64
            })
            .collect();
        Self { overhead_ns: median(&mut gaps) }
    }

    /// Starts a timed region.
    #[inline(always)]
    pub fn start(&self) -> Instant {
        Instant::now()
    }

    /// Ends a timed region of `ops` operations, returning nanoseconds per operation.
    #[inline(always)]
    pub fn per_op(&self, start: Instant, ops: usize) -> f64 {
        let ns = start.elapsed().as_nanos() as f64;
        (ns - self.overhead_ns).max(0.0) / ops as f64
    }

    /// The cost of an empty timed region, in nanoseconds.
    pub fn overhead_ns(&self) -> f64 {
        self.overhead_ns
    }
}

/// How many samples to take.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Untimed-for-the-report samples per contender before recording.
    pub warmup: usize,
    /// Recorded samples per contender.
    pub samples: usize,
}

/// Runs `samplers` in rotating rounds and returns each one's recorded samples.
pub fn run_interleaved(samplers: &mut [Sampler], clock: &Clock, plan: Plan) -> Vec<Vec<Sample>> {
    let n = samplers.len();
    let mut results: Vec<Vec<Sample>> = (0..n).map(|_| Vec::with_capacity(plan.samples)).collect();
    for round in 0..plan.warmup + plan.samples {
        for offset in 0..n {
            let i = (round + offset) % n;
            let sample = samplers[i](clock);
            if round >= plan.warmup {
                results[i].push(sample);
            }
        }
    }
    results
}

/// The median (the mean of the two middle values for an even count).
///
/// # Panics
/// If `values` is empty.
pub fn median(values: &mut [f64]) -> f64 {
    assert!(!values.is_empty(), "median of nothing");
    values.sort_unstable_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// `(min, max)` of `values`.
pub fn range(values: &[f64]) -> (f64, f64) {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max)
}

/// `max / min - 1` of `values`: 0 when they all agree.
pub fn relative_spread(values: &[f64]) -> f64 {
    let (min, max) = range(values);
    if min > 0.0 {
        max / min - 1.0
    } else {
        0.0
    }
}

/// `q3 / q1 - 1` of `values` (their first and third quartiles, the nearest samples): how
/// far the middle half of a single process's samples moved, leaving out the outliers a
/// busy host adds. 0 for no values, or when the first quartile is not positive.
///
/// ```ignore
/// assert!((quartile_spread(&[1.0, 10.0, 10.0, 11.0, 100.0]) - 0.1).abs() < 1e-9);
/// ```
pub fn quartile_spread(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let (Some(&q1), Some(&q3)) = (sorted.get(sorted.len() / 4), sorted.get(sorted.len() * 3 / 4)) else {
        return 0.0;
    };
    if q1 > 0.0 {
        q3 / q1 - 1.0
    } else {
        0.0
    }
}

/// Keeps a core busy for `time`, so the frequency governor has ramped the clock
/// up before the first sample rather than during the first rows.
pub fn spin(time: Duration) {
    let end = Instant::now() + time;
    let mut x = 1u64;
    while Instant::now() < end {
        for _ in 0..1000 {
            x = black_box(x.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn rounds_rotate_and_keep_only_recorded_samples() {
        use std::cell::RefCell;
        use std::rc::Rc;
        let order = Rc::new(RefCell::new(Vec::new()));
        let mut samplers: Vec<Sampler> = (0..3)
            .map(|id| {
                let order = Rc::clone(&order);
                Box::new(move |_: &Clock| {
                    order.borrow_mut().push(id);
                    Sample { ns_per_op: id as f64, heap_calls: 0 }
                }) as Sampler
            })
            .collect();
        let clock = Clock { overhead_ns: 0.0 };
        let plan = Plan { warmup: 1, samples: 2 };
        let results = run_interleaved(&mut samplers, &clock, plan);
        assert_eq!(*order.borrow(), [0, 1, 2, 1, 2, 0, 2, 0, 1]);
        assert!(results.iter().all(|r| r.len() == 2));
        assert_eq!(results[2][0].ns_per_op, 2.0);
    }
}
