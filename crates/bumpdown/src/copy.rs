//! The copy into a fresh block of `alloc_slice_copy`, `alloc_str` and their kin: short
//! copies inline, long ones by `memcpy`.
//!
//! A copy whose length is known only at run time compiles to a call of `memcpy`, and
//! for the short slices and strings an arena mostly holds (names, tokens, small
//! arrays) that call is most of the allocation: the bench's speed table put every
//! contender at about 3.3 ns for any `alloc_str` of 8 to 64 bytes on the 2-core AMD
//! EPYC VM, against 0.55–0.85 ns for a string whose length the compiler knew. Up to
//! [`INLINE_MAX`] bytes [`copy_bytes`] makes two copies of the widest power of two not
//! above the length, one from each end (they may overlap), which is what `memcpy`
//! itself does for such sizes, without the call: no registers saved around it, no jump
//! through the GOT. Each of the two is a copy of a constant size, so where the length
//! is a constant too (a string literal) the compiler folds them into the copy it would
//! have made anyway. (Written as loads and stores of byte arrays instead, the same
//! literals took up to 1.8x longer: the compiler no longer recognised them as copies.)

use core::ptr;

/// The longest copy made inline; longer ones call `memcpy`.
const INLINE_MAX: usize = 64;

/// Copies `n` bytes from `src` to `dst`.
///
/// # Safety
/// As for [`ptr::copy_nonoverlapping`] of `n` bytes: `src` valid for reads and `dst` for
/// writes of `n` bytes, and the two ranges apart.
#[inline(always)]
pub(crate) unsafe fn copy_bytes(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: every arm is the caller's contract, and each `ends::<W>` is called with
    // `W <= n`, as it requires.
    unsafe {
        if n > INLINE_MAX {
            ptr::copy_nonoverlapping(src, dst, n);
        } else if n >= 16 {
            if n >= 32 {
                ends::<32>(src, dst, n);
            } else {
                ends::<16>(src, dst, n);
            }
        } else if n >= 4 {
            if n >= 8 {
                ends::<8>(src, dst, n);
            } else {
                ends::<4>(src, dst, n);
            }
        } else if n >= 2 {
            ends::<2>(src, dst, n);
        } else if n == 1 {
            *dst = *src;
        }
    }
}

/// Copies the first `W` and the last `W` of `n` bytes, which together are all of them
/// when `W <= n <= 2 * W` (they overlap unless `n == 2 * W`, and the overlap is written
/// twice with the same bytes). Each is a copy of a constant size, which the compiler
/// makes with one load and one store, or merges with the other where `n` is a constant
/// too.
///
/// # Safety
/// `W <= n`, and the contract of [`copy_bytes`].
#[inline(always)]
unsafe fn ends<const W: usize>(src: *const u8, dst: *mut u8, n: usize) {
    debug_assert!(W <= n && n <= 2 * W);
    // SAFETY: `0..W` and `n - W..n` lie inside both ranges (`W <= n`), which are apart.
    unsafe {
        ptr::copy_nonoverlapping(src, dst, W);
        ptr::copy_nonoverlapping(src.add(n - W), dst.add(n - W), W);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_every_length_to_every_offset_and_nothing_else() {
        let src: [u8; 160] = core::array::from_fn(|i| i as u8 ^ 0xa5);
        for n in 0..=INLINE_MAX + 40 {
            for offset in [0, 1, 7, 8, 13] {
                let mut dst = [0u8; 200];
                // SAFETY: `src[offset..offset + n]` and `dst[3..3 + n]` are in bounds and
                // in different arrays.
                unsafe { copy_bytes(src.as_ptr().add(offset), dst.as_mut_ptr().add(3), n) };
                assert_eq!(dst[3..3 + n], src[offset..offset + n], "length {n}, offset {offset}");
                assert!(dst[..3].iter().chain(&dst[3 + n..]).all(|&b| b == 0), "length {n} wrote outside");
            }
        }
    }
}
