// The CUDA backend as the rest of Switchyard sees it: no CUDA types, so
// every file outside devices/cuda/ compiles the same with or without CUDA.
// A build without CUDA links cuda_backend_stub.cc instead.
#pragma once

#include <memory>
#include <string>
#include <vector>

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
// ordinal, no CUDA in this build). Every Device for one GPU drives the same
// streams and library handles, made by the first call in the process.
StatusOr<std::unique_ptr<Device>> create_cuda_device(int ordinal);

// With a usable GPU, host tensors of 64 KiB and more come from page-locked
// memory from now on, within SWITCHYARD_PINNED_HOST_MIB (by default a
// quarter of memory), so that they copy to a GPU without the driver
// staging them while the caller waits. create_cuda_device() calls it; a
// program that makes inputs before its first GPU session calls it first.
// An error names a bad SWITCHYARD_PINNED_HOST_MIB. Thread-safe.
Status use_pinned_host_memory();
// The bytes of page-locked memory host tensors may take once that is on:
// 0 with no usable GPU or with SWITCHYARD_PINNED_HOST_MIB=0.
StatusOr<uint64_t> pinned_host_budget();

// cuBLAS and cuDNN are opened on first need (a GPU device opens them), not
// at process start. cuda_load_libraries() opens them now, GPU or not, and
// says for each the file it came from or why it cannot be loaded (nothing
// in a build without CUDA); cuda_libraries_loaded() says whether either is
// open in this process. Thread-safe.
std::vector<std::string> cuda_load_libraries();
bool cuda_libraries_loaded();

// Adds the CUDA kernels (nothing in a build without CUDA).
void register_cuda_kernels(KernelRegistry& registry);

}  // namespace sy
