//! The AddressSanitizer annotations (`src/asan.rs`) catch a planted bug: a read through
//! a pointer kept past `reset`. Built only with `--cfg bumpdown_asan`; the bug runs only
//! when `BUMPDOWN_PLANT_BUG=1`, and then the process must die with an ASan report
//! (`scripts/asan.sh` checks both the report and that the test suites pass without it).
#![cfg(bumpdown_asan)]

use bumpdown::Arena;

#[test]
fn read_after_reset() {
    let mut arena = Arena::new();
    let p: *const u64 = arena.alloc(7u64);
    let q: *const u64 = arena.alloc(8u64);
    // SAFETY: still allocated.
    assert_eq!(unsafe { p.read() + q.read() }, 15);
    arena.reset();
    // Handed out again: addressable.
    let r: *const u64 = arena.alloc(9u64);
    // SAFETY: just allocated.
    assert_eq!(unsafe { r.read() }, 9);
    if std::env::var_os("BUMPDOWN_PLANT_BUG").is_some() {
        // The planted bug: `q` was given back by the reset and not handed out again.
        // SAFETY: none; ASan must stop the process here.
        let v = unsafe { std::ptr::read_volatile(q) };
        panic!("read {v:#x} from memory given back by reset: ASan did not catch it");
    }
}
