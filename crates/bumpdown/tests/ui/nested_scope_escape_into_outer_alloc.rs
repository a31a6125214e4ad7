//! An allocation of an inner scope cannot be stored inside an allocation of the outer
//! scope (which lives longer).

fn main() {
    let mut arena = bumpdown::Arena::new();
    arena.scope(|outer| {
        let slot: &mut Option<&u32> = outer.alloc(None);
        outer.scope(|inner| *slot = Some(inner.alloc(1u32)));
        assert_eq!(slot.copied(), Some(1));
    });
}
