//! The arena cannot be reset while an allocation is still in use.

fn main() {
    let mut arena = bumpdown::Arena::new();
    let x = arena.alloc(1u32);
    arena.reset();
    *x += 1;
}
