//! Handles of nested `scratch` calls (different arenas) cannot be swapped.

fn main() {
    bumpdown::scratch(|s1| {
        bumpdown::scratch(|s2| {
            std::mem::swap(s1, s2);
        });
    });
}
