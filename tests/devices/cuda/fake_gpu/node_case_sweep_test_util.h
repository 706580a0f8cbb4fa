// Runs ONNX node test cases under session options and tallies passes and
// where kernel nodes ran: the conformance check of issue 4 (the GPU gives
// the CPU's pass set, with most nodes on it), for the fake GPUs
// (fake_gpu_test.cc) and the emulated kernels (emulated_kernels_test.cc);
// and runs whole models on them against the CPU.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "devices/value_compare.h"
#include "executor/session.h"

namespace sy::testing {

inline constexpr const char* kNodeCases = "/usr/share/libonnx-testdata/data/node";
// ONNX's opset 18-23 node cases, unpacked at configure time.
std::string newer_node_cases();

// The case folders under `root`, less the conformance suite's exclusions
// (and those of the opset 18-23 cases when `newer`).
std::vector<std::string> case_dirs(const std::string& root, bool newer = false);

struct Sweep {
  int cases = 0;
  int passed = 0;
  std::vector<std::string> failed;        // "case: reason"
  std::map<std::string, int64_t> placed;  // kernel nodes per device, passing cases
};

// Every case of `dirs` under `options`.
Sweep sweep(const std::vector<std::string>& dirs, const SessionOptions& options);

// The first `n` entries, one a line, for a failure message.
std::string first_lines(const std::vector<std::string>& v, size_t n = 20);

// The share of the passing cases' kernel nodes that ran on `device`.
double share(const Sweep& s, const std::string& device);

// Runs `dirs` under `cpu` and under `gpu`: the GPU run must fail exactly
// the cases the CPU run fails, with at least `min_share` of its kernel
// nodes on cuda:0. Prints the tally; returns the CPU run.
Sweep expect_pass_set_of_cpu(const std::vector<std::string>& dirs, const SessionOptions& cpu,
                             const SessionOptions& gpu, double min_share);

// Runs `model` on `on` with each of `inputs` (two at once when
// `two_at_a_time`: concurrent runs share the devices' streams), and on
// the CPU: the outputs must agree within `tol`, and come back in host
// memory. Returns the kernel nodes each device of `on` ran.
std::vector<int64_t> expect_same_as_cpu(const std::shared_ptr<const Model>& model, Session& on,
                                        const std::vector<std::map<std::string, RuntimeValue>>& inputs,
                                        Tolerance tol, bool two_at_a_time = false);

// The model at `path`, or null after a test failure saying why.
std::shared_ptr<const Model> load_model_file(const std::string& path);

// Random inputs for `m`'s graph inputs, drawn from `seed`.
std::map<std::string, RuntimeValue> random_input_set(const Model& m, uint64_t seed);

// The input sets bundled with a model of models/control_flow: one map per
// `inputs*` folder of `dir`, read from its .npy files.
std::vector<std::map<std::string, RuntimeValue>> bundled_input_sets(const std::string& dir);

}  // namespace sy::testing
