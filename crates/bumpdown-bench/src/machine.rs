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

/// Today's date (UTC) from the system clock.
fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of day `z` counted from 1970-01-01 (Howard Hinnant's
/// well-known `civil_from_days` algorithm, written out here).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn dates_from_day_numbers() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_414), (2025, 11, 22));
    }
}
