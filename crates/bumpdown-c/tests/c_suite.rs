//! Builds the C tests in `tests/c/` against the crate's static library and runs them:
//! the behaviour suite (`test_api.c`) as strict C99 at -O0 and -O2 (the inline path
//! takes its constant-size branch only when optimizing), and the header from C++11.
//!
//! The library is built fresh by `common::static_lib`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bumpdown_c::ffi::{bd_checkpoint, bd_options, bd_stats};
use bumpdown_c::vm::{bd_vm_options, bd_vm_stats};

const WARNINGS: [&str; 4] = ["-Wall", "-Wextra", "-pedantic", "-Werror"];

/// What a program linked against the Rust static library needs from the system.
const SYSTEM_LIBS: [&str; 5] = ["-lpthread", "-ldl", "-lm", "-lrt", "-lutil"];

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Compiles `source` with `compiler` and `flags` into an executable linked against the
/// static library; `None` when the compiler is not installed.
fn build(compiler: &str, source: &str, flags: &[&str], name: &str) -> Option<PathBuf> {
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let status = Command::new(compiler)
        .args(flags)
        .args(WARNINGS)
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join("tests/c").join(source))
        .arg(common::static_lib())
        .args(SYSTEM_LIBS)
        .arg("-o")
        .arg(&exe)
        .status();
    match status {
        Ok(status) => {
            assert!(status.success(), "{compiler} {flags:?} failed on {source}");
            Some(exe)
        }
        Err(err) => {
            eprintln!("SKIPPED: cannot run {compiler} ({err}); {source} not built");
            None
        }
    }
}

fn run(exe: &Path) -> Output {
    let out = Command::new(exe).output().expect("cannot run the C test");
    eprintln!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{} failed: {:?}", exe.display(), out.status);
    out
}

fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}

#[test]
#[cfg_attr(miri, ignore = "runs a C compiler")]
fn c_suite_passes_at_o0_and_o2() {
    for opt in ["-O0", "-O2"] {
        let name = format!("test_api{opt}");
        // Rust links with `cc`, so a C compiler is always there: missing one is a failure.
        let exe = build(&cc(), "test_api.c", &["-std=c99", opt, "-g"], &name).expect("no C compiler");
        let out = run(&exe);
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.contains("all C API tests passed"), "{stdout}");

        // The structs C passes across agree in size with the Rust side.
        let sizes = stdout.lines().find_map(|l| l.strip_prefix("SIZES ")).expect("no SIZES line");
        let expect = format!(
            "bd_options={} bd_stats={} bd_checkpoint={} bd_arena_prefix={} bd_vm_options={} bd_vm_stats={} \
             bd_vm_arena_prefix={}",
            size_of::<bd_options>(),
            size_of::<bd_stats>(),
            size_of::<bd_checkpoint>(),
            2 * size_of::<*mut u8>(),
            size_of::<bd_vm_options>(),
            size_of::<bd_vm_stats>(),
            2 * size_of::<*mut u8>(),
        );
        assert_eq!(sizes, expect);
    }
}

#[test]
#[cfg_attr(miri, ignore = "runs a C++ compiler")]
fn header_works_from_cxx11() {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let Some(exe) = build(&cxx, "header_check.cpp", &["-std=c++11", "-O2"], "header_check") else { return };
    let out = run(&exe);
    assert!(String::from_utf8_lossy(&out.stdout).contains("C++ header check passed"));
}

#[test]
#[cfg_attr(miri, ignore = "runs C and C++ compilers")]
fn header_is_clean_under_strict_warnings() {
    let common = ["-c", "-Wconversion", "-Wsign-conversion", "-Wshadow", "-Wcast-align", "-Wundef"];
    let source = crate_dir().join("tests/c/strict_warnings.c");
    let object = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("strict_warnings.o");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    for (compiler, lang_flags) in [
        (cc(), &["-std=c99", "-Wstrict-prototypes", "-Wmissing-prototypes", "-Wcast-qual"][..]),
        (cxx, &["-x", "c++", "-std=c++11", "-Wold-style-cast"][..]),
    ] {
        let status = Command::new(&compiler)
            .args(lang_flags)
            .args(common)
            .args(WARNINGS)
            .arg("-I")
            .arg(crate_dir().join("include"))
            .arg(&source)
            .arg("-o")
            .arg(&object)
            .status();
        match status {
            Ok(status) => assert!(status.success(), "{compiler} {lang_flags:?}: the header has warnings"),
            Err(err) => eprintln!("SKIPPED: cannot run {compiler} ({err})"),
        }
    }
}
