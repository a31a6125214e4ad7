//! An outer scope guard cannot allocate while a nested guard of it is alive.

fn main() {
    let mut arena = bumpdown::Arena::new();
    let mut outer = arena.scope_guard();
    let inner = outer.scope_guard();
    let a = inner.alloc(1u32);
    let b = outer.alloc(2u32);
    *a += *b;
    drop(inner);
}
