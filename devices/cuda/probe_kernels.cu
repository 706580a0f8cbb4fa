// The empty kernel behind raw_launch_us (cuda_probe.cc), and the one-word
// store that re-arms a stream's error flag (cuda_device.cc).
#include <cuda_runtime.h>

namespace sy::cuda {

__global__ void empty_kernel() {}

cudaError_t launch_empty_kernel(cudaStream_t s) {
  empty_kernel<<<1, 1, 0, s>>>();
  return cudaGetLastError();
}

__global__ void zero_int_kernel(int* p) { *p = 0; }

// A kernel rather than cudaMemsetAsync: the flag is mapped host memory,
// which kernels are known to write (they set it), while memset on mapped
// host memory is not documented.
cudaError_t launch_zero_int(int* p, cudaStream_t s) {
  zero_int_kernel<<<1, 1, 0, s>>>(p);
  return cudaGetLastError();
}

}  // namespace sy::cuda
