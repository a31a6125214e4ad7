//! The arena cannot be moved (here, into another thread) while an allocation borrows it.

fn main() {
    let arena = bumpdown::Arena::new();
    let x = arena.alloc(1u32);
    let handle = std::thread::spawn(move || drop(arena));
    *x += 1;
    handle.join().unwrap();
}
