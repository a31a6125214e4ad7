#!/bin/sh
# The JSON workload (generate ~100 MB, parse into serde_json::Value, walk, exit) built with
# three global allocators, run interleaved:  crates/bumpdown-global/json-bench/bench.sh [RUNS]
set -eu
RUNS=${1:-5}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
# The binaries are the ones cargo reports building just now, wherever its target dir is.
BINS=$(python3 "$ROOT/scripts/built.py" json-glibc json-mimalloc json-bumpdown -- \
    --release -q -p bumpdown-global-json --manifest-path "$ROOT/Cargo.toml")
DIR=$(dirname "$(echo "$BINS" | head -n 1)")
python3 "$ROOT/crates/bumpdown-malloc/bench/run.py" "$RUNS" "serde_json 100 MB" "$DIR/json-{alloc}" -- glibc= mimalloc= bumpdown=
