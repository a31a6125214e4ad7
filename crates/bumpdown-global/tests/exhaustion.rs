//! A tiny reservation running out, with the default `Exhaustion::Fallback` policy: the
//! program keeps running on the system allocator and frees are routed by address.

use std::process::Command;

use bumpdown_global::{stats, BumpGlobal};

const RESERVE: usize = 4 << 20;

#[global_allocator]
static A: BumpGlobal = BumpGlobal::with_reservation(RESERVE);

fn main() {
    if std::env::var_os("BUMPDOWN_RESERVE").is_some() {
        // The variable would override our tiny reservation: run again without it.
        let status = Command::new(std::env::current_exe().unwrap()).env_remove("BUMPDOWN_RESERVE").status().unwrap();
        std::process::exit(status.code().unwrap_or(1));
    }
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    let mut i = 0usize;
    while stats().fallbacks < 1000 {
        let len = 100 + i % 3000;
        blocks.push(vec![i as u8; len]);
        i += 1;
        assert!(i < 1_000_000, "never fell back: {:?}", stats());
    }
    let s = stats();
    assert_eq!(s.reserved, RESERVE);
    assert!(s.used > RESERVE - (1 << 20), "the region was used up first: {s:?}");
    for (i, b) in blocks.iter().enumerate() {
        assert!(b.len() == 100 + i % 3000 && b.iter().all(|&x| x == i as u8), "block {i}");
    }
    // Frees of both kinds are routed to the right allocator; growth moves across.
    for b in blocks.iter_mut().step_by(7) {
        b.extend_from_slice(&[1; 5000]);
    }
    drop(blocks);
    assert_eq!(stats().fallback_live, 0, "{:?}", stats());
    let v: Vec<u64> = (0..100_000).collect();
    assert_eq!(v.iter().sum::<u64>(), 4_999_950_000);
    println!("exhaustion (fallback): ok after {i} allocations, {:?}", stats());
}
