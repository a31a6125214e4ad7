#!/usr/bin/env bash
# ThreadSanitizer over the SyncArena tests. Needs nightly with rust-src (-Zbuild-std:
# the standard library must be instrumented too, or every std synchronisation would be
# reported).
set -euo pipefail
cd "$(dirname "$0")/.."
export RUSTFLAGS="-Zsanitizer=thread"
export RUSTDOCFLAGS="$RUSTFLAGS"
export CARGO_TARGET_DIR=target/tsan
export TSAN_OPTIONS="halt_on_error=1"
cargo +nightly test -Zbuild-std --target x86_64-unknown-linux-gnu -p bumpdown --test sync
