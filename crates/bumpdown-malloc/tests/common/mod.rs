//! Helpers for the preload tests: find (or build) the library, run programs with and
//! without it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `libbumpdown_malloc.so` of this build (cargo builds the cdylib before running the
/// crate's integration tests; if it is missing, we build it with the same profile).
///
/// `cargo test` writes the library to `deps/`; only `cargo build` copies it up to the
/// profile directory, so the copy there may be older. The newer of the two is taken.
pub fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let profile_dir = deps.parent().unwrap();
    let newest = [deps, profile_dir]
        .into_iter()
        .map(|dir| dir.join("libbumpdown_malloc.so"))
        .filter_map(|so| Some((so.metadata().ok()?.modified().ok()?, so)))
        .max_by_key(|(modified, _)| *modified);
    if let Some((_, so)) = newest {
        return so;
    }
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo.args(["build", "-p", "bumpdown-malloc"]);
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        cargo.arg("--release");
    }
    assert!(cargo.status().unwrap().success(), "building bumpdown-malloc failed");
    let so = profile_dir.join("libbumpdown_malloc.so");
    assert!(so.exists(), "{} not found after building", so.display());
    so
}

/// Whether `program` can be found on PATH (or is an existing path).
pub fn installed(program: &str) -> bool {
    if program.contains('/') {
        return Path::new(program).exists();
    }
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// Prints that a check was skipped (the program is not installed) and returns true if so.
pub fn skip_unless_installed(program: &str) -> bool {
    if installed(program) {
        false
    } else {
        println!("SKIPPED: {program} is not installed");
        true
    }
}

/// Runs `cmd` with `env` (name, value) pairs added, feeding `stdin`.
pub fn run(mut cmd: Command, env: &[(&str, &str)], stdin: Option<&[u8]>) -> Output {
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(input) = stdin {
        use std::io::Write;
        let mut pipe = child.stdin.take().unwrap();
        let input = input.to_vec();
        let writer = std::thread::spawn(move || pipe.write_all(&input));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        return out;
    }
    child.wait_with_output().unwrap()
}

/// The allocator settings every program is checked under.
pub fn preload_variants(so: &Path) -> Vec<Vec<(&'static str, String)>> {
    let so = so.display().to_string();
    vec![
        vec![("LD_PRELOAD", so.clone())],
        vec![("LD_PRELOAD", so.clone()), ("BUMPDOWN_MODE", "bump".into())],
        // A cap small enough that the program runs mostly on the glibc fallback.
        vec![("LD_PRELOAD", so), ("BUMPDOWN_LIMIT", "256K".into())],
    ]
}

/// Runs `make()`'s command without and with the preload (each variant) and asserts the
/// same stdout and exit status; returns the plain run's output.
pub fn same_as_glibc(name: &str, make: impl Fn() -> Command, stdin: Option<&[u8]>) -> Output {
    let so = library();
    let plain = run(make(), &[], stdin);
    for variant in preload_variants(&so) {
        let env: Vec<(&str, &str)> = variant.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let out = run(make(), &env, stdin);
        assert_eq!(
            out.status.code(),
            plain.status.code(),
            "{name} under {env:?}: exit status differs; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout == plain.stdout,
            "{name} under {env:?}: stdout differs ({} vs {} bytes)",
            out.stdout.len(),
            plain.stdout.len()
        );
    }
    plain
}
