// Every differential case of a hand-written CUDA kernel, run without a GPU:
// the kernels' host code (devices/cuda/kernels/*.cc) and the real
// CudaDevice, over the fake CUDA runtime (tests/devices/cuda/fake_gpu), with
// the device code of every .cu file compiled for the host (emu_cuda.h). It
// checks what the fake GPU's CPU stand-ins cannot: each kernel's launch
// metadata, index arithmetic, block and warp reductions, and 16-bit
// conversions, against the CPU kernel. It cannot show how nvcc's device math
// and FMA contraction round (the GPU run does, CudaKernelDiff.Gpu_*).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "devices/cuda/cuda_backend.h"
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
  EXPECT_GT(t.matched, 150);
  EXPECT_LT(t.skipped, 60);
}

}  // namespace
}  // namespace sy::testing
