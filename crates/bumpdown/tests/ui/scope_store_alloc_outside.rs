//! An allocation of a scope cannot be stored in a variable that outlives the closure.

fn main() {
    let mut arena = bumpdown::Arena::new();
    let mut out = None;
    arena.scope(|s| out = Some(s.alloc(1u32)));
    if let Some(x) = out {
        *x += 1;
    }
}
