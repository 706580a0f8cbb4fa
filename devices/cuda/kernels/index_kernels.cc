// CUDA index kernels (to be written).
#include "devices/cuda/kernels/cuda_kernels.h"

namespace sy::cuda {

void register_cuda_index_kernels(KernelRegistry& r) { (void)r; }

}  // namespace sy::cuda
