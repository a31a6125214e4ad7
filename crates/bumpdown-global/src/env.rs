//! Start-up settings from the environment, read without allocating.
//!
//! The allocator reads its settings while serving the first allocation of the process,
//! so it cannot use `std::env` (which allocates a `String`): it calls libc `getenv` and
//! parses the bytes by hand.

use core::ffi::CStr;

/// Parses a byte count: decimal digits, then optionally one of `K`, `M`, `G`, `T`
/// (binary multiples, either case), then optionally `B` or `iB`.
/// Returns `None` for anything else, for zero digits and on overflow.
///
/// ```
/// use bumpdown_global::parse_size;
/// assert_eq!(parse_size(b"64G"), Some(64 << 30));
/// assert_eq!(parse_size(b"512k"), Some(512 << 10));
/// assert_eq!(parse_size(b"1MiB"), Some(1 << 20));
/// assert_eq!(parse_size(b"4096"), Some(4096));
/// assert_eq!(parse_size(b"12X"), None);
/// assert_eq!(parse_size(b"99999999999T"), None);
/// ```
pub const fn parse_size(text: &[u8]) -> Option<usize> {
    let mut i = 0;
    let mut n: usize = 0;
    while i < text.len() && text[i].is_ascii_digit() {
        n = match n.checked_mul(10) {
            Some(m) => match m.checked_add((text[i] - b'0') as usize) {
                Some(m) => m,
                None => return None,
            },
            None => return None,
        };
        i += 1;
    }
    if i == 0 {
        return None;
    }
    let shift = if i < text.len() {
        match text[i] {
            b'k' | b'K' => 10,
            b'm' | b'M' => 20,
            b'g' | b'G' => 30,
            b't' | b'T' => 40,
            _ => 0,
        }
    } else {
        0
    };
    if shift != 0 {
        i += 1;
        if i < text.len() && text[i] == b'i' {
            i += 1;
            if i == text.len() {
                return None;
            }
        }
    }
    if i < text.len() && (text[i] == b'b' || text[i] == b'B') {
        i += 1;
    }
    if i != text.len() {
        return None;
    }
    if shift != 0 && n.leading_zeros() < shift {
        return None;
    }
    Some(n << shift)
}

/// The value of environment variable `name`, without allocating.
///
/// Must not race with `setenv` on another thread (the libc rule for `getenv`); the
/// allocator only calls it while the process starts its first allocation.
pub fn env_bytes(name: &CStr) -> Option<&'static [u8]> {
    // SAFETY: `name` is NUL-terminated. `getenv` returns NULL or a pointer into the
    // environment block, which lives until the variable is changed; the allocator reads
    // it once at start-up, before a program normally touches its environment.
    let value = unsafe { libc::getenv(name.as_ptr()) };
    if value.is_null() {
        return None;
    }
    // SAFETY: non-null `getenv` results are NUL-terminated strings (see above for lifetime).
    Some(unsafe { CStr::from_ptr(value) }.to_bytes())
}

/// `parse_size` of the environment variable `name`; `None` when unset or malformed.
pub fn env_size(name: &CStr) -> Option<usize> {
    env_bytes(name).and_then(parse_size)
}

/// A yes/no setting from the environment variable `name`: `0` is no, `1` is yes, and
/// anything else (or nothing) is `default`.
///
/// ```
/// assert!(bumpdown_global::env_flag(c"BUMPDOWN_DOCTEST_UNSET", true));
/// assert!(!bumpdown_global::env_flag(c"BUMPDOWN_DOCTEST_UNSET", false));
/// ```
pub fn env_flag(name: &CStr, default: bool) -> bool {
    match env_bytes(name) {
        Some(b"0") => false,
        Some(b"1") => true,
        _ => default,
    }
}
