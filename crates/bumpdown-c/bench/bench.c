/*
 * Seed 004's benchmark through the bumpdown C API: 10 million allocations of 64 bytes,
 * each written, then everything freed; twice (a cold pass on a fresh allocator, a warm
 * pass after the reset), with the bumpdown arena (bd_alloc and a cursor), the
 * virtual-memory arena (bd_vm_alloc and a cursor) and with malloc + free.
 *
 *     bench <capacity-bytes>
 *
 * The arena is a growable one whose limit is the capacity (bytes held from malloc,
 * chunk headers included): with too small a capacity, allocation stops at the limit and
 * the bench reports how many succeeded. The virtual-memory arena reserves the capacity
 * and keeps its pages on reset (BD_VM_KEEP_PAGES, populated ahead: the defaults). Each contender runs in a child process of its
 * own, so RSS and page faults are its own. Reports ns/op, speed-up, the growth of the
 * peak RSS (getrusage), page faults, and hardware counters through perf_event_open
 * where the kernel allows it ("n/a" where it does not). Timings are wall-clock, one run:
 * indicative only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#endif

#include "bumpdown.h"

#define OPS 10000000L
#define SIZE 64
#define ALIGN 16 /* what malloc guarantees on x86_64 */

/* ----- Hardware counters ---------------------------------------------------------- */

enum { CYCLES, INSTRUCTIONS, CACHE_MISSES, DTLB_MISSES, NCOUNTERS };
static const char *const counter_names[NCOUNTERS] = {"cycles", "instructions", "cache misses", "dTLB load misses"};

typedef struct counters {
    int fd[NCOUNTERS];
    int open_errno; /* why the first counter that failed to open failed */
} counters;

static void counters_open(counters *c)
{
    int i;
    for (i = 0; i < NCOUNTERS; i++)
        c->fd[i] = -1;
    c->open_errno = ENOSYS;
#ifdef __linux__
    c->open_errno = 0;
    for (i = 0; i < NCOUNTERS; i++) {
        struct perf_event_attr attr;
        memset(&attr, 0, sizeof attr);
        attr.size = sizeof attr;
        attr.disabled = 1;
        /* User space only: allowed at perf_event_paranoid <= 2 without privileges. */
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        switch (i) {
        case CYCLES:
            attr.type = PERF_TYPE_HARDWARE;
            attr.config = PERF_COUNT_HW_CPU_CYCLES;
            break;
        case INSTRUCTIONS:
            attr.type = PERF_TYPE_HARDWARE;
            attr.config = PERF_COUNT_HW_INSTRUCTIONS;
            break;
        case CACHE_MISSES:
            attr.type = PERF_TYPE_HARDWARE;
            attr.config = PERF_COUNT_HW_CACHE_MISSES;
            break;
        default:
            attr.type = PERF_TYPE_HW_CACHE;
            attr.config = PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                          (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
            break;
        }
        c->fd[i] = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
        if (c->fd[i] < 0 && c->open_errno == 0)
            c->open_errno = errno;
    }
#endif
}

static void counters_start(counters *c)
{
#ifdef __linux__
    int i;
    for (i = 0; i < NCOUNTERS; i++)
        if (c->fd[i] >= 0) {
            ioctl(c->fd[i], PERF_EVENT_IOC_RESET, 0);
            ioctl(c->fd[i], PERF_EVENT_IOC_ENABLE, 0);
        }
#else
    (void)c;
#endif
}

/* Stops the counters and stores their values (-1: not available). */
static void counters_stop(counters *c, long long out[NCOUNTERS])
{
    int i;
    for (i = 0; i < NCOUNTERS; i++) {
        long long value = -1;
#ifdef __linux__
        if (c->fd[i] >= 0) {
            ioctl(c->fd[i], PERF_EVENT_IOC_DISABLE, 0);
            if (read(c->fd[i], &value, sizeof value) != (ssize_t)sizeof value)
                value = -1;
        }
#endif
        out[i] = value;
    }
}

/* ----- One pass, measured --------------------------------------------------------- */

typedef struct pass {
    long long ok;                  /* allocations that succeeded */
    double ns;                     /* wall time of the pass */
    long rss_growth_kb;            /* growth of the peak RSS during the pass */
    long faults;                   /* minor + major page faults during the pass */
    long long hw[NCOUNTERS];       /* -1: n/a */
    int errno_at_stop;             /* errno of the failed allocation, if one failed */
} pass;

typedef struct result {
    pass cold, warm;
    size_t held;       /* bytes the arena held (committed, for bd_vm) at the end */
    int counters_errno; /* why a counter is n/a (0: all available) */
} result;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Keeps the compiler from deleting a malloc/free pair and the store between them,
 * which it can prove useless: the block escapes, and memory may be read. */
#define ESCAPE(p) __asm__ __volatile__("" : : "r"(p) : "memory")
/* The pointer escapes, nothing more: enough for stores into the arena (bd_reset and the
 * slow path may read them, so they stay), and it lets the compiler keep `top` in a
 * register as it would in a real loop. */
#define ESCAPE_POINTER(p) __asm__ __volatile__("" : : "r"(p))

typedef long long (*pass_fn)(void *ctx, int *err);

static long long bump_pass(void *ctx, int *err)
{
    bd_arena *arena = (bd_arena *)ctx;
    long long i;
    for (i = 0; i < OPS; i++) {
        uint64_t *p = (uint64_t *)bd_alloc(arena, SIZE, ALIGN);
        if (p == NULL) {
            *err = errno;
            break;
        }
        *p = (uint64_t)i;
        ESCAPE_POINTER(p);
    }
    bd_reset(arena);
    return i;
}

/* The same through a cursor: `top` stays in a register for the whole loop. */
static long long cursor_pass(void *ctx, int *err)
{
    bd_arena *arena = (bd_arena *)ctx;
    bd_cursor c;
    long long i;
    if (bd_cursor_open(&c, arena) != BD_OK) {
        *err = errno;
        return 0;
    }
    for (i = 0; i < OPS; i++) {
        uint64_t *p = (uint64_t *)bd_cursor_alloc(&c, SIZE, ALIGN);
        if (p == NULL) {
            *err = errno;
            break;
        }
        *p = (uint64_t)i;
        ESCAPE_POINTER(p);
    }
    bd_cursor_close(&c);
    bd_reset(arena);
    return i;
}

/* The virtual-memory arena, bumping up; keeps its pages across the reset. */
static long long vm_pass(void *ctx, int *err)
{
    bd_vm_arena *vm = (bd_vm_arena *)ctx;
    long long i;
    for (i = 0; i < OPS; i++) {
        uint64_t *p = (uint64_t *)bd_vm_alloc(vm, SIZE, ALIGN);
        if (p == NULL) {
            *err = errno;
            break;
        }
        *p = (uint64_t)i;
        ESCAPE_POINTER(p);
    }
    bd_vm_reset(vm);
    return i;
}

/* The same through a virtual-memory cursor. */
static long long vm_cursor_pass(void *ctx, int *err)
{
    bd_vm_arena *vm = (bd_vm_arena *)ctx;
    bd_vm_cursor c;
    long long i;
    if (bd_vm_cursor_open(&c, vm) != BD_OK) {
        *err = errno;
        return 0;
    }
    for (i = 0; i < OPS; i++) {
        uint64_t *p = (uint64_t *)bd_vm_cursor_alloc(&c, SIZE, ALIGN);
        if (p == NULL) {
            *err = errno;
            break;
        }
        *p = (uint64_t)i;
        ESCAPE_POINTER(p);
    }
    bd_vm_cursor_close(&c);
    bd_vm_reset(vm);
    return i;
}

static long long malloc_pass(void *ctx, int *err)
{
    long long i;
    (void)ctx;
    for (i = 0; i < OPS; i++) {
        uint64_t *p = (uint64_t *)malloc(SIZE);
        if (p == NULL) {
            *err = errno;
            break;
        }
        *p = (uint64_t)i;
        ESCAPE(p);
        free(p);
    }
    return i;
}

/* The floor: a bare pointer bump down a plain buffer, no capacity check, no chunks. */
typedef struct bare {
    unsigned char *base, *top;
} bare;

static long long bare_pass(void *ctx, int *err)
{
    bare *b = (bare *)ctx;
    unsigned char *top = b->base + (size_t)OPS * SIZE;
    long long i;
    (void)err;
    for (i = 0; i < OPS; i++) {
        uint64_t *p;
        top -= SIZE;
        p = (uint64_t *)(void *)top;
        *p = (uint64_t)i;
        ESCAPE_POINTER(p);
    }
    b->top = top;
    return i;
}

static void measure(pass_fn fn, void *ctx, counters *c, pass *out)
{
    struct rusage before, after;
    double start;
    out->errno_at_stop = 0;
    getrusage(RUSAGE_SELF, &before);
    counters_start(c);
    start = now_ns();
    out->ok = fn(ctx, &out->errno_at_stop);
    out->ns = now_ns() - start;
    counters_stop(c, out->hw);
    getrusage(RUSAGE_SELF, &after);
    out->rss_growth_kb = after.ru_maxrss - before.ru_maxrss;
    out->faults = (after.ru_minflt - before.ru_minflt) + (after.ru_majflt - before.ru_majflt);
}

enum contender { BUMPDOWN, CURSOR, VM, VM_CURSOR, MALLOC, BARE };

/* Runs one contender in a child process; its result comes back through a pipe. */
static int run_child(enum contender who, size_t capacity, result *res)
{
    int fds[2];
    pid_t pid;
    int status;
    ssize_t got;
    if (pipe(fds) != 0)
        return -1;
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        result r;
        counters c;
        memset(&r, 0, sizeof r);
        counters_open(&c);
        r.counters_errno = c.open_errno;
        if (who == BUMPDOWN || who == CURSOR) {
            bd_options opts;
            bd_arena *arena;
            bd_stats stats;
            memset(&opts, 0, sizeof opts);
            opts.limit = capacity;
            arena = bd_arena_create_with(&opts);
            if (arena == NULL)
                _exit(2);
            measure(who == CURSOR ? cursor_pass : bump_pass, arena, &c, &r.cold);
            measure(who == CURSOR ? cursor_pass : bump_pass, arena, &c, &r.warm);
            if (bd_arena_stats(arena, &stats) == BD_OK)
                r.held = stats.held;
            bd_arena_destroy(arena);
        } else if (who == VM || who == VM_CURSOR) {
            bd_vm_arena *vm = bd_vm_create(capacity);
            bd_vm_stats stats;
            if (vm == NULL)
                _exit(2);
            measure(who == VM_CURSOR ? vm_cursor_pass : vm_pass, vm, &c, &r.cold);
            measure(who == VM_CURSOR ? vm_cursor_pass : vm_pass, vm, &c, &r.warm);
            if (bd_vm_arena_stats(vm, &stats) == BD_OK)
                r.held = stats.committed;
            bd_vm_destroy(vm);
        } else if (who == MALLOC) {
            measure(malloc_pass, NULL, &c, &r.cold);
            measure(malloc_pass, NULL, &c, &r.warm);
        } else {
            bare b;
            b.base = (unsigned char *)malloc((size_t)OPS * SIZE);
            if (b.base == NULL)
                _exit(2);
            measure(bare_pass, &b, &c, &r.cold);
            measure(bare_pass, &b, &c, &r.warm);
            free(b.base);
        }
        if (write(fds[1], &r, sizeof r) != (ssize_t)sizeof r)
            _exit(3);
        _exit(0);
    }
    close(fds[1]);
    got = read(fds[0], res, sizeof *res);
    close(fds[0]);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        got != (ssize_t)sizeof *res)
        return -1;
    return 0;
}

#define NCOLS 10

/* ----- Report --------------------------------------------------------------------- */

static double per_op(const pass *p, double value) { return p->ok > 0 ? value / (double)p->ok : 0.0; }

static void print_counter(const char *name, const pass *const cols[NCOLS], int which, int per)
{
    int i;
    printf("| %s%s |", name, per ? " per op" : "");
    for (i = 0; i < NCOLS; i++) {
        long long v = cols[i]->hw[which];
        if (v < 0)
            printf(" n/a |");
        else if (per)
            printf(" %.2f |", per_op(cols[i], (double)v));
        else
            printf(" %lld |", v);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    size_t capacity;
    char *end;
    result bump, cursor, vm, vm_cursor, sys, floor;
    const pass *cols[NCOLS];
    int i;
    if (argc != 2) {
        fprintf(stderr, "usage: %s <capacity-bytes>   (e.g. 1073741824)\n", argv[0]);
        return 2;
    }
    errno = 0;
    capacity = (size_t)strtoull(argv[1], &end, 10);
    if (errno != 0 || *end != '\0' || capacity == 0) {
        fprintf(stderr, "capacity must be a positive number of bytes\n");
        return 2;
    }
    if (run_child(BUMPDOWN, capacity, &bump) != 0 || run_child(CURSOR, capacity, &cursor) != 0 ||
        run_child(VM, capacity, &vm) != 0 || run_child(VM_CURSOR, capacity, &vm_cursor) != 0 ||
        run_child(MALLOC, capacity, &sys) != 0 || run_child(BARE, capacity, &floor) != 0) {
        fprintf(stderr, "a benchmark child failed\n");
        return 1;
    }
    cols[0] = &bump.cold;
    cols[1] = &bump.warm;
    cols[2] = &cursor.cold;
    cols[3] = &cursor.warm;
    cols[4] = &vm.cold;
    cols[5] = &vm.warm;
    cols[6] = &vm_cursor.cold;
    cols[7] = &vm_cursor.warm;
    cols[8] = &sys.cold;
    cols[9] = &sys.warm;

    printf("%ld allocations of %d bytes (aligned to %d), each written, then reset / freed;\n", OPS, SIZE, ALIGN);
    printf("bumpdown arena limit and bd_vm reservation (capacity): %zu bytes; each contender in its own "
           "process\n\n",
           capacity);
    printf("| | bd_alloc cold | bd_alloc warm | bd_cursor_alloc cold | bd_cursor_alloc warm | bd_vm_alloc cold "
           "| bd_vm_alloc warm | bd_vm_cursor_alloc cold | bd_vm_cursor_alloc warm | malloc+free cold "
           "| malloc+free warm |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    printf("| allocations that succeeded |");
    for (i = 0; i < NCOLS; i++)
        printf(" %lld |", cols[i]->ok);
    printf("\n| ns per op |");
    for (i = 0; i < NCOLS; i++)
        printf(" %.2f |", per_op(cols[i], cols[i]->ns));
    printf("\n| speed-up (malloc ns / this ns) |");
    for (i = 0; i < NCOLS - 2; i++) {
        const pass *m = (i % 2) ? &sys.warm : &sys.cold;
        printf(" %.2fx |", per_op(m, m->ns) / per_op(cols[i], cols[i]->ns));
    }
    printf(" | |\n");
    printf("| peak RSS growth (KiB) |");
    for (i = 0; i < NCOLS; i++)
        printf(" %ld |", cols[i]->rss_growth_kb);
    printf("\n| page faults |");
    for (i = 0; i < NCOLS; i++)
        printf(" %ld |", cols[i]->faults);
    printf("\n");
    print_counter(counter_names[CYCLES], cols, CYCLES, 1);
    print_counter(counter_names[INSTRUCTIONS], cols, INSTRUCTIONS, 1);
    print_counter(counter_names[CACHE_MISSES], cols, CACHE_MISSES, 0);
    print_counter(counter_names[DTLB_MISSES], cols, DTLB_MISSES, 0);

    printf("\nThe floor, a bare pointer bump down a plain %ld-byte buffer (no checks, no chunks): "
           "%.2f ns per op cold, %.2f ns warm (%ld and %ld page faults).\n",
           OPS * SIZE, per_op(&floor.cold, floor.cold.ns), per_op(&floor.warm, floor.warm.ns), floor.cold.faults,
           floor.warm.faults);
    printf("bumpdown held %zu bytes from malloc at the end (chunks kept across the reset); bd_vm had "
           "%zu bytes committed.\n",
           bump.held, vm.held);
    if (bump.cold.ok < OPS || bump.warm.ok < OPS)
        printf("The arena reached its limit: %lld of %ld allocations succeeded in the cold pass, "
               "%lld in the warm pass (then %s); through a cursor %lld and %lld.\n",
               bump.cold.ok, OPS, bump.warm.ok, strerror(bump.cold.errno_at_stop), cursor.cold.ok, cursor.warm.ok);
    if (vm.cold.ok < OPS || vm.warm.ok < OPS)
        printf("The virtual-memory arena ran out of its reservation: %lld of %ld allocations succeeded in the "
               "cold pass, %lld in the warm pass (then %s); through a cursor %lld and %lld.\n",
               vm.cold.ok, OPS, vm.warm.ok, strerror(vm.cold.errno_at_stop), vm_cursor.cold.ok, vm_cursor.warm.ok);
    if (bump.counters_errno != 0)
        printf("Some hardware counters are n/a: perf_event_open said \"%s\" (no PMU in this VM, "
               "or kernel.perf_event_paranoid above 2).\n",
               strerror(bump.counters_errno));
    return 0;
}
