/* Every exported entry point of libbumpdown_malloc.so, run under LD_PRELOAD by
 * tests/entry_points.rs (in the default mode, in bump mode and with a tiny limit that
 * forces the glibc fallback). Exits 0 and prints "entry points: ok" when all checks pass. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

static int aligned_to(void *p, size_t a) { return ((uintptr_t)p & (a - 1)) == 0; }

static void fill(unsigned char *p, size_t n, unsigned char seed) {
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(seed + i * 7);
}
static int holds(const unsigned char *p, size_t n, unsigned char seed) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed + i * 7)) return 0;
    return 1;
}
static int all_zero(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

static void test_malloc_and_usable_size(void) {
    enum { N = 600 };
    static unsigned char *blocks[N];
    static size_t sizes[N];
    for (int i = 0; i < N; i++) {
        size_t n = (size_t)(i * 37 % 5000) + (i % 3 == 0 ? 300000 : 0) * (i % 50 == 0);
        blocks[i] = malloc(n);
        CHECK(blocks[i] != NULL);
        CHECK(aligned_to(blocks[i], 16));
        sizes[i] = malloc_usable_size(blocks[i]);
        CHECK(sizes[i] >= n);
        /* The whole usable size is the caller's: writing it harms no other block. */
        fill(blocks[i], sizes[i], (unsigned char)i);
    }
    for (int i = 0; i < N; i++) CHECK(holds(blocks[i], sizes[i], (unsigned char)i));
    for (int i = 0; i < N; i++) free(blocks[i]);
    void *z = malloc(0);
    CHECK(z != NULL);
    void *z2 = malloc(0);
    CHECK(z2 != NULL && z2 != z);
    free(z);
    free(z2);
    free(NULL);
    CHECK(malloc_usable_size(NULL) == 0);
    errno = 0;
    CHECK(malloc(SIZE_MAX) == NULL && errno == ENOMEM);
    errno = 0;
    CHECK(malloc(SIZE_MAX - 8) == NULL && errno == ENOMEM);
    errno = 0;
    CHECK(malloc((size_t)PTRDIFF_MAX) == NULL && errno == ENOMEM);
}

static void test_calloc(void) {
    errno = 0;
    CHECK(calloc(SIZE_MAX / 2, 3) == NULL && errno == ENOMEM);
    errno = 0;
    CHECK(calloc(1, SIZE_MAX) == NULL && errno == ENOMEM);
    for (size_t n = 1; n < 70000; n = n * 3 + 1) {
        /* Dirty a block of this size, free it, and get the memory back through calloc. */
        unsigned char *d = malloc(n);
        memset(d, 0xAB, n);
        free(d);
        unsigned char *p = calloc(n, 1);
        CHECK(p != NULL && all_zero(p, n));
        memset(p, 0xCD, n);
        unsigned char *keep = malloc(16);
        free(p);
        unsigned char *q = calloc(1, n);
        CHECK(q != NULL && all_zero(q, n));
        free(q);
        free(keep);
    }
    unsigned char *big = calloc(1 << 20, 3);
    CHECK(big != NULL && all_zero(big, 3 << 20));
    free(big);
}

static void test_realloc(void) {
    void *r0 = realloc(NULL, 0); /* malloc(0): a unique pointer */
    CHECK(r0 != NULL);
    free(r0);
    unsigned char *p = realloc(NULL, 100);
    CHECK(p != NULL);
    fill(p, 100, 1);
    /* glibc semantics: size 0 frees and returns NULL. */
    unsigned char *x = malloc(10);
    CHECK(realloc(x, 0) == NULL);
    size_t sizes[] = {1, 15, 16, 17, 200, 4000, 100000, 300000, 2000000, 50, 3};
    size_t prev = 100;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned char *guard = malloc(32); /* sometimes p is the newest block, sometimes not */
        if (i % 2) {
            free(guard);
            guard = NULL;
        }
        unsigned char *q = realloc(p, sizes[i]);
        CHECK(q != NULL && aligned_to(q, 16));
        size_t keep = prev < sizes[i] ? prev : sizes[i];
        CHECK(holds(q, keep, 1));
        CHECK(malloc_usable_size(q) >= sizes[i]);
        fill(q, sizes[i], 1);
        p = q;
        prev = sizes[i];
        free(guard);
    }
    free(p);
    /* Failure leaves the block intact. */
    p = malloc(64);
    fill(p, 64, 9);
    errno = 0;
    CHECK(realloc(p, SIZE_MAX - 4) == NULL && errno == ENOMEM);
    CHECK(holds(p, 64, 9));
    errno = 0;
    CHECK(reallocarray(p, SIZE_MAX / 4, 8) == NULL && errno == ENOMEM);
    CHECK(holds(p, 64, 9));
    unsigned char *r = reallocarray(p, 10, 100);
    CHECK(r != NULL && holds(r, 64, 9));
    free(r);
}

static void test_aligned(void) {
    for (size_t a = 1; a <= (1 << 16); a *= 2) {
        for (size_t n = 0; n < 3000; n += 999) {
            void *p = NULL;
            if (a >= sizeof(void *)) {
                CHECK(posix_memalign(&p, a, n) == 0 && p != NULL && aligned_to(p, a));
                CHECK(malloc_usable_size(p) >= n);
                memset(p, 0x5A, n);
                free(p);
            }
            p = aligned_alloc(a, n);
            CHECK(p != NULL && aligned_to(p, a));
            memset(p, 0x5A, n);
            free(p);
            p = memalign(a, n);
            CHECK(p != NULL && aligned_to(p, a));
            free(p);
        }
    }
    void *out = (void *)0x1234;
    CHECK(posix_memalign(&out, 3, 10) == EINVAL && out == (void *)0x1234);
    CHECK(posix_memalign(&out, 4, 10) == EINVAL && out == (void *)0x1234);
    CHECK(posix_memalign(&out, 24, 10) == EINVAL && out == (void *)0x1234);
    CHECK(posix_memalign(&out, 0, 10) == EINVAL);
    CHECK(posix_memalign(&out, 64, SIZE_MAX - 100) == ENOMEM && out == (void *)0x1234);
    errno = 0;
    CHECK(aligned_alloc(3, 10) == NULL && errno == EINVAL);
    void *m = memalign(48, 10); /* rounded up to 64, as glibc does */
    CHECK(m != NULL && aligned_to(m, 64));
    free(m);
    void *v = valloc(100);
    CHECK(v != NULL && aligned_to(v, 4096));
    free(v);
    void *pv = pvalloc(1);
    CHECK(pv != NULL && aligned_to(pv, 4096) && malloc_usable_size(pv) >= 4096);
    memset(pv, 1, 4096);
    free(pv);
}

static void *thread_work(void *arg) {
    void **mine = arg;
    for (int i = 0; i < 20000; i++) {
        size_t n = (size_t)(i * 13 % 700) + 1;
        unsigned char *p = malloc(n);
        CHECK(p != NULL);
        fill(p, n, (unsigned char)i);
        if (i % 5 == 0) {
            mine[i / 5 % 100] = p; /* handed to the main thread */
        } else {
            CHECK(holds(p, n, (unsigned char)i));
            free(p);
        }
    }
    return NULL;
}

static void test_threads(void) {
    enum { T = 4 };
    pthread_t t[T];
    static void *handed[T][100];
    for (int i = 0; i < T; i++) CHECK(pthread_create(&t[i], NULL, thread_work, handed[i]) == 0);
    for (int i = 0; i < T; i++) CHECK(pthread_join(t[i], NULL) == 0);
    /* Blocks freed by another thread than the one that allocated them. (Some of the
       handed blocks were overwritten in `mine` and leak: fine for the test.) */
    for (int i = 0; i < T; i++)
        for (int j = 0; j < 100; j++) free(handed[i][j]);
}

static void test_fork(void) {
    void *before = malloc(1000);
    memset(before, 7, 1000);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int ok = ((unsigned char *)before)[999] == 7;
        for (int i = 0; i < 10000; i++) {
            char *s = malloc((size_t)i % 300 + 1);
            if (!s) _exit(2);
            s[0] = 'x';
            free(s);
        }
        pthread_t t;
        static void *handed[100];
        ok &= pthread_create(&t, NULL, thread_work, handed) == 0 && pthread_join(t, NULL) == 0;
        free(before);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(before);
}

/* glibc's introspection calls answer from this allocator's counters: what is handed out
   is covered by mallinfo2's bytes in use (and mallinfo's), and malloc_trim releases nothing and breaks nothing. */
static void test_introspection(void) {
    enum { N = 100, SIZE = 1000 };
    unsigned char *blocks[N];
    for (int i = 0; i < N; i++) {
        blocks[i] = malloc(SIZE);
        CHECK(blocks[i] != NULL);
        fill(blocks[i], SIZE, (unsigned char)i);
    }
    struct mallinfo2 after = mallinfo2();
    /* Whatever else is counted, the live blocks are. */
    CHECK(after.uordblks >= (size_t)N * SIZE);
    CHECK(after.uordblks <= after.arena + after.hblkhd + after.fordblks);
    /* glibc's own answer always counts a free chunk (the top of its heap); ours keeps no
       free-block counts. entry_points.rs checks this line when the preload is in effect. */
    printf("mallinfo2: ordblks=%zu fordblks=%zu\n", after.ordblks, after.fordblks);
    struct mallinfo old = mallinfo();
    CHECK(old.uordblks > 0);
    CHECK(malloc_trim(0) == 0);
    for (int i = 0; i < N; i++) {
        CHECK(holds(blocks[i], SIZE, (unsigned char)i));
        free(blocks[i]);
    }
}

/* An over-aligned request is served from a freed plain block of its size class: any
   chunk holds an aligned block with its header in front, so these requests use the free
   lists like any other. (They used to need an over-aligned chunk, which the lists seldom
   had, so each one took fresh memory and a program repeating them grew; see
   heap_model.rs.) Printed, not checked: glibc and the pure bump mode place blocks their
   own way; entry_points.rs checks the default mode's line. */
static void test_aligned_reuse(void) {
    unsigned char *plain = malloc(5000);
    void *keep = malloc(100); /* so the plain block is not the newest when freed */
    CHECK(plain != NULL && keep != NULL);
    free(plain);
    unsigned char *aligned = memalign(1024, 5000 - 1024);
    CHECK(aligned != NULL && aligned_to(aligned, 1024) && malloc_usable_size(aligned) >= 5000 - 1024);
    memset(aligned, 0x5A, 5000 - 1024);
    int inside = aligned >= plain && aligned < plain + 5000;
    printf("aligned block in the freed plain one: %s\n", inside ? "yes" : "no");
    free(aligned);
    free(keep);
}

/* A block that must move (a newer block follows it) and grows by a few bytes: prints its
 * usable size before and after (ours gives a quarter more; checked in entry_points.rs). */
static void test_realloc_step(void) {
    unsigned char *p = malloc(4000);
    CHECK(p != NULL);
    size_t before = malloc_usable_size(p);
    fill(p, before, 3);
    unsigned char *newer = malloc(64);
    unsigned char *q = realloc(p, before + 8);
    CHECK(q != NULL && holds(q, before, 3));
    size_t after = malloc_usable_size(q);
    CHECK(after >= before + 8);
    printf("realloc step: %zu -> %zu\n", before, after);
    free(q);
    free(newer);
}

int main(void) {
    test_malloc_and_usable_size();
    test_realloc_step();
    test_calloc();
    test_realloc();
    test_aligned();
    test_threads();
    test_fork();
    test_introspection();
    test_aligned_reuse();
    /* Proof that the preload was in effect: glibc's smallest block has 24 usable bytes. */
    void *p = malloc(1);
    printf("usable(1)=%zu\n", malloc_usable_size(p));
    free(p);
    puts("entry points: ok");
    return 0;
}
