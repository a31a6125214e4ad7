//! AddressSanitizer annotations for `Arena` chunks. Compiled only with
//! `--cfg bumpdown_asan` and `-Zsanitizer=address` (nightly):
//!
//! ```text
//! RUSTFLAGS="-Zsanitizer=address --cfg bumpdown_asan" \
//!     cargo +nightly test -Zbuild-std --target x86_64-unknown-linux-gnu -p bumpdown
//! ```
//!
//! The free part of every chunk (`ptr..end`) and everything given back is
//! "poisoned" (unaddressable); moving the bump pointer up unpoisons the block handed
//! out, and a chunk is unpoisoned whole before it goes back to its allocator (or, for a
//! caller's buffer, back to the caller). A read or write through a pointer kept past a
//! reset, rewind or scope exit is then reported at that access.
//!
//! (`cfg(sanitize = "address")` is unstable, and stable rejects it even inside a
//! `cfg(all(..))` that is false, hence the separate `bumpdown_asan` switch guarding this
//! whole file.)

#[cfg(not(sanitize = "address"))]
compile_error!("--cfg bumpdown_asan needs -Zsanitizer=address");

extern "C" {
    fn __asan_poison_memory_region(addr: *const u8, size: usize);
    fn __asan_unpoison_memory_region(addr: *const u8, size: usize);
}

/// Marks `len` bytes at `start` unaddressable.
///
/// # Safety
/// The bytes belong to the arena and nothing may use them until unpoisoned.
#[inline]
pub(crate) unsafe fn poison(start: *mut u8, len: usize) {
    // SAFETY: the ASan runtime is linked (`-Zsanitizer=address`); it only updates its
    // shadow memory for the range, which is ours (the caller).
    unsafe { __asan_poison_memory_region(start, len) }
}

/// Marks `len` bytes at `start` addressable again.
///
/// # Safety
/// The bytes belong to the arena (or are handed back to their owner).
#[inline]
pub(crate) unsafe fn unpoison(start: *mut u8, len: usize) {
    // SAFETY: as for `poison`.
    unsafe { __asan_unpoison_memory_region(start, len) }
}

/// The bump pointer of a chunk that fills upwards moves from `old` to `new`: up hands
/// `old..new` out (unpoison), down gives `new..old` back (poison).
///
/// # Safety
/// Both lie in the same chunk, which the arena owns.
#[inline]
pub(crate) unsafe fn ptr_moved_up(old: *mut u8, new: *mut u8) {
    // SAFETY: the range between them is in the chunk (the caller).
    unsafe {
        if new.addr() > old.addr() {
            unpoison(old, new.addr() - old.addr());
        } else if new.addr() < old.addr() {
            poison(new, old.addr() - new.addr());
        }
    }
}
