//! The JSON workload with the bumpdown allocator.

#[global_allocator]
static A: bumpdown_global::BumpGlobal = bumpdown_global::BumpGlobal::new();

fn main() {
    bumpdown_global_json::run("bumpdown");
}
