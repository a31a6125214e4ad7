/*
 * The C API's behaviour, function by function, bad input by bad input. Built and run by
 * tests/c_suite.rs (cargo test) and by run-sanitizers.sh (valgrind, ASan + UBSan).
 * Prints "SIZES ..." so the Rust side can compare struct sizes with its own.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bumpdown.h"

static int failures;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);    \
            failures++;                                                                 \
        }                                                                               \
    } while (0)

/* A call that must fail: NULL result and this errno. */
#define CHECK_FAILS(expr, err)                                                          \
    do {                                                                                \
        errno = 0;                                                                      \
        CHECK((expr) == NULL);                                                          \
        CHECK(errno == (err));                                                          \
    } while (0)

/* An int-returning call that must fail with this code and EINVAL. */
#define CHECK_CODE(expr, code)                                                          \
    do {                                                                                \
        errno = 0;                                                                      \
        CHECK((expr) == (code));                                                        \
        CHECK(errno == EINVAL);                                                         \
    } while (0)

/* Defeats constant folding, so the inline path for run-time sizes is tested too. */
static volatile size_t opaque_zero;
static size_t runtime(size_t n) { return n + opaque_zero; }

static int aligned(const void *p, size_t align) { return ((uintptr_t)p & (align - 1)) == 0; }

static bd_stats stats_of(bd_arena *arena)
{
    bd_stats s;
    memset(&s, 0xff, sizeof s);
    CHECK(bd_arena_stats(arena, &s) == BD_OK);
    return s;
}

/* Fills `n` bytes with a pattern derived from `seed`; checks it back. */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 31u + i);
}
static int intact(const unsigned char *p, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 31u + i))
            return 0;
    return 1;
}

static void test_create_destroy(void)
{
    bd_arena *a = bd_arena_create();
    bd_stats s;
    bd_options opts;
    CHECK(a != NULL);
    s = stats_of(a);
    CHECK(s.used == 0 && s.capacity == 0 && s.chunks == 0 && s.held == 0 && s.peak_used == 0);
    /* A new arena points at the sentinel: no room, so the first allocation is slow. */
    CHECK(a->ptr == a->end);
    CHECK((uintptr_t)a->end >= BD_MIN_BOTTOM && (uintptr_t)a->end % BD_CHUNK_ALIGN == 0);
    bd_arena_destroy(a);
    bd_arena_destroy(NULL); /* ignored */

    a = bd_arena_create_with(NULL);
    CHECK(a != NULL);
    bd_arena_destroy(a);

    memset(&opts, 0, sizeof opts);
    opts.initial_capacity = 10000;
    a = bd_arena_create_with(&opts);
    CHECK(a != NULL);
    s = stats_of(a);
    CHECK(s.chunks == 1 && s.capacity >= 10000 && s.used == 0);
    CHECK((size_t)(a->end - a->ptr) >= 10000);
    bd_arena_destroy(a);

    /* An initial capacity no chunk can have, or past the limit. */
    opts.initial_capacity = SIZE_MAX;
    CHECK_FAILS(bd_arena_create_with(&opts), EINVAL);
    opts.initial_capacity = 100000;
    opts.limit = 4096;
    CHECK_FAILS(bd_arena_create_with(&opts), ENOMEM);
}

static void test_alloc_shapes(void)
{
    bd_arena *a = bd_arena_create();
    unsigned char *blocks[400];
    size_t sizes[400];
    size_t i, align;
    for (i = 0; i < 400; i++) {
        size_t size = (i * 37) % 300;
        align = (size_t)1 << (i % 8);
        sizes[i] = size;
        blocks[i] = (i % 2) ? bd_alloc(a, runtime(size), runtime(align)) : bd_alloc(a, size, align);
        CHECK(blocks[i] != NULL);
        CHECK(aligned(blocks[i], align));
        fill(blocks[i], size, (unsigned)i);
    }
    /* Everything intact, nothing overlapping. */
    for (i = 0; i < 400; i++) {
        size_t j;
        CHECK(intact(blocks[i], sizes[i], (unsigned)i));
        for (j = i + 1; j < 400; j++)
            CHECK(blocks[j] + sizes[j] <= blocks[i] || blocks[i] + sizes[i] <= blocks[j] || sizes[i] == 0 ||
                  sizes[j] == 0);
    }
    /* Constant shapes of the fast path. */
    {
        uint64_t *x = bd_alloc(a, sizeof *x, 8);
        unsigned char *c = bd_alloc(a, 1, 1);
        void *page = bd_alloc(a, 4096, 4096);
        void *big_align = bd_alloc(a, 10, 64);
        CHECK(x && c && page && big_align);
        CHECK(aligned(x, 8) && aligned(page, 4096) && aligned(big_align, 64));
        *x = 42;
        *c = 7;
        CHECK(*x == 42 && *c == 7);
    }
    /* Size zero: a non-NULL pointer that takes no room. */
    {
        unsigned char *before = a->ptr;
        void *z = bd_alloc(a, 0, 1);
        CHECK(z != NULL && a->ptr == before);
        z = bd_alloc(a, runtime(0), runtime(16));
        CHECK(z != NULL && aligned(z, 16));
    }
    /* Large and many: chunks grow, big ones go out of band. */
    {
        void *big = bd_alloc(a, 1 << 20, 16);
        bd_stats s;
        CHECK(big != NULL);
        memset(big, 1, 1 << 20);
        s = stats_of(a);
        CHECK(s.big_chunks == 1 && s.chunks >= 2 && s.used >= (1u << 20));
    }
    for (i = 0; i < 400; i++)
        CHECK(intact(blocks[i], sizes[i], (unsigned)i));
    bd_arena_destroy(a);
}

static void test_alloc_bad_input(void)
{
    bd_arena *a = bd_arena_create();
    uint64_t *kept = bd_alloc(a, sizeof *kept, 8);
    unsigned char *ptr;
    CHECK(kept != NULL);
    *kept = 0x1234;
    ptr = a->ptr;

    /* NULL arena, through every allocating function. */
    CHECK_FAILS(bd_alloc(NULL, 8, 8), EINVAL);
    CHECK_FAILS(bd_alloc(NULL, runtime(8), runtime(8)), EINVAL);
    CHECK_FAILS(bd_alloc_slow(NULL, 8, 8), EINVAL);
    CHECK_FAILS(bd_alloc_zeroed(NULL, 8, 8), EINVAL);
    CHECK_FAILS(bd_alloc_array(NULL, 2, 8, 8), EINVAL);
    CHECK_FAILS(bd_calloc(NULL, 2, 8, 8), EINVAL);
    CHECK_FAILS(bd_strdup(NULL, "x"), EINVAL);
    CHECK_FAILS(bd_strndup(NULL, "x", 1), EINVAL);

    /* Alignments that are zero or not powers of two, constant and at run time. */
    CHECK_FAILS(bd_alloc(a, 8, 0), EINVAL);
    CHECK_FAILS(bd_alloc(a, 8, 3), EINVAL);
    CHECK_FAILS(bd_alloc(a, 8, 48), EINVAL);
    CHECK_FAILS(bd_alloc(a, runtime(8), runtime(0)), EINVAL);
    CHECK_FAILS(bd_alloc(a, runtime(8), runtime(24)), EINVAL);
    CHECK_FAILS(bd_alloc(a, runtime(100000), runtime(0)), EINVAL);
    CHECK_FAILS(bd_alloc(a, 0, 0), EINVAL);
    CHECK_FAILS(bd_alloc_slow(a, 8, 0), EINVAL);
    CHECK_FAILS(bd_alloc_slow(a, 8, 12), EINVAL);
    CHECK_FAILS(bd_alloc_zeroed(a, 8, 5), EINVAL);
    CHECK_FAILS(bd_calloc(a, 1, 8, 6), EINVAL);

    /* Sizes that overflow once aligned, or that no chunk can hold. */
    CHECK_FAILS(bd_alloc(a, SIZE_MAX, 1), EINVAL);
    CHECK_FAILS(bd_alloc(a, runtime(SIZE_MAX), runtime(8)), EINVAL);
    CHECK_FAILS(bd_alloc(a, SIZE_MAX - 100, 4096), EINVAL);
    CHECK_FAILS(bd_alloc(a, (size_t)PTRDIFF_MAX, 1), EINVAL);
    CHECK_FAILS(bd_alloc_slow(a, SIZE_MAX, 1), EINVAL);
    /* A size the system cannot give. */
    CHECK_FAILS(bd_alloc(a, (size_t)1 << 62, 8), ENOMEM);

    /* count * size overflowing. */
    CHECK_FAILS(bd_alloc_array(a, SIZE_MAX / 2 + 1, 2, 1), EINVAL);
    CHECK_FAILS(bd_alloc_array(a, runtime(SIZE_MAX), runtime(8), 8), EINVAL);
    CHECK_FAILS(bd_calloc(a, (size_t)1 << 40, (size_t)1 << 40, 8), EINVAL);

    /* Nothing moved, nothing lost. */
    CHECK(a->ptr == ptr);
    CHECK(*kept == 0x1234);
    CHECK(bd_alloc(a, 8, 8) != NULL);
    bd_arena_destroy(a);
}

static void test_zeroed_array_calloc(void)
{
    bd_arena *a = bd_arena_create();
    unsigned char *p;
    uint32_t *arr;
    size_t i;
    /* Dirty the chunk, then reset: the zeroed functions must clear what they reuse. */
    p = bd_alloc(a, 2000, 1);
    CHECK(p != NULL);
    memset(p, 0xaa, 2000);
    CHECK(bd_reset(a) == BD_OK);

    p = bd_alloc_zeroed(a, 300, 4);
    CHECK(p != NULL && aligned(p, 4));
    for (i = 0; i < 300; i++)
        CHECK(p[i] == 0);
    arr = bd_calloc(a, 100, sizeof *arr, 4);
    CHECK(arr != NULL && aligned(arr, 4));
    for (i = 0; i < 100; i++)
        CHECK(arr[i] == 0);
    arr = bd_calloc(a, runtime(50), runtime(sizeof *arr), 4);
    CHECK(arr != NULL);
    for (i = 0; i < 50; i++)
        CHECK(arr[i] == 0);

    arr = bd_alloc_array(a, 64, sizeof *arr, 4);
    CHECK(arr != NULL && aligned(arr, 4));
    for (i = 0; i < 64; i++)
        arr[i] = (uint32_t)i;
    for (i = 0; i < 64; i++)
        CHECK(arr[i] == i);
    CHECK(bd_alloc_array(a, 0, 8, 8) != NULL);
    CHECK(bd_alloc_array(a, 8, 0, 8) != NULL);
    CHECK(bd_calloc(a, 0, 0, 1) != NULL);
    bd_arena_destroy(a);
}

static void test_strings(void)
{
    bd_arena *a = bd_arena_create();
    char unterminated[5] = {'h', 'e', 'l', 'l', 'o'};
    char *s = bd_strdup(a, "hello, arena");
    char *big;
    CHECK(s != NULL && strcmp(s, "hello, arena") == 0);
    s = bd_strdup(a, "");
    CHECK(s != NULL && s[0] == '\0');
    s = bd_strndup(a, "hello", 3);
    CHECK(s != NULL && strcmp(s, "hel") == 0);
    s = bd_strndup(a, "hi", 100);
    CHECK(s != NULL && strcmp(s, "hi") == 0);
    s = bd_strndup(a, "hi", 0);
    CHECK(s != NULL && s[0] == '\0');
    /* Reads no byte past n: the sanitizers would see it. */
    s = bd_strndup(a, unterminated, sizeof unterminated);
    CHECK(s != NULL && strcmp(s, "hello") == 0);
    CHECK_FAILS(bd_strdup(a, NULL), EINVAL);
    CHECK_FAILS(bd_strndup(a, NULL, 4), EINVAL);

    /* A string longer than a chunk. */
    big = malloc(100000);
    CHECK(big != NULL);
    memset(big, 'x', 99999);
    big[99999] = '\0';
    s = bd_strdup(a, big);
    CHECK(s != NULL && strcmp(s, big) == 0);
    free(big);
    bd_arena_destroy(a);
}

static void test_reset(void)
{
    bd_arena *a = bd_arena_create();
    void *first, *again;
    bd_stats s;
    size_t held, i;
    first = bd_alloc(a, 64, 16);
    for (i = 0; i < 10000; i++)
        CHECK(bd_alloc(a, 64, 16) != NULL);
    s = stats_of(a);
    held = s.held;
    CHECK(s.chunks > 1 && s.used >= 10000 * 64);
    CHECK(bd_reset(a) == BD_OK);
    s = stats_of(a);
    CHECK(s.used == 0 && s.held == held && s.peak_used >= 10000 * 64);
    /* Refilled from the first chunk: same addresses, no new memory. */
    again = bd_alloc(a, 64, 16);
    CHECK(again == first);
    for (i = 0; i < 10000; i++)
        CHECK(bd_alloc(a, 64, 16) != NULL);
    CHECK(stats_of(a).held == held);

    CHECK(bd_reset_with_limit(a, 0) == BD_OK);
    s = stats_of(a);
    /* No chunk left: only the arena's bookkeeping block. */
    CHECK(s.held > 0 && s.held < 1024 && s.chunks == 0 && s.used == 0);
    CHECK(bd_alloc(a, 64, 16) != NULL);

    CHECK_CODE(bd_reset(NULL), BD_ERR_NULL);
    CHECK_CODE(bd_reset_with_limit(NULL, 0), BD_ERR_NULL);
    bd_arena_destroy(a);
}

static void test_limit_and_chunk_cap(void)
{
    bd_options opts;
    bd_arena *a;
    unsigned char *kept;
    size_t n = 0;
    bd_stats s;
    memset(&opts, 0, sizeof opts);
    opts.limit = 1 << 20;
    opts.max_chunk_size = 64 << 10;
    a = bd_arena_create_with(&opts);
    CHECK(a != NULL);
    kept = bd_alloc(a, 100, 1);
    CHECK(kept != NULL);
    fill(kept, 100, 9);
    for (;;) {
        void *p = bd_alloc(a, 1000, 8);
        if (p == NULL) {
            CHECK(errno == ENOMEM);
            break;
        }
        n++;
    }
    s = stats_of(a);
    CHECK(s.held <= opts.limit && n > 900 && n < 1100);
    /* Chunks were capped: more than a few. */
    CHECK(s.chunks >= 16);
    CHECK(intact(kept, 100, 9));
    /* Still usable below the limit after a reset, which keeps every chunk: so at the
     * limit still, nothing bigger than a kept chunk fits. */
    CHECK(bd_reset(a) == BD_OK);
    CHECK(bd_alloc(a, 1000, 8) != NULL);
    CHECK_FAILS(bd_alloc(a, 20000, 8), ENOMEM);
    /* A request over an eighth of the cap has a chunk of its own. */
    CHECK(bd_reset_with_limit(a, 0) == BD_OK);
    CHECK(bd_alloc(a, 20000, 8) != NULL);
    CHECK(stats_of(a).big_chunks == 1);
    bd_arena_destroy(a);
}

static void test_checkpoints(void)
{
    bd_arena *a = bd_arena_create();
    bd_arena *other = bd_arena_create();
    bd_checkpoint cp, cp2, cp_other, bad;
    unsigned char *kept;
    bd_stats s;
    size_t i, used;
    int round;
    kept = bd_alloc(a, 32, 8);
    fill(kept, 32, 3);
    CHECK(bd_checkpoint_save(a, &cp) == BD_OK);
    used = stats_of(a).used;
    for (round = 0; round < 3; round++) {
        /* Past several chunks and a big allocation, then back. */
        for (i = 0; i < 2000; i++)
            CHECK(bd_alloc(a, 100, 8) != NULL);
        CHECK(bd_alloc(a, 1 << 20, 8) != NULL);
        CHECK(bd_rewind(a, &cp) == BD_OK);
        s = stats_of(a);
        CHECK(s.used == used && s.big_chunks == 0);
        CHECK(intact(kept, 32, 3));
    }

    /* Nested: rewinding to the outer one makes the inner one stale. */
    CHECK(bd_checkpoint_save(a, &cp2) == BD_OK);
    CHECK(bd_alloc(a, 10, 1) != NULL);
    CHECK(bd_rewind(a, &cp2) == BD_OK);
    CHECK(bd_rewind(a, &cp) == BD_OK);
    CHECK_CODE(bd_rewind(a, &cp2), BD_ERR_STALE_CHECKPOINT);

    /* Foreign. */
    CHECK(bd_checkpoint_save(other, &cp_other) == BD_OK);
    CHECK_CODE(bd_rewind(a, &cp_other), BD_ERR_FOREIGN_CHECKPOINT);
    CHECK_CODE(bd_rewind(other, &cp), BD_ERR_FOREIGN_CHECKPOINT);

    /* Not made by bd_checkpoint. */
    memset(&bad, 0, sizeof bad);
    CHECK_CODE(bd_rewind(a, &bad), BD_ERR_BAD_CHECKPOINT);
    memset(&bad, 0xa5, sizeof bad);
    CHECK_CODE(bd_rewind(a, &bad), BD_ERR_BAD_CHECKPOINT);
    bad = cp;
    bad.opaque_[2] ^= 64;
    CHECK_CODE(bd_rewind(a, &bad), BD_ERR_BAD_CHECKPOINT);
    /* A copy is as good as the original. */
    bad = cp;
    CHECK(bd_rewind(a, &bad) == BD_OK);

    /* Stale after a reset. */
    CHECK(bd_reset(a) == BD_OK);
    CHECK_CODE(bd_rewind(a, &cp), BD_ERR_STALE_CHECKPOINT);

    /* NULL arguments. */
    CHECK_CODE(bd_checkpoint_save(NULL, &cp), BD_ERR_NULL);
    CHECK_CODE(bd_checkpoint_save(a, NULL), BD_ERR_NULL);
    CHECK_CODE(bd_rewind(NULL, &cp), BD_ERR_NULL);
    CHECK_CODE(bd_rewind(a, NULL), BD_ERR_NULL);

    /* Refusals left the arena working. */
    CHECK(bd_alloc(a, 8, 8) != NULL);
    bd_arena_destroy(a);
    bd_arena_destroy(other);
}

static void test_stats(void)
{
    bd_arena *a = bd_arena_create();
    bd_stats s;
    bd_checkpoint cp;
    CHECK(bd_alloc(a, 1, 1) != NULL);
    CHECK(bd_alloc(a, 8, 8) != NULL); /* 7 bytes of padding above it */
    s = stats_of(a);
    CHECK(s.used == 16 && s.chunks == 1 && s.spare_chunks == 0 && s.big_chunks == 0);
    CHECK(s.capacity >= s.used && s.held > s.capacity && s.peak_used == 16 && s.wasted == 0);
    CHECK(bd_checkpoint_save(a, &cp) == BD_OK);
    CHECK(bd_alloc(a, 100, 1) != NULL);
    CHECK(bd_rewind(a, &cp) == BD_OK);
    s = stats_of(a);
    CHECK(s.used == 16 && s.peak_used == 116);
    CHECK_CODE(bd_arena_stats(NULL, &s), BD_ERR_NULL);
    CHECK_CODE(bd_arena_stats(a, NULL), BD_ERR_NULL);
    bd_arena_destroy(a);
}

static void test_fixed(void)
{
    static unsigned char buf[1 << 14];
    unsigned char small[64];
    bd_arena *a;
    unsigned char *kept, *p;
    bd_stats s;
    bd_checkpoint cp;
    size_t n = 0;
    /* An unaligned start is fine. */
    a = bd_arena_create_fixed(buf + 1, sizeof buf - 1);
    CHECK(a != NULL);
    CHECK((unsigned char *)a >= buf && (unsigned char *)a < buf + sizeof buf);
    s = stats_of(a);
    CHECK(s.chunks == 1 && s.held == 0 && s.capacity > sizeof buf - 1024 && s.capacity < sizeof buf);
    kept = bd_alloc(a, 100, 1);
    CHECK(kept != NULL && kept >= buf && kept + 100 <= buf + sizeof buf);
    fill(kept, 100, 5);
    CHECK(bd_checkpoint_save(a, &cp) == BD_OK);
    for (;;) {
        p = bd_alloc(a, 64, 16);
        if (p == NULL) {
            CHECK(errno == ENOMEM);
            break;
        }
        CHECK(p >= buf && p + 64 <= buf + sizeof buf && aligned(p, 16));
        n++;
    }
    CHECK(n > 200 && n < 256);
    /* The last bytes, one by one. */
    for (n = 0; bd_alloc(a, 1, 1) != NULL; n++)
        ;
    CHECK(errno == ENOMEM && n < 64);
    /* Full: everything fails with ENOMEM, nothing spills to the heap. */
    CHECK_FAILS(bd_alloc(a, runtime(1), runtime(1)), ENOMEM);
    CHECK_FAILS(bd_strdup(a, "no room for me, not even a little"), ENOMEM);
    CHECK_FAILS(bd_alloc(a, 1 << 20, 8), ENOMEM);
    s = stats_of(a);
    CHECK(s.held == 0 && s.chunks == 1 && s.big_chunks == 0);
    CHECK(intact(kept, 100, 5));
    CHECK(bd_rewind(a, &cp) == BD_OK);
    CHECK(intact(kept, 100, 5));
    CHECK(bd_alloc(a, 64, 16) != NULL);
    CHECK(bd_reset(a) == BD_OK);
    CHECK(bd_reset_with_limit(a, 0) == BD_OK);
    CHECK(stats_of(a).capacity == s.capacity);
    CHECK_CODE(bd_rewind(a, &cp), BD_ERR_STALE_CHECKPOINT);
    p = bd_alloc(a, 64, 16);
    CHECK(p != NULL && p + 64 <= buf + sizeof buf);
    bd_arena_destroy(a);

    /* Too small for the arena object and a chunk; NULL buffer; absurd length. */
    CHECK_FAILS(bd_arena_create_fixed(small, sizeof small), ENOMEM);
    CHECK_FAILS(bd_arena_create_fixed(buf, 0), ENOMEM);
    CHECK_FAILS(bd_arena_create_fixed(NULL, 4096), EINVAL);
    CHECK_FAILS(bd_arena_create_fixed(buf, SIZE_MAX), EINVAL);
}

static void test_cursor(void)
{
    static unsigned char buf[8192];
    bd_arena *a = bd_arena_create();
    bd_arena *fixed;
    bd_cursor c;
    bd_checkpoint cp;
    uint64_t *blocks[3000];
    uint64_t *after;
    size_t i, n;
    bd_stats s;
    CHECK(bd_checkpoint_save(a, &cp) == BD_OK);
    CHECK(bd_cursor_open(&c, a) == BD_OK);
    /* Across many chunks: the slow path lends the position to the arena and back. */
    for (i = 0; i < 3000; i++) {
        blocks[i] = (i % 3) ? bd_cursor_alloc(&c, 64, 16) : bd_cursor_alloc(&c, runtime(64), runtime(16));
        CHECK(blocks[i] != NULL && aligned(blocks[i], 16));
        *blocks[i] = i;
    }
    CHECK(bd_cursor_alloc(&c, 1 << 20, 8) != NULL); /* out of band, mid-cursor */
    CHECK_FAILS(bd_cursor_alloc(&c, 8, 3), EINVAL);
    CHECK_FAILS(bd_cursor_alloc(&c, SIZE_MAX, 8), EINVAL);
    bd_cursor_close(&c);
    for (i = 0; i < 3000; i++)
        CHECK(*blocks[i] == i);
    /* The arena knows what the cursor handed out: no overlap with what comes next. */
    s = stats_of(a);
    CHECK(s.used >= 3000 * 64 + (1 << 20) && s.chunks > 2 && s.big_chunks == 1);
    after = bd_alloc(a, 64, 16);
    CHECK(after != NULL);
    *after = 0xdead;
    for (i = 0; i < 3000; i++)
        CHECK(*blocks[i] == i && blocks[i] != after);
    /* Closed: refuses, and closing twice is harmless. */
    CHECK_FAILS(bd_cursor_alloc(&c, 8, 8), EINVAL);
    bd_cursor_close(&c);
    bd_cursor_close(NULL);
    CHECK(bd_rewind(a, &cp) == BD_OK);
    CHECK(stats_of(a).used == 0);

    /* Bad input. */
    errno = 0;
    CHECK(bd_cursor_open(&c, NULL) == BD_ERR_NULL && errno == EINVAL);
    CHECK_FAILS(bd_cursor_alloc(&c, 8, 8), EINVAL);
    CHECK_FAILS(bd_cursor_alloc(&c, runtime(8), runtime(8)), EINVAL);
    errno = 0;
    CHECK(bd_cursor_open(NULL, a) == BD_ERR_NULL && errno == EINVAL);
    CHECK_FAILS(bd_cursor_alloc(NULL, 8, 8), EINVAL);

    /* On a fixed arena: full is ENOMEM, and the cursor's position is the arena's. */
    fixed = bd_arena_create_fixed(buf, sizeof buf);
    CHECK(fixed != NULL && bd_cursor_open(&c, fixed) == BD_OK);
    for (n = 0; bd_cursor_alloc(&c, 64, 16) != NULL; n++)
        ;
    CHECK(errno == ENOMEM && n > 50);
    bd_cursor_close(&c);
    CHECK_FAILS(bd_alloc(fixed, 64, 16), ENOMEM);
    CHECK(bd_reset(fixed) == BD_OK);
    CHECK(bd_alloc(fixed, 64, 16) != NULL);
    bd_arena_destroy(fixed);
    bd_arena_destroy(a);
}

/* ----- The virtual-memory arena ----------------------------------------------------- */

/* Modest reservations throughout: valgrind and ASan handle them without complaint. */
#define VM_RESERVE ((size_t)8 << 20)

static bd_vm_stats vm_stats_of(bd_vm_arena *vm)
{
    bd_vm_stats s;
    memset(&s, 0xff, sizeof s);
    CHECK(bd_vm_arena_stats(vm, &s) == BD_OK);
    return s;
}

static void test_vm_create_destroy(void)
{
    bd_vm_arena *vm = bd_vm_create(VM_RESERVE);
    bd_vm_options opts;
    bd_vm_stats s;
    CHECK(vm != NULL);
    s = vm_stats_of(vm);
    CHECK(s.reserved == VM_RESERVE && s.committed == 0 && s.used == 0 && s.peak_used == 0);
    /* Nothing committed yet: no room, so the first allocation is slow. */
    CHECK(vm->top == vm->committed && vm->top != NULL);
    CHECK((uintptr_t)vm->committed % BD_VM_PAGE_ALIGN == 0);
    bd_vm_destroy(vm);
    bd_vm_destroy(NULL);

    /* The reservation is rounded up to 16 KiB; options as documented. */
    memset(&opts, 0, sizeof opts);
    opts.reserve = 100000;
    opts.commit_batch = 1 << 16;
    opts.limit = 1 << 16;
    opts.flags = BD_VM_NO_POPULATE | BD_VM_HUGE_PAGES;
    opts.reset_policy = BD_VM_RELEASE_ABOVE;
    opts.release_above = 4096;
    vm = bd_vm_create_with(&opts);
    CHECK(vm != NULL);
    CHECK(vm_stats_of(vm).reserved == 114688);
    CHECK(bd_vm_alloc(vm, 60000, 8) != NULL);
    CHECK_FAILS(bd_vm_alloc(vm, 10000, 8), ENOMEM); /* the limit */
    CHECK(vm_stats_of(vm).committed == 1 << 16);
    bd_vm_destroy(vm);

    /* Bad options. */
    CHECK_FAILS(bd_vm_create_with(NULL), EINVAL);
    opts.flags = 4;
    CHECK_FAILS(bd_vm_create_with(&opts), EINVAL);
    opts.flags = 0;
    opts.reset_policy = 2;
    CHECK_FAILS(bd_vm_create_with(&opts), EINVAL);
    opts.reset_policy = -1;
    CHECK_FAILS(bd_vm_create_with(&opts), EINVAL);
    CHECK_FAILS(bd_vm_create(SIZE_MAX), EINVAL);
    CHECK_FAILS(bd_vm_create((size_t)1 << 62), EINVAL);
    /* More address space than a 64-bit process has (47 or 56 bits): the system refuses. */
    CHECK_FAILS(bd_vm_create((size_t)1 << 61), ENOMEM);
}

static void test_vm_alloc_shapes(void)
{
    bd_vm_arena *vm = bd_vm_create(VM_RESERVE);
    unsigned char *blocks[400];
    size_t sizes[400];
    size_t i, align;
    unsigned char *prev_end = NULL;
    CHECK(vm != NULL);
    for (i = 0; i < 400; i++) {
        size_t size = (i * 37) % 300;
        align = (size_t)1 << (i % 14); /* up to 8192: past BD_VM_PAGE_ALIGN too */
        sizes[i] = size;
        blocks[i] = (i % 2) ? bd_vm_alloc(vm, runtime(size), runtime(align)) : bd_vm_alloc(vm, size, align);
        CHECK(blocks[i] != NULL);
        CHECK(aligned(blocks[i], align));
        /* Upwards: each block starts at or after the end of the one before. */
        CHECK(prev_end == NULL || blocks[i] >= prev_end);
        prev_end = blocks[i] + size;
        CHECK(vm->top == prev_end);
        fill(blocks[i], size, (unsigned)i);
    }
    for (i = 0; i < 400; i++) {
        size_t j;
        CHECK(intact(blocks[i], sizes[i], (unsigned)i));
        for (j = i + 1; j < 400; j++)
            CHECK(blocks[j] + sizes[j] <= blocks[i] || blocks[i] + sizes[i] <= blocks[j] || sizes[i] == 0 ||
                  sizes[j] == 0);
    }
    /* Constant shapes of the fast path. */
    {
        uint64_t *x = bd_vm_alloc(vm, sizeof *x, 8);
        unsigned char *c = bd_vm_alloc(vm, 1, 1);
        void *page = bd_vm_alloc(vm, 4096, 4096);
        void *big_align = bd_vm_alloc(vm, 10, 1 << 16);
        CHECK(x && c && page && big_align);
        CHECK(aligned(x, 8) && aligned(page, 4096) && aligned(big_align, 1 << 16));
        *x = 42;
        *c = 7;
        CHECK(*x == 42 && *c == 7);
        CHECK((unsigned char *)page > c && (unsigned char *)big_align > (unsigned char *)page);
    }
    /* Size zero: a non-NULL pointer that takes no room (only alignment). */
    {
        unsigned char *before = vm->top;
        void *z = bd_vm_alloc(vm, 0, 1);
        CHECK(z == before && vm->top == before);
        z = bd_vm_alloc(vm, runtime(0), runtime(16));
        CHECK(z != NULL && aligned(z, 16));
    }
    /* Many, across commit batches; the fast and slow paths agree on `top`. */
    for (i = 0; i < 50000; i++) {
        uint64_t *p = bd_vm_alloc(vm, 64, 16);
        CHECK(p != NULL && aligned(p, 16));
        if (p == NULL)
            break;
        *p = i;
        CHECK(vm->top == (unsigned char *)p + 64);
    }
    CHECK((uintptr_t)vm->committed % BD_VM_PAGE_ALIGN == 0);
    CHECK(vm_stats_of(vm).committed >= 50000 * 64);
    for (i = 0; i < 400; i++)
        CHECK(intact(blocks[i], sizes[i], (unsigned)i));
    {
        void *slow = bd_vm_alloc_slow(vm, 100, 32);
        CHECK(slow != NULL && aligned(slow, 32) && vm->top == (unsigned char *)slow + 100);
    }
    bd_vm_destroy(vm);
}

static void test_vm_bad_input(void)
{
    bd_vm_arena *vm = bd_vm_create(VM_RESERVE);
    uint64_t *kept = bd_vm_alloc(vm, sizeof *kept, 8);
    unsigned char *top;
    size_t n;
    CHECK(kept != NULL);
    *kept = 0x1234;
    top = vm->top;

    /* NULL arena, through every allocating function. */
    CHECK_FAILS(bd_vm_alloc(NULL, 8, 8), EINVAL);
    CHECK_FAILS(bd_vm_alloc(NULL, runtime(8), runtime(8)), EINVAL);
    CHECK_FAILS(bd_vm_alloc_slow(NULL, 8, 8), EINVAL);
    CHECK_FAILS(bd_vm_alloc_zeroed(NULL, 8, 8), EINVAL);
    CHECK_FAILS(bd_vm_calloc(NULL, 2, 8, 8), EINVAL);
    CHECK_FAILS(bd_vm_realloc_last(NULL, kept, 8, 16, 8), EINVAL);

    /* Alignments that are zero or not powers of two, constant and at run time. */
    CHECK_FAILS(bd_vm_alloc(vm, 8, 0), EINVAL);
    CHECK_FAILS(bd_vm_alloc(vm, 8, 3), EINVAL);
    CHECK_FAILS(bd_vm_alloc(vm, 8, 48), EINVAL);
    CHECK_FAILS(bd_vm_alloc(vm, 0, 0), EINVAL);
    CHECK_FAILS(bd_vm_alloc(vm, runtime(8), runtime(0)), EINVAL);
    CHECK_FAILS(bd_vm_alloc(vm, runtime(0), runtime(0)), EINVAL);
    CHECK_FAILS(bd_vm_alloc(vm, runtime(8), runtime(24)), EINVAL);
    CHECK_FAILS(bd_vm_alloc_slow(vm, 8, 0), EINVAL);
    CHECK_FAILS(bd_vm_alloc_slow(vm, 8, 12), EINVAL);
    CHECK_FAILS(bd_vm_alloc_zeroed(vm, 8, 5), EINVAL);
    CHECK_FAILS(bd_vm_calloc(vm, 1, 8, 6), EINVAL);

    /* Sizes and alignments that overflow, or that no reservation can hold. */
    CHECK_FAILS(bd_vm_alloc(vm, SIZE_MAX, 1), EINVAL);
    CHECK_FAILS(bd_vm_alloc(vm, runtime(SIZE_MAX), runtime(8)), EINVAL);
    CHECK_FAILS(bd_vm_alloc(vm, SIZE_MAX - 100, 4096), EINVAL);
    /* (PTRDIFF_MAX bytes aligned to 1 is a valid request, just larger than any
     * reservation: ENOMEM. Aligned to 2^63 it is past PTRDIFF_MAX: EINVAL.) */
    CHECK_FAILS(bd_vm_alloc(vm, (size_t)PTRDIFF_MAX, 1), ENOMEM);
    CHECK_FAILS(bd_vm_alloc(vm, 8, (size_t)1 << 63), EINVAL);
    CHECK_FAILS(bd_vm_alloc(vm, runtime(8), runtime((size_t)1 << 63)), EINVAL);
    CHECK_FAILS(bd_vm_alloc(vm, 8, (size_t)1 << 62), ENOMEM);
    CHECK_FAILS(bd_vm_alloc_slow(vm, SIZE_MAX, 1), EINVAL);
    CHECK_FAILS(bd_vm_calloc(vm, (size_t)1 << 40, (size_t)1 << 40, 8), EINVAL);
    CHECK_FAILS(bd_vm_calloc(vm, SIZE_MAX, 2, 1), EINVAL);

    /* The reservation exhausted: ENOMEM, and the arena keeps working below it. */
    CHECK_FAILS(bd_vm_alloc(vm, VM_RESERVE, 1), ENOMEM);
    CHECK_FAILS(bd_vm_alloc(vm, (size_t)1 << 40, 8), ENOMEM);
    CHECK_FAILS(bd_vm_alloc_zeroed(vm, VM_RESERVE, 8), ENOMEM);

    /* Nothing moved, nothing lost. */
    CHECK(vm->top == top);
    CHECK(*kept == 0x1234);

    /* Filling it exactly: the last byte is usable, one more is ENOMEM. */
    CHECK(bd_vm_alloc(vm, VM_RESERVE - 8 - 100, 1) != NULL);
    for (n = 0; n < 100; n++)
        CHECK(bd_vm_alloc(vm, 1, 1) != NULL);
    CHECK(vm->top == vm->committed && vm_stats_of(vm).used == VM_RESERVE);
    CHECK_FAILS(bd_vm_alloc(vm, 1, 1), ENOMEM);
    CHECK(bd_vm_alloc(vm, 0, 1) != NULL);
    CHECK(*kept == 0x1234);
    bd_vm_destroy(vm);
}

static void test_vm_zeroed_calloc(void)
{
    bd_vm_arena *vm = bd_vm_create(VM_RESERVE);
    unsigned char *p;
    uint32_t *arr;
    size_t i;
    /* Fresh memory, then memory dirtied and reset: both must read zero. */
    p = bd_vm_alloc_zeroed(vm, 3000, 4);
    CHECK(p != NULL && aligned(p, 4));
    for (i = 0; i < 3000; i++)
        CHECK(p[i] == 0);
    memset(p, 0xaa, 3000);
    /* Dirty bytes above `top` too: a block shrunk in place left them behind. */
    p = bd_vm_realloc_last(vm, p, 3000, 1000, 4);
    CHECK(p != NULL);
    arr = bd_vm_calloc(vm, 1000, sizeof *arr, 4);
    CHECK(arr != NULL && (unsigned char *)arr == p + 1000);
    for (i = 0; i < 1000; i++)
        CHECK(arr[i] == 0);
    memset(arr, 0xbb, 4000);
    CHECK(bd_vm_reset(vm) == BD_OK);
    p = bd_vm_alloc_zeroed(vm, 6000, 1);
    CHECK(p != NULL);
    for (i = 0; i < 6000; i++)
        CHECK(p[i] == 0);
    arr = bd_vm_calloc(vm, runtime(50), runtime(sizeof *arr), 16);
    CHECK(arr != NULL && aligned(arr, 16));
    for (i = 0; i < 50; i++)
        CHECK(arr[i] == 0);
    CHECK(bd_vm_calloc(vm, 0, 0, 1) != NULL);
    CHECK(bd_vm_alloc_zeroed(vm, 0, 8) != NULL);
    bd_vm_destroy(vm);
}

static void test_vm_realloc_last(void)
{
    bd_vm_arena *vm = bd_vm_create(VM_RESERVE);
    unsigned char *p, *q, *r, *moved;
    size_t committed;
    CHECK(vm != NULL);
    /* NULL ptr with old size 0: an allocation. */
    p = bd_vm_realloc_last(vm, NULL, 0, 100, 8);
    CHECK(p != NULL && aligned(p, 8) && vm->top == p + 100);
    fill(p, 100, 1);
    /* The newest grows in place, well past what is committed. */
    committed = vm_stats_of(vm).committed;
    q = bd_vm_realloc_last(vm, p, 100, committed * 3, 8);
    CHECK(q == p && intact(p, 100, 1) && vm->top == p + committed * 3);
    CHECK(vm_stats_of(vm).committed >= committed * 3);
    memset(p + 100, 0x11, committed * 3 - 100);
    /* And shrinks in place, giving the tail back. */
    q = bd_vm_realloc_last(vm, p, committed * 3, 50, 8);
    CHECK(q == p && intact(p, 50, 1) && vm->top == p + 50);
    r = bd_vm_alloc(vm, 10, 1);
    CHECK(r == p + 50);
    /* Not the newest: a shrink stays put, a growth moves and copies. */
    q = bd_vm_realloc_last(vm, p, 50, 20, 8);
    CHECK(q == p && vm->top == r + 10);
    moved = bd_vm_realloc_last(vm, p, 20, 500, 8);
    CHECK(moved != NULL && moved != p && moved >= r + 10 && aligned(moved, 8) && intact(moved, 20, 1));
    CHECK(vm->top == moved + 500);
    /* A moved block keeps its alignment; equal sizes stay put, newest or not. */
    q = bd_vm_alloc(vm, 24, 4096);
    CHECK(q != NULL && aligned(q, 4096));
    fill(q, 24, 2);
    CHECK(bd_vm_alloc(vm, 1, 1) != NULL);
    CHECK(bd_vm_realloc_last(vm, q, 24, 24, 4096) == q);
    r = bd_vm_realloc_last(vm, q, 24, 48, 4096);
    CHECK(r != NULL && r != q && aligned(r, 4096) && intact(r, 24, 2) && vm->top == r + 48);
    CHECK(bd_vm_realloc_last(vm, r, 48, 48, 4096) == r && vm->top == r + 48);
    /* Bad input leaves the block where and as it was. */
    q = bd_vm_alloc(vm, 64, 16);
    CHECK(q != NULL);
    fill(q, 64, 3);
    CHECK_FAILS(bd_vm_realloc_last(vm, NULL, 8, 16, 8), EINVAL);
    CHECK_FAILS(bd_vm_realloc_last(vm, q, 64, 128, 0), EINVAL);
    CHECK_FAILS(bd_vm_realloc_last(vm, q, 64, 128, 3), EINVAL);
    CHECK_FAILS(bd_vm_realloc_last(vm, q, 64, SIZE_MAX, 16), EINVAL);
    CHECK_FAILS(bd_vm_realloc_last(vm, q, 64, (size_t)PTRDIFF_MAX, 16), EINVAL);
    /* Past the reservation: ENOMEM, in place or moved. */
    CHECK_FAILS(bd_vm_realloc_last(vm, q, 64, VM_RESERVE, 16), ENOMEM);
    CHECK(vm->top == q + 64 && intact(q, 64, 3));
    CHECK(bd_vm_alloc(vm, 1, 1) != NULL);
    CHECK_FAILS(bd_vm_realloc_last(vm, q, 64, VM_RESERVE, 16), ENOMEM);
    CHECK(intact(q, 64, 3));
    bd_vm_destroy(vm);
}

static void test_vm_reset_policies(void)
{
    bd_vm_options opts;
    bd_vm_arena *vm = bd_vm_create(VM_RESERVE);
    unsigned char *first, *p;
    size_t i, committed;
    bd_vm_stats s;
    /* Keep pages: the same memory comes back, still committed. */
    first = bd_vm_alloc(vm, 1 << 20, 16);
    CHECK(first != NULL);
    memset(first, 0x5a, 1 << 20);
    committed = vm_stats_of(vm).committed;
    CHECK(bd_vm_reset(vm) == BD_OK);
    s = vm_stats_of(vm);
    CHECK(s.used == 0 && s.committed == committed && s.peak_used == 1 << 20);
    CHECK(bd_vm_alloc(vm, 16, 16) == first);
    bd_vm_destroy(vm);

    /* Release above 64 KiB: the pages past it are given back and read as zero. */
    memset(&opts, 0, sizeof opts);
    opts.reserve = VM_RESERVE;
    opts.reset_policy = BD_VM_RELEASE_ABOVE;
    opts.release_above = 64 << 10;
    vm = bd_vm_create_with(&opts);
    CHECK(vm != NULL);
    first = bd_vm_alloc(vm, 1 << 20, 16);
    CHECK(first != NULL);
    memset(first, 0x5a, 1 << 20);
    CHECK(bd_vm_reset(vm) == BD_OK);
    p = bd_vm_alloc(vm, 1 << 20, 16);
    CHECK(p == first);
    CHECK(p[0] == 0x5a && p[(64 << 10) - 1] == 0x5a);
    for (i = 64 << 10; i < (1 << 20); i += 4096)
        CHECK(p[i] == 0);
    CHECK(vm_stats_of(vm).peak_used == 1 << 20);
    CHECK(bd_vm_reset(NULL) == BD_ERR_NULL);
    bd_vm_destroy(vm);
}

static void test_vm_checkpoints_and_stats(void)
{
    bd_vm_arena *vm = bd_vm_create(VM_RESERVE);
    bd_vm_arena *other = bd_vm_create(VM_RESERVE);
    bd_arena *arena = bd_arena_create();
    bd_checkpoint cp, cp2, foreign, zeroed;
    uint64_t *kept;
    unsigned char *mark;
    bd_vm_stats s;
    kept = bd_vm_alloc(vm, sizeof *kept, 8);
    CHECK(kept != NULL);
    *kept = 99;
    CHECK(bd_vm_checkpoint_save(vm, &cp) == BD_OK);
    mark = vm->top;
    CHECK(bd_vm_alloc(vm, 100000, 8) != NULL);
    CHECK(bd_vm_checkpoint_save(vm, &cp2) == BD_OK);
    CHECK(bd_vm_alloc(vm, 1000, 8) != NULL);
    s = vm_stats_of(vm);
    CHECK(s.used == 8 + 100000 + 1000 && s.peak_used == s.used && s.reserved == VM_RESERVE);
    CHECK(s.committed >= s.used && s.committed % BD_VM_PAGE_ALIGN == 0);

    CHECK(bd_vm_rewind(vm, &cp2) == BD_OK);
    CHECK(vm_stats_of(vm).used == 8 + 100000);
    CHECK(bd_vm_rewind(vm, &cp) == BD_OK);
    CHECK(vm->top == mark && *kept == 99);
    s = vm_stats_of(vm);
    CHECK(s.used == 8 && s.peak_used == 8 + 100000 + 1000);
    /* Again and again; the newer one is stale now. */
    CHECK(bd_vm_rewind(vm, &cp) == BD_OK);
    CHECK_CODE(bd_vm_rewind(vm, &cp2), BD_ERR_STALE_CHECKPOINT);

    /* Foreign: another VM arena's, or a growable arena's. */
    CHECK(bd_vm_checkpoint_save(other, &foreign) == BD_OK);
    CHECK_CODE(bd_vm_rewind(vm, &foreign), BD_ERR_FOREIGN_CHECKPOINT);
    CHECK(bd_checkpoint_save(arena, &foreign) == BD_OK);
    CHECK_CODE(bd_vm_rewind(vm, &foreign), BD_ERR_FOREIGN_CHECKPOINT);
    CHECK(bd_vm_checkpoint_save(vm, &cp2) == BD_OK);
    CHECK_CODE(bd_rewind(arena, &cp2), BD_ERR_FOREIGN_CHECKPOINT);
    /* Not a checkpoint at all; NULLs. */
    memset(&zeroed, 0, sizeof zeroed);
    CHECK_CODE(bd_vm_rewind(vm, &zeroed), BD_ERR_BAD_CHECKPOINT);
    CHECK_CODE(bd_vm_rewind(vm, NULL), BD_ERR_NULL);
    CHECK_CODE(bd_vm_rewind(NULL, &cp), BD_ERR_NULL);
    CHECK_CODE(bd_vm_checkpoint_save(NULL, &cp), BD_ERR_NULL);
    CHECK_CODE(bd_vm_checkpoint_save(vm, NULL), BD_ERR_NULL);
    CHECK_CODE(bd_vm_arena_stats(NULL, &s), BD_ERR_NULL);
    CHECK_CODE(bd_vm_arena_stats(vm, NULL), BD_ERR_NULL);
    CHECK_CODE(bd_vm_reset(NULL), BD_ERR_NULL);
    CHECK(vm->top == mark && *kept == 99);

    /* A reset makes every checkpoint stale. */
    CHECK(bd_vm_reset(vm) == BD_OK);
    CHECK_CODE(bd_vm_rewind(vm, &cp), BD_ERR_STALE_CHECKPOINT);
    bd_arena_destroy(arena);
    bd_vm_destroy(other);
    bd_vm_destroy(vm);
}

static void test_vm_cursor(void)
{
    bd_vm_arena *vm = bd_vm_create(VM_RESERVE);
    bd_vm_cursor c;
    bd_checkpoint cp;
    uint64_t *blocks[3000];
    uint64_t *after;
    size_t i, n;
    bd_vm_options opts;
    CHECK(bd_vm_checkpoint_save(vm, &cp) == BD_OK);
    CHECK(bd_vm_cursor_open(&c, vm) == BD_OK);
    /* Across commit batches: the slow path lends the position to the arena and back. */
    for (i = 0; i < 3000; i++) {
        blocks[i] = (i % 3) ? bd_vm_cursor_alloc(&c, 64, 16) : bd_vm_cursor_alloc(&c, runtime(64), runtime(16));
        CHECK(blocks[i] != NULL && aligned(blocks[i], 16));
        *blocks[i] = i;
    }
    CHECK(bd_vm_cursor_alloc(&c, 1 << 20, 8) != NULL); /* a commit, mid-cursor */
    CHECK_FAILS(bd_vm_cursor_alloc(&c, 8, 3), EINVAL);
    CHECK_FAILS(bd_vm_cursor_alloc(&c, SIZE_MAX, 8), EINVAL);
    CHECK_FAILS(bd_vm_cursor_alloc(&c, VM_RESERVE, 8), ENOMEM);
    bd_vm_cursor_close(&c);
    for (i = 0; i < 3000; i++)
        CHECK(*blocks[i] == i);
    /* The arena knows what the cursor handed out. */
    CHECK(vm_stats_of(vm).used >= 3000 * 64 + (1 << 20));
    after = bd_vm_alloc(vm, 64, 16);
    CHECK(after != NULL && after > blocks[2999]);
    *after = 0xdead;
    for (i = 0; i < 3000; i++)
        CHECK(*blocks[i] == i);
    /* Closed: refuses, and closing twice is harmless. */
    CHECK_FAILS(bd_vm_cursor_alloc(&c, 8, 8), EINVAL);
    CHECK_FAILS(bd_vm_cursor_alloc(&c, 8, 1 << 20), EINVAL);
    bd_vm_cursor_close(&c);
    bd_vm_cursor_close(NULL);
    CHECK(bd_vm_rewind(vm, &cp) == BD_OK);
    CHECK(vm_stats_of(vm).used == 0);

    /* Bad input. */
    errno = 0;
    CHECK(bd_vm_cursor_open(&c, NULL) == BD_ERR_NULL && errno == EINVAL);
    CHECK_FAILS(bd_vm_cursor_alloc(&c, 8, 8), EINVAL);
    CHECK_FAILS(bd_vm_cursor_alloc(&c, runtime(8), runtime(8)), EINVAL);
    errno = 0;
    CHECK(bd_vm_cursor_open(NULL, vm) == BD_ERR_NULL && errno == EINVAL);
    CHECK_FAILS(bd_vm_cursor_alloc(NULL, 8, 8), EINVAL);
    bd_vm_destroy(vm);

    /* Running into the limit through a cursor is ENOMEM, and the arena agrees. */
    memset(&opts, 0, sizeof opts);
    opts.reserve = VM_RESERVE;
    opts.limit = 1 << 16;
    vm = bd_vm_create_with(&opts);
    CHECK(vm != NULL && bd_vm_cursor_open(&c, vm) == BD_OK);
    for (n = 0; bd_vm_cursor_alloc(&c, 64, 16) != NULL; n++)
        ;
    CHECK(errno == ENOMEM && n == (1 << 16) / 64);
    bd_vm_cursor_close(&c);
    CHECK_FAILS(bd_vm_alloc(vm, 64, 16), ENOMEM);
    CHECK(bd_vm_reset(vm) == BD_OK);
    CHECK(bd_vm_alloc(vm, 64, 16) != NULL);
    bd_vm_destroy(vm);
}

int main(void)
{
    printf("SIZES bd_options=%u bd_stats=%u bd_checkpoint=%u bd_arena_prefix=%u bd_vm_options=%u bd_vm_stats=%u "
           "bd_vm_arena_prefix=%u\n",
           (unsigned)sizeof(bd_options), (unsigned)sizeof(bd_stats), (unsigned)sizeof(bd_checkpoint),
           (unsigned)sizeof(bd_arena), (unsigned)sizeof(bd_vm_options), (unsigned)sizeof(bd_vm_stats),
           (unsigned)sizeof(bd_vm_arena));
    test_create_destroy();
    test_alloc_shapes();
    test_alloc_bad_input();
    test_zeroed_array_calloc();
    test_strings();
    test_reset();
    test_limit_and_chunk_cap();
    test_checkpoints();
    test_stats();
    test_fixed();
    test_cursor();
    test_vm_create_destroy();
    test_vm_alloc_shapes();
    test_vm_bad_input();
    test_vm_zeroed_calloc();
    test_vm_realloc_last();
    test_vm_reset_policies();
    test_vm_checkpoints_and_stats();
    test_vm_cursor();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all C API tests passed\n");
    return 0;
}
