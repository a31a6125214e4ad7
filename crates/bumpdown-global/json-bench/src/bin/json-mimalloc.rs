//! The JSON workload with the mimalloc allocator.

#[global_allocator]
static A: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    bumpdown_global_json::run("mimalloc");
}
