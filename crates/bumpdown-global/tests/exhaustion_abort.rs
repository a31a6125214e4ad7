//! A tiny reservation running out with `Exhaustion::Abort`: the process stops with a
//! message naming the cause (checked from a parent process).

use std::process::Command;

use bumpdown_global::{BumpGlobal, Exhaustion};

#[global_allocator]
static A: BumpGlobal = BumpGlobal::with_reservation(4 << 20).on_exhaustion(Exhaustion::Abort);

fn main() {
    if std::env::args().nth(1).as_deref() == Some("child") {
        let mut keep = Vec::new();
        for i in 0..1_000_000usize {
            keep.push(vec![i as u8; 1000]);
        }
        // Not reached: 1 GB does not fit in 4 MiB.
        std::process::exit(0);
    }
    let out =
        Command::new(std::env::current_exe().unwrap()).arg("child").env_remove("BUMPDOWN_RESERVE").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(libc::SIGABRT), "status {:?}, stderr {stderr}", out.status);
    assert!(stderr.contains("bumpdown: the reservation is exhausted"), "stderr: {stderr}");
    println!("exhaustion (abort): ok");
}
