"""generate.py --check: each model on random inputs with onnxruntime (one
thread) against its numpy reference, with timings and control-flow
statistics, and optionally with a switchyard binary too."""

import os
import subprocess
import tempfile
import time

import numpy as np

from onnx_graph import F, I64


def random_inputs(model, rng, float_range):
    lo, hi = float_range
    feeds = {}
    inits = {t.name for t in model.graph.initializer}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        tt = inp.type.tensor_type
        shape = [d.dim_value for d in tt.shape.dim]
        if tt.elem_type == F:
            feeds[inp.name] = rng.uniform(lo, hi, shape).astype(np.float32)
        elif tt.elem_type == I64:
            feeds[inp.name] = rng.integers(0, 8, shape).astype(np.int64)
        else:
            raise ValueError(f"{inp.name}: unexpected input type")
    return feeds


def check(workloads, out_dir, a):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.log_severity_level = 3
    failures = 0
    print(f"\nonnxruntime {ort.__version__}, 1 thread; time = median over {a.check_inputs} random input sets of the "
          f"best of {a.check_runs} runs (p10-p90 across input sets: data-dependent control flow)")
    for w in workloads:
        path = os.path.join(out_dir, w.name + ".onnx")
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        out_names = [o.name for o in sess.get_outputs()]
        rng = np.random.default_rng(12345)
        mismatches, behaviour, times = [], {}, []
        for i in range(a.check_inputs):
            rangei = (0.0, 1.0) if i % 2 == 0 else (-1.0, 1.0)
            feeds = random_inputs(w.model, rng, rangei)
            got = dict(zip(out_names, sess.run(None, feeds)))
            for k, v in got.items():
                if v.dtype.kind == "f" and not np.isfinite(v).all():
                    mismatches.append(f"{k}: non-finite values")
            bad = w.verify(feeds, got)
            if bad:
                mismatches.append(f"input set {i}: " + "; ".join(bad))
            if w.describe:
                for label, v in w.describe(got).items():
                    behaviour.setdefault(label, []).append(v)
            ts = []
            for _ in range(a.check_runs):
                t0 = time.perf_counter()
                sess.run(None, feeds)
                ts.append(time.perf_counter() - t0)
            times.append(min(ts) * 1e3)  # best of N: robust to other processes on the machine
        size = os.path.getsize(path) / 1e6
        t = np.array(times)
        print(f"  {w.name:16s} {size:5.2f} MB  {np.median(t):7.2f} ms  ({np.percentile(t, 10):.2f}-"
              f"{np.percentile(t, 90):.2f})  reference: {'ok' if not mismatches else f'{len(mismatches)} MISMATCH'}")
        for label, vals in behaviour.items():
            vals = np.array(vals)
            u, c = np.unique(vals, return_counts=True)
            if len(u) <= 10:
                hist = ", ".join(f"{x} x{n}" for x, n in zip(u, c))
            else:
                hist = (f"min {vals.min()}, median {np.median(vals):g}, max {vals.max()} (x{c[-1]}), "
                        f"{len(u)} distinct")
            print(f"      {label} over input sets: {hist}")
        for m in mismatches[:5]:
            print("      " + m)
        failures += bool(mismatches)
        if a.switchyard:
            run_switchyard(a.switchyard, w, path, a)
    return failures


def run_switchyard(binary, w, path, a):
    """Runs the model with a switchyard binary: on the generator's inputs (outputs compared with the numpy
    reference) and once with its own --random-inputs for a timing."""
    import json

    rng = np.random.default_rng(777)
    bad, n_ok = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.switchyard_inputs):
            feeds = random_inputs(w.model, rng, (0.0, 1.0) if i % 2 == 0 else (-1.0, 1.0))
            args = []
            for k, v in feeds.items():
                f = os.path.join(tmp, f"in{i}_{k}.npy")
                np.save(f, v)
                args += ["-i", f"{k}={f}"]
            out = os.path.join(tmp, f"out{i}")
            r = _sy(binary + " run " + path, [binary, "run", path, *args, "-o", out, "-q"])
            if r is None:
                return
            try:
                got = {o.name: np.load(os.path.join(out, o.name + ".npy")) for o in w.model.graph.output}
            except OSError as e:
                bad.append(f"input set {i}: {e}")
                continue
            diff = w.verify(feeds, got)
            if diff:
                bad.append(f"input set {i}: " + "; ".join(diff))
            else:
                n_ok += 1
        report = os.path.join(tmp, "report.json")
        r = _sy(binary, [binary, "run", path, "--random-inputs", "--seed", "1", "-n", str(a.check_runs),
                         "--report", report, "-q"])
        t = ""
        if r is not None:
            with open(report) as f:
                rep = json.load(f)
            t = f", --random-inputs p50 {rep.get('p50_ms', float('nan')):.2f} ms over {a.check_runs} runs"
    print(f"      switchyard: {n_ok}/{a.switchyard_inputs} input sets match the reference{t}")
    for m in bad[:5]:
        print("        " + m)


def _sy(what, cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"      switchyard: {e}")
        return None
    if r.returncode != 0:
        print(f"      switchyard: exit {r.returncode}: {(r.stderr or r.stdout).strip()[:300]}")
        return None
    return r
