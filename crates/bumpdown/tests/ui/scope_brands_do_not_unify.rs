//! The brands of two scopes never unify, even behind shared references: `Scope` is
//! invariant in its brand, so a handle of one scope cannot pass for a handle of another
//! (`mem::swap` of `&mut Scope`s is refused by `&mut`'s own invariance; this checks the
//! brand's).

fn main() {
    let mut a = bumpdown::Arena::new();
    let mut b = bumpdown::Arena::new();
    a.scope(|s1| {
        b.scope(|s2| {
            let both = [&*s1, &*s2];
            both[0].alloc(1u8);
        });
    });
}
