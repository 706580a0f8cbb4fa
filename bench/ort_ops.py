#!/usr/bin/env python3
"""Single-op latency of ONNX Runtime and Switchyard on the same CPU, side by side.

Each case is a one-node model (opset 17) of a common op at a typical size. Both runtimes run it
on the same random inputs: ONNX Runtime (CPU provider, default threads, all optimisations) in this
process, Switchyard through `switchyard run` with the given --devices and --policy (default: cpu,
single). A case's figure is the median of --runs timed runs after --warmup untimed ones. Each
runtime's fixed cost of a run (its median on a one-element Identity model: Python and session
overhead for ONNX Runtime, the run loop for Switchyard) is subtracted before the ratio, so that
the ratio compares the kernels; the raw medians are printed too. This is the tool that finds
slow CPU kernels: whole models (bench/ort_workloads.py) tell that something is slow, this tells
which op.

  python3 bench/ort_ops.py [--switchyard build/switchyard] [--runs 300] [--only Softmax,MatMul]

Needs `pip install onnxruntime numpy onnx`.
"""
import argparse
import os
import statistics
import sys
import tempfile

from ort_workloads import ort_median_ms, require_setup, switchyard_median_ms

F32, I64, BOOL = "float32", "int64", "bool"


def cases():
    """(name, op, inputs [(name, dtype, shape)], attrs, constant inputs {name: array}, output count[, opset]).

    An input named "" is an omitted optional one."""
    import numpy as np

    i64 = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
    rng = np.random.default_rng(7)
    big = [256, 1024]
    return [
        ("Add [64,448]+[448]", "Add", [("a", F32, [64, 448]), ("b", F32, [448])], {}, {}, 1),
        ("Mul [256,1024]", "Mul", [("a", F32, big), ("b", F32, big)], {}, {}, 1),
        ("Div [64,448]/[64,1]", "Div", [("a", F32, [64, 448]), ("b", F32, [64, 1])], {}, {}, 1),
        ("Relu [256,1024]", "Relu", [("x", F32, big)], {}, {}, 1),
        ("Sigmoid [256,1024]", "Sigmoid", [("x", F32, big)], {}, {}, 1),
        ("Tanh [256,1024]", "Tanh", [("x", F32, big)], {}, {}, 1),
        ("Exp [256,1024]", "Exp", [("x", F32, big)], {}, {}, 1),
        ("Erf [256,1024]", "Erf", [("x", F32, big)], {}, {}, 1),
        ("Sqrt [256,1024]", "Sqrt", [("x", F32, big)], {}, {}, 1),
        ("Clip [256,1024]", "Clip", [("x", F32, big)], {}, {"lo": np.float32(0), "hi": np.float32(0.5)}, 1),
        ("Where [256,1024]", "Where", [("c", BOOL, big), ("a", F32, big), ("b", F32, big)], {}, {}, 1),
        ("Cast f32->f16 [256,1024]", "Cast", [("x", F32, big)], {"to": 10}, {}, 1),
        ("ReduceMean last [256,1024]", "ReduceMean", [("x", F32, big)], {"axes": [-1]}, {}, 1),
        ("ReduceSum first [256,1024]", "ReduceSum", [("x", F32, big)], {}, {"axes": i64(0)}, 1),
        ("ReduceMax last [256,1024]", "ReduceMax", [("x", F32, big)], {"axes": [-1]}, {}, 1),
        ("ArgMax last [64,1000]", "ArgMax", [("x", F32, [64, 1000])], {"axis": -1}, {}, 1),
        ("Softmax [64,1000]", "Softmax", [("x", F32, [64, 1000])], {}, {}, 1),
        ("LogSoftmax [64,1000]", "LogSoftmax", [("x", F32, [64, 1000])], {}, {}, 1),
        ("TopK k=5 [64,1000]", "TopK", [("x", F32, [64, 1000])], {}, {"k": i64(5)}, 2),
        ("CumSum [64,1000]", "CumSum", [("x", F32, [64, 1000])], {}, {"axis": i64(1)}, 1),
        ("LayerNorm [64,768]", "LayerNormalization", [("x", F32, [64, 768])], {"axis": -1},
         {"g": rng.random(768, dtype=np.float32), "b": rng.random(768, dtype=np.float32)}, 1),
        ("BatchNorm [8,64,56,56]", "BatchNormalization", [("x", F32, [8, 64, 56, 56])], {},
         {"s": rng.random(64, dtype=np.float32), "b": rng.random(64, dtype=np.float32),
          "m": rng.random(64, dtype=np.float32), "v": rng.random(64, dtype=np.float32) + 0.5}, 1),
        ("InstanceNorm [8,64,56,56]", "InstanceNormalization", [("x", F32, [8, 64, 56, 56])], {},
         {"s": rng.random(64, dtype=np.float32), "b": rng.random(64, dtype=np.float32)}, 1),
        ("MatMul [64,768]x[768,768]", "MatMul", [("a", F32, [64, 768]), ("b", F32, [768, 768])], {}, {}, 1),
        ("MatMul [1,768]x[768,3072]", "MatMul", [("a", F32, [1, 768]), ("b", F32, [768, 3072])], {}, {}, 1),
        ("MatMul [8,64,64]x[8,64,64]", "MatMul", [("a", F32, [8, 64, 64]), ("b", F32, [8, 64, 64])], {}, {}, 1),
        ("Gemm transB [64,768]x[768,768]'", "Gemm", [("a", F32, [64, 768]), ("b", F32, [768, 768]),
                                                      ("c", F32, [768])], {"transB": 1}, {}, 1),
        ("Conv 3x3 [1,64,56,56]", "Conv", [("x", F32, [1, 64, 56, 56])], {"pads": [1, 1, 1, 1]},
         {"w": rng.random((64, 64, 3, 3), dtype=np.float32)}, 1),
        ("Conv 1x1 [1,256,28,28]", "Conv", [("x", F32, [1, 256, 28, 28])], {},
         {"w": rng.random((128, 256, 1, 1), dtype=np.float32)}, 1),
        ("Conv depthwise [1,128,56,56]", "Conv", [("x", F32, [1, 128, 56, 56])], {"group": 128, "pads": [1, 1, 1, 1]},
         {"w": rng.random((128, 1, 3, 3), dtype=np.float32)}, 1),
        ("MaxPool 3x3/2 [1,64,112,112]", "MaxPool", [("x", F32, [1, 64, 112, 112])],
         {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, {}, 1),
        ("AveragePool 2x2/2 [1,64,112,112]", "AveragePool", [("x", F32, [1, 64, 112, 112])],
         {"kernel_shape": [2, 2], "strides": [2, 2]}, {}, 1),
        ("MaxPool 2x2/2 [1,32,224,224]", "MaxPool", [("x", F32, [1, 32, 224, 224])],
         {"kernel_shape": [2, 2], "strides": [2, 2]}, {}, 1),
        ("AveragePool 3x3/2 ceil [8,64,28,28]", "AveragePool", [("x", F32, [8, 64, 28, 28])],
         {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1, "count_include_pad": 1},
         {}, 1),
        ("GlobalAveragePool [8,512,7,7]", "GlobalAveragePool", [("x", F32, [8, 512, 7, 7])], {}, {}, 1),
        ("Transpose 2-D [768,768]", "Transpose", [("x", F32, [768, 768])], {"perm": [1, 0]}, {}, 1),
        ("Transpose 0213 [8,12,64,64]", "Transpose", [("x", F32, [8, 12, 64, 64])], {"perm": [0, 2, 1, 3]}, {}, 1),
        ("Transpose 0312 [8,56,56,64]", "Transpose", [("x", F32, [8, 56, 56, 64])], {"perm": [0, 3, 1, 2]}, {}, 1),
        ("Concat axis 1 [64,448]x3", "Concat", [("a", F32, [64, 448]), ("b", F32, [64, 448]), ("c", F32, [64, 448])],
         {"axis": 1}, {}, 1),
        ("Split axis 1 [64,1536]", "Split", [("x", F32, [64, 1536])], {"axis": 1}, {}, 3),
        ("Slice step 2 [256,1024]", "Slice", [("x", F32, big)], {},
         {"st": i64(0, 0), "en": i64(256, 1024), "ax": i64(0, 1), "sp": i64(1, 2)}, 1),
        ("Gather rows [30000,256]", "Gather", [("x", F32, [30000, 256])], {"axis": 0},
         {"i": rng.integers(0, 30000, 64).astype(np.int64)}, 1),
        ("GatherElements [256,1024]", "GatherElements", [("x", F32, big)], {"axis": 1},
         {"i": rng.integers(0, 1024, big).astype(np.int64)}, 1),
        ("Expand [1,1024]->[256,1024]", "Expand", [("x", F32, [1, 1024])], {}, {"sh": i64(256, 1024)}, 1),
        ("Tile x4 [64,256]", "Tile", [("x", F32, [64, 256])], {}, {"r": i64(4, 4)}, 1),
        ("Pad 2 [8,64,56,56]", "Pad", [("x", F32, [8, 64, 56, 56])], {}, {"p": i64(0, 0, 2, 2, 0, 0, 2, 2)}, 1),
        ("Resize nearest x2 [1,64,56,56]", "Resize", [("x", F32, [1, 64, 56, 56])], {"mode": "nearest"},
         {"roi": np.zeros(0, np.float32), "sc": np.array([1, 1, 2, 2], np.float32)}, 1),
        ("Resize linear x2 [1,64,56,56]", "Resize", [("x", F32, [1, 64, 56, 56])], {"mode": "linear"},
         {"roi": np.zeros(0, np.float32), "sc": np.array([1, 1, 2, 2], np.float32)}, 1),
        ("Pow ^2 [256,1024]", "Pow", [("x", F32, big)], {}, {"e": np.float32(2)}, 1),
        ("LeakyRelu [256,1024]", "LeakyRelu", [("x", F32, big)], {"alpha": 0.1}, {}, 1),
        ("Elu [256,1024]", "Elu", [("x", F32, big)], {}, {}, 1),
        ("Floor [256,1024]", "Floor", [("x", F32, big)], {}, {}, 1),
        ("Not [256,1024]", "Not", [("x", BOOL, big)], {}, {}, 1),
        ("QuantizeLinear u8 [256,1024]", "QuantizeLinear", [("x", F32, big)], {},
         {"s": np.float32(0.02), "z": np.uint8(128)}, 1),
        ("Softplus [256,1024]", "Softplus", [("x", F32, big)], {}, {}, 1),
        ("ReduceL2 last [256,1024]", "ReduceL2", [("x", F32, big)], {"axes": [-1]}, {}, 1),
        ("LRN size 5 [8,64,28,28]", "LRN", [("x", F32, [8, 64, 28, 28])], {"size": 5}, {}, 1),
        ("Einsum bij,bjk [8,64,64]", "Einsum", [("a", F32, [8, 64, 64]), ("b", F32, [8, 64, 64])],
         {"equation": "bij,bjk->bik"}, {}, 1),
        ("Conv 3x3 batch 8 [8,64,28,28]", "Conv", [("x", F32, [8, 64, 28, 28])], {"pads": [1, 1, 1, 1]},
         {"w": rng.random((64, 64, 3, 3), dtype=np.float32)}, 1),
        ("ConvTranspose 2x2/2 [1,64,28,28]", "ConvTranspose", [("x", F32, [1, 64, 28, 28])], {"strides": [2, 2]},
         {"w": rng.random((64, 32, 2, 2), dtype=np.float32)}, 1),
        ("LSTM T=32 [8,64]->128", "LSTM", [("x", F32, [32, 8, 64])], {"hidden_size": 128},
         {"w": rng.uniform(-0.1, 0.1, (1, 512, 64)).astype(np.float32),
          "r": rng.uniform(-0.1, 0.1, (1, 512, 128)).astype(np.float32)}, 1),
        ("GRU T=32 [8,64]->128", "GRU", [("x", F32, [32, 8, 64])], {"hidden_size": 128},
         {"w": rng.uniform(-0.1, 0.1, (1, 384, 64)).astype(np.float32),
          "r": rng.uniform(-0.1, 0.1, (1, 384, 128)).astype(np.float32)}, 1),
        # Other layouts, axes and ranks (a fourth round, 2026-11-22): 3-D
        # windows, reductions and scans over outer axes, casts, [N, C] norms.
        ("ConvT 4x4/2 [1,128,16,16]->64", "ConvTranspose", [("x", F32, [1, 128, 16, 16])],
         {"strides": [2, 2], "pads": [1, 1, 1, 1]}, {"w": rng.standard_normal((128, 64, 4, 4)).astype(np.float32)}, 1),
        ("ConvT 3-D 2x2x2/2 [1,32,8,16,16]", "ConvTranspose", [("x", F32, [1, 32, 8, 16, 16])], {"strides": [2, 2, 2]},
         {"w": rng.standard_normal((32, 16, 2, 2, 2)).astype(np.float32)}, 1),
        ("MaxPool 3-D 2x2x2 [1,32,16,32,32]", "MaxPool", [("x", F32, [1, 32, 16, 32, 32])],
         {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]}, {}, 1),
        ("AvgPool 1-D k3 [8,64,1000]", "AveragePool", [("x", F32, [8, 64, 1000])],
         {"kernel_shape": [3], "pads": [1, 1]}, {}, 1),
        ("BatchNorm 2-D [256,1024]", "BatchNormalization", [("x", F32, [256, 1024])], {},
         {"s": rng.random(1024, dtype=np.float32), "b": rng.random(1024, dtype=np.float32),
          "m": rng.random(1024, dtype=np.float32), "v": rng.random(1024, dtype=np.float32) + 0.5}, 1),
        ("LayerNorm axis 1 [8,64,32,32]", "LayerNormalization", [("x", F32, [8, 64, 32, 32])], {"axis": 1},
         {"g": rng.random((64, 32, 32), dtype=np.float32)}, 1),
        ("Softmax axis 1 [8,64,32,32]", "Softmax", [("x", F32, [8, 64, 32, 32])], {"axis": 1}, {}, 1),
        ("ArgMax axis 1 [8,64,32,32]", "ArgMax", [("x", F32, [8, 64, 32, 32])], {"axis": 1}, {}, 1),
        ("ReduceMean axes 2,3 [8,256,28,28]", "ReduceMean", [("x", F32, [8, 256, 28, 28])], {"axes": [2, 3]}, {}, 1),
        ("ReduceSum mid keep [64,256,64]", "ReduceSum", [("x", F32, [64, 256, 64])], {}, {"axes": i64(1)}, 1),
        ("ReduceMax axis 0 [1024,1024]", "ReduceMax", [("x", F32, [1024, 1024])], {"axes": [0]}, {}, 1),
        ("Gather axis 1 [64,1000] idx[100]", "Gather", [("x", F32, [64, 1000])], {"axis": 1},
         {"i": rng.integers(0, 1000, 100).astype(np.int64)}, 1),
        ("GatherND [64,128,64] idx[64,1]", "GatherND", [("x", F32, [64, 128, 64])], {"batch_dims": 1},
         {"i": rng.integers(0, 128, (64, 1)).astype(np.int64)}, 1),
        ("ScatterND [1024,256] 64 rows", "ScatterND", [("x", F32, [1024, 256])], {},
         {"i": rng.permutation(1024)[:64].reshape(64, 1).astype(np.int64),
          "u": rng.random((64, 256), dtype=np.float32)}, 1),
        ("ScatterElements axis1 [256,1024]", "ScatterElements", [("x", F32, [256, 1024])], {"axis": 1},
         {"i": rng.integers(0, 1024, (256, 64)).astype(np.int64), "u": rng.random((256, 64), dtype=np.float32)}, 1),
        ("Transpose 5-D [2,16,16,32,32] 04123", "Transpose", [("x", F32, [2, 16, 16, 32, 32])],
         {"perm": [0, 4, 1, 2, 3]}, {}, 1),
        ("MatMul bcast [16,128,256]x[256,256]", "MatMul", [("a", F32, [16, 128, 256]), ("b", F32, [256, 256])], {}, {},
         1),
        ("MatMul [1,1,4096]x[4096,4096]", "MatMul", [("a", F32, [1, 1, 4096])], {},
         {"b": rng.standard_normal((4096, 4096)).astype(np.float32)}, 1),
        ("MatMul [4,4096]x[4096,4096]", "MatMul", [("a", F32, [4, 4096])], {},
         {"b": rng.standard_normal((4096, 4096)).astype(np.float32)}, 1),
        ("Gemm transB [1,4096]x[4096,4096]'", "Gemm", [("a", F32, [1, 4096])], {"transB": 1},
         {"b": rng.standard_normal((4096, 4096)).astype(np.float32)}, 1),
        # BERT-base's projections at sequence 128, weights as initializers (bench/zoo_models.py's bert2).
        *[(f"MatMul BERT [128,{k}]x[{k},{n}]", "MatMul", [("a", F32, [128, k])], {},
           {"b": (rng.standard_normal((k, n)) * 0.05).astype(np.float32)}, 1)
          for k, n in ((768, 768), (768, 3072), (3072, 768))],
        ("Cast f32->i32 [256,1024]", "Cast", [("x", F32, [256, 1024])], {"to": 6}, {}, 1),
        ("Cast f32->i64 [256,1024]", "Cast", [("x", F32, [256, 1024])], {"to": 7}, {}, 1),
        ("Pad reflect [8,64,56,56]", "Pad", [("x", F32, [8, 64, 56, 56])], {"mode": "reflect"},
         {"p": i64(0, 0, 2, 2, 0, 0, 2, 2)}, 1),
        ("Pad edge [8,64,56,56]", "Pad", [("x", F32, [8, 64, 56, 56])], {"mode": "edge"},
         {"p": i64(0, 0, 2, 2, 0, 0, 2, 2)}, 1),
        ("SpaceToDepth 2 [8,64,56,56]", "SpaceToDepth", [("x", F32, [8, 64, 56, 56])], {"blocksize": 2}, {}, 1),
        ("DepthToSpace 2 [8,256,28,28]", "DepthToSpace", [("x", F32, [8, 256, 28, 28])], {"blocksize": 2}, {}, 1),
        ("CumSum axis 0 [1000,256]", "CumSum", [("x", F32, [1000, 256])], {}, {"a": i64(0)}, 1),
        ("TopK k=100 [64,10000]", "TopK", [("x", F32, [64, 10000])], {}, {"k": i64(100)}, 2),
        ("Sum 4 [256,1024]", "Sum",
         [("a", F32, [256, 1024]), ("b", F32, [256, 1024]), ("c", F32, [256, 1024]), ("d", F32, [256, 1024])], {}, {},
         1),
        ("Max 3 bcast [256,1024]", "Max", [("a", F32, [256, 1024]), ("b", F32, [1, 1024]), ("c", F32, [256, 1])], {},
         {}, 1),
        ("Concat axis 0 x8 [32,1024]", "Concat", [(c, F32, [32, 1024]) for c in "abcdefgh"], {"axis": 0}, {}, 1),
        ("Split axis 0 x8 [256,1024]", "Split", [("x", F32, [256, 1024])], {"axis": 0}, {}, 8),
        ("Slice 4-D middle [8,64,56,56]", "Slice", [("x", F32, [8, 64, 56, 56])], {},
         {"s": i64(8, 8), "e": i64(48, 48), "ax": i64(2, 3)}, 1),
        ("Expand 4-D [8,1,56,56]->[8,64,56,56]", "Expand", [("x", F32, [8, 1, 56, 56])], {}, {"sh": i64(8, 64, 56, 56)},
         1),
        ("Tile 4-D [8,64,28,28] x(1,1,2,2)", "Tile", [("x", F32, [8, 64, 28, 28])], {}, {"r": i64(1, 1, 2, 2)}, 1),
        ("HardSwish [256,1024]", "HardSwish", [("x", F32, [256, 1024])], {}, {}, 1),
        ("Erf [8,128,768]", "Erf", [("x", F32, [8, 128, 768])], {}, {}, 1),
        ("Mod fmod [256,1024]", "Mod", [("a", F32, [256, 1024]), ("b", F32, [256, 1024])], {"fmod": 1}, {}, 1),
        ("Sign [256,1024]", "Sign", [("x", F32, [256, 1024])], {}, {}, 1),
        ("Log [256,1024]", "Log", [("x", F32, [256, 1024])], {}, {}, 1),
        ("Abs [256,1024]", "Abs", [("x", F32, [256, 1024])], {}, {}, 1),
        ("Reciprocal [256,1024]", "Reciprocal", [("x", F32, [256, 1024])], {}, {}, 1),
        ("Greater [256,1024]", "Greater", [("a", F32, [256, 1024]), ("b", F32, [256, 1024])], {}, {}, 1),
        ("Equal bcast [256,1024]", "Equal", [("a", F32, [256, 1024]), ("b", F32, [1024])], {}, {}, 1),
        ("ReduceLogSumExp last [256,1024]", "ReduceLogSumExp", [("x", F32, [256, 1024])], {"axes": [-1]}, {}, 1),
        ("ReduceProd last [256,1024]", "ReduceProd", [("x", F32, [256, 1024])], {"axes": [-1]}, {}, 1),
        ("Hardmax [64,1000]", "Hardmax", [("x", F32, [64, 1000])], {}, {}, 1),
        ("LpNormalization [256,1024]", "LpNormalization", [("x", F32, [256, 1024])], {}, {}, 1),
        ("NonZero [256,1024] bool", "NonZero", [("x", BOOL, [256, 1024])], {}, {}, 1),
        ("Shrink [256,1024]", "Shrink", [("x", F32, [256, 1024])], {"lambd": 0.5}, {}, 1),
        ("GlobalMaxPool [8,512,7,7]", "GlobalMaxPool", [("x", F32, [8, 512, 7, 7])], {}, {}, 1),
        ("LpPool 2x2 [1,64,56,56]", "LpPool", [("x", F32, [1, 64, 56, 56])],
         {"kernel_shape": [2, 2], "strides": [2, 2]}, {}, 1),
        ("MaxPool w/ indices [1,64,112,112]", "MaxPool", [("x", F32, [1, 64, 112, 112])],
         {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, {}, 2),
        ("Conv 3-D 3x3x3 [1,16,16,32,32]", "Conv", [("x", F32, [1, 16, 16, 32, 32])], {"pads": [1, 1, 1, 1, 1, 1]},
         {"w": rng.standard_normal((16, 16, 3, 3, 3)).astype(np.float32) * 0.1}, 1),
        ("Conv 1-D k3 [8,128,256]", "Conv", [("x", F32, [8, 128, 256])], {"pads": [1, 1]},
         {"w": rng.standard_normal((128, 128, 3)).astype(np.float32) * 0.1}, 1),
        # ResNet's and MobileNetV2's convolutions (bench/zoo_models.py), with weights as initializers.
        ("Conv zoo 3x3 [1,256,14,14]", "Conv", [("x", F32, [1, 256, 14, 14])], {"pads": [1, 1, 1, 1]},
         {"w": rng.standard_normal((256, 256, 3, 3)).astype(np.float32) * 0.05}, 1),
        ("Conv zoo 3x3 [1,512,7,7]", "Conv", [("x", F32, [1, 512, 7, 7])], {"pads": [1, 1, 1, 1]},
         {"w": rng.standard_normal((512, 512, 3, 3)).astype(np.float32) * 0.05}, 1),
        ("Conv zoo 3x3/2 [1,128,28,28]->256", "Conv", [("x", F32, [1, 128, 28, 28])],
         {"pads": [1, 1, 1, 1], "strides": [2, 2]}, {"w": rng.standard_normal((256, 128, 3, 3)).astype(np.float32) * 0.05},
         1),
        ("Conv zoo 7x7/2 stem [1,3,224,224]", "Conv", [("x", F32, [1, 3, 224, 224])],
         {"pads": [3, 3, 3, 3], "strides": [2, 2]}, {"w": rng.standard_normal((64, 3, 7, 7)).astype(np.float32) * 0.1}, 1),
        ("Conv zoo 3x3 batch 3 [3,256,14,14]", "Conv", [("x", F32, [3, 256, 14, 14])], {"pads": [1, 1, 1, 1]},
         {"w": rng.standard_normal((256, 256, 3, 3)).astype(np.float32) * 0.05}, 1),
        ("Conv zoo depthwise 3x3/2 [1,96,112,112]", "Conv", [("x", F32, [1, 96, 112, 112])],
         {"group": 96, "pads": [1, 1, 1, 1], "strides": [2, 2]}, {"w": rng.random((96, 1, 3, 3), dtype=np.float32)}, 1),
        ("Conv zoo depthwise 3x3/2 [1,144,56,56]", "Conv", [("x", F32, [1, 144, 56, 56])],
         {"group": 144, "pads": [1, 1, 1, 1], "strides": [2, 2]}, {"w": rng.random((144, 1, 3, 3), dtype=np.float32)}, 1),
        # 1x1 convolutions: MobileNetV2's expansions and a projection, ResNet's strided shortcut.
        *[(f"Conv zoo 1x1{'/2' if st > 1 else ''} [1,{c},{h},{h}]->{m}", "Conv", [("x", F32, [1, c, h, h])],
           {"strides": [st, st]}, {"w": rng.standard_normal((m, c, 1, 1)).astype(np.float32) * 0.1}, 1)
          for c, h, m, st in ((16, 112, 96, 1), (24, 56, 144, 1), (144, 56, 24, 1), (64, 14, 384, 1),
                              (64, 56, 128, 2))],
        # MobileNetV2's stride-1 depthwise layers, 112x112 down to 14x14.
        *[(f"Conv zoo depthwise [1,{c},{h},{h}]", "Conv", [("x", F32, [1, c, h, h])], {"group": c, "pads": [1, 1, 1, 1]},
           {"w": rng.random((c, 1, 3, 3), dtype=np.float32)}, 1)
          for c, h in ((32, 112), (144, 56), (192, 28), (384, 14), (576, 14))],
        ("Conv zoo depthwise [1,960,7,7]", "Conv", [("x", F32, [1, 960, 7, 7])], {"group": 960, "pads": [1, 1, 1, 1]},
         {"w": rng.random((960, 1, 3, 3), dtype=np.float32)}, 1),
        ("Gemm [512,1024]x[1024,1024]+C", "Gemm", [("a", F32, [512, 1024])], {},
         {"b": rng.standard_normal((1024, 1024)).astype(np.float32), "c": rng.standard_normal(1024).astype(np.float32)},
         1),
        # Newer opsets' ops (a sixth element gives the case's opset).
        ("Gelu [8,128,768]", "Gelu", [("x", F32, [8, 128, 768])], {}, {}, 1, 20),
        ("GroupNorm 8 groups [8,64,32,32]", "GroupNormalization", [("x", F32, [8, 64, 32, 32])], {"num_groups": 8},
         {"s": rng.random(64, dtype=np.float32), "b": rng.random(64, dtype=np.float32)}, 1, 21),
        ("GridSample linear [1,64,56,56]", "GridSample", [("x", F32, [1, 64, 56, 56]), ("g", F32, [1, 56, 56, 2])],
         {}, {}, 1, 20),
        ("GridSample 3-D linear [1,16,16,32,32]", "GridSample",
         [("x", F32, [1, 16, 16, 32, 32]), ("g", F32, [1, 16, 32, 32, 3])], {}, {}, 1, 20),
        ("DeformConv 3x3 [1,64,28,28]", "DeformConv",
         [("x", F32, [1, 64, 28, 28]), ("w", F32, [64, 64, 3, 3]), ("o", F32, [1, 18, 28, 28])],
         {"pads": [1, 1, 1, 1]}, {}, 1, 19),
        ("Attention causal [1,12,128,64]", "Attention",
         [("q", F32, [1, 12, 128, 64]), ("k", F32, [1, 12, 128, 64]), ("v", F32, [1, 12, 128, 64])],
         {"is_causal": 1}, {}, 1, 23),
        ("Attention GQA decode 32/8 heads, 511 past", "Attention",
         [("q", F32, [1, 32, 1, 128]), ("k", F32, [1, 8, 1, 128]), ("v", F32, [1, 8, 1, 128]), ("", None, None),
          ("pk", F32, [1, 8, 511, 128]), ("pv", F32, [1, 8, 511, 128])], {}, {}, 3, 23),
        ("RMSNorm [8,128,768]", "RMSNormalization", [("x", F32, [8, 128, 768])], {},
         {"s": rng.random(768, dtype=np.float32)}, 1, 23),
        ("RotaryEmbedding [1,32,128,128]", "RotaryEmbedding", [("x", F32, [1, 32, 128, 128])], {},
         {"cos": rng.random((4096, 64), dtype=np.float32), "sin": rng.random((4096, 64), dtype=np.float32),
          "ids": np.arange(128, dtype=np.int64).reshape(1, 128)}, 1, 23),
    ]


def build_model(op, inputs, attrs, consts, n_out, path, opset=17):
    import onnx
    from onnx import helper, numpy_helper

    types = {F32: onnx.TensorProto.FLOAT, I64: onnx.TensorProto.INT64, BOOL: onnx.TensorProto.BOOL}
    node_inputs = [n for n, _, _ in inputs] + list(consts)
    outs = [f"y{i}" for i in range(n_out)]
    node = helper.make_node(op, node_inputs, outs, **attrs)
    graph = helper.make_graph(
        [node], op, [helper.make_tensor_value_info(n, types[t], s) for n, t, s in inputs if n],
        [helper.make_empty_tensor_value_info(o) for o in outs],
        [numpy_helper.from_array(v, k) for k, v in consts.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=8 if opset <= 17 else 10)
    # Output types and shapes from ONNX's own inference, which the checker wants.
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    by_name = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    del model.graph.output[:]
    # Function ops (GroupNormalization-21) may leave theirs untyped: float, shaped like the first input, as
    # every such case here.
    model.graph.output.extend(by_name[o] if by_name[o].type.tensor_type.elem_type else
                              helper.make_tensor_value_info(o, onnx.TensorProto.FLOAT, inputs[0][2]) for o in outs)
    onnx.checker.check_model(model)
    onnx.save(model, path)


def random_feeds(inputs, rng):
    feeds = {}
    for name, dtype, shape in inputs:
        if not name:  # an omitted optional input
            continue
        feeds[name] = rng.random(shape) < 0.5 if dtype == BOOL else rng.uniform(-1, 1, shape).astype(dtype)
    return feeds


def ort_us(path, feeds, a):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return ort_median_ms(sess, feeds, a.warmup, a.runs) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--switchyard", default="build/switchyard", help="the switchyard binary")
    ap.add_argument("--devices", default="cpu")
    ap.add_argument("--policy", default="single")
    ap.add_argument("--runs", type=int, default=300, help="timed runs per case")
    ap.add_argument("--warmup", type=int, default=30, help="untimed runs per case")
    ap.add_argument("--only", default="", help="comma-separated substrings of case names to keep")
    ap.add_argument("--seed", type=int, default=12345)
    a = ap.parse_args()
    if a.runs < 1 or a.warmup < 0:
        sys.exit("error: --runs must be at least 1, --warmup at least 0")
    require_setup(a.switchyard)
    import numpy as np
    import onnxruntime as ort

    keep = [s for s in a.only.split(",") if s]
    todo = [c for c in cases() if not keep or any(k in c[0] for k in keep)]
    if not todo:
        sys.exit(f"error: no case matches --only {a.only}")
    rng = np.random.default_rng(a.seed)
    print(f"ONNX Runtime {ort.__version__} (CPU, default threads) vs Switchyard (--devices {a.devices} "
          f"--policy {a.policy}); "
          f"median of {a.runs} runs, microseconds")
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "identity.onnx")
        build_model("Identity", [("x", F32, [1])], {}, {}, 1, base)
        feeds = random_feeds([("x", F32, [1])], rng)
        o0, s0 = ort_us(base, feeds, a), switchyard_median_ms(a.switchyard, base, feeds, a, tmp) * 1e3
        print(f"fixed cost of a run (one-element Identity): ONNX Runtime {o0:.1f}, Switchyard {s0:.1f}; "
              "ratio = (Switchyard - its fixed cost) / (ONNX Runtime - its fixed cost), below 1: Switchyard faster")
        print(f"{'case':<34}{'ORT':>10}{'Switchyard':>12}{'ratio':>8}")
        ratios = []
        for name, op, inputs, attrs, consts, n_out, *opset in todo:
            path = os.path.join(tmp, "case.onnx")
            build_model(op, inputs, attrs, consts, n_out, path, *opset)
            feeds = random_feeds(inputs, rng)
            o, s = ort_us(path, feeds, a), switchyard_median_ms(a.switchyard, path, feeds, a, tmp) * 1e3
            ratio = max(s - s0, 0.1) / max(o - o0, 0.1)
            ratios.append(ratio)
            flag = "  <-- slower" if ratio > 1.5 else ""
            print(f"{name:<34}{o:>10.1f}{s:>12.1f}{ratio:>8.2f}{flag}")
    print(f"geometric mean of the ratios {statistics.geometric_mean(ratios):.2f}")


if __name__ == "__main__":
    main()
