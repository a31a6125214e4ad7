//! bumpalo's `allocator_api` feature on a nightly compiler: `std`'s own collections in a
//! `&Bump` through the unstable `core::alloc::Allocator`. CI runs it with
//! `cargo +nightly test -p bumpdown-bumpalo --features allocator_api --test nightly_allocator`;
//! elsewhere it compiles to nothing.
#![cfg_attr(all(feature = "allocator_api", bumpdown_nightly), feature(allocator_api))]
#![cfg(all(feature = "allocator_api", bumpdown_nightly))]

use bumpdown_bumpalo::Bump;

#[test]
fn std_vec_and_box_live_in_a_bump() {
    let bump = Bump::new();
    let mut v: Vec<u64, &Bump> = Vec::new_in(&bump);
    v.extend(0..1000);
    assert_eq!(v.iter().sum::<u64>(), 499_500);
    // The arena served the vector: it holds at least its last buffer.
    assert!(bump.allocated_bytes() >= v.capacity() * 8);
    let b = Box::new_in([7u8; 100], &bump);
    assert!(b.iter().all(|&x| x == 7));
    v.shrink_to_fit();
    assert_eq!(v.len(), 1000);
}
