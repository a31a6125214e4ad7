//! What the targets share: a model of the live blocks, a counting backing allocator that
//! can be told to fail, and which bytes of a block are filled and checked (`ends`).
#![allow(dead_code)]

use std::alloc::Layout;
use std::cell::Cell;
use std::ptr::NonNull;

/// Whether every byte of `bytes` is `byte`. The same answer as
/// `bytes.iter().all(|&x| x == byte)`, from one `memcmp` of the slice against itself
/// shifted by a byte: every byte equals the one before it, and the first is `byte`. The
/// fuzzer traces every comparison in the targets (`-sanitizer-coverage-trace-compares`),
/// so a loop here costs a traced call per step: once a byte at first, then once a word,
/// which was still a fifth of the `sync` target's time. libc's `memcmp` is not traced.
pub fn all_bytes(bytes: &[u8], byte: u8) -> bool {
    match bytes.split_first() {
        None => true,
        Some((&first, rest)) => first == byte && rest == &bytes[..rest.len()],
    }
}

/// Blocks up to this size are filled and checked whole; of a bigger one, only [`END`]
/// bytes at each end.
pub const WHOLE: usize = 4096;
/// The bytes filled and checked at each end of a block over [`WHOLE`].
pub const END: usize = 2048;

/// The ranges of a block of `size` bytes that [`fill_ends`] writes and [`holds_ends`]
/// reads: all of a small block, both ends of a big one. The middle of a big block is
/// never touched: a bug that gives out its bytes twice is the overlap check's to find,
/// and faulting in and filling every page of big blocks was most of the `malloc` and
/// `sync` targets' time.
pub fn ends(size: usize) -> [std::ops::Range<usize>; 2] {
    if size <= WHOLE {
        [0..size, size..size]
    } else {
        [0..END, size - END..size]
    }
}

/// Writes `byte` over the [`ends`] of the `size` bytes at `p`.
pub fn fill_ends(p: *mut u8, size: usize, byte: u8) {
    for r in ends(size) {
        // SAFETY: callers pass a block of at least `size` bytes, which `r` lies within.
        unsafe { p.add(r.start).write_bytes(byte, r.len()) };
    }
}

/// Whether the [`ends`] of the `size` bytes at `p` hold `byte`. Only the ends are read
/// (the middle of a big block may never have been written).
pub fn holds_ends(p: *const u8, size: usize, byte: u8) -> bool {
    ends(size).into_iter().all(|r| {
        // SAFETY: callers only ask about live blocks of at least `size` bytes, whose ends
        // were written; `r` lies within them.
        let bytes = unsafe { std::slice::from_raw_parts(p.add(r.start), r.len()) };
        all_bytes(bytes, byte)
    })
}

/// One live block as the model sees it.
#[derive(Clone, Copy, Debug)]
pub struct Block {
    pub ptr: *mut u8,
    pub size: usize,
    pub align: usize,
    /// Every byte of the block holds this.
    pub byte: u8,
    /// When it was made: a rewind frees exactly the blocks made after its checkpoint.
    pub seq: u64,
    /// The scope depth it was made at: a scope's exit frees the deeper ones.
    pub depth: usize,
}

/// The live blocks, in the order they were made.
///
/// No two live blocks of non-zero size overlap: checked when a block is added, against
/// the blocks already live, kept sorted by address in `spans`. Blocks never move and
/// leave only through `remove`, `clear` and `forget_*`, so this is the same check as
/// sorting all live blocks after every operation, without the sort (which, traced by the
/// fuzzer's comparison hooks, was a fifth of the `arena` target's time).
#[derive(Default)]
pub struct Model {
    /// Read it freely; change it only through the methods (they keep `spans` in step).
    pub live: Vec<Block>,
    pub seq: u64,
    /// (start, end) of every live block of non-zero size, sorted (a sorted `Vec`, not a
    /// `BTreeMap`: the map's instrumented comparisons cost more than the moves).
    spans: Vec<(usize, usize)>,
    /// The sum of the live blocks' sizes, kept in step with `live`.
    pub live_bytes: usize,
    /// The arena's minimum alignment (0 if none): `add` checks every block against it
    /// and the block's own. A block's address and alignment never change in the model,
    /// so this is the same check as one of every live block after every step.
    pub min_align: usize,
}

impl Model {
    /// An empty model of an arena whose blocks are all aligned to at least `min_align`.
    pub fn with_min_align(min_align: usize) -> Self {
        Model { min_align, ..Model::default() }
    }

    /// The next sequence number (strictly increasing).
    pub fn tick(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Records a fresh block and fills it with its own byte.
    pub fn add(&mut self, ptr: *mut u8, size: usize, align: usize, depth: usize) {
        let seq = self.tick();
        let byte = (seq % 251) as u8 + 1;
        // Overlap is checked before the fill, which would overwrite the other block.
        self.insert(Block { ptr, size, align, byte, seq, depth });
        // SAFETY: the caller passes a block it just got from the arena, `size` bytes long.
        unsafe { ptr.write_bytes(byte, size) };
    }

    /// Records a block whose contents the caller (the arena) wrote: every byte `byte`,
    /// checked here.
    pub fn add_filled(&mut self, ptr: *mut u8, size: usize, align: usize, depth: usize, byte: u8) {
        let seq = self.tick();
        let b = Block { ptr, size, align, byte, seq, depth };
        self.insert(b);
        assert!(holds(&b), "the arena wrote other contents: {b:?}");
    }

    /// Checks a new block's alignment and that it overlaps no live one, and records it.
    fn insert(&mut self, b: Block) {
        assert_eq!(b.ptr as usize % b.align.max(self.min_align), 0, "misaligned {b:?}");
        self.insert_span(b.ptr, b.size);
        self.live_bytes += b.size;
        self.live.push(b);
    }

    /// Panics if the new block overlaps a live one. The live spans are disjoint and
    /// sorted, so only the one starting last before the new block's end can overlap it.
    fn insert_span(&mut self, ptr: *mut u8, size: usize) {
        if size == 0 {
            return;
        }
        let (start, end) = (ptr as usize, ptr as usize + size);
        let at = self.spans.partition_point(|&(lo, _)| lo < end);
        if at > 0 {
            let (lo, hi) = self.spans[at - 1];
            assert!(hi <= start, "overlap: {:x?} and {:x?}", (lo, hi), (start, end));
        }
        self.spans.insert(at, (start, end));
    }

    fn drop_span(&mut self, b: &Block) {
        if b.size > 0 {
            let span = (b.ptr as usize, b.ptr as usize + b.size);
            let at = self.spans.partition_point(|&s| s < span);
            assert_eq!(self.spans.get(at), Some(&span), "the model lost track of {b:?}");
            self.spans.remove(at);
        }
    }

    /// Drops the `i`th live block from the model.
    pub fn remove(&mut self, i: usize) -> Block {
        let b = self.live.remove(i);
        self.drop_span(&b);
        self.live_bytes -= b.size;
        b
    }

    pub fn clear(&mut self) {
        self.live.clear();
        self.spans.clear();
        self.live_bytes = 0;
    }

    pub fn forget_after(&mut self, seq: u64) {
        self.retain(|b| b.seq <= seq);
    }

    pub fn forget_deeper(&mut self, depth: usize) {
        self.retain(|b| b.depth <= depth);
    }

    fn retain(&mut self, keep: impl Fn(&Block) -> bool) {
        let mut gone = Vec::new();
        let mut gone_bytes = 0;
        self.live.retain(|b| {
            let k = keep(b);
            if !k && b.size > 0 {
                gone.push(b.ptr as usize);
                gone_bytes += b.size;
            }
            k
        });
        self.live_bytes -= gone_bytes;
        if !gone.is_empty() {
            gone.sort_unstable();
            self.spans.retain(|&(lo, _)| gone.binary_search(&lo).is_err());
        }
        debug_assert_eq!(self.spans.len(), self.live.iter().filter(|b| b.size > 0).count());
    }

    /// Checks every byte of each live block `which` picks. The arena targets call it
    /// right before every operation that drops blocks from the model (and so may hand
    /// their bytes out again or give them back), on the blocks it may drop; see
    /// `arena.rs` for why that finds every corruption a check after every step finds.
    pub fn check_contents(&self, which: impl Fn(&Block) -> bool) {
        for b in self.live.iter().filter(|b| which(b)) {
            assert!(holds(b), "contents changed: {b:?}");
        }
    }

    /// Checks every byte of the `i`th live block.
    pub fn check_block(&self, i: usize) {
        let b = &self.live[i];
        assert!(holds(b), "contents changed: {b:?}");
    }

    /// The number of live blocks of non-zero size.
    pub fn span_count(&self) -> usize {
        self.spans.len()
    }

    /// How many live blocks of non-zero size lie wholly in `lo..hi`, by two binary
    /// searches: the spans are sorted and disjoint, so their ends are sorted too, and
    /// those starting at or after `lo` (a suffix) and ending at or before `hi` (a prefix)
    /// are the ones between the two indices.
    pub fn spans_within(&self, lo: usize, hi: usize) -> usize {
        let first = self.spans.partition_point(|&(start, _)| start < lo);
        let past = self.spans.partition_point(|&(_, end)| end <= hi);
        past.saturating_sub(first)
    }

    /// Checks alignment (to the block's and the arena's), contents, that each block lies
    /// in the arena's used memory (`owns`), and that no two blocks overlap (kept true
    /// since each was added; see [`Model`]). With `full` false, big blocks are only
    /// sampled at both ends.
    pub fn check(&self, min_align: usize, full: bool, owns: impl Fn(usize, usize) -> bool) {
        for b in &self.live {
            let addr = b.ptr as usize;
            assert_eq!(addr % b.align.max(min_align), 0, "misaligned {b:?}");
            if b.size == 0 {
                continue;
            }
            let ok = if full || b.size <= 128 {
                holds(b)
            } else {
                // SAFETY: the model only holds blocks the arena still hands to us.
                let bytes = unsafe { std::slice::from_raw_parts(b.ptr, b.size) };
                all_bytes(&bytes[..64], b.byte) && all_bytes(&bytes[b.size - 64..], b.byte)
            };
            assert!(ok, "contents changed: {b:?}");
            assert!(owns(addr, b.size), "block outside the arena's used memory: {b:?}");
        }
        debug_assert_eq!(self.spans.len(), self.live.iter().filter(|b| b.size > 0).count());
    }
}

/// Whether every byte of live block `b` still holds its fill byte.
fn holds(b: &Block) -> bool {
    if b.size == 0 {
        return true;
    }
    // SAFETY: the model only holds blocks the arena still hands to us, `size` bytes long.
    let bytes = unsafe { std::slice::from_raw_parts(b.ptr, b.size) };
    all_bytes(bytes, b.byte)
}

/// A backing allocator that counts live bytes and fails when told to.
#[derive(Default)]
pub struct Counting {
    pub live_bytes: Cell<usize>,
    pub live_blocks: Cell<usize>,
    /// Fail the next this-many requests.
    pub fail_next: Cell<u32>,
}

// SAFETY: forwards to `Global`, which upholds the contract; failing returns `None`.
unsafe impl bumpdown::BackingAllocator for Counting {
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
        if self.fail_next.get() > 0 {
            self.fail_next.set(self.fail_next.get() - 1);
            return None;
        }
        // Keep the fuzzer's memory bounded: a real allocator refuses absurd sizes too.
        if layout.size() > 64 << 20 {
            return None;
        }
        let p = bumpdown::Global.allocate(layout)?;
        self.live_bytes.set(self.live_bytes.get() + layout.size());
        self.live_blocks.set(self.live_blocks.get() + 1);
        Some(p)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        self.live_bytes.set(self.live_bytes.get() - layout.size());
        self.live_blocks.set(self.live_blocks.get() - 1);
        // SAFETY: `ptr` came from `Global.allocate(layout)` above.
        unsafe { bumpdown::Global.deallocate(ptr, layout) }
    }
}

/// A layout from fuzzer bytes: mostly small, sometimes big, any power-of-two alignment
/// up to 8 KiB.
pub fn layout(size: u16, scale: u8, align_shift: u8) -> Layout {
    let size = match scale % 8 {
        0..=4 => usize::from(size % 256),
        5 | 6 => usize::from(size),
        _ => usize::from(size) * 16,
    };
    let align = 1usize << (align_shift % 14);
    Layout::from_size_align(size, align).expect("a small size and a power of two")
}

/// The typed allocations every arena face has.
#[derive(arbitrary::Arbitrary, Debug, Clone, Copy)]
pub enum AllocOp {
    Layout { size: u16, scale: u8, align: u8 },
    Byte,
    Word,
    Wide,
    SliceCopy { len: u8 },
    Str { len: u8 },
    FillWith { len: u16 },
    FillIter { len: u8 },
}

/// The typed allocations, on anything with the typed API (`Arena`, `Scope`).
#[allow(unused_macros)]
macro_rules! typed_alloc {
    ($a:expr, $op:expr, $model:expr, $depth:expr) => {{
        let (a, model, depth) = ($a, $model, $depth);
        match $op {
            $crate::model::AllocOp::Layout { size, scale, align } => {
                let l = $crate::model::layout(size, scale, align);
                if let Ok(p) = a.try_alloc_layout(l) {
                    model.add(p.as_ptr(), l.size(), l.align(), depth);
                }
            }
            $crate::model::AllocOp::Byte => {
                if let Ok(p) = a.try_alloc(0xC3u8) {
                    model.add_filled(p, 1, 1, depth, 0xC3);
                }
            }
            $crate::model::AllocOp::Word => {
                if let Ok(p) = a.try_alloc(u64::from_ne_bytes([0x3C; 8])) {
                    model.add_filled((p as *mut u64).cast(), 8, 8, depth, 0x3C);
                }
            }
            $crate::model::AllocOp::Wide => {
                if let Ok(p) = a.try_alloc([u128::from_ne_bytes([0x7E; 16]); 3]) {
                    model.add_filled((p as *mut [u128; 3]).cast(), 48, 16, depth, 0x7E);
                }
            }
            $crate::model::AllocOp::SliceCopy { len } => {
                let src = vec![0x11u16.wrapping_mul(0x101); usize::from(len)];
                if let Ok(s) = a.try_alloc_slice_copy(&src) {
                    model.add_filled(s.as_mut_ptr().cast(), s.len() * 2, 2, depth, 0x11);
                }
            }
            $crate::model::AllocOp::Str { len } => {
                let src = "é".repeat(usize::from(len));
                if let Ok(s) = a.try_alloc_str(&src) {
                    assert_eq!(&*s, src.as_str());
                    let (p, n) = (s.as_mut_ptr(), s.len());
                    model.add(p, n, 1, depth);
                }
            }
            $crate::model::AllocOp::FillWith { len } => {
                if let Ok(s) = a.try_alloc_slice_fill_with(usize::from(len), |i| i as u32) {
                    assert!(s.iter().enumerate().fold(0, |d, (i, &x)| d | (x ^ i as u32)) == 0);
                    model.add(s.as_mut_ptr().cast(), s.len() * 4, 4, depth);
                }
            }
            $crate::model::AllocOp::FillIter { len } => {
                if let Ok(s) = a.try_alloc_slice_fill_iter((0..u32::from(len)).map(|i| u64::from(i) * 3)) {
                    assert!(s.iter().enumerate().fold(0, |d, (i, &x)| d | (x ^ i as u64 * 3)) == 0);
                    model.add(s.as_mut_ptr().cast(), s.len() * 8, 8, depth);
                }
            }
        }
    }};
}

#[allow(unused_imports)]
pub(crate) use typed_alloc;
