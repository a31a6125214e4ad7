//! Sizes and alignments that cannot be satisfied: errors from `try_`, clear panics from
//! the rest, never UB, and the arena stays usable with everything intact.

mod common;

use bumpdown::{AllocErrorKind, Arena};
use common::TestAlloc;
use std::alloc::Layout;

/// An arena on an allocator that refuses blocks over 1 GiB, holding one value.
fn arena_with_a_value(backing: &TestAlloc) -> (Arena<1, &TestAlloc>, *const u64) {
    let arena = Arena::new_in(backing);
    let p = arena.alloc(0xfeed_u64) as *const u64;
    (arena, p)
}

#[test]
fn overflowing_lengths_are_errors() {
    let backing = TestAlloc::small_machine();
    let (arena, p) = arena_with_a_value(&backing);
    for len in [usize::MAX, usize::MAX / 2, isize::MAX as usize, (isize::MAX as usize) / 8 + 1] {
        let err = arena.try_alloc_slice_fill_copy(len, 0u64).unwrap_err();
        assert_eq!(err.kind(), AllocErrorKind::InvalidLayout, "len {len}");
        assert!(arena.try_alloc_slice_fill_with(len, |_| 0u16).is_err());
        assert!(arena.try_alloc_slice_fill_default::<u128>(len).is_err());
    }
    // A size near isize::MAX forms a layout but no allocator can hold it.
    let err = arena.try_alloc_slice_fill_copy(isize::MAX as usize / 2, 0u8).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::OutOfMemory);
    // SAFETY: allocated above, the arena is alive.
    assert_eq!(unsafe { *p }, 0xfeed);
    assert_eq!(*arena.alloc(1u8), 1);
    arena.check_invariants();
}

#[test]
fn huge_layouts_and_alignments_are_errors() {
    let backing = TestAlloc::small_machine();
    let (arena, p) = arena_with_a_value(&backing);
    for (size, align) in [(isize::MAX as usize - 4096, 1), (1, 1 << 40), (usize::MAX / 4, 1 << 20), (1 << 50, 8)] {
        if let Ok(layout) = Layout::from_size_align(size, align) {
            assert!(arena.try_alloc_layout(layout).is_err(), "{size} {align}");
        }
    }
    // Big but reasonable alignments work.
    for align in [32, 64, 4096, 1 << 16] {
        let layout = Layout::from_size_align(24, align).unwrap();
        let q = arena.try_alloc_layout(layout).unwrap();
        assert_eq!(q.as_ptr() as usize % align, 0);
    }
    // SAFETY: as above.
    assert_eq!(unsafe { *p }, 0xfeed);
    arena.check_invariants();
}

#[test]
fn huge_iterators_are_errors() {
    let arena = Arena::new();
    // A size hint that cannot be allocated.
    struct Endless;
    impl Iterator for Endless {
        type Item = u64;
        fn next(&mut self) -> Option<u64> {
            Some(1)
        }
        fn size_hint(&self) -> (usize, Option<usize>) {
            (usize::MAX, None)
        }
    }
    assert_eq!(arena.try_alloc_iter(Endless).unwrap_err().kind(), AllocErrorKind::InvalidLayout);
    arena.set_allocation_limit(Some(1 << 16));
    // An endless iterator meets the limit.
    let err = arena.try_alloc_iter(std::iter::from_fn(|| Some(1u64))).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::LimitReached);
    assert_eq!(*arena.alloc(3u8), 3);
    arena.check_invariants();
}

#[test]
#[should_panic(expected = "bumpdown: cannot allocate")]
fn plain_methods_panic_clearly_on_overflow() {
    let arena = Arena::new();
    arena.alloc_slice_fill_copy(usize::MAX, 0u32);
}

#[test]
#[should_panic(expected = "exceed the arena's allocation limit")]
fn plain_methods_panic_clearly_at_the_limit() {
    let arena = Arena::new();
    arena.set_allocation_limit(Some(100));
    arena.alloc([0u8; 1000]);
}

#[test]
fn try_with_capacity_rejects_impossible_sizes() {
    assert_eq!(Arena::try_with_capacity(usize::MAX).unwrap_err().kind(), AllocErrorKind::InvalidLayout);
    let backing = TestAlloc::small_machine();
    let err = Arena::<1, &TestAlloc>::try_with_capacity_in(isize::MAX as usize / 2, &backing).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::OutOfMemory);
}

#[test]
#[cfg_attr(miri, ignore = "Miri aborts on a huge allocation instead of returning null")]
fn the_global_allocator_refusing_is_an_error() {
    let err = Arena::try_with_capacity(isize::MAX as usize / 2).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::OutOfMemory);
    let arena = Arena::new();
    let err = arena.try_alloc_slice_fill_copy(isize::MAX as usize / 2, 0u8).unwrap_err();
    assert_eq!(err.kind(), AllocErrorKind::OutOfMemory);
}

#[test]
fn panics_inside_initializers_leave_the_arena_consistent() {
    let arena = Arena::new();
    let before = arena.alloc(7u32) as *const u32;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        arena.alloc_slice_fill_with(100, |i| if i == 50 { panic!("boom") } else { i })
    }));
    assert!(result.is_err());
    arena.check_invariants();
    let result =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| arena.alloc_with(|| -> u64 { panic!("boom") })));
    assert!(result.is_err());
    arena.check_invariants();
    // SAFETY: allocated above, the arena is alive.
    assert_eq!(unsafe { *before }, 7);
    assert_eq!(*arena.alloc(8u32), 8);
}
