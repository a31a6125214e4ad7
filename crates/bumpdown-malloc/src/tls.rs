//! The current thread's heap, in initial-exec thread-local storage.
//!
//! A preloaded library's thread-locals sit in the static TLS block, so they can be reached
//! at a fixed offset from the thread pointer: two instructions, no call. Rust's own
//! `thread_local!` in a `cdylib` goes through `__tls_get_addr`, a call, which after a
//! `dlopen` of a library with thread-locals may itself call `malloc` (glibc then resizes
//! the thread's DTV): an allocator must not depend on it. On x86_64 we therefore declare
//! the slot in assembly (`.tbss`, zero-filled: the all-zero `Heap` is the empty heap) and
//! reach it with the initial-exec sequence; elsewhere we use the engine's slot.
//!
//! Either way the slot is [`TlsHeap`], the [`HeapSlot`] this library routes through.

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
use bumpdown_global::route::HeapSlot;
use bumpdown_global::Heap;

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
core::arch::global_asm!(
    ".section .tbss,\"awT\",@nobits",
    ".p2align 6",
    ".globl bumpdown_malloc_heap",
    ".hidden bumpdown_malloc_heap",
    ".type bumpdown_malloc_heap,@object",
    ".size bumpdown_malloc_heap, {size}",
    "bumpdown_malloc_heap:",
    ".zero {size}",
    ".text",
    size = const core::mem::size_of::<Heap>(),
);

const _: () = assert!(core::mem::align_of::<Heap>() <= 64);

/// The thread's heap in the initial-exec slot `bumpdown_malloc_heap`.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
pub(crate) struct TlsHeap;

// SAFETY: each thread has its own `bumpdown_malloc_heap`, zero bytes at first, which is
// `Heap::EMPTY` (null pointers and zero counts), and only `with_heap` below reaches it.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
unsafe impl HeapSlot for TlsHeap {
    // Chunks start 8 bytes past a multiple of 16: the header, then the 16-aligned block.
    const CHUNK_PHASE: usize = bumpdown_global::heap::PHASE_HEADER;

    #[inline(always)]
    unsafe fn with_heap<R>(f: impl FnOnce(&mut Heap) -> R) -> R {
        let heap: *mut Heap;
        // SAFETY: the initial-exec TLS sequence: %fs:0 holds the thread pointer, and the
        // GOT entry holds the slot's offset from it (a static TLS block exists for every
        // library loaded at start-up, which LD_PRELOAD libraries are). Reads memory only.
        unsafe {
            core::arch::asm!(
                "mov {p}, qword ptr fs:[0]",
                "add {p}, qword ptr [rip + bumpdown_malloc_heap@GOTTPOFF]",
                p = out(reg) heap,
                options(pure, readonly, nostack),
            );
        }
        // SAFETY: the slot is this thread's, `size_of::<Heap>()` bytes, 64-aligned, starts
        // as zero bytes (a valid empty `Heap`) and is only ever written through here; by
        // the caller's promise no other reference to it is live while `f` runs.
        f(unsafe { &mut *heap })
    }
}

/// Elsewhere: the engine's `thread_local!` slot, with this library's phase. Nothing else
/// in a process that preloads this library reaches that slot (`BumpGlobal` is not its
/// global allocator), so every call on its heap has this phase.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
pub(crate) struct TlsHeap;

// SAFETY: forwards to `ThreadHeap`'s slot, reached only through this type (above).
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
unsafe impl bumpdown_global::route::HeapSlot for TlsHeap {
    const CHUNK_PHASE: usize = bumpdown_global::heap::PHASE_HEADER;

    #[inline(always)]
    unsafe fn with_heap<R>(f: impl FnOnce(&mut Heap) -> R) -> R {
        // SAFETY: forwarded caller contract.
        unsafe { <bumpdown_global::ThreadHeap as bumpdown_global::route::HeapSlot>::with_heap(f) }
    }
}
