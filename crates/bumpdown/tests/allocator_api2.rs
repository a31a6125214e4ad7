//! `&Arena` as an `allocator_api2` allocator: collections, and the exact behaviour of
//! deallocate / grow / shrink.

mod common;

use allocator_api2::alloc::Allocator;
use allocator_api2::vec::Vec as AVec;
use bumpdown::Arena;
use std::alloc::Layout;

#[test]
fn hashbrown_and_vec_live_in_the_arena() {
    let arena = Arena::new();
    let mut map = hashbrown::HashMap::new_in(&arena);
    let n = common::scaled(10_000, 200);
    for i in 0..n {
        map.insert(i, i * 2);
    }
    assert!((0..n).all(|i| map[&i] == i * 2));
    let mut v = AVec::new_in(&arena);
    v.extend(0..n as u64);
    assert_eq!(v.iter().sum::<u64>(), (0..n as u64).sum());
    assert!(arena.allocated_bytes() > n * 8);
    arena.check_invariants();
}

#[test]
fn deallocating_the_newest_block_gives_its_space_back() {
    let arena = Arena::with_capacity(4096);
    let a = &arena;
    let layout = Layout::new::<[u64; 4]>();
    let before = arena.chunk_capacity();
    let p = a.allocate(layout).unwrap();
    assert_eq!(arena.chunk_capacity(), before - 32);
    // SAFETY: `p` is live with `layout` and not used again.
    unsafe { a.deallocate(p.cast(), layout) };
    assert_eq!(arena.chunk_capacity(), before);
    // An older block is not the newest: its space stays taken until reset.
    let old = a.allocate(layout).unwrap();
    let _new = a.allocate(layout).unwrap();
    let cap = arena.chunk_capacity();
    // SAFETY: as above.
    unsafe { a.deallocate(old.cast(), layout) };
    assert_eq!(arena.chunk_capacity(), cap);
    arena.check_invariants();
}

#[test]
fn growing_the_newest_block_reuses_its_space() {
    let arena = Arena::with_capacity(4096);
    let a = &arena;
    let before = arena.chunk_capacity();
    let old = Layout::from_size_align(16, 8).unwrap();
    let p = a.allocate(old).unwrap().cast::<u8>();
    // SAFETY: `p` has 16 writable bytes.
    unsafe { p.as_ptr().copy_from_nonoverlapping(b"0123456789abcdef".as_ptr(), 16) };
    let new = Layout::from_size_align(64, 8).unwrap();
    // SAFETY: `p` is live with `old`; 64 >= 16.
    let q = unsafe { a.grow(p, old, new) }.unwrap();
    assert_eq!(q.len(), 64);
    // Bumping up, the newest block grows where it is: nothing moves, nothing is wasted.
    assert_eq!(q.cast::<u8>(), p);
    assert_eq!(arena.chunk_capacity(), before - 64);
    // SAFETY: `q` has 64 bytes, the first 16 copied from `p`.
    assert_eq!(unsafe { std::slice::from_raw_parts(q.cast::<u8>().as_ptr(), 16) }, b"0123456789abcdef");
    // grow_zeroed zeroes the new part.
    let bigger = Layout::from_size_align(128, 8).unwrap();
    // SAFETY: `q` is live with `new`; 128 >= 64.
    let r = unsafe { a.grow_zeroed(q.cast(), new, bigger) }.unwrap();
    // SAFETY: 128 initialized bytes.
    let bytes = unsafe { std::slice::from_raw_parts(r.cast::<u8>().as_ptr(), 128) };
    assert_eq!(&bytes[..16], b"0123456789abcdef");
    assert!(bytes[64..].iter().all(|&b| b == 0));
    assert_eq!(arena.chunk_capacity(), before - 128);
    arena.check_invariants();
}

#[test]
fn growing_an_older_block_copies_it() {
    let arena = Arena::with_capacity(4096);
    let a = &arena;
    let old = Layout::from_size_align(8, 8).unwrap();
    let p = a.allocate(old).unwrap().cast::<u8>();
    // SAFETY: 8 writable bytes.
    unsafe { p.as_ptr().cast::<u64>().write(42) };
    let _newer = a.allocate(old).unwrap();
    let new = Layout::from_size_align(32, 8).unwrap();
    // SAFETY: `p` is live with `old`.
    let q = unsafe { a.grow(p, old, new) }.unwrap().cast::<u8>();
    assert_ne!(p, q);
    // SAFETY: the first 8 bytes were copied.
    assert_eq!(unsafe { q.as_ptr().cast::<u64>().read() }, 42);
}

#[test]
fn shrinking_is_in_place() {
    let arena = Arena::new();
    let a = &arena;
    let old = Layout::from_size_align(64, 8).unwrap();
    let p = a.allocate(old).unwrap().cast::<u8>();
    let cap = arena.chunk_capacity();
    let new = Layout::from_size_align(16, 8).unwrap();
    // SAFETY: `p` is live with `old`; 16 <= 64.
    let q = unsafe { a.shrink(p, old, new) }.unwrap();
    assert_eq!(q.cast::<u8>(), p);
    assert_eq!(q.len(), 16);
    // The newest block's tail is free again.
    assert_eq!(arena.chunk_capacity(), cap + 48);
}

#[test]
fn big_out_of_band_blocks_are_freed_on_deallocate_and_grow() {
    let backing = common::TestAlloc::default();
    let cap = common::scaled(4 << 20, 64 << 10);
    let arena: Arena<1, &common::TestAlloc> = Arena::new_in(&backing).with_max_chunk_size(cap);
    let a = &arena;
    let big = Layout::from_size_align(cap, 8).unwrap();
    let p = a.allocate(big).unwrap();
    assert_eq!(arena.stats().big_chunks, 1);
    // SAFETY: `p` is live with `big`.
    unsafe { a.deallocate(p.cast(), big) };
    assert_eq!(arena.stats().big_chunks, 0);
    // Only the arena's bookkeeping block is left.
    assert_eq!(backing.live_bytes.get(), <Arena>::BOOKKEEPING_BYTES);
    // A vector that grows past the out-of-band threshold keeps one big chunk at a time.
    // (Under Miri, a smaller chunk cap keeps the vector short.)
    let mut v = AVec::new_in(&arena);
    for i in 0..(cap as u64 / 4) {
        v.push(i);
    }
    assert_eq!(arena.stats().big_chunks, 1);
    drop(v);
    arena.check_invariants();
}

#[test]
fn allocator_errors_are_errors() {
    let arena = Arena::new();
    arena.set_allocation_limit(Some(1024));
    let a = &arena;
    assert!(a.allocate(Layout::from_size_align(1 << 20, 8).unwrap()).is_err());
    let mut v: AVec<u8, _> = AVec::new_in(&arena);
    assert!(v.try_reserve(1 << 20).is_err());
    v.push(1);
    assert_eq!(v[0], 1);
}

/// allocator-api2 0.3 and 0.4 vectors grow in place on an arena, as 0.2's do.
#[test]
fn allocator_api2_03_and_04_vectors_live_in_the_arena() {
    let arena = Arena::new();
    let mut v3 = allocator_api2_03::vec::Vec::new_in(&arena);
    let mut v4 = allocator_api2_04::vec::Vec::new_in(&arena);
    for i in 0..1000u32 {
        v3.push(i);
    }
    for i in 0..1000u64 {
        v4.push(i);
    }
    assert_eq!(v3.iter().sum::<u32>(), 499_500);
    assert_eq!(v4.iter().sum::<u64>(), 499_500);
    assert!(arena.debug_owns(v3.as_ptr().addr(), v3.len() * 4));
    assert!(arena.debug_owns(v4.as_ptr().addr(), v4.len() * 8));
    arena.check_invariants();
}

/// Gives the newest block back through a pointer whose provenance covers that block
/// alone (a reborrow of it as a slice), then allocates and writes past where the block
/// was. The face must keep bumping from its own pointer: under Miri, a cursor taken from
/// the caller's narrower pointer is undefined behaviour on the next write.
fn give_back_through_a_reborrow(allocate: impl Fn(Layout) -> *mut u8, deallocate: impl Fn(*mut u8, Layout)) {
    let small = Layout::from_size_align(64, 8).unwrap();
    let big = Layout::from_size_align(512, 8).unwrap();
    let block = allocate(small);
    // SAFETY: a fresh block of 64 bytes, used only through this slice.
    let bytes = unsafe { std::slice::from_raw_parts_mut(block, 64) };
    bytes.fill(1);
    let narrow = bytes.as_mut_ptr();
    deallocate(narrow, small);
    let next = allocate(big);
    // SAFETY: a fresh block of 512 bytes.
    unsafe { next.write_bytes(7, 512) };
    // SAFETY: as above.
    assert!(unsafe { std::slice::from_raw_parts(next, 512) }.iter().all(|&b| b == 7));
}

#[test]
fn a_block_given_back_through_a_reborrow_leaves_the_arena_whole() {
    let arena = Arena::with_capacity(4096);
    let a = &arena;
    give_back_through_a_reborrow(
        |l| a.allocate(l).unwrap().as_ptr().cast(),
        // SAFETY: the newest block of `a`, with its layout, not used again.
        |p, l| unsafe { a.deallocate(std::ptr::NonNull::new(p).unwrap(), l) },
    );
    arena.check_invariants();

    let mut buf = [std::mem::MaybeUninit::uninit(); 4096];
    let fixed = bumpdown::FixedArena::new(&mut buf);
    give_back_through_a_reborrow(
        |l| bumpdown::collections::ArenaAllocator::allocate(&fixed, l).unwrap().as_ptr(),
        // SAFETY: as above.
        |p, l| unsafe {
            bumpdown::collections::ArenaAllocator::deallocate(&fixed, std::ptr::NonNull::new(p).unwrap(), l)
        },
    );
    fixed.check_invariants();
}

#[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
#[test]
fn a_vm_block_given_back_through_a_reborrow_leaves_the_arena_whole() {
    let arena = bumpdown::VmArena::new(1 << 20);
    let a = &arena;
    give_back_through_a_reborrow(
        |l| a.allocate(l).unwrap().as_ptr().cast(),
        // SAFETY: the newest block of `a`, with its layout, not used again.
        |p, l| unsafe { a.deallocate(std::ptr::NonNull::new(p).unwrap(), l) },
    );
    arena.check_invariants();
}

/// `&FixedArena` (a stack buffer, no allocator) and `&LocalArena` (a thread's handle on
/// a `SyncArena`) are allocators too: a map and a vector in each, the vector growing in
/// place as the newest block.
#[test]
fn maps_and_vectors_live_in_a_fixed_arena_and_a_local_handle() {
    let mut buf = [std::mem::MaybeUninit::uninit(); 64 * 1024];
    let fixed = bumpdown::FixedArena::new(&mut buf);
    let mut map = hashbrown::HashMap::new_in(&fixed);
    map.extend((0..100u32).map(|i| (i, i * 3)));
    assert!((0..100).all(|i| map[&i] == i * 3));
    let before = fixed.used();
    let mut v = AVec::new_in(&fixed);
    v.push(0u64);
    v.extend(1..100u64);
    assert_eq!(v.iter().sum::<u64>(), 4950);
    // Grown in place each time (moving down over its own old bytes): the vector holds
    // one block, not one per growth step.
    assert!(fixed.used() - before < v.capacity() * 8 + 8, "{} bytes for {}", fixed.used() - before, v.capacity());
    fixed.check_invariants();

    let shared = bumpdown::SyncArena::new();
    let local = shared.local();
    let mut v = AVec::new_in(&local);
    v.extend(0..1000u32);
    assert_eq!(v.iter().sum::<u32>(), 499_500);
    let zeroed = allocator_api2::alloc::Allocator::allocate_zeroed(&&local, Layout::new::<[u64; 16]>()).unwrap();
    // SAFETY: a fresh zeroed block of 128 bytes.
    assert!(unsafe { zeroed.as_ref() }.iter().all(|&b| b == 0));
    local.check_invariants();
    shared.check_invariants();
}
