// The real CUDA kernels without a GPU: their host code
// (devices/cuda/kernels/*.cc) and the real CudaDevice, over the fake CUDA
// runtime (tests/devices/cuda/fake_gpu), with the device code of every .cu
// file compiled for the host (emu_cuda.h). They run every differential case
// of a hand-written kernel, and issue 4's conformance and random-placement
// checks over the ONNX node cases. This checks what the fake GPU's CPU
// stand-ins cannot: each kernel's launch metadata, index arithmetic, block
// and warp reductions, and 16-bit conversions, against the CPU kernel. It
// cannot show how nvcc's device math and FMA contraction round (the GPU run
// does, CudaKernelDiff.Gpu_*).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "devices/cuda/cuda_backend.h"
#include "tests/devices/cuda/fake_gpu/node_case_sweep_test_util.h"
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {
namespace {

// Kernels that call cuBLAS or cuDNN, which need a real GPU; their cases
// that init() declines still run.
bool needs_cuda_libraries(const DiffCase& c) {
  static const std::set<std::string> kLibraryOps = {
      "MatMul",      "Gemm",          "Conv",          "ConvTranspose",      "FusedConv", "MaxPool",
      "AveragePool", "GlobalMaxPool", "GlobalAveragePool", "BatchNormalization", "LRN",       "Attention"};
  if (kLibraryOps.count(c.op)) return !c.declines;
  // float and double softmax run in cuDNN, the 16-bit ones in softmax_launch.cu.
  const DataType t = c.inputs.at(0).type;
  return (c.op == "Softmax" || c.op == "LogSoftmax") && t != DataType::kFloat16 && t != DataType::kBFloat16;
}

TEST(EmulatedGpu, HandWrittenKernels_MatchCpu_OnEveryCase) {
  auto gpu = create_cuda_device(0);
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  const DiffTally t = expect_cuda_cases_match_cpu(**gpu, needs_cuda_libraries);
  std::printf("%d cases matched the CPU, %d declined, %d left to the GPU run (cuBLAS/cuDNN)\n", t.matched,
              t.declined, t.skipped);
  EXPECT_GT(t.matched, 350);
  EXPECT_LT(t.skipped, 60);
}

// Issue 4's conformance check with the real CUDA kernels: the ONNX node
// cases under `--devices cuda:0,cpu --policy gpu` pass as on the CPU. Nodes
// whose kernels need cuBLAS or cuDNN decline here and run on the CPU, so
// the share on cuda:0 is lower than a GPU's.
void expect_node_cases_pass_as_on_cpu(const std::string& root, bool newer) {
  SessionOptions cpu_only, gpu;
  cpu_only.devices = "cpu";
  cpu_only.policy = "cpu";
  gpu.devices = "cuda:0,cpu";
  gpu.policy = "gpu";
  (void)expect_pass_set_of_cpu(case_dirs(root, newer), cpu_only, gpu, 0.6);
}

TEST(EmulatedGpu, NodeCases_PassAsOnCpu_UnderGpuPolicy) {
  if (!std::filesystem::exists(kNodeCases))
    GTEST_SKIP() << kNodeCases << " is missing (Debian package libonnx-testdata)";
  expect_node_cases_pass_as_on_cpu(kNodeCases, /*newer=*/false);
}

// Issue 4's random-placement check: each node a coin toss between the CPU
// and cuda:0, so values cross between them in both directions.
TEST(EmulatedGpu, NodeCases_PassAsOnCpu_UnderRandomOverCpuAndGpu) {
  if (!std::filesystem::exists(kNodeCases))
    GTEST_SKIP() << kNodeCases << " is missing (Debian package libonnx-testdata)";
  SessionOptions random;
  random.devices = "cpu,cuda:0";
  random.policy = "random";
  random.policy_options.seed = 3;
  const Sweep s = sweep(case_dirs(kNodeCases), random);
  EXPECT_TRUE(s.failed.empty()) << s.failed.size() << " of " << s.cases << " cases failed:\n" << first_lines(s.failed);
  EXPECT_GT(share(s, "cuda:0"), 0.2);
  EXPECT_GT(share(s, "cpu:0"), 0.2);
  std::printf("%d of %d cases passed; kernel nodes on cuda:0: %.1f%%\n", s.passed, s.cases, 100 * share(s, "cuda:0"));
}

TEST(EmulatedGpu, NewerNodeCases_PassAsOnCpu_UnderGpuPolicy) {
  const std::string root = newer_node_cases();
  if (!std::filesystem::exists(root)) GTEST_SKIP() << root << " is missing (unpacked at configure time)";
  expect_node_cases_pass_as_on_cpu(root, /*newer=*/true);
}

}  // namespace
}  // namespace sy::testing
