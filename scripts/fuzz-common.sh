# Sourced by scripts/fuzz.sh and scripts/fuzz-campaign.sh, from fuzz/: what both need
# before they run a target. After it: cargo-fuzz is installed, `targets` holds the
# targets named on the command line (or every target), and `flags_for TARGET` prints the
# extra `cargo fuzz` flags of that target.

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

# malloc runs without AddressSanitizer (ASan replaces __libc_memalign, which the
# allocator's glibc fallback pairs with __libc_free; see fuzz/fuzz_targets/malloc.rs),
# built in a target directory of its own so the two builds do not undo each other.
fuzz_target_dir="$(../scripts/target-dir.sh "$PWD/Cargo.toml")"
flags_for() {
    if [ "$1" = malloc ]; then
        echo "-s none --target-dir $fuzz_target_dir/no-sanitizer"
    fi
}
