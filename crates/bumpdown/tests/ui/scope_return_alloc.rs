//! An allocation of a scope cannot be returned out of the scope's closure.

fn main() {
    let mut arena = bumpdown::Arena::new();
    let escaped = arena.scope(|s| s.alloc(1u32));
    *escaped += 1;
}
