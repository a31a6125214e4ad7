//! The bump arithmetic, on plain addresses.
//!
//! Nothing here is `unsafe` and nothing imports more than `core`, so tests and fuzz
//! targets can drive these functions directly. Every function answers one question:
//! "given the free range `bottom..top`, where does an allocation of this shape start?"
//! and returns `None` when it does not fit. None of them can wrap around: each states
//! which facts about its inputs make its subtractions safe.
//!
//! Two directions: upwards (`bump_up*`: `Arena`, its scopes, `FixedArena`, `VmArena`,
//! whose free range is `ptr..end`, see the section on bumping upwards below) and
//! downwards (`bump`, `bump_small`, `bump_array`, `bump_checked`: a `SyncArena`'s
//! handles, and an out-of-band chunk's single block, placed at the chunk's end).
//!
//! # The free range, downwards
//! A downward range has its free bytes in `bottom..top`; allocations take bytes from
//! the top end, so the bump pointer moves down (seed "always bump downwards":
//! rounding down needs no overflow check). Two facts hold for every such free range,
//! and the fast paths lean on them:
//!
//! * `MIN_BOTTOM <= bottom <= top`: no usable byte lies below address [`MIN_BOTTOM`]
//!   (chunks that start lower are clipped; the empty arena points at a static aligned
//!   to `MIN_BOTTOM`), so `top - size` cannot wrap for any `size <= MIN_BOTTOM`.
//! * `bottom % CHUNK_ALIGN == 0`: rounding an address `>= bottom` down to any
//!   alignment `<= CHUNK_ALIGN` keeps it `>= bottom`.
#![forbid(unsafe_code)]

/// No arena ever bumps below this address. Sizes up to it need no overflow check.
pub const MIN_BOTTOM: usize = 4096;

/// Alignment of every chunk's usable range. Allocations aligned to at most this
/// much need a single comparison even when their size is only known at run time.
pub const CHUNK_ALIGN: usize = 16;

/// Rounds `n` up to a multiple of the power of two `align`. The caller makes sure
/// `n + align - 1` does not overflow.
#[inline(always)]
pub const fn round_up(n: usize, align: usize) -> usize {
    // `n + (align - 1)`, not `n + align - 1`: the latter overflows for `n = usize::MAX`
    // with `align = 1`, which the precondition allows (found by the `bumping` fuzz target).
    (n + (align - 1)) & !(align - 1)
}

/// Rounds `n` up to a multiple of the power of two `align`, or `None` when that overflows.
#[inline(always)]
pub const fn checked_round_up(n: usize, align: usize) -> Option<usize> {
    match n.checked_add(align - 1) {
        Some(m) => Some(m & !(align - 1)),
        None => None,
    }
}

/// Rounds `n` down to a multiple of the power of two `align`.
#[inline(always)]
pub const fn round_down(n: usize, align: usize) -> usize {
    n & !(align - 1)
}

/// Bump for a size known at compile time: `size <= MIN_BOTTOM`.
///
/// With `size`, `align` and `min_align` constant, this folds to one subtraction, an
/// optional `and`, and one comparison: the only branch of the fast path. `top` must be
/// a multiple of `min_align`; the result is too.
#[inline(always)]
pub fn bump_small(top: usize, bottom: usize, size: usize, align: usize, min_align: usize) -> Option<usize> {
    debug_assert!(size <= MIN_BOTTOM && MIN_BOTTOM <= bottom && bottom <= top);
    // Folds: `size` and `min_align` are constants.
    let size = round_up(size, min_align);
    // Cannot wrap: top >= bottom >= MIN_BOTTOM >= size (rounding keeps size <= MIN_BOTTOM
    // because MIN_BOTTOM is a multiple of every supported `min_align`).
    let new_top = top - size;
    // Folds: when the type needs no more than the arena keeps, `top` is already aligned.
    let new_top = if align > min_align { round_down(new_top, align) } else { new_top };
    if new_top >= bottom {
        Some(new_top)
    } else {
        None
    }
}

/// Bump for any size, known or not at compile time, with `align` a power of two.
///
/// One comparison when `align <= CHUNK_ALIGN` (the `if`s on `align` fold for constant
/// alignments), two otherwise. `top` must be a multiple of `min_align`; the result is too.
#[inline(always)]
pub fn bump(top: usize, bottom: usize, size: usize, align: usize, min_align: usize) -> Option<usize> {
    debug_assert!(MIN_BOTTOM <= bottom && bottom <= top);
    debug_assert!(bottom % CHUNK_ALIGN == 0 && top % min_align == 0);
    // Never wraps: bottom <= top.
    let available = top - bottom;
    if size > available {
        return None;
    }
    // No overflow: size <= available < usize::MAX - CHUNK_ALIGN. The rounded size still
    // fits, because `available` is a multiple of `min_align` (both ends are).
    let new_top = top - round_up(size, min_align);
    if align <= min_align {
        Some(new_top)
    } else if align <= CHUNK_ALIGN {
        // `bottom` is a multiple of `align`, so rounding down cannot pass it.
        Some(round_down(new_top, align))
    } else {
        let new_top = round_down(new_top, align);
        if new_top >= bottom {
            Some(new_top)
        } else {
            None
        }
    }
}

/// Bump for `len` elements of `elem_size` bytes each (`elem_size > 0`), with the
/// multiplication folded into the capacity check: `len * elem_size` is only computed
/// once it is known to fit, so it cannot overflow.
#[inline(always)]
pub fn bump_array(
    top: usize,
    bottom: usize,
    len: usize,
    elem_size: usize,
    align: usize,
    min_align: usize,
) -> Option<usize> {
    debug_assert!(elem_size > 0 && MIN_BOTTOM <= bottom && bottom <= top);
    // Division by a constant folds into a shift or a multiply.
    if len > (top - bottom) / elem_size {
        return None;
    }
    bump(top, bottom, len * elem_size, align, min_align)
}

/// Bump with every step checked, for the slow path and for free ranges that do not
/// promise the facts above (an out-of-band chunk, a clipped chunk).
#[inline]
pub fn bump_checked(top: usize, bottom: usize, size: usize, align: usize, min_align: usize) -> Option<usize> {
    let size = size.checked_add(min_align - 1)? & !(min_align - 1);
    let new_top = round_down(top.checked_sub(size)?, align.max(min_align));
    if new_top >= bottom && bottom <= top {
        Some(new_top)
    } else {
        None
    }
}

// ----- Bumping upwards: `Arena`, `FixedArena`, `VmArena` ---------------------------------
//
// An upward face hands out bytes from the low end of its free range `top..end` (an
// `Arena`'s `ptr..end`), so that the newest block can grow in place and consecutive
// blocks are written in the direction `memcpy` writes. Its ranges promise:
//
// * `top <= end <= MAX_END = isize::MAX`: adding a type's alignment (at most 2^29) and a
//   size of at most `MIN_BOTTOM` to `top` cannot wrap;
// * `end % CHUNK_ALIGN == 0` and `top % min_align == 0`.

/// The highest address an upward range may end at.
pub const MAX_END: usize = isize::MAX as usize;

/// How far above its bump pointer each `VmArena` allocation (and the C header's
/// `bd_vm_alloc`, as `BD_VM_PREFETCH_AHEAD`) asks the CPU to start loading a
/// cache line: 2 KiB, 32 lines ahead.
///
/// An arena writes lines it has not touched for a long time, so every new line is a
/// cache miss, and the hardware prefetchers only follow a stream once it is under way
/// (and never across a 4 KiB page). One prefetch instruction per allocation keeps the
/// misses in flight ahead of the program's stores. On the seed-004 warm pass (640 MB of
/// 64-byte allocations over pages already written once; 2-core Xeon VM) it took the
/// arena from 10.0-13.8 ns per allocation to 6.8-8.0 ns, below the 10.9-12.8 ns of a
/// bare pointer bump with no checks at all; 1 KiB gave 7.4-8.8 ns. A prefetch never
/// faults, so a line past the committed part (or past the reservation) is harmless.
pub const PREFETCH_AHEAD: usize = 2048;

/// The smallest value (`alloc` and `alloc_with` of a type this large or larger) for which
/// the arenas that bump upwards and do not prefetch on every allocation (`Arena`, its
/// scopes, `FixedArena`) prefetch [`PREFETCH_AHEAD`] bytes ahead of the block: one
/// instruction, folded away for smaller types. Measured (report, 2-core AMD EPYC VM),
/// `alloc` of a 1 KiB struct: stack-local 42.7 -> 32.9 ns (`VmArena` 34.9 / 37.2 in the
/// same runs), through `&Arena` 30.2 -> 26.1 ns (`VmArena` 24.2 / 26.8), a fresh arena
/// per sample 84 -> 63 ns (bump-scope 53 / 57). At 512 bytes the fresh-arena row got
/// slower (32 -> 38-41 ns) and the warm ones did not move, so smaller values do not.
pub(crate) const PREFETCH_VALUE: usize = 1024;

/// Upward bump for a type's size and alignment known at compile time (`size <= MIN_BOTTOM`,
/// `align <= 1 << 29`, and `size` a multiple of `align`, as for every Rust type): returns
/// where the block starts.
///
/// The block's end is computed first, `round_up(top + size, align)`: because the size is
/// a multiple of the alignment, that is the aligned start plus the size, so the start is
/// the end minus a constant (an addressing-mode displacement for the store that follows),
/// and the end is the new bump pointer. With constants this folds to one `add`, an `and`
/// when `align > min_align`, and one comparison: as short as bumping down, where the size
/// and the rounding share one subtraction.
#[inline(always)]
pub fn bump_up_small(top: usize, end: usize, size: usize, align: usize, min_align: usize) -> Option<usize> {
    debug_assert!(size <= MIN_BOTTOM && align <= 1 << 29 && top <= end && end <= MAX_END);
    debug_assert!(size % align == 0, "bump_up_small takes a type's size, a multiple of its alignment");
    // Folds: constants. The rounded size is a multiple of `max(align, min_align)`: of
    // `min_align` by rounding, and of `align` because `size` is (when `align >= min_align`,
    // `size` is already a multiple of `min_align` too).
    let size = round_up(size, min_align);
    // Cannot wrap: top <= MAX_END, and the size and alignment added are small.
    let stop = if align > min_align { round_up(top + size, align) } else { top + size };
    if stop <= end {
        // `stop - size` is `round_up(top, align)` (see above): at or above `top`.
        Some(stop - size)
    } else {
        None
    }
}

/// Upward bump for any size and power-of-two alignment: returns where the block starts.
#[inline(always)]
pub fn bump_up(top: usize, end: usize, size: usize, align: usize, min_align: usize) -> Option<usize> {
    debug_assert!(top <= end && end <= MAX_END && end % CHUNK_ALIGN == 0 && top % min_align == 0);
    let start = if align <= min_align {
        top
    } else if align <= CHUNK_ALIGN {
        // `end` is a multiple of `align`, so rounding `top <= end` up stays `<= end`.
        round_up(top, align)
    } else {
        let start = top.checked_add(align - 1)? & !(align - 1);
        if start > end {
            return None;
        }
        start
    };
    // `end - start` is a multiple of `min_align` (both are), so a size that fits still
    // fits once rounded up to it.
    if size <= end - start {
        Some(start)
    } else {
        None
    }
}

/// [`bump_up`] for a `size` of at most `isize::MAX` (a `Layout`'s, or a slice's
/// `size_of_val`). On 64-bit targets `start + size` rounded up to `min_align` cannot wrap
/// (`start <= end <= MAX_END` is a multiple of `min_align`, so the sum stays below
/// `usize::MAX`), so the fit is one addition, whose sum is the new top, and one comparison
/// with `end`, where `bump_up`'s `size <= end - start` takes a subtraction more. Elsewhere
/// it is `bump_up`'s test: on a 32-bit target a buffer may lie above `isize::MAX` (RAM
/// mapped at 0xC000_0000, say), and there the sum could wrap.
#[inline(always)]
pub fn bump_up_sized(top: usize, end: usize, size: usize, align: usize, min_align: usize) -> Option<usize> {
    debug_assert!(size <= isize::MAX as usize);
    let start = bump_up(top, end, 0, align, min_align)?;
    let fits =
        if cfg!(target_pointer_width = "64") { start + round_up(size, min_align) <= end } else { size <= end - start };
    if fits {
        Some(start)
    } else {
        None
    }
}

/// Upward bump for `len` elements of `elem_size > 0` bytes: returns where the block
/// starts. `len * elem_size` is only computed once it is known to fit.
#[inline(always)]
pub fn bump_up_array(
    top: usize,
    end: usize,
    len: usize,
    elem_size: usize,
    align: usize,
    min_align: usize,
) -> Option<usize> {
    debug_assert!(elem_size > 0);
    let start = bump_up(top, end, 0, align, min_align)?;
    if len > (end - start) / elem_size {
        return None;
    }
    Some(start)
}

// ----- Bumping down with atomics: `SyncArena` --------------------------------------------
//
// A shared chunk's `top` is an atomic that many threads subtract from (or, in an
// exclusive lane's window, that one thread loads and stores: `bump_owned`). Its range
// `bottom..bottom + span` promises `bottom + span` does not overflow and
// `bottom % word == 0`; `top` may be anywhere
// (a failed `fetch_sub` leaves it below `bottom`, even wrapped), so these functions check
// the range themselves.

/// The start of a block of `size` bytes (already a multiple of the chunk's word) taken
/// by a `fetch_sub(size)` that returned `old`, from the range `bottom..bottom + span`; or
/// `None` when the block did not fit (the subtraction then only moved `top` out of
/// range, where every later one fails too).
///
/// One wrapping subtraction and two comparisons: a `top` outside `bottom..=bottom + span`
/// makes the wrapping difference exceed `span` too.
#[inline(always)]
pub fn bump_fetched(old: usize, bottom: usize, span: usize, size: usize) -> Option<usize> {
    let available = old.wrapping_sub(bottom);
    if available >= size && available <= span {
        // `old - size >= bottom`: no wrap.
        Some(old - size)
    } else {
        None
    }
}

/// How many bytes a `fetch_sub` must take for `size` bytes (a multiple of `word`)
/// aligned to `align` (a power of two, at most `CHUNK_ALIGN`), below a `top` that is a
/// multiple of `word`: the size, plus `align - word` when the alignment is larger, so
/// that an aligned start lies inside the bytes taken whatever `top` was.
#[inline(always)]
pub fn fetched_take(size: usize, align: usize, word: usize) -> usize {
    debug_assert!(size % word == 0 && align <= CHUNK_ALIGN);
    size + (align.max(word) - word)
}

/// The aligned start of a block of `size` bytes taken by a `fetch_sub(take)` (see
/// [`fetched_take`]) that returned `old`, a multiple of `word`; `None` when it did not
/// fit (as [`bump_fetched`]).
///
/// One more `and` than `bump_fetched` for a type aligned more than `word`, and none
/// otherwise: `old - size` is then already aligned.
#[inline(always)]
pub fn bump_fetched_aligned(
    old: usize,
    bottom: usize,
    span: usize,
    take: usize,
    size: usize,
    align: usize,
) -> Option<usize> {
    // The bytes taken are `start..old`, `start = old - take`.
    bump_fetched(old, bottom, span, take)?;
    // `old >= take >= size`, and `old - size` is a multiple of `word`, so rounding it
    // down to `align` drops at most `align - word` bytes: it stays at or above
    // `old - take`, and the block ends at most at `old`.
    Some(round_down(old - size, align))
}

/// For a compare-and-swap loop: the new `top` (the block's start) for `size` bytes
/// aligned to `align.max(word)` below a `top` read from the atomic, in the range
/// `bottom..bottom + span`; `None` if they do not fit (or `top` is out of range).
#[inline(always)]
pub fn bump_shared(top: usize, bottom: usize, span: usize, size: usize, align: usize, word: usize) -> Option<usize> {
    // As in `bump_fetched`: one comparison covers a `top` on either side of the range.
    let available = top.wrapping_sub(bottom);
    if available > span || size > available {
        return None;
    }
    let new_top = round_down(top - size, align.max(word));
    if new_top >= bottom {
        Some(new_top)
    } else {
        None
    }
}

/// For a `top` that only one thread writes (an exclusive lane's window): the new `top`
/// (the block's start) for `size` bytes aligned to `align.max(word)`, or `None` when they
/// do not fit, in which case the caller writes nothing. Here `top` is always in range:
/// `bottom <= top <= bottom + span` and `top % word == 0`, which a `top` of 0 with an
/// empty range (the sentinel: `bottom == span == 0`) satisfies too.
///
/// A small request aligned to at most `CHUNK_ALIGN` costs one comparison, as for
/// [`bump_fetched_aligned`]: it needs room for [`fetched_take`] bytes, so that the start,
/// `top - size` rounded down to `align`, stays at or above `bottom` whatever `top` is
/// (a 16-aligned block may so be refused when it would just fit; the caller then
/// refills). Anything else goes through [`bump_shared`]'s checks.
#[inline(always)]
pub fn bump_owned(top: usize, bottom: usize, span: usize, size: usize, align: usize, word: usize) -> Option<usize> {
    debug_assert!(bottom <= top && top - bottom <= span && top % word == 0, "top {top:#x} out of range");
    if align <= CHUNK_ALIGN && size <= MIN_BOTTOM {
        let size = round_up(size, word);
        // `top >= bottom`: no wrap.
        if top - bottom < fetched_take(size, align, word) {
            return None;
        }
        // `top - size >= bottom`; both are multiples of `word`, so rounding down to
        // `align` drops at most `align - word`, which the take covers.
        return Some(if align > word { round_down(top - size, align) } else { top - size });
    }
    bump_shared(top, bottom, span, size, align, word)
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: usize = MIN_BOTTOM;

    /// The three fast functions agree with the checked one wherever their
    /// preconditions hold.
    #[test]
    fn fast_bumps_agree_with_checked() {
        let tops = [B, B + 1, B + 16, B + 17, B + 100, B + 4096, B + 5000];
        for &top_raw in &tops {
            for min_align in [1, 2, 4, 8, 16] {
                let top = round_down(top_raw, min_align).max(B);
                for size in [0, 1, 2, 3, 7, 8, 15, 16, 17, 64, 100, 4095, 4096] {
                    for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
                        let want = bump_checked(top, B, size, align, min_align);
                        assert_eq!(bump(top, B, size, align, min_align), want, "{top} {size} {align} {min_align}");
                        assert_eq!(bump_small(top, B, size, align, min_align), want);
                        if size > 0 && size % 4 == 0 {
                            assert_eq!(bump_array(top, B, size / 4, 4, align, min_align), want);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn results_are_aligned_and_inside() {
        for size in 0..200 {
            for align in [1, 2, 4, 8, 16, 32, 64, 128] {
                if let Some(p) = bump(B + 1000, B, size, align, 8) {
                    assert_eq!(p % align.max(8), 0);
                    assert!(p >= B && p + size <= B + 1000);
                }
            }
        }
    }

    #[test]
    fn huge_requests_fail_without_wrapping() {
        let top = B + 64;
        for size in [usize::MAX, usize::MAX - 1, isize::MAX as usize, top, top + 1, 65] {
            assert_eq!(bump(top, B, size, 1, 1), None);
            assert_eq!(bump(top, B, size, 4096, 16), None);
            assert_eq!(bump_checked(top, B, size, 1, 1), None);
        }
        assert_eq!(bump_array(top, B, usize::MAX, 8, 8, 1), None);
        assert_eq!(bump_array(top, B, usize::MAX / 2 + 1, 2, 2, 1), None);
        assert_eq!(bump_array(top, B, 8, 8, 8, 1), Some(B));
        assert_eq!(bump_checked(top, B, 1, 1 << 40, 1), None);
    }

    #[test]
    fn empty_range_fails_every_nonzero_request() {
        for size in 1..=MIN_BOTTOM {
            assert_eq!(bump_small(B, B, size, 1, 1), None);
            assert_eq!(bump(B, B, size, 1, 1), None);
        }
        // Zero bytes fit anywhere they are aligned.
        assert_eq!(bump(B, B, 0, 16, 1), Some(B));
    }
    #[test]
    fn checked_round_up_rounds_or_says_it_overflows() {
        for align in [1, 2, 16, 4096] {
            for n in [0, 1, 15, 16, 17, 4095, 4096, 4097] {
                assert_eq!(checked_round_up(n, align), Some(round_up(n, align)));
            }
            assert_eq!(checked_round_up(usize::MAX - (align - 1), align), Some(usize::MAX - (align - 1)));
        }
        assert_eq!(checked_round_up(usize::MAX, 1), Some(usize::MAX));
        assert_eq!(checked_round_up(usize::MAX, 2), None);
        assert_eq!(checked_round_up(usize::MAX - 4094, 4096), None);
    }

    /// The upward bumps agree with a checked model wherever their preconditions hold.
    #[test]
    fn upward_bumps_agree_with_a_model() {
        let model = |top: usize, end: usize, size: usize, align: usize, min: usize| -> Option<usize> {
            let align = align.max(min);
            let start = top.checked_add(align - 1)? & !(align - 1);
            let stop = start.checked_add(size.checked_add(min - 1)? & !(min - 1))?;
            (stop <= end).then_some(start)
        };
        let end = B + 4096;
        for top_raw in [B, B + 1, B + 16, B + 17, B + 100, B + 4000, end] {
            for min_align in [1, 2, 4, 8, 16] {
                let top = round_down(top_raw, min_align).max(B);
                for size in [0, 1, 2, 3, 7, 8, 15, 16, 17, 64, 100, 4095, 4096, isize::MAX as usize, usize::MAX] {
                    for align in [1, 2, 4, 8, 16, 32, 64, 4096, 1 << 40] {
                        let want = model(top, end, size, align, min_align);
                        assert_eq!(bump_up(top, end, size, align, min_align), want, "{top} {size} {align}");
                        if size <= MIN_BOTTOM && align <= 1 << 29 && size % align == 0 {
                            assert_eq!(bump_up_small(top, end, size, align, min_align), want);
                        }
                        if size > 0 && size % 4 == 0 && size != usize::MAX {
                            assert_eq!(bump_up_array(top, end, size / 4, 4, align, min_align), want);
                        }
                        if size <= isize::MAX as usize {
                            assert_eq!(bump_up_sized(top, end, size, align, min_align), want);
                        }
                    }
                }
            }
        }
        assert_eq!(bump_up_array(B, end, usize::MAX, 8, 8, 1), None);
    }

    /// The over-taking `fetch_sub` of aligned types always lands an aligned block inside
    /// the bytes it took, and fails exactly when they do not fit.
    #[test]
    fn fetched_aligned_blocks_lie_inside_what_was_taken() {
        let (bottom, end, word) = (B, B + 4096, 8);
        for top in (bottom..=end).step_by(word).chain([0, 8, B - 8, end + 8]) {
            for size in [8, 16, 24, 64, 1000, 4096] {
                for align in [1, 8, 16] {
                    let take = fetched_take(size, align, word);
                    let got = bump_fetched_aligned(top, bottom, end - bottom, take, size, align);
                    let fits = top.checked_sub(take).is_some_and(|s| s >= bottom && top <= end);
                    assert_eq!(got.is_some(), fits, "{top} {size} {align}");
                    if let Some(p) = got {
                        assert!(p % align == 0 && p >= top - take && p + size <= top, "{top} {size} {align}");
                    }
                }
            }
        }
    }

    /// The atomic helpers agree with a checked model, for `top` anywhere (a failed
    /// `fetch_sub` leaves it below the range, wrapped or not).
    #[test]
    fn shared_bumps_agree_with_a_model() {
        let (bottom, end, word) = (B, B + 4096, 8);
        for top in [0, 1, B - 8, B, B + 8, B + 1000, end - 8, end, end + 8, usize::MAX - 7] {
            for size in [8, 16, 64, 1000, 4096, 4104] {
                let model = top.checked_sub(size).filter(|&s| s >= bottom && top <= end);
                assert_eq!(bump_fetched(top, bottom, end - bottom, size), model, "fetched {top} {size}");
                for align in [1, 8, 16, 64, 4096] {
                    let want = model.map(|s| round_down(s, align.max(word))).filter(|&s| s >= bottom);
                    assert_eq!(
                        bump_shared(top, bottom, end - bottom, size, align, word),
                        want,
                        "shared {top} {size} {align}"
                    );
                }
            }
        }
    }

    /// The owner's bump, for every `top` in range: a block it hands out is aligned and
    /// inside `bottom..top`; it refuses only what does not fit, or (aligned to 16) what
    /// fits with less than 8 bytes to spare; and an empty range (the sentinel, `top`
    /// 0) refuses everything.
    #[test]
    fn owned_bumps_fit_or_refuse() {
        let (bottom, end, word) = (B, B + 4096, 8);
        // Every word-aligned top; under Miri every fifth, which still meets every word
        // offset modulo 128 (5 and 16 are coprime), though not modulo 4096.
        for top in (bottom..=end).step_by(if cfg!(miri) { 5 * word } else { word }) {
            for size in [1, 7, 8, 9, 16, 24, 64, 1000, 4096, 4097, 10_000, usize::MAX] {
                for align in [1, 2, 8, 16, 32, 128, 4096] {
                    let got = bump_owned(top, bottom, end - bottom, size, align, word);
                    if let Some(p) = got {
                        assert!(p % align.max(word) == 0 && p >= bottom, "{top} {size} {align}");
                        assert!(p.checked_add(size).is_some_and(|e| e <= top), "{top} {size} {align}");
                    }
                    if align > CHUNK_ALIGN || size > MIN_BOTTOM {
                        assert_eq!(got, bump_shared(top, bottom, end - bottom, size, align, word));
                    } else if got.is_none() {
                        let exact = bump_shared(top, bottom, end - bottom, round_up(size, word), align, word);
                        assert!(
                            exact.is_none_or(|p| align == 16 && p - bottom < 8),
                            "refused a fit: {top} {size} {align}"
                        );
                    }
                }
            }
        }
        for size in [1, 8, 16, 4096, 4097] {
            for align in [1, 8, 16, 4096] {
                assert_eq!(bump_owned(0, 0, 0, size, align, word), None, "the sentinel gave {size} {align}");
            }
        }
    }
}
