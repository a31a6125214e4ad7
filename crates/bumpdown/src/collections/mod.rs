//! Collections that live in an arena and drop what they own: [`Box`], [`Vec`] and
//! [`String`], with the everyday API of their `std` namesakes.
//!
//! They allocate from any bumpdown arena (an [`Arena`](crate::Arena), a
//! [`Scope`](crate::Scope), a [`ScopeGuard`](crate::ScopeGuard), a
//! [`FixedArena`](crate::FixedArena) or a [`BufferArena`](crate::BufferArena)), so they
//! work without `alloc`. Their lifetime `'a` is the borrow of the arena: the arena cannot
//! be reset while one of them lives.
//!
//! ```
//! use bumpdown::collections::{CollectIn, String, Vec};
//!
//! let arena = bumpdown::Arena::new();
//! let mut names = Vec::new_in(&arena);
//! for i in 0..3 {
//!     names.push(bumpdown::format!(in &arena, "item {i}"));
//! }
//! assert_eq!(names, ["item 0", "item 1", "item 2"]);
//!
//! let lengths: Vec<usize> = names.iter().map(|s| s.len()).collect_in(&arena);
//! assert_eq!(lengths, [6, 6, 6]);
//!
//! let mut greeting = String::from_str_in("hello", &arena);
//! greeting.push_str(", world");
//! let frozen: &str = greeting.into_bump_str(); // no copy: the bytes stay where they are
//! assert_eq!(frozen, "hello, world");
//! ```
//!
//! Unlike values put in the arena with [`Arena::alloc`](crate::Arena::alloc), which are
//! never dropped, a `Box`, `Vec` or `String` drops its contents when it is dropped, and
//! gives its buffer back to the arena when the buffer is the arena's newest allocation.
//!
//! # In a scope
//! A collection borrows the handle it allocates from. In a [`Scope`](crate::Scope) that is
//! the scope handle, so the collection (and a slice made from it with `into_bump_slice`)
//! must be gone before a nested scope borrows the handle mutably; values allocated with
//! the scope's own `alloc` methods live for the whole scope as usual. Nothing allocated in
//! a scope can leave it:
//!
//! ```compile_fail
//! let mut arena = bumpdown::Arena::new();
//! let escaped = arena.scope(|s| bumpdown::vec![in &*s; 1, 2, 3]);
//! ```
//!
//! # Growth
//! A buffer that is the arena's newest allocation grows in place: the arena bumps
//! upwards, so the buffer only has to move the bump pointer past its new end, and
//! nothing is copied. (A `SyncArena`'s handle, which bumps downwards, moves the contents
//! down into the free space below the old block plus the old block: one `memmove` of the
//! old size.) A buffer that is not the newest is copied to a fresh block and its old block
//! stays unused until the arena is reset.

pub mod boxed;
mod macros;
mod raw;
#[cfg(feature = "serde")]
mod serde;
mod std_traits;
pub mod string;
pub mod vec;
mod vec_edit;

pub use self::boxed::Box;
pub use self::raw::ArenaAllocator;
pub use self::string::{FromUtf16Error, FromUtf8Error, String};
pub use self::vec::Vec;

/// Building a collection from an iterator, in an arena: what
/// [`CollectIn::collect_in`] calls.
///
/// ```
/// use bumpdown::collections::{FromIteratorIn, Vec};
///
/// let arena = bumpdown::Arena::new();
/// let v = Vec::from_iter_in(1..=3, &arena);
/// assert_eq!(v, [1, 2, 3]);
/// ```
pub trait FromIteratorIn<'a, T>: Sized {
    /// Builds `Self` from `iter`, allocating from `arena`.
    fn from_iter_in<I, A>(iter: I, arena: &'a A) -> Self
    where
        I: IntoIterator<Item = T>,
        A: ArenaAllocator + 'a;
}

/// `collect`, into an arena: `iter.collect_in(&arena)`.
///
/// ```
/// use bumpdown::collections::{CollectIn, String, Vec};
///
/// let arena = bumpdown::Arena::new();
/// let squares: Vec<u32> = (1..4).map(|x| x * x).collect_in(&arena);
/// assert_eq!(squares, [1, 4, 9]);
/// let word: String = ['a', 'r', 'e', 'n', 'a'].into_iter().collect_in(&arena);
/// assert_eq!(word, "arena");
/// ```
pub trait CollectIn: Iterator + Sized {
    /// Collects the items into a `C` allocated from `arena`.
    fn collect_in<'a, C, A>(self, arena: &'a A) -> C
    where
        C: FromIteratorIn<'a, Self::Item>,
        A: ArenaAllocator + 'a,
    {
        C::from_iter_in(self, arena)
    }
}

impl<I: Iterator> CollectIn for I {}
