// cuBLAS and cuDNN for the emulated GPU: it replaces
// devices/cuda/cuda_libraries.cc in sy_emulated_gpu_tests (defining all of
// its symbols, so the library's object is not linked). Instead of the
// libraries that dlopen would find, the tables point at fake_cublas.cc and
// fake_cudnn.cc, which define the functions under their real names and
// signatures (the headers declare them), so the kernels' host code runs
// unchanged: descriptors, leading dimensions, strides, workspaces, blend
// factors and the algorithm queries.
#include "devices/cuda/cuda_libraries.h"

namespace sy::cuda {
namespace {

// Taking the address of a function cuDNN marks deprecated is not a use of
// it that the warning is about: the kernels call the same functions.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define SY_FAKE_BIND(member, fn) api.member = &::fn;

const CublasApi& fake_cublas() {
  static const CublasApi api = [] {
    CublasApi api;
    SY_CUBLAS_FUNCTIONS(SY_FAKE_BIND)
    api.path = "emulated cuBLAS (tests/devices/cuda/emulated/fake_cublas.cc)";
    return api;
  }();
  return api;
}

const CudnnApi& fake_cudnn() {
  static const CudnnApi api = [] {
    CudnnApi api;
    SY_CUDNN_FUNCTIONS(SY_FAKE_BIND)
    api.path = "emulated cuDNN (tests/devices/cuda/emulated/fake_cudnn.cc)";
    return api;
  }();
  return api;
}

#undef SY_FAKE_BIND
#pragma GCC diagnostic pop

}  // namespace

StatusOr<const CublasApi*> CublasApi::get() { return &fake_cublas(); }
const CublasApi* CublasApi::loaded() { return &fake_cublas(); }
StatusOr<const CudnnApi*> CudnnApi::get() { return &fake_cudnn(); }
const CudnnApi* CudnnApi::loaded() { return &fake_cudnn(); }
const CublasApi& cublas_api() { return fake_cublas(); }
const CudnnApi& cudnn_api() { return fake_cudnn(); }

}  // namespace sy::cuda
