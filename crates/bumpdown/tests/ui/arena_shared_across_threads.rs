//! `&Arena` cannot be shared between threads: `Arena` is not `Sync`.

fn main() {
    let arena = bumpdown::Arena::new();
    std::thread::scope(|t| {
        t.spawn(|| *arena.alloc(1u32));
        *arena.alloc(2u32);
    });
}
