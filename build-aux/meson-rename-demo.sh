#!/bin/sh
# The demo snapshot is installed from tests/fixtures/meteor-lake-155h and
# lives as <pkgdatadir>/demo.
set -eu
dir="${DESTDIR:-}$1"
rm -rf "$dir/demo"
mv "$dir/meteor-lake-155h" "$dir/demo"
