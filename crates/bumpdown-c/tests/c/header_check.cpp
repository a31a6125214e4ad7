// The header from C++: compiles warning-free with -std=c++11 -Wall -Wextra -pedantic
// -Werror, links, and works. Built and run by tests/c_suite.rs.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "bumpdown.h"

int main()
{
    bd_arena *arena = bd_arena_create();
    if (arena == NULL)
        return 1;
    int failures = 0;
    double *xs = static_cast<double *>(bd_alloc_array(arena, 10, sizeof(double), alignof(double)));
    void *zero = bd_alloc_zeroed(arena, 16, 16);
    int *ints = static_cast<int *>(bd_calloc(arena, 4, sizeof(int), alignof(int)));
    char *s = bd_strndup(arena, bd_strdup(arena, "from C++"), 4);
    failures += xs == NULL || zero == NULL || ints == NULL || ints[3] != 0;
    failures += s == NULL || std::strcmp(s, "from") != 0;
    errno = 0;
    failures += bd_alloc(arena, 8, 3) != NULL || errno != EINVAL;
    bd_checkpoint cp;
    failures += bd_checkpoint_save(arena, &cp) != BD_OK;
    failures += bd_alloc(arena, 100, 1) == NULL;
    failures += bd_rewind(arena, &cp) != BD_OK;
    bd_stats stats;
    failures += bd_arena_stats(arena, &stats) != BD_OK || stats.chunks != 1;
    bd_cursor cursor;
    failures += bd_cursor_open(&cursor, arena) != BD_OK;
    failures += bd_cursor_alloc(&cursor, 32, 8) == NULL;
    bd_cursor_close(&cursor);
    failures += bd_reset(arena) != BD_OK || bd_reset_with_limit(arena, 0) != BD_OK;
    bd_arena_destroy(arena);

    static unsigned char buf[4096];
    bd_arena *fixed = bd_arena_create_fixed(buf, sizeof buf);
    failures += fixed == NULL || bd_alloc(fixed, 64, 16) == NULL;
    bd_arena_destroy(fixed);

    bd_options opts = bd_options();
    opts.limit = 1 << 20;
    bd_arena *limited = bd_arena_create_with(&opts);
    failures += limited == NULL || bd_alloc_slow(limited, 2 << 20, 8) != NULL;
    bd_arena_destroy(limited);

    bd_vm_options vopts = bd_vm_options();
    vopts.reserve = 1 << 20;
    vopts.reset_policy = BD_VM_RELEASE_ABOVE;
    bd_vm_arena *vm = bd_vm_create_with(&vopts);
    failures += vm == NULL;
    if (vm != NULL) {
        char *buf = static_cast<char *>(bd_vm_alloc(vm, 100, 1));
        failures += buf == NULL || bd_vm_realloc_last(vm, buf, 100, 200, 1) != buf;
        failures += bd_vm_calloc(vm, 4, sizeof(int), alignof(int)) == NULL;
        failures += bd_vm_alloc_zeroed(vm, 8, 8) == NULL;
        bd_vm_cursor vc;
        failures += bd_vm_cursor_open(&vc, vm) != BD_OK || bd_vm_cursor_alloc(&vc, 64, 16) == NULL;
        bd_vm_cursor_close(&vc);
        bd_checkpoint vcp;
        failures += bd_vm_checkpoint_save(vm, &vcp) != BD_OK || bd_vm_alloc_slow(vm, 32, 32) == NULL;
        failures += bd_vm_rewind(vm, &vcp) != BD_OK;
        bd_vm_stats vstats;
        // 200 (grown in place) + 16 + 8 + 64; the 32 after the checkpoint are rewound.
        failures += bd_vm_arena_stats(vm, &vstats) != BD_OK || vstats.used != 288;
        failures += bd_vm_reset(vm) != BD_OK;
        bd_vm_destroy(vm);
    }
    errno = 0;
    failures += bd_vm_alloc(NULL, 8, 8) != NULL || errno != EINVAL;

    if (failures != 0) {
        std::fprintf(stderr, "%d C++ check(s) failed\n", failures);
        return 1;
    }
    std::printf("C++ header check passed\n");
    return 0;
}
