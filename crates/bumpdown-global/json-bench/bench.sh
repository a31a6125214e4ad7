#!/bin/sh
# Two Rust workloads built with three global allocators (glibc, mimalloc, BumpGlobal), run
# interleaved:  crates/bumpdown-global/json-bench/bench.sh [RUNS]
# JSON: generate ~100 MB, parse into serde_json::Value, walk, exit. syn: parse ~4 MB of
# generated Rust into a syntax tree, walk, exit. JSON_BENCH_WORKLOADS picks a subset of
# "json syn" (default: both).
set -eu
RUNS=${1:-5}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
# The binaries are the ones cargo reports building just now, wherever its target dir is.
BINS=$(python3 "$ROOT/scripts/built.py" json-glibc json-mimalloc json-bumpdown -- \
    --release -q -p bumpdown-global-json --manifest-path "$ROOT/Cargo.toml")
DIR=$(dirname "$(echo "$BINS" | head -n 1)")
WORKLOADS=${JSON_BENCH_WORKLOADS:-json syn}
case " $WORKLOADS " in *" json "*)
    python3 "$ROOT/crates/bumpdown-malloc/bench/run.py" "$RUNS" "serde_json 100 MB" "$DIR/json-{alloc}" -- glibc= mimalloc= bumpdown=
    ;;
esac
case " $WORKLOADS " in *" syn "*)
    python3 "$ROOT/crates/bumpdown-malloc/bench/run.py" "$RUNS" "syn, 4 MB of Rust" "$DIR/json-{alloc}" syn -- glibc= mimalloc= bumpdown=
    ;;
esac
