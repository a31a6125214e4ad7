#!/bin/sh
# Real programs under four allocators: glibc, mimalloc and jemalloc (when installed) and
# libbumpdown_malloc.so (default mode, and pure bump mode: BUMPDOWN_MODE=bump).
#   crates/bumpdown-malloc/bench/preload.sh [RUNS]     (default 5 interleaved rounds)
# Needs python3. PRELOAD_PROGRAMS picks a subset of
#   "FileCheck clang gcc jq python sort git xz sqlite sqlite-file"   (default: all)
# and a program that is not installed is SKIPPED. Inputs are generated with fixed seeds
# under <cargo's target dir>/bumpdown-preload/ (gen_inputs.py). Every program's output
# must be the same under every allocator (run.py compares it).
# The library is the one cargo reports building just now (scripts/built.py), and run.py
# checks in every run that it was in effect.
set -eu
RUNS=${1:-5}
PROGRAMS=${PRELOAD_PROGRAMS:-FileCheck clang gcc jq python sort git xz sqlite sqlite-file}
wants() { case " $PROGRAMS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BENCH=$ROOT/crates/bumpdown-malloc/bench
OUT=$("$ROOT/scripts/target-dir.sh")/bumpdown-preload
mkdir -p "$OUT"
SO=$(python3 "$ROOT/scripts/built.py" libbumpdown_malloc.so -- --release -q -p bumpdown-malloc --manifest-path "$ROOT/Cargo.toml")

# The peers, each from the first of the usual places that has it; MIMALLOC_SO and
# JEMALLOC_SO name other files (a missing file: skipped). run.py names a skipped one in
# each table, with the reason.
ALLOCS="glibc="
SKIPPED=""
peer() { # peer NAME LIBRARY PACKAGE CANDIDATE...
    name=$1 lib=$2 package=$3
    shift 3
    for so in "$@"; do
        if [ -e "$so" ]; then
            ALLOCS="$ALLOCS $name=LD_PRELOAD=$so"
            return
        fi
    done
    echo "$name: SKIPPED in every table below ($lib not installed; Debian: $package)"
    SKIPPED="${SKIPPED:+$SKIPPED;}$name:$lib not installed (Debian: $package)"
}
peer mimalloc libmimalloc.so libmimalloc-dev ${MIMALLOC_SO:-/usr/lib/x86_64-linux-gnu/libmimalloc.so /usr/lib/aarch64-linux-gnu/libmimalloc.so /usr/lib64/libmimalloc.so}
peer jemalloc libjemalloc.so libjemalloc-dev ${JEMALLOC_SO:-/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 /usr/lib64/libjemalloc.so.2}
ALLOCS="$ALLOCS bumpdown=LD_PRELOAD=$SO"
export SKIPPED_ALLOCATORS="$SKIPPED"
# The inputs of the wanted programs only (the first run generates them: up to ~20 s).
inputs=""
for p in $PROGRAMS; do
    case $p in
    FileCheck) inputs="$inputs input.txt check.txt" ;;
    clang) inputs="$inputs big.cpp" ;;
    gcc) inputs="$inputs big.c" ;;
    jq) inputs="$inputs big.json" ;;
    sort) inputs="$inputs lines.txt" ;;
    git) inputs="$inputs repo.fi" ;;
    xz | sqlite | sqlite-file) inputs="$inputs batch.sql" ;;
    esac
done
# shellcheck disable=SC2086 # file names, one word each
[ -z "$inputs" ] || python3 "$BENCH/gen_inputs.py" "$OUT" $inputs

# run LABEL TOOL NAME CMD...: times CMD under every allocator (and those in EXTRA, e.g.
# the pure bump mode) if TOOL is installed and LABEL is wanted. A setting the program
# needs goes in CMD through `env` (which execs the program: run.py's pid check holds).
run() {
    label=$1 tool=$2
    shift 2
    if ! wants "$label"; then
        return
    elif ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "$tool" ]; then
        echo "$label: SKIPPED (not installed)"
        return
    fi
    python3 "$BENCH/run.py" "$RUNS" "$@" -- $ALLOCS ${EXTRA:-}
}
FILECHECK=$(command -v FileCheck-14 || command -v FileCheck || echo /usr/lib/llvm-14/bin/FileCheck)
# Every program also runs on a pure bump (only the newest block is reused), whose peak
# RSS is what the default mode's reuse saves (issue 23: that mode states its memory cost
# beside the default's). The region holds at most 4 GiB (BUMPDOWN_LIMIT's default); a
# program that needs more continues on glibc.
EXTRA="bumpdown-bump=LD_PRELOAD=$SO,BUMPDOWN_MODE=bump"
run FileCheck "$FILECHECK" FileCheck "$FILECHECK" "$OUT/check.txt" --input-file "$OUT/input.txt"
run clang clang-14 "clang-14 -fsyntax-only" clang-14 -fsyntax-only -std=c++17 "$OUT/big.cpp"
# The compiler proper (cc1) and the assembler are children of the driver; all run
# preloaded, the peak RSS is the largest of them, and the object file is the output.
run gcc gcc "gcc -O2 -c" gcc -O2 -c "$OUT/big.c" -o /dev/stdout
run jq jq jq jq "[.[] | select(.score > 0.5) | {name, tags}] | length" "$OUT/big.json"
# The system's python3 (a version manager's shim is a shell script), every object from
# malloc rather than python's own small-object allocator.
PYTHON=$(command -v /usr/bin/python3 || command -v python3)
run python "$PYTHON" "python3 (PYTHONMALLOC=malloc)" env PYTHONMALLOC=malloc "$PYTHON" "$BENCH/py_workload.py"
run sort sort "sort 50 MB" env LC_ALL=C sort "$OUT/lines.txt"
if wants git && command -v git >/dev/null 2>&1 && [ ! -d "$OUT/repo.git" ]; then
    git init -q --bare "$OUT/repo.git.tmp"
    git -C "$OUT/repo.git.tmp" fast-import --quiet < "$OUT/repo.fi"
    mv "$OUT/repo.git.tmp" "$OUT/repo.git"
fi
run git git "git log -p (1,500 commits)" git -C "$OUT/repo.git" log -p main
run xz xz "xz -1 (14 MB)" xz -c -1 -T1 "$OUT/batch.sql"
run sqlite sqlite3 "sqlite3 (in memory)" sqlite3 :memory: ".read $OUT/batch.sql"
# A fresh database file each run: the batch drops and recreates its tables.
run sqlite-file sqlite3 "sqlite3 (temp file)" sqlite3 "$OUT/batch.db" ".read $OUT/batch.sql"
