// `switchyard info`: op counts, and which nodes a GPU could run, known from
// the CUDA kernels' own checks whether or not this machine has a GPU.
#include <gtest/gtest.h>

#include <regex>

#include "devices/cuda/cuda_backend.h"
#include "tests/cli/cli_test_util.h"

namespace sy {
namespace {

using namespace sy::cli_test;

// y = Relu(x + W), and StringNormalizer of a string input, which no GPU
// kernel takes (strings live on the host).
onnx::ModelProto relu_strings_model() {
  onnx::ModelProto m = relu_model();
  auto* g = m.mutable_graph();
  add_input(g, "words", onnx::TensorProto::STRING, {2});
  add_node(g, "StringNormalizer", {"words"}, {"normalized"});
  add_output(g, "normalized", onnx::TensorProto::STRING, {2});
  return m;
}

TEST(InfoCommand, CountsOps_AndSaysWhichNodesAGpuCouldRun) {
  TempDir tmp;
  write_model(relu_strings_model(), tmp.file("m.onnx"));
  auto r = run_switchyard({"info", tmp.file("m.onnx")});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  EXPECT_NE(r.out.find("  Add: 1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  StringNormalizer: 1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kernels: every op has a CPU kernel"), std::string::npos) << r.out;
  if (!cuda_compiled()) {
    EXPECT_NE(r.out.find("CUDA kernels: none in this build"), std::string::npos) << r.out;
    return;
  }
  EXPECT_NE(r.out.find("CUDA kernels: 2 of 3 kernel nodes (66%); on a CPU: StringNormalizer x1"), std::string::npos)
      << r.out;
}

TEST(InfoCommand, ControlFlowBodies_AreCounted) {
  const std::string model = (source_dir() / "models/workloads/moe_if.onnx").string();
  auto r = run_switchyard({"info", model});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  EXPECT_NE(r.out.find("control-flow nesting depth: 2"), std::string::npos) << r.out;
  if (!cuda_compiled()) GTEST_SKIP() << "no CUDA in this build: no GPU coverage to count";
  // 122 nodes, 9 of them If and 18 Constant, which the loader makes
  // initializers: the If bodies' nodes count, the Ifs do not.
  EXPECT_NE(r.out.find("fused at load: 18 Constant made initializers"), std::string::npos) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(CUDA kernels: (\d+) of (\d+) kernel nodes)"))) << r.out;
  EXPECT_EQ(std::stoi(m[2]), 122 - 9 - 18) << r.out;
  EXPECT_GT(std::stoi(m[1]), 0) << r.out;
  EXPECT_LE(std::stoi(m[1]), 122 - 9 - 18) << r.out;
}

// y = Relu(Conv(x, W)): the loader fuses the two unless told not to.
TEST(InfoCommand, SaysWhatWasFused_AndNoFusionLoadsTheModelAsWritten) {
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", onnx::TensorProto::FLOAT, {1, 1, 3, 3});
  add_float_initializer(g, "W", {1, 1, 1, 1}, {2});
  add_node(g, "Conv", {"x", "W"}, {"c"});
  add_node(g, "Relu", {"c"}, {"y"});
  add_output(g, "y", onnx::TensorProto::FLOAT, {1, 1, 3, 3});
  TempDir tmp;
  write_model(m, tmp.file("m.onnx"));
  auto fused = run_switchyard({"info", tmp.file("m.onnx")});
  ASSERT_TRUE(fused.exited && fused.exit_code == 0) << fused.describe();
  EXPECT_NE(
      fused.out.find(
          "fused at load: 0 Constant made initializers, 0 BatchNormalization folded into Conv, 0 Add into FusedConv, "
          "1 Relu/Clip into FusedConv, "
          "0 Gelu and 0 LayerNormalization from arithmetic\n"),
      std::string::npos)
      << fused.out;
  EXPECT_NE(fused.out.find("  com.switchyard::FusedConv: 1\n"), std::string::npos) << fused.out;
  EXPECT_NE(fused.out.find("channels-last on CPU-only devices (run, bench): 0 Conv, 0 pools, 0 elementwise nodes\n"),
            std::string::npos)
      << "one convolution stays NCHW\n"
      << fused.out;
  auto plain = run_switchyard({"info", tmp.file("m.onnx"), "--no-fusion"});
  ASSERT_TRUE(plain.exited && plain.exit_code == 0) << plain.describe();
  EXPECT_NE(plain.out.find("fused at load: nothing (--no-fusion)\n"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("  Relu: 1\n"), std::string::npos) << plain.out;
}

// Two convolutions in a row: info says what run and bench rewrite
// channels-last on CPUs; the model it describes stays as GPU sessions load
// it.
TEST(InfoCommand, SaysWhatRunsChannelsLastOnCpus) {
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", onnx::TensorProto::FLOAT, {1, 2, 5, 5});
  add_float_initializer(g, "W", {2, 2, 1, 1}, {1, 2, 3, 4});
  add_node(g, "Conv", {"x", "W"}, {"c"});
  add_node(g, "Sigmoid", {"c"}, {"s"});
  add_node(g, "Conv", {"s", "W"}, {"y"});
  add_output(g, "y", onnx::TensorProto::FLOAT, {1, 2, 5, 5});
  TempDir tmp;
  write_model(m, tmp.file("m.onnx"));
  auto r = run_switchyard({"info", tmp.file("m.onnx")});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  EXPECT_NE(r.out.find("channels-last on CPU-only devices (run, bench): 2 Conv, 0 pools, 1 elementwise nodes\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  Conv: 2\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace sy
