#include "devices/cpu/cpu_kernels.h"

namespace sy {

void register_cpu_tensor_kernels(KernelRegistry& r) { (void)r; }

}  // namespace sy
