#!/usr/bin/env python3
"""Executor overhead of ONNX Runtime vs Switchyard, measured in one run.

Writes the benchmark models with Switchyard's own benchmark binary (so both
runtimes execute byte-identical graphs), times ONNX Runtime on them (CPU, one
thread, sequential), runs Switchyard's Google Benchmark, and prints both
figures side by side:

  python3 bench/ort_overhead.py [--build build] [--policy single] [--devices cpu]

Needs `pip install onnxruntime numpy`.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

CHAIN = (100, 1000)
TRIPS = (1000, 10000)


def ort_time_us(sess, feeds, min_seconds=1.0):
    for _ in range(20):
        sess.run(None, feeds)
    n, start = 0, time.perf_counter()
    while True:
        for _ in range(10):
            sess.run(None, feeds)
        n += 10
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return elapsed / n * 1e6


def measure_ort(model_dir):
    import numpy as np
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    x = np.zeros([1], dtype=np.float32)
    chain = {}
    for n in CHAIN:
        s = ort.InferenceSession(os.path.join(model_dir, f"add_chain_{n}.onnx"), opts, providers=["CPUExecutionProvider"])
        chain[n] = ort_time_us(s, {"x": x})
    loop = {}
    s = ort.InferenceSession(os.path.join(model_dir, "add_loop.onnx"), opts, providers=["CPUExecutionProvider"])
    for t in TRIPS:
        loop[t] = ort_time_us(s, {"M": np.array(t, dtype=np.int64), "x": x})
    per_node = (chain[CHAIN[1]] - chain[CHAIN[0]]) / (CHAIN[1] - CHAIN[0])
    per_iter = (loop[TRIPS[1]] - loop[TRIPS[0]]) / (TRIPS[1] - TRIPS[0])
    return per_node, per_iter, ort.__version__


def measure_switchyard(bench, policy, devices):
    out = subprocess.run([bench, "--policy", policy, "--devices", devices, "--benchmark_min_time=1"],
                         check=True, capture_output=True, text=True).stdout
    node = float(re.search(r"per-node overhead:\s+([-\d.]+)", out).group(1))
    it = float(re.search(r"per-iteration overhead:\s+([-\d.]+)", out).group(1))
    return node, it, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="Switchyard build folder")
    ap.add_argument("--policy", default="single",
                    help="comma-separated policies, each measured against the same ONNX Runtime figures")
    ap.add_argument("--devices", default="cpu")
    ap.add_argument("--verbose", action="store_true", help="print the raw Google Benchmark output")
    args = ap.parse_args()
    bench = os.path.join(args.build, "bench", "executor_overhead_bench")
    if not os.access(bench, os.X_OK):
        sys.exit(f"error: {bench} not found; build first (scripts/build.sh)")
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([bench, "--write-models", d], check=True, capture_output=True)
        try:
            o_node, o_iter, o_ver = measure_ort(d)
        except ImportError:
            sys.exit("error: onnxruntime is not installed (pip install onnxruntime numpy)")
    print(f"devices: {args.devices}")
    print(f"{'figure':<28}{'ONNX Runtime ' + o_ver:>22}{'Switchyard':>14}{'policy':>12}{'ratio':>8}")
    for policy in args.policy.split(","):
        s_node, s_iter, raw = measure_switchyard(bench, policy, args.devices)
        if args.verbose:
            print(raw)
        print(f"{'per-node overhead (us)':<28}{o_node:>22.3f}{s_node:>14.3f}{policy:>12}{s_node / o_node:>8.2f}")
        print(f"{'per-Loop-iteration (us)':<28}{o_iter:>22.3f}{s_iter:>14.3f}{policy:>12}{s_iter / o_iter:>8.2f}")


if __name__ == "__main__":
    main()
