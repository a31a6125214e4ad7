//! The timed loops of the collections table: build a string or a vector in an arena,
//! then reset the arena. Each column is a way its users would write it:
//! bumpdown's `collections`, bumpalo's `collections`, and `allocator_api2::vec::Vec`
//! on `&bumpalo::Bump`, on `&bumpdown::Arena` and on the global heap. The last is the
//! `allocator_api2` code with no arena under it: the arena columns' distance from it is
//! what their allocators cost.
//!
//! Every function is `#[inline(never)]` and gets the arena as `&mut` (a helper that is
//! handed an arena); the pieces and values pass through `black_box` once per build, and
//! the finished string or vector goes through `black_box` before the reset. The arenas
//! are sized for a build and run two builds before the first sample (see
//! [`timed`](crate::scope_kernels::timed)), so no timed build allocates a chunk.

use std::hint::black_box;

use allocator_api2::vec::Vec as Api2Vec;

/// Bytes of the string built by one `string_build` operation (about; the last piece
/// may end past it).
pub const STRING_BYTES: usize = 4096;
/// Elements pushed by one `vec_push` operation.
pub const VEC_LEN: usize = 1000;
/// Piece lengths, cycled: short, irregular, as in code that formats small fields.
const PIECE_LENS: [usize; 8] = [3, 7, 1, 12, 5, 9, 16, 2];
/// Arena capacity for one build: comfortably more than the largest buffer.
pub const ARENA_BYTES: usize = 64 * 1024;

/// The pieces of one `string_build` operation: ASCII text cut into [`PIECE_LENS`].
pub fn pieces() -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut total = 0;
    for len in PIECE_LENS.iter().cycle() {
        if total >= STRING_BYTES {
            break;
        }
        out.push(crate::sources::text(*len));
        total += len;
    }
    out
}

/// Each `name(Arena, input)`: `$new(&*arena)`, `$fill` through it (the collection
/// named `$c`), its `$view` through `black_box`, then `arena.reset()`.
macro_rules! build_then_reset {
    ($($(#[$doc:meta])* $name:ident($arena:ty, $input:ident: $input_ty:ty) = $new:path, $view:ident,
        |$c:ident| $fill:expr;)*) => {$(
        $(#[$doc])*
        #[inline(never)]
        pub fn $name(arena: &mut $arena, $input: $input_ty) {
            {
                let mut $c = $new(&*arena);
                $fill;
                black_box($c.$view());
            }
            arena.reset();
        }
    )*};
}

build_then_reset! {
    /// bumpdown: `collections::String::new_in(&arena)` + `push_str`.
    string_bumpdown(bumpdown::Arena, pieces: &[&str]) = bumpdown::collections::String::new_in, as_str,
        |s| for piece in black_box(pieces) { s.push_str(piece) };
    /// bumpalo: `collections::String::new_in(&bump)` + `push_str`.
    string_bumpalo(bumpalo::Bump, pieces: &[&str]) = bumpalo::collections::String::new_in, as_str,
        |s| for piece in black_box(pieces) { s.push_str(piece) };
    /// `allocator_api2::vec::Vec<u8, &bumpalo::Bump>` + `extend_from_slice`.
    string_api2_bumpalo(bumpalo::Bump, pieces: &[&str]) = Api2Vec::new_in, as_slice,
        |v| for piece in black_box(pieces) { v.extend_from_slice(piece.as_bytes()) };
    /// `allocator_api2::vec::Vec<u8, &bumpdown::Arena>` + `extend_from_slice`.
    string_api2_bumpdown(bumpdown::Arena, pieces: &[&str]) = Api2Vec::new_in, as_slice,
        |v| for piece in black_box(pieces) { v.extend_from_slice(piece.as_bytes()) };
    /// bumpdown: `collections::Vec::new_in(&arena)` + [`VEC_LEN`] × `push`.
    vec_bumpdown(bumpdown::Arena, first: u64) = bumpdown::collections::Vec::new_in, as_slice,
        |v| for i in 0..VEC_LEN as u64 { v.push(first + i) };
    /// bumpalo: `collections::Vec::new_in(&bump)` + [`VEC_LEN`] × `push`.
    vec_bumpalo(bumpalo::Bump, first: u64) = bumpalo::collections::Vec::new_in, as_slice,
        |v| for i in 0..VEC_LEN as u64 { v.push(first + i) };
    /// `allocator_api2::vec::Vec<u64, &bumpalo::Bump>` + [`VEC_LEN`] × `push`.
    vec_api2_bumpalo(bumpalo::Bump, first: u64) = Api2Vec::new_in, as_slice,
        |v| for i in 0..VEC_LEN as u64 { v.push(first + i) };
    /// `allocator_api2::vec::Vec<u64, &bumpdown::Arena>` + [`VEC_LEN`] × `push`.
    vec_api2_bumpdown(bumpdown::Arena, first: u64) = Api2Vec::new_in, as_slice,
        |v| for i in 0..VEC_LEN as u64 { v.push(first + i) };
}

/// `allocator_api2::vec::Vec<u8>` on the global heap + `extend_from_slice`, then
/// dropped (no arena to reset).
#[inline(never)]
pub fn string_api2_heap(pieces: &[&str]) {
    let mut v = Api2Vec::<u8>::new();
    for piece in black_box(pieces) {
        v.extend_from_slice(piece.as_bytes());
    }
    black_box(v.as_slice());
}

/// `allocator_api2::vec::Vec<u64>` on the global heap + [`VEC_LEN`] × `push`, then
/// dropped.
#[inline(never)]
pub fn vec_api2_heap(first: u64) {
    let mut v = Api2Vec::<u64>::new();
    for i in 0..VEC_LEN as u64 {
        v.push(first + i);
    }
    black_box(v.as_slice());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What growing one string to `target` bytes by `piece`-byte `push_str`s cost.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Growth {
        /// Capacity changes.
        grows: usize,
        /// Of those, how many moved the buffer to a fresh block (the others moved it down
        /// over its own old block, in place).
        moves: usize,
        /// Bytes copied by all grows: each grow copies the old capacity (both crates pass
        /// the old layout to their `grow`, which copies `old.size()` bytes).
        copied: usize,
        /// The final capacity.
        capacity: usize,
        /// The arena's `allocated_bytes()` afterwards (chunk sizes, headers excluded).
        allocated: usize,
    }

    /// Builds the string in a fresh arena and counts from the capacity changes: memcpy
    /// itself cannot be counted, but every grow copies exactly the old capacity.
    fn grow_string(
        target: usize,
        piece: &str,
        mut push: impl FnMut(&str) -> (usize, *const u8),
    ) -> (usize, usize, usize, usize) {
        let (mut grows, mut moves, mut copied) = (0, 0, 0);
        let (mut cap, mut ptr) = (0usize, std::ptr::null::<u8>());
        let mut len = 0;
        while len < target {
            let (new_cap, new_ptr) = push(piece);
            len += piece.len();
            if new_cap != cap {
                grows += 1;
                copied += cap;
                // A grow in place moves the data down by the growth: the new block ends
                // where the old one did.
                if cap != 0 && new_ptr.wrapping_add(new_cap) != ptr.wrapping_add(cap) {
                    moves += 1;
                }
                (cap, ptr) = (new_cap, new_ptr);
            }
        }
        (grows, moves, copied, cap)
    }

    /// Grows a `$string` (a `collections::String` type) in a new `$arena` to `target`
    /// bytes by `piece`s.
    macro_rules! growth {
        ($arena:ty, $string:ty, $target:expr, $piece:expr) => {{
            let arena = <$arena>::new();
            let mut s = <$string>::new_in(&arena);
            let (grows, moves, copied, capacity) = grow_string($target, $piece, |p| {
                s.push_str(p);
                (s.capacity(), s.as_ptr())
            });
            Growth { grows, moves, copied, capacity, allocated: arena.allocated_bytes() }
        }};
    }

    #[test]
    fn every_way_builds_the_same_string_and_vector() {
        let pieces = pieces();
        let total: usize = pieces.iter().map(|p| p.len()).sum();
        assert!((STRING_BYTES..STRING_BYTES + 16).contains(&total));
        let mut arena = bumpdown::Arena::with_capacity(ARENA_BYTES);
        let mut bump = bumpalo::Bump::with_capacity(ARENA_BYTES);
        for _ in 0..2 {
            string_bumpdown(&mut arena, &pieces);
            string_bumpalo(&mut bump, &pieces);
            string_api2_bumpalo(&mut bump, &pieces);
            string_api2_bumpdown(&mut arena, &pieces);
            vec_bumpdown(&mut arena, 1);
            vec_bumpalo(&mut bump, 1);
            vec_api2_bumpalo(&mut bump, 1);
            vec_api2_bumpdown(&mut arena, 1);
        }
        assert_eq!(arena.stats().used, 0);
    }

    /// The figures of the report: growing a 1 MiB string (`--nocapture` prints them).
    /// bumpdown reuses the old block when its buffer is the newest allocation, so it
    /// must not hold more memory than bumpalo afterwards.
    #[test]
    fn growth_of_a_one_mib_string() {
        const MIB: usize = 1 << 20;
        for piece_len in [1, 16] {
            let piece = crate::sources::text(piece_len);
            let ours = growth!(bumpdown::Arena, bumpdown::collections::String, MIB, piece);
            let theirs = growth!(bumpalo::Bump, bumpalo::collections::String, MIB, piece);
            println!("{piece_len:>2}-byte pieces: bumpdown {ours:?}");
            println!("{piece_len:>2}-byte pieces: bumpalo  {theirs:?}");
            assert!(ours.capacity >= MIB && theirs.capacity >= MIB);
            assert!(ours.allocated <= theirs.allocated, "{ours:?} vs {theirs:?}");
        }
    }
}
