#!/usr/bin/env bash
# Sets up a fresh machine, installs the hudi package into .venv and runs
# the quick start (examples/quickstart.py).
set -euo pipefail
cd "$(dirname "$0")/.."
dev/setup.sh
.venv/bin/python -m pip install -q --no-build-isolation .
exec .venv/bin/python examples/quickstart.py "$@"
