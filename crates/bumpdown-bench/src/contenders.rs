//! The arenas under comparison, behind small traits.
//!
//! Each benchmark kernel is written once, generic over these traits, and
//! monomorphised per arena: every method here is `#[inline(always)]` and forwards
//! to the crate's own, ordinary allocation call, so the code in a timed loop is
//! exactly what a user of that crate would get. Adding an arena means one
//! `contender!` line and one line in [`visit_all`].
//!
//! * [`Contender`]: an arena, as its owner makes, fills and resets it.
//! * [`Handle`]: what a kernel allocates through: a contender itself, or a
//!   [`bumpdown::Scope`] handle.
//! * [`Column`]: a column of the speed table: an owner that runs each batch of
//!   allocations through a handle. Every contender is a column whose handle is
//!   itself; [`InScope`] is the column of bumpdown's scope handle, whose batches
//!   each run in one `arena.scope(|s| ...)`.

/// What a kernel allocates through: an arena's allocation calls, so that a kernel
/// written once runs through every contender and through a handle that is not an
/// arena ([`bumpdown::Scope`]).
///
/// Methods return `&mut` from `&self` because that is the shape of every arena API
/// under test (allocation through a shared reference).
#[allow(clippy::mut_from_ref)]
pub trait Handle {
    /// Moves `value` into the arena.
    fn alloc<T: Copy + 'static>(&self, value: T) -> &mut T;

    /// Copies `src` into the arena.
    fn alloc_slice_copy<T: Copy + 'static>(&self, src: &[T]) -> &mut [T];

    /// Copies `src` into the arena.
    fn alloc_str(&self, src: &str) -> &mut str;

    /// Copies a `'static` slice (a literal). Crates without a dedicated call use
    /// their ordinary slice copy; the length is a compile-time constant either way.
    #[inline(always)]
    fn alloc_slice_lit<T: Copy + 'static>(&self, src: &'static [T]) -> &mut [T] {
        self.alloc_slice_copy(src)
    }

    /// Copies a `'static` string (a literal); see [`Handle::alloc_slice_lit`].
    #[inline(always)]
    fn alloc_str_lit(&self, src: &'static str) -> &mut str {
        self.alloc_str(src)
    }
}

/// What a benchmark needs from a bump arena besides its allocation calls: how its
/// owner makes and resets it.
pub trait Contender: Handle + Sized + 'static {
    /// Column name in the report.
    const NAME: &'static str;

    /// An empty arena, as a user would start one.
    fn new() -> Self;

    /// An arena whose first chunk holds at least `bytes`, so the timed batches
    /// never reach the chunk allocator.
    fn with_capacity(bytes: usize) -> Self;

    /// Frees every allocation at once with the crate's ordinary reset call.
    fn reset(&mut self);
}

/// Something run once per contender type (the arenas are different types, so
/// this is how code that is generic over [`Contender`] gets called for each).
pub trait Visitor {
    /// Called once for each contender, in column order.
    fn visit<A: Contender>(&mut self);
}

/// Calls `visitor` for every contender, in the report's column order.
pub fn visit_all(visitor: &mut impl Visitor) {
    visitor.visit::<bumpdown::Arena>();
    visitor.visit::<bumpdown::VmArena>();
    visitor.visit::<bumpdown::SyncArena>();
    visitor.visit::<stumpalo::Arena>();
    visitor.visit::<bumpalo::Bump>();
    visitor.visit::<bump_scope::Bump>();
    visitor.visit::<blink_alloc::Blink>();
}

/// The contenders' names in column order: the speed table's columns but the scope handle's.
pub fn names() -> Vec<&'static str> {
    column_names().into_iter().filter(|name| *name != InScope::NAME).collect()
}

/// Work to run with a handle of any type (a closure cannot be generic over it).
pub trait Batch {
    /// What the work returns.
    type Output;
    /// Runs the work, allocating through `handle`.
    fn run<H: Handle>(self, handle: &H) -> Self::Output;
}

/// A column of the speed table: an arena that its owner sizes, runs batches of
/// allocations on, and frees between batches.
pub trait Column: Sized + 'static {
    /// Column name in the report.
    const NAME: &'static str;

    /// An arena whose first chunk holds at least `bytes`, so the timed batches
    /// never reach the chunk allocator.
    fn with_capacity(bytes: usize) -> Self;

    /// Runs `batch` with this column's handle: the arena itself, or a scope of it.
    fn with_handle<B: Batch>(&mut self, batch: B) -> B::Output;

    /// Frees what the batches allocated, as this column's users do between two.
    fn reset(&mut self);
}

/// A contender is a column whose handle is itself.
impl<A: Contender> Column for A {
    const NAME: &'static str = A::NAME;

    #[inline(always)]
    fn with_capacity(bytes: usize) -> Self {
        Contender::with_capacity(bytes)
    }
    #[inline(always)]
    fn with_handle<B: Batch>(&mut self, batch: B) -> B::Output {
        batch.run(self)
    }
    #[inline(always)]
    fn reset(&mut self) {
        Contender::reset(self);
    }
}

/// bumpdown's scope handle as a column: a `bumpdown::Arena` whose every batch runs
/// in one `arena.scope(|s| ...)` through the handle `s`, as a scope user writes a
/// round of temporary work. Leaving the scope frees the batch, so [`Column::reset`]
/// has nothing left to do: entering and leaving the scope are this column's reset
/// (what its `clear` cells time; the allocation rows start the clock inside it).
pub struct InScope(bumpdown::Arena);

impl Column for InScope {
    const NAME: &'static str = "bumpdown Scope";

    #[inline(always)]
    fn with_capacity(bytes: usize) -> Self {
        InScope(bumpdown::Arena::with_capacity(bytes))
    }
    /// The closure is inlined like the other columns' batches: called out of line,
    /// it would take the handle's address and keep its bump pointer in memory.
    #[inline(always)]
    fn with_handle<B: Batch>(&mut self, batch: B) -> B::Output {
        self.0.scope(
            #[inline(always)]
            |s| batch.run(&*s),
        )
    }
    /// Nothing: the scope that each batch ran in has already rewound the arena.
    #[inline(always)]
    fn reset(&mut self) {}
}

/// Something run once per column type; see [`Visitor`].
pub trait ColumnVisitor {
    /// Called once for each column, in the speed table's order.
    fn visit<C: Column>(&mut self);
}

/// Calls `visitor` for every column of the speed table, in order: bumpdown's
/// `Arena`, its scope handle, then the other contenders as in [`visit_all`].
pub fn visit_columns(visitor: &mut impl ColumnVisitor) {
    /// Every contender is a column; the scope handle's column follows the arena's.
    struct Columns<'a, V>(&'a mut V);
    impl<V: ColumnVisitor> Visitor for Columns<'_, V> {
        fn visit<A: Contender>(&mut self) {
            self.0.visit::<A>();
            if A::NAME == <bumpdown::Arena as Contender>::NAME {
                self.0.visit::<InScope>();
            }
        }
    }
    visit_all(&mut Columns(visitor));
}

/// The speed table's column names, in order.
pub fn column_names() -> Vec<&'static str> {
    struct Names(Vec<&'static str>);
    impl ColumnVisitor for Names {
        fn visit<C: Column>(&mut self) {
            self.0.push(C::NAME);
        }
    }
    let mut names = Names(Vec::new());
    visit_columns(&mut names);
    names.0
}

/// [`Handle`] for `$arena`: each call's expression, with `$a` the arena and the
/// argument named in brackets; `$extra` overrides the literal calls' defaults.
macro_rules! handle {
    ($arena:ty, |$a:ident| {
        alloc($v:ident): $alloc:expr,
        slice($s:ident): $slice:expr,
        str($t:ident): $str:expr $(,)?
    } $(, { $($extra:tt)* })?) => {
        impl Handle for $arena {
            #[inline(always)]
            fn alloc<T: Copy + 'static>(&self, $v: T) -> &mut T {
                let $a = self;
                $alloc
            }
            #[inline(always)]
            fn alloc_slice_copy<T: Copy + 'static>(&self, $s: &[T]) -> &mut [T] {
                let $a = self;
                $slice
            }
            #[inline(always)]
            fn alloc_str(&self, $t: &str) -> &mut str {
                let $a = self;
                $str
            }
            $($($extra)*)?
        }
    };
}

/// [`Handle`] and [`Contender`] for `$arena`. The short form is for an arena whose own
/// `new`, `with_capacity(bytes)`, `alloc`, `alloc_slice_copy` and `alloc_str` are the
/// calls measured and `$reset` its reset; the long form gives each call's expression.
macro_rules! contender {
    ($arena:ty, $name:literal, $reset:ident $(, { $($extra:tt)* })?) => {
        contender!($arena, $name, |a| {
            new: <$arena>::new(),
            with_capacity(bytes): <$arena>::with_capacity(bytes),
            alloc(v): <$arena>::alloc(a, v),
            slice(s): <$arena>::alloc_slice_copy(a, s),
            str(s): <$arena>::alloc_str(a, s),
            reset: <$arena>::$reset(a),
        } $(, { $($extra)* })?);
    };
    ($arena:ty, $name:literal, |$a:ident| {
        new: $new:expr,
        with_capacity($bytes:ident): $capacity:expr,
        alloc($v:ident): $alloc:expr,
        slice($s:ident): $slice:expr,
        str($t:ident): $str:expr,
        reset: $reset:expr $(,)?
    } $(, { $($extra:tt)* })?) => {
        handle!($arena, |$a| { alloc($v): $alloc, slice($s): $slice, str($t): $str } $(, { $($extra)* })?);

        impl Contender for $arena {
            const NAME: &'static str = $name;

            #[inline(always)]
            fn new() -> Self {
                $new
            }
            #[inline(always)]
            fn with_capacity($bytes: usize) -> Self {
                $capacity
            }
            #[inline(always)]
            fn reset(&mut self) {
                let $a = self;
                $reset
            }
        }
    };
}

contender!(bumpdown::Arena, "bumpdown", reset);

/// Address space a `VmArena` contender reserves: far more than any row uses, and free.
const VM_RESERVE: usize = 64 << 30;

// One reservation holds everything; capacity is committed as it is used.
contender!(bumpdown::VmArena, "VmArena", |a| {
    new: bumpdown::VmArena::new(VM_RESERVE),
    with_capacity(_bytes): bumpdown::VmArena::new(VM_RESERVE),
    alloc(v): bumpdown::VmArena::alloc(a, v),
    slice(s): bumpdown::VmArena::alloc_slice_copy(a, s),
    str(s): bumpdown::VmArena::alloc_str(a, s),
    reset: bumpdown::VmArena::reset(a),
});

// The thread-shared arena used from one thread: every bump is an atomic
// read-modify-write on the current chunk (what sharing costs when nothing contends).
contender!(bumpdown::SyncArena, "SyncArena", reset);

// `clear` (alias `reset`) keeps every chunk for reuse. stumpalo has dedicated calls for
// literals; they are used, as its users would.
contender!(stumpalo::Arena, "stumpalo", clear, {
    #[inline(always)]
    fn alloc_slice_lit<T: Copy + 'static>(&self, src: &'static [T]) -> &mut [T] {
        stumpalo::Arena::alloc_slice_lit_copy(self, src)
    }
    #[inline(always)]
    fn alloc_str_lit(&self, src: &'static str) -> &mut str {
        stumpalo::Arena::alloc_str_lit(self, src)
    }
});

// `reset` keeps only the current (newest, largest) chunk and frees the others.
contender!(bumpalo::Bump, "bumpalo", reset);

// The bumpalo facade (`crates/bumpdown-bumpalo`): not a column of the speed tables (it
// is `bumpdown::Arena` underneath), only of the fast-path table, which shows that its
// calls compile to the arena's.
contender!(bumpdown_bumpalo::Bump, "bumpalo facade", reset);

// `BumpBox::leak` turns the owning box into the plain `&mut` the other crates return;
// for `Copy` types the box has no destructor to skip. `reset` keeps only the largest
// chunk and frees the others (`reset_to_start` would keep them all; `reset` is the
// documented everyday call).
contender!(bump_scope::Bump, "bump-scope", |a| {
    new: bump_scope::Bump::new(),
    with_capacity(bytes): bump_scope::Bump::with_capacity(
        std::alloc::Layout::from_size_align(bytes, 16).expect("small capacity"),
    ),
    alloc(v): bump_scope::BumpBox::leak(bump_scope::Bump::alloc(a, v)),
    slice(s): bump_scope::BumpBox::leak(bump_scope::Bump::alloc_slice_copy(a, s)),
    str(s): bump_scope::BumpBox::leak(bump_scope::Bump::alloc_str(a, s)),
    reset: bump_scope::Bump::reset(a),
});

// Blink allocates its first chunk lazily, at least `with_chunk_size` large; `reset`
// keeps only the last chunk and frees the others.
contender!(blink_alloc::Blink, "blink-alloc", |a| {
    new: blink_alloc::Blink::new(),
    with_capacity(bytes): blink_alloc::Blink::with_chunk_size(bytes),
    alloc(v): blink_alloc::Blink::put(a, v),
    slice(s): blink_alloc::Blink::copy_slice(a, s),
    str(s): blink_alloc::Blink::copy_str(a, s),
    reset: blink_alloc::Blink::reset(a),
});

// bumpdown's scope handle has the arena's whole allocation API; bumpdown has no
// dedicated literal calls, so the literals take the defaults' ordinary copies.
handle!(bumpdown::Scope<'_, '_>, |a| {
    alloc(v): bumpdown::Scope::alloc(a, v),
    slice(s): bumpdown::Scope::alloc_slice_copy(a, s),
    str(s): bumpdown::Scope::alloc_str(a, s),
});

#[cfg(test)]
mod tests {
    use super::*;

    /// Every column stores what its handle is given, and its batches start at the
    /// same place after a reset (for the scope column: after each scope). Every
    /// contender is a column, so this covers each `Contender::reset` too.
    struct ColumnRoundtrip;
    impl ColumnVisitor for ColumnRoundtrip {
        fn visit<C: Column>(&mut self) {
            struct Check;
            impl Batch for Check {
                type Output = *const u64;
                fn run<H: Handle>(self, handle: &H) -> *const u64 {
                    assert_eq!(*handle.alloc(7u64), 7);
                    assert_eq!(handle.alloc_slice_copy(&[1u16, 2, 3]), &[1, 2, 3]);
                    assert_eq!(handle.alloc_str("abc"), "abc");
                    assert_eq!(handle.alloc_slice_lit(&[9u8; 5]), &[9; 5]);
                    assert_eq!(handle.alloc_str_lit("xyz"), "xyz");
                    handle.alloc(1u64)
                }
            }
            let mut arena = C::with_capacity(1 << 16);
            let first = arena.with_handle(Check);
            arena.reset();
            let again = arena.with_handle(Check);
            assert_eq!(first, again, "{} reuses memory after reset", C::NAME);
        }
    }

    #[test]
    fn every_column_round_trips() {
        visit_columns(&mut ColumnRoundtrip);
    }
}
