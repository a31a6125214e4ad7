//! One conformance suite for every face of the allocator, in the spirit of Zig's
//! `std.heap.testAllocator`: the same behavioural checks run over `Arena` (several
//! `MIN_ALIGN`s, on the global allocator and on a failing one), a closure scope, a
//! `ScopeGuard`, a `BufferArena`, a `FixedArena` and its guard, a `VmArena` and its
//! guard, a `SyncArena` and a `LocalArena`.
//!
//! Each face is reached through the object-safe `Face` trait below, which names what
//! every face can do (allocate raw blocks, values, slices, strings) and, as optional
//! capabilities, what only some can (checkpoints, scopes, reset, limits, resizing through
//! `allocator_api2`, an invariant walk). The `suite!` macro stamps one `#[test]` per
//! behaviour and face; a face is listed under a behaviour only if it has the capability,
//! and the behaviour asserts that it does, so a wrongly listed face fails rather than
//! passing vacuously.

mod common;

use std::alloc::Layout;
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

use allocator_api2::alloc::Allocator;
use bumpdown::{AllocError, AllocErrorKind, Arena, BackingAllocator, Bump, Checkpoint, FixedArena, Scope, ScopeGuard};
use bumpdown::{BufferArena, FixedScopeGuard, LocalArena, SyncArena};
use common::{scaled, FailOnce, Rng};

// ----- The faces ---------------------------------------------------------------------

/// What the behaviours below need from an arena. Methods a face lacks keep the default,
/// which reports "not supported" (`false` or `None`).
trait Face {
    /// The alignment every non-empty block is promised, at least.
    fn min_align(&self) -> usize;

    fn try_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError>;
    /// The panicking front door (`alloc_layout`).
    fn layout(&self, layout: Layout) -> NonNull<u8>;
    fn value(&self, v: u64) -> *mut u64;
    fn slice_copy(&self, src: &[u8]) -> *mut [u8];
    fn str_copy(&self, src: &str) -> *mut str;
    fn try_fill_u8(&self, len: usize) -> Result<*mut u8, AllocError>;
    fn fill_u8(&self, len: usize) -> *mut u8;
    fn try_fill_u64(&self, len: usize) -> Result<*mut u64, AllocError>;
    fn fill_u64(&self, len: usize) -> *mut u64;

    /// Runs the face's `check_invariants` (every one the face can reach); false if it
    /// has none.
    fn check(&self) -> bool {
        false
    }
    fn checkpoint(&self) -> Option<Checkpoint> {
        None
    }
    fn rewind(&mut self, _cp: Checkpoint) {
        unreachable!("this face has no checkpoints")
    }
    /// Frees everything; false if the face cannot.
    fn reset(&mut self) -> bool {
        false
    }
    /// Whether the first block after a reset is promised to land where the first block
    /// of a fresh face did (the documentation says reset starts over from the first chunk,
    /// the buffer, or the start of the reservation).
    fn reset_starts_over(&self) -> bool {
        false
    }
    /// Runs `body` in a nested scope, whose exit frees what `body` allocated; false (and
    /// `body` not run) if the face has no scopes.
    fn scoped(&mut self, _body: &mut dyn FnMut(&mut dyn Face)) -> bool {
        false
    }
    /// Sets an allocation limit of `bytes` past what the face holds now; false if the
    /// face has no limit.
    fn limit_to_held_plus(&self, _bytes: usize) -> bool {
        false
    }
    /// Bytes the face holds from its backing memory, where it says.
    fn held(&self) -> Option<usize> {
        None
    }
    /// The error kind of a request past the face's limit or capacity.
    fn full_kind(&self) -> AllocErrorKind {
        AllocErrorKind::LimitReached
    }
    /// Whether the face is an `allocator_api2::alloc::Allocator`.
    fn resizes(&self) -> bool {
        false
    }
    /// Whether growing the newest block is promised to keep its address.
    fn grows_newest_in_place(&self) -> bool {
        false
    }
    /// # Safety
    /// As for `Allocator::grow`.
    unsafe fn grow(&self, _p: NonNull<u8>, _old: Layout, _new: Layout) -> Option<NonNull<u8>> {
        unreachable!("this face does not resize")
    }
    /// # Safety
    /// As for `Allocator::shrink`.
    unsafe fn shrink(&self, _p: NonNull<u8>, _old: Layout, _new: Layout) -> Option<NonNull<u8>> {
        unreachable!("this face does not resize")
    }
}

/// The allocation methods every face has under the same names.
macro_rules! alloc_methods {
    () => {
        fn try_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
            self.try_alloc_layout(layout)
        }
        fn layout(&self, layout: Layout) -> NonNull<u8> {
            self.alloc_layout(layout)
        }
        fn value(&self, v: u64) -> *mut u64 {
            self.alloc(v)
        }
        fn slice_copy(&self, src: &[u8]) -> *mut [u8] {
            self.alloc_slice_copy(src)
        }
        fn str_copy(&self, src: &str) -> *mut str {
            self.alloc_str(src)
        }
        fn try_fill_u8(&self, len: usize) -> Result<*mut u8, AllocError> {
            self.try_alloc_slice_fill_copy(len, 0u8).map(|s| s.as_mut_ptr())
        }
        fn fill_u8(&self, len: usize) -> *mut u8 {
            self.alloc_slice_fill_copy(len, 0u8).as_mut_ptr()
        }
        fn try_fill_u64(&self, len: usize) -> Result<*mut u64, AllocError> {
            self.try_alloc_slice_fill_copy(len, 0u64).map(|s| s.as_mut_ptr())
        }
        fn fill_u64(&self, len: usize) -> *mut u64 {
            self.alloc_slice_fill_copy(len, 0u64).as_mut_ptr()
        }
    };
}

/// The capabilities of anything that derefs to an `Arena` (or a `VmArena`), which is an
/// `allocator_api2` allocator: invariants, limits, resizing.
macro_rules! arena_capabilities {
    ($arena:ty) => {
        fn check(&self) -> bool {
            let arena: &$arena = self;
            arena.check_invariants();
            true
        }
        fn limit_to_held_plus(&self, bytes: usize) -> bool {
            let arena: &$arena = self;
            arena.set_allocation_limit(Some(arena.allocated_bytes_including_metadata() + bytes));
            true
        }
        fn held(&self) -> Option<usize> {
            let arena: &$arena = self;
            Some(arena.allocated_bytes_including_metadata())
        }
        fn resizes(&self) -> bool {
            true
        }
        unsafe fn grow(&self, p: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>> {
            let arena: &$arena = self;
            // SAFETY: forwarded from the caller.
            unsafe { Allocator::grow(&arena, p, old, new) }.ok().map(NonNull::cast)
        }
        unsafe fn shrink(&self, p: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>> {
            let arena: &$arena = self;
            // SAFETY: forwarded from the caller.
            unsafe { Allocator::shrink(&arena, p, old, new) }.ok().map(NonNull::cast)
        }
    };
}

impl<const M: usize, A: BackingAllocator> Face for Arena<M, A> {
    alloc_methods!();
    arena_capabilities!(Arena<M, A>);
    fn min_align(&self) -> usize {
        M
    }
    fn checkpoint(&self) -> Option<Checkpoint> {
        Some(Arena::checkpoint(self))
    }
    fn rewind(&mut self, cp: Checkpoint) {
        Arena::rewind(self, cp)
    }
    fn reset(&mut self) -> bool {
        Arena::reset(self);
        true
    }
    fn reset_starts_over(&self) -> bool {
        true
    }
    fn scoped(&mut self, body: &mut dyn FnMut(&mut dyn Face)) -> bool {
        self.scope(|s| body(s));
        true
    }
}

impl<const M: usize, A: BackingAllocator> Face for Scope<'_, '_, M, A> {
    alloc_methods!();
    fn min_align(&self) -> usize {
        M
    }
    fn scoped(&mut self, body: &mut dyn FnMut(&mut dyn Face)) -> bool {
        self.scope(|s| body(s));
        true
    }
}

impl<const M: usize, A: BackingAllocator> Face for ScopeGuard<'_, M, A> {
    alloc_methods!();
    arena_capabilities!(Arena<M, A>);
    fn min_align(&self) -> usize {
        M
    }
    fn checkpoint(&self) -> Option<Checkpoint> {
        Some(Bump::checkpoint(self))
    }
    fn rewind(&mut self, cp: Checkpoint) {
        Bump::rewind(self, cp)
    }
    fn scoped(&mut self, body: &mut dyn FnMut(&mut dyn Face)) -> bool {
        body(&mut self.scope_guard());
        true
    }
}

impl<const M: usize, A: BackingAllocator> Face for BufferArena<'_, M, A> {
    alloc_methods!();
    arena_capabilities!(Arena<M, A>);
    fn min_align(&self) -> usize {
        M
    }
    fn checkpoint(&self) -> Option<Checkpoint> {
        Some(Bump::checkpoint(self))
    }
    fn rewind(&mut self, cp: Checkpoint) {
        BufferArena::rewind(self, cp)
    }
    fn reset(&mut self) -> bool {
        BufferArena::reset(self);
        true
    }
    fn reset_starts_over(&self) -> bool {
        true
    }
    fn scoped(&mut self, body: &mut dyn FnMut(&mut dyn Face)) -> bool {
        self.scope(|s| body(s));
        true
    }
}

// `FixedArena` has no `check_invariants`; its limit is its buffer.
impl<const M: usize> Face for FixedArena<'_, M> {
    alloc_methods!();
    fn min_align(&self) -> usize {
        M
    }
    fn checkpoint(&self) -> Option<Checkpoint> {
        Some(FixedArena::checkpoint(self))
    }
    fn rewind(&mut self, cp: Checkpoint) {
        FixedArena::rewind(self, cp)
    }
    fn reset(&mut self) -> bool {
        FixedArena::reset(self);
        true
    }
    fn reset_starts_over(&self) -> bool {
        true
    }
    fn scoped(&mut self, body: &mut dyn FnMut(&mut dyn Face)) -> bool {
        body(&mut self.scope_guard());
        true
    }
    fn held(&self) -> Option<usize> {
        Some(self.capacity())
    }
    fn full_kind(&self) -> AllocErrorKind {
        AllocErrorKind::Full
    }
}

impl<const M: usize> Face for FixedScopeGuard<'_, '_, M> {
    alloc_methods!();
    fn min_align(&self) -> usize {
        M
    }
    fn full_kind(&self) -> AllocErrorKind {
        AllocErrorKind::Full
    }
}

impl<A: BackingAllocator> Face for SyncArena<A> {
    alloc_methods!();
    fn min_align(&self) -> usize {
        1
    }
    fn check(&self) -> bool {
        self.check_invariants();
        true
    }
    fn reset(&mut self) -> bool {
        SyncArena::reset(self);
        true
    }
    fn held(&self) -> Option<usize> {
        Some(self.allocated_bytes())
    }
}

/// A `LocalArena` with its shared arena, so that both can be checked.
struct Local<'a, A: BackingAllocator> {
    shared: &'a SyncArena<A>,
    local: LocalArena<'a, A>,
}

impl<A: BackingAllocator> Face for Local<'_, A> {
    fn min_align(&self) -> usize {
        1
    }
    fn try_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        self.local.try_alloc_layout(layout)
    }
    fn layout(&self, layout: Layout) -> NonNull<u8> {
        self.local.alloc_layout(layout)
    }
    fn value(&self, v: u64) -> *mut u64 {
        self.local.alloc(v)
    }
    fn slice_copy(&self, src: &[u8]) -> *mut [u8] {
        self.local.alloc_slice_copy(src)
    }
    fn str_copy(&self, src: &str) -> *mut str {
        self.local.alloc_str(src)
    }
    fn try_fill_u8(&self, len: usize) -> Result<*mut u8, AllocError> {
        self.local.try_alloc_slice_fill_copy(len, 0u8).map(|s| s.as_mut_ptr())
    }
    fn fill_u8(&self, len: usize) -> *mut u8 {
        self.local.alloc_slice_fill_copy(len, 0u8).as_mut_ptr()
    }
    fn try_fill_u64(&self, len: usize) -> Result<*mut u64, AllocError> {
        self.local.try_alloc_slice_fill_copy(len, 0u64).map(|s| s.as_mut_ptr())
    }
    fn fill_u64(&self, len: usize) -> *mut u64 {
        self.local.alloc_slice_fill_copy(len, 0u64).as_mut_ptr()
    }
    fn check(&self) -> bool {
        self.local.check_invariants();
        self.shared.check_invariants();
        true
    }
}

#[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
mod vm_faces {
    use super::*;
    use bumpdown::{VmArena, VmScopeGuard};

    impl<const M: usize> Face for VmArena<M> {
        alloc_methods!();
        arena_capabilities!(VmArena<M>);
        fn min_align(&self) -> usize {
            M
        }
        fn checkpoint(&self) -> Option<Checkpoint> {
            Some(VmArena::checkpoint(self))
        }
        fn rewind(&mut self, cp: Checkpoint) {
            VmArena::rewind(self, cp)
        }
        fn reset(&mut self) -> bool {
            VmArena::reset(self);
            true
        }
        fn reset_starts_over(&self) -> bool {
            true
        }
        fn scoped(&mut self, body: &mut dyn FnMut(&mut dyn Face)) -> bool {
            body(&mut self.scope_guard());
            true
        }
        fn grows_newest_in_place(&self) -> bool {
            true
        }
    }

    impl<const M: usize> Face for VmScopeGuard<'_, M> {
        alloc_methods!();
        arena_capabilities!(VmArena<M>);
        fn min_align(&self) -> usize {
            M
        }
        fn checkpoint(&self) -> Option<Checkpoint> {
            Some(Bump::checkpoint(self))
        }
        fn rewind(&mut self, cp: Checkpoint) {
            Bump::rewind(self, cp)
        }
        fn scoped(&mut self, body: &mut dyn FnMut(&mut dyn Face)) -> bool {
            body(&mut self.scope_guard());
            true
        }
        fn grows_newest_in_place(&self) -> bool {
            true
        }
    }
}

// ----- Making each face ------------------------------------------------------------

/// What a behaviour runs on: a fresh face.
type Body<'b> = &'b mut dyn FnMut(&mut dyn Face);
/// Makes a fresh face (on `backing`, if the face takes chunks from an allocator) and
/// runs `body` on it.
type Harness = fn(&FailOnce, Body<'_>);

/// Bytes of the stack buffer under a `FixedArena`: room for every behaviour's blocks.
const FIXED_BYTES: usize = 256 * 1024;
/// Bytes of the buffer lent to a `BufferArena`: small, so that it spills early.
const BUFFER_BYTES: usize = 4096;
/// Address space a `VmArena` reserves (under Miri a heap block, so smaller).
#[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
const VM_RESERVE: usize = if cfg!(miri) { 512 * 1024 } else { 4 << 20 };
/// The regular chunk cap of the arenas on the failing allocator: requests over an
/// eighth of it (8 KiB) take out-of-band chunks, so the behaviours reach those too.
const SMALL_MAX_CHUNK: usize = 64 * 1024;

fn arena_1(_: &FailOnce, body: Body<'_>) {
    body(&mut Arena::<1>::with_min_align());
}

fn arena_8(_: &FailOnce, body: Body<'_>) {
    body(&mut Arena::<8>::with_min_align());
}

fn arena_16(_: &FailOnce, body: Body<'_>) {
    body(&mut Arena::<16>::with_min_align());
}

fn arena_fail_1(backing: &FailOnce, body: Body<'_>) {
    body(&mut Arena::<1, _>::new_in(backing).with_max_chunk_size(SMALL_MAX_CHUNK));
}

fn arena_fail_16(backing: &FailOnce, body: Body<'_>) {
    body(&mut Arena::<16, _>::new_in(backing).with_max_chunk_size(SMALL_MAX_CHUNK));
}

fn scope(backing: &FailOnce, body: Body<'_>) {
    let mut arena = Arena::<8, _>::new_in(backing).with_max_chunk_size(SMALL_MAX_CHUNK);
    arena.scope(|s| body(s));
    arena.check_invariants();
    assert_eq!(arena.stats().used, 0, "the scope's exit freed everything");
}

fn scope_guard(backing: &FailOnce, body: Body<'_>) {
    let mut arena = Arena::<1, _>::new_in(backing).with_max_chunk_size(SMALL_MAX_CHUNK);
    body(&mut arena.scope_guard());
    arena.check_invariants();
    assert_eq!(arena.stats().used, 0, "the guard's drop freed everything");
}

fn buffer(backing: &FailOnce, body: Body<'_>) {
    let mut buf = [MaybeUninit::<u8>::uninit(); BUFFER_BYTES];
    body(&mut BufferArena::<8, _>::new_in(&mut buf, backing));
}

fn fixed_1(_: &FailOnce, body: Body<'_>) {
    let mut buf = [MaybeUninit::<u8>::uninit(); FIXED_BYTES];
    body(&mut FixedArena::new(&mut buf));
}

fn fixed_16(_: &FailOnce, body: Body<'_>) {
    let mut buf = [MaybeUninit::<u8>::uninit(); FIXED_BYTES];
    body(&mut FixedArena::<16>::with_min_align(&mut buf));
}

fn fixed_guard(_: &FailOnce, body: Body<'_>) {
    let mut buf = [MaybeUninit::<u8>::uninit(); FIXED_BYTES];
    let mut arena = FixedArena::<8>::with_min_align(&mut buf);
    body(&mut arena.scope_guard());
    assert_eq!(arena.used(), 0, "the guard's drop freed everything");
}

#[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
fn vm_1(_: &FailOnce, body: Body<'_>) {
    body(&mut bumpdown::VmArena::with_options(bumpdown::VmOptions::new(VM_RESERVE).populate(false)));
}

#[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
fn vm_8(_: &FailOnce, body: Body<'_>) {
    body(&mut bumpdown::VmArena::<8>::with_min_align_and_options(bumpdown::VmOptions::new(VM_RESERVE).populate(false)));
}

#[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
fn vm_guard(_: &FailOnce, body: Body<'_>) {
    let options = bumpdown::VmOptions::new(VM_RESERVE).populate(false);
    let mut arena = bumpdown::VmArena::<16>::with_min_align_and_options(options);
    body(&mut arena.scope_guard());
    arena.check_invariants();
    assert_eq!(arena.stats().used, 0, "the guard's drop freed everything");
}

fn sync(backing: &FailOnce, body: Body<'_>) {
    body(&mut SyncArena::new_in(backing));
}

fn local(backing: &FailOnce, body: Body<'_>) {
    let shared = SyncArena::new_in(backing);
    body(&mut Local { shared: &shared, local: shared.local() });
    shared.check_invariants();
}

/// Runs `behaviour` on a fresh face made by `harness`, on an allocator that never fails.
fn fresh(harness: Harness, behaviour: fn(&mut dyn Face)) {
    let backing = FailOnce::default();
    harness(&backing, &mut |f| behaviour(f));
}

// ----- Bookkeeping of live blocks ----------------------------------------------------

/// The live blocks of a behaviour, each filled with its own byte.
#[derive(Default)]
struct Blocks {
    live: Vec<(*mut u8, usize, u8)>,
    next: u8,
}

impl Blocks {
    /// Records a fresh block of `len` bytes and fills it with a byte of its own.
    fn add(&mut self, p: *mut u8, len: usize) {
        self.next = self.next.wrapping_add(1).max(1);
        // SAFETY: a fresh block of `len` bytes, ours until the face frees it.
        unsafe { p.write_bytes(self.next, len) };
        self.live.push((p, len, self.next));
    }

    /// Forgets a block the face has freed or replaced.
    fn remove(&mut self, p: *mut u8) -> (usize, u8) {
        let i = self.live.iter().position(|b| b.0 == p).expect("a recorded block");
        let (_, len, byte) = self.live.remove(i);
        (len, byte)
    }

    /// Every block still holds its byte, and no two non-empty blocks overlap.
    fn verify(&self) {
        for &(p, len, byte) in &self.live {
            // SAFETY: live blocks of `len` bytes.
            let bytes = unsafe { std::slice::from_raw_parts(p, len) };
            assert!(all_are(bytes, byte), "block {p:p} ({len} bytes) lost its contents");
        }
        let mut spans: Vec<(usize, usize)> =
            self.live.iter().filter(|b| b.1 > 0).map(|&(p, len, _)| (p.addr(), p.addr() + len)).collect();
        spans.sort_unstable();
        for pair in spans.windows(2) {
            assert!(pair[0].1 <= pair[1].0, "blocks {:#x?} and {:#x?} overlap", pair[0], pair[1]);
        }
    }
}

/// Whether every byte of `bytes` is `byte`: the first is, and each equals the next. One
/// slice comparison (a `memcmp`), which Miri runs far faster than a loop over the bytes
/// or building a buffer of the byte to compare with.
fn all_are(bytes: &[u8], byte: u8) -> bool {
    match bytes {
        [] => true,
        [first, rest @ ..] => *first == byte && rest == &bytes[..bytes.len() - 1],
    }
}

/// `p` is aligned as the face promises for a block of `layout`.
fn assert_aligned(f: &dyn Face, p: *const u8, layout: Layout) {
    let want = if layout.size() == 0 { layout.align() } else { layout.align().max(f.min_align()) };
    assert_eq!(p.addr() % want, 0, "{p:p} for {layout:?} (MIN_ALIGN {})", f.min_align());
}

fn layout(size: usize, align: usize) -> Layout {
    Layout::from_size_align(size, align).unwrap()
}

/// A block of `len` bytes through `try_alloc_layout`. The slice-filling methods write
/// byte by byte, which Miri runs slowly; the behaviours that only need room use this.
fn bytes(f: &dyn Face, len: usize) -> *mut u8 {
    f.try_layout(layout(len, 1)).unwrap().as_ptr()
}

/// Kilobyte blocks the reuse behaviours allocate to move past a chunk or two.
const ROUND_BLOCKS: usize = scaled(40, 10);

// ----- The behaviours ----------------------------------------------------------------

/// Every block is aligned to its layout's alignment and (unless empty) to the face's
/// `MIN_ALIGN`, for alignments up to a page, through the fallible and the panicking
/// front doors and the typed methods.
fn alignment(f: &mut dyn Face) {
    let mut blocks = Blocks::default();
    for shift in 0..=12 {
        let align = 1 << shift;
        let sizes: &[usize] = if cfg!(miri) { &[0, 1, align + 1] } else { &[0, 1, 3, align, align + 1] };
        for &size in sizes {
            let l = layout(size, align);
            let p = f.try_layout(l).unwrap().as_ptr();
            assert_aligned(f, p, l);
            blocks.add(p, size);
            let q = f.layout(l).as_ptr();
            assert_aligned(f, q, l);
            blocks.add(q, size);
        }
    }
    let text = "aligned text";
    for len in 0..12 {
        let s = f.slice_copy(&[7; 12][..len]);
        assert_aligned(f, s.cast(), layout(len, 1));
        blocks.add(s.cast(), len);
        let t = f.str_copy(&text[..len]);
        assert_aligned(f, t.cast(), layout(len, 1));
        blocks.add(t.cast(), len);
        let v = f.value(len as u64);
        assert_aligned(f, v.cast(), Layout::new::<u64>());
        blocks.add(v.cast(), 8);
    }
    blocks.verify();
    f.check();
}

/// Empty requests succeed; non-empty blocks never overlap and keep what was written to
/// them while later blocks (small, chunk-sized, out of band) are made.
fn blocks_are_disjoint_and_keep_their_contents(f: &mut dyn Face) {
    let mut blocks = Blocks::default();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for i in 0..scaled(400, 40) {
        match rng.below(6) {
            0 => {
                let l = layout(rng.below(300) as usize, 1 << rng.below(7));
                let p = f.try_layout(l).unwrap().as_ptr();
                assert_aligned(f, p, l);
                blocks.add(p, l.size());
            }
            1 => {
                let v = f.value(i as u64);
                // SAFETY: just allocated.
                assert_eq!(unsafe { *v }, i as u64);
                blocks.add(v.cast(), 8);
            }
            2 => {
                let src: Vec<u8> = (0..rng.below(100) as u8).collect();
                let s = f.slice_copy(&src);
                // SAFETY: just allocated.
                assert_eq!(unsafe { &*s }, &src[..]);
                blocks.add(s.cast(), src.len());
            }
            3 => {
                let src = format!("block {i}");
                let s = f.str_copy(&src);
                // SAFETY: just allocated.
                assert_eq!(unsafe { &*s }, src);
                blocks.add(s.cast(), src.len());
            }
            4 => {
                let big = scaled(5000, 1000) as u64;
                let len = if rng.below(20) == 0 { big + rng.below(big) } else { rng.below(500) } as usize;
                let p = f.fill_u8(len);
                // SAFETY: just allocated, `len` zeros.
                assert!(all_are(unsafe { std::slice::from_raw_parts(p, len) }, 0));
                blocks.add(p, len);
            }
            _ => {
                let align = 1 << rng.below(13);
                let p = f.try_layout(layout(0, align)).unwrap();
                assert_eq!(p.as_ptr().addr() % align, 0);
                // SAFETY: just allocated (empty).
                assert_eq!(unsafe { &*f.slice_copy(&[]) }.len(), 0);
                // SAFETY: as above.
                assert_eq!(unsafe { &*f.str_copy("") }.len(), 0);
                f.try_fill_u64(0).unwrap();
                f.fill_u8(0);
            }
        }
        if i % 50 == 0 {
            blocks.verify();
            f.check();
        }
    }
    blocks.verify();
    f.check();
}

/// Requests whose size overflows, or cannot be met, are errors from the `try_` methods
/// and panics from the plain ones; the face stays usable with its blocks intact.
fn huge_requests_fail_cleanly(f: &mut dyn Face) {
    let mut blocks = Blocks::default();
    blocks.add(f.value(1).cast(), 8);
    blocks.add(f.fill_u8(100), 100);
    let max = isize::MAX as usize;
    let after = |f: &mut dyn Face, blocks: &mut Blocks| {
        f.check();
        blocks.verify();
        blocks.add(f.value(2).cast(), 8);
        blocks.add(bytes(f, 300), 300);
        f.check();
        blocks.verify();
    };
    // Unwinding is slow under Miri: there only `alloc_layout` is tried, on the first
    // size (natively every plain method on every size).
    let panics = !cfg!(miri);
    for (i, l) in [layout(max, 1), layout(max - 15, 16), layout(max + 1 - 4096, 4096)].into_iter().enumerate() {
        assert!(f.try_layout(l).is_err(), "{l:?}");
        after(f, &mut blocks);
        if i == 0 || panics {
            assert!(catch_unwind(AssertUnwindSafe(|| f.layout(l))).is_err(), "{l:?}");
            after(f, &mut blocks);
        }
    }
    // Byte sizes past isize::MAX are invalid layouts, by the `AllocErrorKind` docs.
    for len in [usize::MAX, max + 1] {
        assert_eq!(f.try_fill_u8(len).unwrap_err().kind(), AllocErrorKind::InvalidLayout, "{len} bytes");
        after(f, &mut blocks);
        if panics {
            assert!(catch_unwind(AssertUnwindSafe(|| f.fill_u8(len))).is_err(), "{len} bytes");
            after(f, &mut blocks);
        }
    }
    assert!(f.try_fill_u8(max).is_err());
    after(f, &mut blocks);
    for len in [usize::MAX, usize::MAX / 8 + 1, max / 8 + 1] {
        assert_eq!(f.try_fill_u64(len).unwrap_err().kind(), AllocErrorKind::InvalidLayout, "{len} u64s");
        after(f, &mut blocks);
        if panics {
            assert!(catch_unwind(AssertUnwindSafe(|| f.fill_u64(len))).is_err(), "{len} u64s");
            after(f, &mut blocks);
        }
    }
}

/// Grows and shrinks the newest and an older block through `allocator_api2`: the bytes
/// are kept, the new alignment holds, and no other block is touched.
fn grow_and_shrink(f: &mut dyn Face) {
    assert!(f.resizes());
    let mut blocks = Blocks::default();
    // Replaces `p` (a block of `old`) by the result of `resize`, after checking that it
    // kept the first `keep` bytes and is aligned for `new`.
    let resize = |f: &dyn Face, blocks: &mut Blocks, p: *mut u8, old: Layout, new: Layout, grow: bool| {
        // SAFETY: `p` is a live block of `old`; it is not used again after the call.
        let q = unsafe {
            let p = NonNull::new(p).unwrap();
            if grow {
                f.grow(p, old, new)
            } else {
                f.shrink(p, old, new)
            }
        }
        .expect("resize failed")
        .as_ptr();
        let (len, byte) = blocks.remove(p);
        assert_eq!(len, old.size());
        assert_aligned(f, q, new);
        let keep = old.size().min(new.size());
        // SAFETY: the new block has `new.size() >= keep` bytes.
        assert!(all_are(unsafe { std::slice::from_raw_parts(q, keep) }, byte), "{old:?} -> {new:?}");
        blocks.add(q, new.size());
        blocks.verify();
        f.check();
        q
    };
    let l40 = layout(40, 8);
    let older = f.try_layout(l40).unwrap().as_ptr();
    blocks.add(older, 40);
    let newest = f.try_layout(l40).unwrap().as_ptr();
    blocks.add(newest, 40);
    // The newest block, to a larger alignment.
    resize(f, &mut blocks, newest, l40, layout(200, 64), true);
    // An older block.
    let older = resize(f, &mut blocks, older, l40, layout(300, 16), true);
    // The newest block at the same alignment, then past a chunk (out of band on the
    // arenas with a small chunk cap).
    let c = f.try_layout(layout(24, 8)).unwrap().as_ptr();
    blocks.add(c, 24);
    let c2 = resize(f, &mut blocks, c, layout(24, 8), layout(4000, 8), true);
    if f.grows_newest_in_place() {
        assert_eq!(c2, c, "the newest block grows in place");
    }
    let c3 = resize(f, &mut blocks, c2, layout(4000, 8), layout(40_000, 8), true);
    if f.grows_newest_in_place() {
        assert_eq!(c3, c, "the newest block grows in place");
    }
    // Shrinks: the newest block, and an older one to a larger alignment.
    let d = f.try_layout(layout(500, 32)).unwrap().as_ptr();
    blocks.add(d, 500);
    resize(f, &mut blocks, d, layout(500, 32), layout(100, 32), false);
    resize(f, &mut blocks, older, layout(300, 16), layout(16, 256), false);
    // Still an allocator after all that.
    blocks.add(bytes(f, 1000), 1000);
    blocks.verify();
    f.check();
}

/// Rewinding to a checkpoint returns the face to where it was: the next block lands
/// where the first block after the checkpoint did, round after round, and blocks made
/// before the checkpoint stay intact.
fn rewind_reuses_memory(f: &mut dyn Face) {
    let mut blocks = Blocks::default();
    blocks.add(f.try_layout(layout(64, 8)).unwrap().as_ptr(), 64);
    let cp = f.checkpoint().expect("the face has checkpoints");
    let l = layout(48, 16);
    let mut first = None;
    for _round in 0..3 {
        let p = f.try_layout(l).unwrap().as_ptr();
        assert_eq!(*first.get_or_insert(p), p, "the first block after the checkpoint moved");
        // SAFETY: a fresh block of 48 bytes.
        unsafe { p.write_bytes(0xAB, 48) };
        for _ in 0..ROUND_BLOCKS {
            bytes(f, 1000);
        }
        f.check();
        blocks.verify();
        f.rewind(cp);
        f.check();
        blocks.verify();
    }
}

/// A scope's exit returns the face to where it was: the next scope's first block lands
/// where the previous one's did, the face holds no more memory for the same work, and
/// the next block after the scope lands there too.
fn scope_exit_reuses_memory(f: &mut dyn Face) {
    let mut blocks = Blocks::default();
    blocks.add(f.try_layout(layout(64, 8)).unwrap().as_ptr(), 64);
    let l = layout(48, 16);
    let mut first: Option<(*mut u8, Option<usize>)> = None;
    for _round in 0..3 {
        let mut entry = std::ptr::null_mut();
        let ran = f.scoped(&mut |s| {
            let mut inner = Blocks::default();
            entry = s.try_layout(l).unwrap().as_ptr();
            inner.add(entry, 48);
            for _ in 0..ROUND_BLOCKS {
                inner.add(bytes(s, 1000), 1000);
            }
            s.scoped(&mut |t| {
                bytes(t, 500);
            });
            inner.verify();
            s.check();
        });
        assert!(ran, "the face has scopes");
        f.check();
        blocks.verify();
        let now = (entry, f.held());
        assert_eq!(*first.get_or_insert(now), now, "(first block, held bytes) changed between identical scopes");
    }
    let p = f.try_layout(l).unwrap().as_ptr();
    assert_eq!(p, first.unwrap().0, "the block after the scope is not where the scope started");
    blocks.add(p, 48);
    blocks.verify();
}

/// After a reset the face reuses its memory: it holds no more for the same work, and
/// where promised, the first block lands where the fresh face's first block did.
fn reset_reuses_memory(f: &mut dyn Face) {
    let l = layout(48, 16);
    let work = |f: &mut dyn Face| {
        let mut blocks = Blocks::default();
        let first = f.try_layout(l).unwrap().as_ptr();
        blocks.add(first, 48);
        for _ in 0..ROUND_BLOCKS {
            blocks.add(bytes(f, 1000), 1000);
        }
        blocks.verify();
        f.check();
        (first, f.held().expect("the face reports what it holds"))
    };
    let (first, held) = work(f);
    assert!(f.reset(), "the face resets");
    f.check();
    assert!(f.held().unwrap() <= held, "reset took memory");
    let (again, held_again) = work(f);
    if f.reset_starts_over() {
        assert_eq!(again, first, "the first block after a reset is not the fresh face's first block");
        assert_eq!(held_again, held, "the same work after a reset took more memory");
    }
}

/// A face with a limit (or a fixed buffer) fails cleanly when it is reached, keeps
/// working below it, and after a scope exit or a reset allocates as much again.
fn limits(f: &mut dyn Face) {
    const LIMIT: usize = 64 * 1024;
    let limited = f.limit_to_held_plus(LIMIT);
    assert!(limited || f.full_kind() == AllocErrorKind::Full, "the face has a limit or a fixed capacity");
    // Fewer, larger blocks under Miri.
    let size = scaled(1024, 4096);
    let mut tried_panic = false;
    let tried_panic = &mut tried_panic;
    let mut fill = |f: &mut dyn Face| -> usize {
        let l = layout(size, 8);
        let mut blocks = Blocks::default();
        loop {
            match f.try_layout(l) {
                Ok(p) => blocks.add(p.as_ptr(), size),
                Err(err) => {
                    assert_eq!(err.kind(), f.full_kind());
                    break;
                }
            }
            assert!(blocks.live.len() * size <= 1 << 20, "no limit reached after 1 MiB");
        }
        f.check();
        blocks.verify();
        // Unwinding is slow under Miri: there only the first round tries it.
        if !cfg!(miri) || !*tried_panic {
            *tried_panic = true;
            assert!(catch_unwind(AssertUnwindSafe(|| f.layout(l))).is_err(), "the plain method passed the limit");
        }
        assert!(f.try_layout(l).is_err(), "a failed request is not retried into success");
        f.check();
        blocks.verify();
        // An empty request still succeeds at the limit.
        f.try_layout(layout(0, 8)).unwrap();
        assert!(!blocks.live.is_empty(), "not even one block fit under the limit");
        blocks.live.len()
    };
    let mut rounds = Vec::new();
    for _ in 0..2 {
        let mut n = None;
        if f.scoped(&mut |s| n = Some(fill(s))) {
            rounds.push(n.unwrap());
        }
    }
    if f.reset() {
        rounds.push(fill(f));
        f.reset();
        rounds.push(fill(f));
    }
    if rounds.is_empty() {
        rounds.push(fill(f));
    }
    assert!(rounds.windows(2).all(|w| w[1] >= w[0]), "fewer blocks fit after freeing: {rounds:?}");
}

/// A fixed program over every capability the face has; returns how many requests
/// failed. With `injecting`, a failure must be `OutOfMemory`; without, none may happen.
/// After every step the invariants hold and every live block is intact.
fn program(f: &mut dyn Face, injecting: bool) -> usize {
    let failures = std::cell::Cell::new(0);
    let mut blocks = Blocks::default();
    // Tries one request; records the block, or checks the failure and that every
    // earlier block survived it. (All blocks are verified again after each phase.)
    let step = |f: &mut dyn Face, blocks: &mut Blocks, l: Layout| {
        match f.try_layout(l) {
            Ok(p) => {
                assert_aligned(f, p.as_ptr(), l);
                blocks.add(p.as_ptr(), l.size());
            }
            Err(err) => {
                assert!(injecting, "{l:?} failed with nothing injected: {err}");
                assert_eq!(err.kind(), AllocErrorKind::OutOfMemory);
                failures.set(failures.get() + 1);
                blocks.verify();
            }
        }
        f.check();
    };
    // Small, chunk-sized and out-of-band requests. A failed regular chunk is retried at
    // the size the request needs, so only out-of-band requests surface every failure:
    // 9000 bytes and more on the arenas with a small chunk cap, and 600 KiB on all (past
    // an eighth of the default 4 MiB cap of `Arena` and `SyncArena`).
    // Under Miri a shorter list: every run is shorter, and there are fewer runs.
    let requests: &[(usize, usize)] = if cfg!(miri) {
        &[(16, 8), (1000, 64), (9000, 8), (20, 4096), (600 << 10, 8)]
    } else {
        &[(16, 8), (300, 1), (1000, 64), (3000, 16), (9000, 8), (20, 4096), (5000, 2), (20_000, 32), (600 << 10, 8)]
    };
    for &(size, align) in requests {
        step(f, &mut blocks, layout(size, align));
    }
    blocks.verify();
    if let Some(cp) = f.checkpoint() {
        let before = blocks.live.len();
        for size in [2000, 6000, 12_000] {
            step(f, &mut blocks, layout(size, 8));
        }
        blocks.verify();
        f.rewind(cp);
        blocks.live.truncate(before);
        f.check();
        blocks.verify();
        step(f, &mut blocks, layout(4000, 8));
    }
    let outer = &blocks;
    let mut inner_failures = 0;
    f.scoped(&mut |s| {
        let mut inner = Blocks::default();
        for size in [3000, 10_000, 100] {
            match s.try_layout(layout(size, 16)) {
                Ok(p) => inner.add(p.as_ptr(), size),
                Err(err) => {
                    assert!(injecting, "{size} bytes failed in a scope with nothing injected: {err}");
                    assert_eq!(err.kind(), AllocErrorKind::OutOfMemory);
                    inner_failures += 1;
                }
            }
            s.check();
        }
        inner.verify();
        outer.verify();
    });
    f.check();
    blocks.verify();
    if f.resizes() {
        let &(p, len, byte) = blocks.live.last().unwrap();
        let (old, new) = (layout(len, 1), layout(len + 30_000, 1));
        // SAFETY: `p` is a live block of `old`; on success it is replaced.
        match unsafe { f.grow(NonNull::new(p).unwrap(), old, new) } {
            Some(q) => {
                blocks.remove(p);
                // SAFETY: the new block has at least `len` bytes.
                assert!(all_are(unsafe { std::slice::from_raw_parts(q.as_ptr(), len) }, byte));
                blocks.add(q.as_ptr(), new.size());
            }
            None => {
                assert!(injecting, "grow failed with nothing injected");
                failures.set(failures.get() + 1);
            }
        }
        f.check();
        blocks.verify();
    }
    if f.reset() {
        blocks.live.clear();
        f.check();
        for size in [100, 9000, 30_000] {
            step(f, &mut blocks, layout(size, 8));
        }
    }
    blocks.verify();
    failures.get() + inner_failures
}

/// Runs `program` once to count the backing allocator's requests, then once for every
/// `n` up to that count with the `n`-th request failing. The backing allocator checks
/// on drop that everything went back.
fn failure_injection(harness: Harness) {
    let dry = FailOnce::default();
    let mut failures = 0;
    harness(&dry, &mut |f| failures += program(f, false));
    assert_eq!(failures, 0);
    let requests = dry.requests.get();
    assert!(requests >= 3, "the program made only {requests} requests of the backing allocator");
    let mut surfaced = 0;
    for n in 1..=requests {
        let backing = FailOnce::default();
        backing.fail.set(n);
        harness(&backing, &mut |f| surfaced += program(f, true));
    }
    assert!(surfaced > 0, "no injected failure came back as an error");
}

// ----- One test per behaviour and face -----------------------------------------------

/// Stamps a module per behaviour with a `#[test]` per face listed under it.
macro_rules! suite {
    // A behaviour runs on a fresh face through `fresh`, unless it names its own runner.
    (@body $behaviour:ident [], $face:ident) => { super::fresh(super::$face, super::$behaviour) };
    (@body $behaviour:ident [$runner:ident], $face:ident) => { super::$runner(super::$face) };
    (@mod $behaviour:ident $runner:tt [$($(#[$attr:meta])* $face:ident),*]) => {
        mod $behaviour {
            $(
                $(#[$attr])*
                #[test]
                fn $face() {
                    suite!(@body $behaviour $runner, $face);
                }
            )*
        }
    };
    ($($behaviour:ident $(($runner:ident))?: [$($(#[$attr:meta])* $face:ident),* $(,)?];)*) => {
        $(suite!(@mod $behaviour [$($runner)?] [$($(#[$attr])* $face),*]);)*
    };
}

suite! {
    alignment: [
        arena_1, arena_8, arena_16, arena_fail_1, arena_fail_16, scope, scope_guard, buffer,
        fixed_1, fixed_16, fixed_guard,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_1,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_8,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_guard,
        sync, local,
    ];
    blocks_are_disjoint_and_keep_their_contents: [
        arena_1, arena_8, arena_16, arena_fail_1, arena_fail_16, scope, scope_guard, buffer,
        fixed_1, fixed_16, fixed_guard,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_1,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_8,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_guard,
        sync, local,
    ];
    huge_requests_fail_cleanly: [
        arena_1, arena_8, arena_16, arena_fail_1, arena_fail_16, scope, scope_guard, buffer,
        fixed_1, fixed_16, fixed_guard,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_1,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_8,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_guard,
        sync, local,
    ];
    grow_and_shrink: [
        arena_1, arena_8, arena_16, arena_fail_1, arena_fail_16, scope_guard, buffer,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_1,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_8,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_guard,
    ];
    rewind_reuses_memory: [
        arena_1, arena_8, arena_16, arena_fail_1, arena_fail_16, scope_guard, buffer,
        fixed_1, fixed_16,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_1,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_8,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_guard,
    ];
    scope_exit_reuses_memory: [
        arena_1, arena_8, arena_16, arena_fail_1, arena_fail_16, scope, scope_guard, buffer,
        fixed_1, fixed_16,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_1,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_8,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_guard,
    ];
    reset_reuses_memory: [
        arena_1, arena_8, arena_16, arena_fail_1, arena_fail_16, buffer, fixed_1, fixed_16,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_1,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_8,
        sync,
    ];
    limits: [
        arena_1, arena_8, arena_16, arena_fail_1, arena_fail_16, scope_guard, buffer,
        fixed_1, fixed_16, fixed_guard,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_1,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_8,
        #[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))] vm_guard,
    ];
}

// Failure injection needs a backing allocator: the faces that take their memory from one.
suite! {
    failure_injection (failure_injection): [arena_fail_1, arena_fail_16, scope, scope_guard, buffer, sync, local];
}
