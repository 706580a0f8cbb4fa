// What the emulated cuBLAS and cuDNN (fake_cublas.cc, fake_cudnn.cc) share:
// queuing their work on a stream of the fake CUDA runtime, and reading and
// writing elements of the four floating types as double.
//
// Both libraries are written from their documented semantics, not from the
// kernels that call them: a kernel that passes a wrong leading dimension,
// stride, descriptor or blend factor must get a wrong answer or an error
// here, as it would on a GPU. Every operand they read or write is checked
// against the fake runtime's live allocations before the work runs.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

namespace sy::fake_libs {

enum class Elem { kFloat, kDouble, kHalf, kBFloat16 };

size_t elem_size(Elem e);
// Element i of an array of `e`; 16-bit values widen exactly.
double load(Elem e, const void* base, int64_t i);
// Rounds v once to `e` (to nearest even, as the GPU's conversions do).
void store(Elem e, void* base, int64_t i, double v);

// Queues `work` on `stream`; the fake runtime runs it in stream order, as a
// host function. Fails only when the stream's GPU has faulted.
cudaError_t enqueue(cudaStream_t stream, std::function<void()> work);

// Aborts, naming `what`, unless elements [0, extent) of `e` at p lie in a
// live device allocation (extent 0 checks nothing).
void check_range(const void* p, Elem e, int64_t extent, const char* what);

}  // namespace sy::fake_libs
