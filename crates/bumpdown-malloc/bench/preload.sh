#!/bin/sh
# Real programs under three allocators: glibc, mimalloc (if installed) and
# libbumpdown_malloc.so (default mode; also pure bump mode for FileCheck).
#   crates/bumpdown-malloc/bench/preload.sh [RUNS]     (default 5 interleaved rounds)
# Needs python3; uses FileCheck-14, clang-14 and jq when installed (skips the others).
# Inputs are generated with fixed seeds under <cargo's target dir>/bumpdown-preload/.
# PRELOAD_PROGRAMS picks a subset of "FileCheck clang jq" (default: all three).
# The library is the one cargo reports building just now (scripts/built.py), and run.py
# checks in every run that it was in effect.
set -eu
RUNS=${1:-5}
PROGRAMS=${PRELOAD_PROGRAMS:-FileCheck clang jq}
wants() { case " $PROGRAMS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BENCH=$ROOT/crates/bumpdown-malloc/bench
OUT=$("$ROOT/scripts/target-dir.sh")/bumpdown-preload
mkdir -p "$OUT"
SO=$(python3 "$ROOT/scripts/built.py" libbumpdown_malloc.so -- --release -q -p bumpdown-malloc --manifest-path "$ROOT/Cargo.toml")
# MIMALLOC_SO names the library to use instead of the usual places (a missing file: skipped).
ALLOCS="glibc= bumpdown=LD_PRELOAD=$SO"
for mi in ${MIMALLOC_SO:-/usr/lib/x86_64-linux-gnu/libmimalloc.so /usr/lib/aarch64-linux-gnu/libmimalloc.so /usr/lib64/libmimalloc.so}; do
    if [ -e "$mi" ]; then ALLOCS="glibc= mimalloc=LD_PRELOAD=$mi bumpdown=LD_PRELOAD=$SO"; break; fi
done
case "$ALLOCS" in
*mimalloc*) ;;
*)
    echo "mimalloc: SKIPPED in every table below (libmimalloc.so not installed; Debian: libmimalloc-dev)"
    # run.py names it in each table, with the reason.
    export SKIPPED_ALLOCATORS="mimalloc:libmimalloc.so not installed (Debian: libmimalloc-dev)"
    ;;
esac
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
