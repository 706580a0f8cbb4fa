// CUDA elementwise kernels, part 3: Cast between every numeric type and
// bool, with the CPU kernel's conversion rules (ew::cvt mirrors
// elementwise::cvt). Kept apart because it instantiates one kernel per type
// pair.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/elementwise_launch.h"

namespace sy::cuda {
namespace ew {
namespace {

template <typename From, typename To>
__global__ void cast_kernel(const From* __restrict__ in, To* __restrict__ out, int64_t n) {
  for (int64_t i = first_index(); i < n; i += grid_stride()) out[i] = cvt<To>(in[i]);
}

}  // namespace
}  // namespace ew

cudaError_t launch_cast(int from, int to, const void* in, void* out, int64_t n, cudaStream_t stream) {
  using namespace ew;
  if (n <= 0) return cudaSuccess;
  return visit<kEwCastTypes>(from, [&](auto ftag) {
    using From = typename decltype(ftag)::type;
    return visit<kEwCastTypes>(to, [&](auto ttag) {
      using To = typename decltype(ttag)::type;
      if constexpr (std::is_same_v<From, To>) {
        return cudaMemcpyAsync(out, in, static_cast<size_t>(n) * sizeof(From), cudaMemcpyDeviceToDevice, stream);
      } else {
        cast_kernel<From, To>
            <<<grid_for(n), kBlock, 0, stream>>>(static_cast<const From*>(in), static_cast<To*>(out), n);
        return cudaGetLastError();
      }
    });
  });
}

}  // namespace sy::cuda
