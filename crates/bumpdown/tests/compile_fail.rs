//! Compile-fail tests: each file in `tests/ui` breaks one lifetime or thread-safety
//! promise of the API and must be rejected by the compiler, with the error recorded in
//! its `.stderr` file. Regenerate those with
//! `TRYBUILD=overwrite cargo test -p bumpdown --test compile_fail`, then read them: each
//! must fail for the promise it names, not for an unrelated mistake.

/// The compiler the `.stderr` files were written with. Others word their errors
/// differently, so the suite runs only with this one and says so otherwise.
const RECORDED_WITH: &str = "rustc 1.95.";

#[test]
#[cfg_attr(miri, ignore = "runs rustc on the ui files; nothing for Miri to check")]
fn ui() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if !version.starts_with(RECORDED_WITH) {
        eprintln!("SKIPPED: the ui tests' messages were recorded with {RECORDED_WITH}x, this is {version:?}");
        return;
    }
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
