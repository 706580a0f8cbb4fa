#!/usr/bin/env bash
# Installs what is missing, builds, and runs the CLI on a bundled control-flow
# model (a Loop whose trip count and early exit depend on its inputs).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
case_dir=models/control_flow/loop_early_exit
args=()
for f in "$case_dir"/inputs/*.npy; do args+=(--input "$(basename "$f" .npy)=$f"); done
./build/switchyard info "$case_dir/model.onnx"
./build/switchyard run "$case_dir/model.onnx" "${args[@]}" --output-dir out/demo --runs 20 --report out/demo/report.json
