//! `bumpdown-bench`: compares bumpdown with other bump allocators and prints a
//! markdown report. Run `cargo run --release -p bumpdown-bench -- --help`.
//!
//! The same binary is parent and child: the parent re-runs itself with
//! `child ...` for every measurement that needs a process of its own.
//!
//! The library holds everything; the binary (`src/main.rs`) calls [`app::main`],
//! and `benches/criterion.rs` drives the same [`rows`] through criterion.
//!
//! A run is measured once into a results file (`results.rs`) and drawn from it: every
//! section's results type implements `section::Section` in the section's own module
//! (its markdown, charts and the figures `compare` reads), its words are a part of
//! `src/prose.md`, and `report.rs` only puts the sections in order.

pub mod app;
mod bumper;
mod charts;
mod cli;
mod collection_kernels;
mod compare;
pub mod contenders;
mod fastpath;
mod fresh;
pub mod harness;
pub mod heap;
pub mod kernels;
mod machine;
mod plan;
mod procs;
mod programs;
mod progress;
mod realuse;
mod report;
mod resets;
mod results;
pub mod rows;
mod scope_kernels;
mod scopes;
mod section;
mod seed004;
mod sources;
mod speed;
mod svg;
mod table;
mod text;
mod threads;

/// Where the README's benchmark section comes from (`tests/readme.rs` checks it).
pub use report::{README_END, README_IMAGES, STORED_RUN};
