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
"$bundler" "$build" gpu-bundle "$build/tests/sy_devices_tests" "$build/tests/sy_cli_tests" "$build/tests/sy_model_fuzz" \
  "$build/bench/cuda_transfer_bench" "$build/bench/executor_overhead_bench" "$build/bench/cpu_handoff_bench"
tar czf gpu-bundle/node.tgz -C /usr/share/libonnx-testdata/data node
du -sh gpu-bundle
# What travels to the GPU machine is limited to 64 MiB with the working
# tree, and the bundle is about 280 MB unpacked (six statically linked
# binaries with the CUDA fat binaries, oneDNN): xz with a 64 MiB window
# shares the binaries' common parts and brings it to about 23 MB.
# gpu-check.sh unpacks it there. Carry gpu-carry/.
rm -rf gpu-carry
mkdir -p gpu-carry
tar cf - gpu-bundle | xz -9 -T1 > gpu-carry/gpu-bundle.tar.xz
du -sh gpu-carry
