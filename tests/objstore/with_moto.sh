#!/bin/sh
# Runs "$@" with loopback object-store servers up:
#   HUDI_S3_TEST_ENDPOINT   moto's S3 server (PyPI moto[server])
#   HUDI_S3STUB_ENDPOINT    tools/s3stub.py, the fault-injecting stub
# both on 127.0.0.1 with free ports, stopped when "$@" ends (and each also
# stops by itself after HUDI_OBJSTORE_SERVER_LIFETIME seconds, default 900).
# Exits 77 (ctest's "skipped") when dev/setup-objstore.sh has not been run.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
py="$root/.venv-objstore/bin/python"
if [ ! -x "$py" ] || ! "$py" -c 'import moto.server' 2>/dev/null; then
  echo "SKIP: moto is not installed; run dev/setup-objstore.sh to enable the object-store tests" >&2
  exit 77
fi
lifetime=${HUDI_OBJSTORE_SERVER_LIFETIME:-900}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hudi-objstore-XXXXXX")
moto_pid=; stub_pid=
cleanup() {
  [ -n "$moto_pid" ] && kill "$moto_pid" 2>/dev/null
  [ -n "$stub_pid" ] && kill "$stub_pid" 2>/dev/null
  [ -n "$moto_pid" ] && wait "$moto_pid" 2>/dev/null
  [ -n "$stub_pid" ] && wait "$stub_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Waits (at most 30 s) until 127.0.0.1:$1 accepts connections.
wait_port() {
  "$py" - "$1" <<'PY'
import socket, sys, time
deadline = time.time() + 30
while time.time() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
PY
}

moto_port=$(free_port)
timeout "$lifetime" "$py" -m moto.server -H 127.0.0.1 -p "$moto_port" >"$tmp/moto.log" 2>&1 &
moto_pid=$!
stub_port=$(free_port)
timeout "$lifetime" "$py" "$root/tools/s3stub.py" --port "$stub_port" --idle-exit 300 >"$tmp/stub.log" 2>&1 &
stub_pid=$!
if ! wait_port "$moto_port" || ! wait_port "$stub_port"; then
  echo "with_moto.sh: a server did not start" >&2
  cat "$tmp/moto.log" "$tmp/stub.log" >&2
  exit 1
fi
export HUDI_S3_TEST_ENDPOINT="http://127.0.0.1:$moto_port"
export HUDI_S3STUB_ENDPOINT="http://127.0.0.1:$stub_port"
"$@"
rc=$?
exit $rc
