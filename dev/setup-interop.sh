#!/usr/bin/env bash
# Installs the interoperability oracles that tests/interop/ compares hudi-c against, outside the repo:
#   - Java 17 (Spark 3.5 runs on 8/11/17) and Maven, from Debian, if missing,
#   - Apache Hudi's Spark 3.5 bundle jars, fetched with Maven into $HUDI_INTEROP_HOME/jars:
#       HUDI_VERSION (newest 1.x release: table version 9), HUDI_VERSION_V8 (1.0.x: version 8) and
#       HUDI_VERSION_V6 (0.15.x: version 6, the last 0.x line),
#   - a virtual env with PySpark (Spark's own jars come inside the wheel),
#   - a virtual env with hudi-rs's Python binding (PyPI package `hudi`, which clashes in name with
#     this project's package, hence an env of its own),
# and records where everything is in $HUDI_INTEROP_HOME/interop.env for tests/interop/oracles.py.
# Idempotent: a second run only checks stamps and takes well under a second.
# Usage: dev/setup-interop.sh        (HUDI_INTEROP_HOME defaults to ~/.cache/hudi-c)
set -euo pipefail
cd "$(dirname "$0")/.."

HUDI_VERSION=1.2.0          # newest Hudi release whose Spark 3.5 bundle resolves
HUDI_VERSION_V8=1.0.2       # last release line that writes table version 8
HUDI_VERSION_V6=0.15.0      # last 0.x release: table version 6, the engines "older engines" means
PYSPARK_VERSION=3.5.9
HUDI_RS_VERSION=0.5.0
BUNDLE=org.apache.hudi:hudi-spark3.5-bundle_2.12

HOME_DIR=${HUDI_INTEROP_HOME:-$HOME/.cache/hudi-c}
JARS=$HOME_DIR/jars
mkdir -p "$JARS"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
apt_updated=0
apt_install() {
  if [ $apt_updated -eq 0 ]; then $SUDO apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# --- Java 17: Spark 3.5 does not run on the newest JDKs, so the workers get a Java 17 explicitly.
java17_home() {
  local d
  for d in /usr/lib/jvm/java-17-openjdk-*; do
    [ -x "$d/bin/java" ] && { echo "$d"; return 0; }
  done
  return 1
}
if ! JAVA17=$(java17_home); then
  echo "setup-interop: installing openjdk-17-jdk-headless"
  apt_install openjdk-17-jdk-headless
  JAVA17=$(java17_home)
fi
export JAVA_HOME=$JAVA17
if ! command -v mvn >/dev/null 2>&1; then
  echo "setup-interop: installing maven"
  apt_install maven
fi

# --- Hudi Spark bundles (about 80 and 110 MB), fetched once.
fetch_bundle() { # version
  local v=$1 jar="$JARS/hudi-spark3.5-bundle_2.12-$1.jar"
  [ -s "$jar" ] && return 0
  echo "setup-interop: fetching $BUNDLE:$v with Maven"
  local tmp
  tmp=$(mktemp -d "$JARS/.fetch.XXXXXX")
  if ! mvn -q -B dependency:copy -Dartifact="$BUNDLE:$v" -DoutputDirectory="$tmp" >"$tmp/mvn.log" 2>&1; then
    tail -n 20 "$tmp/mvn.log" >&2
    rm -rf "$tmp"
    echo "setup-interop: could not fetch $BUNDLE:$v" >&2
    return 1
  fi
  mv "$tmp/hudi-spark3.5-bundle_2.12-$v.jar" "$jar"
  rm -rf "$tmp"
}
fetch_bundle "$HUDI_VERSION"
fetch_bundle "$HUDI_VERSION_V8"
fetch_bundle "$HUDI_VERSION_V6"

# --- Virtual envs, each rebuilt only when its pinned version changes.
PY=${PYTHON:-python3}
make_venv() { # dir, requirement
  local dir=$1 req=$2
  [ -x "$dir/bin/python" ] && [ "$(cat "$dir/.hudi-c-stamp" 2>/dev/null)" = "$req" ] && return 0
  echo "setup-interop: creating $dir with $req"
  rm -rf "$dir"
  "$PY" -m venv "$dir"
  "$dir/bin/python" -m pip install -q --disable-pip-version-check "$req"
  echo "$req" >"$dir/.hudi-c-stamp"
}
make_venv "$HOME_DIR/venv-spark" "pyspark==$PYSPARK_VERSION"
make_venv "$HOME_DIR/venv-hudirs" "hudi==$HUDI_RS_VERSION"

# --- What tests/interop/oracles.py reads.
cat >"$HOME_DIR/interop.env.tmp" <<EOF
# Written by dev/setup-interop.sh; read by tests/interop/oracles.py.
JAVA_HOME=$JAVA17
SPARK_PYTHON=$HOME_DIR/venv-spark/bin/python
PYSPARK_VERSION=$PYSPARK_VERSION
HUDI_VERSION=$HUDI_VERSION
HUDI_JAR=$JARS/hudi-spark3.5-bundle_2.12-$HUDI_VERSION.jar
HUDI_VERSION_V8=$HUDI_VERSION_V8
HUDI_JAR_V8=$JARS/hudi-spark3.5-bundle_2.12-$HUDI_VERSION_V8.jar
HUDI_VERSION_V6=$HUDI_VERSION_V6
HUDI_JAR_V6=$JARS/hudi-spark3.5-bundle_2.12-$HUDI_VERSION_V6.jar
HUDI_RS_PYTHON=$HOME_DIR/venv-hudirs/bin/python
HUDI_RS_VERSION=$HUDI_RS_VERSION
EOF
mv "$HOME_DIR/interop.env.tmp" "$HOME_DIR/interop.env"
