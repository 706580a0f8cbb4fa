// Every CUDA kernel against the CPU kernel on the same random inputs (the
// cases are in cuda_diff_cases_test_util.cc). The conformance suite checks
// the GPU on the ONNX node tests, whose tensors are a few dozen elements;
// these cases are large enough to cross block and grid boundaries.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "devices/cpu/cpu_device.h"
#include "devices/cuda/cuda_backend.h"
#include "devices/kernel_registry.h"
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {
namespace {

TEST(CudaKernelDiff, CaseNames_AreUnique) {
  std::set<std::string> names;
  for (const DiffCase& c : cuda_diff_cases()) EXPECT_TRUE(names.insert(c.name).second) << c.name;
}

TEST(CudaKernelDiff, Cases_CoverEveryCudaOp) {
  if (!cuda_compiled()) GTEST_SKIP() << "this build has no CUDA kernels (SWITCHYARD_CUDA=OFF or no toolkit)";
  std::set<std::string> covered;
  for (const DiffCase& c : cuda_diff_cases()) covered.insert(c.domain + "::" + c.op);
  std::string missing;
  for (const std::string& op : KernelRegistry::builtin().ops(DeviceKind::kCuda))
    if (!covered.count(op)) missing += " " + op;
  EXPECT_TRUE(missing.empty()) << "CUDA kernels with no differential case:" << missing;
}

// An untyped case checks what the CUDA kernel does with a type it does not
// list; once a kernel lists the type, the case must move to another.
TEST(CudaKernelDiff, UntypedCases_UseTypesTheCudaKernelDoesNotList) {
  if (!cuda_compiled()) GTEST_SKIP() << "this build has no CUDA kernels (SWITCHYARD_CUDA=OFF or no toolkit)";
  int untyped = 0;
  for (const DiffCase& c : cuda_diff_cases()) {
    if (!c.any_type) continue;
    ++untyped;
    const DataType t = c.inputs.at(0).type;
    EXPECT_EQ(KernelRegistry::builtin().find(c.domain, c.op, c.opset, DeviceKind::kCuda, t), nullptr)
        << c.name << ": the CUDA kernel lists " << dtype_name(t);
    EXPECT_NE(KernelRegistry::builtin().find(c.domain, c.op, c.opset, DeviceKind::kCpu, t), nullptr)
        << c.name << ": no CPU kernel to fall back to";
  }
  EXPECT_GT(untyped, 0);
}

// The harness and the cases on a machine without a GPU: a second CPU device
// with its own memory and worker thread takes the GPU's part, so every case
// is accepted by the CPU kernel, inputs and outputs cross memory spaces, and
// completion arrives from another thread.
TEST(CudaKernelDiff, Cases_RunOnSecondCpu_AsOnCpu) {
  CpuDevice reference;
  CpuDevice other(/*ordinal=*/1, /*threads=*/1, /*worker=*/true);
  for (const DiffCase& c : cuda_diff_cases()) {
    SCOPED_TRACE(c.name);
    DiffRun want = run_diff_case(c, reference, DeviceKind::kCpu, diff_seed(c));
    ASSERT_TRUE(want.status.ok()) << want.status.message();
    DiffRun got = run_diff_case(c, other, DeviceKind::kCpu, diff_seed(c));
    ASSERT_TRUE(got.status.ok()) << got.status.message();
    EXPECT_EQ(compare_outputs(c, got.outputs, want.outputs), "");
  }
}

TEST(CudaKernelDiff, Gpu_MatchesCpu_OnEveryCase) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason();
  auto gpu = create_cuda_device(0);
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  const DiffTally t = expect_cuda_cases_match_cpu(**gpu);
  std::printf("%d of %zu cases matched the CPU, %d declined (the CPU runs those)\n", t.matched,
              cuda_diff_cases().size(), t.declined);
}

}  // namespace
}  // namespace sy::testing
