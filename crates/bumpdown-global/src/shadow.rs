//! Tells a memory checker which region bytes the program may touch, so that it checks
//! the memory this allocator hands out as it checks `malloc`'s.
//!
//! A checker sees the region as one anonymous mapping, all of it valid: a read past a
//! block or after `free` lands on region memory and goes unreported. With a backend on,
//! the region's windows start unaddressable, a chunk becomes addressable when handed out
//! and unaddressable again when freed, and the engine opens the one word it keeps in a
//! free chunk (the list link) only around its own access. Backends:
//!
//! * feature `valgrind` (x86-64): memcheck client requests. The checker must run the
//!   program with our allocator, not its own (for the preload:
//!   `valgrind --soname-synonyms=somalloc=nouserintercepts`). A front end that hands out
//!   blocks also reports them ([`block_allocated`], [`block_freed`], [`block_resized`]),
//!   which gives memcheck's messages ("0 bytes after a block of size 112 alloc'd"),
//!   invalid and double `free` reports, and leak checking.
//! * `--cfg bumpdown_asan` with `-Zsanitizer=address` (nightly): AddressSanitizer
//!   poisoning, as in the core crate. ASan has no notion of our blocks: it reports
//!   accesses to poisoned bytes (use-after-poison), which covers reads after `free` and
//!   overflows into a neighbour's header or into free memory.
//!
//! Without either, every function here is empty and compiles to nothing. None of them
//! reads or writes the bytes they describe: they only change the checker's view.

/// Marks `len` bytes at `p` unaddressable: any access is reported.
#[inline(always)]
pub fn no_access(p: *const u8, len: usize) {
    #[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
    memcheck::request(memcheck::MAKE_MEM_NOACCESS, [p.addr(), len, 0, 0, 0]);
    #[cfg(bumpdown_asan)]
    asan::poison(p, len);
    let _ = (p, len);
}

/// Marks `len` bytes at `p` addressable with unknown contents (reading them to decide
/// anything is reported by memcheck).
#[inline(always)]
pub fn undefined(p: *const u8, len: usize) {
    #[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
    memcheck::request(memcheck::MAKE_MEM_UNDEFINED, [p.addr(), len, 0, 0, 0]);
    #[cfg(bumpdown_asan)]
    asan::unpoison(p, len);
    let _ = (p, len);
}

/// Marks `len` bytes at `p` addressable and initialised.
#[inline(always)]
pub fn defined(p: *const u8, len: usize) {
    #[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
    memcheck::request(memcheck::MAKE_MEM_DEFINED, [p.addr(), len, 0, 0, 0]);
    #[cfg(bumpdown_asan)]
    asan::unpoison(p, len);
    let _ = (p, len);
}

/// A front end handed out block `p` of `size` usable bytes (zeroed or not): it becomes
/// addressable, and memcheck tracks it as a heap block until [`block_freed`].
#[inline(always)]
pub fn block_allocated(p: *const u8, size: usize, zeroed: bool) {
    #[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
    memcheck::request(memcheck::MALLOCLIKE_BLOCK, [p.addr(), size, 0, zeroed as usize, 0]);
    #[cfg(bumpdown_asan)]
    asan::unpoison(p, size);
    let _ = (p, size, zeroed);
}

/// Block `p` (reported by [`block_allocated`]) is freed: memcheck makes it unaddressable
/// and reports a `p` it does not track (a double or invalid free). Under ASan the engine's
/// `Heap::free` poisons the chunk.
#[inline(always)]
pub fn block_freed(p: *const u8) {
    #[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
    memcheck::request(memcheck::FREELIKE_BLOCK, [p.addr(), 0, 0, 0, 0]);
    let _ = p;
}

/// Block `p` changed from `old` to `new` usable bytes without moving: the bytes it gained
/// become addressable (undefined), the bytes it lost unaddressable.
#[inline(always)]
pub fn block_resized(p: *const u8, old: usize, new: usize) {
    #[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
    memcheck::request(memcheck::RESIZEINPLACE_BLOCK, [p.addr(), old, new, 0, 0]);
    #[cfg(bumpdown_asan)]
    if new > old {
        asan::unpoison(p.wrapping_add(old), new - old);
    } else {
        asan::poison(p.wrapping_add(new), old - new);
    }
    let _ = (p, old, new);
}

/// Valgrind client requests (the documented x86-64 calling sequence, see `valgrind.h`).
#[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
mod memcheck {
    /// Memcheck's request base: `'M' << 24 | 'C' << 16`.
    const MC: usize = (b'M' as usize) << 24 | (b'C' as usize) << 16;
    /// `(addr, len)`: unaddressable.
    pub const MAKE_MEM_NOACCESS: usize = MC;
    /// `(addr, len)`: addressable, contents unknown.
    pub const MAKE_MEM_UNDEFINED: usize = MC + 1;
    /// `(addr, len)`: addressable and initialised.
    pub const MAKE_MEM_DEFINED: usize = MC + 2;
    /// `(addr, size, redzone, zeroed)`: a heap block was handed out (a core request,
    /// understood by every tool that tracks heap blocks, as the next two).
    pub const MALLOCLIKE_BLOCK: usize = 0x1301;
    /// `(addr, redzone)`: the heap block at `addr` was freed.
    pub const FREELIKE_BLOCK: usize = 0x1302;
    /// `(addr, old size, new size, redzone)`: the heap block at `addr` was resized in place.
    pub const RESIZEINPLACE_BLOCK: usize = 0x130b;

    /// Issues request `code` with `args`; returns valgrind's answer (0 natively).
    #[inline(always)]
    pub fn request(code: usize, args: [usize; 5]) -> usize {
        let block = [code, args[0], args[1], args[2], args[3], args[4]];
        let result: usize;
        // SAFETY: natively the sequence does nothing: the four rotations of rdi add up to
        // 128 bits (rdi unchanged), `xchg rbx, rbx` swaps rbx with itself, and rdx keeps
        // the default 0. Under valgrind it is the marker of a client request: valgrind
        // reads the six words at rax (alive on our stack) and writes its answer to rdx.
        // No `nomem` option: the request must stay ordered with the accesses it describes.
        unsafe {
            core::arch::asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                in("rax") block.as_ptr(),
                inout("rdx") 0usize => result,
                inout("rdi") 0usize => _,
                options(nostack),
            );
        }
        result
    }
}

/// AddressSanitizer's poisoning interface (see the core crate's `asan.rs`).
#[cfg(bumpdown_asan)]
mod asan {
    #[cfg(not(sanitize = "address"))]
    compile_error!("--cfg bumpdown_asan needs -Zsanitizer=address");

    extern "C" {
        fn __asan_poison_memory_region(addr: *const u8, size: usize);
        fn __asan_unpoison_memory_region(addr: *const u8, size: usize);
    }

    /// Marks `len` bytes at `p` unaddressable.
    #[inline(always)]
    pub fn poison(p: *const u8, len: usize) {
        // SAFETY: the ASan runtime is linked (`-Zsanitizer=address`); the call only updates
        // its shadow of the range, which the engine owns (callers).
        unsafe { __asan_poison_memory_region(p, len) }
    }

    /// Marks `len` bytes at `p` addressable.
    #[inline(always)]
    pub fn unpoison(p: *const u8, len: usize) {
        // SAFETY: as for `poison`.
        unsafe { __asan_unpoison_memory_region(p, len) }
    }
}
