#!/usr/bin/env bash
# Builds Switchyard with CUDA and packs everything scripts/gpu-check.sh needs
# on a GPU machine (which has CUDA but none of our Debian libraries and no
# network) into gpu-bundle/ (git-ignored): the CLI, the GPU test and
# benchmark binaries with their libraries, and the ONNX node test cases.
#
#   ./scripts/gpu-bundle.sh        then, on the GPU machine, from the repo root:
#   OUT=results ./scripts/gpu-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-cuda}
BUILD_DIR=$build ./scripts/build.sh -DSWITCHYARD_CUDA=ON -DCMAKE_BUILD_TYPE=Release
bundler=${SWITCHYARD_BUNDLER:-../shared/gpu/bundle.sh}
[ -x "$bundler" ] || { echo "error: no bundler at $bundler (set SWITCHYARD_BUNDLER)" >&2; exit 2; }
rm -rf gpu-bundle
"$bundler" "$build" gpu-bundle "$build/tests/sy_devices_tests" "$build/tests/sy_cli_tests" \
  "$build/bench/cuda_transfer_bench" "$build/bench/executor_overhead_bench"
tar czf gpu-bundle/node.tgz -C /usr/share/libonnx-testdata/data node
du -sh gpu-bundle
