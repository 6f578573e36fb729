#!/bin/sh
# Regenerates the golden vectors that tests/unit/base/test_hash.c reads, by running the real Java
# definitions (hudi-common, hadoop-common, lz4-java and the JDK) resolved from Maven Central.
# Needs: a JDK (17) and Maven with access to Maven Central (or a warm ~/.m2).
# Usage: tests/golden/regen.sh   (from anywhere; rewrites tests/golden/hash_vectors.txt)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mvn -B -q -f "$here/pom.xml" dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" >&2
cp=$(cat "$work/cp.txt")
javac -d "$work/classes" -cp "$cp" "$here/GoldenHashes.java"
# Pin the time zone and locale so nothing environmental can leak into the output.
java -Duser.timezone=UTC -Duser.language=en -cp "$work/classes:$cp" GoldenHashes > "$work/out.txt"
mv "$work/out.txt" "$here/hash_vectors.txt"
echo "wrote $here/hash_vectors.txt ($(wc -l < "$here/hash_vectors.txt") vectors)" >&2
