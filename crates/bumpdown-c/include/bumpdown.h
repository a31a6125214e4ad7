/*
 * bumpdown.h - the C API of bumpdown, a bump (arena) allocator.
 *
 * An arena hands out memory by moving one pointer, `ptr`, up towards `end`;
 * everything is freed at once by bd_reset() or bd_arena_destroy(). The allocation
 * fast path is inline in this header (a load, an addition, a mask, a compare, a
 * store); only when the current chunk has no room does a call cross into the library
 * (bd_alloc_slow), which takes a new chunk and never fails silently. In hot loops, a
 * cursor (bd_cursor_open) keeps the bump pointer in a register. A virtual-memory arena
 * (bd_vm_create: a type of its own, bumping through one reserved range of address
 * space) has its own section at the end.
 *
 *     bd_arena *arena = bd_arena_create();
 *     double *xs = bd_alloc_array(arena, 100, sizeof(double), sizeof(double));
 *     char *name = bd_strdup(arena, "hello");
 *     ...
 *     bd_reset(arena);                // frees everything, keeps the memory for reuse
 *     bd_arena_destroy(arena);        // gives it back
 *
 * Errors: functions returning a pointer return NULL and set errno; functions returning
 * int return BD_OK (0) or one of the BD_ERR_* codes and set errno. errno is ENOMEM when
 * memory ran out (the backing allocator failed, the arena's limit was reached, or a
 * fixed arena is full) and EINVAL for bad input (a NULL arena, a size that overflows, an
 * alignment that is not a power of two, a foreign or stale checkpoint). A failure never
 * invalidates anything allocated before it, and nothing aborts the process.
 *
 * Values in an arena are never "freed" one by one and no destructor ever runs. An arena
 * is not thread-safe: one thread at a time may use it.
 *
 * Link with -lbumpdown (pkg-config --cflags --libs bumpdown). Works from C99 and C++.
 * 64-bit targets only.
 */
#ifndef BUMPDOWN_H
#define BUMPDOWN_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ----- The arena ------------------------------------------------------------------ */

/*
 * An arena. Only ever handled through a pointer returned by bd_arena_create*: never
 * declare one, copy one, or take sizeof of it. Its first two fields are the current
 * chunk's free range, visible so that the inline fast path can bump without a call; the
 * rest of the object is private to the library (these two fields are the first two
 * fields of the Rust `bumpdown::Arena`, which is repr(C); a test checks they agree).
 *
 * Invariants the fast path relies on (the library keeps them):
 *   4096 <= ptr <= end <= PTRDIFF_MAX;  end is a multiple of 16.
 * An arena with no memory yet points both at a static sentinel of capacity 0, so every
 * non-empty request on it takes the slow path; there is no "is it set up?" branch.
 */
typedef struct bd_arena {
    unsigned char *ptr; /* the next allocation starts here (after alignment); moves up */
    unsigned char *end; /* no allocation in this chunk ends past it */
    /* opaque rest: allocated and owned by the library */
} bd_arena;

/* No chunk starts below this address: a block is never at 0. */
#define BD_MIN_BOTTOM ((size_t)4096)
/* Every chunk's `end` is a multiple of this, so rounding `ptr` up to an alignment of at
 * most 16 never passes it. */
#define BD_CHUNK_ALIGN ((size_t)16)
/* bd_options.limit: no limit. */
#define BD_NO_LIMIT ((size_t)0)

/* Options of a growable arena. Zero-initialize and set what you need:
 *     bd_options opts = {0};
 *     opts.limit = 512u << 20;
 *     bd_arena *arena = bd_arena_create_with(&opts); */
typedef struct bd_options {
    /* Bytes the first chunk holds, allocated at creation (0: nothing until the first
     * allocation). */
    size_t initial_capacity;
    /* Cap on the size of regular chunks, rounded up to a power of two of at least 512
     * (0: 4 MiB). Chunks double up to it; a request bigger than an eighth of it gets a
     * chunk of its own, freed at the next reset. */
    size_t max_chunk_size;
    /* Most bytes the arena holds from malloc, chunk headers included (BD_NO_LIMIT, 0:
     * none). Requests past it fail with ENOMEM; the arena keeps working below it. */
    size_t limit;
} bd_options;

/* A growable arena on malloc, with default options. Allocates nothing yet.
 * Returns NULL (errno ENOMEM) if the arena object itself cannot be allocated. */
bd_arena *bd_arena_create(void);

/* A growable arena with options (NULL: the defaults). Returns NULL with errno ENOMEM if
 * the object or the initial chunk cannot be allocated or the chunk would exceed the
 * limit, or EINVAL if the initial capacity is absurd (no chunk size can hold it). */
bd_arena *bd_arena_create_with(const bd_options *opts);

/* A fixed arena over `len` bytes of your memory at `buf` (any alignment): it never calls
 * malloc. The arena object itself lives at the start of the buffer (a few hundred bytes;
 * bd_arena_stats() reports the capacity left), allocations take the rest. When it is
 * full, allocations fail with ENOMEM. The buffer must stay valid, and be used by
 * nothing else, until bd_arena_destroy(). Returns NULL with errno EINVAL if `buf` is
 * NULL or `buf + len` wraps around the address space, or ENOMEM if the buffer is too
 * small to hold the arena object and a chunk.
 *
 *     static unsigned char buf[1 << 16];
 *     bd_arena *arena = bd_arena_create_fixed(buf, sizeof buf); */
bd_arena *bd_arena_create_fixed(void *buf, size_t len);

/* (A virtual-memory arena, reserving address space up front and committing pages as it
 * grows, bumps upwards: it is a different type, bd_vm_arena, with functions of its own;
 * see "The virtual-memory arena" below.) */

/* Frees the arena and everything allocated from it (for a fixed arena, only forgets
 * the buffer; it is yours again). NULL is ignored. The pointer must not be used again. */
void bd_arena_destroy(bd_arena *arena);

/* ----- Allocating ----------------------------------------------------------------- */

/* The slow path of bd_alloc: a complete allocation of `size` bytes aligned to `align`,
 * out of line. The inline functions call it when the current chunk has no room or the
 * input is bad; call it directly from languages that cannot use inline functions.
 * Returns NULL with errno EINVAL (NULL arena; align zero or not a power of two; size
 * larger than PTRDIFF_MAX once aligned) or ENOMEM (out of memory, limit, fixed arena
 * full). */
void *bd_alloc_slow(bd_arena *arena, size_t size, size_t align);

#if defined(__GNUC__) || defined(__clang__)
#define BD_LIKELY_(x) __builtin_expect(!!(x), 1)
#define BD_UNLIKELY_(x) __builtin_expect(!!(x), 0)
#define BD_IS_CONSTANT_(x) __builtin_constant_p(x)
/* Tells the compiler what the library guarantees, so that `if (p) ...` after an
 * allocation costs nothing on the fast path. */
#define BD_ASSUME_(x) ((x) ? (void)0 : __builtin_unreachable())
/* A hint to start loading the cache line at address `a`: never faults, whatever `a`. */
#define BD_PREFETCH_(a) __builtin_prefetch(BD_TO_PTR_(const void *, (a)), 0, 3)
#else
#define BD_LIKELY_(x) (x)
#define BD_UNLIKELY_(x) (x)
#define BD_IS_CONSTANT_(x) 0
#define BD_ASSUME_(x) ((void)0)
#define BD_PREFETCH_(a) ((void)0)
#endif

/* Casts between pointers and integers, spelled so that C++'s -Wold-style-cast is quiet. */
#ifdef __cplusplus
#define BD_TO_ADDR_(ptr) reinterpret_cast<uintptr_t>(ptr)
#define BD_TO_PTR_(type, addr) reinterpret_cast<type>(addr)
#else
#define BD_TO_ADDR_(ptr) ((uintptr_t)(ptr))
#define BD_TO_PTR_(type, addr) ((type)(addr))
#endif

#if defined(__GNUC__) || defined(__clang__)
#define BD_INLINE_ static __inline__ __attribute__((always_inline))
#elif defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define BD_INLINE_ static inline
#else
#define BD_INLINE_ static
#endif

/* The bump itself, on the free range ptr..end (see bd_alloc): the new `ptr`, whose last
 * `size` bytes are the block, or 0 when the request does not fit or `align` is zero or
 * not a power of two. Internal: shared by bd_alloc and bd_cursor_alloc. */
BD_INLINE_ uintptr_t bd_bump_(uintptr_t ptr, uintptr_t end, size_t size, size_t align)
{
    uintptr_t p, stop, mask = align - 1; /* align == 0 gives all ones: ~mask is 0 */
    /* Folds for a constant alignment. align == 0 passes here and fails below. */
    if (BD_UNLIKELY_((align & mask) != 0))
        return 0;
    if (BD_IS_CONSTANT_(size) && size <= BD_MIN_BOTTOM && mask < BD_CHUNK_ALIGN) {
        /* Cannot wrap: ptr <= PTRDIFF_MAX, and size and mask are small. */
        if ((size & mask) == 0)
            /* A size that is a multiple of the alignment (a type's): rounding the end up
             * is rounding the start up, plus the size, so the block's start is the new
             * `ptr` minus a constant (one add and one mask, as bumping down). */
            stop = (ptr + size + mask) & ~mask;
        else
            stop = ((ptr + mask) & ~mask) + size;
        if (BD_UNLIKELY_(stop > end))
            return 0;
    } else {
        /* Cannot wrap for a power of two: ptr <= PTRDIFF_MAX and mask < 2^63. */
        p = (ptr + mask) & ~mask;
        /* With align <= 16 (end a multiple of 16, ptr <= end), ptr <= p <= end: folds
         * away for constant alignments. Otherwise one unsigned compare catches p past
         * end, and align == 0 (which made p 0, below ptr). */
        if (mask >= BD_CHUNK_ALIGN && BD_UNLIKELY_(p - ptr > end - ptr))
            return 0;
        if (BD_UNLIKELY_(size > end - p))
            return 0;
        stop = p + size;
    }
    /* stop >= ptr >= BD_MIN_BOTTOM: never 0 on success. */
    BD_ASSUME_(stop != 0);
    return stop;
}

/*
 * Allocates `size` bytes aligned to `align` (a power of two). The memory is
 * uninitialized and stays valid until the arena is reset, rewound past it, or destroyed.
 * `size` 0 gives a pointer you must not dereference. Returns NULL with errno set on
 * failure (see bd_alloc_slow).
 *
 * Inline, and the bump of the Rust fast path (crates/bumpdown/src/bumping.rs):
 *   - size a compile-time constant <= 4096 and align <= 16 (`bump_up_small`): the new
 *     `ptr` is round_up(ptr + size, align) when size is a multiple of align, one add,
 *     one mask and one compare;
 *   - any other request (`bump_up`): ptr rounded up, then `size > end - p` (cannot
 *     wrap: p <= end); with align <= 16 the rounding cannot pass `end` (a multiple of
 *     16), so the check of p folds away for constant alignments.
 * For bd_alloc(a, 8, 8) storing a value, gcc -O2 emits (x86_64; plus a push/pop of a
 * register that only the slow call needs):
 *     test rdi,rdi ; je null                 <- the NULL check (see BD_NO_NULL_CHECK)
 *     mov rax,[rdi] ; add rax,15 ; and rax,-8 ; cmp rax,[rdi+8] ; ja slow
 *     mov [rdi],rax ; mov [rax-8],value ; lea rax,[rax-8] ; ret
 * Without the NULL check that is 9 instructions and one branch, as the Rust fast path
 * (the `lea` returns the block; a caller that only stores through it folds it into the
 * store's address); tests/fast_path_asm.rs counts them and fails if they grow.
 *
 * The NULL check costs a test and a branch (fused into one micro-op on current x86) per
 * call, but not per iteration of a loop: its branch sets errno and returns NULL inline,
 * so gcc sees the arena cannot be NULL once the loop has gone round, and keeps the check
 * out of the loop's cycle (hoisted before the loop when the loop stops on NULL; after the
 * slow call only, otherwise). tests/fast_path_asm.rs checks the loop body is the same
 * with and without it. Define BD_NO_NULL_CHECK before including this header to drop the
 * check anyway (a NULL arena is then undefined behaviour in the inline functions).
 */
BD_INLINE_ void *bd_alloc(bd_arena *arena, size_t size, size_t align)
{
    uintptr_t p;
#ifndef BD_NO_NULL_CHECK
    /* Inline rather than a call to bd_alloc_slow (which would report the same): the
     * compiler then sees that a NULL arena yields NULL, and hoists this check out of
     * loops that stop on NULL, or keeps it off the loop's fast cycle (see above). */
    if (BD_UNLIKELY_(arena == NULL)) {
        errno = EINVAL;
        return NULL;
    }
#endif
    p = bd_bump_(BD_TO_ADDR_(arena->ptr), BD_TO_ADDR_(arena->end), size, align);
    if (BD_UNLIKELY_(p == 0))
        return bd_alloc_slow(arena, size, align);
    arena->ptr = BD_TO_PTR_(unsigned char *, p);
    /* The block starts at or above the old `ptr` >= BD_MIN_BOTTOM: never NULL. */
    BD_ASSUME_(p - size != 0);
    return BD_TO_PTR_(unsigned char *, p) - size;
}

/* Like bd_alloc, with the memory set to zero. */
BD_INLINE_ void *bd_alloc_zeroed(bd_arena *arena, size_t size, size_t align)
{
    void *p = bd_alloc(arena, size, align);
    if (BD_LIKELY_(p != NULL))
        memset(p, 0, size);
    return p;
}

/* Room for `count` elements of `size` bytes each, aligned to `align`. A product that
 * overflows size_t fails with EINVAL (never a short block). Uninitialized. */
BD_INLINE_ void *bd_alloc_array(bd_arena *arena, size_t count, size_t size, size_t align)
{
    /* Folds for a constant `size`. SIZE_MAX makes the slow path report EINVAL. */
    if (BD_UNLIKELY_(size != 0 && count > SIZE_MAX / size))
        return bd_alloc_slow(arena, SIZE_MAX, align);
    return bd_alloc(arena, count * size, align);
}

/* calloc in an arena: `count` elements of `size` bytes, zeroed, aligned to `align`;
 * overflow of count * size fails with EINVAL. */
BD_INLINE_ void *bd_calloc(bd_arena *arena, size_t count, size_t size, size_t align)
{
    void *p = bd_alloc_array(arena, count, size, align);
    if (BD_LIKELY_(p != NULL))
        memset(p, 0, count * size);
    return p;
}

/* A copy of the NUL-terminated string `s` in the arena. Returns NULL with errno EINVAL
 * (NULL arena or `s`) or ENOMEM. */
char *bd_strdup(bd_arena *arena, const char *s);

/* A NUL-terminated copy of at most the first `n` bytes of `s` (it reads no byte past a
 * NUL, nor past `n`). Errors as bd_strdup. */
char *bd_strndup(bd_arena *arena, const char *s, size_t n);

/* ----- Freeing -------------------------------------------------------------------- */

/* Result codes of the functions returning int. */
enum {
    BD_OK = 0,
    /* A required pointer argument was NULL (errno EINVAL). */
    BD_ERR_NULL = 1,
    /* The checkpoint was taken from another arena (errno EINVAL). */
    BD_ERR_FOREIGN_CHECKPOINT = 2,
    /* The arena was reset, or rewound to an older checkpoint, after this checkpoint was
     * taken (errno EINVAL). */
    BD_ERR_STALE_CHECKPOINT = 3,
    /* Not a checkpoint made by bd_checkpoint_save: uninitialized, zeroed or modified bytes
     * (errno EINVAL). Detected by a check word, not guaranteed. */
    BD_ERR_BAD_CHECKPOINT = 4,
    /* A bug in bumpdown was caught before it could unwind into C (errno EINVAL). */
    BD_ERR_INTERNAL = 5,
    /* Memory for the operation could not be allocated (errno ENOMEM): a first
     * bd_checkpoint_save on an arena that never allocated needs its bookkeeping block. */
    BD_ERR_NOMEM = 6
};

/* Frees every allocation at once. Regular chunks are kept and refilled from the first
 * one (no malloc, no new page faults); chunks of single big allocations go back to
 * malloc. Every checkpoint taken before becomes stale. BD_OK, or BD_ERR_NULL. */
int bd_reset(bd_arena *arena);

/* Like bd_reset, but keeps regular chunks only up to `retain` bytes in total (headers
 * included) and frees the rest. The arena's bookkeeping block (in bd_stats's `held`) and a
 * fixed arena's buffer always stay. */
int bd_reset_with_limit(bd_arena *arena, size_t retain);

/* A saved position of an arena. Plain bytes: copy it freely, but do not modify it. */
typedef struct bd_checkpoint {
    uint64_t opaque_[8];
} bd_checkpoint;

/* Saves the arena's position in *out. BD_OK, BD_ERR_NULL (arena or out is NULL), or
 * BD_ERR_NOMEM (the arena never allocated, and its bookkeeping block could not be). */
int bd_checkpoint_save(bd_arena *arena, bd_checkpoint *out);

/* Frees everything allocated after the checkpoint `cp` was taken; what was allocated
 * before stays. The same checkpoint can be rewound to again and again. Returns BD_OK,
 * or (arena untouched, errno EINVAL) BD_ERR_NULL, BD_ERR_FOREIGN_CHECKPOINT,
 * BD_ERR_STALE_CHECKPOINT, BD_ERR_BAD_CHECKPOINT. */
int bd_rewind(bd_arena *arena, const bd_checkpoint *cp);

/* ----- Cursors: the bump pointer in a register ------------------------------------ */

/*
 * A cursor is a local copy of an arena's bump pointers for hot loops. Allocating through
 * it touches only the cursor, which the compiler keeps in registers, instead of storing
 * `ptr` back into the arena after every allocation (a store per allocation that also
 * competes with the program's own stores; on seed 004's workload, 10 million 64-byte
 * allocations each written once, a cursor is markedly faster than bd_alloc: see the
 * bench).
 *
 * Between bd_cursor_open() and bd_cursor_close(), allocate from that arena only through
 * the cursor, and do not reset it, rewind it, save checkpoints or read stats: until the
 * cursor is closed the arena does not know what the cursor handed out. A cursor that is
 * never closed lets the arena hand the same memory out again. After bd_cursor_close()
 * the cursor refuses every allocation of one byte or more (EINVAL).
 *
 *     bd_cursor c;
 *     if (bd_cursor_open(&c, arena) == BD_OK) {
 *         for (i = 0; i < n; i++)
 *             nodes[i] = bd_cursor_alloc(&c, sizeof(struct node), 8);
 *         bd_cursor_close(&c);
 *     }
 */
typedef struct bd_cursor {
    unsigned char *ptr; /* the arena's `ptr`, moved by the cursor */
    unsigned char *end; /* the arena's `end` */
    bd_arena *arena;    /* NULL when closed, or when opening failed */
} bd_cursor;

/* Opens a cursor on `arena`. BD_OK, or BD_ERR_NULL (errno EINVAL) if `c` or `arena` is
 * NULL; a cursor whose opening failed refuses every allocation of one byte or more. */
BD_INLINE_ int bd_cursor_open(bd_cursor *c, bd_arena *arena)
{
    if (BD_UNLIKELY_(c == NULL || arena == NULL)) {
        if (c != NULL) {
            /* An empty range that every non-empty request fails on; never dereferenced. */
            c->ptr = c->end = BD_TO_PTR_(unsigned char *, BD_MIN_BOTTOM);
            c->arena = NULL;
        }
        errno = EINVAL;
        return BD_ERR_NULL;
    }
    c->ptr = arena->ptr;
    c->end = arena->end;
    c->arena = arena;
    return BD_OK;
}

/* The slow path of bd_cursor_alloc (internal): lends the cursor's position back to the
 * arena for the call, then takes the new one. Inline, so that the cursor's address is
 * never taken and the compiler can keep its fields in registers. */
BD_INLINE_ void *bd_cursor_slow_(bd_cursor *c, size_t size, size_t align)
{
    void *p;
    if (c == NULL || c->arena == NULL)
        return bd_alloc_slow(NULL, size, align);
    c->arena->ptr = c->ptr;
    p = bd_alloc_slow(c->arena, size, align);
    c->ptr = c->arena->ptr;
    c->end = c->arena->end;
    return p;
}

/* bd_alloc through a cursor: the same bump, on the cursor's copy of `ptr`. */
BD_INLINE_ void *bd_cursor_alloc(bd_cursor *c, size_t size, size_t align)
{
    uintptr_t p;
    /* Folds away when `c` is the address of a local. */
    if (BD_UNLIKELY_(c == NULL))
        return bd_cursor_slow_(c, size, align);
    p = bd_bump_(BD_TO_ADDR_(c->ptr), BD_TO_ADDR_(c->end), size, align);
    if (BD_UNLIKELY_(p == 0))
        return bd_cursor_slow_(c, size, align);
    c->ptr = BD_TO_PTR_(unsigned char *, p);
    /* The block starts at or above the old `ptr` >= BD_MIN_BOTTOM: never NULL. */
    BD_ASSUME_(p - size != 0);
    return BD_TO_PTR_(unsigned char *, p) - size;
}

/* Writes the cursor's position back into its arena and closes it. NULL and closed
 * cursors are ignored. */
BD_INLINE_ void bd_cursor_close(bd_cursor *c)
{
    if (c == NULL || c->arena == NULL)
        return;
    c->arena->ptr = c->ptr;
    c->arena = NULL;
    c->ptr = c->end = BD_TO_PTR_(unsigned char *, BD_MIN_BOTTOM);
}

/* ----- Statistics ----------------------------------------------------------------- */

/* A snapshot of an arena's memory use, in bytes unless noted. */
typedef struct bd_stats {
    /* Bytes in use: allocations and the alignment padding between them. */
    size_t used;
    /* The most bytes in use at any moment since the arena was created. */
    size_t peak_used;
    /* Usable bytes of all chunks held (in use, kept for reuse, or holding one big
     * allocation). */
    size_t capacity;
    /* Bytes held from malloc, chunk headers included, and the arena's bookkeeping block
     * (a few hundred bytes, from its first allocation until it is destroyed; 0 for a
     * fixed arena, and not counted for an arena made on a buffer, which holds it). */
    size_t held;
    /* Bytes left unused at the end of chunks the arena moved past. */
    size_t wasted;
    /* Chunks held (a count), of which `spare_chunks` are empty ones kept by a reset and
     * `big_chunks` hold one big allocation each. */
    size_t chunks;
    size_t spare_chunks;
    size_t big_chunks;
} bd_stats;

/* Fills *out with the arena's statistics. Walks the chunk list. BD_OK or BD_ERR_NULL. */
int bd_arena_stats(bd_arena *arena, bd_stats *out);

/* ----- The virtual-memory arena --------------------------------------------------- */

/*
 * A virtual-memory arena reserves one range of address space up front (address space
 * costs nothing until used: reserve generously) and makes the low end of it usable in
 * growing batches as it fills, each batch faulted in ahead of use in one system call
 * (Linux 5.14+; opt out with BD_VM_NO_POPULATE). It bumps UPWARDS, so it is a type of
 * its own (bd_vm_arena, never a bd_arena) with functions of its own:
 *   - nothing ever moves and all allocations lie in one range;
 *   - the newest block can grow in place, without copying (bd_vm_realloc_last);
 *   - there are no chunk headers and no slow path once the pages are committed: after
 *     bd_vm_reset, a pass over the same memory is a plain bump;
 *   - running out of the reservation is ENOMEM, never a crash.
 * 64-bit Linux and macOS only.
 *
 *     bd_vm_arena *vm = bd_vm_create((size_t)1 << 30);    // reserve 1 GiB
 *     char *buf = bd_vm_alloc(vm, 100, 1);
 *     buf = bd_vm_realloc_last(vm, buf, 100, 5000, 1);     // in place: it is the newest
 *     bd_vm_reset(vm);                                     // O(1); keeps the pages
 *     bd_vm_destroy(vm);                                   // gives the range back
 *
 * Only ever handled through a pointer from bd_vm_create*. Its first two fields are the
 * free range, visible for the inline fast path (they are the first two fields of the
 * Rust `bumpdown::VmArena`, which is repr(C); a test checks they agree). Invariants the
 * fast path relies on (the library keeps them; C code must never write these fields
 * other than through bd_vm_alloc and bd_vm_cursor_close):
 *   0 < top <= committed <= PTRDIFF_MAX;  committed is a multiple of BD_VM_PAGE_ALIGN.
 * A new arena has top == committed (nothing committed): the first allocation of one byte
 * or more takes the slow path.
 */
typedef struct bd_vm_arena {
    unsigned char *top;       /* the next allocation starts here (after alignment); moves up */
    unsigned char *committed; /* the end of the usable part: no allocation ends past it */
    /* opaque rest: allocated and owned by the library */
} bd_vm_arena;

/* `committed` is always a multiple of this, so rounding `top` up to an alignment of at
 * most this many bytes cannot pass `committed`. */
#define BD_VM_PAGE_ALIGN ((size_t)4096)

/* How far above the new `top` bd_vm_alloc asks the CPU to load a cache line ahead of
 * use, as VmArena does in Rust: an arena writes lines it has not touched for a long
 * time, and the hardware prefetchers start late on such a stream. */
#define BD_VM_PREFETCH_AHEAD ((size_t)2048)

/* bd_vm_options.flags: don't fault each committed batch in ahead of use (one page fault
 * per page on first touch instead). */
#define BD_VM_NO_POPULATE 1
/* bd_vm_options.flags: ask for transparent huge pages (MADV_HUGEPAGE). Measure first: on
 * virtual machines huge pages can make first touch slower. */
#define BD_VM_HUGE_PAGES 2
/* bd_vm_options.reset_policy: bd_vm_reset keeps every page (the default), so the next
 * pass over the memory takes no page fault. */
#define BD_VM_KEEP_PAGES 0
/* bd_vm_options.reset_policy: bd_vm_reset gives the pages past the first
 * `release_above` bytes back to the system (resident memory drops after a peak; they read
 * as zeros and are faulted in again when next used). */
#define BD_VM_RELEASE_ABOVE 1

/* Options of a virtual-memory arena. Zero-initialize, set `reserve` and what you need:
 *     bd_vm_options opts = {0};
 *     opts.reserve = (size_t)64 << 30;
 *     opts.reset_policy = BD_VM_RELEASE_ABOVE;
 *     opts.release_above = 16u << 20;
 *     bd_vm_arena *vm = bd_vm_create_with(&opts); */
typedef struct bd_vm_options {
    /* Bytes of address space to reserve (rounded up to 16 KiB; at most half the address
     * space). */
    size_t reserve;
    /* The largest step in which memory is committed; steps double from 64 KiB up to it
     * (0: 128 KiB). */
    size_t commit_batch;
    /* Most bytes committed (0: the whole reservation may be). Requests past it fail with
     * ENOMEM. */
    size_t limit;
    /* With reset_policy BD_VM_RELEASE_ABOVE: the bytes whose pages a reset keeps. */
    size_t release_above;
    /* 0, or BD_VM_NO_POPULATE and/or BD_VM_HUGE_PAGES or'ed together. */
    int flags;
    /* BD_VM_KEEP_PAGES (0) or BD_VM_RELEASE_ABOVE. */
    int reset_policy;
} bd_vm_options;

/* A virtual-memory arena reserving `reserve` bytes, default options (populate ahead,
 * keep pages on reset). Returns NULL with errno EINVAL if `reserve` is absurd (more than
 * half the address space) or ENOMEM if the system refuses the reservation. */
bd_vm_arena *bd_vm_create(size_t reserve);

/* A virtual-memory arena with options. Returns NULL with errno EINVAL for NULL `opts`,
 * unknown flags or reset policy, or an absurd reservation; ENOMEM if the system refuses
 * the reservation. */
bd_vm_arena *bd_vm_create_with(const bd_vm_options *opts);

/* Frees the arena and gives its whole reservation back. NULL is ignored. */
void bd_vm_destroy(bd_vm_arena *arena);

/* The slow path of bd_vm_alloc, and a complete allocation for FFI users: commits more
 * of the reservation when needed. Returns NULL with errno EINVAL (NULL arena; align zero
 * or not a power of two; size larger than PTRDIFF_MAX once aligned) or ENOMEM (the
 * reservation or the limit is exhausted, or the system refused to commit). */
void *bd_vm_alloc_slow(bd_vm_arena *arena, size_t size, size_t align);

/* The upward bump (internal): where a block of `size` bytes aligned to `align` starts in
 * top..committed, or 0 when it does not fit or `align` is zero or not a power of two. */
BD_INLINE_ uintptr_t bd_vm_bump_(uintptr_t top, uintptr_t committed, size_t size, size_t align)
{
    uintptr_t p, mask = align - 1; /* align == 0 gives all ones: ~mask is 0 */
    /* Folds for a constant alignment. align == 0 passes here and fails below. */
    if (BD_UNLIKELY_((align & mask) != 0))
        return 0;
    /* Cannot wrap for a power of two: top <= PTRDIFF_MAX and mask < 2^63. */
    p = (top + mask) & ~mask;
    /* With align <= BD_VM_PAGE_ALIGN (committed a multiple of it, top <= committed),
     * top <= p <= committed: folds away for constant alignments. Otherwise one unsigned
     * compare catches p past committed, and align == 0 (which made p 0, below top). */
    if (mask >= BD_VM_PAGE_ALIGN && BD_UNLIKELY_(p - top > committed - top))
        return 0;
    /* p <= committed <= PTRDIFF_MAX: p + size cannot wrap for a size <= PTRDIFF_MAX + 1,
     * so a constant size compares the end (one lea, one compare with memory). */
    if (BD_IS_CONSTANT_(size) && size <= (size_t)PTRDIFF_MAX) {
        if (BD_UNLIKELY_(p + size > committed))
            return 0;
    } else if (BD_UNLIKELY_(size > committed - p)) {
        return 0;
    }
    /* p >= top > 0: a block is never at 0. */
    BD_ASSUME_(p != 0);
    return p;
}

/*
 * Allocates `size` bytes aligned to `align` (a power of two) from a virtual-memory
 * arena: p = round_up(top, align); if size > committed - p, the slow path; else
 * top = p + size. Uninitialized; valid until the arena is reset, rewound past it, or
 * destroyed. Errors as bd_vm_alloc_slow. Inline; for bd_vm_alloc(vm, 64, 16) gcc -O2
 * emits (x86_64):
 *     test rdi,rdi ; je null                 <- the NULL check (see BD_NO_NULL_CHECK)
 *     mov rax,[rdi] ; add rax,15 ; and rax,-16 ; lea rdx,[rax+64]
 *     cmp [rdi+8],rdx ; jb slow ; mov [rdi],rdx ; prefetcht0 [rax+2112] ; ret
 * one instruction more than bumping down (the size and the rounding cannot share one
 * subtraction), and one prefetch (BD_VM_PREFETCH_AHEAD); tests/fast_path_asm.rs counts
 * them. In loops, gcc hoists the NULL check out of the loop (see bd_alloc). A cursor
 * (bd_vm_cursor_open) keeps `top` in a register.
 */
BD_INLINE_ void *bd_vm_alloc(bd_vm_arena *arena, size_t size, size_t align)
{
    uintptr_t p;
#ifndef BD_NO_NULL_CHECK
    if (BD_UNLIKELY_(arena == NULL)) {
        errno = EINVAL;
        return NULL;
    }
#endif
    p = bd_vm_bump_(BD_TO_ADDR_(arena->top), BD_TO_ADDR_(arena->committed), size, align);
    if (BD_UNLIKELY_(p == 0))
        return bd_vm_alloc_slow(arena, size, align);
    arena->top = BD_TO_PTR_(unsigned char *, p + size);
    BD_PREFETCH_(p + size + BD_VM_PREFETCH_AHEAD);
    return BD_TO_PTR_(void *, p);
}

/*
 * A cursor over a virtual-memory arena: a local copy of `top` and `committed` for hot
 * loops, as bd_cursor is for bd_arena and under the same rules (between open and close,
 * allocate from that arena only through the cursor; no reset, rewind, realloc,
 * checkpoint or stats; a closed cursor refuses every allocation of one byte or more).
 * bd_vm_alloc must store `top` back after every allocation and load it again for the
 * next (gcc cannot keep it in a register across the possible slow call); through a
 * cursor a loop is the bump, a compare and the program's own stores.
 *
 *     bd_vm_cursor c;
 *     if (bd_vm_cursor_open(&c, vm) == BD_OK) {
 *         for (i = 0; i < n; i++)
 *             nodes[i] = bd_vm_cursor_alloc(&c, sizeof(struct node), 8);
 *         bd_vm_cursor_close(&c);
 *     }
 */
typedef struct bd_vm_cursor {
    unsigned char *top;       /* the arena's `top`, moved by the cursor */
    unsigned char *committed; /* the arena's `committed` */
    bd_vm_arena *arena;       /* NULL when closed, or when opening failed */
} bd_vm_cursor;

/* Opens a cursor on `arena`. BD_OK, or BD_ERR_NULL (errno EINVAL) if `c` or `arena` is
 * NULL; a cursor whose opening failed refuses every allocation of one byte or more. */
BD_INLINE_ int bd_vm_cursor_open(bd_vm_cursor *c, bd_vm_arena *arena)
{
    if (BD_UNLIKELY_(c == NULL || arena == NULL)) {
        if (c != NULL) {
            /* An empty range that every non-empty request fails on; never dereferenced. */
            c->top = c->committed = BD_TO_PTR_(unsigned char *, BD_VM_PAGE_ALIGN);
            c->arena = NULL;
        }
        errno = EINVAL;
        return BD_ERR_NULL;
    }
    c->top = arena->top;
    c->committed = arena->committed;
    c->arena = arena;
    return BD_OK;
}

/* The slow path of bd_vm_cursor_alloc (internal): lends the cursor's position back to
 * the arena for the call, then takes the new one. */
BD_INLINE_ void *bd_vm_cursor_slow_(bd_vm_cursor *c, size_t size, size_t align)
{
    void *p;
    if (c == NULL || c->arena == NULL)
        return bd_vm_alloc_slow(NULL, size, align);
    c->arena->top = c->top;
    p = bd_vm_alloc_slow(c->arena, size, align);
    c->top = c->arena->top;
    c->committed = c->arena->committed;
    return p;
}

/* bd_vm_alloc through a cursor: the same bump, on the cursor's copy of `top`. */
BD_INLINE_ void *bd_vm_cursor_alloc(bd_vm_cursor *c, size_t size, size_t align)
{
    uintptr_t p;
    /* Folds away when `c` is the address of a local. */
    if (BD_UNLIKELY_(c == NULL))
        return bd_vm_cursor_slow_(c, size, align);
    p = bd_vm_bump_(BD_TO_ADDR_(c->top), BD_TO_ADDR_(c->committed), size, align);
    if (BD_UNLIKELY_(p == 0))
        return bd_vm_cursor_slow_(c, size, align);
    c->top = BD_TO_PTR_(unsigned char *, p + size);
    BD_PREFETCH_(p + size + BD_VM_PREFETCH_AHEAD);
    return BD_TO_PTR_(void *, p);
}

/* Writes the cursor's position back into its arena and closes it. NULL and closed
 * cursors are ignored. */
BD_INLINE_ void bd_vm_cursor_close(bd_vm_cursor *c)
{
    if (c == NULL || c->arena == NULL)
        return;
    c->arena->top = c->top;
    c->arena = NULL;
    c->top = c->committed = BD_TO_PTR_(unsigned char *, BD_VM_PAGE_ALIGN);
}

/* Like bd_vm_alloc, with the memory set to zero. Out of line: memory never handed out
 * since the reservation was made (or since its pages were released) reads as zero
 * already, so only the part of the block that was used before is cleared. */
void *bd_vm_alloc_zeroed(bd_vm_arena *arena, size_t size, size_t align);

/* calloc in a virtual-memory arena: `count` elements of `size` bytes, zeroed (as
 * bd_vm_alloc_zeroed), aligned to `align`; an overflowing count * size fails with
 * EINVAL. */
void *bd_vm_calloc(bd_vm_arena *arena, size_t count, size_t size, size_t align);

/*
 * Resizes the block at `ptr`, of `old_size` bytes and allocated (or last resized) with
 * alignment `align`, to `new_size` bytes with the same alignment:
 *   - the newest block (nothing allocated after it) grows or shrinks in place: no copy,
 *     and a shrink gives the tail back to the arena;
 *   - any other block shrinks (or keeps its size) in place, the tail staying unused
 *     until a reset, and grows by moving to a new block: `old_size` bytes are copied,
 *     the old block is left as is (no longer yours to use).
 * `ptr` NULL with `old_size` 0 is bd_vm_alloc_slow(arena, new_size, align). Returns the
 * block (== ptr when in place), or NULL with errno EINVAL (NULL arena, NULL ptr with a
 * non-zero old_size, a bad alignment, a size larger than PTRDIFF_MAX once aligned) or
 * ENOMEM; on failure the old block is untouched and still valid. The alignment is part
 * of the call, unlike realloc's, because a moved block must keep it.
 */
void *bd_vm_realloc_last(bd_vm_arena *arena, void *ptr, size_t old_size, size_t new_size, size_t align);

/* Frees every allocation, in O(1): the bump pointer returns to the start of the
 * reservation; pages are kept or released per the reset policy. Every checkpoint taken
 * before becomes stale; an open cursor must be closed first. BD_OK, or BD_ERR_NULL. */
int bd_vm_reset(bd_vm_arena *arena);

/* Saves the arena's position in *out (a bd_checkpoint, as for bd_arena; a checkpoint of
 * one arena is refused by every other). BD_OK, or BD_ERR_NULL. */
int bd_vm_checkpoint_save(bd_vm_arena *arena, bd_checkpoint *out);

/* Frees everything allocated after `cp` was taken, as bd_rewind. Returns BD_OK, or
 * (arena untouched, errno EINVAL) BD_ERR_NULL, BD_ERR_FOREIGN_CHECKPOINT,
 * BD_ERR_STALE_CHECKPOINT, BD_ERR_BAD_CHECKPOINT. */
int bd_vm_rewind(bd_vm_arena *arena, const bd_checkpoint *cp);

/* A snapshot of a virtual-memory arena's memory use, in bytes. */
typedef struct bd_vm_stats {
    /* Address space reserved. */
    size_t reserved;
    /* Committed: usable without a system call (what the arena holds from the system). */
    size_t committed;
    /* In use: from the start of the reservation to `top`, padding included. */
    size_t used;
    /* The most ever in use at once since the arena was created. */
    size_t peak_used;
} bd_vm_stats;

/* Fills *out with the arena's statistics. BD_OK or BD_ERR_NULL. */
int bd_vm_arena_stats(bd_vm_arena *arena, bd_vm_stats *out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BUMPDOWN_H */
