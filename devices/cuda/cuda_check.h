// The one way CUDA, cuBLAS and cuDNN results become Statuses: every call in
// devices/cuda/ goes through CUDA_RETURN_IF_ERROR, which names the call,
// the file and line, and the library's own message.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "devices/cuda/cuda_libraries.h"
#include "ir/status.h"

namespace sy::cuda {

inline bool failed(cudaError_t e) { return e != cudaSuccess; }
inline bool failed(cublasStatus_t e) { return e != CUBLAS_STATUS_SUCCESS; }
inline bool failed(cudnnStatus_t e) { return e != CUDNN_STATUS_SUCCESS; }

inline const char* message(cudaError_t e) { return cudaGetErrorString(e); }
// A cuBLAS or cuDNN status only comes from a loaded library.
inline const char* message(cublasStatus_t e) { return cublas_api().GetStatusString(e); }
inline const char* message(cudnnStatus_t e) { return cudnn_api().GetErrorString(e); }

// Not for CUDA host callbacks (it may call cudaGetLastError).
template <typename E>
Status to_status(E e, const char* call, const char* file, int line) {
  if (!failed(e)) return OkStatus();
  if constexpr (std::is_same_v<E, cudaError_t>) {
    // A failed runtime call also stays in the thread's last-error slot,
    // where the next kernel launch check (cudaGetLastError) would report it
    // as its own failure. It is reported here, so clear it. Sticky device
    // faults are not cleared by this and keep failing later calls.
    (void)cudaGetLastError();
    // Out of device memory is a resource problem the caller may recover
    // from (place elsewhere); everything else is a runtime failure.
    if (e == cudaErrorMemoryAllocation) return ResourceExhausted(call, ": ", message(e), " (", file, ":", line, ")");
  }
  // A library that cannot run this configuration on this GPU (a data type,
  // layout or shape it lacks here) declines it: a kernel's Unimplemented
  // sends the node to a CPU instead of failing the run.
  bool declined = false;
  if constexpr (std::is_same_v<E, cudnnStatus_t>) declined = e / 1000 == CUDNN_STATUS_NOT_SUPPORTED / 1000;
  if constexpr (std::is_same_v<E, cublasStatus_t>) declined = e == CUBLAS_STATUS_NOT_SUPPORTED;
  if (declined) return Unimplemented(call, ": ", message(e), " (", file, ":", line, ")");
  return RuntimeError(call, ": ", message(e), " (", file, ":", line, ")");
}

}  // namespace sy::cuda

#define CUDA_RETURN_IF_ERROR(expr) RETURN_IF_ERROR(::sy::cuda::to_status((expr), #expr, __FILE__, __LINE__))
