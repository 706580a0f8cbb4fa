// Differential kernel checks: one node, run by two devices' kernels on the
// same random inputs, outputs compared element by element. The CUDA suite
// uses it to hold every CUDA kernel to the CPU kernel, at sizes the ONNX
// node tests never reach (several blocks, grid-stride loops, multi-pass
// reductions, wide broadcasts); the same cases also run CPU against a second
// CPU device, so a malformed case shows up on machines without a GPU.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "devices/device.h"
#include "ir/graph.h"
#include "tests/devices/kernel_test_util.h"

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
  std::string domain;  // "" for ONNX's
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

// The seed of a case's inputs: the same on every device and run.
uint64_t diff_seed(const DiffCase& c);

// Empty if `got` matches `want` within the case's tolerance; otherwise says
// which output differs, how many elements, and where the first one is.
std::string compare_outputs(const DiffCase& c, const std::vector<Tensor>& got, const std::vector<Tensor>& want);

// Runs every case on `gpu` with its CUDA kernel and on a CPU, and adds a
// test failure for each difference. A case the kernel should decline must
// be declined; an untyped one may be.
struct DiffTally {
  int matched = 0;
  int declined = 0;
};
DiffTally expect_cuda_cases_match_cpu(Device& gpu);

// The case table: at least one case for every op with a CUDA kernel. Each
// group of cases lives in its own cuda_diff_cases*_test_util.cc.
const std::vector<DiffCase>& cuda_diff_cases();
void add_index_cases(std::vector<DiffCase>& cases);   // scatter, gather-ND, Trilu, Range, ...
void add_resize_cases(std::vector<DiffCase>& cases);  // Resize, DepthToSpace, ...
void add_quant_cases(std::vector<DiffCase>& cases);   // QuantizeLinear, DequantizeLinear, Dropout, ...
void add_rnn_cases(std::vector<DiffCase>& cases);     // RNN, GRU, LSTM
void add_einsum_cases(std::vector<DiffCase>& cases);  // Einsum, Det
void add_loss_cases(std::vector<DiffCase>& cases);    // SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss
void add_int_matmul_cases(std::vector<DiffCase>& cases);  // MatMulInteger, QLinearMatMul
void add_int_conv_cases(std::vector<DiffCase>& cases);    // ConvInteger, QLinearConv
void add_signal_cases(std::vector<DiffCase>& cases);      // DFT, STFT
void add_signal_generator_cases(std::vector<DiffCase>& cases);  // windows, MelWeightMatrix
void add_detection_cases(std::vector<DiffCase>& cases);   // RoiAlign
void add_fold_cases(std::vector<DiffCase>& cases);        // Col2Im, MaxUnpool
void add_deform_conv_cases(std::vector<DiffCase>& cases);  // DeformConv

// Builders that keep the case tables short.
namespace diff {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline DiffInput in(DataType t, Dims d, double lo = -2, double hi = 2) {
  DiffInput i;
  i.type = t;
  i.dims = std::move(d);
  i.lo = lo;
  i.hi = hi;
  return i;
}
inline DiffInput f32(Dims d, double lo = -2, double hi = 2) { return in(DataType::kFloat, std::move(d), lo, hi); }
inline DiffInput f64(Dims d, double lo = -2, double hi = 2) { return in(DataType::kDouble, std::move(d), lo, hi); }
inline DiffInput i64(Dims d, double lo, double hi) { return in(DataType::kInt64, std::move(d), lo, hi); }
inline DiffInput i32(Dims d, double lo, double hi) { return in(DataType::kInt32, std::move(d), lo, hi); }
inline DiffInput boolean(Dims d) { return in(DataType::kBool, std::move(d), 0, 1); }
inline DiffInput nonzero(DiffInput i) {
  i.nonzero = true;
  return i;
}
// Given values; 1-D unless dims say otherwise (a scalar: dims {}).
inline DiffInput values(DataType t, std::vector<double> v, std::optional<Dims> dims = std::nullopt) {
  DiffInput i;
  i.type = t;
  i.dims = dims ? *dims : Dims{static_cast<int64_t>(v.size())};
  i.values = std::move(v);
  return i;
}
inline DiffInput ints(std::vector<double> v) { return values(DataType::kInt64, std::move(v)); }
inline DiffInput scalar(DataType t, double v) { return values(t, {v}, Dims{}); }
inline DiffInput omitted() {
  DiffInput i;
  i.none = true;
  return i;
}
// Floats that are whole numbers, so ties and exact comparisons happen.
inline DiffInput whole_f32(Dims d, double lo, double hi) {
  DiffInput i = f32(std::move(d), lo, hi);
  i.whole = true;
  return i;
}

inline DiffCase make(std::string name, std::string op, std::vector<DiffInput> inputs,
                     std::vector<Attribute> attrs = {}, size_t outputs = 1) {
  DiffCase c;
  c.name = std::move(name);
  c.op = std::move(op);
  c.inputs = std::move(inputs);
  c.attrs = std::move(attrs);
  c.outputs = outputs;
  return c;
}
inline DiffCase opset(DiffCase c, int v) {
  c.opset = v;
  return c;
}
inline DiffCase tol(DiffCase c, double rtol, double atol) {
  c.rtol = rtol;
  c.atol = atol;
  return c;
}
inline DiffCase declined(DiffCase c) {
  c.declines = true;
  return c;
}

// A type the CUDA kernel does not list, reaching it as from a value of
// unknown static type.
inline DiffCase untyped(DiffCase c) {
  c.any_type = true;
  return c;
}

inline Attribute attr_tensor_i32(const std::string& name, int32_t v) {
  auto t = std::make_shared<TensorData>();
  t->dtype = DataType::kInt32;
  t->dims = Dims{1};
  t->bytes.resize(sizeof v);
  std::memcpy(t->bytes.data(), &v, sizeof v);
  Attribute a;
  a.name = name;
  a.kind = Attribute::Kind::kTensor;
  a.t = std::move(t);
  return a;
}

constexpr DataType kF16 = DataType::kFloat16;
constexpr DataType kBF16 = DataType::kBFloat16;

}  // namespace diff
}  // namespace sy::testing
