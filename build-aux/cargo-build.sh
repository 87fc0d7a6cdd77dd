#!/bin/sh
# Called by meson: builds both binaries with cargo with the install paths
# baked in, and copies them where meson expects its outputs. The window and
# command line use the release profile; the helper is built on its own, small
# and linked statically (build-aux/build-helper).
set -eu
src=$1 outdir=$3
export GEARSHIFT_LOCALEDIR=$4 GEARSHIFT_PKGDATADIR=$5 GEARSHIFT_HELPER_PATH=$6
# The source tree's target directory, so that a meson build shares what cargo
# already compiled (CARGO_TARGET_DIR overrides it).
target=${CARGO_TARGET_DIR:-$src/target}
cargo build --release --locked --manifest-path "$src/Cargo.toml" --target-dir "$target" --bin gearshift
helper=$("$src/build-aux/build-helper" "$target")
cp "$target/release/gearshift" "$helper" "$outdir/"
# The man page, generated from the command line's own definition.
cargo run --release --locked --quiet --manifest-path "$src/Cargo.toml" --target-dir "$target" \
  --example manpage -- "$outdir/gearshift.1"
