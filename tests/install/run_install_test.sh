#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds an outside program against it
# twice: with CMake's find_package(cdyn) (shared and static targets) and with pkg-config.
# Usage: run_install_test.sh BUILD_DIR CONSUMER_SOURCE_DIR
set -euo pipefail
build=$1
consumer=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(find "$prefix" -name 'libcdyn.so' -printf '%h\n' | head -n 1)

# SONAME must carry the major version.
soname=$(objdump -p "$libdir/libcdyn.so" | awk '/SONAME/ {print $2}')
case "$soname" in libcdyn.so.[0-9]*) ;; *) echo "bad SONAME: $soname"; exit 1 ;; esac

echo "-- find_package(cdyn)"
cmake -S "$consumer" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cmake-build" >/dev/null
"$tmp/cmake-build/consumer_shared"
"$tmp/cmake-build/consumer_static"

echo "-- pkg-config cdyn"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc -std=c11 -Wall -Wextra -Werror "$consumer/consumer.c" -o "$tmp/pc_consumer" \
  $(pkg-config --cflags --libs cdyn) -lm
LD_LIBRARY_PATH="$libdir" "$tmp/pc_consumer"
echo "-- pkg-config with the README's run-time path (no LD_LIBRARY_PATH)"
cc -std=c11 -Wall -Wextra -Werror "$consumer/consumer.c" -o "$tmp/pc_rpath_consumer" \
  $(pkg-config --cflags --libs cdyn) -lm -Wl,-rpath,"$(pkg-config --variable=libdir cdyn)"
env -u LD_LIBRARY_PATH "$tmp/pc_rpath_consumer"
echo "-- installed cdyn-lcp (finds libcdyn through its RUNPATH)"
"$prefix/bin/cdyn-lcp" --help >/dev/null
echo "install test passed"
