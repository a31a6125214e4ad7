//! Issue 22's test of `compare` itself: two runs of the same build flag no figure, and a
//! build with a deliberate slowdown (`--cfg bumpdown_slow_alloc`, a spin at the top of
//! bumpdown's `alloc`) is flagged slower on bumpdown's rows, and no other contender's row is
//! slowed as much (2x).
//!
//! Both builds are this test's own profile: the binary cargo built for this test, and the
//! same package built again with the cfg into a target directory of its own, under
//! cargo's (found from `CARGO_TARGET_DIR` or `cargo metadata`, never assumed). The runs
//! measure one speed row (`--filter alloc_multiple_u64`: 16 figures) in four processes,
//! about 1.5 s a run. Four, because a process's median can settle in one of two modes
//! (`SyncArena` through `&`: 5.60 or 5.29 ns; `bumpdown` through `&`: 2.20 or 2.36 ns), and
//! two processes often both land in one: on a two-core VM, two 2-process runs of one build
//! flagged one figure in 9 of 14 pairs (the fresh-arena table's three processes did too:
//! blink-alloc 2.82 against 3.16 ns), four or eight processes in none of 10 pairs each.
//! The first build of the slowed copy compiles the bench and its dependencies again
//! (about two minutes on a two-core VM), hence `#[ignore]`; later runs take seconds.
//! `.ci/run` runs it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The cfg the core crate reads (listed in the workspace's `check-cfg`).
const CFG: &str = "bumpdown_slow_alloc";

/// Contenders whose `alloc` is bumpdown's, so the spin slows them.
const OURS: [&str; 4] = ["bumpdown", "bumpdown Scope", "VmArena", "SyncArena"];

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn workspace_manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml")
}

/// Cargo's target directory, as cargo reports it.
fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return dir.into();
    }
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps", "--manifest-path"])
        .arg(workspace_manifest())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    metadata["target_directory"].as_str().expect("a target_directory").into()
}

/// Builds the bench with the slowdown and returns its binary, as cargo reports it.
fn slowed_binary() -> PathBuf {
    let mut build = cargo();
    build
        .args(["build", "--profile", "test", "-p", "bumpdown-bench", "--bin", "bumpdown-bench"])
        .args(["--message-format", "json-render-diagnostics", "--manifest-path"])
        .arg(workspace_manifest())
        .arg("--target-dir")
        .arg(target_dir().join("bumpdown-slow-alloc"));
    // RUSTFLAGS, when set, replaces the workspace's `build.rustflags` (loop alignment),
    // which `--config` adds to: the slowed build gets the same flags as this one plus the cfg.
    match std::env::var("RUSTFLAGS") {
        Ok(flags) => build.env("RUSTFLAGS", format!("{flags} --cfg {CFG}")),
        Err(_) => build.args(["--config", &format!("build.rustflags=[\"--cfg\", \"{CFG}\"]")]),
    };
    let out = build.output().expect("cargo build runs");
    assert!(out.status.success(), "the slowed build failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "bumpdown-bench")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo reported the bench binary")
}

/// Runs `bench` on the narrow selection and stores its results as `dir/name.json`.
fn measure(bench: &Path, dir: &Path, name: &str) -> PathBuf {
    let out = Command::new(bench)
        .args(["--filter", "alloc_multiple_u64", "--processes", "4", "--json"])
        .env("CARGO_TARGET_DIR", dir)
        .output()
        .expect("the bench runs");
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let file = dir.join(format!("{name}.json"));
    std::fs::write(&file, &out.stdout).unwrap();
    file
}

/// `compare a b`: its exit status and the figures it flagged (name, flag, ratio B / A).
fn compare(a: &Path, b: &Path) -> (Option<i32>, Vec<(String, String, f64)>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bumpdown-bench")).arg("compare").args([a, b]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let flagged = stdout
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.strip_prefix("| ")?.split(" | ").collect();
            let mark = cells.last()?.trim_end_matches(" |").trim_end_matches('|').trim();
            // NaN where a figure has no ratio (in one run only): flagged, never "slowed".
            let ratio = cells.get(3).and_then(|r| r.trim_end_matches('x').parse().ok()).unwrap_or(f64::NAN);
            (!mark.is_empty() && cells.len() == 5).then(|| (cells[0].to_owned(), mark.to_owned(), ratio))
        })
        .collect();
    (out.status.code(), flagged, stdout)
}

/// One attempt: measures this build twice and the slowed one once, and says what of
/// the two comparisons is not as it should be.
fn attempt(slowed: &Path, dir: &Path) -> Result<(), String> {
    let bench = Path::new(env!("CARGO_BIN_EXE_bumpdown-bench"));
    let a = measure(bench, dir, "a");
    let again = measure(bench, dir, "again");
    let slow = measure(slowed, dir, "slow");

    let (status, flagged, stdout) = compare(&a, &again);
    if status != Some(0) || !flagged.is_empty() || !stdout.contains(" 0 slower, 0 faster") {
        return Err(format!("two runs of one build differ (exit {status:?}): {flagged:?}\n{stdout}"));
    }
    let (status, flagged, stdout) = compare(&a, &slow);
    if status != Some(1) {
        return Err(format!("compare of the slowed build exited {status:?}\n{stdout}"));
    }
    let contender = |name: &str| name.rsplit(", ").next().unwrap().to_owned();
    let slower: Vec<&str> =
        flagged.iter().filter(|(_, mark, _)| mark == "**slower**").map(|(n, _, _)| n.as_str()).collect();
    for form in ["local", "ref"] {
        for ours in OURS {
            let expected = format!("speed: alloc_multiple_u64 ({form}), {ours}");
            if !slower.contains(&expected.as_str()) {
                return Err(format!("{expected} is not flagged slower\n{stdout}"));
            }
        }
    }
    // The slowed binary is another build, with its own code layout: a peer's row may land
    // a third faster or slower there (bumpalo 0.52x to 0.68x, stumpalo 1.6x, in runs on a
    // loaded two-core VM), while the spin makes ours 4x to 28x slower. So only a peer
    // slowed as much as ours (2x) counts: the spin reached code it must not.
    match flagged.iter().find(|(name, _, ratio)| !OURS.contains(&contender(name).as_str()) && *ratio >= 2.0) {
        Some((name, mark, ratio)) => Err(format!("a peer's row was slowed: {name} {mark} {ratio}x\n{stdout}")),
        None => Ok(()),
    }
}

#[test]
#[ignore = "the first run builds the bench again with the cfg (about two minutes); .ci/run runs it"]
fn compare_flags_a_planted_slowdown_and_nothing_else() {
    let slowed = slowed_binary();
    let dir = std::env::temp_dir().join(format!("bumpdown-bench-slowdown-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A flag on a row the slowdown does not touch is noise (a process settling in its
    // other mode: one peer figure in about 30 comparisons of four-process runs here), so
    // that attempt is made again, up to three times. A fault of the rule or of the
    // slowdown fails every attempt.
    let mut failures = Vec::new();
    for _ in 0..3 {
        match attempt(&slowed, &dir) {
            Ok(()) => break,
            Err(why) => failures.push(why),
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.len() < 3, "three attempts failed:\n{}", failures.join("\n\n"));
}
