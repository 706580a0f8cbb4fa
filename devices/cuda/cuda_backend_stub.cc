// The CUDA backend in a build without CUDA: no devices, no kernels, and an
// error that says how to get them.
#include "devices/cuda/cuda_backend.h"

namespace sy {

bool cuda_compiled() { return false; }
int cuda_device_count() { return 0; }
std::string cuda_unavailable_reason() { return "this build has no CUDA support (configure with -DSWITCHYARD_CUDA=ON)"; }

StatusOr<std::unique_ptr<Device>> create_cuda_device(int ordinal) {
  return Unimplemented("device 'cuda:", ordinal, "': ", cuda_unavailable_reason());
}

Status use_pinned_host_memory() { return OkStatus(); }
StatusOr<uint64_t> pinned_host_budget() { return uint64_t{0}; }

std::vector<std::string> cuda_load_libraries() { return {}; }
bool cuda_libraries_loaded() { return false; }

void register_cuda_kernels(KernelRegistry&) {}

}  // namespace sy
