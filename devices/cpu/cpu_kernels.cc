#include "devices/cpu/cpu_kernels.h"
#include "devices/cuda/cuda_backend.h"

namespace sy {

void register_cpu_kernels(KernelRegistry& r) {
  register_cpu_elementwise_kernels(r);
  register_cpu_tensor_kernels(r);
  register_cpu_reduction_kernels(r);
  register_cpu_nn_kernels(r);
  register_cpu_sequence_kernels(r);
  register_cpu_image_kernels(r);
}

void register_builtin_kernels(KernelRegistry& r) {
  register_cpu_kernels(r);
  register_cuda_kernels(r);
}

}  // namespace sy
