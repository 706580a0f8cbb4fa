// cuBLAS, opened with dlopen on first use instead of linked. libcublasLt's
// static initialisers fault in about 90 ms of pages at every process start
// (measured on the CI machine), which every CLI call, test process and
// conformance case of a CUDA build would pay, GPU or not. cuDNN and the
// CUDA runtime stay linked: they load their heavy parts lazily themselves.
#pragma once

#include <cublas_v2.h>

#include <string>

#include "ir/status.h"

namespace sy::cuda {

// The cuBLAS entry points Switchyard calls. The _v2 names are what
// cublas_v2.h's macros (cublasCreate, ...) expand to.
// Members are named after the functions, less the prefix, so that error
// messages (which quote the call) still say which one failed.
struct CublasApi {
  decltype(&::cublasCreate_v2) Create = nullptr;
  decltype(&::cublasDestroy_v2) Destroy = nullptr;
  decltype(&::cublasSetStream_v2) SetStream = nullptr;
  decltype(&::cublasSetPointerMode_v2) SetPointerMode = nullptr;
  decltype(&::cublasGemmEx_64) GemmEx_64 = nullptr;
  decltype(&::cublasGemmStridedBatchedEx_64) GemmStridedBatchedEx_64 = nullptr;
  decltype(&::cublasGetStatusString) GetStatusString = nullptr;
  std::string path;  // the file it was loaded from

  // Loads the library once (thread-safe) and returns its entry points, or
  // Unimplemented naming the library and the loader's reason. Tries
  // the soname (LD_LIBRARY_PATH, the executable's RUNPATH, ld.so.cache),
  // then the folder libcudart was loaded from, where toolkits keep cuBLAS.
  static StatusOr<const CublasApi*> get();
  // The loaded API, or null when get() has not succeeded (for messages).
  static const CublasApi* loaded();
};

}  // namespace sy::cuda
