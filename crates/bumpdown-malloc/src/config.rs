//! Settings from the environment, read once by the first allocation.
//!
//! * `BUMPDOWN_MODE=bump`: pure bump (only the newest block is reused); anything else,
//!   or unset, recycles freed blocks by size class.
//! * `BUMPDOWN_LIMIT=<bytes>[K|M|G|T]`: the most memory the bump region may hold
//!   (default [`DEFAULT_LIMIT`]); past it, allocations go to glibc.
//! * `BUMPDOWN_STATS=1`: print a summary line to stderr at exit (`pid=`, `exe=`, then
//!   the figures); `BUMPDOWN_STATS=/absolute/path` appends it to that file instead.
//! * `BUMPDOWN_HUGEPAGES=1`: put the region on transparent huge pages once the program
//!   is big enough, if one faults in fast enough on this machine. Off by default
//!   ([`HUGE_PAGES`] says why).
//! * `BUMPDOWN_POPULATE=1`: fault each thread window in with one `MADV_POPULATE_WRITE`
//!   (off by default).

use core::sync::atomic::{AtomicU8, Ordering};

use bumpdown_global::region::Options;
use bumpdown_global::{env_bytes, env_flag, env_size, Mode};

/// The default cap on the bump region: 4 GiB.
///
/// The region never returns memory to the OS, so this bounds what a program that runs
/// longer than expected can pin; past it the program continues on glibc. Measured here, a
/// pure bump needs 1.75 GiB for one `clang -O2` compile, and recycling needs far less.
pub const DEFAULT_LIMIT: usize = 4 << 30;

const UNSET: u8 = 0;
const RECYCLE: u8 = 1;
const BUMP: u8 = 2;

static MODE: AtomicU8 = AtomicU8::new(UNSET);

/// The allocation mode (reads `BUMPDOWN_MODE` the first time).
#[inline(always)]
pub fn mode() -> Mode {
    match MODE.load(Ordering::Relaxed) {
        RECYCLE => Mode::Recycle,
        BUMP => Mode::Bump,
        _ => read_mode(),
    }
}

/// The mode, in `free` and `realloc` of a region block: one load, and no call to
/// [`mode`]'s first-time path, whose registers `free` would otherwise save and restore on
/// every call.
///
/// A region block exists only after an allocation that called [`mode`] first, which set
/// `MODE` for good (racing first calls store the same value). The block reached this
/// thread after that store, through whatever handed it over (so after it in
/// happens-before), and a relaxed load that follows a store in happens-before reads it
/// or a later store of the same value. Were `MODE` somehow unset, this says bump mode,
/// in which a block is only ever taken back by the bump pointer or left: never filed by a
/// size class its chunk may not have.
#[inline(always)]
pub fn mode_of_region_block() -> Mode {
    if recycling_known() {
        Mode::Recycle
    } else {
        Mode::Bump
    }
}

/// Whether the mode is known to be recycling: one load, no first-time path. `malloc`'s
/// fast path serves only then; an unset mode (the first call) and bump mode take the
/// general path, which calls [`mode`].
#[inline(always)]
pub fn recycling_known() -> bool {
    MODE.load(Ordering::Relaxed) == RECYCLE
}

#[cold]
#[inline(never)]
fn read_mode() -> Mode {
    let bump = env_bytes(c"BUMPDOWN_MODE") == Some(b"bump");
    // Racing first calls read the same environment and store the same value.
    MODE.store(if bump { BUMP } else { RECYCLE }, Ordering::Relaxed);
    if bump {
        Mode::Bump
    } else {
        Mode::Recycle
    }
}

/// Default of `BUMPDOWN_HUGEPAGES`: off, as for `BumpGlobal`
/// (`bumpdown_global::region::HUGE_PAGES_BY_DEFAULT` says why). Where huge pages fault in
/// fast, `BUMPDOWN_HUGEPAGES=1` is worth trying.
pub const HUGE_PAGES: bool = bumpdown_global::region::HUGE_PAGES_BY_DEFAULT;

/// The region to set up (reads `BUMPDOWN_LIMIT`, `BUMPDOWN_HUGEPAGES`, `BUMPDOWN_POPULATE`).
pub fn region_options() -> Options {
    Options {
        size: env_size(c"BUMPDOWN_LIMIT").unwrap_or(DEFAULT_LIMIT),
        huge_pages: env_flag(c"BUMPDOWN_HUGEPAGES", HUGE_PAGES),
        populate: env_flag(c"BUMPDOWN_POPULATE", false),
    }
}
