//! `cfg(bumpdown_nightly)` exactly when bumpdown itself is built with it (its build script
//! decides, and passes the answer on as `DEP_BUMPDOWN_NIGHTLY`): with the `allocator_api`
//! feature, `&Bump` then implements `core::alloc::Allocator`, as `&Arena` does.

fn main() {
    println!("cargo::rerun-if-env-changed=DEP_BUMPDOWN_NIGHTLY");
    println!("cargo::rustc-check-cfg=cfg(bumpdown_nightly)");
    if std::env::var_os("DEP_BUMPDOWN_NIGHTLY").is_some_and(|v| v == "1") {
        println!("cargo::rustc-cfg=bumpdown_nightly");
    }
}
