#!/bin/sh
# Runs "$@" with azurite (the Azure Blob emulator, from .cache/azurite) on
# 127.0.0.1 at a free port, in memory, stopped when "$@" ends (and by itself
# after HUDI_OBJSTORE_SERVER_LIFETIME seconds, default 900). Before "$@"
# runs, azure-storage-blob (the SDK, an independent client) creates the
# containers the test uses: public-read "hudi0".."hudi15" (so the test can
# check objects with plain GETs) and private "private".
#   HUDI_AZURITE_ENDPOINT   http://127.0.0.1:<port>
# Exits 77 (ctest's "skipped") when dev/setup-objstore.sh has not been run.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
py="$root/.venv-objstore/bin/python"
main="$root/.cache/azurite/node_modules/azurite/dist/src/blob/main.js"
if [ ! -x "$py" ] || ! "$py" -c 'import azure.storage.blob' 2>/dev/null || [ ! -f "$main" ] ||
   ! command -v node >/dev/null 2>&1; then
  echo "SKIP: azurite or azure-storage-blob is not installed; run dev/setup-objstore.sh to enable the Azure tests" >&2
  exit 77
fi
lifetime=${HUDI_OBJSTORE_SERVER_LIFETIME:-900}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hudi-azurite-XXXXXX")
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  [ -n "$pid" ] && wait "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
(cd "$tmp" && exec timeout "$lifetime" node "$main" --blobHost 127.0.0.1 --blobPort "$port" --inMemoryPersistence \
  --skipApiVersionCheck --loose) >"$tmp/azurite.log" 2>&1 &
pid=$!
export HUDI_AZURITE_ENDPOINT="http://127.0.0.1:$port"
# Waits (at most 60 s) until azurite answers, then creates the containers.
if ! "$py" - "$port" <<'PY'
import sys, time
from azure.storage.blob import BlobServiceClient
from azure.core.exceptions import ResourceExistsError
port = sys.argv[1]
conn = ("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"
        "AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;"
        "BlobEndpoint=http://127.0.0.1:%s/devstoreaccount1;" % port)
svc = BlobServiceClient.from_connection_string(conn, retry_total=0)
deadline = time.time() + 60
while True:
    try:
        svc.get_service_properties()
        break
    except Exception:
        if time.time() > deadline:
            raise
        time.sleep(0.2)
for i in range(16):
    try:
        svc.create_container("hudi%d" % i, public_access="container")
    except ResourceExistsError:
        pass
svc.create_container("private")
PY
then
  echo "with_azurite.sh: azurite did not start" >&2
  cat "$tmp/azurite.log" >&2
  exit 1
fi
"$@"
rc=$?
exit $rc
