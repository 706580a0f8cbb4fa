#!/usr/bin/env python3
"""Convolutions of random geometry through `switchyard run`, against ONNX Runtime.

Each model is a Conv with random pads (up to the window's extent, so that
some output rows or columns read only pads), strides, dilations and groups
(1 or depthwise), then maybe a residual Add and a Relu, Clip or HardSwish, which
the loader fuses into it, and maybe a second Conv, so that the pair runs
channels-last (NhwcConv) rather than as written. What oneDNN's post-ops got
wrong on windows of pads only, silently or with a crash, showed here first.

  conv_geometries_test.py SWITCHYARD [--cases N] [--seed S] [--run-args ARGS]

--run-args adds to each `switchyard run`, e.g. "--devices cuda:0,cpu --policy
gpu" with tests/sy_emulated_switchyard for the CUDA kernels without a GPU.

Exits 77 (ctest's skip) when onnx, onnxruntime or numpy is missing.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

SKIP = 77


def make_case(rng, nrng):
    """A random geometry and its model and feeds; None when it has no output."""
    from onnx import TensorProto, helper, numpy_helper
    import numpy as np

    depthwise = rng.random() < 0.25
    n, c, h, w = rng.randint(1, 2), rng.randint(1, 12), rng.randint(1, 9), rng.randint(1, 9)
    m = c if depthwise else rng.randint(1, 16)
    kh, kw, dh, dw = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 2), rng.randint(1, 2)
    eh, ew = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    pads = [rng.randint(0, eh), rng.randint(0, ew), rng.randint(0, eh), rng.randint(0, ew)]
    strides = [rng.randint(1, 3), rng.randint(1, 3)]
    if h + pads[0] + pads[2] < eh or w + pads[1] + pads[3] < ew:
        return None
    oh = (h + pads[0] + pads[2] - eh) // strides[0] + 1
    ow = (w + pads[1] + pads[3] - ew) // strides[1] + 1
    act, residual = rng.choice(["", "Relu", "Clip", "HardSwish"]), rng.random() < 0.5
    chain = rng.random() < 0.6
    group = c if depthwise else 1

    def array(name, shape):
        return numpy_helper.from_array(nrng.standard_normal(shape).astype(np.float32), name)

    inits = [array("w", (m, c // group, kh, kw)), array("b", (m,))]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["a"], kernel_shape=[kh, kw], pads=pads, strides=strides,
                              dilations=[dh, dw], group=group)]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, c, h, w])]
    feeds = {"x": nrng.standard_normal((n, c, h, w)).astype(np.float32)}
    last = "a"
    if residual:
        inputs.append(helper.make_tensor_value_info("z", TensorProto.FLOAT, [n, m, oh, ow]))
        feeds["z"] = nrng.standard_normal((n, m, oh, ow)).astype(np.float32)
        nodes.append(helper.make_node("Add", [last, "z"], ["s"]))
        last = "s"
    if act in ("Relu", "HardSwish"):
        nodes.append(helper.make_node(act, [last], ["r"]))
        last = "r"
    elif act == "Clip":
        inits += [numpy_helper.from_array(np.array(v, np.float32), name) for name, v in (("lo", -0.5), ("hi", 1.5))]
        nodes.append(helper.make_node("Clip", [last, "lo", "hi"], ["r"]))
        last = "r"
    if chain:
        inits.append(array("w2", (4, m, 3, 3)))
        nodes.append(helper.make_node("Conv", [last, "w2"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
        out = [n, 4, oh, ow]
    else:
        nodes.append(helper.make_node("Identity", [last], ["y"]))
        out = [n, m, oh, ow]
    graph = helper.make_graph(nodes, "conv", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    what = (f"x {[n, c, h, w]}, w {[m, c // group, kh, kw]}, group {group}, pads {pads}, strides {strides}, "
            f"dilations {[dh, dw]}, activation '{act}', residual {residual}, second conv {chain}")
    return model, feeds, what


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("switchyard")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--run-args", default="", help="more arguments for each `switchyard run`")
    args = ap.parse_args()
    try:
        import numpy as np
        import onnx
        import onnxruntime as ort
    except ImportError as e:
        print(f"skipped: needs onnx, onnxruntime and numpy ({e}); scripts/install-deps.sh installs them")
        return SKIP
    rng, nrng = random.Random(args.seed), np.random.default_rng(args.seed)
    failures = ran = 0
    with tempfile.TemporaryDirectory() as tmp:
        while ran < args.cases:
            case = make_case(rng, nrng)
            if case is None:
                continue
            model, feeds, what = case
            ran += 1
            path = os.path.join(tmp, "m.onnx")
            onnx.save(model, path)
            cmd = [args.switchyard, "run", path, "-o", os.path.join(tmp, "out"), "-q"] + args.run_args.split()
            for name, value in feeds.items():
                np.save(os.path.join(tmp, name + ".npy"), value)
                cmd += ["-i", f"{name}={os.path.join(tmp, name + '.npy')}"]
            want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                print(f"case {ran}: exit {p.returncode} ({what}): {p.stderr.strip()[-300:]}")
                failures += 1
                continue
            got = np.load(os.path.join(tmp, "out", "y.npy"))
            err = float(np.abs(got - want).max() / (np.abs(want).max() + 1e-6))
            if got.shape != want.shape or err > 1e-4:
                print(f"case {ran}: differs from ONNX Runtime by {err:.3g} relative ({what})")
                failures += 1
    print(f"{ran} convolutions, {failures} differing from ONNX Runtime {ort.__version__}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
