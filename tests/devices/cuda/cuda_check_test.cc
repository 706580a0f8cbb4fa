// How CUDA, cuBLAS and cuDNN results become Statuses (devices/cuda/cuda_check.h).
// What a library cannot do on this GPU must come back as Unimplemented, which
// sends the node to a CPU (RunLoop::fall_back_to_cpu); a real failure must not.
// Built into sy_fake_gpu_tests, the one test binary with the CUDA headers.
#include "devices/cuda/cuda_check.h"

#include <gtest/gtest.h>

namespace sy::cuda {
namespace {

TEST(CudaCheck, CudnnNotSupported_Declines_OtherFailuresFail) {
  auto dnn = CudnnApi::get();
  if (!dnn.ok()) GTEST_SKIP() << "cuDNN is not loadable here: " << dnn.status().message();
  EXPECT_TRUE(to_status(CUDNN_STATUS_SUCCESS, "call", "f.cc", 1).ok());
  for (cudnnStatus_t e : {CUDNN_STATUS_NOT_SUPPORTED, CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE,
                          CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH, CUDNN_STATUS_NOT_SUPPORTED_SHAPE}) {
    const Status s = to_status(e, "cudnnPoolingForward(...)", "f.cc", 7);
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << static_cast<int>(e) << ": " << s.message();
    EXPECT_NE(s.message().find("cudnnPoolingForward(...)"), std::string::npos) << s.message();
  }
  for (cudnnStatus_t e : {CUDNN_STATUS_BAD_PARAM, CUDNN_STATUS_EXECUTION_FAILED, CUDNN_STATUS_INTERNAL_ERROR}) {
    EXPECT_EQ(to_status(e, "call", "f.cc", 1).code(), StatusCode::kRuntime) << static_cast<int>(e);
  }
}

TEST(CudaCheck, CublasNotSupported_Declines_OtherFailuresFail) {
  auto blas = CublasApi::get();
  if (!blas.ok()) GTEST_SKIP() << "cuBLAS is not loadable here: " << blas.status().message();
  EXPECT_TRUE(to_status(CUBLAS_STATUS_SUCCESS, "call", "f.cc", 1).ok());
  EXPECT_EQ(to_status(CUBLAS_STATUS_NOT_SUPPORTED, "call", "f.cc", 1).code(), StatusCode::kUnimplemented);
  for (cublasStatus_t e : {CUBLAS_STATUS_INVALID_VALUE, CUBLAS_STATUS_EXECUTION_FAILED, CUBLAS_STATUS_ARCH_MISMATCH})
    EXPECT_EQ(to_status(e, "call", "f.cc", 1).code(), StatusCode::kRuntime) << static_cast<int>(e);
}

TEST(CudaCheck, RuntimeOutOfMemory_IsResourceExhausted) {
  EXPECT_EQ(to_status(cudaErrorMemoryAllocation, "cudaMallocAsync", "f.cc", 1).code(),
            StatusCode::kResourceExhausted);
  EXPECT_EQ(to_status(cudaErrorInvalidValue, "cudaMemcpyAsync", "f.cc", 1).code(), StatusCode::kRuntime);
  EXPECT_EQ(to_status(cudaErrorNotSupported, "cudaMemcpyAsync", "f.cc", 1).code(), StatusCode::kRuntime);
}

}  // namespace
}  // namespace sy::cuda
