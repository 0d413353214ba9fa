#!/usr/bin/env bash
# Installs what reconsume needs to build and test, from Debian's packages, and only what is missing.
# Usage: scripts/install-deps.sh [--test]   (--test adds what the test command needs: clang for the
# fuzzer, Maven and a JDK for the Pulsar standalone and the Java interop tests, curl, openssl, jq
# for the tests of the JSON output, python3-prometheus-client to parse the metrics endpoint,
# Chromium, ChromeDriver and Selenium for the dead-letter console in a real browser).
# help2man builds the man page.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache help2man
  libboost1.81-dev libboost-url1.81-dev libboost-json1.81-dev
  libprotobuf-dev protobuf-compiler libssl-dev
  zlib1g-dev liblz4-dev libzstd-dev libsnappy-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(clang clang-format libclang-rt-14-dev maven default-jdk-headless curl openssl procps python3
    jq python3-prometheus-client chromium chromium-driver python3-selenium)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: everything is installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
