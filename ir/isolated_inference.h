// libonnx's shape inference, run in a child process.
//
// The loader uses it to learn the static types (and shapes) of a model's
// intermediate values. Its inference functions trust their inputs: a model
// whose declared shapes disagree with its ops (ONNX 1.12's MaxUnpool with an
// indices input of unknown shape, for one) makes them index past the end of
// a shape and crash the process. Inference is an optimisation, so a failure
// must cost nothing but the types; in a child process a crash is one.
#pragma once

#include <optional>

#include "onnx/onnx_pb.h"

namespace sy {

// Thread-safe. The main graph as inferred, without its tensor values
// (initializers, tensor attributes), or nothing if inference failed,
// crashed, or took longer than `timeout_ms`, or if no child process could
// be started. Nothing of the child reaches this process's output.
std::optional<onnx::GraphProto> infer_types_isolated(const onnx::ModelProto& proto, int timeout_ms = 60'000);

// Copies what inference found into `g`, the graph it was run on: the
// value_info of the graph and of every subgraph, and the subgraphs' output
// types. Subgraphs are matched by position (node, attribute); any that do
// not match are left as they were.
void apply_inferred_types(onnx::GraphProto& g, const onnx::GraphProto& inferred);

}  // namespace sy
