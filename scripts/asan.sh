#!/usr/bin/env bash
# AddressSanitizer over the core crate, with the arena's own annotations on
# (`--cfg bumpdown_asan`, see crates/bumpdown/src/asan.rs):
#  1. the test suites pass: no report from the annotations on correct code;
#  2. a planted read after `reset` (tests/asan_planted.rs) dies with a report.
# Needs nightly with rust-src (for -Zbuild-std).
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-unknown-linux-gnu
export RUSTFLAGS="-Zsanitizer=address --cfg bumpdown_asan"
export RUSTDOCFLAGS="$RUSTFLAGS"
# A target directory of its own (the sanitizer flags rebuild everything), beside
# cargo's usual one wherever that is.
CARGO_TARGET_DIR="$(scripts/target-dir.sh)/asan"
export CARGO_TARGET_DIR
# Leak checking stays on (the arena must give every chunk back); impossible sizes must
# come back as null, as from the system allocator, not abort (tests/bad_input.rs).
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
tests=(api bad_input buffered checkpoints chunks failure_injection fixed fuzz_regressions model panic_safety scopes sync vm allocator_api2)
args=()
for t in "${tests[@]}"; do args+=(--test "$t"); done

cargo +nightly test -Zbuild-std --target "$target" -p bumpdown --lib "${args[@]}" --test asan_planted

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if BUMPDOWN_PLANT_BUG=1 cargo +nightly test -Zbuild-std --target "$target" -p bumpdown --test asan_planted >"$log" 2>&1; then
    cat "$log"
    echo "asan.sh: the planted read after reset was not caught" >&2
    exit 1
fi
if ! grep -q "ERROR: AddressSanitizer: use-after-poison" "$log"; then
    cat "$log"
    echo "asan.sh: the planted bug failed without an AddressSanitizer report" >&2
    exit 1
fi
grep -m1 -A3 "ERROR: AddressSanitizer" "$log"
echo "asan.sh: suites clean, planted read after reset reported"
