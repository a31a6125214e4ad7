//! `FixedArena`: allocation inside a caller's buffer, clear errors when it is full.

mod common;

use bumpdown::{AllocErrorKind, Bump, FixedArena, RewindError};
use std::mem::MaybeUninit;

#[test]
fn allocations_stay_inside_the_buffer() {
    let mut buf = [MaybeUninit::<u8>::uninit(); 1024];
    let range = buf.as_ptr() as usize..buf.as_ptr() as usize + buf.len();
    let arena: FixedArena = FixedArena::new(&mut buf);
    assert!(arena.capacity() >= 1024 - 15);
    let mut values = Vec::new();
    let mut i = 0u32;
    while let Ok(v) = arena.try_alloc(i) {
        values.push((v as *const u32, i));
        i += 1;
    }
    assert!(i >= 250);
    for &(p, value) in &values {
        assert!(range.contains(&(p as usize)) && p as usize % 4 == 0);
        // SAFETY: allocated above from the live arena.
        assert_eq!(unsafe { *p }, value);
    }
}

#[test]
fn a_full_buffer_is_an_error_and_the_arena_keeps_working() {
    let mut buf = [MaybeUninit::<u8>::uninit(); 200];
    let mut arena: FixedArena = FixedArena::new(&mut buf);
    let first = arena.alloc(1u64) as *const u64;
    let err = arena.try_alloc_slice_fill_copy(1000, 0u8).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::Full);
    assert_eq!(arena.try_alloc_slice_fill_copy(usize::MAX, 0u64).unwrap_err().kind(), AllocErrorKind::InvalidLayout);
    // Smaller requests still fit; the first value is intact.
    assert_eq!(*arena.alloc(2u64), 2);
    // SAFETY: allocated above, the arena is alive and was not reset.
    assert_eq!(unsafe { *first }, 1);
    arena.reset();
    assert_eq!(arena.used(), 0);
    assert!(arena.try_alloc_slice_fill_copy(150, 0u8).is_ok());
}

#[test]
#[should_panic(expected = "the fixed-size arena is full")]
fn plain_methods_panic_clearly_when_full() {
    let mut buf = [MaybeUninit::<u8>::uninit(); 64];
    let arena: FixedArena = FixedArena::new(&mut buf);
    arena.alloc([0u8; 100]);
}

#[test]
fn scopes_guards_and_checkpoints() {
    let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
    let mut arena = FixedArena::<8>::with_min_align(&mut buf);
    arena.alloc(1u8);
    let used = arena.used();
    assert_eq!(used, 8, "MIN_ALIGN = 8 rounds sizes up");
    let n = arena.scope(|a| a.alloc_slice_fill_with(100, |i| i).iter().sum::<usize>());
    assert_eq!((n, arena.used()), (4950, used));
    {
        let guard = arena.scope_guard();
        guard.alloc_str("temporary");
    }
    assert_eq!(arena.used(), used);
    let cp = arena.checkpoint();
    arena.alloc([0u8; 100]);
    arena.rewind(cp);
    assert_eq!(arena.used(), used);
    arena.reset();
    assert_eq!(arena.try_rewind(cp), Err(RewindError::StaleCheckpoint));
}

#[test]
fn generic_code_runs_on_a_fixed_arena() {
    fn fill<B: Bump>(arena: &mut B) -> usize {
        let cp = arena.checkpoint();
        let mut n = 0;
        while arena.try_alloc_layout(std::alloc::Layout::new::<u64>()).is_ok() {
            n += 1;
        }
        arena.rewind(cp);
        n
    }
    let mut buf = [MaybeUninit::<u8>::uninit(); 800];
    let mut arena: FixedArena = FixedArena::new(&mut buf);
    let n = fill(&mut arena);
    assert!((98..=100).contains(&n), "{n}");
    assert_eq!(fill(&mut arena), n, "the rewind gave everything back");
}

#[test]
fn iterators_and_growth_inside_a_fixed_buffer() {
    let mut buf = [MaybeUninit::<u8>::uninit(); 2048];
    let arena: FixedArena = FixedArena::new(&mut buf);
    let evens = arena.alloc_iter((0..200u32).filter(|x| x % 2 == 0));
    assert_eq!(evens.len(), 100);
    assert!(evens.iter().enumerate().all(|(i, &x)| x == 2 * i as u32));
    // Too many items for the buffer: an error, not a crash.
    assert_eq!(arena.try_alloc_iter(0..10_000u64).unwrap_err().kind(), AllocErrorKind::Full);
    assert_eq!(evens[99], 198);
}

#[test]
fn an_empty_buffer_holds_nothing_but_zero_sized_values() {
    let mut buf: [MaybeUninit<u8>; 0] = [];
    let arena: FixedArena = FixedArena::new(&mut buf);
    assert_eq!(arena.capacity(), 0);
    assert!(arena.try_alloc(1u8).is_err());
    arena.alloc(());
    assert_eq!(arena.alloc_slice_copy::<u8>(&[]).len(), 0);
}
