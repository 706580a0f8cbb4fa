"""Graph-building helpers for the workload generator (generate.py) and its
--check (workload_check.py): unique names, node lists per (sub)graph,
initializers, numpy references of the basic blocks, and the output
comparison both the generator's references and --check use."""

import itertools

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8
EPS = 1e-5

F = TensorProto.FLOAT
I64 = TensorProto.INT64
BOOL = TensorProto.BOOL


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


class Namer:
    """Model-wide unique value names (ONNX forbids reusing a name in a subgraph)."""

    def __init__(self):
        self._n = itertools.count()

    def __call__(self, hint):
        return f"{hint}_{next(self._n)}"


class Scope:
    """Node list of one (sub)graph. Small constants are Constant nodes in this scope."""

    def __init__(self, namer):
        self.namer = namer
        self.nodes = []

    def op(self, op_type, inputs, outs=None, n_out=1, **attrs):
        """Adds a node; returns its output name (or list of names when n_out > 1)."""
        if outs is None:
            outs = [self.namer(op_type.lower()) for _ in range(n_out)]
        elif isinstance(outs, str):
            outs = [outs]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs, name=self.namer("n_" + op_type), **attrs))
        return outs[0] if len(outs) == 1 else outs

    def const(self, arr, hint="c"):
        name = self.namer(hint)
        self.nodes.append(helper.make_node("Constant", [], [name], name=self.namer("n_Constant"),
                                           value=numpy_helper.from_array(np.asarray(arr), name + "_value")))
        return name

    def i64(self, v, hint="k"):
        return self.const(np.array(v, np.int64), hint)

    def f32(self, v, hint="k"):
        return self.const(np.array(v, np.float32), hint)

    def norm(self, x, axis=-1):
        """(x - mean) / sqrt(var + eps) along `axis` (LayerNorm without affine, from basic ops)."""
        m = self.op("ReduceMean", [x], axes=[axis], keepdims=1)
        d = self.op("Sub", [x, m])
        v = self.op("ReduceMean", [self.op("Mul", [d, d])], axes=[axis], keepdims=1)
        return self.op("Div", [d, self.op("Sqrt", [self.op("Add", [v, self.f32(EPS, "eps")])])])

    def graph(self, name, inputs, outputs, initializer=()):
        return helper.make_graph(self.nodes, name, inputs, outputs, initializer=list(initializer))


class Weights:
    """Main-graph initializers."""

    def __init__(self):
        self.tensors = []

    def add(self, name, arr):
        # np.ascontiguousarray would turn 0-d scalars into shape (1,).
        self.tensors.append(numpy_helper.from_array(np.array(arr, order="C", copy=True), name))
        return name


def glorot(rng, fan_in, fan_out, gain=1.0):
    return (rng.standard_normal((fan_in, fan_out)) * (gain / np.sqrt(fan_in))).astype(np.float32)


def np_norm(x, axis=-1):
    x = x.astype(np.float32)
    m = x.mean(axis=axis, keepdims=True, dtype=np.float32)
    d = x - m
    v = (d * d).mean(axis=axis, keepdims=True, dtype=np.float32)
    return (d / np.sqrt(v + np.float32(EPS))).astype(np.float32)


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float32)


def np_sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x))).astype(np.float32)


def make_model(graph):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="switchyard-gen")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


class Workload:
    """A built model plus what --check needs: a numpy reference and a summary of its control flow."""

    def __init__(self, name, model, reference, describe=None, exact_outputs=(), stats=None, verify=None):
        self.name = name
        self.model = model
        self.reference = reference          # dict of inputs -> dict of outputs (numpy)
        self.describe = describe            # outputs -> {label: int} (trip count, exit depth, route, ...)
        self.exact_outputs = set(exact_outputs)  # int outputs compared exactly
        self.stats = stats or {}            # calibration facts printed by the generator
        self._verify = verify               # (outputs, **inputs) -> problems; default: compare with reference

    def verify(self, feeds, got):
        """Problems (strings) found in a runtime's outputs `got` for inputs `feeds`; empty when they are right."""
        if self._verify:
            return self._verify(got, **feeds)
        return compare_outputs(self.reference(**feeds), got, self.exact_outputs)


def compare_outputs(ref, got, exact=()):
    """Shapes equal; outputs in `exact` bit-equal, the rest within rtol 1e-3, atol 1e-4."""
    bad = []
    for name, r in ref.items():
        o = got[name]
        if o.shape != r.shape:
            bad.append(f"{name}: shape {o.shape} vs reference {r.shape}")
        elif name in exact:
            if not np.array_equal(o, r):
                bad.append(f"{name}: differs")
        elif not np.allclose(o, r, rtol=1e-3, atol=1e-4):
            bad.append(f"{name}: max abs diff {np.abs(o - r).max():.3g}")
    return bad
