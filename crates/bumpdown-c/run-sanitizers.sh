#!/bin/sh
# Builds the C test suite (tests/c/test_api.c) against libbumpdown_c.a and runs it
# under valgrind memcheck and under AddressSanitizer + UndefinedBehaviorSanitizer.
# Exits non-zero on any error or leak. Called from CI; needs cargo, a C compiler
# (clang or gcc with libasan/libubsan) and valgrind.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
target=$("$root/scripts/target-dir.sh")
out=$target/bumpdown-c/sanitizers
cc=${CC:-cc}
syslibs="-lpthread -ldl -lm -lrt -lutil"
mkdir -p "$out"

# The library with debug assertions on, so broken invariants panic (and are reported).
cargo build --quiet --lib -p bumpdown-c --manifest-path "$root/Cargo.toml" --target-dir "$target"
lib=$target/debug/libbumpdown_c.a

build() { # name, extra flags...
    name=$1
    shift
    # shellcheck disable=SC2086
    "$cc" -std=c99 -Wall -Wextra -pedantic -Werror -g "$@" -I"$here/include" \
        "$here/tests/c/test_api.c" "$lib" $syslibs -o "$out/$name"
}

echo "== valgrind memcheck"
build test_api_valgrind -O1
valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    "$out/test_api_valgrind"

echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
build test_api_asan -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# The suite asks for 2^62 bytes on purpose: the allocator must return NULL, not abort.
# (Its virtual-memory arenas reserve 8 MiB: valgrind refuses reservations of 64 GiB.)
ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:abort_on_error=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$out/test_api_asan"

echo "sanitizers: all clean"
