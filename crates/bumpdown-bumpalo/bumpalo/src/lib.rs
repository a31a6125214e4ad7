//! bumpalo's name for [`bumpdown_bumpalo`]: everything here is a re-export of it, so a
//! `Bump` made through this crate is the same type as one made through
//! `bumpdown-bumpalo`. It exists only to be the target of a `[patch.crates-io]` entry
//! for `bumpalo`.
//!
//! ```
//! let bump = bumpalo::Bump::new();
//! assert_eq!(*bump.alloc(1), 1);
//! ```
#![no_std]

pub use bumpdown_bumpalo::*;
