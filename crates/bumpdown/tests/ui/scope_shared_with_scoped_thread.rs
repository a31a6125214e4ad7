//! A scope handle cannot be used from another thread, even a scoped one: `Scope` is
//! neither `Send` nor `Sync`.

fn main() {
    bumpdown::scratch(|s| {
        std::thread::scope(|t| {
            t.spawn(|| *s.alloc(1u32));
        });
    });
}
