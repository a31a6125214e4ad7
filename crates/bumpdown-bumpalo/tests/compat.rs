//! The facade against bumpalo 3.20's documented behaviour, item by item: written here
//! from its API docs, no test code of bumpalo's.

use core::alloc::Layout;
use std::cell::Cell;

use bumpdown_bumpalo::boxed::Box;
use bumpdown_bumpalo::collections::{CollectIn, FromIteratorIn, String, Vec};
use bumpdown_bumpalo::{AllocErr, AllocOrInitError, Bump};

/// Counts drops, to tell what the arena drops (nothing) from what collections drop.
struct Counted<'c>(&'c Cell<usize>);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

#[test]
fn constructors() {
    let bump = Bump::new();
    assert_eq!(bump.allocated_bytes(), 0);
    assert_eq!(bump.min_align(), 1);
    assert!(Bump::try_new().is_ok());
    let default: Bump = Bump::default();
    assert_eq!(default.allocated_bytes(), 0);
    assert!(Bump::with_capacity(1000).chunk_capacity() >= 1000);
    assert!(Bump::try_with_capacity(1000).unwrap().chunk_capacity() >= 1000);
    assert_eq!(Bump::try_with_capacity(usize::MAX).err(), Some(AllocErr));
    assert_eq!(Bump::try_with_capacity(isize::MAX as usize).err(), Some(AllocErr));
}

#[test]
fn min_align_keeps_every_allocation_aligned() {
    fn check<const A: usize>(bump: Bump<A>) {
        assert_eq!(bump.min_align(), A);
        for _ in 0..100 {
            assert_eq!(bump.alloc(0u8) as *mut u8 as usize % A, 0);
            assert_eq!(bump.alloc_str("abc").as_ptr() as usize % A, 0);
        }
    }
    check(Bump::<2>::with_min_align());
    check(Bump::<4>::with_min_align_and_capacity(64));
    check(Bump::<8>::try_with_min_align_and_capacity(64).unwrap());
    check(Bump::<16>::default());
    assert!(Bump::<8>::try_with_min_align_and_capacity(usize::MAX).is_err());
}

#[test]
fn values_are_not_dropped_and_stay_intact() {
    let drops = Cell::new(0);
    {
        let bump = Bump::new();
        let mut refs = std::vec::Vec::new();
        for i in 0..10_000u64 {
            refs.push(bump.alloc(i));
        }
        bump.alloc(Counted(&drops));
        assert!(refs.iter().enumerate().all(|(i, r)| **r == i as u64));
    }
    assert_eq!(drops.get(), 0);
}

#[test]
fn try_forms_report_alloc_err() {
    let bump = Bump::new();
    bump.set_allocation_limit(Some(0));
    assert_eq!(bump.allocation_limit(), Some(0));
    assert_eq!(bump.try_alloc(1u8), Err(AllocErr));
    assert_eq!(bump.try_alloc_with(|| 1u8), Err(AllocErr));
    assert_eq!(bump.try_alloc_slice_copy(&[1u8]), Err(AllocErr));
    assert_eq!(bump.try_alloc_slice_clone(&[1u8]), Err(AllocErr));
    assert_eq!(bump.try_alloc_str("x"), Err(AllocErr));
    assert_eq!(bump.try_alloc_slice_fill_with(1, |i| i), Err(AllocErr));
    assert_eq!(bump.try_alloc_slice_fill_copy(1, 1u8), Err(AllocErr));
    assert_eq!(bump.try_alloc_slice_fill_clone(1, &1u8), Err(AllocErr));
    assert_eq!(bump.try_alloc_slice_fill_iter([1u8]), Err(AllocErr));
    assert_eq!(bump.try_alloc_slice_fill_default::<u8>(1), Err(AllocErr));
    assert_eq!(bump.try_alloc_layout(Layout::new::<u8>()), Err(AllocErr));
    bump.set_allocation_limit(None);
    assert_eq!(bump.try_alloc(1u8).map(|x| *x), Ok(1));
    // Overflowing sizes are errors too, limit or not.
    assert_eq!(bump.try_alloc_slice_fill_copy(usize::MAX, 0u64), Err(AllocErr));
    assert_eq!(AllocErr.to_string(), "memory allocation failed");
}

#[test]
#[should_panic]
fn plain_forms_panic_on_failure() {
    let bump = Bump::new();
    bump.set_allocation_limit(Some(0));
    bump.alloc(1u64);
}

#[test]
fn slices_and_strings() {
    let bump = Bump::new();
    assert_eq!(bump.alloc_slice_copy(&[1, 2, 3]), &[1, 2, 3]);
    let owned = [std::string::String::from("a"), std::string::String::from("bc")];
    assert_eq!(bump.alloc_slice_clone(&owned), &owned);
    assert_eq!(bump.alloc_str("héllo"), "héllo");
    assert_eq!(bump.alloc_slice_fill_with(3, |i| i * 2), &[0, 2, 4]);
    assert_eq!(bump.alloc_slice_fill_copy(2, 9u8), &[9, 9]);
    assert_eq!(bump.alloc_slice_fill_clone(2, &owned[1]), &["bc", "bc"]);
    assert_eq!(bump.alloc_slice_fill_iter(1..4), &[1, 2, 3]);
    assert_eq!(bump.alloc_slice_fill_default::<i8>(2), &[0, 0]);
    let empty: &mut [u64] = bump.alloc_slice_copy(&[]);
    assert!(empty.is_empty());
    assert_eq!(bump.alloc_str(""), "");
    let p = bump.alloc_layout(Layout::from_size_align(100, 64).unwrap());
    assert_eq!(p.as_ptr() as usize % 64, 0);
}

#[test]
fn alloc_try_with_gives_the_slot_back_on_error() {
    let bump = Bump::with_capacity(4096);
    assert_eq!(bump.alloc_try_with(|| Ok::<_, ()>([5u8; 100])).map(|x| x[99]), Ok(5));
    let before = bump.chunk_capacity();
    assert_eq!(bump.alloc_try_with(|| Err::<[u8; 100], _>("no")), Err("no"));
    assert_eq!(bump.chunk_capacity(), before);

    match bump.try_alloc_try_with(|| Err::<u32, _>(7)) {
        Err(AllocOrInitError::Init(7)) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(bump.chunk_capacity(), before);
    assert_eq!(bump.try_alloc_try_with(|| Ok::<_, ()>(3u16)).map(|x| *x), Ok(3));

    bump.set_allocation_limit(Some(0));
    let called = Cell::new(false);
    let r = bump.try_alloc_try_with(|| {
        called.set(true);
        Ok::<_, ()>([0u8; 10_000])
    });
    assert_eq!(r.err(), Some(AllocOrInitError::Alloc(AllocErr)));
    assert!(!called.get(), "the initializer ran although the allocation failed");
    let e: AllocOrInitError<&str> = AllocErr.into();
    assert_eq!(e.to_string(), "memory allocation failed");
    assert_eq!(AllocOrInitError::Init("bad").to_string(), "initialization failed: bad");
}

#[test]
fn try_fill_stops_at_the_first_error_and_drops_what_it_made() {
    let bump = Bump::with_capacity(4096);
    let before = bump.chunk_capacity();
    let drops = Cell::new(0);
    let r = bump.alloc_slice_try_fill_with(5, |i| if i == 3 { Err(i) } else { Ok(Counted(&drops)) });
    assert_eq!(r.err(), Some(3));
    assert_eq!(drops.get(), 3);
    assert_eq!(bump.chunk_capacity(), before);

    let ok: Result<&mut [u32], ()> = bump.alloc_slice_try_fill_iter([Ok(1), Ok(2)]);
    assert_eq!(ok.unwrap(), &[1, 2]);
    let err: Result<&mut [u32], u8> = bump.alloc_slice_try_fill_iter([Ok(1), Err(9), Ok(3)]);
    assert_eq!(err, Err(9));
    let zst: Result<&mut [()], ()> = bump.alloc_slice_try_fill_with(1000, |_| Ok(()));
    assert_eq!(zst.unwrap().len(), 1000);
}

#[test]
fn reset_keeps_the_chunks_and_frees_everything() {
    let mut bump = Bump::new();
    for _ in 0..3 {
        bump.alloc_slice_fill_copy(50_000, 1u8);
    }
    let held = bump.allocated_bytes();
    let with_headers = bump.allocated_bytes_including_metadata();
    assert!(with_headers >= held && held >= 150_000);
    bump.reset();
    assert_eq!(bump.allocated_bytes(), held, "bumpdown keeps every chunk (MIGRATING.md)");
    assert_eq!(bump.stats().used, 0);
    bump.alloc_slice_fill_copy(50_000, 2u8);
    assert_eq!(bump.allocated_bytes_including_metadata(), with_headers);
}

#[test]
fn the_arena_underneath_is_reachable() {
    let mut bump = Bump::new();
    let total = bump.scope(|s| s.alloc_slice_fill_with(10, |i| i).iter().sum::<usize>());
    assert_eq!(total, 45);
    bump.alloc(1u32);
    let arena = bump.into_arena();
    assert_eq!(arena.stats().used, 4);
    let back = Bump::from(arena);
    assert_eq!(back.stats().used, 4);
}

#[test]
fn bump_is_send() {
    fn is_send<T: Send>() {}
    is_send::<Bump>();
    let bump = Bump::new();
    bump.alloc(3u8);
    let held = std::thread::spawn(move || bump.allocated_bytes()).join().unwrap();
    assert!(held > 0);
}

#[test]
fn vec_and_macros() {
    let bump = Bump::new();
    let mut v = Vec::new_in(&bump);
    v.push(1);
    v.extend_from_slice(&[2, 3]);
    v.extend_from_slice_copy(&[4]);
    v.retain(|x| x % 2 == 0);
    assert_eq!(v, [2, 4]);
    let w = bumpdown_bumpalo::vec![in &bump; 1, 2, 3];
    let zeros = bumpdown_bumpalo::vec![in &bump; 0u8; 4];
    let empty: Vec<u8> = bumpdown_bumpalo::vec![in &bump];
    assert_eq!((w.len(), zeros.as_slice(), empty.len()), (3, &[0u8; 4][..], 0));
    let slice: &[i32] = w.into_bump_slice();
    assert_eq!(slice, &[1, 2, 3]);
    let mut cap = Vec::<u64>::with_capacity_in(10, &bump);
    assert!(cap.capacity() >= 10);
    cap.push(1);
    assert_eq!(cap.pop(), Some(1));
}

#[test]
fn string_and_format() {
    let bump = Bump::new();
    let mut s = String::new_in(&bump);
    s.push_str("ab");
    s.push('c');
    assert_eq!(s, "abc");
    let name = "bump";
    let f = bumpdown_bumpalo::format!(in &bump, "{name}-{}", 1);
    assert_eq!(f, "bump-1");
    let t = String::from_str_in("xyz", &bump);
    let frozen: &str = t.into_bump_str();
    assert_eq!(frozen, "xyz");
}

#[test]
fn collect_in_takes_one_type_parameter() {
    let bump = Bump::new();
    let v = (1..=4).collect_in::<Vec<_>>(&bump);
    assert_eq!(v, [1, 2, 3, 4]);
    let s = "abc".chars().map(|c| c.to_ascii_uppercase()).collect_in::<String>(&bump);
    assert_eq!(s, "ABC");
    let b = (0..3).collect_in::<Box<[u8]>>(&bump);
    assert_eq!(&*b, &[0, 1, 2]);
    let from: Vec<u8> = FromIteratorIn::from_iter_in([7u8], &bump);
    assert_eq!(from, [7]);
}

#[test]
fn collect_in_option_and_result() {
    let bump = Bump::new();
    let all: Option<Vec<u8>> = [Some(1), Some(2)].into_iter().collect_in(&bump);
    assert_eq!(all.unwrap(), [1, 2]);
    let none: Option<Vec<u8>> = [Some(1), None, Some(3)].into_iter().collect_in(&bump);
    assert!(none.is_none());
    let ok: Result<Vec<u8>, ()> = [Ok(1)].into_iter().collect_in(&bump);
    assert_eq!(ok.unwrap(), [1]);
    let err: Result<Vec<u8>, &str> = [Ok(1), Err("first"), Err("second")].into_iter().collect_in(&bump);
    assert_eq!(err.unwrap_err(), "first");
    let drops = Cell::new(0);
    let partial: Option<Vec<Counted>> = [Some(Counted(&drops)), None].into_iter().collect_in(&bump);
    assert!(partial.is_none());
    assert_eq!(drops.get(), 1);
}

#[test]
fn boxes_drop_their_values_and_hold_dyn() {
    let bump = Bump::new();
    let drops = Cell::new(0);
    drop(Box::new_in(Counted(&drops), &bump));
    assert_eq!(drops.get(), 1);
    let b = Box::new_in(41, &bump);
    assert_eq!(Box::into_inner(b) + 1, 42);

    let shown = Box::new_in(5u8, &bump);
    let raw: *mut u8 = Box::into_raw(shown);
    let raw: *mut dyn std::fmt::Display = raw;
    // SAFETY: `raw` comes from `Box::into_raw` of a box in `bump`, which is still alive;
    // it is turned back into a box once.
    let dynamic: Box<dyn std::fmt::Display> = unsafe { Box::from_raw(raw) };
    assert_eq!(dynamic.to_string(), "5");
    let leaked: &mut [u8] = Box::leak(Vec::from_iter_in([1u8, 2], &bump).into_boxed_slice());
    assert_eq!(leaked, &[1, 2]);
}

#[test]
fn allocator_api2_for_hashbrown_and_vec() {
    let bump = Bump::new();
    let mut map = hashbrown::HashMap::new_in(&bump);
    for i in 0..1000u32 {
        map.insert(i, i * 2);
    }
    assert!((0..1000).all(|i| map[&i] == i * 2));
    let mut v = allocator_api2::vec::Vec::new_in(&bump);
    v.extend(0..100u64);
    v.shrink_to_fit();
    assert_eq!(v.iter().sum::<u64>(), 4950);
    let zeroed = allocator_api2::boxed::Box::<[u64], _>::new_zeroed_slice_in(8, &bump);
    // SAFETY: zeroed memory is a valid `u64`.
    let zeroed = unsafe { zeroed.assume_init() };
    assert_eq!(&*zeroed, &[0; 8]);
}

#[test]
fn min_align_arenas_hold_collections() {
    // bumpalo's collections take `&Bump` (`MIN_ALIGN` 1), and so do the facade's;
    // bumpdown's own take any arena, a `Bump<8>` too.
    let bump = Bump::<8>::with_min_align();
    let mut v = bumpdown::collections::Vec::new_in(&bump);
    v.extend(0..10u8);
    assert_eq!(v.len(), 10);
    assert_eq!(v.as_ptr() as usize % 8, 0);
    let mut map = hashbrown::HashMap::new_in(&bump);
    map.insert(1u8, 2u8);
    assert_eq!(map[&1], 2);
}

#[test]
fn empty_slices_take_at_most_their_alignment_padding() {
    // bumpalo returns a dangling pointer for an empty slice and takes nothing; bumpdown
    // still aligns the bump pointer (docs/MIGRATING.md).
    let bump = Bump::with_capacity(256);
    bump.alloc(0u8);
    let before = bump.chunk_capacity();
    let empty: &mut [u64] = bump.alloc_slice_copy(&[]);
    assert!(empty.is_empty());
    assert_eq!(bump.alloc_str(""), "");
    assert!(bump.alloc_slice_fill_with(0, |i| i as u32).is_empty());
    assert!(before - bump.chunk_capacity() < align_of::<u64>());
}

#[test]
fn iter_allocated_chunks_newest_chunk_first() {
    let mut bump = Bump::new();
    for i in 0..2000u32 {
        bump.alloc(i);
    }
    // Newest chunk first, and in each the oldest allocation first (bumpdown fills
    // upwards; bumpalo would give the newest first): chunk by chunk from the oldest, the
    // values come out in the order they were allocated.
    let chunks: std::vec::Vec<std::vec::Vec<u32>> = bump
        .iter_allocated_chunks()
        .map(|chunk| {
            chunk
                .chunks_exact(4)
                .map(|word| {
                    // SAFETY: only `u32`s, aligned and unpadded, were allocated.
                    let bytes: [u8; 4] = core::array::from_fn(|i| unsafe { word[i].assume_init() });
                    u32::from_ne_bytes(bytes)
                })
                .collect()
        })
        .collect();
    assert!(chunks.len() > 1);
    let values: std::vec::Vec<u32> = chunks.into_iter().rev().flatten().collect();
    assert_eq!(values, (0..2000).collect::<std::vec::Vec<u32>>());
    // SAFETY: nothing allocates while the raw iterator runs.
    let raw: usize = unsafe { bump.iter_allocated_chunks_raw() }.map(|(_, len)| len).sum();
    assert_eq!(raw, 2000 * 4);
}
