//! The report's command line as a user meets it: mistakes are refused before anything
//! is measured, and never overwrite the last report.

use std::path::Path;
use std::process::{Command, Output};

/// Runs the report binary with `args`, its target directory set to `target`.
fn bench(target: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bumpdown-bench"))
        .args(args)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("the report binary runs")
}

/// A target directory holding a previous report.
fn with_previous_report(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let target = std::env::temp_dir().join(format!("bumpdown-bench-cli-{name}-{}", std::process::id()));
    let report = target.join("bumpdown-report").join("report.md");
    std::fs::create_dir_all(report.parent().unwrap()).unwrap();
    std::fs::write(&report, "the previous report\n").unwrap();
    (target, report)
}

#[test]
fn a_filter_that_matches_nothing_keeps_the_previous_report() {
    let (target, report) = with_previous_report("filter");
    let out = bench(&target, &["--filter", "no_such_row"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "exited 0: {stderr}");
    assert!(stderr.contains("no rows matched --filter \"no_such_row\""), "{stderr}");
    assert!(out.stdout.is_empty(), "printed a report: {}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(std::fs::read_to_string(&report).unwrap(), "the previous report\n");
    std::fs::remove_dir_all(&target).ok();
}

#[test]
fn contradictory_flags_are_refused_before_measuring() {
    let (target, report) = with_previous_report("flags");
    for args in [&["--quick", "--full"][..], &["--json", "--readme"]] {
        let out = bench(&target, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"), "{args:?}");
    }
    assert_eq!(std::fs::read_to_string(&report).unwrap(), "the previous report\n");
    std::fs::remove_dir_all(&target).ok();
}

/// `compare`'s exit status is for scripts: 0 when nothing got slower (the README's stored
/// run against itself), 2 when it cannot read its files.
#[test]
fn compare_exits_0_for_the_same_run_and_2_for_a_missing_file() {
    let dir = std::env::temp_dir().join(format!("bumpdown-bench-cli-compare-{}", std::process::id()));
    let run = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/bench/results.json");
    let run = run.to_str().unwrap();
    let out = bench(&dir, &["compare", run, run]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(" figures in both runs: 0 slower, 0 faster"), "{stdout}");
    let out = bench(&dir, &["compare", run, "no-such-file.json"]);
    assert_eq!(out.status.code(), Some(2));
}
