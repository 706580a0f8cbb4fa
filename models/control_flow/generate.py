#!/usr/bin/env python3
"""Generates the control-flow end-to-end cases used by tests/cli/control_flow_e2e_test.cc.

Each case is a folder models/control_flow/<case>/ holding
  model.onnx            opset 17, ir_version 8
  inputs/<name>.npy     one file per graph input
  expected/<name>.npy   one file per graph output
and, for cases run with several input sets, more pairs named
  inputs_<set>/ and expected_<set>/.

The expected outputs are computed here with plain numpy loops that follow the
ONNX operator definitions by hand. No ONNX runtime or reference evaluator is
used, so the files are an independent check of Switchyard's If/Loop/Scan.

Run from anywhere: python3 models/control_flow/generate.py
The generated files are committed; tests never need Python.
"""

import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8
HERE = os.path.dirname(os.path.abspath(__file__))

F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, arr):
    """A Constant node producing `name` from a numpy array."""
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(arr), name + "_value"))


def save_case(case, graph, sets):
    """sets: list of (suffix, {input: array}, {output: array}); suffix '' is the main set."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="switchyard-gen")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=False)
    d = os.path.join(HERE, case)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for suffix, inputs, expected in sets:
        tag = "_" + suffix if suffix else ""
        for sub, arrays in (("inputs" + tag, inputs), ("expected" + tag, expected)):
            os.makedirs(os.path.join(d, sub))
            for name, arr in arrays.items():
                # np.ascontiguousarray would turn 0-d scalars into shape (1,).
                np.save(os.path.join(d, sub, name + ".npy"), np.array(arr, order="C", copy=True))


# --------------------------------------------------------------------------
# a) Loop: trip count M from an input, data-dependent early exit, scan output.
#    s_{k+1} = s_k + x * (k + 1); continue while sum(s_{k+1}) <= threshold.
# --------------------------------------------------------------------------
def case_loop_early_exit():
    body = helper.make_graph(
        [
            helper.make_node("Cast", ["iter"], ["iter_f"], to=F),
            const("one_f", np.array(1.0, np.float32)),
            helper.make_node("Add", ["iter_f", "one_f"], ["k1"]),
            helper.make_node("Mul", ["x", "k1"], ["step"]),          # x: main-graph input (outer scope)
            helper.make_node("Add", ["s_in", "step"], ["s_out"]),
            helper.make_node("ReduceSum", ["s_out"], ["total"], keepdims=0),
            helper.make_node("Greater", ["total", "threshold"], ["exceeded"]),
            helper.make_node("Not", ["exceeded"], ["cond_out"]),
            helper.make_node("Identity", ["s_out"], ["s_scan"]),
            helper.make_node("Identity", ["iter"], ["iter_scan"]),
        ],
        "loop_body",
        [vi("iter", I64, []), vi("cond_in", B, []), vi("s_in", F, [3])],
        [vi("cond_out", B, []), vi("s_out", F, [3]), vi("s_scan", F, [3]), vi("iter_scan", I64, [])],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Loop", ["M", "cond0", "s0"], ["s_final", "s_history", "iters"], body=body),
        ],
        "loop_early_exit",
        [vi("M", I64, []), vi("threshold", F, []), vi("x", F, [3]), vi("s0", F, [3])],
        [vi("s_final", F, [3]), vi("s_history", F, ["N", 3]), vi("iters", I64, ["N"])],
        initializer=[numpy_helper.from_array(np.array(True), "cond0")],
    )

    def reference(M, threshold, x, s0):
        s = s0.copy()
        hist, iters = [], []
        k, cond = 0, True
        while k < M and cond:
            s = (s + x * np.float32(k + 1)).astype(np.float32)
            cond = not (np.float32(s.sum(dtype=np.float32)) > threshold)
            hist.append(s.copy())
            iters.append(k)
            k += 1
        return {
            "s_final": s,
            "s_history": np.array(hist, np.float32).reshape(len(hist), 3),
            "iters": np.array(iters, np.int64),
        }

    sets = []
    x = np.array([0.5, 1.0, 1.5], np.float32)
    s0 = np.array([0.25, -0.5, 0.0], np.float32)
    # Early exit: sums are 2.75, 8.75, 17.75, 29.75 ... > 20 after 4 iterations, M = 10.
    inp = {"M": np.array(10, np.int64), "threshold": np.array(20.0, np.float32), "x": x, "s0": s0}
    sets.append(("", inp, reference(**inp)))
    # Trip-count limited: threshold never reached, M = 3.
    inp = {"M": np.array(3, np.int64), "threshold": np.array(1000.0, np.float32), "x": x, "s0": s0}
    sets.append(("m_limited", inp, reference(**inp)))
    save_case("loop_early_exit", graph, sets)


# --------------------------------------------------------------------------
# b) If nested in a Loop body; the branches read main-graph initializers (W, B)
#    and loop-body values (v, iter_f) from enclosing scopes.
# --------------------------------------------------------------------------
def case_if_in_loop():
    W = np.array([1.0, 2.0, 3.0], np.float32)
    Bv = np.array([10.0, 20.0, 30.0], np.float32)
    then_g = helper.make_graph(
        [helper.make_node("Mul", ["v", "W"], ["t_out"])],  # v: loop body, W: main initializer
        "then_branch", [], [vi("t_out", F, [3])],
    )
    else_g = helper.make_graph(
        [
            helper.make_node("Sub", ["v", "B"], ["e_tmp"]),      # B: main initializer
            helper.make_node("Add", ["e_tmp", "iter_f"], ["e_out"]),  # iter_f: loop body
        ],
        "else_branch", [], [vi("e_out", F, [3])],
    )
    body = helper.make_graph(
        [
            helper.make_node("Cast", ["iter"], ["iter_f"], to=F),
            const("two", np.array(2, np.int64)),
            const("zero", np.array(0, np.int64)),
            helper.make_node("Mod", ["iter", "two"], ["parity"]),
            helper.make_node("Equal", ["parity", "zero"], ["even"]),
            helper.make_node("Add", ["s_in", "xw"], ["v"]),      # xw: main-graph node output
            helper.make_node("If", ["even"], ["s_out"], then_branch=then_g, else_branch=else_g),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Identity", ["s_out"], ["s_scan"]),
        ],
        "loop_body",
        [vi("iter", I64, []), vi("cond_in", B, []), vi("s_in", F, [3])],
        [vi("cond_out", B, []), vi("s_out", F, [3]), vi("s_scan", F, [3])],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Mul", ["x", "W"], ["xw"]),
            helper.make_node("Loop", ["M", "", "s0"], ["s_final", "s_history"], body=body),
        ],
        "if_in_loop",
        [vi("M", I64, []), vi("x", F, [3]), vi("s0", F, [3])],
        [vi("s_final", F, [3]), vi("s_history", F, ["N", 3])],
        initializer=[numpy_helper.from_array(W, "W"), numpy_helper.from_array(Bv, "B")],
    )

    def reference(M, x, s0):
        xw = x * W
        s = s0.copy()
        hist = []
        for i in range(int(M)):
            v = s + xw
            if i % 2 == 0:
                s = v * W
            else:
                s = (v - Bv) + np.float32(i)
            s = s.astype(np.float32)
            hist.append(s.copy())
        return {"s_final": s, "s_history": np.array(hist, np.float32).reshape(len(hist), 3)}

    inp = {
        "M": np.array(5, np.int64),
        "x": np.array([0.5, -1.0, 0.25], np.float32),
        "s0": np.array([1.0, 2.0, -3.0], np.float32),
    }
    save_case("if_in_loop", graph, [("", inp, reference(**inp))])


# --------------------------------------------------------------------------
# c) Scan: X1 scanned in reverse along axis 0, X2 forward along axis 1;
#    Y1 written in reverse, Y2 forward.
# --------------------------------------------------------------------------
def case_scan_reverse():
    body = helper.make_graph(
        [
            helper.make_node("Mul", ["x1", "x2"], ["prod"]),
            helper.make_node("Add", ["s_in", "prod"], ["s_out"]),
            helper.make_node("Identity", ["s_out"], ["y1"]),
            helper.make_node("Sub", ["x1", "x2"], ["y2"]),
        ],
        "scan_body",
        [vi("s_in", F, [2]), vi("x1", F, [2]), vi("x2", F, [2])],
        [vi("s_out", F, [2]), vi("y1", F, [2]), vi("y2", F, [2])],
    )
    graph = helper.make_graph(
        [
            helper.make_node(
                "Scan", ["s0", "X1", "X2"], ["s_final", "Y1", "Y2"], body=body, num_scan_inputs=2,
                scan_input_directions=[1, 0], scan_input_axes=[0, 1],
                scan_output_directions=[1, 0],
            ),
        ],
        "scan_reverse",
        [vi("s0", F, [2]), vi("X1", F, [4, 2]), vi("X2", F, [2, 4])],
        [vi("s_final", F, [2]), vi("Y1", F, [4, 2]), vi("Y2", F, [4, 2])],
    )

    def reference(s0, X1, X2):
        T = X1.shape[0]
        s = s0.copy()
        y1, y2 = [], []
        for t in range(T):
            x1 = X1[T - 1 - t]   # reversed input, axis 0
            x2 = X2[:, t]        # forward input, axis 1
            s = (s + x1 * x2).astype(np.float32)
            y1.append(s.copy())
            y2.append(x1 - x2)
        return {
            "s_final": s,
            "Y1": np.array(y1[::-1], np.float32),  # reversed output: iteration t lands at T-1-t
            "Y2": np.array(y2, np.float32),
        }

    inp = {
        "s0": np.array([0.5, -1.0], np.float32),
        "X1": np.arange(8, dtype=np.float32).reshape(4, 2) * 0.5 - 1.0,
        "X2": np.array([[1.0, -2.0, 3.0, 0.5], [2.0, 0.25, -1.0, 4.0]], np.float32),
    }
    save_case("scan_reverse", graph, [("", inp, reference(**inp))])


# --------------------------------------------------------------------------
# d) If whose branches return different shapes: then -> [2,3], else -> [3];
#    run with cond true (inputs/) and cond false (inputs_false/).
# --------------------------------------------------------------------------
def case_if_shapes():
    then_g = helper.make_graph(
        [const("two_f", np.array(2.0, np.float32)), helper.make_node("Mul", ["x", "two_f"], ["t_out"])],
        "then_branch", [], [vi("t_out", F, [2, 3])],
    )
    else_g = helper.make_graph(
        [const("axes0", np.array([0], np.int64)), helper.make_node("ReduceSum", ["x", "axes0"], ["e_out"], keepdims=0)],
        "else_branch", [], [vi("e_out", F, [3])],
    )
    # ONNX's checker requires main-graph outputs to declare a shape, so the
    # rank-varying If result y is exposed as its shape and its flattened data;
    # the downstream Shape/Reshape must see whichever shape the branch produced.
    graph = helper.make_graph(
        [
            helper.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g),
            helper.make_node("Shape", ["y"], ["y_shape"]),
            const("minus_one", np.array([-1], np.int64)),
            helper.make_node("Reshape", ["y", "minus_one"], ["y_flat"]),
        ],
        "if_shapes",
        [vi("cond", B, []), vi("x", F, [2, 3])],
        [vi("y_shape", I64, ["R"]), vi("y_flat", F, ["K"])],
    )

    def reference(cond, x):
        y = (x * np.float32(2.0)).astype(np.float32) if bool(cond) else x.sum(axis=0, dtype=np.float32)
        return {"y_shape": np.array(y.shape, np.int64), "y_flat": y.reshape(-1)}

    x = np.array([[1.0, -2.0, 3.5], [0.25, 4.0, -1.5]], np.float32)
    t = {"cond": np.array(True), "x": x}
    f = {"cond": np.array(False), "x": x}
    sets = [("", t, reference(**t)), ("false", f, reference(**f))]
    save_case("if_shapes", graph, sets)


# --------------------------------------------------------------------------
# e) Nested Loops: the inner trip count is (outer iteration + 1), and the inner
#    body reads the outer iteration number from the enclosing scope.
# --------------------------------------------------------------------------
def case_nested_loops():
    inner = helper.make_graph(
        [
            helper.make_node("Cast", ["j"], ["j_f"], to=F),
            helper.make_node("Mul", ["x", "i_f"], ["xi"]),          # x: main graph, i_f: outer body
            helper.make_node("Add", ["a_in", "xi"], ["a_tmp"]),
            helper.make_node("Add", ["a_tmp", "j_f"], ["a_out"]),
            helper.make_node("Identity", ["inner_cond_in"], ["inner_cond_out"]),
            helper.make_node("Identity", ["j"], ["j_scan"]),
        ],
        "inner_body",
        [vi("j", I64, []), vi("inner_cond_in", B, []), vi("a_in", F, [2])],
        [vi("inner_cond_out", B, []), vi("a_out", F, [2]), vi("j_scan", I64, [])],
    )
    outer = helper.make_graph(
        [
            helper.make_node("Cast", ["i"], ["i_f"], to=F),
            const("one_i", np.array(1, np.int64)),
            helper.make_node("Add", ["i", "one_i"], ["inner_m"]),
            helper.make_node("Loop", ["inner_m", "", "acc_in"], ["acc_out", "js"], body=inner),
            helper.make_node("ReduceSum", ["js"], ["js_sum"], keepdims=0),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Identity", ["acc_out"], ["acc_scan"]),
            helper.make_node("Identity", ["inner_m"], ["inner_count"]),
        ],
        "outer_body",
        [vi("i", I64, []), vi("cond_in", B, []), vi("acc_in", F, [2])],
        [vi("cond_out", B, []), vi("acc_out", F, [2]), vi("acc_scan", F, [2]), vi("js_sum", I64, []),
         vi("inner_count", I64, [])],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "acc0"], ["acc_final", "acc_history", "j_sums", "inner_counts"], body=outer)],
        "nested_loops",
        [vi("M", I64, []), vi("x", F, [2]), vi("acc0", F, [2])],
        [vi("acc_final", F, [2]), vi("acc_history", F, ["N", 2]), vi("j_sums", I64, ["N"]),
         vi("inner_counts", I64, ["N"])],
    )

    def reference(M, x, acc0):
        acc = acc0.copy()
        hist, jsums, counts = [], [], []
        for i in range(int(M)):
            js = []
            for j in range(i + 1):
                acc = ((acc + x * np.float32(i)) + np.float32(j)).astype(np.float32)
                js.append(j)
            hist.append(acc.copy())
            jsums.append(int(np.sum(np.array(js, np.int64))))
            counts.append(i + 1)
        return {
            "acc_final": acc,
            "acc_history": np.array(hist, np.float32).reshape(len(hist), 2),
            "j_sums": np.array(jsums, np.int64),
            "inner_counts": np.array(counts, np.int64),
        }

    inp = {"M": np.array(4, np.int64), "x": np.array([0.5, -0.25], np.float32), "acc0": np.array([1.0, 2.0], np.float32)}
    save_case("nested_loops", graph, [("", inp, reference(**inp))])


# --------------------------------------------------------------------------
# f) Zero-trip Loop: M = 0 returns the initial carried value unchanged and an
#    empty scan output of shape [0, 2, 2] (the body declares [2, 2]).
# --------------------------------------------------------------------------
def case_zero_trip_loop():
    body = helper.make_graph(
        [
            const("two_f", np.array(2.0, np.float32)),
            helper.make_node("Mul", ["s_in", "two_f"], ["s_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Identity", ["s_out"], ["s_scan"]),
        ],
        "loop_body",
        [vi("iter", I64, []), vi("cond_in", B, []), vi("s_in", F, [2, 2])],
        [vi("cond_out", B, []), vi("s_out", F, [2, 2]), vi("s_scan", F, [2, 2])],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "s0"], ["s_final", "s_history"], body=body)],
        "zero_trip_loop",
        [vi("M", I64, []), vi("s0", F, [2, 2])],
        [vi("s_final", F, [2, 2]), vi("s_history", F, ["N", 2, 2])],
    )

    def reference(M, s0):
        s = s0.copy()
        hist = []
        for _ in range(int(M)):
            s = s * np.float32(2.0)
            hist.append(s.copy())
        return {"s_final": s, "s_history": np.array(hist, np.float32).reshape(len(hist), 2, 2)}

    inp = {"M": np.array(0, np.int64), "s0": np.array([[1.5, -2.0], [0.0, 3.25]], np.float32)}
    save_case("zero_trip_loop", graph, [("", inp, reference(**inp))])


def main():
    case_loop_early_exit()
    case_if_in_loop()
    case_scan_reverse()
    case_if_shapes()
    case_nested_loops()
    case_zero_trip_loop()


if __name__ == "__main__":
    main()
