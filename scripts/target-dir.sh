#!/bin/sh
# Prints cargo's target directory, as cargo itself resolves it (CARGO_TARGET_DIR,
# `build.target-dir` in a config file, or the default), for this workspace or for the
# one whose Cargo.toml is given:  scripts/target-dir.sh [path/to/Cargo.toml]
# Scripts that put files beside cargo's outputs ask this instead of assuming `target/`.
set -eu
manifest=${1:-$(cd "$(dirname "$0")/.." && pwd)/Cargo.toml}
"${CARGO:-cargo}" metadata --format-version 1 --no-deps --manifest-path "$manifest" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])'
