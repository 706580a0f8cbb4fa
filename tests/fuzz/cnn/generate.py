#!/usr/bin/env python3
"""Generates the small CNNs that fuzz.cnn_channels_last mutates.

Each case is a folder tests/fuzz/cnn/<case>/ holding model.onnx (opset 17)
and inputs/<name>.npy. They have two convolutions or more, so that on CPUs
the loader runs them channels-last (NhwcConv, NhwcMaxPool,
NhwcGlobalAveragePool) with their residuals written in place, the paths the
ONNX node cases, one node each, never reach:

  resnet_block   a stem Conv, then Conv+Relu, Conv, residual Add, Relu,
                 MaxPool, Conv (the residual a value the block may write over)
  mobile_block   a stem Conv, then 1x1 expand with Clip(0, 6), depthwise 3x3,
                 1x1 project, residual
  se_block       Conv+HardSwish, squeeze-and-excitation (GlobalAveragePool,
                 1x1 convs, HardSigmoid, Mul), Conv
  strided_chain  three images, a strided Conv and a dilated one
  pads_block     a Conv whose pads are as tall as its window (rows of pads
                 only), a residual and a Relu, then a second Conv

Run from anywhere: python3 tests/fuzz/cnn/generate.py
The generated files are committed; tests never need Python.
"""

import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261129)


def weight(name, shape, scale=0.2):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


class Net:
    def __init__(self):
        self.nodes, self.inits = [], []

    def conv(self, x, y, c, m, k, stride=1, dil=1, group=1, pads=None):
        w = f"{y}_w"
        self.inits += [weight(w, (m, c // group, k, k)), weight(f"{y}_b", (m,))]
        pad = (k - 1) * dil // 2
        self.nodes.append(helper.make_node("Conv", [x, w, f"{y}_b"], [y], kernel_shape=[k, k], strides=[stride] * 2,
                                           dilations=[dil] * 2, group=group, pads=pads or [pad] * 4))
        return y

    def op(self, op, inputs, y, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [y], **attrs))
        return y

    def clip(self, x, y, lo, hi):
        self.inits += [numpy_helper.from_array(np.array(v, np.float32), f"{y}_{n}") for n, v in (("lo", lo), ("hi", hi))]
        return self.op("Clip", [x, f"{y}_lo", f"{y}_hi"], y)

    def save(self, case, inputs, output, out_shape):
        graph = helper.make_graph(
            self.nodes, case, [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(v.shape)) for n, v in inputs],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, out_shape)], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        folder = os.path.join(HERE, case)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(os.path.join(folder, "inputs"))
        onnx.save(model, os.path.join(folder, "model.onnx"))
        for n, v in inputs:
            np.save(os.path.join(folder, "inputs", n + ".npy"), v)


def x_of(shape):
    return rng.standard_normal(shape).astype(np.float32)


def resnet_block():
    n = Net()
    x0 = n.op("Relu", [n.conv("x", "stem", 3, 8, 3)], "x0")
    a = n.op("Relu", [n.conv(x0, "c1", 8, 8, 3)], "a")
    s = n.op("Add", [n.conv(a, "c2", 8, 8, 3), x0], "s")
    p = n.op("MaxPool", [n.op("Relu", [s], "r")], "p", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    n.conv(p, "y", 8, 4, 1)
    n.save("resnet_block", [("x", x_of((1, 3, 10, 10)))], "y", [1, 4, 5, 5])


def mobile_block():
    n = Net()
    x0 = n.conv("x", "stem", 3, 8, 3)
    e = n.clip(n.conv(x0, "expand", 8, 24, 1), "e", 0.0, 6.0)
    d = n.clip(n.conv(e, "dw", 24, 24, 3, group=24), "d", 0.0, 6.0)
    n.op("Add", [n.conv(d, "project", 24, 8, 1), x0], "y")
    n.save("mobile_block", [("x", x_of((1, 3, 9, 11)))], "y", [1, 8, 9, 11])


def se_block():
    n = Net()
    h = n.op("HardSwish", [n.conv("x", "c1", 6, 16, 3, stride=2)], "h")
    g = n.op("GlobalAveragePool", [h], "g")
    s = n.op("Relu", [n.conv(g, "squeeze", 16, 4, 1)], "s")
    e = n.op("HardSigmoid", [n.conv(s, "excite", 4, 16, 1)], "e", alpha=1 / 6, beta=0.5)
    n.conv(n.op("Mul", [h, e], "m"), "y", 16, 8, 1)
    n.save("se_block", [("x", x_of((1, 6, 12, 12)))], "y", [1, 8, 6, 6])


def strided_chain():
    n = Net()
    a = n.op("Relu", [n.conv("x", "c1", 4, 8, 3, stride=2)], "a")
    b = n.op("Relu", [n.conv(a, "c2", 8, 8, 3, dil=2)], "b")
    n.conv(b, "y", 8, 4, 3)
    n.save("strided_chain", [("x", x_of((3, 4, 11, 9)))], "y", [3, 4, 6, 5])


def pads_block():
    n = Net()
    a = n.conv("x", "c1", 8, 8, 1, pads=[3, 0, 3, 0])
    r = n.op("Relu", [n.op("Add", [a, "z"], "s")], "r")
    n.conv(r, "y", 8, 8, 3)
    n.save("pads_block", [("x", x_of((1, 8, 1, 5))), ("z", x_of((1, 8, 7, 5)))], "y", [1, 8, 7, 5])


if __name__ == "__main__":
    for make in (resnet_block, mobile_block, se_block, strided_chain, pads_block):
        make()
