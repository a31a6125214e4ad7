#!/usr/bin/env python3
"""Interleaved timing of one command under several allocators.

usage: run.py RUNS NAME CMD... -- ALLOC=ENV [ALLOC=ENV ...]
  ENV is "" (no change) or VAR=VALUE[,VAR=VALUE]  e.g.  glibc=  bumpdown=LD_PRELOAD=/x.so
  "{alloc}" in CMD is replaced by the allocator's name (one binary per allocator), or by
  the part after "@" when the name is written NAME@BINARY.
Each round runs every allocator once (rotating the order), RUNS rounds in all. Prints,
per allocator, the median wall time, the spread (min..max), the median CPU time (user +
system, less disturbed than wall time on a busy machine), the median peak RSS (the
command's own maxrss, see below) and the ratios to the first allocator: of the medians, and paired, for wall and CPU
time (each run against the first allocator's run of the same round, which ran at most a
few seconds apart; the median of those ratios and their range), which cancels the host's
slower and faster phases better than the ratio of medians does.

Every command is started through `spawn.c` (compiled here with `$CC`, default `cc`, into
a temporary directory), which forks it and reports the command's own peak RSS: a command
forked straight from this script would never report less than the script's own ~20 MB
(Linux carries a process's peak across exec). The launcher's own peak, well under 1 MB,
is the floor then (spawn.c says how it is read). Without a C compiler the command is forked from here, with that ~20 MB
floor: a run whose figure is not above the floor did not measure the program; its RSS
cell says "floor" and its ratio "n/a", and a note under the table gives the floor.
Exits non-zero if any run's exit status or standard output differs from the first
allocator's first run (the output goes to a temporary file and is compared by its
SHA-256; a line under the table says it was the same in every run, or that every
output was empty, as FileCheck's and `clang -fsyntax-only`'s are on success).

An allocator whose LD_PRELOAD names libbumpdown_malloc must prove, in every run, that
it was the one in effect: the run gets BUMPDOWN_STATS=<a fresh file>, and the library's
exit line there must name the run's own pid and show bytes served. A missing or
mistyped library (which the loader would silently skip, measuring glibc instead) stops
the whole measurement.

An allocator that cannot run here (mimalloc not installed) is named in the table all the
same: SKIPPED_ALLOCATORS="LABEL:REASON[;LABEL:REASON]" adds a row saying it was skipped, and why.
"""
import hashlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def build_launcher(directory):
    """Compiles spawn.c into `directory` (statically if the C library allows it, so that
    LD_PRELOAD leaves the launcher alone); None without a working C compiler."""
    out = os.path.join(directory, "spawn")
    cc = os.environ.get("CC", "cc")
    for static in (["-static"], []):
        try:
            subprocess.run([cc, "-O2", *static, "-o", out, os.path.join(HERE, "spawn.c")],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return out
        except (OSError, subprocess.CalledProcessError):
            continue
    return None


def run_once(launcher, argv, env, out):
    """Runs `argv` with its stdout to `out`; returns (exit status, CPU seconds, command's
    pid, its peak RSS in KiB, the floor that peak cannot go below in KiB)."""
    if launcher is None:
        floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        p = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        return status, usage.ru_utime + usage.ru_stime, p.pid, usage.ru_maxrss, floor
    with tempfile.NamedTemporaryFile(mode="r", prefix="bumpdown-spawn-") as report:
        p = subprocess.Popen([launcher, report.name, *argv], env=env, stdout=out, stderr=subprocess.DEVNULL)
        # The launcher's wait4 figures include the command's (it waited for it).
        _, status, usage = os.wait4(p.pid, 0)
        fields = report.read().split()
    if len(fields) != 3:
        sys.exit(f"{argv[0]}: the launcher did not report (exit status {os.waitstatus_to_exitcode(status)})")
    pid, rss, floor = map(int, fields)
    return status, usage.ru_utime + usage.ru_stime, pid, rss, floor


def preloads_bumpdown(extra):
    """Whether these environment additions preload our malloc."""
    return any("libbumpdown_malloc" in os.path.basename(p) for p in extra.get("LD_PRELOAD", "").split(":"))


def check_in_effect(stats_file, pid, label):
    """Exits unless `stats_file` has the exit line of process `pid` with bytes used."""
    try:
        with open(stats_file) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        lines = []
    mine = [line for line in lines if f" pid={pid} " in line]
    used = [int(line.split(" used=")[1].split()[0]) for line in mine if " used=" in line]
    if not used or max(used) == 0:
        sys.exit(f"{label}: the preloaded libbumpdown_malloc did not report serving process {pid} "
                 f"(is LD_PRELOAD right, and the library the one just built?); lines: {lines}")


def main():
    runs = int(sys.argv[1])
    name = sys.argv[2]
    sep = sys.argv.index("--")
    cmd = sys.argv[3:sep]
    allocs = []
    for spec in sys.argv[sep + 1:]:
        label, _, env = spec.partition("=")
        extra = dict(kv.split("=", 1) for kv in env.split(",") if kv)
        allocs.append((label, extra))
    results = {label: [] for label, _ in allocs}
    statuses = {}
    outputs = {}
    launch_dir = tempfile.mkdtemp(prefix="bumpdown-run-")
    launcher = build_launcher(launch_dir)
    for r in range(runs):
        order = allocs[r % len(allocs):] + allocs[:r % len(allocs)]
        for label, extra in order:
            env = dict(os.environ, **extra)
            stats_file = None
            if preloads_bumpdown(extra):
                fd, stats_file = tempfile.mkstemp(prefix="bumpdown-stats-")
                os.close(fd)
                env["BUMPDOWN_STATS"] = stats_file
            start = time.perf_counter()
            argv = [a.replace("{alloc}", label.split("@")[-1]) for a in cmd]
            with tempfile.TemporaryFile() as out:
                status, cpu, pid, rss, floor = run_once(launcher, argv, env, out)
                elapsed = time.perf_counter() - start
                out.seek(0)
                sha = hashlib.sha256()
                for block in iter(lambda: out.read(1 << 20), b""):
                    sha.update(block)
                digest = sha.hexdigest()
            outputs.setdefault(digest, []).append(f"{label} (round {r + 1})")
            if stats_file:
                check_in_effect(stats_file, pid, f"{name} / {label}")
                os.unlink(stats_file)
            results[label].append((elapsed, rss, cpu, floor))
            statuses.setdefault(label, set()).add(os.waitstatus_to_exitcode(status))
    shutil.rmtree(launch_dir)
    base = allocs[0][0]
    base_t = statistics.median(r[0] for r in results[base])
    base_m = statistics.median(r[1] for r in results[base])
    base_c = statistics.median(r[2] for r in results[base])
    floored = {label: any(r[1] <= r[3] for r in results[label]) for label, _ in allocs}
    print(f"| {name} | allocator | wall median s | wall spread s | CPU median s | CPU spread s | peak RSS MiB | wall vs {base} | CPU vs {base} | paired wall vs {base} | paired CPU vs {base} | RSS vs {base} | exit |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, _ in allocs:
        ts = [r[0] for r in results[label]]
        ms = [r[1] for r in results[label]]
        cs = [r[2] for r in results[label]]
        t, m, c = statistics.median(ts), statistics.median(ms), statistics.median(cs)
        def paired(i):
            ratios = [r[i] / b[i] for r, b in zip(results[label], results[base]) if b[i]]
            if not ratios:
                return "n/a"
            return f"{statistics.median(ratios):.3f}x ({min(ratios):.2f}..{max(ratios):.2f})"
        rss = f"{m / 1024:.1f} floor" if floored[label] else f"{m / 1024:.1f}"
        rss_ratio = "n/a" if floored[label] or floored[base] else f"{m / base_m:.2f}x"
        print(f"| {name} | {label} | {t:.3f} | {min(ts):.3f}..{max(ts):.3f} | {c:.3f} | {min(cs):.3f}..{max(cs):.3f} | {rss} | {t / base_t:.3f}x | {c / base_c:.3f}x | {paired(0)} | {paired(2)} | {rss_ratio} | {sorted(statuses[label])} |")
    for skipped in filter(None, os.environ.get("SKIPPED_ALLOCATORS", "").split(";")):
        label, _, reason = skipped.partition(":")
        print(f"| {name} | {label} | skipped: {reason.strip() or 'not available'} |" + " — |" * 10)
    if any(floored.values()):
        top = max(r[3] for rs in results.values() for r in rs)
        which = ", ".join(label for label, _ in allocs if floored[label])
        print(f"\n{name}: peak RSS of {which} not measured: not above this script's own "
              f"peak when it started the run (up to {top / 1024:.1f} MiB: no C compiler for the launcher; see run.py's docs).")
    if len(outputs) == 1:
        (digest, _), = outputs.items()
        if digest == hashlib.sha256(b"").hexdigest():
            # FileCheck and `clang -fsyntax-only` print nothing when they succeed: an
            # empty output proves nothing, so say what the check really was.
            print(f"\n{name}: no output in any of the {runs * len(allocs)} runs (the program prints nothing "
                  f"when it succeeds): its exit status, the same in every run, is the check.")
        else:
            print(f"\n{name}: the same output in all {runs * len(allocs)} runs (SHA-256 {digest[:16]}...).")
    first = statuses[allocs[0][0]]
    if any(s != first for s in statuses.values()):
        print(f"exit statuses differ: {statuses}", file=sys.stderr)
        sys.exit(1)
    if len(outputs) != 1:
        print(f"outputs differ between allocators: {outputs}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
