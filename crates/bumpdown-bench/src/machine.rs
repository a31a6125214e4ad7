//! What the numbers were measured on: printed at the head of the report, since
//! allocator timings mean little without the CPU, kernel and compiler beside them.

use std::fs;

/// Facts about the machine and the build.
pub struct Machine {
    /// CPU model name.
    pub cpu: String,
    /// Logical cores available to this process.
    pub cores: usize,
    /// Kernel release.
    pub kernel: String,
    /// `rustc -V` of the compiler that built this binary.
    pub rustc: &'static str,
    /// `(crate, version)` of bumpdown and its peers, as resolved in `Cargo.lock`.
    pub crates: Vec<(&'static str, &'static str)>,
}

impl Machine {
    /// Reads the facts (Linux `/proc`; "unknown" where absent).
    pub fn detect() -> Self {
        Self {
            cpu: cpu_model().unwrap_or_else(|| "unknown".to_owned()),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            kernel: fs::read_to_string("/proc/sys/kernel/osrelease")
                .map(|s| s.trim().to_owned())
                .unwrap_or_else(|_| "unknown".to_owned()),
            rustc: env!("BUMPDOWN_BENCH_RUSTC"),
            crates: env!("BUMPDOWN_BENCH_VERSIONS").split(';').filter_map(|pair| pair.split_once('=')).collect(),
        }
    }
}

fn cpu_model() -> Option<String> {
    let info = fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|line| line.starts_with("model name"))
        .and_then(|line| line.split_once(':'))
        .map(|(_, model)| model.split_whitespace().collect::<Vec<_>>().join(" "))
}
