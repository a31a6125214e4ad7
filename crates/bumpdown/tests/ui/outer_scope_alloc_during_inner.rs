//! An outer scope handle cannot allocate while a nested scope runs (its allocations
//! stay usable, but the handle is borrowed by the nested scope).

fn main() {
    let mut arena = bumpdown::Arena::new();
    arena.scope(|outer| {
        outer.scope(|inner| {
            let a = inner.alloc(1u32);
            let b = outer.alloc(2u32);
            *a += *b;
        });
    });
}
