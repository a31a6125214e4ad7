//! A scope guard cannot be rewound (through `Bump`) while an allocation made through it
//! is still in use.

use bumpdown::Bump;

fn main() {
    let mut arena = bumpdown::Arena::new();
    let mut g = arena.scope_guard();
    let cp = g.checkpoint();
    let x = g.alloc(1u32);
    g.rewind(cp);
    *x += 1;
}
