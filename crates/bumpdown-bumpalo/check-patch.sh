#!/usr/bin/env bash
# Proves the two ways of switching from bumpalo work, as a user would write them, in a
# scratch project outside the repository (crates.io must be reachable):
#   * a crate that depends on bumpalo from crates.io (as a dependency of yours would),
#     switched by one `[patch.crates-io]` line to ./bumpalo;
#   * the project's own `bumpalo = { package = "bumpdown-bumpalo", ... }` line.
# The two give the same `Bump` type (the scratch program passes one to the other), the
# patch is in effect (`cargo tree -i bumpalo` shows our path; cargo's "patch ... was not
# used" warning is a failure), and a requirement the facade cannot meet is reported.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bumpalo-patch.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR="$work/target"

mkdir -p "$work/dependency/src" "$work/app/src"
cat >"$work/dependency/Cargo.toml" <<TOML
[package]
name = "dependency"
version = "0.1.0"
edition = "2021"
[dependencies]
bumpalo = { version = "3.14", features = ["collections", "boxed"] }
TOML
cat >"$work/dependency/src/lib.rs" <<'RS'
#[macro_use]
extern crate bumpalo;
use bumpalo::collections::{CollectIn, Vec};
pub fn squares(bump: &bumpalo::Bump, n: u32) -> Vec<'_, u32> {
    let mut v = vec![in bump];
    v.extend((1..=n).map(|x| x * x));
    let _boxed = bumpalo::boxed::Box::new_in(1, bump);
    (0..v.len()).map(|i| v[i]).collect_in::<Vec<_>>(bump)
}
RS
cat >"$work/app/Cargo.toml" <<TOML
[package]
name = "app"
version = "0.1.0"
edition = "2021"
[dependencies]
dependency = { path = "../dependency" }
bumpalo = { package = "bumpdown-bumpalo", path = "$here" }
[patch.crates-io]
bumpalo = { path = "$here/bumpalo" }
TOML
cat >"$work/app/src/main.rs" <<'RS'
fn main() {
    let bump = bumpalo::Bump::new(); // bumpdown-bumpalo, through the app's own line
    let v = dependency::squares(&bump, 4); // the same type, through the patch
    assert_eq!(v.as_slice(), &[1, 4, 9, 16]);
    assert!(bump.stats().used > 0); // bumpdown's own API: this is bumpdown underneath
    println!("the dependency's bumpalo is bumpdown-bumpalo");
}
RS

cd "$work/app"
cargo tree -i bumpalo -e normal 2>"$work/tree.err" | tee "$work/tree.out"
if grep -q "was not used" "$work/tree.err"; then
  cat "$work/tree.err" >&2
  echo "check-patch: cargo did not use the patch" >&2
  exit 1
fi
grep -q "^bumpalo v.* ($here/bumpalo)" "$work/tree.out" || {
  echo "check-patch: cargo tree does not show bumpalo from $here/bumpalo" >&2
  exit 1
}
cargo run -q

# A requirement the facade cannot meet: cargo keeps crates.io's bumpalo and warns, and
# that warning is what the check above fails on.
sed -i 's/^bumpalo = { version = "3.14"/bumpalo = { version = "=3.16.0"/' "$work/dependency/Cargo.toml"
cargo tree -i bumpalo -e normal >/dev/null 2>"$work/tree.err" || true
grep -q "was not used" "$work/tree.err" || {
  echo "check-patch: a pinned bumpalo =3.16.0 did not report the unused patch" >&2
  exit 1
}
echo "check-patch: ok (patch in effect; an unmet requirement is reported as 'patch was not used')"
