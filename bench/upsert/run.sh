#!/usr/bin/env bash
# Runs the upsert benchmark in its own virtual environment (.venv-bench at the repository root).
#
#   bench/upsert/run.sh SCENARIO|all [--scale S] [--engines a,b] [--keep-tables] [--work-dir DIR]
#   bench/upsert/run.sh --with-hudi SCENARIO ...   also build and install hudi-c into .venv-bench
#                                                  (HUDI_BENCH_WHEEL=path.whl: install that wheel instead)
#   bench/upsert/run.sh --report [--scale S]       regenerate docs/benchmarks.md and the charts
#
# Scenarios: rag-chunks training-set uuid nyc-taxi tpcds-web-returns. --scale 0.01 is the smoke
# run; 1.0 is the record. Exits non-zero if any engine's table differs from the expected one.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${HUDI_BENCH_VENV:-$repo/.venv-bench}"
req="$repo/dev/requirements-bench.txt"

with_hudi=0
if [ "${1:-}" = "--with-hudi" ]; then with_hudi=1; shift; fi
if [ $# -lt 1 ]; then sed -n '2,10p' "$0"; exit 2; fi

if [ ! -x "$venv/bin/python" ]; then
  echo "run.sh: creating $venv"
  "${PYTHON:-python3}" -m venv "$venv"
fi
stamp="$venv/.bench-requirements"
if ! cmp -s "$req" "$stamp" 2>/dev/null; then
  echo "run.sh: installing $req into $venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -r "$req"
  cp "$req" "$stamp"
fi
if [ "$with_hudi" = 1 ]; then
  if [ -n "${HUDI_BENCH_WHEEL:-}" ]; then
    echo "run.sh: installing $HUDI_BENCH_WHEEL into $venv"
    "$venv/bin/python" -m pip install -q --force-reinstall --no-deps "$HUDI_BENCH_WHEEL"
  else
    echo "run.sh: building and installing hudi-c into $venv"
    "$venv/bin/python" -m pip install -q "$repo"
  fi
fi

if [ "$1" = "--report" ]; then
  shift
  exec "$venv/bin/python" "$here/report.py" "$@"
fi
scenario="$1"; shift
exec "$venv/bin/python" "$here/bench.py" --scenario "$scenario" "$@"
