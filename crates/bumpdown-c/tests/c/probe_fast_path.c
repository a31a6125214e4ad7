/*
 * Fast-path probes: each wraps one inline allocation shape in a function the
 * disassembler can find. tests/fast_path_asm.rs compiles this file with gcc -O2 (twice:
 * as is, and with BD_NO_NULL_CHECK) and counts each probe's instructions up to its
 * first `ret`. The benchmark report (crates/bumpdown-bench) compiles it the same two
 * ways into its own executable and sets the stored-value probes beside the Rust ones,
 * which do the same work: allocate, store the value, return the pointer.
 */
#include <stdint.h>
#include <string.h>

#include "bumpdown.h"

#ifdef BD_NO_NULL_CHECK
#define PROBE(name) bd_probe_##name##_nonnull
#else
#define PROBE(name) bd_probe_##name
#endif
#define NOINLINE __attribute__((noinline))

/* A u64, stored: the shape the Rust fast path test counts. */
NOINLINE uint64_t *PROBE(u64)(bd_arena *a, uint64_t v)
{
    uint64_t *p = (uint64_t *)bd_alloc(a, sizeof *p, 8);
    if (p)
        *p = v;
    return p;
}

/* A u32, stored. */
NOINLINE uint32_t *PROBE(u32)(bd_arena *a, uint32_t v)
{
    uint32_t *p = (uint32_t *)bd_alloc(a, sizeof *p, 4);
    if (p)
        *p = v;
    return p;
}

/* A 16-byte value aligned to 16, stored: two stores. (`__extension__`: __int128 is
 * not ISO C; on x86-64 it is passed in two registers, as Rust's u128.) */
__extension__ typedef unsigned __int128 probe_u128;
NOINLINE probe_u128 *PROBE(u128)(bd_arena *a, probe_u128 v)
{
    probe_u128 *p = (probe_u128 *)bd_alloc(a, sizeof *p, 16);
    if (p)
        *p = v;
    return p;
}

/* A copy of `n` bytes, as a Rust slice copy: a run-time size, then memcpy. */
NOINLINE void *PROBE(copy)(bd_arena *a, const void *src, size_t n)
{
    void *p = bd_alloc(a, n, 1);
    if (p)
        memcpy(p, src, n);
    return p;
}

/* One byte: the alignment step folds away. */
NOINLINE unsigned char *PROBE(u8)(bd_arena *a, unsigned char v)
{
    unsigned char *p = (unsigned char *)bd_alloc(a, 1, 1);
    if (p)
        *p = v;
    return p;
}

/* Seed 004's allocation: 64 bytes, aligned like malloc's. */
NOINLINE void *PROBE(block64)(bd_arena *a)
{
    return bd_alloc(a, 64, 16);
}

/* A size known only at run time, alignment constant and <= 16: two compares. */
NOINLINE void *PROBE(runtime_size)(bd_arena *a, size_t n)
{
    return bd_alloc(a, n, 8);
}

/* An array of u32 with a run-time count: the overflow check is one more compare. */
NOINLINE uint32_t *PROBE(array_u32)(bd_arena *a, size_t count)
{
    return (uint32_t *)bd_alloc_array(a, count, sizeof(uint32_t), 4);
}

/* A loop through a cursor: `top` stays in a register, so the loop body stores only the
 * values and loads nothing. */
NOINLINE void PROBE(cursor_loop)(bd_arena *a, size_t n)
{
    bd_cursor c;
    size_t i;
    if (bd_cursor_open(&c, a) != BD_OK)
        return;
    for (i = 0; i < n; i++) {
        uint64_t *p = (uint64_t *)bd_cursor_alloc(&c, sizeof *p, 8);
        if (p)
            *p = i;
    }
    bd_cursor_close(&c);
}

/* A loop through bd_alloc that stops on NULL: the NULL-arena check is hoisted out of
 * the loop (the header's NULL branch returns NULL where the compiler can see it). */
NOINLINE long PROBE(alloc_loop)(bd_arena *a, long n)
{
    long i;
    for (i = 0; i < n; i++) {
        uint64_t *p = (uint64_t *)bd_alloc(a, sizeof *p, 8);
        if (p == NULL)
            break;
        *p = (uint64_t)i;
    }
    return i;
}

/* ----- The virtual-memory arena: the upward bump ----- */

/* A u64, stored. */
NOINLINE uint64_t *PROBE(vm_u64)(bd_vm_arena *a, uint64_t v)
{
    uint64_t *p = (uint64_t *)bd_vm_alloc(a, sizeof *p, 8);
    if (p)
        *p = v;
    return p;
}

/* A u32, stored. */
NOINLINE uint32_t *PROBE(vm_u32)(bd_vm_arena *a, uint32_t v)
{
    uint32_t *p = (uint32_t *)bd_vm_alloc(a, sizeof *p, 4);
    if (p)
        *p = v;
    return p;
}

/* A 16-byte value aligned to 16, stored. */
NOINLINE probe_u128 *PROBE(vm_u128)(bd_vm_arena *a, probe_u128 v)
{
    probe_u128 *p = (probe_u128 *)bd_vm_alloc(a, sizeof *p, 16);
    if (p)
        *p = v;
    return p;
}

/* A copy of `n` bytes. */
NOINLINE void *PROBE(vm_copy)(bd_vm_arena *a, const void *src, size_t n)
{
    void *p = bd_vm_alloc(a, n, 1);
    if (p)
        memcpy(p, src, n);
    return p;
}

/* One byte: no alignment step. */
NOINLINE unsigned char *PROBE(vm_u8)(bd_vm_arena *a, unsigned char v)
{
    unsigned char *p = (unsigned char *)bd_vm_alloc(a, 1, 1);
    if (p)
        *p = v;
    return p;
}

/* Seed 004's allocation. */
NOINLINE void *PROBE(vm_block64)(bd_vm_arena *a)
{
    return bd_vm_alloc(a, 64, 16);
}

/* A size known only at run time. */
NOINLINE void *PROBE(vm_runtime_size)(bd_vm_arena *a, size_t n)
{
    return bd_vm_alloc(a, n, 8);
}

/* A loop through a VM cursor: `top` stays in a register. */
NOINLINE void PROBE(vm_cursor_loop)(bd_vm_arena *a, size_t n)
{
    bd_vm_cursor c;
    size_t i;
    if (bd_vm_cursor_open(&c, a) != BD_OK)
        return;
    for (i = 0; i < n; i++) {
        uint64_t *p = (uint64_t *)bd_vm_cursor_alloc(&c, sizeof *p, 8);
        if (p)
            *p = i;
    }
    bd_vm_cursor_close(&c);
}
