#!/bin/sh
# Parquet write benchmark: hudi-c against pyarrow.parquet.write_table, same
# shapes, same settings, same run, 3 repetitions each.
#   bench/parquet_write_bench.sh BUILD_DIR [RAG_ROWS] [UUID_ROWS]
# BUILD_DIR: a configured and built hudi-c build directory (libhudi.a).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$1
rag_rows=${2:-1000000}
uuid_rows=${3:-10000000}
py=${HUDI_PYTHON:-$here/../.venv/bin/python}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I"$here/../src" -I"$here/../include" \
  "$here/parquet_write_bench.c" "$build/libhudi.a" \
  $(pkg-config --libs zlib libzstd liblz4 snappy libxxhash jansson libcurl libcrypto) -lpthread -lm -o "$out/bench"
echo "load: $(cat /proc/loadavg)"
for i in 1 2 3; do
  "$out/bench" rag "$rag_rows" "$out"
  "$py" "$here/parquet_write_bench.py" rag "$rag_rows" "$out"
  "$out/bench" uuid "$uuid_rows" "$out"
  "$py" "$here/parquet_write_bench.py" uuid "$uuid_rows" "$out"
  rm -f "$out"/*.parquet
done
echo "load: $(cat /proc/loadavg)"
