// cuBLAS and cuDNN for the emulated GPU, which has neither: it replaces
// devices/cuda/cuda_libraries.cc in sy_emulated_gpu_tests (defining all of
// its symbols, so the library's object is not linked). Every kernel that
// needs them declines (Unimplemented), and the run loop hands its node to a
// CPU, as on a machine where they cannot be loaded.
#include <cstdlib>

#include "devices/cuda/cuda_libraries.h"

namespace sy::cuda {

StatusOr<const CublasApi*> CublasApi::get() { return Unimplemented("cuBLAS: the emulated GPU has none"); }
const CublasApi* CublasApi::loaded() { return nullptr; }
StatusOr<const CudnnApi*> CudnnApi::get() { return Unimplemented("cuDNN: the emulated GPU has none"); }
const CudnnApi* CudnnApi::loaded() { return nullptr; }

// Only code holding a handle calls these, and no handle can be made.
const CublasApi& cublas_api() { std::abort(); }
const CudnnApi& cudnn_api() { std::abort(); }

}  // namespace sy::cuda
