#!/usr/bin/env bash
# The README's second command: installs what is missing (Debian packages; Pulsar and the Java
# client come from Maven Central, the Go client from the Go module proxy), builds everything,
# starts a real Apache Pulsar standalone, and runs every test: unit tests, the behaviour tests on
# embedded:// and on Pulsar, integration and interop tests with the official Java and Go clients,
# TLS and token tests, the fault test, the examples, the install test, the unit tests again under
# ASan+UBSan and under ThreadSanitizer (with the behaviour tests), and every fuzzer (tests/fuzz/)
# for a bounded time. Stops Pulsar at the end. Any failure fails the command.
#
# Environment: RECONSUME_BUILD_DIR (default build), RECONSUME_ASAN_BUILD_DIR (default build-asan),
# RECONSUME_TSAN_BUILD_DIR (default build-tsan), RECONSUME_FUZZ_SECONDS (default 18, each of the
# 10 fuzzers), CTEST_PARALLEL_LEVEL (default 2).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RECONSUME_BUILD_DIR:-$root/build}
asan=${RECONSUME_ASAN_BUILD_DIR:-$root/build-asan}
tsan=${RECONSUME_TSAN_BUILD_DIR:-$root/build-tsan}
fuzz_seconds=${RECONSUME_FUZZ_SECONDS:-18}
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-2}

step() { printf '\n==> %s\n' "$*"; }

step "Installing what is missing"
"$root/scripts/install-deps.sh" --test

# Debug information as line tables only (-g1): file and line in backtraces, sanitizer reports and
# `perf report`, and a quarter less compile time than full -g (no local variables in gdb: configure
# a build of your own for that).
# Unity builds (CMake compiles each target's sources eight to a file): every test file and most
# sources parse the same Asio, Beast, JSON and GoogleTest headers and instantiate the same
# templates, and compiling them together halves the build on two cores. The price: names at file
# scope, anonymous namespace or not, must be unique within their target (README, first section).
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8)
step "Building (RelWithDebInfo, -g1, unity) in $build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" "${unity[@]}" >/dev/null
cmake --build "$build"

# The sanitizer build and the fuzzers compile while the tests run, at the lowest priority: the
# tests against Pulsar spend much of their time waiting for the broker (restarts, delays, the
# soak), and that idle CPU builds the rest. Nice 19 gives the tests and the broker the CPU whenever
# they want it. The build's output goes to a log, printed if it fails.
step "Building the ASan+UBSan tests ($asan), the fuzzers and the TSan tests ($tsan) in the background (nice 19)"
background_log="$build/background-build.log"
set -m  # its own process group, so that stopping it stops its compilers too
(
  set -e
  # -O0 -g1: the three test programs compile in 7.7 minutes instead of 13.9 at -O1 (unity, two
  # cores, alone), and the sanitized unit tests run 47 s instead of 44 (96 s with the leak check
  # after every test, tests/support/leak_check_per_test.cpp).
  cmake -S "$root" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRECONSUME_SANITIZE=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1 -DNDEBUG" "${unity[@]}" \
    -DRECONSUME_BUILD_BENCH=OFF -DRECONSUME_BUILD_EXAMPLES=OFF >/dev/null
  nice -n 19 cmake --build "$asan" --target reconsume_unit_tests reconsume_cli_tests \
    reconsume_behaviour_tests
  RECONSUME_FUZZ_BUILD_ONLY=1 nice -n 19 "$root/scripts/fuzz.sh" "$fuzz_seconds" all
  # ThreadSanitizer, for the threads the library runs (I/O threads, senders joining batches,
  # completions): -O1, as its documentation advises, since it slows instrumented code 5-15x.
  cmake -S "$root" -B "$tsan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRECONSUME_SANITIZE_THREAD=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    "${unity[@]}" -DRECONSUME_BUILD_BENCH=OFF -DRECONSUME_BUILD_EXAMPLES=OFF >/dev/null
  nice -n 19 cmake --build "$tsan" --target reconsume_unit_tests reconsume_behaviour_tests
) >"$background_log" 2>&1 &
background=$!
set +m
trap 'kill -- "-$background" 2>/dev/null || true' EXIT

step "Running every test against the embedded broker and a Pulsar standalone"
# with-pulsar.sh starts Pulsar (downloading it with Maven the first time), exports its URLs, and
# stops it afterwards, also when a test fails.
"$root/scripts/with-pulsar.sh" ctest --test-dir "$build" --output-on-failure

step "Waiting for the background build ($background_log)"
if ! wait "$background"; then
  tail -n 80 "$background_log" >&2
  echo "test.sh: the sanitizer or fuzzer build failed (log: $background_log)" >&2
  exit 1
fi
trap - EXIT

step "Unit tests under AddressSanitizer and UndefinedBehaviorSanitizer ($asan)"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$asan/tests/reconsume_unit_tests"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$asan/tools/reconsume_cli_tests"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  RECONSUME_SERVICE_URLS=embedded:// "$asan/tests/reconsume_behaviour_tests"

# A data race reported makes the program exit with 66 (TSAN_OPTIONS exitcode), after the tests.
# Without address-space randomization (setarch -R): GCC 12's ThreadSanitizer stops at start
# ("unexpected memory mapping") on kernels that randomize with more bits (vm.mmap_rnd_bits 32).
# The behaviour tests run on both backends, Pulsar started again for them (about a minute).
step "Unit tests and behaviour tests (embedded, Pulsar) under ThreadSanitizer ($tsan)"
tsan_options="second_deadlock_stack=1 suppressions='$root/tests/support/tsan-suppressions.txt'"
no_aslr=(setarch "$(uname -m)" -R)
TSAN_OPTIONS=$tsan_options "${no_aslr[@]}" "$tsan/tests/reconsume_unit_tests"
TSAN_OPTIONS=$tsan_options RECONSUME_SERVICE_URLS=embedded:// \
  "${no_aslr[@]}" "$tsan/tests/reconsume_behaviour_tests"
TSAN_OPTIONS=$tsan_options "$root/scripts/with-pulsar.sh" \
  sh -c 'RECONSUME_SERVICE_URLS=$RECONSUME_PULSAR_URL exec "$@"' sh \
  "${no_aslr[@]}" "$tsan/tests/reconsume_behaviour_tests"

step "Fuzzing every parser of outside bytes for ${fuzz_seconds}s each (tests/fuzz/README.md)"
"$root/scripts/fuzz.sh" "$fuzz_seconds" all

step "All tests passed"
