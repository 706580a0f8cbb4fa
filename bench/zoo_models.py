#!/usr/bin/env python3
"""Writes well-known network shapes with random weights, for whole-model comparisons with
ONNX Runtime beyond the bundled control-flow workloads:

  resnet18.onnx      ResNet-18 at 224x224: Conv (7x7/2 stem, 3x3, 1x1/2 shortcuts), BatchNormalization,
                     Relu, MaxPool, residual Adds, GlobalAveragePool, Gemm (47 MB of weights)
  mobilenetv2.onnx   MobileNetV2 at 224x224: 1x1 and depthwise 3x3 Conv (strides 1 and 2) with bias,
                     Clip(0, 6), residual Adds (14 MB)
  mobilenetv3.onnx   MobileNetV3-Large at 224x224: 1x1 and depthwise 3x3 and 5x5 Conv, HardSwish and Relu,
                     squeeze-and-excitation blocks (GlobalAveragePool, two 1x1 Conv, HardSigmoid, a
                     broadcast Mul), residual Adds (22 MB)
  bert2.onnx         two BERT-base encoder layers, sequence 128: MatMul + Add, Reshape/Transpose into
                     12 heads, Softmax, LayerNormalization, Gelu as Erf arithmetic (57 MB)
  bert2_opset13.onnx the same at opset 13, LayerNormalization written out as exporters write it before
                     opset 17 (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add), as most
                     BERT files in use are; Switchyard and ONNX Runtime both fuse it back at load

The weights are seeded random numbers (BatchNormalization statistics included), so the files are
reproducible but compute nothing meaningful; the op mix, shapes and costs are the real networks'.

  python3 bench/zoo_models.py --out-dir /tmp/zoo
  python3 bench/ort_workloads.py /tmp/zoo/*.onnx

Needs `pip install onnx numpy`.
"""
import argparse
import os
import sys


def builder(rng):
    import numpy as np
    from onnx import numpy_helper as nh

    class B:
        def __init__(self):
            self.nodes, self.inits, self.count = [], [], 0

        def name(self, prefix):
            self.count += 1
            return f"{prefix}{self.count}"

        def weight(self, shape, scale):
            n = self.name("w")
            self.inits.append(nh.from_array((rng.standard_normal(shape) * scale).astype(np.float32), n))
            return n

        def const(self, values, prefix="k"):
            n = self.name(prefix)
            self.inits.append(nh.from_array(np.asarray(values), n))
            return n

        def node(self, op, inputs, **attrs):
            from onnx import helper
            out = self.name(op.lower())
            self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
            return out

    return B()


def resnet18(rng):
    import numpy as np
    b = builder(rng)

    def conv_bn(x, cin, cout, k, stride, relu=True):
        y = b.node("Conv", [x, b.weight([cout, cin, k, k], (2 / (cin * k * k)) ** 0.5)], kernel_shape=[k, k],
                   strides=[stride, stride], pads=[k // 2] * 4)
        stats = [rng.uniform(0.5, 1.5, cout), rng.uniform(-0.1, 0.1, cout), rng.uniform(-0.1, 0.1, cout),
                 rng.uniform(0.5, 1.5, cout)]
        y = b.node("BatchNormalization", [y] + [b.const(s.astype(np.float32), "bn") for s in stats])
        return b.node("Relu", [y]) if relu else y

    x = conv_bn("x", 3, 64, 7, 2)
    x = b.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for cout, stride in [(64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1)]:
        y = conv_bn(conv_bn(x, cin, cout, 3, stride), cout, cout, 3, 1, relu=False)
        shortcut = x if stride == 1 and cin == cout else conv_bn(x, cin, cout, 1, stride, relu=False)
        x, cin = b.node("Relu", [b.node("Add", [y, shortcut])]), cout
    x = b.node("Flatten", [b.node("GlobalAveragePool", [x])])
    y = b.node("Gemm", [x, b.weight([1000, 512], 0.05), b.weight([1000], 0.05)], transB=1)
    return b, [1, 3, 224, 224], y, [1, 1000]


def mobilenetv2(rng):
    import numpy as np
    b = builder(rng)
    zero, six = b.const(np.float32(0)), b.const(np.float32(6))

    def conv(x, cin, cout, k, stride, group=1, act=True):
        y = b.node("Conv", [x, b.weight([cout, cin // group, k, k], (2 / (cin // group * k * k)) ** 0.5),
                            b.weight([cout], 0.01)],
                   kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group)
        return b.node("Clip", [y, zero, six]) if act else y

    x, cin = conv("x", 3, 32, 3, 2), 32
    for expand, cout, repeats, stride in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                                          (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(repeats):
            s, hidden, y = stride if i == 0 else 1, cin * expand, x
            if expand != 1:
                y = conv(y, cin, hidden, 1, 1)
            y = conv(conv(y, hidden, hidden, 3, s, group=hidden), hidden, cout, 1, 1, act=False)
            x, cin = (b.node("Add", [y, x]) if s == 1 and cin == cout else y), cout
    x = b.node("Flatten", [b.node("GlobalAveragePool", [conv(x, cin, 1280, 1, 1)])])
    y = b.node("Gemm", [x, b.weight([1000, 1280], 0.05), b.weight([1000], 0.05)], transB=1)
    return b, [1, 3, 224, 224], y, [1, 1000]


def mobilenetv3(rng):
    b = builder(rng)

    def conv(x, cin, cout, k, stride, group=1, act="HardSwish"):
        y = b.node("Conv", [x, b.weight([cout, cin // group, k, k], (2 / (cin // group * k * k)) ** 0.5),
                            b.weight([cout], 0.01)],
                   kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group)
        return b.node(act, [y]) if act else y

    def squeeze_excite(x, c):
        s = (c // 4 + 4) // 8 * 8  # torchvision's _make_divisible(c // 4, 8)
        scale = conv(conv(b.node("GlobalAveragePool", [x]), c, s, 1, 1, act="Relu"), s, c, 1, 1, act="HardSigmoid")
        return b.node("Mul", [x, scale])

    x, cin = conv("x", 3, 16, 3, 2), 16
    # kernel, expanded, out, squeeze-and-excite, activation, stride: torchvision's mobilenet_v3_large
    for k, hidden, cout, se, act, stride in [
            (3, 16, 16, False, "Relu", 1), (3, 64, 24, False, "Relu", 2), (3, 72, 24, False, "Relu", 1),
            (5, 72, 40, True, "Relu", 2), (5, 120, 40, True, "Relu", 1), (5, 120, 40, True, "Relu", 1),
            (3, 240, 80, False, "HardSwish", 2), (3, 200, 80, False, "HardSwish", 1),
            (3, 184, 80, False, "HardSwish", 1), (3, 184, 80, False, "HardSwish", 1),
            (3, 480, 112, True, "HardSwish", 1), (3, 672, 112, True, "HardSwish", 1),
            (5, 672, 160, True, "HardSwish", 2), (5, 960, 160, True, "HardSwish", 1),
            (5, 960, 160, True, "HardSwish", 1)]:
        y = conv(x, cin, hidden, 1, 1, act=act) if hidden != cin else x
        y = conv(y, hidden, hidden, k, stride, group=hidden, act=act)
        if se:
            y = squeeze_excite(y, hidden)
        y = conv(y, hidden, cout, 1, 1, act=None)
        x, cin = (b.node("Add", [y, x]) if stride == 1 and cin == cout else y), cout
    x = b.node("Flatten", [b.node("GlobalAveragePool", [conv(x, cin, 960, 1, 1)])])
    x = b.node("HardSwish", [b.node("Gemm", [x, b.weight([1280, 960], 0.05), b.weight([1280], 0.05)], transB=1)])
    y = b.node("Gemm", [x, b.weight([1000, 1280], 0.05), b.weight([1000], 0.05)], transB=1)
    return b, [1, 3, 224, 224], y, [1, 1000]


def bert(rng, layers=2, seq=128, hidden=768, heads=12, ff=3072, written_norm=False):
    import numpy as np
    b = builder(rng)
    to_heads = b.const(np.array([1, seq, heads, hidden // heads], np.int64))
    back = b.const(np.array([1, seq, hidden], np.int64))
    scale, half, one, rsqrt2, two, eps = (b.const(np.float32(v))
                                          for v in (1 / np.sqrt(hidden // heads), 0.5, 1, 1 / np.sqrt(2), 2, 1e-5))

    def linear(x, n_in, n_out):
        return b.node("Add", [b.node("MatMul", [x, b.weight([n_in, n_out], (1 / n_in) ** 0.5)]), b.weight([n_out], 0.01)])

    def norm(x):
        gamma, beta = b.const(np.ones(hidden, np.float32)), b.const(np.zeros(hidden, np.float32))
        if not written_norm:
            return b.node("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=1e-5)
        d = b.node("Sub", [x, b.node("ReduceMean", [x], axes=[-1])])
        var = b.node("ReduceMean", [b.node("Pow", [d, two])], axes=[-1])
        n = b.node("Div", [d, b.node("Sqrt", [b.node("Add", [var, eps])])])
        return b.node("Add", [b.node("Mul", [n, gamma]), beta])

    x = "x"
    for _ in range(layers):
        q, k, v = (b.node("Transpose", [b.node("Reshape", [linear(x, hidden, hidden), to_heads])],
                          perm=[0, 2, 3, 1] if which == "k" else [0, 2, 1, 3]) for which in "qkv")
        attn = b.node("Softmax", [b.node("Mul", [b.node("MatMul", [q, k]), scale])], axis=-1)
        ctx = b.node("Reshape", [b.node("Transpose", [b.node("MatMul", [attn, v])], perm=[0, 2, 1, 3]), back])
        x = norm(b.node("Add", [linear(ctx, hidden, hidden), x]))
        f = linear(x, hidden, ff)
        gelu = b.node("Mul", [b.node("Mul", [f, b.node("Add", [b.node("Erf", [b.node("Mul", [f, rsqrt2])]), one])]),
                              half])
        x = norm(b.node("Add", [linear(gelu, ff, hidden), x]))
    return b, [1, seq, hidden], x, [1, seq, hidden]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", required=True, help="folder to write the models into (created if missing)")
    ap.add_argument("--only", default="", help="comma-separated subset of resnet18,mobilenetv2,mobilenetv3,bert2,bert2_opset13")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    try:
        import numpy as np
        import onnx
        from onnx import TensorProto, helper
    except ImportError as e:
        sys.exit(f"error: {e} (pip install onnx numpy)")
    # name: (maker, opset)
    makers = {"resnet18": (resnet18, 17), "mobilenetv2": (mobilenetv2, 17), "mobilenetv3": (mobilenetv3, 17),
              "bert2": (bert, 17),
              "bert2_opset13": (lambda rng: bert(rng, written_norm=True), 13)}
    only = [n for n in a.only.split(",") if n]
    unknown = [n for n in only if n not in makers]
    if unknown:
        sys.exit(f"error: unknown model(s) {', '.join(unknown)}; choose from {', '.join(makers)}")
    os.makedirs(a.out_dir, exist_ok=True)
    for i, (name, (make, opset)) in enumerate(makers.items()):
        if only and name not in only:
            continue
        b, in_shape, out, out_shape = make(np.random.default_rng(a.seed * 100 + i))
        b.nodes.append(helper.make_node("Identity", [out], ["y"]))
        graph = helper.make_graph(b.nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], b.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        path = os.path.join(a.out_dir, name + ".onnx")
        onnx.save(model, path)
        print(f"{path}: {len(b.nodes)} nodes")


if __name__ == "__main__":
    main()
