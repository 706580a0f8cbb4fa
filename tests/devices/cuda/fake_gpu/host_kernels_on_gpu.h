// Kernels for the fake GPU (fake_cuda.h), which cannot run device code:
// each real CUDA kernel's registration (ops, opsets, types, host inputs),
// its attribute checks (a node it declines is placed elsewhere, as with
// the real backend), and the CPU kernel's arithmetic, run inside the fake
// GPU's stream order.
//
// Such a kernel computes its outputs with the CPU kernel when it is
// launched (its inputs are complete then: the run loop launches a node
// after its inputs' completion callbacks), allocates them on the GPU in
// stream order like a real kernel, and queues a host function that checks
// that every input and output it touches is still a live allocation when
// the stream gets there, then writes the outputs. So a free that the real
// GPU would run before a kernel still using the memory is caught, and any
// value the run loop reads before the GPU has written it is wrong.
#pragma once

#include "devices/kernel_registry.h"

namespace sy::fake_cuda {

// Every CPU kernel, and a stand-in for every real CUDA kernel. Built once;
// thread-safe.
const KernelRegistry& registry_with_host_kernels_on_gpu();

}  // namespace sy::fake_cuda
