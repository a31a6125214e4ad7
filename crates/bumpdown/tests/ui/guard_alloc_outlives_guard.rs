//! An allocation made through a scope guard cannot outlive the guard (whose drop
//! rewinds the arena).

fn main() {
    let mut arena = bumpdown::Arena::new();
    let x;
    {
        let g = arena.scope_guard();
        x = g.alloc(1u8);
    }
    *x += 1;
}
