// Runs the ONNX backend node test cases of the CPU elementwise kernel family
// directly against the kernels (no executor) and compares with the stored
// outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "devices/cpu/cpu_kernels.h"
#include "ir/onnx_loader.h"
#include "ir/tensor_proto.h"
#include "onnx/onnx_pb.h"
#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

const std::set<std::string>& family_ops() {
  static const std::set<std::string> ops = {
      "Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot",
      "And", "Or", "Xor", "Not", "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "Abs", "Neg",
      "Reciprocal", "Sqrt", "Exp", "Log", "Floor", "Ceil", "Round", "Sign", "Erf", "Sin", "Cos", "Tan", "Asin",
      "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "IsNaN", "IsInf", "Relu", "LeakyRelu", "Elu",
      "Selu", "Celu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Softplus", "Softsign", "ThresholdedRelu",
      "Mish", "Shrink", "PRelu", "Clip", "Where", "Max", "Min", "Sum", "Mean", "Cast", "CastLike", "Dropout",
      "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear"};
  return ops;
}

StatusOr<Tensor> read_pb(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(ss.str())) return InvalidArgument("cannot parse ", path);
  ASSIGN_OR_RETURN(std::shared_ptr<TensorData> td, tensor_from_proto(proto, ""));
  return Tensor::borrow(std::move(td));
}

// Old test data stores bfloat16 tensors as uint16: view them as the graph's
// declared type.
Tensor as_declared(Tensor t, const ValueInfo& vi) {
  DataType d = vi.type.elem;
  if (vi.type.kind == TypeInfo::Kind::kTensor && d != DataType::kUndefined && d != t.dtype() &&
      dtype_size(d) == dtype_size(t.dtype()) && d != DataType::kString && t.dtype() != DataType::kString)
    return Tensor(d, t.dims(), t.buffer());
  return t;
}

// Empty string when equal.
std::string compare(const Tensor& got, const Tensor& want, bool random) {
  if (got.dtype() != want.dtype())
    return std::string("dtype ") + dtype_name(got.dtype()) + " vs " + dtype_name(want.dtype());
  if (got.dims() != want.dims()) return "dims " + got.dims().to_string() + " vs " + want.dims().to_string();
  if (random) return "";
  for (int64_t i = 0; i < got.numel(); ++i) {
    if (got.dtype() == DataType::kString) {
      if (got.data<std::string>()[i] != want.data<std::string>()[i])
        return "at " + std::to_string(i) + ": '" + got.data<std::string>()[i] + "' vs '" +
               want.data<std::string>()[i] + "'";
      continue;
    }
    double g = got.double_at(i), w = want.double_at(i);
    if (std::isnan(w) && std::isnan(g)) continue;
    double tol = dtype_is_float(got.dtype()) ? 1e-4 + 1e-3 * std::fabs(w) : 0;
    if (got.dtype() == DataType::kFloat16 || got.dtype() == DataType::kBFloat16) tol = 1e-2 + 1e-2 * std::fabs(w);
    if (!(std::fabs(g - w) <= tol) && g != w)
      return "at " + std::to_string(i) + ": " + std::to_string(g) + " vs " + std::to_string(w);
  }
  return "";
}

TEST(Elementwise, Conformance_OnnxNodeTestData) {
  const std::string root = "/usr/share/libonnx-testdata/data/node";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "no ONNX test data at " << root;
  LoadOptions opts;
  opts.run_onnx_checker = false;
  opts.infer_shapes = false;
  OnnxLoader loader(opts);
  std::vector<std::filesystem::path> dirs;
  for (const auto& e : std::filesystem::directory_iterator(root)) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  int passed = 0, skipped = 0;
  std::vector<std::string> failures;
  static CpuDevice device;
  for (const auto& dir : dirs) {
    const std::string name = dir.filename().string();
    auto model = loader.load_file((dir / "model.onnx").string());
    if (!model.ok()) continue;  // other families' problems, or opset > 17
    const Graph& g = *(*model)->graph;
    if (g.nodes().size() != 1 || !family_ops().count(g.nodes()[0].op_type)) continue;
    const Node& node = g.nodes()[0];
    const std::string data = (dir / "test_data_set_0").string();
    std::vector<RuntimeValue> inputs;
    bool ok = true;
    for (ValueId v : node.inputs) {
      if (v == kNoValue) {
        inputs.emplace_back();
        continue;
      }
      const ValueInfo& vi = g.value(v);
      if (vi.initializer >= 0) {
        inputs.emplace_back(Tensor::borrow(g.initializers()[vi.initializer]));
        continue;
      }
      auto it = std::find(g.inputs().begin(), g.inputs().end(), v);
      size_t idx = static_cast<size_t>(it - g.inputs().begin());
      auto t = read_pb(data + "/input_" + std::to_string(idx) + ".pb");
      if (!t.ok()) {
        ok = false;
        break;
      }
      inputs.emplace_back(as_declared(std::move(t).value(), vi));
    }
    if (!ok) {
      ++skipped;
      continue;
    }
    DataType first = inputs.empty() || !inputs[0].is_tensor() ? DataType::kUndefined : inputs[0].tensor().dtype();
    const KernelDef* def = KernelRegistry::builtin().find(node.domain, node.op_type, node.opset, DeviceKind::kCpu, first);
    if (!def) {
      failures.push_back(name + ": no kernel");
      continue;
    }
    auto kernel = def->factory();
    Status st = kernel->init(node);
    std::vector<RuntimeValue> outputs(node.outputs.size());
    if (st.ok()) {
      std::vector<const RuntimeValue*> in;
      for (auto& v : inputs) in.push_back(&v);
      std::vector<RuntimeValue*> out;
      for (size_t i = 0; i < outputs.size(); ++i) out.push_back(node.outputs[i] == kNoValue ? nullptr : &outputs[i]);
      KernelContext ctx(node, device, in, out);
      st = kernel->compute(ctx);
    }
    if (!st.ok()) {
      failures.push_back(name + ": " + st.to_string());
      continue;
    }
    const bool random = name.find("training_dropout") != std::string::npos && name.find("zero_ratio") == std::string::npos;
    std::string err;
    for (size_t i = 0; i < node.outputs.size() && err.empty(); ++i) {
      if (node.outputs[i] == kNoValue) continue;
      auto it = std::find(g.outputs().begin(), g.outputs().end(), node.outputs[i]);
      size_t idx = static_cast<size_t>(it - g.outputs().begin());
      auto want = read_pb(data + "/output_" + std::to_string(idx) + ".pb");
      if (!want.ok() || !outputs[i].is_tensor()) {
        err = "missing output " + std::to_string(i);
        break;
      }
      err = compare(outputs[i].tensor(), as_declared(*want, g.value(node.outputs[i])), random);
      if (!err.empty()) err = "output " + std::to_string(i) + " " + err;
    }
    if (err.empty())
      ++passed;
    else
      failures.push_back(name + ": " + err);
  }
  std::string all;
  for (const auto& f : failures) all += "\n  " + f;
  EXPECT_TRUE(failures.empty()) << failures.size() << " failing cases:" << all;
  std::printf("[ elementwise conformance ] %d passed, %zu failed, %d skipped\n", passed, failures.size(), skipped);
  EXPECT_GT(passed, 100);
}

}  // namespace
}  // namespace sy
