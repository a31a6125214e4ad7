//! **bumpdown-bumpalo**: bumpalo 3.20's API over bumpdown's [`Arena`](bumpdown::Arena).
//!
//! A project on bumpalo switches to bumpdown by changing one line of its `Cargo.toml`,
//! and keeps its code as it is:
//!
//! ```toml
//! [dependencies]
//! bumpalo = { package = "bumpdown-bumpalo", version = "3.20", features = ["collections"] }
//! ```
//!
//! A project whose *dependencies* use bumpalo switches them with one `[patch.crates-io]`
//! entry pointing at the package named `bumpalo` in this repository, a re-export of this
//! crate (cargo patches a crate only with a package of the same name; see the README).
//!
//! ```
//! use bumpdown_bumpalo::Bump;
//!
//! let bump = Bump::new();
//! let x = bump.alloc(41u64);
//! *x += 1;
//! let s = bump.alloc_str("hello");
//! assert_eq!((*x, &*s), (42, "hello"));
//! ```
//!
//! [`Bump`] is a thin wrapper around [`bumpdown::Arena`], and dereferences to it, so
//! bumpdown's own methods (scopes, checkpoints, `stats`) are there too. The collections
//! and `Box` are thin wrappers around bumpdown's own ([`bumpdown::collections`]), every
//! method forwarded: their constructors take `&Bump`, as bumpalo's do, so that a type
//! that dereferences to `Bump` can be passed for it (see the `collections` module); `From` turns
//! each into bumpdown's type without a copy. Values in the arena are never dropped, as
//! in bumpalo.
//!
//! `docs/MIGRATING.md` in the repository lists every item of bumpalo's API: done,
//! different (and why), or not yet.
//!
//! # Features
//! bumpalo's names, with the same meaning; none is on by default.
//! * `collections`: the `collections` module (`Vec`, `String`, `CollectIn`, `FromIteratorIn`),
//!   `vec!` and `format!`.
//! * `boxed`: `boxed::Box`.
//! * `std`: `std::error::Error` for the error types, `std::io::Write` for `Vec<u8>`.
//! * `allocator-api2`: `&Bump` implements `allocator_api2::alloc::Allocator` (0.2), so
//!   `hashbrown` maps and `allocator_api2` vectors can live in it.
//! * `serde`: `serde::Serialize` for `Vec`, `String` and `Box`.
//! * `allocator_api`: bumpalo's nightly feature: on a nightly compiler, `&Bump`
//!   implements the unstable `core::alloc::Allocator`, so `std`'s `Vec::new_in(&bump)`
//!   works (it turns on bumpdown's `nightly-allocator-api`; on a stable compiler it does
//!   nothing).
#![no_std]
#![cfg_attr(all(feature = "allocator_api", bumpdown_nightly), feature(allocator_api))]
#![warn(missing_docs)]

// How the crate is laid out (no logic here):
//   bump.rs         `Bump`: constructors and the allocation API, forwarded to `Arena`
//   chunks.rs       `ChunkIter`, `ChunkRawIter` (bumpdown's chunk iterators, bumpalo's names)
//   error.rs        `AllocErr`, `AllocOrInitError`
//   collections/    `Vec`, `String` (wrappers of bumpdown's, constructors over `&Bump`),
//                   `CollectionAllocErr`, bumpalo's `CollectIn` / `FromIteratorIn`
//   boxed.rs        `Box`, a wrapper of bumpdown's
//   macros.rs       `vec!`, `format!`
//   api2.rs         allocator-api2 0.2 and nightly `core::alloc::Allocator` for `&Bump`
//   broken.rs       a planted bug for scripts/dependents.sh's self-test (a --cfg only)

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[cfg(any(feature = "allocator-api2", all(feature = "allocator_api", bumpdown_nightly)))]
mod api2;
#[cfg(feature = "boxed")]
pub mod boxed;
#[cfg(bumpdown_bumpalo_broken)]
mod broken;
mod bump;
mod chunks;
#[cfg(feature = "collections")]
pub mod collections;
mod error;
#[cfg(feature = "collections")]
mod macros;

pub use crate::bump::Bump;
pub use crate::chunks::{ChunkIter, ChunkRawIter};
pub use crate::error::{AllocErr, AllocOrInitError};
/// For `vec!` and `format!`, whose bodies are the core's (`__vec_in!`, `__format_in!`).
#[cfg(feature = "collections")]
#[doc(hidden)]
pub use bumpdown as __bumpdown;
