#!/usr/bin/env bash
# Builds tests/interop/target/reconsume-interop.jar (dependencies in target/lib) with Maven.
# The first build downloads the Java client into ~/.m2; later builds run offline.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if ! mvn -B -q -o -Dstyle.color=never package >/dev/null 2>&1; then
  mvn -B -q -Dstyle.color=never package
fi
test -f target/reconsume-interop.jar
echo "built $(pwd)/target/reconsume-interop.jar"
