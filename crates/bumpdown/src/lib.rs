//! **bumpdown**: a bump (arena) allocator.
//!
//! An [`Arena`] hands out memory by moving one pointer up through a chunk: a handful
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
//! Values in the arena are **never dropped**: see [`Arena`]. The [`collections`]
//! (`Box`, `Vec`, `String`, with `vec!` and `format!`) do drop what they own.
//!
//! Temporary memory is freed at the end of a scope, checked by the compiler:
//! [`Arena::scope`] (a closure), [`Arena::scope_guard`] (RAII), [`scratch`] (the current
//! thread's own arena, nothing to pass around), and [`Arena::checkpoint`] /
//! [`Arena::rewind`]. The [`Bump`] trait lets code be generic over arenas.
//!
//! Memory you provide: [`FixedArena`] over a buffer (no allocator needed), and
//! [`Arena::with_buffer`], which starts in a buffer and spills into heap chunks.
//!
//! Threads: [`SyncArena`] is shared through `&` with a lock-free fast path, and each
//! thread's [`LocalArena`] bumps windows of it without atomics.
//!
//! Virtual memory (64-bit Linux and macOS, with `std`): `VmArena` reserves one large
//! range of address space and commits it as it goes, so addresses never move, the
//! newest block grows in place without copying, and reset is O(1).
//!
//! # Features
//! * `std` (default): [`scratch`], `VmArena` (on 64-bit Linux and macOS), and
//!   `std::error::Error` for the error types. Implies `alloc` and `os`.
//! * `os`: the memory calls (`mmap`, ...) that `VmArena` and `bumpdown-global` share, in a
//!   hidden module that is not a stable API; on its own it needs neither `std` nor an
//!   allocator.
//! * `alloc`: [`Global`] allocates from the global allocator, and [`Arena::new`] exists.
//!   Without it the crate is `no_std` with no allocator: use [`Arena::new_in`].
//! * `allocator-api2`: `&Arena`, `&FixedArena`, `&LocalArena` and `&VmArena` implement
//!   `allocator_api2::alloc::Allocator`, so `hashbrown` maps and `allocator_api2` vectors
//!   can live in an arena (in a `no_std` buffer too, with `FixedArena`).
//! * `allocator-api2-03`, `allocator-api2-04`: the same for allocator-api2 0.3 and 0.4
//!   (`allocator_api2_03::alloc::Allocator`, ...), which other crates of the ecosystem use.
//! * `nightly-allocator-api`: `&Arena` implements the unstable `core::alloc::Allocator`
//!   (on a nightly compiler; on stable the feature does nothing, so `--all-features`
//!   builds still work).
//! * `serde`: `Serialize` for the [`collections`].
//! * `poison` (a debugging aid, off by default): memory given back by a reset, rewind or
//!   scope exit of `Arena`, `FixedArena` or `VmArena` is filled with [`POISON_BYTE`]
//!   (`0xDB`), so reads through stale pointers stand out. `docs/SAFETY.md` also describes
//!   the AddressSanitizer annotations (`--cfg bumpdown_asan`).
#![no_std]
#![cfg_attr(all(feature = "nightly-allocator-api", bumpdown_nightly), feature(allocator_api))]
#![cfg_attr(bumpdown_asan, feature(cfg_sanitize))]
#![warn(missing_docs)]

// How the crate is laid out: this file holds no logic, only the module map and the
// re-exports. Read `engine.rs` first.
//
// The engine, written once for every face:
//   bumping.rs    the bump arithmetic on plain addresses: down, up, shared (atomic); no unsafe
//   engine.rs     `Cursor` (a face: bump pointer, limit, one slow path; its invariant) and
//                 `Engine` (the fast paths, grow/shrink/free of the newest block, and the
//                 typed API's bodies on raw blocks); public but hidden, for bumpdown-global's
//                 windows, which are faces too (see the module's docs)
//   alloc_api.rs  the typed API's signatures (`alloc`, slices, strings, iterators,
//                 layouts), stamped into each face's inherent impl by `alloc_api!`; the
//                 bodies are `Engine`'s provided methods
// The faces (each an `unsafe impl Cursor` with its slow path):
//   arena/        `Arena`: the handle (bump pointers and the state's address), its
//                 invariant, its `Cursor` impl and public methods (mod.rs); `ArenaState`:
//                 chunk lists, slow path, reset, limits, stats (state.rs); checkpoints,
//                 rewind, scope entry and exit (rewind.rs); the walk over the used part of
//                 each chunk (chunks.rs)
//   scope.rs      `Scope` (the closure's branded handle) and `ScopeGuard`
//   fixed.rs      `FixedArena` over a caller's buffer (no allocator)
//   buffered.rs   `BufferArena`: a caller's buffer first, then heap chunks
//   vm.rs         `VmArena`: one reservation, committed as it goes, bumping up
//   sync.rs       `SyncArena` (lock-free lanes; implements `Engine` itself) and `LocalArena`
//   scratch.rs    `scratch`: the current thread's arenas
// What the faces share:
//   chunk.rs      chunk headers and sizes
//   backing.rs    `BackingAllocator`, `Global`
//   checkpoint.rs checkpoint types and the `Ledger` that tells stale ones
//   bump_trait.rs the `Bump` trait
//   copy.rs       the copy into a fresh block: short ones inline, long ones `memcpy`
//   error.rs      `AllocError` and the one panic
//   stats.rs      `Stats`
//   os.rs         the OS layer (map, commit, release, page size), shared with bumpdown-global
//   populate.rs   the thread that populates a `VmArena`'s pages ahead of use
//   poison.rs     the `poison` feature; asan.rs: AddressSanitizer annotations
//   api2.rs       allocator-api2 and nightly `Allocator` impls
//   collections/  `Box`, `Vec`, `String` in an arena (raw.rs: `ArenaAllocator`)

// The bump arithmetic relies on every chunk and buffer ending at or below `isize::MAX`
// (`bumping::MAX_END`): an upward bump then adds a size to the pointer without a wrap
// check. A 64-bit address space guarantees it; a 32-bit one does not (i686 Linux maps
// large blocks above 0x8000_0000), and there the unchecked sums could wrap and hand out
// memory twice. Until every such sum is checked or the bound enforced, refuse to build.
#[cfg(not(target_pointer_width = "64"))]
compile_error!(
    "bumpdown supports 64-bit targets only: its bump arithmetic assumes every chunk ends at or below isize::MAX, which a 32-bit address space does not guarantee"
);

// Under Miri the OS layer's reservations are heap blocks (see `os`).
#[cfg(any(feature = "alloc", all(miri, feature = "os")))]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod alloc_api;
#[cfg(any(
    feature = "allocator-api2",
    feature = "allocator-api2-03",
    feature = "allocator-api2-04",
    all(feature = "nightly-allocator-api", bumpdown_nightly)
))]
mod api2;
mod arena;
#[cfg(bumpdown_asan)]
mod asan;
mod backing;
mod buffered;
mod bump_trait;
#[doc(hidden)]
pub mod bumping;
mod checkpoint;
mod chunk;
pub mod collections;
mod copy;
#[doc(hidden)]
pub mod engine;
mod error;
mod fixed;
#[cfg(all(feature = "os", unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
#[doc(hidden)]
pub mod os;
mod poison;
#[cfg(all(feature = "std", unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
mod populate;
mod scope;
#[cfg(feature = "std")]
mod scratch;
mod stats;
#[cfg(feature = "std")]
mod sync;
#[cfg(all(feature = "std", unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
mod vm;

pub use crate::arena::{AllocatedChunks, AllocatedChunksRaw, Arena};
pub use crate::backing::{BackingAllocator, Global};
pub use crate::buffered::BufferArena;
pub use crate::bump_trait::Bump;
pub use crate::checkpoint::{Checkpoint, RewindError};
pub use crate::error::{AllocError, AllocErrorKind};
pub use crate::fixed::{FixedArena, FixedScopeGuard};
// Public with or without the feature, so code and docs can name it either way.
pub use crate::poison::POISON_BYTE;
pub use crate::scope::{Scope, ScopeGuard};
#[cfg(feature = "std")]
pub use crate::scratch::{scratch, SCRATCH_RETAIN};
pub use crate::stats::Stats;
#[cfg(feature = "std")]
pub use crate::sync::{LocalArena, SyncArena};
#[cfg(all(feature = "std", unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
pub use crate::vm::{ResetPolicy, VmArena, VmOptions, VmScopeGuard, BACKGROUND_AHEAD, DEFAULT_COMMIT_BATCH};

/// The README's examples, run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;
