#!/bin/sh
# Installs the loopback servers the object-store tests run against, into
# gitignored directories of the checkout:
#   .venv-objstore/     moto[server] (S3), botocore (SigV4 oracle),
#                       azure-storage-blob (SharedKey oracle)
#   .cache/azurite/     azurite (Azure Blob emulator, npm)
# The tests (tests/objstore/with_*.sh) skip with exit code 77 until this has
# run. Nothing here talks to anything but the package registries.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv-objstore"
stamp="$venv/.hudi-objstore-v1"
if [ -f "$stamp" ]; then
  exit 0
fi
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --upgrade pip
"$venv/bin/pip" install --quiet 'moto[server]>=5.0' botocore azure-storage-blob
if ! command -v npm >/dev/null 2>&1; then
  # A fresh Debian machine has no Node.js: azurite needs it.
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null || true
fi
if command -v npm >/dev/null 2>&1; then
  mkdir -p "$root/.cache/azurite"
  (cd "$root/.cache/azurite" && npm install --silent --no-audit --no-fund azurite@3 >/dev/null)
else
  echo "setup-objstore: npm not found; the Azure tests will skip" >&2
fi
touch "$stamp"
echo "setup-objstore: done ($venv, $root/.cache/azurite)"
