//! What a `bd_arena *` points at, how each kind of arena is made and destroyed, and how
//! the `&mut` operations reach it.
//!
//! Every handle points at a [`bumpdown::Arena`] (`bd_arena` below), whose first two
//! fields, `ptr` and `end`, the header's inline fast path reads and writes. The
//! arena's backing allocator, a [`CBacking`], records what kind of arena it is and so
//! how it is owned:
//!
//! * growable: the arena is a block of its own from `malloc`; the handle is that block;
//! * fixed: the arena is a `BufferArena` written at the start of the caller's buffer,
//!   over the rest of it; the handle points at the `Arena` inside, and the backing keeps
//!   a pointer to the whole `BufferArena` (with the buffer's provenance) to destroy it.

use core::alloc::Layout;
use core::cell::Cell;
use core::ffi::c_int;
use core::mem::{align_of, size_of, MaybeUninit};
use core::ptr::{self, NonNull};

use bumpdown::{Arena, BackingAllocator, BufferArena, Checkpoint, Global, RewindError};

use crate::errors::{alloc_errno, EINVAL, ENOMEM};

/// The arena a `bd_arena *` points at. C sees its first two fields.
#[allow(non_camel_case_types)]
pub type bd_arena = Arena<1, CBacking>;

/// A fixed arena: an arena whose first and only chunk is the caller's buffer.
type FixedArena = BufferArena<'static, 1, CBacking>;

/// The backing allocator of every arena made through the C API: `malloc` for growable
/// arenas, nothing at all for fixed ones. It also records the arena's kind.
pub struct CBacking {
    kind: Kind,
}

enum Kind {
    /// Chunks from the global allocator (`malloc`). The handle is a block of its own.
    Heap,
    /// No chunks beyond the caller's buffer. `owner` is the `BufferArena` the handle
    /// points into (set right after it is written, before the handle is returned).
    Fixed { owner: Cell<*mut FixedArena> },
    // The virtual-memory arena is not a kind of `bd_arena`: it bumps upwards, so it has
    // a handle type of its own (`bd_vm_arena`, in `vm.rs`).
}

// SAFETY: `Heap` forwards to `Global`, which upholds the contract; `Fixed` never returns
// a block, so there is nothing to uphold (and `deallocate` is never called for it).
unsafe impl BackingAllocator for CBacking {
    #[inline]
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
        match self.kind {
            Kind::Heap => Global.allocate(layout),
            Kind::Fixed { .. } => None,
        }
    }

    #[inline]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        match self.kind {
            // SAFETY: the caller passes a block from `allocate`, which came from `Global`.
            Kind::Heap => unsafe { Global.deallocate(ptr, layout) },
            Kind::Fixed { .. } => debug_assert!(false, "a fixed arena allocated nothing to free"),
        }
    }
}

/// Makes a growable arena: a `bd_arena` in a block of its own from the global
/// allocator. On failure returns the `errno` to report.
pub(crate) fn create_growable(
    initial_capacity: usize,
    max_chunk_size: usize,
    limit: usize,
) -> Result<NonNull<bd_arena>, c_int> {
    let backing = CBacking { kind: Kind::Heap };
    let mut arena = if initial_capacity > 0 {
        Arena::try_with_capacity_in(initial_capacity, backing).map_err(alloc_errno)?
    } else {
        Arena::new_in(backing)
    };
    if max_chunk_size > 0 {
        arena = arena.with_max_chunk_size(max_chunk_size);
    }
    if limit > 0 {
        if arena.allocated_bytes_including_metadata() > limit {
            return Err(ENOMEM);
        }
        arena.set_allocation_limit(Some(limit));
    }
    // Not `Box::new`: it aborts when memory runs out, and the C API reports ENOMEM.
    let layout = Layout::new::<bd_arena>();
    // SAFETY: `bd_arena` is not zero-sized.
    let block = NonNull::new(unsafe { std::alloc::alloc(layout) }.cast::<bd_arena>()).ok_or(ENOMEM)?;
    // SAFETY: a fresh block with `bd_arena`'s layout.
    unsafe { block.as_ptr().write(arena) };
    Ok(block)
}

/// Makes a fixed arena at the start of `buf..buf + len`, over the rest of it.
///
/// # Safety
/// `buf..buf + len` is valid for reads and writes, and used by nothing else, until the
/// handle is passed to [`destroy`].
pub(crate) unsafe fn create_fixed(buf: *mut u8, len: usize) -> Result<NonNull<bd_arena>, c_int> {
    if buf.is_null() {
        return Err(EINVAL);
    }
    let start = buf.addr();
    // A real buffer does not wrap around the address space; a bad `len` must not make us
    // believe it does.
    let end = start.checked_add(len).ok_or(EINVAL)?;
    let obj = start.checked_next_multiple_of(align_of::<FixedArena>()).ok_or(ENOMEM)?;
    let rest = obj.checked_add(size_of::<FixedArena>()).filter(|&r| r <= end).ok_or(ENOMEM)?;
    let obj = buf.with_addr(obj).cast::<FixedArena>();
    // SAFETY: `rest..end` lies inside the caller's buffer, which is ours until `destroy`
    // (so 'static is as long as the arena can observe), and disjoint from `obj`'s bytes.
    let chunk = unsafe { core::slice::from_raw_parts_mut(buf.with_addr(rest).cast::<MaybeUninit<u8>>(), end - rest) };
    let fixed = BufferArena::new_in(chunk, CBacking { kind: Kind::Fixed { owner: Cell::new(ptr::null_mut()) } });
    if fixed.stats().chunks == 0 {
        // Too small to make a chunk of: every allocation would fail.
        return Err(ENOMEM);
    }
    // SAFETY: `obj..rest` is in the buffer, aligned for `FixedArena`, and ours.
    unsafe { obj.write(fixed) };
    // SAFETY: just written; shared access only, to read the backing and the address.
    let arena: &bd_arena = unsafe { &*obj };
    if let Kind::Fixed { owner } = &arena.allocator().kind {
        owner.set(obj);
    }
    // The handle is `obj` moved to the arena inside it, keeping `obj`'s provenance (the
    // offset is whatever the layout of `BufferArena` makes it).
    let offset = ptr::from_ref(arena).addr() - obj.addr();
    // SAFETY: `obj + offset` is the address of the arena inside `*obj`: in bounds, not null.
    Ok(unsafe { NonNull::new_unchecked(obj.byte_add(offset).cast::<bd_arena>()) })
}

/// Destroys an arena made by `create_growable` or `create_fixed`.
///
/// # Safety
/// `arena` is such a handle, not destroyed yet, and no allocation of it is used again.
pub(crate) unsafe fn destroy(arena: NonNull<bd_arena>) {
    // SAFETY: a live handle (the caller); the borrow ends before anything is dropped.
    match unsafe { owner(arena) } {
        // SAFETY: a growable handle is a block from `create_growable`, written once.
        None => unsafe {
            ptr::drop_in_place(arena.as_ptr());
            std::alloc::dealloc(arena.as_ptr().cast(), Layout::new::<bd_arena>());
        },
        // SAFETY: written by `create_fixed` in the caller's buffer, which stays theirs.
        Some(obj) => unsafe { ptr::drop_in_place(obj) },
    }
}

/// The `BufferArena` holding a fixed arena; `None` for a growable one.
///
/// # Safety
/// `arena` is a live handle.
unsafe fn owner(arena: NonNull<bd_arena>) -> Option<*mut FixedArena> {
    // SAFETY: a live handle from the caller; only read.
    match &unsafe { arena.as_ref() }.allocator().kind {
        Kind::Heap => None,
        Kind::Fixed { owner } => Some(owner.get()),
    }
}

/// The operations that need `&mut` of the arena (no allocation may be in use past
/// them), reached through the object that owns it.
pub(crate) enum ArenaMut<'a> {
    Growable(&'a mut bd_arena),
    Fixed(&'a mut FixedArena),
}

impl ArenaMut<'_> {
    /// # Safety
    /// `arena` is a live handle, not otherwise borrowed for `'a`.
    pub(crate) unsafe fn of<'a>(arena: NonNull<bd_arena>) -> ArenaMut<'a> {
        // SAFETY: a live handle (the caller), not borrowed elsewhere: a growable handle is
        // the arena's own block; a fixed one's owner is the object that holds it.
        unsafe {
            match owner(arena) {
                None => ArenaMut::Growable(&mut *arena.as_ptr()),
                Some(obj) => ArenaMut::Fixed(&mut *obj),
            }
        }
    }

    pub(crate) fn reset(self) {
        match self {
            ArenaMut::Growable(a) => a.reset(),
            ArenaMut::Fixed(a) => a.reset(),
        }
    }

    pub(crate) fn reset_with_limit(self, retain: usize) {
        match self {
            ArenaMut::Growable(a) => a.reset_with_limit(retain),
            ArenaMut::Fixed(a) => a.reset_with_limit(retain),
        }
    }

    pub(crate) fn try_rewind(self, cp: Checkpoint) -> Result<(), RewindError> {
        match self {
            ArenaMut::Growable(a) => a.try_rewind(cp),
            ArenaMut::Fixed(a) => a.try_rewind(cp),
        }
    }
}
