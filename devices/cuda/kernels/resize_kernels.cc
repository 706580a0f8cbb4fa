// CUDA resize kernels (to be written).
#include "devices/cuda/kernels/cuda_kernels.h"

namespace sy::cuda {

void register_cuda_resize_kernels(KernelRegistry& r) { (void)r; }

}  // namespace sy::cuda
