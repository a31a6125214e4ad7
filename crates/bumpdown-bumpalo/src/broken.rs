//! A planted bug, for `scripts/dependents.sh --selftest-broken` only: that script proves
//! the dependents' test suites can catch a wrong facade by building it with
//! `RUSTFLAGS="--cfg bumpdown_bumpalo_broken"` and asserting that a suite fails.
//!
//! Nothing else can turn it on: it is not a feature (a dependency cannot enable it, and
//! `--all-features` does not), only that `--cfg` flag given to the compiler.

/// `src` without its last byte when that leaves valid UTF-8 (an ASCII last character),
/// else `src` unchanged: `alloc_str` then copies one byte too few.
pub(crate) fn off_by_one(src: &str) -> &str {
    match src.len().checked_sub(1) {
        Some(end) if src.is_char_boundary(end) => &src[..end],
        _ => src,
    }
}
