//! The arena cannot be dropped while an allocation borrows it.

fn main() {
    let arena = bumpdown::Arena::new();
    let x = arena.alloc(1u32);
    drop(arena);
    *x += 1;
}
