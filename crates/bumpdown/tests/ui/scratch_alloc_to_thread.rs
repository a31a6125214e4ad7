//! A scratch allocation cannot be sent to a thread that may outlive the `scratch` call.

fn main() {
    bumpdown::scratch(|s| {
        let x = s.alloc(1u32);
        let handle = std::thread::spawn(move || *x += 1);
        handle.join().unwrap();
    });
}
