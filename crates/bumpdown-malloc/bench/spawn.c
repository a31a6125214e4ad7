/* run.py's launcher: runs one command and reports its own peak RSS.
 *
 *   spawn REPORT-FILE CMD [ARG...]
 *
 * Forks, execs CMD in the child and waits for it, then writes one line to REPORT-FILE:
 * "<child pid> <child's peak RSS in KiB> <this launcher's peak RSS in KiB>", and exits
 * as the child did (the same exit code, or the same signal).
 *
 * The floor: a forked child starts with a copy of this program's memory, so its peak is
 * never below this program's peak RSS since its own exec (VmHWM in /proc/self/status).
 * That is not getrusage's figure, which, for the reason below, is the caller's.
 *
 * Why a launcher: Linux carries a process's peak RSS across exec, so a command started
 * straight from python (a fork or vfork of it) never reports less than python's own ~20
 * MB. Forked from this small program instead, it reports its own peak, with this
 * program's (about 1 MB when linked statically) as the floor. Linked statically, it
 * is not itself touched by LD_PRELOAD; the environment it passes on is the caller's. Its
 * user and system time are a few hundred microseconds, inside the child's in run.py's
 * wait4 figures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* This process's peak RSS since its exec, in KiB (its getrusage figure if /proc is not
 * there, which is never lower). */
static long own_peak_kib(void) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (status != NULL && fgets(line, sizeof line, status) != NULL) {
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) {
            break;
        }
    }
    if (status != NULL) {
        fclose(status);
    }
    if (kib < 0) {
        struct rusage self;
        getrusage(RUSAGE_SELF, &self);
        kib = self.ru_maxrss;
    }
    return kib;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s REPORT-FILE CMD [ARG...]\n", argv[0]);
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("spawn: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "spawn: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage child;
    while (wait4(pid, &status, 0, &child) < 0) {
        if (errno != EINTR) {
            perror("spawn: wait4");
            return 2;
        }
    }
    long floor = own_peak_kib();
    FILE *report = fopen(argv[1], "w");
    if (report == NULL || fprintf(report, "%ld %ld %ld\n", (long)pid, child.ru_maxrss, floor) < 0 ||
        fclose(report) != 0) {
        perror("spawn: report file");
        return 2;
    }
    if (WIFSIGNALED(status)) {
        /* Die of the same signal, so that the caller sees the child's status. */
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
