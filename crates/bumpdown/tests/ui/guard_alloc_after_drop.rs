//! An allocation made through a scope guard cannot be used after an explicit
//! `drop(guard)`.

fn main() {
    let mut arena = bumpdown::Arena::new();
    let g = arena.scope_guard();
    let x = g.alloc(1u8);
    drop(g);
    *x += 1;
}
