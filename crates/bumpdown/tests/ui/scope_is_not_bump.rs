//! A scope does not implement `Bump`: it cannot be rewound while its allocations, which
//! live for the whole scope, may still be in use.

fn rewinds<B: bumpdown::Bump>(arena: &mut B) {
    let cp = arena.checkpoint();
    arena.rewind(cp);
}

fn main() {
    let mut arena = bumpdown::Arena::new();
    arena.scope(|s| {
        let x = s.alloc(1u32);
        rewinds(s);
        *x += 1;
    });
}
