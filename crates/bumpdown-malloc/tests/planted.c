/* Planted memory bugs for run-sanitizers.sh: run with libbumpdown_malloc.so preloaded
 * under valgrind, `planted <bug>` must be reported; `planted none` must run clean.
 * Bugs: overflow (a write one byte past the usable size), uaf (a read after free),
 * double (a second free), uninit (a branch on bytes malloc left unset). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    const char *bug = argc > 1 ? argv[1] : "none";
    unsigned char *p = malloc(100);
    if (!p) return 2;
    /* The whole usable size is the program's (malloc_usable_size's promise). */
    size_t n = malloc_usable_size(p);
    memset(p, 1, n);
    volatile unsigned char sink = 0;
    /* Read back through a volatile copy: the compiler must not see the planted bugs. */
    unsigned char *volatile kept = p;
    if (!strcmp(bug, "overflow")) {
        p[n] = 2;
    } else if (!strcmp(bug, "uaf")) {
        free(p);
        sink = kept[5];
        p = NULL;
    } else if (!strcmp(bug, "double")) {
        free(p);
        free(kept);
        p = NULL;
    } else if (!strcmp(bug, "uninit")) {
        unsigned char *q = malloc(64);
        if (!q) return 2;
        if (q[3] == 42) sink = 1;
        free(q);
    } else if (strcmp(bug, "none")) {
        fprintf(stderr, "planted: unknown bug %s\n", bug);
        return 2;
    }
    free(p);
    /* Proof that our malloc served it: glibc's smallest block has 24 usable bytes. */
    void *one = malloc(1);
    size_t smallest = malloc_usable_size(one);
    free(one);
    printf("planted %s: usable(1)=%zu sink=%d\n", bug, smallest, sink);
    return 0;
}
