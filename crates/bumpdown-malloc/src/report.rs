//! `BUMPDOWN_STATS`: one summary line at exit, written with `write(2)`: to stderr for
//! `BUMPDOWN_STATS=1`, appended to the file for `BUMPDOWN_STATS=/absolute/path`. The
//! line names its process (`pid=`, `exe=`), so a script that runs programs under the
//! preload can prove, run by run, that the library it meant to measure was the one in
//! effect (`crates/bumpdown-malloc/bench/run.py` does).
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
    let Some(dest) = env_bytes(c"BUMPDOWN_STATS").filter(|v| !v.is_empty() && *v != b"0") else {
        return;
    };
    let s = stats();
    let mut usage: libc::rusage = unsafe_zeroed_rusage();
    // SAFETY: getrusage fills the struct we own.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let mut line = Line { buf: [0; 256], len: 0 };
    line.text(b"bumpdown:");
    line.text(if mode() == Mode::Bump { b" mode=bump" } else { b" mode=recycle" });
    // SAFETY: getpid has no preconditions.
    line.field(b"pid", unsafe { libc::getpid() }.max(0) as usize);
    line.text(b" exe=");
    program_name(&mut line);
    line.field(b"reserved", s.reserved);
    line.field(b"used", s.used);
    line.field(b"peak", s.peak);
    line.field(b"fallbacks", s.fallbacks);
    line.field(b"fallback_live", s.fallback_live);
    line.field(b"huge_pages", bumpdown_global::region::huge_pages() as usize);
    line.field(b"maxrss_kib", usage.ru_maxrss.max(0) as usize);
    line.text(b"\n");
    write_line(dest, &line);
}

/// Appends the process's name (`/proc/self/comm`, up to 15 bytes; `?` where it cannot be
/// read) to `line`.
fn program_name(line: &mut Line) {
    let mut name = [0u8; 16];
    // SAFETY: a NUL-terminated path; `read` writes at most `name.len()` bytes into our
    // buffer; the descriptor is ours to close.
    let len = unsafe {
        let fd = libc::open(c"/proc/self/comm".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            -1
        } else {
            let n = libc::read(fd, name.as_mut_ptr().cast(), name.len());
            libc::close(fd);
            n
        }
    };
    match usize::try_from(len) {
        Ok(n) if n > 0 => {
            let name = &name[..n.min(name.len())];
            // `comm` ends with a newline; a name holds no spaces for the line's parsers.
            for &b in name.strip_suffix(b"\n").unwrap_or(name) {
                line.text(if b == b' ' { b"_" } else { core::slice::from_ref(&b) });
            }
        }
        _ => line.text(b"?"),
    }
}

/// Writes `line` to stderr, or appends it to the file `dest` names if that is an
/// absolute path (created if missing). One `write` on an `O_APPEND` descriptor, so lines
/// of several processes writing the same file do not interleave.
fn write_line(dest: &[u8], line: &Line) {
    let mut fd = 2;
    let mut path = [0u8; 512];
    let opened = dest.first() == Some(&b'/') && dest.len() < path.len();
    if opened {
        path[..dest.len()].copy_from_slice(dest);
        // SAFETY: `path` is NUL-terminated (zeroed past `dest`, which holds no NUL: it
        // came from a C string).
        fd = unsafe {
            libc::open(path.as_ptr().cast(), libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_CLOEXEC, 0o644)
        };
        if fd < 0 {
            return;
        }
    }
    // SAFETY: writes our buffer to a descriptor we hold (stderr, or the one just opened).
    unsafe { libc::write(fd, line.buf.as_ptr().cast(), line.len) };
    if opened {
        // SAFETY: the descriptor opened above.
        unsafe { libc::close(fd) };
    }
}

fn unsafe_zeroed_rusage() -> libc::rusage {
    // SAFETY: rusage is plain integers (and timevals of integers): all-zero is valid.
    unsafe { core::mem::zeroed() }
}

/// Registered in `.fini_array`: runs when the process exits normally.
#[used]
#[link_section = ".fini_array"]
static REPORT_AT_EXIT: extern "C" fn() = report_at_exit;
