// Runs the ONNX backend node tests of the reduction family (Reduce*, ArgMax,
// softmax, norms, losses, CumSum, TopK, Einsum, Det) directly against the CPU
// kernels, without the executor. Each case's single node is loaded with the
// IR loader, its inputs come from test_data_set_0/input_*.pb, and outputs are
// compared with ONNX's default tolerances. Skips when the test data is not
// installed.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "ir/onnx_loader.h"
#include "ir/tensor_proto.h"
#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

namespace fs = std::filesystem;

constexpr const char* kNodeDir = "/usr/share/libonnx-testdata/data/node";

std::vector<std::string> family_cases() {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(kNodeDir, ec)) return out;
  const std::regex re(
      "^test_(reduce_|argmax|argmin|softmax_|logsoftmax_|hardmax_|cumsum_|top_k|layer_normalization_|batchnorm_|"
      "instancenorm_|lrn|mvn|sce_|nllloss_|einsum_|det_).*");
  for (const auto& e : fs::directory_iterator(kNodeDir, ec)) {
    std::string name = e.path().filename().string();
    if (!std::regex_match(name, re) || name.find("_expanded") != std::string::npos) continue;
    out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

StatusOr<Tensor> load_pb(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return NotFound("cannot open ", path);
  std::stringstream ss;
  ss << f.rdbuf();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(ss.str())) return InvalidArgument("cannot parse ", path);
  ASSIGN_OR_RETURN(std::shared_ptr<TensorData> data, tensor_from_proto(proto, ""));
  return Tensor::borrow(std::move(data));
}

class ReduceConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(ReduceConformance, MatchesReference) {
  const std::string dir = std::string(kNodeDir) + "/" + GetParam();
  LoadOptions opts;
  auto model = OnnxLoader(opts).load_file(dir + "/model.onnx");
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const Graph& g = *(*model)->graph;
  ASSERT_EQ(g.nodes().size(), 1u);
  const Node& node = g.nodes()[0];
  const std::string data_dir = dir + "/test_data_set_0";

  std::vector<RuntimeValue> inputs;
  for (ValueId id : node.inputs) {
    if (id == kNoValue) {
      inputs.emplace_back();
      continue;
    }
    const ValueInfo& vi = g.value(id);
    if (vi.initializer >= 0) {
      inputs.emplace_back(Tensor::borrow(g.initializers()[static_cast<size_t>(vi.initializer)]));
      continue;
    }
    auto pos = std::find(g.inputs().begin(), g.inputs().end(), id);
    ASSERT_NE(pos, g.inputs().end()) << "input " << vi.name << " is not a graph input";
    auto t = load_pb(data_dir + "/input_" + std::to_string(pos - g.inputs().begin()) + ".pb");
    ASSERT_TRUE(t.ok()) << t.status().to_string();
    inputs.emplace_back(*t);
  }
  auto run = testing::run_kernel(node.op_type, inputs, node.outputs.size(), node.attributes, node.opset, node.domain);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();

  for (size_t i = 0; i < node.outputs.size(); ++i) {
    auto pos = std::find(g.outputs().begin(), g.outputs().end(), node.outputs[i]);
    if (pos == g.outputs().end()) continue;
    auto want = load_pb(data_dir + "/output_" + std::to_string(pos - g.outputs().begin()) + ".pb");
    ASSERT_TRUE(want.ok()) << want.status().to_string();
    ASSERT_TRUE(run.outputs[i].is_tensor()) << "output " << i << " missing";
    const Tensor& got = run.outputs[i].tensor();
    ASSERT_EQ(got.dtype(), want->dtype()) << "output " << i;
    ASSERT_EQ(got.dims(), want->dims()) << "output " << i << ": " << got.dims().to_string() << " vs "
                                        << want->dims().to_string();
    int bad = 0;
    for (int64_t k = 0; k < got.numel() && bad < 5; ++k) {
      double a = got.double_at(k), b = want->double_at(k);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (a == b) continue;
      if (std::abs(a - b) <= 1e-5 + 1e-3 * std::abs(b)) continue;
      ADD_FAILURE() << "output " << i << " element " << k << ": got " << a << " want " << b;
      ++bad;
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(Reduce, ReduceConformance, ::testing::ValuesIn(family_cases()), case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReduceConformance);

}  // namespace
}  // namespace sy
