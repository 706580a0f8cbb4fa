#!/usr/bin/env bash
# The CUDA backend and the run loop under ThreadSanitizer, on the fake GPUs
# (tests/devices/cuda/fake_gpu): completion callbacks on stream threads
# against the run loop, concurrent sessions sharing a GPU, faults. Not part
# of CI: on a 2-core machine the TSan build alone takes about 35 minutes
# and the tests about 10. Needs the CUDA toolkit (not a GPU). Extra
# arguments go to the test binary (e.g. --gtest_filter=FakeGpu.Sessions*).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-tsan}
./scripts/install-deps.sh
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSWITCHYARD_CUDA=ON -DSWITCHYARD_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread
cmake --build "$BUILD_DIR" --target sy_fake_gpu_tests
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/devices/cuda/fake_gpu/tsan.supp" \
  "$BUILD_DIR/tests/sy_fake_gpu_tests" "$@"
