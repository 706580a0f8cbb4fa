// Runs a single kernel on the CPU device, without a graph or an executor.
// Kernel unit tests use it to check a kernel against hand-computed values.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "devices/kernel_registry.h"

namespace sy::testing {

template <typename T>
Tensor make_tensor(const Dims& dims, const std::vector<T>& values) {
  auto t = Tensor::host(DataTypeOf<T>::value, dims);
  EXPECT_TRUE(t.ok());
  Tensor out = std::move(t).value();
  EXPECT_EQ(static_cast<size_t>(out.numel()), values.size());
  for (size_t i = 0; i < values.size(); ++i) out.data<T>()[i] = values[i];
  return out;
}

template <typename T>
std::vector<T> to_vector(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

inline Attribute attr_int(const std::string& name, int64_t v) {
  Attribute a; a.name = name; a.kind = Attribute::Kind::kInt; a.i = v; return a;
}
inline Attribute attr_float(const std::string& name, float v) {
  Attribute a; a.name = name; a.kind = Attribute::Kind::kFloat; a.f = v; return a;
}
inline Attribute attr_string(const std::string& name, const std::string& v) {
  Attribute a; a.name = name; a.kind = Attribute::Kind::kString; a.s = v; return a;
}
inline Attribute attr_ints(const std::string& name, std::vector<int64_t> v) {
  Attribute a; a.name = name; a.kind = Attribute::Kind::kInts; a.ints = std::move(v); return a;
}
inline Attribute attr_floats(const std::string& name, std::vector<float> v) {
  Attribute a; a.name = name; a.kind = Attribute::Kind::kFloats; a.floats = std::move(v); return a;
}
inline Attribute attr_strings(const std::string& name, std::vector<std::string> v) {
  Attribute a; a.name = name; a.kind = Attribute::Kind::kStrings; a.strings = std::move(v); return a;
}

struct KernelRun {
  Status status;
  std::vector<RuntimeValue> outputs;
};

// Builds a node of `op` (opset `opset`) with `attrs`, finds its CPU kernel in
// the builtin registry, and runs it on `inputs` (a none value = omitted input).
// With `match_input_type` false the kernel is looked up without filtering on
// the first input's type, so the kernel's own compute-time checks run. Bit
// i of `constant_inputs` tells the kernel that input i is constant; of
// `donated_inputs`, that input i is given up to it (the kernel may write
// over it: pass a tensor of its own).
inline KernelRun run_kernel(const std::string& op, std::vector<RuntimeValue> inputs, size_t num_outputs,
                            std::vector<Attribute> attrs = {}, int opset = 17, const std::string& domain = "",
                            bool match_input_type = true, uint64_t constant_inputs = 0, uint64_t donated_inputs = 0) {
  KernelRun run;
  Node node;
  node.op_type = op;
  node.domain = domain;
  node.opset = opset;
  node.attributes = std::move(attrs);
  for (size_t i = 0; i < inputs.size(); ++i) node.inputs.push_back(inputs[i].is_none() ? kNoValue : ValueId(i));
  for (size_t i = 0; i < num_outputs; ++i) node.outputs.push_back(ValueId(100 + i));
  DataType first = !match_input_type || inputs.empty() || !inputs[0].is_tensor() ? DataType::kUndefined
                                                                                 : inputs[0].tensor().dtype();
  const KernelDef* def = KernelRegistry::builtin().find(domain, op, opset, DeviceKind::kCpu, first);
  if (!def) {
    run.status = NotFound("no CPU kernel for ", op, " opset ", opset);
    return run;
  }
  std::unique_ptr<Kernel> kernel = def->factory();
  run.status = kernel->init(node);
  if (!run.status.ok()) return run;
  static CpuDevice device;
  std::vector<const RuntimeValue*> in;
  for (auto& v : inputs) in.push_back(&v);
  run.outputs.resize(num_outputs);
  std::vector<RuntimeValue*> out;
  for (auto& v : run.outputs) out.push_back(&v);
  KernelContext ctx(node, device, in, out, constant_inputs, donated_inputs);
  run.status = kernel->compute(ctx);
  return run;
}

// Output i of a run as a vector; empty, with a test failure, if the run
// failed or output i is not a tensor.
template <typename V>
std::vector<V> out(const KernelRun& r, size_t i = 0) {
  EXPECT_TRUE(r.status.ok()) << r.status.to_string();
  if (!r.status.ok() || i >= r.outputs.size() || !r.outputs[i].is_tensor()) return {};
  return to_vector<V>(r.outputs[i].tensor());
}

// Output i's dims, or {-1} if the run failed.
inline Dims out_dims(const KernelRun& r, size_t i = 0) {
  if (!r.status.ok() || i >= r.outputs.size() || !r.outputs[i].is_tensor()) return Dims{-1};
  return r.outputs[i].tensor().dims();
}

// n floats drawn uniformly from [lo, hi), the same for the same seed.
inline std::vector<float> random_floats(int64_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = d(gen);
  return v;
}

// Element by element within tol; NaN where want is NaN, and infinities
// exactly.
// n small whole numbers from -(mod / 2) on, cycling with stride `mul`,
// times `scale`: with scales of powers of two, products and sums of them
// are exact in float, so kernels that sum in different orders give the
// same bits.
inline std::vector<float> exact_pattern(int64_t n, int64_t mul, int64_t mod, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i * mul % mod - mod / 2) * scale;
  return v;
}

inline void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-4f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    else if (std::isinf(want[i]))
      EXPECT_EQ(got[i], want[i]) << "at " << i;
    else
      EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
  }
}

}  // namespace sy::testing
