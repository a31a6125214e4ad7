#!/usr/bin/env bash
# Miri over the core crate's tests, in two lanes that run at once (Miri interprets on one
# core, so two lanes use a two-core machine fully; each lane has its own target
# directory, because cargo holds a target directory's lock while its tests run):
#
#   lane 1: Stacked Borrows over the heaviest concurrent tests and the scopes, then Tree
#           Borrows over VmArena, SyncArena (its lanes, and sync.rs), failure injection,
#           panic safety, checkpoints and the scopes;
#   lane 2: Stacked Borrows over the library's unit tests and every other test file,
#           then Tree Borrows over the collections, fuzz regressions and the fixed and
#           buffer arenas.
#
# Every run uses strict provenance. A lane's output is printed when it ends, each line
# with the seconds since the lane began; the script fails when either lane failed. Used
# by .ci/run. On the two-core VM the lanes gain less than two cores would give (the two
# Miri processes slow each other). What a test file costs is mostly the bytes it fills
# and checks one at a time, which Tree Borrows makes dearer still: `cfg(miri)` scales
# those down (see the tests; `common::all_bytes_are` compares with `memcmp`, which Miri
# runs natively). With the cuts of
# 2026-11-27 (a CI rehearsal; before them, the two lanes took 2,684 s and 1,710 s), the
# lanes took 1,047 s and 1,379 s, the slowest files under Tree Borrows being sync_lanes.rs
# (300 s), sync.rs (270 s), scopes.rs (270 s), vm.rs (180 s) and failure_injection.rs
# (120 s), and under Stacked Borrows chunks.rs (150 s) and conformance.rs (110 s).
# Then the fills of scopes.rs, vm.rs and chunks.rs that no test reads back became
# `alloc_layout` (or one `write_bytes`), the sync_lanes.rs claim test kept fewer live
# references, and Tree Borrows over failure injection and panic safety (200 s) moved
# from lane 2 to lane 1: lane 1 1,081 s, lane 2 967 s (this script alone, quiet). Lane
# 1's largest items were then Tree Borrows over sync.rs (300 s) and sync_lanes.rs (280 s).
# The sync_lanes.rs claim test's cost was not its steps (130, 260 or 520 took the same):
# with the same steps it took 30 s or 160 s by Miri's schedule alone (a changed
# environment, or another seed), every phase of it, the checks after the join included,
# four times slower; why, inside Tree Borrows, is not known. It kept 4,680 `&mut u64`
# alive in one chunk; with a row of eight words a step instead (an eighth of the tags)
# the file takes 68 s under every schedule tried, and it still reports the data race
# when the claim's orderings are `Relaxed`. sync.rs, with fewer rounds in its three
# slowest tests, takes 187 s.
# Checkpoints and scopes under Tree Borrows moved to lane 1: lane 1 766 s, lane 2 832 s
# before the scopes moved (42 s of lane 2; 2026-11-27, beside a fuzz run at nice 19).
#
# Under Tree Borrows, `every_failure_leaves_the_vm_arena_consistent` is left to Stacked
# Borrows: it took 220 s there alone (about 80 s under Stacked Borrows), for operations
# that the other vm.rs tests run under Tree Borrows too (limits hit, a full reservation,
# rewinds).
#
#   scripts/miri.sh
set -uo pipefail
cd "$(dirname "$0")/.."

target=$(scripts/target-dir.sh)
logs="$target/miri-lanes"
mkdir -p "$logs"

# The test files of lane 1 (Stacked Borrows); lane 2 runs the library and all the others.
lane1_sb=(sync sync_lanes scopes)
# Tree Borrows: lane 1 over these, lane 2 over those (balanced by the lanes' stamped logs).
lane1_tb=(vm sync_lanes sync failure_injection panic_safety checkpoints scopes)
lane2_tb=(collections collections_edit fuzz_regressions fixed buffered)

tests_flags() {
    for name in "$@"; do printf -- '--test %s ' "$name"; done
}

lane2_sb() {
    # Every file of tests/ not in lane 1, so a new test file is covered without an edit here.
    local name skip
    for file in crates/bumpdown/tests/*.rs; do
        name=$(basename "$file" .rs)
        skip=0
        for taken in "${lane1_sb[@]}"; do [ "$name" = "$taken" ] && skip=1; done
        [ $skip = 1 ] || printf -- '--test %s ' "$name"
    done
}

sb="-Zmiri-strict-provenance"
tb="-Zmiri-strict-provenance -Zmiri-tree-borrows"

lane1() {
    export CARGO_TARGET_DIR="$target/miri-lane1"
    # shellcheck disable=SC2046 # one word per flag
    MIRIFLAGS="$sb" cargo +nightly miri test -p bumpdown $(tests_flags "${lane1_sb[@]}") &&
        MIRIFLAGS="$tb" cargo +nightly miri test -p bumpdown $(tests_flags "${lane1_tb[@]}") -- \
            --skip every_failure_leaves_the_vm_arena_consistent
}

lane2() {
    export CARGO_TARGET_DIR="$target/miri-lane2"
    # shellcheck disable=SC2046
    MIRIFLAGS="$sb" cargo +nightly miri test -p bumpdown --lib $(lane2_sb) &&
        MIRIFLAGS="$tb" cargo +nightly miri test -p bumpdown $(tests_flags "${lane2_tb[@]}")
}

# Each lane notes its own duration at its end, and every line of its output the seconds
# since the lane began, so that the lanes can be balanced file by file (the second `wait`
# returns when both have ended).
timed() {
    local lane=$1 begin=$SECONDS status line
    "$lane" 2>&1 | while IFS= read -r line; do printf '[%5ds] %s\n' "$((SECONDS - begin))" "$line"; done
    status=${PIPESTATUS[0]}
    echo "$((SECONDS - begin))" >"$logs/$lane.seconds"
    return $status
}
rm -f "$logs"/lane?.seconds
timed lane1 >"$logs/lane1.log" 2>&1 &
pid1=$!
timed lane2 >"$logs/lane2.log" 2>&1 &
pid2=$!
wait $pid1
status1=$?
echo "--- lane 1 (Stacked Borrows: ${lane1_sb[*]}; Tree Borrows: ${lane1_tb[*]}): exit $status1, $(cat "$logs/lane1.seconds") s"
cat "$logs/lane1.log"
wait $pid2
status2=$?
echo "--- lane 2 (Stacked Borrows: the library and every other test file; Tree Borrows: ${lane2_tb[*]}): exit $status2, $(cat "$logs/lane2.seconds") s"
cat "$logs/lane2.log"
[ $status1 = 0 ] && [ $status2 = 0 ]
