//! The typed allocation API: what each method returns, and that values stay intact.

mod common;

use bumpdown::Arena;
use std::cell::Cell;

#[test]
fn values_slices_and_strs_round_trip() {
    let arena = Arena::new();
    let a = arena.alloc(1u8);
    let b = arena.alloc(2u64);
    let c = arena.alloc(3u128);
    let s = arena.alloc_str("hello");
    let v = arena.alloc_slice_copy(&[1u16, 2, 3]);
    let w = arena.alloc_slice_clone(&[String::from("x"), String::from("y")]);
    *a += 1;
    *b += 1;
    s.make_ascii_uppercase();
    v[0] = 10;
    assert_eq!((*a, *b, *c), (2, 3, 3));
    assert_eq!(&*s, "HELLO");
    assert_eq!(v, &[10, 2, 3]);
    assert_eq!(w, &["x", "y"]);
    assert_eq!((b as *mut u64 as usize) % 8, 0);
    assert_eq!((c as *mut u128 as usize) % std::mem::align_of::<u128>(), 0);
    arena.check_invariants();
    // `alloc_slice_clone` leaked its `String`s: the arena never drops. Free them here so
    // the test is clean under Miri's leak check.
    for s in w.iter_mut() {
        drop(std::mem::take(s));
    }
}

#[test]
fn fill_methods() {
    let arena = Arena::new();
    assert_eq!(arena.alloc_slice_fill_copy(3, 9u32), &[9, 9, 9]);
    assert_eq!(arena.alloc_slice_fill_with(4, |i| i as u8 * 2), &[0, 2, 4, 6]);
    assert_eq!(arena.alloc_slice_fill_default::<u64>(2), &[0, 0]);
    assert_eq!(arena.alloc_slice_fill_clone(2, &7i16), &[7, 7]);
    assert_eq!(arena.alloc_slice_fill_iter(vec![1, 2, 3]), &[1, 2, 3]);
    assert_eq!(arena.alloc_slice_fill_copy(0, 1u8), &[] as &[u8]);
    arena.check_invariants();
}

#[test]
#[should_panic(expected = "fewer items")]
fn fill_iter_with_a_lying_iterator_panics() {
    struct Liar(usize);
    impl Iterator for Liar {
        type Item = u8;
        fn next(&mut self) -> Option<u8> {
            None
        }
    }
    impl ExactSizeIterator for Liar {
        fn len(&self) -> usize {
            self.0
        }
    }
    let arena = Arena::new();
    arena.alloc_slice_fill_iter(Liar(3));
}

#[test]
fn alloc_iter_takes_any_iterator() {
    let arena = Arena::new();
    let n = common::scaled(10_000, 300);
    let evens = arena.alloc_iter((0..n).filter(|x| x % 2 == 0));
    assert_eq!(evens.len(), n / 2);
    assert!(evens.iter().enumerate().all(|(i, &x)| x == 2 * i));
    // An iterator that allocates from the same arena while it is being collected.
    let nested = arena.alloc_iter((0..100u32).map(|i| *arena.alloc(i) + 1));
    assert_eq!(nested.iter().sum::<u32>(), (1..=100).sum());
    assert_eq!(arena.alloc_iter(std::iter::empty::<u64>()), &[] as &[u64]);
    let units = arena.alloc_iter(std::iter::repeat_n((), 5));
    assert_eq!(units.len(), 5);
    arena.check_invariants();
}

#[test]
fn alloc_iter_gives_back_unused_capacity() {
    let arena = Arena::new();
    // A size hint of 1000 but only 10 items: the 990 unused slots go back.
    let items = arena.alloc_iter((0..1000u64).filter(|&x| x < 10));
    assert_eq!(items, &(0..10).collect::<Vec<_>>()[..]);
    assert_eq!(arena.stats().used, 10 * 8);
}

#[test]
fn alloc_with_writes_in_place_and_may_reenter() {
    let arena = Arena::new();
    let outer = arena.alloc_with(|| {
        let inner = arena.alloc(5u32);
        [*inner; 64]
    });
    assert_eq!(outer[63], 5);
    arena.check_invariants();
}

#[test]
fn zero_sized_types_and_empty_slices_cost_nothing() {
    let arena = Arena::new();
    arena.alloc(());
    arena.alloc([0u64; 0]);
    arena.alloc_slice_copy::<u32>(&[]);
    arena.alloc_str("");
    arena.alloc_slice_fill_with(common::scaled(1_000_000, 1000), |_| ());
    assert_eq!(arena.allocated_bytes(), 0, "a zero-sized allocation took a chunk");
    arena.check_invariants();
}

#[test]
fn values_are_never_dropped() {
    struct Loud<'a>(&'a Cell<u32>);
    impl Drop for Loud<'_> {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }
    let drops = Cell::new(0);
    {
        let mut arena = Arena::new();
        arena.alloc(Loud(&drops));
        arena.reset();
        arena.alloc(Loud(&drops));
    }
    assert_eq!(drops.get(), 0);
}

#[test]
fn min_align_keeps_the_bump_pointer_aligned() {
    let arena: Arena<8> = Arena::new_in(bumpdown::Global);
    let a = arena.alloc(1u8) as *mut u8 as usize;
    let b = arena.alloc(2u8) as *mut u8 as usize;
    assert_eq!(a % 8, 0);
    assert_eq!(b % 8, 0);
    assert_eq!(b - a, 8, "sizes round up to MIN_ALIGN");
    let s = arena.alloc_str("abc").as_ptr() as usize;
    assert_eq!(s % 8, 0);
    arena.check_invariants();
}

#[test]
fn upward_bumping_is_dense() {
    let arena = Arena::with_capacity(1024);
    let a = arena.alloc(1u32) as *mut u32 as usize;
    let b = arena.alloc(2u32) as *mut u32 as usize;
    let c = arena.alloc(3u8) as *mut u8 as usize;
    let d = arena.alloc(4u16) as *mut u16 as usize;
    assert_eq!(b - a, 4);
    assert_eq!(c - b, 4);
    // One byte of padding aligns the u16.
    assert_eq!(d - c, 2);
    assert_eq!(arena.stats().used, 12);
    assert_eq!(arena.stats().chunks, 1);
}

#[test]
fn arena_is_send() {
    fn is_send<T: Send>(_: &T) {}
    let arena = Arena::new();
    arena.alloc(1u8);
    is_send(&arena);
    let handle = std::thread::spawn(move || *arena.alloc(41u32) + 1);
    assert_eq!(handle.join().unwrap(), 42);
}

#[test]
fn stats_report_use_waste_and_peak() {
    let mut arena = Arena::new();
    arena.alloc(1u8);
    arena.alloc(2u64);
    let s = arena.stats();
    assert_eq!(s.used, 16);
    assert_eq!(s.wasted, 0);
    assert_eq!(s.held_bytes, arena.allocated_bytes_including_metadata());
    assert_eq!(s.capacity, arena.allocated_bytes());
    // Overflow the first chunk so part of it is left behind.
    let first_free = arena.chunk_capacity();
    arena.alloc_slice_fill_copy(first_free + 1, 0u8);
    let s = arena.stats();
    assert_eq!(s.chunks, 2);
    assert_eq!(s.wasted, first_free);
    assert_eq!(s.used, 16 + first_free + 1);
    arena.reset();
    let s = arena.stats();
    assert_eq!((s.used, s.wasted, s.spare_chunks), (0, 0, 1));
    assert_eq!(s.peak_used, 16 + first_free + 1);
}

#[test]
fn debug_output_names_the_arena() {
    let arena = Arena::new();
    arena.alloc(1u8);
    let text = format!("{arena:?}");
    assert!(text.starts_with("Arena") && text.contains("used: 1"), "{text}");
}

/// `alloc_uninit`, `alloc_uninit_slice`, `alloc_zeroed_slice` and `alloc_fmt` on every
/// face that has the typed API.
#[test]
fn uninit_zeroed_and_formatted_allocations() {
    fn exercise<'a>(
        uninit: impl Fn() -> &'a mut core::mem::MaybeUninit<[u32; 3]>,
        zeroed: impl Fn(usize) -> &'a mut [core::mem::MaybeUninit<u64>],
        fmt: impl Fn(core::fmt::Arguments<'_>) -> &'a mut str,
    ) {
        let v = uninit().write([1, 2, 3]);
        assert_eq!(*v, [1, 2, 3]);
        let z = zeroed(50);
        assert_eq!(z.len(), 50);
        // SAFETY: zero bytes are a valid `u64`.
        assert!(z.iter().all(|x| unsafe { x.assume_init() } == 0));
        assert_eq!(fmt(format_args!("{}+{}={:>4}", 2, 2, 4)), "2+2=   4");
        assert_eq!(fmt(format_args!("plain")), "plain");
        assert_eq!(fmt(format_args!("")), "");
    }
    let mut arena = bumpdown::Arena::new();
    // Dirty the chunk first, so that zeroed memory is not zero by luck.
    arena.alloc_slice_fill_copy(1000, u64::MAX);
    arena.reset();
    exercise(|| arena.alloc_uninit(), |n| arena.alloc_zeroed_slice(n), |a| arena.alloc_fmt(a));
    let mut buf = [core::mem::MaybeUninit::new(0xAAu8); 2048];
    let fixed = bumpdown::FixedArena::new(&mut buf);
    exercise(|| fixed.alloc_uninit(), |n| fixed.alloc_zeroed_slice(n), |a| fixed.alloc_fmt(a));
    assert!(fixed.try_alloc_fmt(format_args!("{:5000}", 1)).is_err());
    #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
    {
        let vm = bumpdown::VmArena::new(1 << 20);
        exercise(|| vm.alloc_uninit(), |n| vm.alloc_zeroed_slice(n), |a| vm.alloc_fmt(a));
    }
    let sync = bumpdown::SyncArena::new();
    let local = sync.local();
    exercise(|| local.alloc_uninit(), |n| local.alloc_zeroed_slice(n), |a| local.alloc_fmt(a));
    // Zero-sized elements cost nothing.
    assert_eq!(arena.alloc_uninit_slice::<()>(usize::MAX).len(), usize::MAX);
}

/// A `Display` that prints something else each time cannot make `alloc_fmt` write past
/// the block it measured.
#[test]
#[should_panic(expected = "printed different text the second time")]
fn alloc_fmt_refuses_a_display_that_changes() {
    struct Growing(core::cell::Cell<usize>);
    impl core::fmt::Display for Growing {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            self.0.set(self.0.get() + 1);
            f.write_str(&"x".repeat(self.0.get()))
        }
    }
    let arena = bumpdown::Arena::new();
    arena.alloc_fmt(format_args!("{}", Growing(core::cell::Cell::new(0))));
}
