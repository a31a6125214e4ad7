//! The bump arithmetic (`bumpdown::bumping`: down, up and shared) against models in
//! `u128` or checked arithmetic, which cannot overflow: every fast function must give exactly the answer of the checked model
//! whenever its documented preconditions hold.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use bumpdown::bumping::{
    bump, bump_array, bump_checked, bump_fetched, bump_fetched_aligned, bump_shared, bump_small, bump_up,
    bump_up_array, bump_up_sized, bump_up_small, fetched_take, round_down, round_up, CHUNK_ALIGN, MAX_END, MIN_BOTTOM,
};
use libfuzzer_sys::fuzz_target;

/// Raw inputs; `Case::shape` bends them into each function's preconditions.
#[derive(Arbitrary, Debug)]
struct Raw {
    a: u64,
    b: u64,
    size: u64,
    len: u64,
    elem: u16,
    align_shift: u8,
    min_align_shift: u8,
    /// Picks small or huge numbers, so both the edges and the common case are reached.
    mode: u8,
}

fn pick(raw: u64, mode: u8) -> usize {
    match mode % 4 {
        0 => (raw % 64) as usize,
        1 => (raw % 70_000) as usize,
        2 => usize::MAX - (raw % 70_000) as usize,
        _ => raw as usize,
    }
}

/// Where a block of `size` bytes goes in `bottom..top` bumping down, by the book.
fn model_down(top: usize, bottom: usize, size: u128, align: usize, min_align: usize) -> Option<usize> {
    let size = size.div_ceil(min_align as u128) * min_align as u128;
    let new_top = (top as u128).checked_sub(size)?;
    let a = align.max(min_align) as u128;
    let new_top = new_top / a * a;
    (new_top >= bottom as u128 && bottom <= top).then_some(new_top as usize)
}

/// Where a block of `size` bytes starts in `top..end` bumping up, by the book.
fn model_up(top: usize, end: usize, size: u128, align: usize, min_align: usize) -> Option<usize> {
    let a = align.max(min_align) as u128;
    let start = (top as u128).div_ceil(a) * a;
    (start + size <= end as u128).then_some(start as usize)
}

fn check(raw: Raw) {
    let align = 1usize << (raw.align_shift % 40);
    let min_align = 1usize << (raw.min_align_shift % 5);
    let size = pick(raw.size, raw.mode);
    let len = pick(raw.len, raw.mode >> 2);
    let elem = usize::from(raw.elem).max(1);

    // Rounding.
    let n = raw.a as usize;
    assert_eq!(round_down(n, align) as u128, (n as u128) / align as u128 * align as u128);
    if n.checked_add(align - 1).is_some() {
        assert_eq!(round_up(n, align) as u128, (n as u128).div_ceil(align as u128) * align as u128);
    }

    // The checked bump takes anything.
    let (x, y) = (pick(raw.a, raw.mode >> 4), pick(raw.b, raw.mode >> 6));
    assert_eq!(bump_checked(x, y, size, align, min_align), model_down(x, y, size as u128, align, min_align));

    // Downward ranges as arenas make them: MIN_BOTTOM <= bottom <= top, bottom a multiple
    // of CHUNK_ALIGN, top a multiple of min_align.
    let bottom = round_down(pick(raw.a, raw.mode >> 4).max(MIN_BOTTOM), CHUNK_ALIGN).max(MIN_BOTTOM);
    let span = pick(raw.b, raw.mode >> 6);
    let top = round_down(bottom.saturating_add(span), min_align).max(bottom);
    let expect = model_down(top, bottom, size as u128, align, min_align);
    assert_eq!(
        bump(top, bottom, size, align, min_align),
        expect,
        "bump({top:#x}, {bottom:#x}, {size}, {align}, {min_align})"
    );
    if size <= MIN_BOTTOM {
        assert_eq!(bump_small(top, bottom, size, align, min_align), expect, "bump_small");
    }
    let total = len as u128 * elem as u128;
    let expect_array = model_down(top, bottom, total, align, min_align);
    assert_eq!(
        bump_array(top, bottom, len, elem, align, min_align),
        expect_array,
        "bump_array({top:#x}, {bottom:#x}, {len}, {elem})"
    );
    if let Some(p) = expect.or(expect_array) {
        assert!(p % align == 0 && p % min_align == 0 && p >= bottom && p <= top);
    }

    // Upward ranges as `VmArena` makes them: top <= end <= MAX_END, end a multiple of
    // CHUNK_ALIGN, top a multiple of min_align.
    let end = round_down(pick(raw.a, raw.mode >> 4).min(MAX_END), CHUNK_ALIGN);
    let top = round_down(end.saturating_sub(span), min_align);
    let expect = model_up(top, end, size as u128, align, min_align);
    assert_eq!(bump_up(top, end, size, align, min_align), expect, "bump_up({top:#x}, {end:#x}, {size}, {align})");
    // A type's size: a multiple of its alignment.
    if size <= MIN_BOTTOM && align <= 1 << 29 && size.is_multiple_of(align) {
        let small = model_up(top, end, size.div_ceil(min_align) as u128 * min_align as u128, align, min_align);
        assert_eq!(bump_up_small(top, end, size, align, min_align), small, "bump_up_small");
    }
    assert_eq!(
        bump_up_array(top, end, len, elem, align, min_align),
        model_up(top, end, total, align, min_align),
        "bump_up_array"
    );
    // A `Layout`'s or a slice's size: at most isize::MAX.
    if size <= isize::MAX as usize {
        assert_eq!(bump_up_sized(top, end, size, align, min_align), expect, "bump_up_sized");
    }

    // Shared ranges as `SyncArena` makes them: bottom <= end, bottom a multiple of its
    // word; `top` anywhere (a failed `fetch_sub` leaves it out of range, even wrapped).
    let word = 8;
    let bottom = round_down(pick(raw.a, raw.mode >> 4), word);
    let end = bottom.saturating_add(span);
    let top = pick(raw.b, raw.mode);
    let in_range = bottom <= top && top <= end;
    let word_size = size.div_ceil(word).saturating_mul(word);
    let fetched = (in_range && top - bottom >= word_size).then(|| top - word_size);
    assert_eq!(
        bump_fetched(top, bottom, end - bottom, word_size),
        fetched,
        "bump_fetched({top:#x}, {bottom:#x}, {end:#x})"
    );
    // The over-taking `fetch_sub` of a type aligned to at most 16, from a `top` that is a
    // multiple of the word (as a window's is): the block is aligned and lies inside the
    // bytes taken, exactly when they fit.
    if align <= CHUNK_ALIGN && word_size <= MIN_BOTTOM {
        let top = round_down(top, word);
        let take = fetched_take(word_size, align, word);
        let taken = (bottom <= top && top <= end && top - bottom >= take).then(|| top - take);
        let got = bump_fetched_aligned(top, bottom, end - bottom, take, word_size, align);
        assert_eq!(got.is_some(), taken.is_some(), "bump_fetched_aligned({top:#x}, {word_size}, {align})");
        if let (Some(p), Some(start)) = (got, taken) {
            assert!(p % align == 0 && p >= start && p + word_size <= top, "bump_fetched_aligned: {p:#x}");
        }
    }
    let shared =
        (in_range && top - bottom >= size).then(|| round_down(top - size, align.max(word))).filter(|&p| p >= bottom);
    assert_eq!(
        bump_shared(top, bottom, end - bottom, size, align, word),
        shared,
        "bump_shared({top:#x}, {size}, {align})"
    );
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    while let Ok(raw) = Raw::arbitrary(&mut u) {
        check(raw);
        if u.is_empty() {
            break;
        }
    }
});
