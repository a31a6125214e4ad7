//! The C API of bumpdown: `libbumpdown.so`, `libbumpdown.a` and `include/bumpdown.h`.
//!
//! The allocation fast path lives in the header, inline, reading and writing the first
//! two fields (`top`, `bottom`) of the Rust [`Arena`](bumpdown::Arena) through the
//! handle; everything else is a thin `extern "C"` forward in [`ffi`] to the core crate.
//! C users build with the crate's `Makefile` and never see cargo.
//!
//! This crate is also an `rlib` so that its Rust tests can call the C functions
//! directly:
//!
//! ```
//! use bumpdown_c::ffi::*;
//!
//! // SAFETY: the handle comes from `bd_arena_create` and is destroyed once, last.
//! unsafe {
//!     let arena = bd_arena_create();
//!     let p = bd_alloc_slow(arena, 24, 8);
//!     assert!(!p.is_null() && p as usize % 8 == 0);
//!     assert_eq!(bd_reset(arena), BD_OK);
//!     bd_arena_destroy(arena);
//! }
//! ```
#![warn(missing_docs)]

#[cfg(not(target_pointer_width = "64"))]
compile_error!("the bumpdown C API supports 64-bit targets only (bd_checkpoint holds 64-bit words)");

mod checkpoint;
mod errors;
pub mod ffi;
mod handle;
/// The virtual-memory arena (`bd_vm_*`), where the core has one (64-bit Linux and macOS).
#[cfg(any(target_os = "linux", target_os = "macos"))]
pub mod vm;

pub use crate::handle::CBacking;
