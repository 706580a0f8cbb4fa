#!/usr/bin/env bash
# The GPU acceptance checks, run on a GPU machine from the repository root
# after scripts/gpu-bundle.sh packed gpu-bundle/. Writes every result under
# ${OUT:-gpu-results}. Steps are independent: one failing does not stop the
# others; each one's exit code is in $OUT/status.txt.
#
#   OUT=results ./scripts/gpu-check.sh [tests|conformance|bench|all]
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
out=${OUT:-gpu-results}
mkdir -p "$out"
if [ ! -d gpu-bundle ]; then
  # Python's tarfile reads xz without relying on the machine's xz tools.
  [ -f gpu-carry/gpu-bundle.tar.xz ] || { echo "error: no gpu-bundle/ or gpu-carry/ (run scripts/gpu-bundle.sh here, carry gpu-carry)" >&2; exit 2; }
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(".")' gpu-carry/gpu-bundle.tar.xz
fi
# shellcheck disable=SC1091
source gpu-bundle/env.sh
export SWITCHYARD_BIN=$PWD/gpu-bundle/bin/switchyard SWITCHYARD_SOURCE_DIR=$PWD
jobs=$(nproc)
step() {  # step NAME COMMAND...: runs it, output to $out/NAME.txt
  local name=$1; shift
  echo "== $name: $*"
  local t0=$SECONDS
  "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  echo "$name rc=$rc $((SECONDS - t0))s" | tee -a "$out/status.txt"
  tail -n 5 "$out/$name.txt"
}

if [ "$what" = all ] || [ "$what" = tests ]; then
  nvidia-smi > "$out/nvidia-smi.txt" 2>&1
  step devices switchyard devices --devices cpu,cuda:0
  step device_tests sy_devices_tests --gtest_filter='Cuda*'
  # Races and out-of-bounds accesses that pass by luck show up here. Bounded,
  # so that a slow sanitizer leaves the rest of the call's time limit.
  if command -v compute-sanitizer > /dev/null; then
    step device_memcheck timeout 300 compute-sanitizer --tool memcheck --error-exitcode 1 sy_devices_tests --gtest_filter='Cuda*'
  fi
  step cli_gpu_tests sy_cli_tests --gtest_filter='ControlFlowE2E.*'
fi
if [ "$what" = all ] || [ "$what" = conformance ]; then
  data=$(mktemp -d)
  tar xzf gpu-bundle/node.tgz -C "$data"
  conf=(switchyard conformance "$data/node" --exclusions tests/conformance/exclusions.txt -j "$jobs")
  step conformance_cpu "${conf[@]}" --policy single --json "$out/conformance_cpu.json"
  step conformance_gpu "${conf[@]}" --devices cuda:0,cpu --policy gpu --min-share cuda:0=0.6 \
    --same-as "$out/conformance_cpu.json" --json "$out/conformance_gpu.json"
  step conformance_gpu_random "${conf[@]}" --devices cpu,cuda:0 --policy random --seed 1 \
    --same-as "$out/conformance_cpu.json" --json "$out/conformance_gpu_random.json"
fi
if [ "$what" = all ] || [ "$what" = bench ]; then
  step transfer_bench cuda_transfer_bench --benchmark_min_time=0.2
  step overhead_gpu executor_overhead_bench --devices cuda:0 --policy gpu
  step overhead_cpu executor_overhead_bench --devices cpu --policy single
  step workloads switchyard bench models/workloads --devices cpu,cuda:0 \
    --policies dynamic,ort,static-heft,cpu,gpu --runs 20 --warmup 5 --json "$out/workloads.json"
fi
