#!/usr/bin/env python3
"""Whole-model latency of ONNX Runtime and Switchyard on the same CPU, side by side.

For each model (default: models/workloads/*.onnx) and each of --inputs random input sets (drawn as
`generate.py --check` draws them: floats from [0,1) and [-1,1) alternately, int64s from 0..7), both
runtimes run the same inputs: ONNX Runtime (CPU provider, its default threads, sequential
execution, all graph optimisations) in this process, Switchyard through `switchyard run` with the
given --devices and --policy. Each input set gets --warmup untimed runs, then --runs timed ones;
a model's figure is the median over its input sets of the per-set median latency (the workloads
take data-dependent control-flow paths, so only equal inputs compare). The two runtimes alternate
per input set, so drift on a shared machine hits both.

  python3 bench/ort_workloads.py [--switchyard build/switchyard] [--inputs 6] [--runs 20] [models...]

Needs `pip install onnxruntime numpy onnx`.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models", "workloads"))


def ort_median_ms(sess, feeds, warmup, runs):
    for _ in range(warmup):
        sess.run(None, feeds)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sess.run(None, feeds)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def switchyard_median_ms(binary, model, feeds, a, tmp):
    import numpy as np

    args = []
    for name, value in feeds.items():
        path = os.path.join(tmp, name + ".npy")
        np.save(path, value)
        args += ["-i", f"{name}={path}"]
    report = os.path.join(tmp, "report.json")
    # --warmup runs are the first of -n; their latencies are dropped below.
    cmd = [binary, "run", model, *args, "-n", str(a.warmup + a.runs), "--devices", a.devices, "--policy", a.policy,
           "--report", report, "-q", *a.switchyard_args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)}: exit {r.returncode}: {(r.stderr or r.stdout).strip()[:500]}")
    with open(report) as f:
        rep = json.load(f)
    lat = rep["latency_ms"][a.warmup:]
    return statistics.median(lat)


def require_setup(switchyard):
    """Exits with a clear error unless the binary and the Python packages are there."""
    if not os.access(switchyard, os.X_OK):
        sys.exit(f"error: {switchyard} not found; build first (scripts/build.sh)")
    try:
        import numpy  # noqa: F401
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError as e:
        sys.exit(f"error: {e} (pip install onnxruntime onnx numpy)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*", help="ONNX models (default: models/workloads/*.onnx)")
    ap.add_argument("--switchyard", default="build/switchyard", help="the switchyard binary")
    ap.add_argument("--switchyard-arg", dest="switchyard_args", action="append", default=[],
                    help="an extra argument to `switchyard run`, e.g. --switchyard-arg=--no-channels-last; repeatable")
    ap.add_argument("--devices", default="cpu")
    ap.add_argument("--policy", default="single")
    ap.add_argument("--inputs", type=int, default=6, help="random input sets per model")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per input set")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs per input set")
    ap.add_argument("--seed", type=int, default=12345)
    a = ap.parse_args()
    if a.inputs < 1 or a.runs < 1 or a.warmup < 0:
        sys.exit("error: --inputs and --runs must be at least 1, --warmup at least 0")
    require_setup(a.switchyard)
    import numpy as np
    import onnx
    import onnxruntime as ort
    from workload_check import random_inputs

    models = a.models or sorted(glob.glob(os.path.join(HERE, "..", "models", "workloads", "*.onnx")))
    so = ort.SessionOptions()
    so.log_severity_level = 3
    print(f"ONNX Runtime {ort.__version__} (CPU, default threads) vs Switchyard (--devices {a.devices} "
          f"--policy {a.policy}); median over {a.inputs} input sets of the median of {a.runs} runs")
    print(f"{'model':<18}{'ONNX Runtime ms':>16}{'Switchyard ms':>15}{'ratio':>8}")
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in models:
            model = onnx.load(path)
            sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
            rng = np.random.default_rng(a.seed)
            o, s = [], []
            for i in range(a.inputs):
                feeds = random_inputs(model, rng, (0.0, 1.0) if i % 2 == 0 else (-1.0, 1.0))
                if i % 2 == 0:
                    o.append(ort_median_ms(sess, feeds, a.warmup, a.runs))
                    s.append(switchyard_median_ms(a.switchyard, path, feeds, a, tmp))
                else:
                    s.append(switchyard_median_ms(a.switchyard, path, feeds, a, tmp))
                    o.append(ort_median_ms(sess, feeds, a.warmup, a.runs))
            om, sm = statistics.median(o), statistics.median(s)
            ratios.append(sm / om)
            name = os.path.splitext(os.path.basename(path))[0]
            print(f"{name:<18}{om:>16.3f}{sm:>15.3f}{sm / om:>8.2f}")
    geo = statistics.geometric_mean(ratios)
    print(f"ratio = Switchyard / ONNX Runtime (below 1: Switchyard faster); geometric mean {geo:.2f}")


if __name__ == "__main__":
    main()
