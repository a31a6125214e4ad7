//! An allocation of an inner scope cannot escape into a variable of the outer scope.

fn main() {
    let mut arena = bumpdown::Arena::new();
    arena.scope(|outer| {
        let mut kept: &mut u32 = outer.alloc(0u32);
        outer.scope(|inner| kept = inner.alloc(1u32));
        *kept += 1;
    });
}
