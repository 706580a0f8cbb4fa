// The CUDA backend as the rest of Switchyard sees it: no CUDA types, so
// every file outside devices/cuda/ compiles the same with or without CUDA.
// A build without CUDA links cuda_backend_stub.cc instead.
#pragma once

#include <memory>
#include <string>

#include "devices/device.h"
#include "devices/kernel_registry.h"

namespace sy {

// Number of usable GPUs; 0 when the build has no CUDA, or there is no
// driver or GPU (then cuda_unavailable_reason() says why). Thread-safe.
int cuda_device_count();
std::string cuda_unavailable_reason();
// True if this binary was built with CUDA support.
bool cuda_compiled();

// A Device for GPU `ordinal`, or an error naming the reason (no GPU, bad
// ordinal, no CUDA in this build).
StatusOr<std::unique_ptr<Device>> create_cuda_device(int ordinal);

// cuBLAS is opened on first need (a GPU device opens it), not at process
// start. cuda_load_blas() opens it now, with or without a GPU, and says
// from which file, or why it cannot; cuda_blas_loaded() says whether it is
// open in this process. Thread-safe.
StatusOr<std::string> cuda_load_blas();
bool cuda_blas_loaded();

// Adds the CUDA kernels (nothing in a build without CUDA).
void register_cuda_kernels(KernelRegistry& registry);

}  // namespace sy
