//! The arena cannot be used directly while a scope of it runs: the scope owns it.

fn main() {
    let mut arena = bumpdown::Arena::new();
    arena.scope(|s| {
        let a = s.alloc(1u32);
        let b = arena.alloc(2u32);
        *a += *b;
    });
}
