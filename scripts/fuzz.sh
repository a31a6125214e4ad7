#!/usr/bin/env bash
# Builds and runs every fuzz target in fuzz/ for a bounded time, one after the other,
# starting from the checked-in seeds (fuzz/corpus/<target>/seed-*).
#
#   scripts/fuzz.sh [seconds-per-target] [target...]
#
# Exits non-zero on the first crash, leak or timeout; libFuzzer writes the input to
# fuzz/artifacts/<target>/ (reproduce: cargo +nightly fuzz run -O -a <target> <file>;
# for malloc add the flags of `flags_for` below).
# New corpus entries go to a scratch directory, so the checked-in corpus stays small.
# One process, one thread per target (libFuzzer's default), so it shares a small machine.
# Needs a nightly toolchain and cargo-fuzz (installed from crates.io if missing).
set -euo pipefail

seconds="${1:-60}"
shift || true
cd "$(dirname "$0")/../fuzz"

# shellcheck source=scripts/fuzz-common.sh
. ../scripts/fuzz-common.sh

# -O: optimized; -a: with debug assertions, which check the core's invariants.
cargo +nightly fuzz build -O -a

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# fuzz_run NAME TARGET [cargo fuzz flags...]: runs TARGET for $seconds from its seeds,
# new inputs into $scratch/NAME; exits on a crash, leak or timeout.
fuzz_run() {
    local name=$1 target=$2
    shift 2
    echo "=== fuzz target $name: ${seconds}s"
    mkdir -p "$scratch/$name"
    # -rss_limit_mb: the targets allocate at most a few MiB per input; more is a leak.
    # (malloc passed 2 GiB twice, even with a fixed seed: one input held up to 64 blocks
    # of up to 64 MiB, all filled; its model now fills at most 256 MiB at once.)
    # Under CI the seed is fixed, so that a red run can be replayed.
    cargo +nightly fuzz run -O "$@" "$target" "$scratch/$name" "corpus/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 ${CI:+-seed=1} \
        -print_final_stats=1 2>&1 | grep -E -v '^#[0-9]+\s+(NEW|REDUCE|pulse)' || {
        echo "fuzz target $name failed" >&2
        exit 1
    }
}

for target in "${targets[@]}"; do
    # shellcheck disable=SC2046 # the flags are words
    fuzz_run "$target" "$target" -a $(flags_for "$target")
done
# `sync` once more with release arithmetic (no debug assertions, no overflow checks;
# fuzz/Cargo.toml turns both on): there a `LocalArena` that broke its alignment after a
# failed refill once wrapped `top - bottom` silently and handed out another handle's
# bytes, which only the target's own overlap and contents checks can then catch.
if [[ " ${targets[*]} " == *" sync "* ]]; then
    CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=false CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=false \
        fuzz_run sync-release-arithmetic sync --target-dir "$fuzz_target_dir/release-arithmetic"
fi
echo "all fuzz targets ran ${seconds}s each without a crash"
