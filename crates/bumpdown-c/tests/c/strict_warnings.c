/* Compiled (not run) by tests/c_suite.rs with extra warnings as errors, as C and as
 * C++: the header must not trip the warnings users commonly enable. */
#include "bumpdown.h"

void *use_every_inline(bd_arena *arena, size_t n);
void *use_every_vm_inline(bd_vm_arena *vm, size_t n);

void *use_every_inline(bd_arena *arena, size_t n)
{
    void *a = bd_alloc(arena, n, 8);
    void *b = bd_alloc_zeroed(arena, 24, 8);
    void *c = bd_alloc_array(arena, n, 4, 4);
    void *d = bd_calloc(arena, n, 2, 2);
    bd_cursor cur;
    void *e = NULL;
    if (bd_cursor_open(&cur, arena) == BD_OK) {
        e = bd_cursor_alloc(&cur, n, 16);
        bd_cursor_close(&cur);
    }
    return a != NULL && b != NULL && c != NULL && e != NULL ? d : NULL;
}

void *use_every_vm_inline(bd_vm_arena *vm, size_t n)
{
    void *a = bd_vm_alloc(vm, n, 8);
    void *b = bd_vm_alloc(vm, 64, 16);
    bd_vm_cursor cur;
    void *c = NULL;
    if (bd_vm_cursor_open(&cur, vm) == BD_OK) {
        c = bd_vm_cursor_alloc(&cur, n, 4096);
        bd_vm_cursor_close(&cur);
    }
    return a != NULL && c != NULL ? b : NULL;
}
