// The empty kernel behind raw_launch_us (cuda_probe.cc).
#include <cuda_runtime.h>

namespace sy::cuda {

__global__ void empty_kernel() {}

cudaError_t launch_empty_kernel(cudaStream_t s) {
  empty_kernel<<<1, 1, 0, s>>>();
  return cudaGetLastError();
}

}  // namespace sy::cuda
