#!/usr/bin/env bash
# Builds everything and runs every test tier:
#   1. C unit tests, fuzz-corpus replays and C examples (ctest, release build),
#   2. the same under AddressSanitizer + UndefinedBehaviorSanitizer,
#   3. the same under valgrind (memcheck),
#   4. interop: Apache Spark + Hudi and hudi-rs as oracles (tests/interop, set up by
#      dev/setup-interop.sh outside the repo),
#   5. the upsert benchmark at smoke scale, checked against its oracle (bench/upsert),
#   6. the Python package (pip install . into .venv) and its pytest suite.
# Exits non-zero when any tier fails; the last lines are the runners' summaries.
set -uo pipefail
cd "$(dirname "$0")/.."
dev/setup.sh || exit 1
# Loopback object-store servers (moto, the S3 stub) for the storage tests.
dev/setup-objstore.sh || exit 1

JOBS=$(nproc 2>/dev/null || echo 2)
status=0
summary=()

LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS"' EXIT
tier() { # name, then the command; keeps the runner's last summary line
  local name=$1; shift
  local log="$LOGS/tier${#summary[@]}"
  echo
  echo "=== $name ==="
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local last
  last=$(grep -E 'tests passed|tests failed| passed| failed|error' "$log" | tail -n 1)
  if [ "$rc" -eq 0 ]; then summary+=("$name: ok -- $last"); else summary+=("$name: FAILED (exit $rc) -- $last"); status=1; fi
}

c_tests() { # build dir, extra cmake args...
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DHUDI_WERROR=ON "$@" >/dev/null &&
    cmake --build "$dir" -j "$JOBS" &&
    (cd "$dir" && ctest --output-on-failure -j "$JOBS" ${CTEST_EXCLUDE:+-E "$CTEST_EXCLUDE"})
}

# The Python package is built once, as a wheel, and installed into each virtual environment that
# needs it (interop and Python tests: .venv; the benchmark smoke: .venv-bench).
WHEEL_DIR="$LOGS/wheel"
hudi_wheel() { # prints the wheel's path, building it on first use
  if ! ls "$WHEEL_DIR"/*.whl >/dev/null 2>&1; then
    .venv/bin/python -m pip wheel -q --no-deps --no-build-isolation -w "$WHEEL_DIR" . >&2 || return 1
  fi
  ls "$WHEEL_DIR"/*.whl
}
install_hudi() { # into .venv
  local whl
  whl=$(hudi_wheel) && .venv/bin/python -m pip install -q --force-reinstall --no-deps "$whl"
}

# pytest-xdist: one test process per core (the tests share nothing but read-only fixtures; each
# makes its own tables, servers and ports), 8.3-10.1 min serial, 4.7 min on 2 cores.
python_tests() {
  install_hudi && .venv/bin/python -m pytest -q -n "$JOBS" tests/python
}

tier "C unit tests" c_tests build/release -DCMAKE_BUILD_TYPE=Release
asan_tests() {
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    c_tests build/asan -DCMAKE_BUILD_TYPE=Debug -DHUDI_SANITIZE=ON
}

# valgrind runs every test program of a third build (ctest wraps each test
# command in the "emulator"); leaks of definite kind fail the test.
# The crash test (a write failed at each of its storage operations in turn,
# hundreds of writes) runs in the release and ASan tiers; under valgrind it
# would take hours.
valgrind_tests() {
  CTEST_EXCLUDE='^table_test_crash$' c_tests build/valgrind -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHUDI_VALGRIND=ON \
    "-DCMAKE_CROSSCOMPILING_EMULATOR=valgrind;-q;--error-exitcode=99;--leak-check=full;--errors-for-leak-kinds=definite;--show-leak-kinds=definite"
}

tier "C unit tests (ASan+UBSan)" asan_tests
tier "C unit tests (valgrind)" valgrind_tests
# Interop tests: hudi-c against Apache Spark + Apache Hudi and hudi-rs (tests/interop/), whose
# oracles dev/setup-interop.sh installs outside the repo. Before "Python tests", so that pytest's
# summary of tests/python stays the last line.
# Two test processes, each with its own Spark JVMs (up to two, ~2-3 GB each) and hudi-rs worker,
# given whole test files (--dist loadfile: a file's tests share its workers' sessions): much of
# a Spark test's time is the JVM waiting on itself, so two overlap well on 2 cores (16-18 min
# serial, 13 min so). More would cost memory, not time, on a 2-core machine.
interop_tests() {
  local n=$((JOBS < 2 ? JOBS : 2))
  dev/setup-interop.sh &&
    install_hudi &&
    .venv/bin/python -m pytest -q -rs -n "$n" --dist loadfile tests/interop
}
tier "Interop tests" interop_tests
# The upsert benchmark at smoke scale (bench/upsert): hudi-c (MOR, MOR with the metadata table
# compacted incrementally, COW), delta-rs and PyIceberg run every scenario's commits and each end
# state is checked against a pyarrow oracle. Timings are recorded, not asserted: performance lives
# in benchmarks, not tests.
bench_smoke() {
  local whl
  whl=$(hudi_wheel) || return 1
  HUDI_BENCH_WHEEL="$whl" bench/upsert/run.sh --with-hudi all --scale 0.01 --work-dir "$LOGS/bench" --results-dir "$LOGS/bench-results" --require-all \
    --engines hudi-c-mor,hudi-c-mor-incremental,hudi-c-cow,delta-rs,pyiceberg &&
    # the harness's own tests (oracle, data generation, adapters, what each op records), in the
    # virtual environment run.sh made
    "${HUDI_BENCH_VENV:-.venv-bench}/bin/python" -m pytest -q -p no:cacheprovider bench/upsert/test_upsert_bench.py
}
tier "Benchmark smoke (correctness)" bench_smoke
tier "Python tests" python_tests

echo
echo "=== summary ==="
for line in "${summary[@]}"; do echo "$line"; done
# The runners' own closing lines come last, pytest's at the very end.
grep -h -E '^[0-9]+% tests passed' "$LOGS"/tier* 2>/dev/null
tail -n 1 "$LOGS/tier$((${#summary[@]} - 1))" 2>/dev/null
exit $status
