#!/bin/sh
# Installs bumpdown into a temporary prefix with `make install`, then builds and runs the
# CMake consumer project beside this script against it, as a user would:
# find_package(bumpdown CONFIG), one program on bumpdown::bumpdown (the shared library),
# one on bumpdown::bumpdown_static. Also checks that make<T> refuses a type with a
# destructor, that the shared program finds libbumpdown.so through its RUNPATH (no
# LD_LIBRARY_PATH), that an installed copy does too, and that the package still works
# after the prefix is moved. Takes no arguments; exits non-zero on any failure.
# Honours CXX (the compiler), CMAKE (default: cmake), MAKE and TMPDIR.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
cmake=${CMAKE:-cmake}
work=$(mktemp -d "${TMPDIR:-/tmp}/bumpdown-cmake.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

fail() {
    echo "run.sh: $*" >&2
    exit 1
}

echo "== make install PREFIX=$prefix"
"${MAKE:-make}" -C "$root/crates/bumpdown-c" install PREFIX="$prefix"
ls -l "$prefix/lib/libbumpdown.a" "$prefix/lib/libbumpdown.so.0" "$prefix/lib/cmake/bumpdown"
# The static library stays lean (README, "The size of libbumpdown.a": 1,411,232 bytes on
# x86_64). Without LTO it is 3.9 MB, unstripped 7.7 MB, as a plain staticlib 22 MB.
size=$(wc -c <"$prefix/lib/libbumpdown.a")
echo "libbumpdown.a: $size bytes"
[ "$size" -lt 3000000 ] || fail "libbumpdown.a is $size bytes: the LTO build or the strip step is lost"
# Programs must not find the library through the environment: that would hide a missing
# RUNPATH.
unset LD_LIBRARY_PATH || true

echo "== configure and build the consumer"
"$cmake" -S "$here" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo
"$cmake" --build "$work/build" --parallel 2

# Runs a program, shows its output, and keeps its last line ("N passed, N failed").
run() {
    name=$(basename "$1")
    echo "== $name"
    "$1" >"$work/$name.log" 2>&1 || {
        cat "$work/$name.log"
        fail "$1 failed"
    }
    cat "$work/$name.log"
}
run "$work/build/consumer_shared"
run "$work/build/consumer_static"

echo "== linkage"
if command -v readelf >/dev/null 2>&1; then
    readelf -d "$work/build/consumer_shared" | grep -q 'NEEDED.*\[libbumpdown\.so\.0\]' ||
        fail "consumer_shared does not need libbumpdown.so.0"
    readelf -d "$work/build/consumer_shared" | grep -E -q "R(UN)?PATH.*$prefix/lib" ||
        fail "consumer_shared has no RUNPATH to $prefix/lib"
    if readelf -d "$work/build/consumer_static" | grep -q 'NEEDED.*libbumpdown'; then
        fail "consumer_static needs libbumpdown.so"
    fi
    echo "consumer_shared: NEEDED libbumpdown.so.0, RUNPATH $prefix/lib; consumer_static: no libbumpdown.so"
else
    echo "readelf not found: linkage not inspected"
fi

echo "== installed consumer (install RPATH)"
"$cmake" --install "$work/build" --prefix "$work/app" >/dev/null
"$work/app/bin/consumer_shared" >/dev/null 2>&1 || fail "the installed consumer_shared failed"
echo "installed consumer_shared runs"

echo "== make<T> refuses a type with a destructor"
printf '#include <bumpdown.hpp>\n#include <string>\nint main() { bumpdown::arena a; a.make<std::string>("x"); }\n' \
    >"$work/make_nontrivial.cpp"
if "${CXX:-c++}" -std=c++17 -fsyntax-only -I"$prefix/include" "$work/make_nontrivial.cpp" \
    >"$work/make_nontrivial.log" 2>&1; then
    fail "make<std::string> compiled; it must not (the arena never runs destructors)"
fi
grep -q "never runs destructors" "$work/make_nontrivial.log" || {
    cat "$work/make_nontrivial.log" >&2
    fail "make<std::string> failed to compile, but not on the static_assert"
}
echo "make<std::string> rejected by the static_assert"

echo "== the prefix moved elsewhere (relocatable package)"
mv "$prefix" "$work/moved"
"$cmake" -S "$here" -B "$work/build-moved" -DCMAKE_PREFIX_PATH="$work/moved" >/dev/null
"$cmake" --build "$work/build-moved" --target consumer_static >/dev/null
grep -q "$work/moved/lib/libbumpdown.a" "$work/build-moved/CMakeFiles/consumer_static.dir/link.txt" ||
    fail "the moved package does not point at the moved library"
"$work/build-moved/consumer_static" >/dev/null 2>&1 || fail "consumer_static built from the moved prefix failed"
echo "built and ran consumer_static from $work/moved"

echo "== passed"
echo "consumer_shared: $(tail -n 1 "$work/consumer_shared.log")"
echo "consumer_static: $(tail -n 1 "$work/consumer_static.log")"
