//! The arena cannot be rewound while an allocation is still in use.

fn main() {
    let mut arena = bumpdown::Arena::new();
    let cp = arena.checkpoint();
    let x = arena.alloc(1u32);
    arena.rewind(cp);
    *x += 1;
}
