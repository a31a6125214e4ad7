//! Resizing and freeing single allocations: what `Allocator::grow`, `shrink` and
//! `deallocate` need, and what `alloc_iter` uses to grow its buffer.
//!
//! A bump arena can only give back its newest allocation. Bumping downwards, the newest
//! block sits at `top`, so growing it means moving its bytes down (`ptr::copy`, which
//! handles the overlap) into space that includes the old block: nothing is wasted.

use core::alloc::Layout;
use core::ptr::{self, NonNull};

use crate::arena::Arena;
use crate::backing::BackingAllocator;
use crate::error::AllocError;

impl<const MIN_ALIGN: usize, A: BackingAllocator> Arena<MIN_ALIGN, A> {
    /// Allocates a block for `layout`, filled with zeros.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// let arena = bumpdown::Arena::new();
    /// let p = arena.try_alloc_zeroed_layout(Layout::new::<[u32; 8]>()).unwrap();
    /// assert!(unsafe { core::slice::from_raw_parts(p.as_ptr(), 32) }.iter().all(|&b| b == 0));
    /// ```
    pub fn try_alloc_zeroed_layout(&self, layout: Layout) -> Result<NonNull<u8>, AllocError> {
        let p = self.try_alloc_layout(layout)?;
        // SAFETY: a fresh block of `layout.size()` bytes.
        unsafe { p.as_ptr().write_bytes(0, layout.size()) };
        Ok(p)
    }

    /// Frees a block if it is the newest allocation (its space is reused at once) or the
    /// newest out-of-band one (its chunk goes back to the backing allocator); otherwise
    /// its space is reclaimed at the next reset.
    ///
    /// # Safety
    /// `ptr` is a live allocation of this arena made with `layout`, never used again.
    pub(crate) unsafe fn dealloc_raw(&self, ptr: NonNull<u8>, layout: Layout) {
        if self.is_newest(ptr, layout.size()) {
            // SAFETY: checked just above; the caller no longer uses the block.
            unsafe { self.pop_newest(ptr, layout.size()) }
        } else {
            // SAFETY: forwarded from the caller.
            unsafe { self.free_if_big(ptr) };
        }
    }

    /// Grows a block to `new` (`new.size() >= old.size()`), keeping its bytes.
    ///
    /// # Safety
    /// `ptr` is a live allocation of this arena made with `old`; on success it must not
    /// be used again (the returned block replaces it).
    pub(crate) unsafe fn grow_raw(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<u8>, AllocError> {
        debug_assert!(new.size() >= old.size());
        // SAFETY: forwarded from the caller.
        if let Some(p) = unsafe { self.grow_newest_in_place(ptr, old.size(), new.size(), new.align()) } {
            return Ok(p);
        }
        let fresh = self.try_alloc_layout(new)?;
        // SAFETY: `fresh` is a new block of at least `old.size()` bytes; `ptr` is live
        // with `old.size()` bytes. They may overlap only if the arena handed out memory
        // twice, which it does not; `ptr::copy` is used anyway to stay correct if a
        // future change lets the old block's space be reused first.
        unsafe { ptr::copy(ptr.as_ptr(), fresh.as_ptr(), old.size()) };
        // SAFETY: the bytes are copied; the caller will not use the old block again.
        unsafe { self.free_if_big(ptr) };
        Ok(fresh)
    }

    /// Shrinks a block to `new` (`new.size() <= old.size()`). In place when `ptr` is
    /// aligned enough for `new`; otherwise a fresh block.
    ///
    /// # Safety
    /// As for [`grow_raw`](Arena::grow_raw).
    pub(crate) unsafe fn shrink_raw(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<u8>, AllocError> {
        debug_assert!(new.size() <= old.size());
        if ptr.as_ptr().addr() % new.align() == 0 {
            return Ok(ptr);
        }
        let fresh = self.try_alloc_layout(new)?;
        // SAFETY: distinct live blocks, `new.size() <= old.size()` bytes readable.
        unsafe { ptr::copy_nonoverlapping(ptr.as_ptr(), fresh.as_ptr(), new.size()) };
        Ok(fresh)
    }
}
