// Random input tensors for `run --random-inputs`, `bench` and `calibrate`:
// commands that need plausible inputs of the declared types without files.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>

#include "devices/runtime_value.h"
#include "devices/tensor.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace sy {

// A host tensor of `info`'s declared type filled from `rng`: floats uniform
// in [-1, 1), integers in [0, 8) (small and non-negative so that they are
// valid indices and sizes for most ops), bools random. Symbolic dimensions
// take their sizes from `dims`; an unnamed or unlisted one is an error that
// names --dim. Non-tensor inputs are InvalidArgument.
StatusOr<Tensor> random_tensor(const ValueInfo& info, const std::map<std::string, int64_t>& dims, std::mt19937_64& rng);

// Random values for every input of `graph` without an initializer, in input
// order (so a given seed always yields the same tensors).
StatusOr<std::map<std::string, RuntimeValue>> random_inputs(const Graph& graph,
                                                            const std::map<std::string, int64_t>& dims,
                                                            std::mt19937_64& rng);

}  // namespace sy
