//! Size classes, on plain numbers.
//!
//! Nothing here is `unsafe` and nothing imports more than `core` (and the core crate's
//! bump arithmetic, which imports only `core` too). A block's *chunk size*
//! is what the region hands out for a request: in recycling mode the size of the request's
//! class, in bump mode the request rounded up to [`GRAIN`]. Every chunk size but the tiny
//! class's is a multiple of [`GRAIN`].
//!
//! Classes: one [`TINY`] class of 8 bytes, then 16-byte steps up to 1 KiB (64 classes), then
//! eight per doubling up to [`CLASS_MAX`] (64 classes), so rounding wastes at most 15 bytes
//! below 1 KiB and at most a ninth of the block above it. (Four per doubling wasted up to a
//! fifth: `git log -p` keeps thousands of ~10.4 KB blocks, which took 12 KiB each, and ran
//! at 1.13x glibc's peak RSS; with eight they take 11 KiB.) The tiny class halves what a
//! short string or a boxed word costs (a JSON document's keys are mostly such strings); it
//! serves only requests aligned to at most 8 bytes, so it is never a C `malloc` block.
#![forbid(unsafe_code)]

/// Every chunk size but [`TINY`], and every window boundary, is a multiple of this.
pub const GRAIN: usize = 16;

/// The tiny class's chunk size: requests of at most 8 bytes aligned to at most 8.
pub const TINY: usize = 8;

/// Requests up to this size get 16-byte classes.
const SMALL_MAX: usize = 1024;

/// Number of 16-byte classes.
const SMALL_CLASSES: usize = SMALL_MAX / GRAIN;

/// `log2(SMALL_MAX)`: the first doubling with [`PER_DOUBLING`] classes starts here.
const FIRST_LOG: u32 = SMALL_MAX.trailing_zeros();

/// The largest size with a class. Recycling mode sends larger requests to the fallback.
pub const CLASS_MAX: usize = 256 << 10;

/// Classes per doubling above `SMALL_MAX`.
const PER_DOUBLING: usize = 8;

/// `log2(PER_DOUBLING)`.
const STEP_LOG: u32 = PER_DOUBLING.trailing_zeros();

/// Number of size classes: the tiny one, the 16-byte steps, `PER_DOUBLING` per doubling
/// above.
pub const CLASSES: usize = 1 + SMALL_CLASSES + PER_DOUBLING * (CLASS_MAX.trailing_zeros() - FIRST_LOG) as usize;

const _: () = assert!(SMALL_MAX.is_power_of_two() && CLASS_MAX.is_power_of_two() && PER_DOUBLING.is_power_of_two());
// Every step above SMALL_MAX is a multiple of GRAIN.
const _: () = assert!(SMALL_MAX >> STEP_LOG >= GRAIN);
const _: () = assert!(class_size(CLASSES - 1) == CLASS_MAX);

#[doc(inline)]
pub use bumpdown::bumping::{checked_round_up, round_up};

/// The class of a request of `size <= CLASS_MAX` bytes (sizes 0 to [`TINY`] share class 0).
/// A request aligned to more than [`TINY`] must not use class 0: see `chunk_size`.
#[inline(always)]
pub const fn class_of(size: usize) -> usize {
    debug_assert!(size <= CLASS_MAX);
    if size <= TINY {
        0
    } else if size <= SMALL_MAX {
        (size - 1) / GRAIN + 1
    } else {
        // size in (2^e, 2^(e+1)]  <=>  s = size - 1 in [2^e, 2^(e+1)), e >= FIRST_LOG.
        let s = size - 1;
        let e = usize::BITS - 1 - s.leading_zeros();
        let step = (s >> (e - STEP_LOG)) & (PER_DOUBLING - 1);
        1 + SMALL_CLASSES + PER_DOUBLING * (e - FIRST_LOG) as usize + step
    }
}

/// The class of a chunk size (a [`class_size`]): the same as [`class_of`], one shift for
/// chunks up to 1 KiB (whose class is their size over [`GRAIN`], the tiny one's 0).
#[inline(always)]
pub const fn class_of_chunk(csz: usize) -> usize {
    if csz <= SMALL_MAX {
        csz / GRAIN
    } else {
        class_of(csz)
    }
}

/// The chunk size of a request of `size <= CLASS_MAX` bytes aligned to `align`: the size
/// of its class, or of class 1 (16 bytes) when a tiny chunk would be under-aligned.
#[inline(always)]
pub const fn class_chunk(size: usize, align: usize) -> usize {
    if size <= SMALL_MAX {
        if size <= TINY && align <= TINY {
            TINY
        } else {
            // Size 0 takes a grain too: no two blocks start at the same address.
            (if size == 0 { 1 } else { size } + (GRAIN - 1)) & !(GRAIN - 1)
        }
    } else {
        class_size(class_of(size))
    }
}

/// The chunk size of class `class < CLASSES`.
#[inline(always)]
pub const fn class_size(class: usize) -> usize {
    if class == 0 {
        TINY
    } else if class <= SMALL_CLASSES {
        class * GRAIN
    } else {
        let j = class - 1 - SMALL_CLASSES;
        let e = FIRST_LOG as usize + j / PER_DOUBLING;
        (1 << e) + (j % PER_DOUBLING + 1) * (1 << (e - STEP_LOG as usize))
    }
}

/// The largest class whose size is at most `len`, or `None` when `len < TINY`.
/// Used to file spare pieces of memory (window tails, alignment gaps) as free blocks.
#[inline]
pub const fn floor_class(len: usize) -> Option<usize> {
    if len < TINY {
        return None;
    }
    if len >= CLASS_MAX {
        return Some(CLASSES - 1);
    }
    let c = class_of(len);
    if class_size(c) <= len {
        Some(c)
    } else {
        Some(c - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_fits_its_class_and_not_the_one_below() {
        for size in 0..=CLASS_MAX {
            let c = class_of(size);
            assert!(c < CLASSES, "size {size}");
            assert!(class_size(c) >= size, "size {size} class {c}");
            if c > 0 {
                assert!(class_size(c - 1) < size, "size {size} class {c}");
            }
            assert!(class_size(c) % GRAIN == 0 || class_size(c) == TINY);
        }
    }

    #[test]
    fn the_shortcuts_agree_with_the_classes() {
        for size in 0..=CLASS_MAX {
            for align in [1, 8, 16, 4096] {
                let csz = class_chunk(size, align);
                let expect = if size <= TINY && align > TINY { GRAIN } else { class_size(class_of(size)) };
                assert_eq!(csz, expect, "size {size} align {align}");
                assert_eq!(class_of_chunk(csz), class_of(csz), "size {size}");
            }
        }
    }

    #[test]
    fn classes_increase_and_waste_is_bounded() {
        for c in 1..CLASSES {
            assert!(class_size(c) > class_size(c - 1));
            assert_eq!(class_of(class_size(c)), c);
            // Worst case: one byte more than the class below.
            let worst = class_size(c - 1) + 1;
            assert!(class_size(c) - worst < worst / 8 + GRAIN, "class {c}");
        }
        assert_eq!(CLASSES, 129);
        assert_eq!((class_size(0), class_size(1), class_size(64), class_size(65)), (8, 16, 1024, 1152));
        // git's ~10.4 KB blocks: 11 KiB, not 12.
        assert_eq!(class_size(class_of(10_442)), 11 << 10);
    }

    #[test]
    fn floor_class_never_exceeds_the_length() {
        assert_eq!(floor_class(0), None);
        assert_eq!(floor_class(7), None);
        assert_eq!(floor_class(15), Some(0));
        for len in 8..=CLASS_MAX + 100 {
            let c = floor_class(len).unwrap();
            assert!(class_size(c) <= len, "len {len}");
            if c + 1 < CLASSES {
                assert!(class_size(c + 1) > len, "len {len}");
            }
        }
    }

    #[test]
    fn round_up_reports_overflow() {
        assert_eq!(checked_round_up(17, 16), Some(32));
        assert_eq!(checked_round_up(usize::MAX - 3, 16), None);
    }
}
