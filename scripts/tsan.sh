#!/usr/bin/env bash
# ThreadSanitizer over the concurrent parts:
#  1. the SyncArena tests (bumpdown tests/sync.rs);
#  2. BumpGlobal as the global allocator of a many-thread stress program
#     (bumpdown-global tests/stress.rs), with a roomy and an exhausted reservation,
#     and two threads handing zone chunks to each other through a zone's free bitmap
#     (tests/zones.rs);
#  3. a planted race on one heap shared by two threads (tests/tsan_planted.rs) dies
#     with a report, so a run in which TSan is silently off cannot pass.
# Needs nightly with rust-src (-Zbuild-std: the standard library must be instrumented
# too, or every std synchronisation would be reported).
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-unknown-linux-gnu
export RUSTFLAGS="-Zsanitizer=thread"
export RUSTDOCFLAGS="$RUSTFLAGS"
# A target directory of its own (the sanitizer flags rebuild everything), beside
# cargo's usual one wherever that is.
CARGO_TARGET_DIR="$(scripts/target-dir.sh)/tsan"
export CARGO_TARGET_DIR
export TSAN_OPTIONS="halt_on_error=1"

cargo +nightly test -Zbuild-std --target "$target" -p bumpdown --test sync
cargo +nightly test -Zbuild-std --target "$target" -p bumpdown-global --test stress --test zones --test tsan_planted

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if BUMPDOWN_PLANT_BUG=1 cargo +nightly test -Zbuild-std --target "$target" -p bumpdown-global \
    --test tsan_planted >"$log" 2>&1; then
    cat "$log"
    echo "tsan.sh: the planted race was not caught" >&2
    exit 1
fi
if ! grep -q "WARNING: ThreadSanitizer: data race" "$log"; then
    cat "$log"
    echo "tsan.sh: the planted race failed without a ThreadSanitizer report" >&2
    exit 1
fi
grep -m1 -A4 "WARNING: ThreadSanitizer" "$log"
echo "tsan.sh: suites clean, planted race reported"
