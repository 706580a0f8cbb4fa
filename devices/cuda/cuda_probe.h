// Bare CUDA baselines for benchmarks (bench/cuda_transfer_bench.cc): what
// the hardware gives without Switchyard in the way, measured on the same
// machine in the same process, so Switchyard's copy path and per-node
// overhead can be reported as ratios. No CUDA types; CUDA builds only.
#pragma once

#include <cstddef>

#include "devices/tensor.h"
#include "ir/status.h"

namespace sy::cuda {

// Best-of-`reps` bandwidth in GB/s of one cudaMemcpyAsync of `bytes` on a
// fresh stream, host memory pinned (cudaHostAlloc) or pageable (malloc).
StatusOr<double> raw_copy_gbps(int ordinal, size_t bytes, bool host_to_device, bool pinned, int reps);

// Microseconds per empty-kernel launch in a dependent chain: each launch
// followed by a stream callback the host waits for (what a run loop that
// reacts to completions pays per node), or, with `sync_each` false, all
// launched back to back and synchronised once (pure launch throughput).
StatusOr<double> raw_launch_us(int ordinal, int launches, bool sync_each);

// A host tensor in page-locked memory (from the pinned pool), for copies
// that should run at full link speed.
StatusOr<Tensor> pinned_host_tensor(DataType dtype, const Dims& dims);

}  // namespace sy::cuda
