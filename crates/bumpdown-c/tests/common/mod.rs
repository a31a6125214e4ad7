//! Shared by the integration tests: the crate's static library, built fresh.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Builds `libbumpdown_c.a` (dev profile: debug assertions on) into its own target
/// directory and returns its path. `cargo test` builds only the rlib of this crate, so
/// the static library the C tests link against is built here, once per test binary.
pub fn static_lib() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        // Beside this test binary's own build (`<target dir>/<profile>/deps/`), wherever
        // cargo put it.
        let target = std::env::current_exe().unwrap().ancestors().nth(3).unwrap().join("bumpdown-c-static");
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--lib", "-p", "bumpdown-c"])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(manifest)
            .status()
            .expect("cannot run cargo");
        assert!(status.success(), "building libbumpdown_c.a failed");
        let lib = target.join("debug/libbumpdown_c.a");
        assert!(lib.exists(), "{} missing after the build", lib.display());
        lib
    })
}
