#!/bin/sh
# Called by meson: builds the binaries with cargo with the install paths
# baked in, and copies them where meson expects its outputs:
#   gearshift          the command line, built without the window's feature
#                      (no GTK, libadwaita or ksni); asked for the window or
#                      the tray it hands over to gearshift-window where that
#                      is installed beside it (the gearshift package), else
#                      says which package brings them (the gearshift-cli
#                      package)
#   gearshift-window   the window, the tray and the command line (libexec)
#   gearshift-helper   the helper, built on its own, small (build-helper)
# No libexec path is baked in: the programs find each other relative to
# where they are installed (src/client/install.rs), so that one build serves
# Debian's and Fedora's /usr/libexec and Arch's /usr/lib. A second meson
# build directory of the same source tree (another distribution's layout)
# finds cargo's work done: docs/packaging.md.
set -eu
src=$(cd "$1" && pwd) outdir=$(cd "$3" && pwd)
export GEARSHIFT_LOCALEDIR=$4 GEARSHIFT_PKGDATADIR=$5
# Reproducible binaries, wherever the sources lie.
. "$src/build-aux/reproducible.sh"
reproducible_rustflags "$src"
# cargo reads its configuration (the tarball's vendored crates:
# .cargo/config.toml) from the directory it runs in, not the manifest's.
cd "$src"
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
