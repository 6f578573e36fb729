#!/usr/bin/env bash
# Installs the library from a build tree into a scratch prefix, then builds
# and runs a consumer with find_package(hudi) and with pkg-config.
# Usage: run.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S "$src/tests/install" -B "$prefix/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/consumer" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$prefix/consumer/consumer_cmake_shared"
"$prefix/consumer/consumer_cmake_static"
libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -1)
export PKG_CONFIG_PATH=$libdir
cc -std=c11 -Wall -Wextra -Werror "$src/tests/install/consumer.c" -o "$prefix/consumer_pc" \
  $(pkg-config --cflags --libs hudi)
LD_LIBRARY_PATH="$(dirname "$libdir")" "$prefix/consumer_pc"
# libhudi.a with the shared system libraries it needs (Requires.private):
# `pkg-config --static` would also ask for the static archives of curl's own
# dependencies, which Debian's -dev packages do not all ship.
cc -std=c11 "$src/tests/install/consumer.c" -o "$prefix/consumer_pc_static" \
  $(pkg-config --cflags hudi) "$(dirname "$libdir")/libhudi.a" \
  $(pkg-config --libs $(pkg-config --print-requires-private hudi)) -lpthread -lm
"$prefix/consumer_pc_static"
echo "install test: find_package and pkg-config consumers ran"
