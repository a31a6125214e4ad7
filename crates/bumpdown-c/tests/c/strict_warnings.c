/* Compiled (not run) by tests/c_suite.rs with extra warnings as errors, as C and as
 * C++: the header must not trip the warnings users commonly enable. */
#include "bumpdown.h"

void *use_every_inline(bd_arena *arena, size_t n);

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
