#!/usr/bin/env bash
# Runs the test suites of published crates that use bumpalo, against bumpdown's bumpalo
# facade (crates/bumpdown-bumpalo/bumpalo), as a user whose dependencies use bumpalo
# would switch: one `[patch.crates-io]` entry.
#
#   scripts/dependents.sh                    every crate below (about 10 minutes on 2 cores)
#   scripts/dependents.sh --quick            the small ones only (what CI runs), then the
#                                            broken-facade self-test
#   scripts/dependents.sh --selftest-broken  only the self-test: a facade built with
#                                            `--cfg bumpdown_bumpalo_broken` (alloc_str
#                                            drops the last byte) must fail a dependent
#   scripts/dependents.sh --keep ...         keep the downloaded sources (path printed)
#   scripts/dependents.sh --only NAME        that crate only
#   scripts/dependents.sh --known            also the crates known to fail (listed below)
#
# For each crate: download the exact version pinned here from crates.io (its checksum
# checked against the registry index), make it a workspace of its own with the patch,
# PROVE the patch is in effect (`cargo tree -i bumpalo` shows the facade's path, and
# cargo's "patch ... was not used" warning is a failure), run `cargo test`, and count
# the tests. Prints a markdown table; exits non-zero if a crate fails, or if the patch
# is not in effect for one.
#
# Nothing third-party is kept in the repository: sources go to a temporary directory,
# builds to `dependents/` under cargo's target directory (scripts/target-dir.sh, so
# CARGO_TARGET_DIR is honoured). DEPENDENTS_JOBS=N passes `-j N` to cargo.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
facade="$repo/crates/bumpdown-bumpalo/bumpalo"

# name | version | set (quick: CI too; full: on demand; known: known to fail, --known) |
#   `cargo test` arguments | what of bumpalo its tests exercise
# Versions are pinned: a new release of a crate must not change what this script tests.
crates=(
  "bumpalo-herd|0.1.3|quick||Bump per thread, handed between threads: alloc, alloc_str, reset (Send)"
  "hashbrown|0.15.5|full||allocator-api2 0.2 with hashbrown: HashMap/HashTable new_in(&bump) (doc tests)"
  "bumparaw-collections|0.1.4|full||collections::Vec and its IntoIter, serde feature, allocator-api2 with hashbrown, alloc_str"
  "allocative|0.3.4|quick|--features bumpalo|chunk iteration: iter_allocated_chunks_raw and allocated_bytes"
  "uell|0.1.0|full||boxed::Box of a layout from alloc_layout: from_raw, leak, drop order (quickcheck)"
  "sycamore-reactive|0.8.1|full||boxed::Box of any value into_raw, kept as a dyn pointer, back through Box<dyn Trait>::from_raw and dropped in reverse; one Bump per reactive scope"
  # Its own `Allocator` derefs to `Bump`, and it calls `String::from_str_in(s, allocator)`
  # with `&Allocator`: the facade's constructors take `&'bump Bump`, as bumpalo's, so the
  # compiler deref-coerces it (a constructor generic over the arena would not compile).
  "oxc_allocator|0.46.0|full||alloc through its Allocator's Deref to Bump, allocator-api2 Vec over &Bump (grow, into_boxed_slice, serde); builds only if String::from_str_in(s, &Allocator) deref-coerces"
  # Known to fail (run with --known): none at the moment. A line whose set is `known`
  # runs only with --known (or --only); put the reason above it.
)

mode=full
keep=0
known=0
only=
while [ $# -gt 0 ]; do
  arg=$1; shift
  case "$arg" in
    --quick) mode=quick ;;
    --known) known=1 ;;
    --only) only=$1; shift ;;
    --selftest-broken) mode=selftest ;;
    --keep) keep=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "dependents.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done

target_root="$("$repo/scripts/target-dir.sh")/dependents"
work=$(mktemp -d "${TMPDIR:-/tmp}/bumpdown-dependents.XXXXXX")
if [ "$keep" = 1 ]; then
  echo "dependents.sh: sources kept in $work"
else
  trap 'rm -rf "$work"' EXIT
fi
jobs=()
[ -n "${DEPENDENTS_JOBS:-}" ] && jobs=(-j "$DEPENDENTS_JOBS")

# The registry index's path for a crate name of 4 or more characters.
index_url() { echo "https://index.crates.io/${1:0:2}/${1:2:2}/$1"; }

# Downloads NAME-VERSION into $work/NAME-VERSION and checks its sha256 against the index.
fetch() {
  local name=$1 version=$2 file="$work/$1-$2.crate" want got
  curl -sSfL --retry 3 -o "$file" "https://static.crates.io/crates/$name/$name-$version.crate"
  want=$(curl -sSfL --retry 3 "$(index_url "$name")" | python3 -c '
import json, sys
for line in sys.stdin:
    entry = json.loads(line)
    if entry["vers"] == sys.argv[1]:
        print(entry["cksum"])' "$version")
  got=$(sha256sum "$file" | cut -d' ' -f1)
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    echo "dependents.sh: $name $version: checksum ${got} does not match the index's '${want}'" >&2
    return 1
  fi
  tar xzf "$file" -C "$work"
}

# Makes the unpacked crate a workspace of its own whose bumpalo is the facade.
patch_manifest() {
  cat >>"$1/Cargo.toml" <<TOML

# Added by bumpdown's scripts/dependents.sh:
[workspace]

[patch.crates-io]
bumpalo = { path = "$facade" }
TOML
}

# Proves the patch is in effect for the crate in $1 built with the features in $2...:
# cargo resolves bumpalo to the facade's path, and says nothing about an unused patch.
prove_patch() {
  local dir=$1; shift
  local out="$dir/.tree.out" err="$dir/.tree.err"
  if ! (cd "$dir" && cargo tree -i bumpalo --edges normal,dev "$@" >"$out" 2>"$err"); then
    cat "$err" >&2
    return 1
  fi
  if grep -q "was not used" "$err"; then
    grep "was not used" -A3 "$err" >&2
    return 1
  fi
  grep -q "^bumpalo v[0-9.]* ($facade)" "$out" || {
    echo "dependents.sh: cargo tree does not show bumpalo from $facade:" >&2
    head -5 "$out" >&2
    return 1
  }
}

# Sums cargo test's "test result:" lines of the log in $1: prints "passed failed ignored".
count_tests() {
  python3 - "$1" <<'PY'
import re, sys
passed = failed = ignored = 0
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", line)
    if m:
        passed += int(m[1]); failed += int(m[2]); ignored += int(m[3])
print(passed, failed, ignored)
PY
}

rows=()
bad=0
# Runs one crate's suite; appends a table row. $1: the crate's line above; $2: the
# target directory; returns 1 if the suite failed or the patch was not in effect.
run_crate() {
  local name version quick args what
  IFS='|' read -r name version quick args what <<<"$1"
  local dir="$work/$name-$version" log="$work/$name-$version.log" start=$SECONDS
  local -a argv=()
  [ -n "$args" ] && read -r -a argv <<<"$args"
  printf '\n--- %s %s: %s\n' "$name" "$version" "$what"
  # (run_crate runs inside `if`, where `set -e` is off: each step checks for itself.)
  if [ ! -d "$dir" ]; then
    fetch "$name" "$version" || return 1
    patch_manifest "$dir" || return 1
  fi
  (cd "$dir" && cargo generate-lockfile -q) || return 1
  local patch="in effect"
  if ! prove_patch "$dir" "${argv[@]}"; then
    patch="NOT in effect"
    rows+=("| $name | $version | $what | $patch | - | - | - | - | - |")
    return 1
  fi
  echo "patch in effect: $(grep -m1 '^bumpalo v' "$dir/.tree.out")"
  local status=0
  (cd "$dir" && CARGO_TARGET_DIR="$2" cargo test "${jobs[@]}" --no-fail-fast "${argv[@]}" 2>&1) >"$log" || status=$?
  local passed failed ignored
  read -r passed failed ignored < <(count_tests "$log")
  local result=ok
  if [ "$status" != 0 ]; then
    result=FAILED
    [ "$((passed + failed))" = 0 ] && result="FAILED (no test ran)"
    grep -E "^(error|test .* FAILED|---- )|panicked at" "$log" | head -20 >&2 || true
  fi
  echo "$result: $((passed + failed)) tests run, $passed passed, $failed failed, $ignored ignored ($((SECONDS - start)) s)"
  rows+=("| $name | $version | $what | $patch | $((passed + failed)) | $passed | $failed | $ignored | $result |")
  [ "$status" = 0 ]
}

print_table() {
  printf '\n| crate | version | what its tests exercise | patch | tests run | passed | failed | ignored | result |\n'
  printf '|---|---|---|---|---|---|---|---|---|\n'
  printf '%s\n' "${rows[@]}"
}

# The broken facade (see crates/bumpdown-bumpalo/src/broken.rs) must make the first
# quick crate fail its suite: the suites can see a wrong byte.
selftest_broken() {
  local line=${crates[0]} log
  printf '\n=== self-test: the facade built with --cfg bumpdown_bumpalo_broken must fail %s\n' "${line%%|*}"
  # A target directory of its own: the flag rebuilds everything.
  if RUSTFLAGS="${RUSTFLAGS:-} --cfg bumpdown_bumpalo_broken" run_crate "$line" "$target_root/broken"; then
    echo "dependents.sh: ${line%%|*} passed against a broken facade: its suite cannot see the planted bug" >&2
    return 1
  fi
  log="$work/$(echo "$line" | cut -d'|' -f1)-$(echo "$line" | cut -d'|' -f2).log"
  local failed
  failed=$(count_tests "$log" | cut -d' ' -f2)
  if [ "$failed" -lt 1 ]; then
    echo "dependents.sh: the broken build failed, but no test failed (a build error is not the point)" >&2
    return 1
  fi
  echo "self-test: ok ($failed test(s) of ${line%%|*} failed against the broken facade, as they must)"
}

echo "facade: $facade"
echo "builds: $target_root"
if [ "$mode" != selftest ]; then
  for line in "${crates[@]}"; do
    kind=$(echo "$line" | cut -d'|' -f3)
    [ -n "$only" ] && [ "${line%%|*}" != "$only" ] && continue
    [ "$mode" = quick ] && [ "$kind" != quick ] && continue
    [ "$kind" = known ] && [ "$known" = 0 ] && [ -z "$only" ] && continue
    run_crate "$line" "$target_root/ok" || bad=1
  done
  print_table
  [ "$bad" = 0 ] || { echo "dependents.sh: a dependent failed against the facade" >&2; exit 1; }
fi
if [ "$mode" != full ]; then
  rows=()
  selftest_broken
fi
echo "dependents.sh: ok ($SECONDS s)"
