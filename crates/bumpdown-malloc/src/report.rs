//! `BUMPDOWN_STATS=1`: one summary line on stderr at exit, written with `write(2)`.
//!
//! The report runs from `.fini_array` (no `atexit` registration, which could allocate)
//! and formats into a stack buffer.

use bumpdown_global::{env_bytes, stats, Mode};

use crate::config::mode;

/// A fixed buffer that numbers and text are appended to.
struct Line {
    buf: [u8; 256],
    len: usize,
}

impl Line {
    fn text(&mut self, s: &[u8]) {
        for &b in s {
            if self.len < self.buf.len() {
                self.buf[self.len] = b;
                self.len += 1;
            }
        }
    }

    fn number(&mut self, mut n: usize) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.text(&digits[i..]);
    }

    fn field(&mut self, name: &[u8], n: usize) {
        self.text(b" ");
        self.text(name);
        self.text(b"=");
        self.number(n);
    }
}

extern "C" fn report_at_exit() {
    if env_bytes(c"BUMPDOWN_STATS").is_none_or(|v| v == b"0" || v.is_empty()) {
        return;
    }
    let s = stats();
    let mut usage: libc::rusage = unsafe_zeroed_rusage();
    // SAFETY: getrusage fills the struct we own.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let mut line = Line { buf: [0; 256], len: 0 };
    line.text(b"bumpdown:");
    line.text(if mode() == Mode::Bump { b" mode=bump" } else { b" mode=recycle" });
    line.field(b"reserved", s.reserved);
    line.field(b"used", s.used);
    line.field(b"peak", s.peak);
    line.field(b"fallbacks", s.fallbacks);
    line.field(b"fallback_live", s.fallback_live);
    line.field(b"huge_pages", bumpdown_global::region::huge_pages() as usize);
    line.field(b"maxrss_kib", usage.ru_maxrss.max(0) as usize);
    line.text(b"\n");
    // SAFETY: writes our buffer to fd 2.
    unsafe { libc::write(2, line.buf.as_ptr().cast(), line.len) };
}

fn unsafe_zeroed_rusage() -> libc::rusage {
    // SAFETY: rusage is plain integers (and timevals of integers): all-zero is valid.
    unsafe { core::mem::zeroed() }
}

/// Registered in `.fini_array`: runs when the process exits normally.
#[used]
#[link_section = ".fini_array"]
static REPORT_AT_EXIT: extern "C" fn() = report_at_exit;
