// Differential kernel checks: one node, run by two devices' kernels on the
// same random inputs, outputs compared element by element. The CUDA suite
// uses it to hold every CUDA kernel to the CPU kernel, at sizes the ONNX
// node tests never reach (several blocks, grid-stride loops, multi-pass
// reductions, wide broadcasts); the same cases also run CPU against a second
// CPU device, so a malformed case shows up on machines without a GPU.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "devices/device.h"
#include "ir/graph.h"

namespace sy::testing {

// One input: random values in [lo, hi] (integers: whole numbers), or the
// given values, or omitted. Inputs go to the device's memory except those
// the kernel's KernelDef wants on the host, as the executor would place them.
struct DiffInput {
  DataType type = DataType::kFloat;
  Dims dims;
  double lo = -2, hi = 2;
  std::vector<double> values;  // used instead of random when non-empty
  bool nonzero = false;        // redraw zeros (divisors)
  bool whole = false;          // round floating values to whole numbers (ties)
  bool none = false;
};

struct DiffCase {
  std::string name;  // unique, [A-Za-z0-9_]
  std::string op;
  int opset = 17;
  std::vector<Attribute> attrs;
  std::vector<DiffInput> inputs;
  size_t outputs = 1;
  // |a - b| <= atol + rtol * |b| for floating outputs; integers are exact.
  double rtol = 1e-5, atol = 1e-6;
  // The kernel under test is expected to refuse the case (Unimplemented,
  // at init or compute), so that placement runs it on the CPU instead.
  bool declines = false;
  // Look the kernel up without the first input's type, as the executor does
  // when shape inference left a value's type unknown: the kernel must then
  // either decline a type it does not support (Unimplemented, so the node
  // falls back to the CPU) or compute it right; never fail otherwise.
  bool any_type = false;
};

// What happened to one case on one device.
struct DiffRun {
  Status status;               // kernel lookup, init, copies or compute
  std::vector<Tensor> outputs;  // on the host
};

// Runs `c` with the kernel registered for `kernel_kind` on `device`: inputs
// are copied to the device's memory (except the kernel's host inputs), the
// kernel is enqueued as a task and awaited, and the outputs come back to the
// host. The inputs are drawn from `seed`, so two devices see the same data.
DiffRun run_diff_case(const DiffCase& c, Device& device, DeviceKind kernel_kind, uint64_t seed);

// Empty if `got` matches `want` within the case's tolerance; otherwise says
// which output differs, how many elements, and where the first one is.
std::string compare_outputs(const DiffCase& c, const std::vector<Tensor>& got, const std::vector<Tensor>& want);

// The case table: at least one case for every op with a CUDA kernel.
const std::vector<DiffCase>& cuda_diff_cases();

}  // namespace sy::testing
