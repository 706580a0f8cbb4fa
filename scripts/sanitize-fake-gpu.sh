#!/usr/bin/env bash
# The CUDA backend and the run loop on the fake GPUs (tests/devices/cuda/
# fake_gpu) under a sanitizer: completion callbacks on stream threads
# against the run loop, concurrent sessions sharing a GPU, staged copies,
# faults. Not part of CI: on a 2-core machine either build takes 10 to 35
# minutes, depending on what ccache holds (CI's own sanitizer build leaves
# CUDA out for that reason), and the thread run about 16. Needs the CUDA
# toolkit, not a GPU.
#
#   scripts/sanitize-fake-gpu.sh thread   [test args]   ThreadSanitizer (build-tsan)
#   scripts/sanitize-fake-gpu.sh address  [test args]   AddressSanitizer + UBSan (build-asan-cuda)
#   scripts/sanitize-fake-gpu.sh emulated [test args]   the same for the hand-written kernels' device
#       code on the emulated GPU (sy_emulated_gpu_tests), then a fuzzing campaign on it of
#       FUZZ_ITERATIONS mutants (default 3000; 0 skips it). The fake poisons device memory that
#       no one may touch, so a kernel's out-of-bounds or freed-memory access is reported where
#       it happens, as compute-sanitizer's memcheck would on a GPU.
#
# Test arguments go to the test binary (e.g. --gtest_filter=FakeGpu.Sessions*).
# Without any, the thread run leaves out FakeGpu.OutOfDeviceMemory_IsResourceExhausted:
# TSan's shadow of its three 512 MiB tensors took over 10 GB and 6 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
shift || true
supp=$PWD/tests/devices/cuda/fake_gpu/tsan.supp
case "$mode" in
  thread)
    BUILD_DIR=${BUILD_DIR:-build-tsan}
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS=-fsanitize=thread
           -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread)
    # history_size=7 (the most): with less, TSan often cannot restore the
    # stack of an earlier write made on a oneTBB worker, and a suppression
    # of tsan.supp then cannot match the report.
    export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=7 suppressions=$supp"
    [ $# -gt 0 ] || set -- --gtest_filter=-FakeGpu.OutOfDeviceMemory_IsResourceExhausted
    ;;
  address | emulated)
    BUILD_DIR=${BUILD_DIR:-build-asan-cuda}
    flags=(-DCMAKE_BUILD_TYPE=Debug -DSWITCHYARD_SANITIZE=ON)
    # Leak checking is off as in CI: oneDNN and TBB keep global caches alive at exit.
    export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1
    ;;
  *)
    echo "usage: $0 thread|address|emulated [test binary arguments]" >&2
    exit 2
    ;;
esac
./scripts/install-deps.sh
cmake -S . -B "$BUILD_DIR" -G Ninja -DSWITCHYARD_CUDA=ON -DSWITCHYARD_BUILD_BENCH=OFF "${flags[@]}"
if [ "$mode" != emulated ]; then
  cmake --build "$BUILD_DIR" --target sy_fake_gpu_tests
  exec "$BUILD_DIR/tests/sy_fake_gpu_tests" "$@"
fi
cmake --build "$BUILD_DIR" --target sy_emulated_gpu_tests sy_model_fuzz_emulated_gpu
"$BUILD_DIR/tests/sy_emulated_gpu_tests" "$@"
iterations=${FUZZ_ITERATIONS:-3000}
[ "$iterations" -gt 0 ] || exit 0
# The corpus of ctest's fuzz.models_emulated_gpu, in its order, so a seed gives the same mutants.
corpus=(--corpus models/control_flow)
[ -d /usr/share/libonnx-testdata/data/node ] && corpus+=(--corpus /usr/share/libonnx-testdata/data/node)
corpus+=(--corpus "$BUILD_DIR/onnx-node-newer/onnx-node-opset18-23")
"$BUILD_DIR/tests/sy_model_fuzz_emulated_gpu" "${corpus[@]}" --devices cpu,cuda:0 --iterations "$iterations" \
  --seed "${FUZZ_SEED:-1}"
