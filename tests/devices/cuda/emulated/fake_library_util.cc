#include "tests/devices/cuda/emulated/fake_library_util.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <memory>

#include "tests/devices/cuda/fake_gpu/fake_cuda.h"

namespace sy::fake_libs {
namespace {

void host_fn(void* data) {
  std::unique_ptr<std::function<void()>> f(static_cast<std::function<void()>*>(data));
  (*f)();
}

}  // namespace

size_t elem_size(Elem e) {
  switch (e) {
    case Elem::kFloat:
      return 4;
    case Elem::kDouble:
      return 8;
    default:
      return 2;
  }
}

double load(Elem e, const void* base, int64_t i) {
  switch (e) {
    case Elem::kFloat:
      return static_cast<const float*>(base)[i];
    case Elem::kDouble:
      return static_cast<const double*>(base)[i];
    case Elem::kHalf:
      return __half2float(static_cast<const __half*>(base)[i]);
    case Elem::kBFloat16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[i]);
  }
  return 0;
}

void store(Elem e, void* base, int64_t i, double v) {
  switch (e) {
    case Elem::kFloat:
      static_cast<float*>(base)[i] = static_cast<float>(v);
      break;
    case Elem::kDouble:
      static_cast<double*>(base)[i] = v;
      break;
    case Elem::kHalf:
      static_cast<__half*>(base)[i] = __double2half(v);
      break;
    case Elem::kBFloat16:
      static_cast<__nv_bfloat16*>(base)[i] = __double2bfloat16(v);
      break;
  }
}

cudaError_t enqueue(cudaStream_t stream, std::function<void()> work) {
  auto* f = new std::function<void()>(std::move(work));
  const cudaError_t e = cudaLaunchHostFunc(stream, &host_fn, f);
  if (e != cudaSuccess) delete f;
  return e;
}

void check_range(const void* p, Elem e, int64_t extent, const char* what) {
  if (extent > 0) fake_cuda::check_device_range(p, static_cast<size_t>(extent) * elem_size(e), what);
}

}  // namespace sy::fake_libs
