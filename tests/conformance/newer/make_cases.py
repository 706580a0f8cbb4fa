#!/usr/bin/env python3
"""Packs ONNX's backend node test cases for opsets 18 to 23 into cases.tar.xz.

Debian 12's libonnx-testdata stops at opset 17. The onnx package on PyPI
defines the newer cases in Python (onnx.backend.test.case.node), with
reference outputs from numpy. This script writes the cases whose highest
default-domain opset is in [MIN_OPSET, MAX_OPSET], in the layout of
libonnx-testdata (CASE/model.onnx, CASE/test_data_set_N/{input,output}_K.pb),
into a reproducible archive (sorted entries, fixed times and owners).
The archive is committed, so CI needs neither pip nor network; the test
`conformance.newer_opsets` unpacks it into the build folder.

Usage: make_cases.py [OUT.tar.xz]   (default: cases.tar.xz next to this file)
Made with onnx 1.23.2; another onnx version gives other cases, so say which
in the commit that updates the archive.
"""
import io
import os
import sys
import tarfile

import onnx
from onnx import numpy_helper
from onnx.backend.test.case import node

MIN_OPSET, MAX_OPSET = 18, 23  # MAX_OPSET: kMaxSupportedOpset in ir/onnx_loader.h


def default_opset(model):
    return max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)


def as_proto(value, type_proto, name):
    if type_proto.HasField("sequence_type"):
        return numpy_helper.from_list(value, name)
    if type_proto.HasField("optional_type"):
        return numpy_helper.from_optional(value, name)
    if isinstance(value, onnx.TensorProto):
        return value
    return numpy_helper.from_array(value, name)


def files_of(case):
    yield f"{case.name}/model.onnx", case.model.SerializeToString()
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            for k, v in enumerate(values):
                proto = as_proto(v, infos[k].type, infos[k].name)
                yield f"{case.name}/test_data_set_{i}/{kind}_{k}.pb", proto.SerializeToString()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "cases.tar.xz")
    cases = [c for c in node.collect_testcases(None) if MIN_OPSET <= default_opset(c.model) <= MAX_OPSET]
    cases.sort(key=lambda c: c.name)
    with tarfile.open(out, "w:xz", preset=9) as tar:
        for case in cases:
            for path, data in files_of(case):
                info = tarfile.TarInfo(f"onnx-node-opset{MIN_OPSET}-{MAX_OPSET}/{path}")
                info.size, info.mtime, info.mode = len(data), 0, 0o644
                tar.addfile(info, io.BytesIO(data))
    print(f"{len(cases)} cases (onnx {onnx.__version__}) -> {out}")


if __name__ == "__main__":
    main()
