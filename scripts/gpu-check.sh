#!/usr/bin/env bash
# The GPU acceptance checks, run on a GPU machine from the repository root
# after scripts/gpu-bundle.sh packed gpu-bundle/. Steps are independent: one
# failing does not stop the others. Each step's exit code and time go to
# $OUT/status.txt; everything the steps write is packed into
# $OUT/results.tgz, because the device tool brings back only 8 files.
#
#   OUT=results [DEADLINE=seconds] ./scripts/gpu-check.sh [tests|conformance|bench|fuzz|all]
#
# Every step has its own time limit, so a hang costs that step, not the
# steps after it. With DEADLINE, no step runs past that many seconds from
# the start (a step that would is cut short, or skipped when too little is
# left), so the results are packed before the device call's own limit.
# Every group starts with the GPU's name and the links' measured speeds.
# `all` runs the steps that measure the acceptance items first (the
# conformance runs, the transfer and workload benchmarks), then the device
# tests and the diagnostics (overhead, calibration, the opset 18-23 cases,
# a fuzzing campaign on the GPU, compute-sanitizer), so that one call with
# DEADLINE gets as far as its time allows. STEP_TIMEOUT_SCALE multiplies the step limits.
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
case $what in tests|conformance|bench|fuzz|all) ;; *) echo "error: unknown group '$what' (tests, conformance, bench, fuzz or all)" >&2; exit 2 ;; esac
out=${OUT:-gpu-results}
raw=$out/raw
mkdir -p "$raw"
pack() { tar czf "$out/results.tgz" -C "$raw" . && rm -rf "$raw"; }
trap pack EXIT
if [ ! -d gpu-bundle ]; then
  # Python's tarfile reads xz without relying on the machine's xz tools.
  [ -f gpu-carry/gpu-bundle.tar.xz ] || { echo "error: no gpu-bundle/ or gpu-carry/ (run scripts/gpu-bundle.sh here, carry gpu-carry)" >&2; exit 2; }
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(".")' gpu-carry/gpu-bundle.tar.xz
fi
# shellcheck disable=SC1091
source gpu-bundle/env.sh
# cuBLAS and cuDNN are opened with dlopen when a GPU opens
# (devices/cuda/cuda_libraries.h); one the loader cannot find sends every
# MatMul or Conv to the CPU, which would spoil the run's figures. env.sh
# knows the toolkit's folder and some of PyTorch's wheels; look for the
# others where the machine keeps Python packages and toolkits.
for lib in libcublas.so.13 libcublasLt.so.13 libcudnn.so.9; do
  if python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$lib" 2> /dev/null; then
    echo "$lib: found by the loader"
    continue
  fi
  found=$(timeout 60 find /usr /opt /root -name "$lib" 2> /dev/null | head -n 1)
  if [ -n "$found" ]; then
    export LD_LIBRARY_PATH="$(dirname "$found"):$LD_LIBRARY_PATH"
    echo "$lib: $found"
  else
    echo "$lib: not found; the kernels that need it will run on the CPU"
  fi
done > "$raw/libraries.txt"  # not a pipe: the loop must run in this shell to export
cat "$raw/libraries.txt"
export SWITCHYARD_BIN=$PWD/gpu-bundle/bin/switchyard SWITCHYARD_SOURCE_DIR=$PWD
jobs=$(nproc)
scale=${STEP_TIMEOUT_SCALE:-1}
deadline=${DEADLINE:-0}

step() {  # step NAME SECONDS COMMAND...: runs it under a time limit, output to $raw/NAME.txt
  local name=$1 limit=$(( $2 * scale )); shift 2
  if [ "$deadline" -gt 0 ]; then
    local left=$(( deadline - SECONDS - 15 ))  # 15 s to pack the results
    if [ $left -lt 10 ]; then
      echo "$name skipped (DEADLINE ${deadline}s reached)" | tee -a "$out/status.txt"
      return
    fi
    [ $left -lt "$limit" ] && limit=$left
  fi
  echo "== $name (limit ${limit}s): $*"
  local t0=$SECONDS
  timeout -k 10 "$limit" "$@" > "$raw/$name.txt" 2>&1
  local rc=$?
  local note=""
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && note=" (time limit)"
  echo "$name rc=$rc $((SECONDS - t0))s$note" | tee -a "$out/status.txt"
  tail -n 5 "$raw/$name.txt"
}

machine() {  # the GPU, and the links as the session measures them
  nvidia-smi > "$raw/nvidia-smi.txt" 2>&1
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$raw/gpu.txt" 2>&1
  # Which profilers a later session could use here.
  { for t in nsys ncu perf compute-sanitizer; do echo "$t: $(command -v $t || echo none)"; done
    ls /usr/local/cuda/bin /opt/nvidia 2> /dev/null; } > "$raw/tools.txt"
  step devices 60 switchyard devices --devices cpu,cuda:0
}

tests() {
  # Every CUDA kernel against the CPU kernel, the device's own tests.
  step device_tests 180 sy_devices_tests --gtest_filter='Cuda*'
  step cli_gpu_tests 90 sy_cli_tests --gtest_filter='ControlFlowE2E.*'
}

memcheck() {  # races and out-of-bounds accesses that pass by luck
  command -v compute-sanitizer > /dev/null || { echo "device_memcheck skipped (no compute-sanitizer)" | tee -a "$out/status.txt"; return; }
  step device_memcheck 240 compute-sanitizer --tool memcheck --error-exitcode 1 sy_devices_tests --gtest_filter='Cuda*'
}

node_data=""
unpack_node_cases() {  # the ONNX node test cases, once, into $node_data/node
  if [ -z "$node_data" ]; then
    node_data=$(mktemp -d)
    tar xzf gpu-bundle/node.tgz -C "$node_data"
  fi
}

conformance() {
  unpack_node_cases
  local conf=(switchyard conformance "$node_data/node" --exclusions tests/conformance/exclusions.txt -j "$jobs")
  step conformance_cpu 120 "${conf[@]}" --policy single --json "$raw/conformance_cpu.json"
  step conformance_gpu 210 "${conf[@]}" --devices cuda:0,cpu --policy gpu --min-share cuda:0=0.6 \
    --same-as "$raw/conformance_cpu.json" --json "$raw/conformance_gpu.json"
  step conformance_gpu_random 210 "${conf[@]}" --devices cpu,cuda:0 --policy random --seed 1 \
    --same-as "$raw/conformance_cpu.json" --json "$raw/conformance_gpu_random.json"
}

conformance_newer() {
  unpack_node_cases
  # The opset 18-23 cases of the working tree (RMSNormalization and
  # RotaryEmbedding among them), the same way: on the CPU, then on the GPU.
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
    tests/conformance/newer/cases.tar.xz "$node_data"
  local newer=(switchyard conformance "$node_data/onnx-node-opset18-23" --exclusions tests/conformance/exclusions.txt
               --exclusions tests/conformance/newer/exclusions.txt -j "$jobs")
  step conformance_newer_cpu 90 "${newer[@]}" --policy single --json "$raw/conformance_newer_cpu.json"
  step conformance_newer_gpu 150 "${newer[@]}" --devices cuda:0,cpu --policy gpu \
    --same-as "$raw/conformance_newer_cpu.json" --json "$raw/conformance_newer_gpu.json"
}

policies=dynamic,ort,static-heft,cpu,gpu
bench_acceptance() {  # the two acceptance benchmarks
  step transfer_bench 90 cuda_transfer_bench --benchmark_min_time=0.2 \
    --benchmark_out="$raw/transfer_bench.json" --benchmark_out_format=json
  step workloads 120 switchyard bench models/workloads --devices cpu,cuda:0 \
    --policies "$policies" --runs 20 --warmup 5 --json "$raw/workloads.json"
  # The CPU beside the GPU as it ran before it had its own thread (its
  # kernels on the run loop's thread), and with a thread but every core:
  # the baselines of the default (a thread, one core left to the loop and
  # the completion poller; executor/session.h), in the same call.
  local mode
  for mode in inline all-cores; do
    step "workloads_cpu_$mode" 90 env SWITCHYARD_CPU_BESIDE_GPU=$mode switchyard bench models/workloads \
      --devices cpu,cuda:0 --policies dynamic,gpu,cpu --runs 20 --warmup 5 --json "$raw/workloads_cpu_$mode.json"
  done
  # Host tensors in ordinary memory, as before they were page-locked
  # (PinnedPool::serve_host_tensors): the driver then stages every copy
  # to the GPU while the run loop waits.
  step workloads_pageable 90 env SWITCHYARD_PINNED_HOST_MIB=0 switchyard bench models/workloads \
    --devices cpu,cuda:0 --policies dynamic,gpu,cpu --runs 20 --warmup 5 --json "$raw/workloads_pageable.json"
}

bench_diagnostics() {
  step overhead_gpu 45 executor_overhead_bench --devices cuda:0 --policy gpu
  step overhead_cpu 45 executor_overhead_bench --devices cpu --policy single
  # What a hand-off to the CPU's own thread costs on this machine (the
  # simulator's handoff_us; RunLoop::kHandOffBesideAcceleratorNs).
  step cpu_handoff 30 cpu_handoff_bench --benchmark_min_time=0.2
  # This machine's own profiles: the cost profile lets the policies start
  # from measured costs instead of learning them during the warm-up, and
  # the simulation profile lets later sessions without a GPU simulate it.
  step calibrate 120 switchyard calibrate --devices cpu,cuda:0 -o "$raw/cost_profile.json" \
    --sim "$raw/sim_profile.json" --models models/workloads
  step workloads_profiled 90 switchyard bench models/workloads --devices cpu,cuda:0 \
    --policies "$policies" --runs 20 --warmup 5 --profile "$raw/cost_profile.json" --json "$raw/workloads_profiled.json"
  # Why dynamic put each node where it did, on the workloads simulation
  # says it should win, with what its runs learned (--profile writes the
  # kernel and link costs); and what the same runs learn with every node
  # on the GPU, for comparison.
  local m
  for m in wide_branches wide_branches_b512 moe_if; do
    step "decisions_$m" 30 switchyard run "models/workloads/$m.onnx" --devices cpu,cuda:0 --policy dynamic \
      --random-inputs --runs 30 --decisions "$raw/decisions_$m.jsonl" --trace "$raw/trace_$m.json" \
      --profile "$raw/learned_dynamic_$m.json"
    step "learned_gpu_$m" 30 switchyard run "models/workloads/$m.onnx" --devices cpu,cuda:0 --policy gpu \
      --random-inputs --runs 30 --trace "$raw/trace_gpu_$m.json" --profile "$raw/learned_gpu_$m.json"
  done
}

# Bad models and inputs on the GPU: a crash, a hang, an Internal error or a
# GPU memory fault (an out-of-bounds kernel) fails the step; it prints the
# iteration to replay with sy_model_fuzz --only N --devices cpu,cuda:0.
fuzz() {
  unpack_node_cases
  # The campaign ends itself (and prints its summary) before the step's
  # limit, which DEADLINE may have shortened.
  local secs=120
  if [ "$deadline" -gt 0 ]; then
    local left=$(( deadline - SECONDS - 45 ))
    [ $left -lt $secs ] && secs=$left
  fi
  [ $secs -lt 10 ] && secs=10
  step fuzz_gpu $(( secs + 30 )) sy_model_fuzz --corpus "$node_data/node" --corpus models/control_flow \
    --devices cpu,cuda:0 --iterations 100000 --max-seconds "$secs" --seed 7
}

machine
case $what in
  tests) tests; memcheck ;;
  conformance) conformance; conformance_newer ;;
  bench) bench_acceptance; bench_diagnostics ;;
  fuzz) fuzz ;;
  all) conformance; bench_acceptance; tests; bench_diagnostics; conformance_newer; fuzz; memcheck ;;
esac
