//! A scope guard derefs only to `&Arena`: the arena cannot be reset through it (that
//! would free what was allocated before the guard began).

fn main() {
    let mut arena = bumpdown::Arena::new();
    let g = arena.scope_guard();
    g.reset();
}
