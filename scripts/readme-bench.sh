#!/bin/sh
# Stores a run of the report under docs/bench/ and makes the README's benchmark section
# from it:
#   scripts/readme-bench.sh          measure (`--full`), then store and render
#   scripts/readme-bench.sh --keep   store and render the last run in cargo's target directory
#   scripts/readme-bench.sh --render render the stored run again (after a change to the renderer)
# The section is `render --readme docs/bench/results.json`, between "## Benchmarks" and
# its end marker; crates/bumpdown-bench/tests/readme.rs fails when the two disagree.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
mode=${1:-measure}
case "$mode" in
    measure | --keep | --render) ;;
    *) echo "usage: scripts/readme-bench.sh [--keep | --render]" >&2; exit 2 ;;
esac
if [ "$mode" = measure ]; then
    cargo run --release -p bumpdown-bench -- --full
fi
if [ "$mode" != --render ]; then
    report="$(scripts/target-dir.sh)/bumpdown-report"
    [ -f "$report/results.json" ] || { echo "readme-bench.sh: no $report/results.json" >&2; exit 1; }
    cp "$report/results.json" docs/bench/
fi
# The charts and the section, both drawn from the stored file.
out=$(mktemp -d)
section=$(mktemp)
trap 'rm -rf "$out" "$section"' EXIT
cargo run --release -q -p bumpdown-bench -- render --out "$out" docs/bench/results.json > /dev/null
cp "$out"/*.svg docs/bench/
cargo run --release -q -p bumpdown-bench -- render --readme docs/bench/results.json > "$section"
# Replace the lines from "## Benchmarks" to the end marker (or, the first time, to the
# line before the next "## " heading) with the rendered section.
awk -v file="$section" '
    /^## Benchmarks$/ && !done { while ((getline line < file) > 0) print line; skipping = 1; done = 1; next }
    skipping && /^<!-- End of the section generated from / { skipping = 0; next }
    skipping && /^## / { skipping = 0; print ""; print; next }
    !skipping { print }
' README.md > README.md.new
mv README.md.new README.md
echo "README.md's benchmark section now renders docs/bench/results.json ($(grep -o '"date": *"[^"]*"' docs/bench/results.json | head -1))"
