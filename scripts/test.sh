#!/usr/bin/env bash
# Builds Switchyard and runs the whole test suite: unit tests, the ONNX
# conformance suite (with its pass threshold), then the unit tests again
# under AddressSanitizer + UBSan in a separate build. The main build has
# CUDA when a toolkit is installed (GPU tests skip, saying why, without a
# GPU, and the CUDA backend runs on fake GPUs); the sanitizer build leaves
# CUDA out, to keep CI's time: its nvcc files would add minutes of
# compiling for code that only the fake GPUs' tests run.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
BUILD_DIR=build ./scripts/build.sh
ctest --test-dir build --output-on-failure -j "$jobs"
if [ "${SWITCHYARD_SKIP_SANITIZERS:-0}" != "1" ]; then
  # Shards (tests/CMakeLists.txt): a process a gtest shard, not a case, as
  # the instrumented executables are slow to start.
  BUILD_DIR=build-asan ./scripts/build.sh -DCMAKE_BUILD_TYPE=Debug -DSWITCHYARD_SANITIZE=ON -DSWITCHYARD_BUILD_BENCH=OFF \
    -DSWITCHYARD_CUDA=OFF -DSWITCHYARD_TEST_SHARDS=4
  # Leak checking is off: oneDNN and TBB keep global caches alive at exit.
  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -L unit
fi
