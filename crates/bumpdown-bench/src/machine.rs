//! What the numbers were measured on: printed at the head of the report, since
//! allocator timings mean little without the CPU, kernel and compiler beside them.

use std::fs;

use serde::{Deserialize, Serialize};

/// Facts about the machine and the build.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Machine {
    /// CPU model name.
    pub cpu: String,
    /// Logical cores available to this process.
    pub cores: usize,
    pub kernel: String,
    /// `rustc -V` of the compiler that built this binary.
    pub rustc: String,
    /// `(crate, version)` of bumpdown and its peers, as resolved in `Cargo.lock`.
    pub crates: Vec<(String, String)>,
    /// The day of the run (UTC), as `YYYY-MM-DD`.
    pub date: String,
    /// Whether the fast-path section's C probes were built, and by which compiler (or
    /// why not).
    pub c_probes: (bool, String),
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
            rustc: env!("BUMPDOWN_BENCH_RUSTC").to_owned(),
            crates: env!("BUMPDOWN_BENCH_VERSIONS")
                .split(';')
                .filter_map(|pair| pair.split_once('='))
                .map(|(name, version)| (name.to_owned(), version.to_owned()))
                .collect(),
            date: today(),
            c_probes: (crate::fastpath::C_BUILT, crate::fastpath::C_BUILD.to_owned()),
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

/// Today's date (UTC) from the system clock, by the C library's calendar.
fn today() -> String {
    // SAFETY: `time` takes a null pointer (no second copy of the result), and `gmtime_r`
    // reads `now` and writes only into `tm`, an all-zero `struct tm` (a valid value:
    // integers and a null `tm_zone`).
    let tm = unsafe {
        let now = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        libc::gmtime_r(&now, &mut tm);
        tm
    };
    format!("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday)
}
