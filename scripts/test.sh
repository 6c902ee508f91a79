#!/usr/bin/env bash
# The test command (README, .ci/run): installs missing packages, then
#   1. a warnings-as-errors build and the whole ctest suite (build/),
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/),
#   3. the thread test (tests/test_threads.c) under ThreadSanitizer (build-tsan/, that test only),
#   4. every libFuzzer target for 2000 executions (scripts/fuzz.sh, clang, build-fuzz/).
set -euo pipefail
cd "$(dirname "$0")/.."
# g++ builds the C++ header test (headers_cxx) and locales provides the de_DE sources for the
# reader's decimal-comma test; without them CMake leaves out, and the test skips, those checks.
# clang and its runtime (libFuzzer) build the fuzz targets.
scripts/deps.sh g++ locales clang libclang-rt-14-dev

jobs=$(nproc 2>/dev/null || echo 2)
export OPENBLAS_NUM_THREADS=1

echo "== cdyn: -Werror build and tests"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCDYN_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== cdyn: AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCDYN_WERROR=ON -DCDYN_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp" ctest --test-dir build-asan --output-on-failure -j"$jobs"

echo "== cdyn: ThreadSanitizer build and the thread test"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCDYN_WERROR=ON -DCDYN_TSAN=ON \
  -DCDYN_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build-tsan -j"$jobs" --target test_threads
TSAN_OPTIONS="halt_on_error=1:suppressions=$PWD/tests/tsan.supp" build-tsan/tests/test_threads

echo "== cdyn: fuzz targets, a short run each"
FUZZ_FRESH=1 scripts/fuzz.sh 2000
