//! A scope handle cannot be returned out of the scope's closure.

fn main() {
    let mut arena = bumpdown::Arena::new();
    let handle = arena.scope(|s| s);
    handle.alloc(1u32);
}
