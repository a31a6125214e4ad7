//! A scope handle cannot be stored in a variable that outlives the closure.

fn main() {
    let mut arena = bumpdown::Arena::new();
    let mut out = None;
    arena.scope(|s| out = Some(s));
    if let Some(s) = out {
        s.alloc(1u32);
    }
}
