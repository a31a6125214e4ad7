//! A thread that faults a [`VmArena`]'s pages in ahead of its bump pointer, so that the
//! page faults (and the zeroing of fresh pages) run on another core while the program
//! writes the pages faulted in before.
//!
//! The arena makes memory readable and writable (`mprotect`) ahead of itself and then
//! [`asks`](Populator::ask) the thread to populate up to a given address. The thread
//! works upwards in pieces and sleeps (`park`) when it has caught up. It never reads or
//! writes the memory: `MADV_POPULATE_WRITE` maps zero-filled pages where none are mapped
//! yet and leaves mapped pages alone, so it may run over pages the program is already
//! writing, and the program may fault a page in itself before the thread reaches it.
//!
//! [`VmArena`]: crate::VmArena

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use crate::os;

/// What the arena and its thread share.
struct Shared {
    /// Populate up to this address (exclusive). Only grows.
    // INVARIANT: every byte below `want` from the thread's starting address up is
    // committed (readable and writable) memory of the arena's reservation, and stays
    // mapped until the thread has been joined.
    want: AtomicUsize,
    /// Where the arena itself will write next: the thread skips ahead to here if it is
    /// behind, rather than fault in pages the arena is faulting in anyway.
    skip_to: AtomicUsize,
    /// Set when the arena is dropped: the thread returns after its current piece.
    stop: AtomicBool,
}

/// The populating thread of one arena. Dropping it stops and joins the thread.
pub(crate) struct Populator {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Populator {
    /// Starts a thread that will populate from address `from` upwards, `piece` bytes per
    /// system call. `None` when the system refuses a thread: the arena then populates
    /// on its own.
    pub(crate) fn start(from: usize, piece: usize) -> Option<Populator> {
        let shared = Arc::new(Shared {
            want: AtomicUsize::new(from),
            skip_to: AtomicUsize::new(from),
            stop: AtomicBool::new(false),
        });
        let theirs = Arc::clone(&shared);
        let thread = thread::Builder::new()
            .name("bd-populate".into())
            .stack_size(64 * 1024)
            .spawn(move || run(&theirs, from, piece))
            .ok()?;
        Some(Populator { shared, thread: Some(thread) })
    }

    /// Asks the thread to populate everything below `end`, starting no lower than
    /// `from` (the arena will fault in what lies below `from` by writing it).
    ///
    /// # Safety
    /// Every byte from the starting address up to `end` is committed memory of the
    /// arena's reservation, and stays mapped until this `Populator` is dropped.
    pub(crate) unsafe fn ask(&self, from: usize, end: usize) {
        if end > self.shared.want.load(Ordering::Relaxed) {
            self.shared.skip_to.store(from, Ordering::Relaxed);
            self.shared.want.store(end, Ordering::Release);
            if let Some(thread) = &self.thread {
                thread.thread().unpark();
            }
        }
    }
}

impl Populator {
    /// The address the thread was last asked to populate up to.
    pub(crate) fn asked(&self) -> usize {
        self.shared.want.load(Ordering::Relaxed)
    }
}

impl Drop for Populator {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            // The thread cannot panic (it makes system calls and nothing else); if it
            // did, the arena would still be sound, so the result is not needed.
            let _ = thread.join();
        }
    }
}

/// The thread's loop: populate up to `want` from `skip_to` or where it stopped, `piece`
/// bytes at a time, then sleep.
fn run(shared: &Shared, mut done: usize, piece: usize) {
    while !shared.stop.load(Ordering::Acquire) {
        let want = shared.want.load(Ordering::Acquire);
        if done >= want {
            // `unpark` after a new `want` wakes this at once, also if it came first.
            thread::park();
            continue;
        }
        done = done.max(shared.skip_to.load(Ordering::Relaxed).min(want));
        let end = want.min(done.saturating_add(piece));
        // SAFETY: `done..end` is below `want`, so committed memory of the reservation
        // that stays mapped until this thread is joined (see `Shared::want`). The
        // pointer only names the range to the kernel; nothing is read or written
        // through it, so it needs no provenance.
        unsafe { os::populate(core::ptr::without_provenance_mut(done), end - done) };
        done = end;
    }
}
