#!/bin/sh
# Checks libbumpdown_malloc.so, the LD_PRELOAD malloc, and the memory it hands out with
# memory checkers. Exits non-zero on any report. Called from CI; needs cargo, nightly
# Rust, a C compiler with libubsan, valgrind and python3.
#
# 1. valgrind memcheck, with OUR library as the program's malloc. Memcheck replaces the
#    malloc of libc and of every object without a soname (the main program, and our
#    library too); `--soname-synonyms=somalloc=nouserintercepts` limits it to libc's, so
#    the preload's symbols win. The library is built with its `valgrind` feature: client
#    requests (bumpdown_global::shadow) tell memcheck that region windows start
#    unaddressable, that each block is a heap block from malloc to free, and that block
#    headers stay closed. Memcheck then checks every access, the programs' and our
#    library's own (headers, free-list links), against our blocks: writes past a block,
#    reads after free, branches on bytes malloc left unset, invalid and double frees.
#    (The glibc fallback's blocks come from memcheck's own malloc, checked as usual.)
#    Runs tests/entry_points.c under the five settings of tests/entry_points.rs, and
#    `sort` and python3; then each bug of tests/planted.c must be reported.
#    The region is capped at 64 MiB (BUMPDOWN_LIMIT): memcheck spends seconds per
#    process on the default 4 GiB reservation, and no program here needs more.
# 2. UndefinedBehaviorSanitizer: tests/entry_points.c built with -fsanitize=undefined
#    runs with the preload (UBSan, unlike ASan, keeps the process's malloc): every
#    pointer our malloc family returns must be aligned for the test's uses of it.
# 3. AddressSanitizer cannot run a program on our malloc: it replaces malloc itself. It
#    checks our allocator's code instead: tests/asan.rs drives the malloc family as a
#    library (feature `exports` off, so the process keeps ASan's malloc) with the code
#    instrumented (-Zsanitizer=address, nightly) and the region poisoned outside live
#    blocks (--cfg bumpdown_asan, bumpdown_global::shadow): every access of our code and
#    of the test must hit a live block's bytes; a planted read after free and a planted
#    write past a block must be reported. Rust has no UBSan: the library is a debug build
#    (overflow checks and debug assertions on) in every run here.
#
# BUMPDOWN_PLANT_BUG=overflow|uaf|double|uninit runs tests/planted.c with that bug as if
# it were a clean program, so the script must fail: CI checks that it does.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
target=$("$root/scripts/target-dir.sh")
out=$target/bumpdown-malloc/sanitizers
cc=${CC:-cc}
mkdir -p "$out"

# Debug build (debug assertions on), in a directory of its own so the feature build does
# not replace the library that `cargo test` preloads.
cargo build --quiet --lib -p bumpdown-malloc --features valgrind \
    --manifest-path "$root/Cargo.toml" --target-dir "$out/cargo"
so=$out/cargo/debug/libbumpdown_malloc.so

# (entry_points.c is built as tests/entry_points.rs builds it, warnings off.)
"$cc" -w -g -O1 -pthread "$here/tests/entry_points.c" -o "$out/entry_points"
"$cc" -std=gnu11 -Wall -Wextra -Werror -g -O0 "$here/tests/planted.c" -o "$out/planted"

# The entry-point test asks for sizes near SIZE_MAX on purpose: our fallback passes them
# on to glibc (memcheck's malloc here), which warns about a "fishy" size.
cat >"$out/huge-requests.supp" <<'EOF'
{
   deliberately-huge-malloc-from-the-fallback
   Memcheck:FishyValue
   malloc(size)
   fun:malloc
   fun:*bumpdown_malloc*fallback*
}
{
   deliberately-huge-memalign-from-the-fallback
   Memcheck:FishyValue
   memalign(size)
   fun:memalign
   fun:*bumpdown_malloc*fallback*
}
EOF

log=$out/memcheck.log
# memcheck <log> <env settings...> -- <program> <args...>: runs the program under memcheck
# with the preload; returns memcheck's status (99 on any report, else the program's).
memcheck() {
    runlog=$1
    shift
    settings=""
    while [ "$1" != "--" ]; do
        settings="$settings $1"
        shift
    done
    shift
    # shellcheck disable=SC2086
    env BUMPDOWN_LIMIT=64M $settings LD_PRELOAD="$so" \
        valgrind --quiet --error-exitcode=99 --soname-synonyms=somalloc=nouserintercepts \
        --suppressions="$out/huge-requests.supp" --leak-check=no "$@" >"$runlog.out" 2>"$runlog"
}

# clean <expected stdout text> <env settings...> -- <program> <args...>
clean() {
    expect=$1
    shift
    if ! memcheck "$log" "$@" || { [ -n "$expect" ] && ! grep -q "$expect" "$log.out"; }; then
        cat "$log" "$log.out"
        echo "memcheck: not clean: $*" >&2
        exit 1
    fi
    echo "clean: $*"
}

echo "== valgrind memcheck, our malloc"
if [ -n "${BUMPDOWN_PLANT_BUG:-}" ]; then
    clean "planted" -- "$out/planted" "$BUMPDOWN_PLANT_BUG"
fi
clean "planted none: usable(1)=16" -- "$out/planted" none
# The preload is in effect: 1 byte takes a bare 16-byte zone chunk (glibc: 24).
clean "usable(1)=16" -- "$out/entry_points"
clean "entry points: ok" BUMPDOWN_MODE=bump -- "$out/entry_points"
clean "entry points: ok" BUMPDOWN_LIMIT=64K -- "$out/entry_points"
clean "entry points: ok" BUMPDOWN_LIMIT=0 -- "$out/entry_points"
clean "entry points: ok" BUMPDOWN_MODE=bump BUMPDOWN_LIMIT=100K -- "$out/entry_points"
seq 20000 | sort -R --random-source="$here/tests/planted.c" >"$out/numbers"
seq 20000 >"$out/sorted"
clean "" -- sort -n -o "$out/sorted-by-us" "$out/numbers"
cmp "$out/sorted" "$out/sorted-by-us"
# The interpreter itself (`python3` may be a launcher script, which memcheck would not follow).
python=$(python3 -c 'import sys; print(sys.executable)')
clean "595560 20000" -- "$python" -c \
    'import json; d = {str(i): [i] * 3 for i in range(20000)}; s = json.dumps(d); print(len(s), len(json.loads(s)))'

echo "== valgrind memcheck, planted bugs"
for bug in "overflow:bytes after a block of size" "uaf:inside a block of size .* free'd" \
    "double:Invalid free()" "uninit:depends on uninitialised value"; do
    name=${bug%%:*}
    report=${bug#*:}
    status=0
    memcheck "$out/planted-$name.log" -- "$out/planted" "$name" || status=$?
    if [ "$status" -ne 99 ] || ! grep -q "$report" "$out/planted-$name.log"; then
        cat "$out/planted-$name.log"
        echo "memcheck: planted $name not reported (status $status, wanted \"$report\")" >&2
        exit 1
    fi
    echo "reported: $name: $(grep -m1 "$report" "$out/planted-$name.log" | sed 's/^==[0-9]*== *//')"
done

echo "== UndefinedBehaviorSanitizer, our malloc"
"$cc" -w -g -O1 -pthread -fsanitize=undefined -fno-sanitize-recover=all \
    "$here/tests/entry_points.c" -o "$out/entry_points_ubsan"
for run in ":usable(1)=16" "BUMPDOWN_MODE=bump:usable(1)=8" "BUMPDOWN_LIMIT=0:entry points: ok"; do
    settings=${run%%:*}
    expect=${run#*:}
    # shellcheck disable=SC2086
    if ! env $settings LD_PRELOAD="$so" UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$out/entry_points_ubsan" >"$log.out" 2>"$log" || ! grep -q "$expect" "$log.out"; then
        cat "$log" "$log.out"
        echo "ubsan: not clean: $settings" >&2
        exit 1
    fi
    echo "clean: ubsan $settings"
done

echo "== AddressSanitizer, our allocator's code"
asan() {
    RUSTFLAGS="-Zsanitizer=address --cfg bumpdown_asan" ASAN_OPTIONS=detect_leaks=1 \
        cargo +nightly test --quiet -p bumpdown-malloc --no-default-features --test asan \
        --target x86_64-unknown-linux-gnu --manifest-path "$root/Cargo.toml" --target-dir "$out/asan" "$@"
}
BUMPDOWN_PLANT_BUG="" asan
for bug in uaf overflow; do
    if BUMPDOWN_PLANT_BUG=$bug asan planted_bug >"$log" 2>&1; then
        cat "$log"
        echo "asan: planted $bug passed" >&2
        exit 1
    fi
    if ! grep -q "ERROR: AddressSanitizer: use-after-poison" "$log"; then
        cat "$log"
        echo "asan: planted $bug failed without an AddressSanitizer report" >&2
        exit 1
    fi
    echo "reported: $bug: $(grep -m1 "ERROR: AddressSanitizer" "$log" | sed 's/^==[0-9]*==//')"
done

echo "malloc sanitizers: all clean, planted bugs reported"
