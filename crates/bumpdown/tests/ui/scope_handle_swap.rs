//! Scope handles of different scopes cannot be swapped: the brand is invariant.

fn main() {
    let mut a = bumpdown::Arena::new();
    let mut b = bumpdown::Arena::new();
    a.scope(|s1| {
        b.scope(|s2| {
            std::mem::swap(s1, s2);
        });
    });
}
