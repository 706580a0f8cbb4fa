// What a CUDA kernel's compute() needs to launch work: the stream of the
// task being enqueued on this thread, and the cuBLAS/cuDNN handles bound to
// that stream. Kernels never synchronise: they enqueue on `stream` and
// return; the device reports completion through a host callback.
//
// Memory from ctx.allocate_output() or ctx.device().allocate() is
// stream-ordered on this stream (cudaMallocAsync), so it may be used by
// work enqueued on it at once, and scratch tensors dropped at the end of
// compute() are freed in stream order, after the work that uses them.
#pragma once

#include "devices/cuda/cuda_check.h"
#include "devices/kernel.h"

namespace sy::cuda {

class StreamSlot;  // one compute or copy stream of a CudaDevice
class CudaDevice;

struct Launch {
  cudaStream_t stream = nullptr;
  StreamSlot* slot = nullptr;
  int device = 0;  // CUDA ordinal
  CudaDevice* owner = nullptr;

  // Handles bound to `stream`, created on first use. Thread-safety: only
  // the thread holding the launch may use them until compute() returns.
  StatusOr<cublasHandle_t> cublas() const;
  StatusOr<cudnnHandle_t> cudnn() const;
  // A device int, zeroed in stream order, that the kernel sets non-zero
  // when its input is bad in a way only the device sees (an out-of-range
  // index). The task then fails with OutOfRange(`what`) when it completes:
  // a clear error without synchronising. `what` must outlive the task (a
  // string literal).
  StatusOr<int*> error_flag(const char* what) const;
};

// The launch of the task this thread is executing on a CUDA device.
// FailedPrecondition outside one (a kernel called on the wrong device).
StatusOr<Launch> current_launch(const KernelContext& ctx);

// In the second launch of a kernel that sizes its outputs on the device
// (KernelContext::resume_after): the size its first launch copied to host
// memory, the one int64 of the last of its `count` carried tensors.
// Internal, naming `op`, when the first launch's results are missing or the
// size is outside [lo, hi]: the first launch miscounted.
StatusOr<int64_t> carried_size(const KernelContext& ctx, size_t count, int64_t lo, int64_t hi, const char* op);

// A 1-D grid size for n threads of `block` (at least 1 block, capped so the
// grid fits; kernels use grid-stride loops).
inline unsigned grid_for(int64_t n, unsigned block = 256) {
  int64_t g = (n + block - 1) / block;
  if (g < 1) g = 1;
  if (g > 65535LL * 32) g = 65535LL * 32;
  return static_cast<unsigned>(g);
}

}  // namespace sy::cuda
