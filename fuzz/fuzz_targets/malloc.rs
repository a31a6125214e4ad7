//! The LD_PRELOAD allocator's malloc family (`bumpdown_malloc::malloc`, the functions
//! behind the exported symbols) as operation programs checked against a model after
//! every step: sizes from zero to absurd, `n * size` overflows, alignments valid and
//! not, frees in any order, reallocation up, down and to zero. After every step each
//! live block is aligned, disjoint from the others (over its usable size), at least as
//! usable as requested and still holds its own byte (all of it up to 4 KiB, both ends of
//! a bigger one); refused requests give NULL with the right `errno` (or
//! `posix_memalign`'s code) and leave their block untouched.
//!
//! The crate is linked without its `exports` feature, so this process keeps its own
//! malloc. Run without AddressSanitizer (`-s none`): ASan replaces `__libc_memalign`,
//! which the allocator's glibc fallback pairs with glibc's `__libc_free`, and it cannot
//! see inside the allocator's own region anyway.
#![no_main]

#[path = "common/model.rs"]
mod model;

use std::ffi::c_void;
use std::ptr;

use arbitrary::{Arbitrary, Unstructured};
use bumpdown_malloc::malloc as m;
use libfuzzer_sys::fuzz_target;

/// A request size: mostly small, some over the region's 256 KiB class limit, some no
/// allocator can give.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Size {
    Small(u8),
    Medium(u16),
    /// Up to 1 MiB.
    Large(u16),
    /// `usize::MAX - k`, `isize::MAX`-ish or `2^(40 + k % 20)`.
    Huge(u8),
}

impl Size {
    fn get(self) -> usize {
        match self {
            Size::Small(n) => usize::from(n),
            Size::Medium(n) => usize::from(n),
            Size::Large(n) => usize::from(n) * 16,
            Size::Huge(k) => match k % 3 {
                0 => usize::MAX - usize::from(k),
                1 => isize::MAX as usize - usize::from(k),
                _ => 1 << (40 + k % 20),
            },
        }
    }

    /// Whether the request may fail: sizes no machine here can give.
    fn absurd(self) -> bool {
        matches!(self, Size::Huge(_))
    }
}

/// An alignment: a power of two up to 1 MiB, or something odd (zero, not a power of
/// two, not a multiple of the word, enormous).
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Align {
    Pow(u8),
    Odd(u8),
}

impl Align {
    fn get(self) -> usize {
        match self {
            Align::Pow(k) => 1 << (k % 21),
            Align::Odd(k) => match k % 6 {
                0 => 0,
                1 => 3,
                2 => 24,
                3 => 4096 + 8,
                4 => usize::MAX,
                _ => 1 << 62,
            },
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Malloc(Size),
    Calloc { n: Size, size: Size },
    Free { pick: u8 },
    FreeNull,
    Realloc { pick: u8, size: Size },
    ReallocNull(Size),
    ReallocArray { pick: u8, null: bool, n: Size, size: Size },
    Memalign { align: Align, size: Size },
    PosixMemalign { align: Align, size: Size },
    AlignedAlloc { align: Align, size: Size },
    Valloc(Size),
    Pvalloc(Size),
}

/// One live block as the model sees it.
#[derive(Clone, Copy, Debug)]
struct Block {
    ptr: *mut u8,
    /// Bytes asked for.
    size: usize,
    align: usize,
    /// The [`ends`](model::ends) of its first `size` bytes hold this.
    byte: u8,
}

const PAGE: usize = 4096;
/// Blocks over this size may be refused, and are freed untouched when they are not:
/// filling them would only measure the machine's memory.
const BIG: usize = 64 << 20;
/// The most bytes the live blocks may span at once; a block past it is freed untouched,
/// like a big one. When the model filled whole blocks, one input of 64 blocks of up to
/// 64 MiB each filled 4 GiB, and the run stopped at libFuzzer's RSS limit (CI, 2026-11-25).
const FILL_BUDGET: usize = 256 << 20;
/// Alignments over this may be refused.
const BIG_ALIGN: usize = 1 << 20;
const MAX_LIVE: usize = 64;

#[derive(Default)]
struct World {
    live: Vec<Block>,
    /// The sum of the live blocks' sizes, at most [`FILL_BUDGET`].
    filled: usize,
    next: u8,
}

fn errno() -> i32 {
    // SAFETY: this thread's errno slot.
    unsafe { *libc::__errno_location() }
}

fn clear_errno() {
    // SAFETY: this thread's errno slot.
    unsafe { *libc::__errno_location() = 0 };
}

impl World {
    /// Records a fresh block of `size` bytes aligned to `align`, fills it with its byte.
    fn add(&mut self, ptr: *mut u8, size: usize, align: usize) {
        assert!(!ptr.is_null());
        assert_eq!(ptr as usize % align, 0, "block {ptr:?} of {size} bytes not aligned to {align}");
        if size > BIG || self.filled + size > FILL_BUDGET {
            // SAFETY: a fresh block, never recorded.
            unsafe { m::free(ptr) };
            return;
        }
        self.next = self.next.wrapping_add(1).max(1);
        model::fill_ends(ptr, size, self.next);
        self.filled += size;
        self.live.push(Block { ptr, size, align, byte: self.next });
    }

    /// Drops block `i` from the model (the caller frees it or has reallocated it).
    fn forget(&mut self, i: usize) -> Block {
        let b = self.live.swap_remove(i);
        self.filled -= b.size;
        b
    }

    /// Records the result of an allocation of `size` bytes: NULL only with ENOMEM and
    /// only for absurd, big or very aligned requests.
    fn result(&mut self, p: *mut u8, size: usize, align: usize, absurd: bool) {
        if p.is_null() {
            assert!(absurd || size > BIG || align > BIG_ALIGN, "a request for {size} bytes aligned to {align} failed");
            assert_eq!(errno(), libc::ENOMEM, "NULL without ENOMEM");
        } else {
            self.add(p, size, align);
        }
    }

    /// Checks alignment, usable size, contents and that no two blocks overlap.
    fn check(&self) {
        let mut spans = Vec::with_capacity(self.live.len());
        for b in &self.live {
            assert_eq!(b.ptr as usize % b.align, 0, "misaligned {b:?}");
            // SAFETY: a live block of this allocator.
            let usable = unsafe { m::malloc_usable_size(b.ptr) };
            assert!(usable >= b.size, "usable size {usable} < requested: {b:?}");
            assert!(model::holds_ends(b.ptr, b.size, b.byte), "contents changed: {b:?}");
            spans.push((b.ptr as usize, b.ptr as usize + usable.max(1)));
        }
        spans.sort_unstable();
        for w in spans.windows(2) {
            assert!(w[0].1 <= w[1].0, "overlap: {:x?} and {:x?}", w[0], w[1]);
        }
    }

    fn pick(&self, at: u8) -> Option<usize> {
        (!self.live.is_empty()).then(|| usize::from(at) % self.live.len())
    }

    /// `realloc` (or `reallocarray` of `n * size`) of block `i`, or of NULL.
    fn realloc(&mut self, i: Option<usize>, n: Size, size: Option<Size>) {
        let (old, p) = match i {
            Some(i) => (Some(self.live[i]), self.live[i].ptr),
            None => (None, ptr::null_mut()),
        };
        let (bytes, absurd) = match size {
            None => (Some(n.get()), n.absurd()),
            Some(s) => (n.get().checked_mul(s.get()), n.absurd() || s.absurd()),
        };
        if let (Some(old), Some(bytes)) = (old, bytes) {
            if bytes < old.size {
                // What the shrunk block is checked for ends inside the old block, maybe
                // in its unfilled middle: write it now, for `realloc` to keep.
                model::fill_ends(p, bytes, old.byte);
            }
        }
        clear_errno();
        // SAFETY: `p` is NULL or a live block; on success the model drops it.
        let q = unsafe {
            match size {
                None => m::realloc(p, n.get()),
                Some(s) => m::reallocarray(p, n.get(), s.get()),
            }
        };
        let Some(bytes) = bytes else {
            assert!(q.is_null(), "reallocarray of an overflowing size succeeded");
            assert_eq!(errno(), libc::ENOMEM, "reallocarray overflow without ENOMEM");
            return;
        };
        if bytes == 0 && !p.is_null() {
            // glibc's rule: realloc(p, 0) frees p and returns NULL.
            assert!(q.is_null(), "realloc to zero returned a block");
            self.forget(i.unwrap());
            return;
        }
        if q.is_null() {
            assert!(absurd || bytes > BIG, "realloc to {bytes} bytes failed");
            assert_eq!(errno(), libc::ENOMEM, "NULL without ENOMEM");
            return;
        }
        if let (Some(i), Some(old)) = (i, old) {
            assert!(model::holds_ends(q, old.size.min(bytes), old.byte), "realloc lost the contents of {old:?}");
            self.forget(i);
        }
        self.add(q, bytes, 16);
    }

    fn step(&mut self, op: Op) {
        let full = self.live.len() >= MAX_LIVE;
        clear_errno();
        match op {
            Op::Malloc(s) if !full => self.result(m::malloc(s.get()), s.get(), 16, s.absurd()),
            Op::Calloc { n, size } if !full => {
                let p = m::calloc(n.get(), size.get());
                match n.get().checked_mul(size.get()) {
                    None => {
                        assert!(p.is_null(), "calloc of an overflowing size succeeded");
                        assert_eq!(errno(), libc::ENOMEM, "calloc overflow without ENOMEM");
                    }
                    Some(bytes) => {
                        if !p.is_null() {
                            assert!(model::holds_ends(p, bytes, 0), "calloc gave non-zero bytes");
                        }
                        self.result(p, bytes, 16, n.absurd() || size.absurd());
                    }
                }
            }
            Op::Free { pick } => {
                if let Some(i) = self.pick(pick) {
                    let b = self.forget(i);
                    // SAFETY: a live block, dropped from the model.
                    unsafe { m::free(b.ptr) };
                }
            }
            // SAFETY: NULL is always allowed.
            Op::FreeNull => unsafe { m::free(ptr::null_mut()) },
            Op::Realloc { pick, size } => {
                if let Some(i) = self.pick(pick) {
                    self.realloc(Some(i), size, None);
                }
            }
            Op::ReallocNull(size) if !full => self.realloc(None, size, None),
            Op::ReallocArray { pick, null, n, size } if !(null && full) => {
                let i = if null { None } else { self.pick(pick) };
                if null || i.is_some() {
                    self.realloc(i, n, Some(size));
                }
            }
            Op::Memalign { align, size } if !full => {
                let a = align.get();
                let p = m::memalign(a, size.get());
                match a.checked_next_power_of_two() {
                    // memalign rounds a non-power-of-two up.
                    Some(a) => self.result(p, size.get(), a, size.absurd()),
                    None => {
                        assert!(p.is_null());
                        assert_eq!(errno(), libc::EINVAL);
                    }
                }
            }
            Op::PosixMemalign { align, size } if !full => {
                let a = align.get();
                let sentinel = 0x5A5A_usize as *mut c_void;
                let mut out = sentinel;
                // SAFETY: `out` is a local, writable.
                let code = unsafe { m::posix_memalign(&mut out, a, size.get()) };
                if !a.is_power_of_two() || a % size_of::<usize>() != 0 {
                    assert_eq!(code, libc::EINVAL, "posix_memalign accepted alignment {a}");
                    assert_eq!(out, sentinel, "posix_memalign wrote *out on failure");
                } else if code == 0 {
                    self.add(out.cast(), size.get(), a);
                } else {
                    assert_eq!(code, libc::ENOMEM);
                    let may_fail = size.absurd() || size.get() > BIG || a > BIG_ALIGN;
                    assert!(may_fail, "posix_memalign({a}, {}) failed", size.get());
                    assert_eq!(out, sentinel, "posix_memalign wrote *out on failure");
                }
            }
            Op::AlignedAlloc { align, size } if !full => {
                let a = align.get();
                let p = m::aligned_alloc(a, size.get());
                if a.is_power_of_two() {
                    self.result(p, size.get(), a, size.absurd());
                } else {
                    assert!(p.is_null(), "aligned_alloc accepted alignment {a}");
                    assert_eq!(errno(), libc::EINVAL);
                }
            }
            Op::Valloc(s) if !full => self.result(m::valloc(s.get()), s.get(), PAGE, s.absurd()),
            Op::Pvalloc(s) if !full => {
                let p = m::pvalloc(s.get());
                // pvalloc rounds the size up to whole pages: all of them are usable.
                let rounded = s.get().max(1).checked_next_multiple_of(PAGE);
                self.result(p, rounded.unwrap_or(s.get()), PAGE, s.absurd());
            }
            _ => {}
        }
        self.check();
    }
}

fuzz_target!(
    init: {
        // glibc serves what the region turns away (over 256 KiB, or past its limit). Its mmap
        // threshold is fixed at 4 MiB here: left dynamic, it rises to 32 MiB as blocks are
        // freed, and glibc then zeroes a `calloc` of up to 32 MiB in its heap and keeps the
        // pages, so inputs of many such blocks (never filled by the model, which stops at
        // FILL_BUDGET) left gigabytes resident: a 10 M campaign stopped at 3.5 GB after
        // 729,313 inputs. Blocks of 4 MiB and more are now their own mappings, zero
        // without a touch and returned on `free`.
        // SAFETY: a glibc tuning call, made before any allocation of the target's.
        assert_eq!(unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20) }, 1);
    },
    |data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(ops) = Vec::<Op>::arbitrary(&mut u) else { return };
    let mut w = World::default();
    // SAFETY: NULL has no usable bytes.
    assert_eq!(unsafe { m::malloc_usable_size(ptr::null_mut()) }, 0);
    for op in ops {
        w.step(op);
    }
    // Free what is left, in the order the program made it.
    for b in w.live.drain(..) {
        // SAFETY: a live block, dropped from the model.
        unsafe { m::free(b.ptr) };
    }
}
);
