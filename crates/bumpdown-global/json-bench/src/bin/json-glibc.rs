//! The JSON workload with the glibc allocator.

// The system allocator (glibc malloc): no `#[global_allocator]`.

fn main() {
    bumpdown_global_json::run("glibc");
}
