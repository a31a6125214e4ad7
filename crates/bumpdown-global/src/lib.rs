//! A bump allocator for whole programs: a `#[global_allocator]` ([`BumpGlobal`]) and the
//! engine behind bumpdown's `LD_PRELOAD` malloc (`bumpdown-malloc`).
//!
//! Short-lived programs (compilers, test tools, converters) free most of their memory at
//! exit. For them a bump allocator saves the bookkeeping of a general-purpose one. But every
//! byte a pure bump hands out is a fresh page to fault in (about 0.37 s per GiB on the machine
//! these numbers come from), so this one also reuses what the program frees: its newest block
//! by moving the bump pointer back, and others from per-thread free lists of size classes.
//!
//! ```
//! use bumpdown_global::BumpGlobal;
//!
//! #[global_allocator]
//! static A: BumpGlobal = BumpGlobal::new();
//!
//! let s = String::from("short-lived");
//! assert_eq!(s.len(), 11);
//! ```
//!
//! # Layout
//! * [`region`]: the one `mmap` reservation and the atomic carving of thread windows.
//! * [`heap`]: a thread's windows (one per size band) and free lists; [`with_heap`]
//!   reaches the current one.
//! * [`classes`]: size-class arithmetic (no `unsafe`).
//! * [`route`]: how a front end serves a request (region or fallback, resize in place or
//!   move), written once for [`BumpGlobal`] and `bumpdown-malloc`, over a [`route::HeapSlot`].
//! * [`BumpGlobal`]: the `GlobalAlloc` front end. Blocks over the largest size class get
//!   mappings of their own (on huge pages when 2 MiB or more); the system allocator takes
//!   what is too aligned, and what no longer fits once the reservation is exhausted.
//! * [`shadow`]: what memory checkers (valgrind, ASan) are told about region bytes.
//!
//! The crate is `no_std` without its default `std` feature: then only the region, heap
//! and class modules are available (the thread-local slot needs `std` on stable Rust).
#![no_std]
#![cfg_attr(bumpdown_asan, feature(cfg_sanitize))]

#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "std")]
mod big;
pub mod classes;
mod env;
#[cfg(feature = "std")]
mod global;
pub mod heap;
pub mod region;
pub mod route;
pub mod shadow;
mod stats;
#[cfg(feature = "std")]
mod thread;

pub use env::{env_bytes, env_flag, env_size, parse_size};
#[cfg(feature = "std")]
pub use global::{BumpGlobal, Exhaustion, DEFAULT_RESERVATION};
pub use heap::{chunk_size, Heap, Mode};
pub use stats::{stats, Stats};
#[cfg(feature = "std")]
pub use thread::{with_heap, ThreadHeap};
