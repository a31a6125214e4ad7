//! `libbumpdown_malloc.so`: bumpdown's allocator for any dynamically linked program.
//!
//! ```sh
//! cargo build --release -p bumpdown-malloc
//! so=$(python3 scripts/built.py libbumpdown_malloc.so -- --release -p bumpdown-malloc)
//! LD_PRELOAD=$so FileCheck check.txt < input.txt
//! BUMPDOWN_STATS=1 LD_PRELOAD=... program   # one summary line on stderr at exit
//! BUMPDOWN_STATS=/tmp/s LD_PRELOAD=... program  # the same line, appended to /tmp/s
//! ```
//!
//! It replaces `malloc`, `free`, `calloc`, `realloc`, `reallocarray`, `memalign`,
//! `posix_memalign`, `aligned_alloc`, `valloc`, `pvalloc` and `malloc_usable_size`, and
//! answers glibc's introspection calls from its own counters: `mallinfo2` and `mallinfo`
//! (bytes handed out, in and outside the region) and `malloc_trim` (releases nothing).
//! Memory comes from the `bumpdown-global` engine: one `mmap` reservation, per-thread
//! windows bumped upwards without locks, the newest block freed or grown in place, and (in
//! the default mode) freed blocks reused from per-thread size-class lists. Each block
//! carries a header holding its exact usable size: one word in front of a region block
//! (its chunk starts 8 bytes past a multiple of 16, so the block is 16-aligned), two in
//! front of a block from glibc.
//!
//! Requests the region does not serve (over 256 KiB in the default mode, alignment over
//! 4096, or past the `BUMPDOWN_LIMIT` cap) go to glibc through `__libc_malloc` and
//! friends, which never call back into us; `free` routes by address. See [`config`] for
//! the environment variables.
//!
//! Nothing in this library allocates through `malloc`, takes a lock or can unwind: it
//! works before `main`, inside `dlsym`, in multithreaded code and in the child of a
//! `fork` (there is no lock to reset). The thread's heap sits in initial-exec TLS
//! (see `tls.rs`), so the fast path makes no call at all.
//!
//! # Features
//! * `exports` (default): the `#[no_mangle]` symbols above. Without it the crate is a
//!   library of the functions behind them ([`malloc`]), for fuzzing them in a process
//!   that keeps its own allocator.
//! * `valgrind`: memcheck client requests, so that valgrind checks the blocks this library
//!   hands out (reads after `free`, writes past a block, double frees); a no-op when not
//!   under valgrind. `run-sanitizers.sh` shows how to run a program so.
//!
//! # Why recycling is the default
//! A pure bump loses on real programs: every byte it hands out is a fresh page to fault in,
//! and malloc is only a few percent of their cycles. `BUMPDOWN_MODE=bump` is kept for
//! programs that never free; measured here (`bench/preload.sh`, FileCheck torture run),
//! it took 1.12x glibc's time at 3.9x its peak RSS, while the default mode matched glibc's
//! CPU time at the same peak RSS. Figures are from a shared, noisy 2-core machine.
//!
//! # Limits
//! * A thread's window tails, free lists and the zone chunks it took from a zone's free
//!   bitmap are abandoned when the thread exits (an untouched tail costs address space,
//!   not memory).
//! * Blocks of over 256 bytes freed by another thread than the one that allocated them
//!   join the freeing thread's lists: a producer/consumer program of such blocks grows
//!   until `BUMPDOWN_LIMIT`, then continues on glibc. Smaller blocks (zone chunks) pass
//!   through each zone's free bitmap, shared by all threads, once the freeing thread's
//!   short list for their size is full: the producer takes them back.
//! * `BUMPDOWN_STATS` prints from `.fini_array`: programs that leave with `_exit` (dash)
//!   or close stderr in an `atexit` handler (coreutils) print nothing.
#![no_std]

pub mod config;
#[cfg(feature = "exports")]
mod exports;
mod header;
pub mod malloc;
mod report;
mod tls;
