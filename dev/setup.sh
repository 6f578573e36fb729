#!/usr/bin/env bash
# Installs what building and testing hudi-c needs, and nothing twice:
#   - Debian packages (compiler, CMake, the system libraries libhudi links),
#   - a Python virtual environment in .venv with the test dependencies.
# Usage: dev/setup.sh [--python-only-runtime]
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config git unzip
  zlib1g-dev libdeflate-dev libsnappy-dev libzstd-dev liblz4-dev libssl-dev libcurl4-openssl-dev
  libjansson-dev libxxhash-dev libcmocka-dev
  clang libclang-rt-14-dev llvm valgrind
  python3 python3-venv python3-dev
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating the virtual environment .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.hudi-requirements
if ! cmp -s dev/requirements.txt "$stamp" 2>/dev/null; then
  echo "setup: installing Python packages into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r dev/requirements.txt
  cp dev/requirements.txt "$stamp"
fi
