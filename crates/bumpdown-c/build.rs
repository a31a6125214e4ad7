//! Gives the shared library the name it is installed under (`libbumpdown.so.0`), so
//! programs linked against the installed library find it at run time.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "android" || os == "freebsd" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libbumpdown.so.0");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
