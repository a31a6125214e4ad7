#!/bin/sh
# The JSON workload (generate ~100 MB, parse into serde_json::Value, walk, exit) built with
# three global allocators, run interleaved:  crates/bumpdown-global/json-bench/bench.sh [RUNS]
set -eu
RUNS=${1:-5}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cargo build --release -q -p bumpdown-global-json --manifest-path "$ROOT/Cargo.toml"
python3 "$ROOT/crates/bumpdown-malloc/bench/run.py" "$RUNS" "serde_json 100 MB" "$ROOT/target/release/json-{alloc}" -- glibc= mimalloc= bumpdown=
