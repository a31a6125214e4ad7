//! **bumpdown**: a bump (arena) allocator that bumps downwards.
//!
//! An [`Arena`] hands out memory by moving one pointer down through a chunk: a handful
//! of instructions and one branch per allocation. Everything is freed at once, by
//! [`Arena::reset`] (which keeps the chunks for the next round) or by dropping the arena.
//!
//! ```
//! use bumpdown::Arena;
//!
//! #[derive(Debug, PartialEq)]
//! struct Node<'a> { value: u32, next: Option<&'a Node<'a>> }
//!
//! let arena = Arena::new();
//! let tail = arena.alloc(Node { value: 2, next: None });
//! let head = arena.alloc(Node { value: 1, next: Some(tail) });
//! assert_eq!(head.next.unwrap().value, 2);
//! ```
//!
//! Values in the arena are **never dropped**: see [`Arena`].
//!
//! # Features
//! * `std` (default): implements `std::error::Error` for [`AllocError`]. Implies `alloc`.
//! * `alloc`: [`Global`] allocates from the global allocator, and [`Arena::new`] exists.
//!   Without it the crate is `no_std` with no allocator: use [`Arena::new_in`].
//! * `allocator-api2`: `&Arena` implements `allocator_api2::alloc::Allocator`, so
//!   `hashbrown` maps and `allocator_api2` vectors can live in an arena.
//! * `nightly-allocator-api`: `&Arena` implements the unstable `core::alloc::Allocator`.
#![no_std]
#![cfg_attr(feature = "nightly-allocator-api", feature(allocator_api))]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[cfg(any(feature = "allocator-api2", feature = "nightly-allocator-api"))]
mod api2;
mod arena;
mod backing;
#[doc(hidden)]
pub mod bumping;
mod chunk;
mod error;
mod realloc;
mod stats;
mod typed;

pub use crate::arena::Arena;
pub use crate::backing::{BackingAllocator, Global};
pub use crate::error::{AllocError, AllocErrorKind};
pub use crate::stats::Stats;
