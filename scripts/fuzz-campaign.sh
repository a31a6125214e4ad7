#!/usr/bin/env bash
# The long fuzz campaign: every target of fuzz/ to a number of executions (default ten
# million), then its corpus minimised, then the line coverage that all the minimised
# corpora reach together of the crates/bumpdown/src code linked into the targets. Prints a markdown table (target, executions,
# crashes, seconds, corpus inputs, line coverage of each) and the coverage line, for docs/SAFETY.md.
#
#   scripts/fuzz-campaign.sh [executions-per-target] [target...]
#   FUZZ_SECONDS=3600 scripts/fuzz-campaign.sh 10000000 arena   # at most an hour of it
#   scripts/fuzz-campaign.sh 0                # every corpus replayed, and the coverage
#
# On demand, not in CI (ten million executions of every target take many hours on two
# cores; CI runs scripts/fuzz.sh's short smoke). The minimised corpora stay in
# <fuzz target dir>/campaign/<target>/ for the next campaign to start from; copy the few
# worth keeping into fuzz/corpus/<target>/seed-* by hand. A crash stops nothing: the
# table counts it, and libFuzzer leaves the input in fuzz/artifacts/<target>/.
#
# A slow target can be run in parts (FUZZ_SECONDS bounds each run): every run appends a
# line to <fuzz target dir>/campaign/<target>.ledger (date, commit, executions, crashes,
# seconds), and the table gives this run's executions and the ledger's total, each part
# having started from the corpus the previous one left.
# Needs nightly, cargo-fuzz (installed if missing) and llvm-tools (added if missing).
set -euo pipefail

runs="${1:-10000000}"
shift || true
cd "$(dirname "$0")/../fuzz"

# shellcheck source=scripts/fuzz-common.sh
. ../scripts/fuzz-common.sh
rustup component add llvm-tools-preview --toolchain nightly >/dev/null
target_dir="$fuzz_target_dir"
campaign="$target_dir/campaign"
mkdir -p "$campaign"

# Per target: its table row (without the coverage), and the line coverage of the core
# code linked into its binary.
declare -A rows cover
for target in "${targets[@]}"; do
    corpus="$campaign/$target"
    mkdir -p "$corpus"
    log="$campaign/$target.log"
    echo "=== $target: $runs executions"
    start=$SECONDS
    crashes=0
    # -O -a: optimised, with debug assertions (the core's invariant checks).
    # shellcheck disable=SC2046 # the flags are words
    if ! cargo +nightly fuzz run -O -a $(flags_for "$target") "$target" "$corpus" "corpus/$target" -- \
        -runs="$runs" ${FUZZ_SECONDS:+-max_total_time="$FUZZ_SECONDS"} \
        -rss_limit_mb=2048 -timeout=30 -print_final_stats=1 >"$log" 2>&1; then
        crashes=1
    fi
    seconds=$((SECONDS - start))
    done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    # shellcheck disable=SC2046
    cargo +nightly fuzz cmin -O -a $(flags_for "$target") "$target" "$corpus" >>"$log" 2>&1
    inputs=$(find "$corpus" -type f | wc -l)
    ledger="$campaign/$target.ledger"
    # Zero executions only replays the corpus (for the coverage): not a part of the campaign.
    if [ "$runs" -gt 0 ]; then
        echo "$(date -u +%F) $(git rev-parse --short HEAD) ${done_runs:-0} $crashes $seconds" >>"$ledger"
    fi
    total=0 parts=0
    if [ -f "$ledger" ]; then
        total=$(awk '{ n += $3 } END { print n }' "$ledger")
        parts=$(wc -l <"$ledger")
    fi
    rows[$target]="$target | ${done_runs:-?} | $total in $parts run(s) | $crashes | $seconds | $inputs"
    tail -n 3 "$log"
done

echo "=== coverage of crates/bumpdown/src (all minimised corpora together)"
sysroot="$(rustc +nightly --print sysroot)"
bin="$(find "$sysroot/lib/rustlib" -path '*/bin/llvm-cov' | head -n 1)"
profdata="$(dirname "$bin")/llvm-profdata"
mapfile -t sources < <(find "$PWD/../crates/bumpdown/src" -name '*.rs' | sort)
# line_coverage PROFDATA OBJECT [-object OBJECT...]: the line cover% of `sources`.
line_coverage() {
    local profile=$1
    shift
    # TOTAL regions missed cover% functions missed exec% lines missed cover% ...
    "$bin" report "$@" -instr-profile="$profile" "${sources[@]}" | awk '/^TOTAL/ {print $10}'
}
objects=()
profiles=()
for target in "${targets[@]}"; do
    [ "$target" = malloc ] && continue # the core's code is reached by the others
    # cargo fuzz coverage ignores CARGO_TARGET_DIR (it builds into fuzz/target/ unless
    # told): give it a directory under cargo's, where the `find` below looks.
    cargo +nightly fuzz coverage --target-dir "$target_dir/coverage" "$target" "$campaign/$target" \
        >>"$campaign/$target.log" 2>&1
    profiles+=("coverage/$target/coverage.profdata")
    binary="$(find "$target_dir" -path "*/coverage/*/release/$target" -type f | head -n 1)"
    cover[$target]=$(line_coverage "coverage/$target/coverage.profdata" "$binary")
    # llvm-cov takes the first binary as an argument, the others after -object.
    if [ "${#objects[@]}" -eq 0 ]; then objects+=("$binary"); else objects+=(-object "$binary"); fi
done
line_cover="not measured (malloc alone links none of the core's code)"
if [ "${#profiles[@]}" -gt 0 ]; then
    "$profdata" merge -sparse "${profiles[@]}" -o "$campaign/all.profdata"
    line_cover=$(line_coverage "$campaign/all.profdata" "${objects[@]}")
fi

echo
echo "Command: scripts/fuzz-campaign.sh $runs ${targets[*]}"
echo
echo "| target | executions | executions, ledger total | crashes | seconds | corpus inputs (minimised) | line coverage, its binary |"
echo "|---|---|---|---|---|---|---|"
for target in "${targets[@]}"; do
    echo "| ${rows[$target]} | ${cover[$target]:-—} |"
done
echo
# llvm-cov counts only the code linked into the binaries: functions of the core that no
# target calls are in neither the numerator nor the denominator.
echo "Line coverage by the minimised corpora, of the crates/bumpdown/src code linked into these targets: $line_cover"
