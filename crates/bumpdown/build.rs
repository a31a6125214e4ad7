//! Tells the crate whether the compiler is a nightly (`cfg(bumpdown_nightly)`), so that
//! the `nightly-allocator-api` feature implements the unstable `core::alloc::Allocator`
//! only where it compiles: `--all-features` builds, clippy and docs then work on stable
//! too, where the feature does nothing (and says so once, as a build warning). Crates that
//! build on this one learn the answer from `DEP_BUMPDOWN_NIGHTLY` (`links` metadata).

use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=RUSTC_BOOTSTRAP");
    println!("cargo::rustc-check-cfg=cfg(bumpdown_nightly)");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let version = Command::new(rustc).arg("-vV").output().map(|out| out.stdout).unwrap_or_default();
    let version = String::from_utf8_lossy(&version);
    // A nightly or a locally built compiler, or a stable one told to accept unstable
    // features.
    let nightly = version.lines().any(|l| l.starts_with("release:") && (l.contains("-nightly") || l.contains("-dev")))
        || std::env::var_os("RUSTC_BOOTSTRAP").is_some_and(|v| v == "1");
    // Crates built on this one (the bumpalo facade) read it as DEP_BUMPDOWN_NIGHTLY.
    println!("cargo::metadata=nightly={}", u8::from(nightly));
    if nightly {
        println!("cargo::rustc-cfg=bumpdown_nightly");
    } else if std::env::var_os("CARGO_FEATURE_NIGHTLY_ALLOCATOR_API").is_some() {
        println!(
            "cargo::warning=the `nightly-allocator-api` feature needs a nightly compiler; \
             on this one it does nothing (the `allocator-api2` feature works on stable)"
        );
    }
}
