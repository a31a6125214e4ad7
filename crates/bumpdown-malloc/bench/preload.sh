#!/bin/sh
# Real programs under three allocators: glibc, mimalloc (if installed) and
# libbumpdown_malloc.so (default mode; also pure bump mode for FileCheck).
#   crates/bumpdown-malloc/bench/preload.sh [RUNS]     (default 5 interleaved rounds)
# Needs python3; uses FileCheck-14, clang-14 and jq when installed (skips the others).
# Inputs are generated with fixed seeds under target/bumpdown-preload/.
# PRELOAD_PROGRAMS picks a subset of "FileCheck clang jq" (default: all three).
set -eu
RUNS=${1:-5}
PROGRAMS=${PRELOAD_PROGRAMS:-FileCheck clang jq}
wants() { case " $PROGRAMS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BENCH=$ROOT/crates/bumpdown-malloc/bench
OUT=$ROOT/target/bumpdown-preload
mkdir -p "$OUT"
cargo build --release -q -p bumpdown-malloc --manifest-path "$ROOT/Cargo.toml"
SO=$ROOT/target/release/libbumpdown_malloc.so
ALLOCS="glibc= bumpdown=LD_PRELOAD=$SO"
for mi in /usr/lib/x86_64-linux-gnu/libmimalloc.so /usr/lib/aarch64-linux-gnu/libmimalloc.so /usr/lib64/libmimalloc.so; do
    if [ -e "$mi" ]; then ALLOCS="glibc= mimalloc=LD_PRELOAD=$mi bumpdown=LD_PRELOAD=$SO"; break; fi
done
python3 "$BENCH/gen_inputs.py" "$OUT"

FILECHECK=$(command -v FileCheck-14 || command -v FileCheck || echo /usr/lib/llvm-14/bin/FileCheck)
if ! wants FileCheck; then
    :
elif [ -x "$FILECHECK" ]; then
    python3 "$BENCH/run.py" "$RUNS" FileCheck "$FILECHECK" "$OUT/check.txt" --input-file "$OUT/input.txt" -- \
        $ALLOCS "bumpdown-bump=LD_PRELOAD=$SO,BUMPDOWN_MODE=bump"
else
    echo "FileCheck: SKIPPED (not installed)"
fi
if ! wants clang; then
    :
elif command -v clang-14 >/dev/null; then
    python3 "$BENCH/run.py" "$RUNS" "clang-14 -fsyntax-only" clang-14 -fsyntax-only -std=c++17 "$OUT/big.cpp" -- $ALLOCS
else
    echo "clang-14: SKIPPED (not installed)"
fi
if ! wants jq; then
    :
elif command -v jq >/dev/null; then
    python3 "$BENCH/run.py" "$RUNS" jq jq "[.[] | select(.score > 0.5) | {name, tags}] | length" "$OUT/big.json" -- $ALLOCS
else
    echo "jq: SKIPPED (not installed)"
fi
