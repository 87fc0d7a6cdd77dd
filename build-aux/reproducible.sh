# Sourced by build-aux/cargo-build.sh and build-aux/build-helper: the flags
# that make the binaries independent of where the sources lie
# (docs/packaging.md, "Reproducible builds"). The directory the tarball was
# unpacked in, with its vendored crates, and cargo's home leave no trace in
# the binaries; the build directory plays no part, the build's time none
# (nothing reads the clock or SOURCE_DATE_EPOCH at build time).
#   reproducible_rustflags SRC
reproducible_rustflags() {
  case " ${RUSTFLAGS:-} " in
    *" --remap-path-prefix=$1=/usr/src/gearshift "*) return 0 ;;
  esac
  RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=${CARGO_HOME:-${HOME:-/nonexistent}/.cargo}=/cargo --remap-path-prefix=$1=/usr/src/gearshift"
  export RUSTFLAGS
}
