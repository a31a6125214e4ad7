//! Compile-fail tests: each file in `tests/ui` breaks one lifetime or thread-safety
//! promise of the API and must be rejected by the compiler, with the error recorded in
//! its `.stderr` file. Regenerate those with
//! `TRYBUILD=overwrite cargo test -p bumpdown --test compile_fail`, then read them: each
//! must fail for the promise it names, not for an unrelated mistake.

#[test]
#[cfg_attr(miri, ignore = "runs rustc on the ui files; nothing for Miri to check")]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
