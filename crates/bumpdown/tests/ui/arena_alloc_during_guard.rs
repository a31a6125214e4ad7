//! The arena cannot be used directly while a scope guard of it is alive.

fn main() {
    let mut arena = bumpdown::Arena::new();
    let g = arena.scope_guard();
    let a = g.alloc(1u32);
    let b = arena.alloc(2u32);
    *a += *b;
    drop(g);
}
