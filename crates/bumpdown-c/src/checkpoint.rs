//! `bd_checkpoint`: a core [`Checkpoint`] carried through C as plain bytes.
//!
//! Word 0 is a check word over the other seven, which hold the checkpoint (and zeros
//! after it, if it is shorter: C's struct keeps its size when the core's shrinks). A struct
//! that `bd_checkpoint_save` did not fill (zeroed, uninitialized, edited) fails the check
//! and is refused before its bytes are read as a `Checkpoint`, whose pointers the core
//! trusts once the arena id and serial match. The check is a guard against mistakes,
//! not against forgery.
//!
//! The bytes are only ever written and read in place, never copied by Rust as `u64`s,
//! so the checkpoint's pointers keep their provenance between the two.

use core::ffi::c_int;
use core::mem::{align_of, size_of, MaybeUninit};

use bumpdown::{AllocError, Checkpoint, RewindError};

use crate::errors::{
    alloc_errno, fail, guard, rewind_code, set_errno, BD_ERR_BAD_CHECKPOINT, BD_ERR_INTERNAL, BD_ERR_NOMEM, BD_OK,
};

/// A saved position of an arena, as C holds it (see `bumpdown.h`).
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct bd_checkpoint {
    /// Word 0: the check word; words 1..8: the checkpoint's bytes.
    pub opaque_: [MaybeUninit<u64>; 8],
}

/// Words of the core's checkpoint: 8-byte fields (the chunk and bump pointers, a serial,
/// an arena id) with no padding, so every word it covers is initialized once it is
/// written. If the core's checkpoint outgrows the seven payload words, or gains padding,
/// this fails to compile and the encoding must be revisited.
const CHECKPOINT_WORDS: usize = size_of::<Checkpoint>() / size_of::<u64>();
const _: () = assert!(
    size_of::<Checkpoint>() == CHECKPOINT_WORDS * size_of::<u64>()
        && CHECKPOINT_WORDS <= 7
        && align_of::<Checkpoint>() <= align_of::<u64>()
);

/// Mixes the seven checkpoint words into the check word.
fn check_word(words: [u64; 7]) -> u64 {
    let mut h: u64 = 0x6264_6370_6b74_0001; // "bdcpkt", version 1
    for w in words {
        h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^= h >> 29;
    }
    h
}

/// Reads words 1..8 as integers.
///
/// # Safety
/// `cp` points at a `bd_checkpoint` whose 64 bytes are initialized.
unsafe fn payload_words(cp: *const bd_checkpoint) -> [u64; 7] {
    let words = cp.cast::<u64>();
    // SAFETY: in bounds of the struct (8 words), aligned, initialized (the caller).
    core::array::from_fn(|i| unsafe { words.add(1 + i).read() })
}

/// Writes `checkpoint` into `*out`.
///
/// # Safety
/// `out` is valid for writes of a `bd_checkpoint`.
pub(crate) unsafe fn store(out: *mut bd_checkpoint, checkpoint: Checkpoint) {
    let words = out.cast::<u64>();
    // SAFETY: `out` is valid for 8 aligned words (the caller); the checkpoint fills words
    // 1..1 + CHECKPOINT_WORDS exactly (the assertion above) and zeros fill the rest,
    // leaving no byte uninitialized.
    unsafe {
        for i in 1 + CHECKPOINT_WORDS..8 {
            words.add(i).write(0);
        }
        words.add(1).cast::<Checkpoint>().write(checkpoint);
        words.write(check_word(payload_words(out)));
    }
}

/// The checkpoint in `*cp`, or `None` if its check word does not match.
///
/// # Safety
/// `cp` is valid for reads of a `bd_checkpoint` with all 64 bytes initialized (any C
/// object of that type that was ever assigned).
pub(crate) unsafe fn load(cp: *const bd_checkpoint) -> Option<Checkpoint> {
    // SAFETY: valid and initialized (the caller).
    let (check, payload) = unsafe { (cp.cast::<u64>().read(), payload_words(cp)) };
    if check != check_word(payload) {
        return None;
    }
    // SAFETY: the check word matches, so `store` wrote these bytes from a `Checkpoint`
    // (up to the chance of a collision, which the C contract excludes: the bytes come from
    // `bd_checkpoint_save`, unmodified); every bit pattern of its integer and pointer fields
    // is a valid value.
    Some(unsafe { cp.cast::<u64>().add(1).cast::<Checkpoint>().read() })
}

/// What `bd_checkpoint_save` and `bd_vm_checkpoint_save` do once their pointers are
/// checked: store the arena's checkpoint in `*out` (`BD_ERR_NOMEM` if there is none).
///
/// # Safety
/// `out` is valid for writes of a `bd_checkpoint`.
pub(crate) unsafe fn save(
    out: *mut bd_checkpoint,
    checkpoint: impl FnOnce() -> Result<Checkpoint, AllocError>,
) -> c_int {
    guard(BD_ERR_INTERNAL, || match checkpoint() {
        Ok(cp) => {
            // SAFETY: `out` is valid for writes (the caller).
            unsafe { store(out, cp) };
            BD_OK
        }
        Err(err) => {
            set_errno(alloc_errno(err));
            BD_ERR_NOMEM
        }
    })
}

/// What `bd_rewind` and `bd_vm_rewind` do once their pointers are checked: load `*cp`
/// and `rewind` the arena to it, with the result code C gets.
///
/// # Safety
/// `cp` points at an initialized `bd_checkpoint`.
pub(crate) unsafe fn rewind(
    cp: *const bd_checkpoint,
    rewind: impl FnOnce(Checkpoint) -> Result<(), RewindError>,
) -> c_int {
    guard(BD_ERR_INTERNAL, || {
        // SAFETY: an initialized checkpoint struct (the caller).
        let Some(cp) = (unsafe { load(cp) }) else { return fail(BD_ERR_BAD_CHECKPOINT) };
        match rewind(cp) {
            Ok(()) => BD_OK,
            Err(err) => fail(rewind_code(err)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejections() {
        let arena = bumpdown::Arena::new();
        let cp = arena.checkpoint();
        let mut c = bd_checkpoint { opaque_: [MaybeUninit::new(0); 8] };
        // A zeroed struct is refused.
        // SAFETY: all 64 bytes are initialized (zeroed).
        assert!(unsafe { load(&c) }.is_none());
        // SAFETY: `c` is writable; then initialized by `store`.
        unsafe { store(&mut c, cp) };
        // SAFETY: written by `store` just above.
        assert_eq!(unsafe { load(&c) }, Some(cp));
        // Any changed bit of the payload or the check word is refused.
        for word in 0..8 {
            for bit in [0, 17, 63] {
                let mut bad = bd_checkpoint { opaque_: c.opaque_ };
                // SAFETY: every word was written by `store`.
                let w = unsafe { bad.opaque_[word].assume_init() };
                bad.opaque_[word] = MaybeUninit::new(w ^ (1 << bit));
                // SAFETY: initialized, as above.
                assert!(unsafe { load(&bad) }.is_none(), "word {word} bit {bit}");
            }
        }
    }
}
