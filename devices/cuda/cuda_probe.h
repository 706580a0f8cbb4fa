// Bare CUDA baselines for benchmarks (bench/cuda_transfer_bench.cc): what
// the hardware gives without Switchyard in the way, measured on the same
// machine in the same process, so Switchyard's copy path and per-node
// overhead can be reported as ratios. No CUDA types; CUDA builds only.
#pragma once

#include <cstddef>
#include <memory>

#include "devices/tensor.h"
#include "ir/status.h"

namespace sy::cuda {

// One cudaMemcpyAsync of `bytes` on a stream of its own, repeated: the
// buffers are allocated once, so that what is timed is the copy, not
// cudaHostAlloc (which takes longer than copying what it allocates).
class RawCopier {
 public:
  // Host memory pinned (cudaHostAlloc) or pageable (malloc), touched
  // before the first copy.
  static StatusOr<std::unique_ptr<RawCopier>> create(int ordinal, size_t bytes, bool host_to_device, bool pinned);
  ~RawCopier();
  RawCopier(const RawCopier&) = delete;
  RawCopier& operator=(const RawCopier&) = delete;
  // Seconds one copy took, from the call to the end of
  // cudaStreamSynchronize.
  StatusOr<double> seconds();

 private:
  struct Buffers;
  explicit RawCopier(std::unique_ptr<Buffers> b);
  std::unique_ptr<Buffers> b_;
};

// How raw_launch_us waits for each launch of a dependent chain.
enum class LaunchWait {
  kNone,       // launched back to back, synchronised once: launch throughput
  kCallback,   // a stream callback the host waits for
  kEventPoll,  // an event the host queries until it completes
};
// Microseconds per empty-kernel launch, each followed by `wait`: the floor
// of what a run loop that reacts to completions pays per node, heard of
// the way CudaDevice hears of them (SWITCHYARD_CUDA_COMPLETION).
StatusOr<double> raw_launch_us(int ordinal, int launches, LaunchWait wait);

// A host tensor in page-locked memory (from the pinned pool), for copies
// that should run at full link speed.
StatusOr<Tensor> pinned_host_tensor(DataType dtype, const Dims& dims);
// A host tensor in ordinary memory even once host tensors are page-locked
// (PinnedPool::serve_host_tensors), as an embedder's own buffers are.
StatusOr<Tensor> pageable_host_tensor(DataType dtype, const Dims& dims);

}  // namespace sy::cuda
