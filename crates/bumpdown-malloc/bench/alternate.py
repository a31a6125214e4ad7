#!/usr/bin/env python3
"""Peak RSS, time and page faults of one command under several preloads, alternated.

usage: alternate.py ROUNDS LABEL=LIBRARY [LABEL=LIBRARY ...] -- CMD...
  LIBRARY is a path to LD_PRELOAD, or empty for none (glibc), e.g.
  alternate.py 7 glibc= before=/tmp/old.so after=<path cargo reports> -- git log -p

Each round runs every library once, the order rotating. Every run goes through
`/usr/bin/time -f "%e %U %S %M %R"`, a small C program that forks the command, so the
peak RSS is the command's own even when it is smaller than a python process (run.py does
the same with its own launcher; see its docs). Prints, per label, the medians of wall time, CPU time
(user + system), peak RSS and minor page faults, their ratios to the first label, and the
median of the per-round (paired) ratios. No output comparison: use run.py for that.
"""
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    if "--" not in sys.argv:
        sys.exit(__doc__)
    sep = sys.argv.index("--")
    rounds = int(sys.argv[1])
    libs = [a.split("=", 1) for a in sys.argv[2:sep]]
    cmd = sys.argv[sep + 1:]
    res = {label: [] for label, _ in libs}
    for r in range(rounds):
        for label, lib in libs[r % len(libs):] + libs[:r % len(libs)]:
            env = dict(os.environ)
            if lib:
                env["LD_PRELOAD"] = lib
            with tempfile.NamedTemporaryFile(mode="r") as t:
                subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M %R", "-o", t.name, *cmd], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                wall, user, system, rss, faults = t.read().split()[-5:]
            res[label].append((float(wall), float(user) + float(system), int(rss), int(faults)))
    first = res[libs[0][0]]
    med = lambda runs, i: statistics.median(x[i] for x in runs)
    for label, _ in libs:
        runs = res[label]
        paired = [statistics.median(x[i] / y[i] for x, y in zip(runs, first) if y[i]) for i in (0, 1)]
        print(f"{label}: wall {med(runs, 0):.3f} s ({med(runs, 0) / med(first, 0):.3f}x, paired {paired[0]:.3f}x)  "
              f"CPU {med(runs, 1):.3f} s ({med(runs, 1) / med(first, 1):.3f}x, paired {paired[1]:.3f}x)  "
              f"peak RSS {med(runs, 2) / 1024:.1f} MiB ({med(runs, 2) / med(first, 2):.3f}x)  "
              f"minor faults {med(runs, 3):.0f}  wall per run {[x[0] for x in runs]}")


if __name__ == "__main__":
    main()
