//! A nested scope's handle cannot be swapped with its parent's: the parent is borrowed.

fn main() {
    let mut arena = bumpdown::Arena::new();
    arena.scope(|outer| {
        outer.scope(|inner| {
            std::mem::swap(outer, inner);
        });
    });
}
