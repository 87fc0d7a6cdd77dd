#!/bin/sh
# Called by meson: builds the binaries with cargo with the install paths
# baked in, and copies them where meson expects its outputs:
#   gearshift          the command line, built without the window's feature
#                      (no GTK, libadwaita or ksni); asked for the window or
#                      the tray it hands over to gearshift-window where that
#                      is installed (the gearshift package), else says which
#                      package brings them (the gearshift-cli package)
#   gearshift-window   the window, the tray and the command line (libexec)
#   gearshift-helper   the helper, built on its own, small (build-helper)
set -eu
src=$1 outdir=$3
export GEARSHIFT_LOCALEDIR=$4 GEARSHIFT_PKGDATADIR=$5 GEARSHIFT_HELPER_PATH=$6 GEARSHIFT_WINDOW_PATH=$7
# The source tree's target directory, so that a meson build shares what cargo
# already compiled (CARGO_TARGET_DIR overrides it). Both builds of
# gearshift leave their binary at the same path, and cargo keeps each one's
# compiled crates apart: copy each right after its build.
target=${CARGO_TARGET_DIR:-$src/target}
cargo build --release --locked --manifest-path "$src/Cargo.toml" --target-dir "$target" --bin gearshift
cp "$target/release/gearshift" "$outdir/gearshift-window"
cargo build --release --locked --no-default-features --manifest-path "$src/Cargo.toml" --target-dir "$target" --bin gearshift
cp "$target/release/gearshift" "$outdir/gearshift"
helper=$("$src/build-aux/build-helper" "$target")
cp "$helper" "$outdir/"
# The man page, generated from the command line's own definition.
cargo run --release --locked --quiet --manifest-path "$src/Cargo.toml" --target-dir "$target" \
  --example manpage -- "$outdir/gearshift.1"
