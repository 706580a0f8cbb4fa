// In-memory ONNX models for the executor-overhead benchmarks, built with the
// ONNX protobuf API so the benchmark needs no Python and no files.
#pragma once

#include <memory>
#include <string>

#include "ir/graph.h"
#include "ir/status.h"

namespace sy::bench {

// y = ((x + c) + c) + ... with `n` Add nodes on 1-element float tensors.
StatusOr<std::unique_ptr<Model>> make_add_chain(int n);
// A Loop of M iterations (M is the input "M") whose body is one Add on a
// 1-element float carried value.
StatusOr<std::unique_ptr<Model>> make_add_loop();
// Serialized forms, for writing .onnx files the ONNX Runtime script can run.
std::string add_chain_bytes(int n);
std::string add_loop_bytes();

}  // namespace sy::bench
