#!/usr/bin/env bash
# Installs what reconsume needs to build and test, from Debian's packages, and only what is missing.
# Usage: scripts/install-deps.sh [--test]   (--test adds what the test command needs: clang for the
# fuzzer, Maven and a JDK for the Pulsar standalone and the Java interop tests, curl, openssl, jq
# for the tests of the JSON output, python3-prometheus-client to parse the metrics endpoint,
# Chromium, ChromeDriver and Selenium for the dead-letter console in a real browser, and Go for
# the Go interop tests when there is no Go 1.21 or newer).
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

# Go, for the Go interop tests (tests/interop-go): the `go` in PATH, else the official tarball's
# (/usr/local/go/bin/go), as tests/CMakeLists.txt looks for them, is used when it is 1.21 or newer.
# Otherwise Debian's golang-go: on Debian 12 from bookworm-backports (1.23), since bookworm's own
# is 1.19, too old for pulsar-client-go and for fetching a newer toolchain (Go 1.21 and later do).
# The build then fetches the toolchain tests/interop-go/go.mod names from the Go module proxy
# (GOTOOLCHAIN=auto).
go_can_build() {  # go 1.21 or newer
  local version
  version=$("$1" env GOVERSION 2>/dev/null) || return 1
  [[ "$version" =~ ^go1\.([0-9]+) ]] && ((BASH_REMATCH[1] >= 21))
}
need_go=false
if [[ "${1:-}" == "--test" ]]; then
  go_found=$(command -v go || echo /usr/local/go/bin/go)
  go_can_build "$go_found" || need_go=true
fi

if ((${#missing[@]} == 0)) && ! $need_go; then
  echo "install-deps: everything is installed"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
go_release=()
if $need_go && [[ "$codename" == bookworm ]]; then
  backports=/etc/apt/sources.list.d/reconsume-bookworm-backports.sources
  if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "install-deps: adding bookworm-backports (Go 1.23) in $backports"
    printf '%s\n' "Types: deb" "URIs: http://deb.debian.org/debian" "Suites: bookworm-backports" \
      "Components: main" "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
      "${sudo_cmd[@]}" tee "$backports" >/dev/null
  fi
  go_release=(-t bookworm-backports)
fi

"${sudo_cmd[@]}" apt-get update -qq
if ((${#missing[@]} > 0)); then
  echo "install-deps: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if $need_go; then
  echo "install-deps: installing golang-go ${go_release[*]}"
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${go_release[@]}" golang-go
  go version
fi
