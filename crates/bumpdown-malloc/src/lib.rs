//! `libbumpdown_malloc.so`: bumpdown's allocator for any dynamically linked program.
//!
//! ```sh
//! cargo build --release -p bumpdown-malloc
//! LD_PRELOAD=target/release/libbumpdown_malloc.so FileCheck check.txt < input.txt
//! BUMPDOWN_STATS=1 LD_PRELOAD=... program   # one summary line on stderr at exit
//! ```
//!
//! It replaces `malloc`, `free`, `calloc`, `realloc`, `reallocarray`, `memalign`,
//! `posix_memalign`, `aligned_alloc`, `valloc`, `pvalloc` and `malloc_usable_size`.
//! Memory comes from the `bumpdown-global` engine: one `mmap` reservation, per-thread
//! windows bumped upwards without locks, the newest block freed or grown in place, and (in
//! the default mode) freed blocks reused from per-thread size-class lists. Each block
//! carries a 16-byte header holding its exact usable size.
//!
//! Requests the region does not serve (over 256 KiB in the default mode, alignment over
//! 4096, or past the `BUMPDOWN_LIMIT` cap) go to glibc through `__libc_malloc` and
//! friends, which never call back into us; `free` routes by address. See [`config`] for
//! the environment variables.
//!
//! Nothing in this library allocates through `malloc`, takes a lock or can unwind: it
//! works before `main`, inside `dlsym`, in signal-free multithreaded code and in the child
//! of a `fork` (there is no lock to reset).
#![no_std]

pub mod config;
mod exports;
mod header;
mod malloc;
mod report;
mod tls;
