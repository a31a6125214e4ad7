#!/usr/bin/env python3
"""Builds with cargo and prints where the named artefacts are, as cargo reports them.

usage: built.py FILE_NAME... -- CARGO_BUILD_ARGS...
  e.g. built.py libbumpdown_malloc.so -- --release -p bumpdown-malloc

Runs `cargo build --message-format=json-render-diagnostics CARGO_BUILD_ARGS` and prints
the absolute path of each named file (an executable, a shared or static library), one
per line, in the order asked. The paths are the ones this very build produced or found
fresh, wherever the target directory is (CARGO_TARGET_DIR, `build.target-dir`, or the
default): scripts never guess `target/`. Exits non-zero, naming what is missing, if
cargo fails or did not report a file of that name.
"""
import json
import os
import subprocess
import sys


def main():
    if "--" not in sys.argv:
        sys.exit(__doc__)
    sep = sys.argv.index("--")
    wanted, cargo_args = sys.argv[1:sep], sys.argv[sep + 1:]
    if not wanted:
        sys.exit(__doc__)
    cargo = os.environ.get("CARGO", "cargo")
    cmd = [cargo, "build", "--message-format=json-render-diagnostics", *cargo_args]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"built.py: {' '.join(cmd)} failed ({proc.returncode})")
    found = {}
    for line in proc.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") != "compiler-artifact":
            continue
        for path in message.get("filenames", []) + [message.get("executable") or ""]:
            if path:
                found[os.path.basename(path)] = path
    missing = [name for name in wanted if name not in found]
    if missing:
        sys.exit(f"built.py: cargo built no {', '.join(missing)} (it built: {', '.join(sorted(found))})")
    for name in wanted:
        if not os.path.isfile(found[name]):
            sys.exit(f"built.py: cargo reported {found[name]}, which does not exist")
        print(found[name])


if __name__ == "__main__":
    main()
