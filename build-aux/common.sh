# Shared by build-aux/run and build-aux/test: package installation that asks
# for sudo only when it must, and only for what is missing.

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  else
    echo "gearshift: needs root for: $*" >&2
    sudo "$@"
  fi
}

# Prints, one a line, the Debian/Ubuntu packages given that are not
# installed yet (asks dpkg only: installs nothing; ./build-aux/run --dry-run).
missing_packages() {
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || echo "$pkg"
  done
}

# Installs the Debian/Ubuntu packages given that are not installed yet.
need_packages() {
  local missing=()
  mapfile -t missing < <(missing_packages "$@")
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "gearshift: installing ${missing[*]}" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

# The packages needed to build Gearshift.
# gtk-update-icon-cache and desktop-file-utils refresh the icon cache and
# desktop database after meson install (gnome.post_install).
BUILD_PACKAGES=(pkg-config gcc libc6-dev libglib2.0-bin libgtk-4-dev libadwaita-1-dev gettext gtk-update-icon-cache desktop-file-utils)

# Makes sure cargo is there (Debian's own is too old for relm4).
need_cargo() {
  if ! command -v cargo >/dev/null; then
    [ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
  fi
  if ! command -v cargo >/dev/null; then
    echo "gearshift: Rust is not installed. Install it with rustup (https://rustup.rs):" >&2
    echo "  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh" >&2
    exit 1
  fi
}

# step TITLE: ends the step before with its time, and prints TITLE;
# step_end ends the last one (./build-aux/test, build-aux/check-release).
step() {
  step_end
  step_started=$SECONDS
  printf '\n== %s\n' "$*"
}
step_end() {
  [ -z "${step_started:-}" ] || printf '(%d s)\n' $((SECONDS - step_started))
  step_started=
}
