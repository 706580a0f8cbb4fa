// cuBLAS and cuDNN, opened with dlopen when a GPU device opens instead of
// linked, with the CUDA runtime linked statically: a CUDA build then starts
// on any machine, and only a GPU run needs the libraries. It also keeps
// process start cheap: libcublasLt's static initialisers alone fault in
// about 90 ms of pages, which every CLI call, test process and conformance
// case would pay, GPU or not.
//
// Code calls them through cublas_api() and cudnn_api(): members are named
// after the functions less their prefix, so error messages (which quote the
// call) still say which one failed. Nothing links against the libraries, so
// a call that bypassed these would fail to link.
#pragma once

#include <cublas_v2.h>
#include <cudnn.h>

#include <string>

#include "ir/status.h"

// (member, function): the _v2 names are what cublas_v2.h's macros
// (cublasCreate, ...) expand to.
#define SY_CUBLAS_FUNCTIONS(X)                              \
  X(Create, cublasCreate_v2)                                \
  X(Destroy, cublasDestroy_v2)                              \
  X(SetStream, cublasSetStream_v2)                          \
  X(SetPointerMode, cublasSetPointerMode_v2)                \
  X(GemmEx_64, cublasGemmEx_64)                             \
  X(GemmStridedBatchedEx_64, cublasGemmStridedBatchedEx_64) \
  X(GetStatusString, cublasGetStatusString)

#define SY_CUDNN_FUNCTIONS(X)                                                                      \
  X(Create, cudnnCreate)                                                                           \
  X(Destroy, cudnnDestroy)                                                                         \
  X(SetStream, cudnnSetStream)                                                                     \
  X(GetErrorString, cudnnGetErrorString)                                                           \
  X(CreateTensorDescriptor, cudnnCreateTensorDescriptor)                                           \
  X(DestroyTensorDescriptor, cudnnDestroyTensorDescriptor)                                         \
  X(SetTensorNdDescriptor, cudnnSetTensorNdDescriptor)                                             \
  X(CreateFilterDescriptor, cudnnCreateFilterDescriptor)                                           \
  X(DestroyFilterDescriptor, cudnnDestroyFilterDescriptor)                                         \
  X(SetFilterNdDescriptor, cudnnSetFilterNdDescriptor)                                             \
  X(CreateConvolutionDescriptor, cudnnCreateConvolutionDescriptor)                                 \
  X(DestroyConvolutionDescriptor, cudnnDestroyConvolutionDescriptor)                               \
  X(SetConvolutionNdDescriptor, cudnnSetConvolutionNdDescriptor)                                   \
  X(SetConvolutionGroupCount, cudnnSetConvolutionGroupCount)                                       \
  X(SetConvolutionMathType, cudnnSetConvolutionMathType)                                           \
  X(GetConvolutionNdForwardOutputDim, cudnnGetConvolutionNdForwardOutputDim)                       \
  X(GetConvolutionForwardAlgorithmMaxCount, cudnnGetConvolutionForwardAlgorithmMaxCount)           \
  X(GetConvolutionForwardAlgorithm_v7, cudnnGetConvolutionForwardAlgorithm_v7)                     \
  X(GetConvolutionForwardWorkspaceSize, cudnnGetConvolutionForwardWorkspaceSize)                   \
  X(ConvolutionForward, cudnnConvolutionForward)                                                   \
  X(GetConvolutionBackwardDataAlgorithmMaxCount, cudnnGetConvolutionBackwardDataAlgorithmMaxCount) \
  X(GetConvolutionBackwardDataAlgorithm_v7, cudnnGetConvolutionBackwardDataAlgorithm_v7)           \
  X(GetConvolutionBackwardDataWorkspaceSize, cudnnGetConvolutionBackwardDataWorkspaceSize)         \
  X(ConvolutionBackwardData, cudnnConvolutionBackwardData)                                         \
  X(AddTensor, cudnnAddTensor)                                                                     \
  X(CreatePoolingDescriptor, cudnnCreatePoolingDescriptor)                                         \
  X(DestroyPoolingDescriptor, cudnnDestroyPoolingDescriptor)                                       \
  X(SetPoolingNdDescriptor, cudnnSetPoolingNdDescriptor)                                           \
  X(GetPoolingNdForwardOutputDim, cudnnGetPoolingNdForwardOutputDim)                               \
  X(PoolingForward, cudnnPoolingForward)                                                           \
  X(CreateLRNDescriptor, cudnnCreateLRNDescriptor)                                                 \
  X(DestroyLRNDescriptor, cudnnDestroyLRNDescriptor)                                               \
  X(SetLRNDescriptor, cudnnSetLRNDescriptor)                                                       \
  X(LRNCrossChannelForward, cudnnLRNCrossChannelForward)                                           \
  X(BatchNormalizationForwardInference, cudnnBatchNormalizationForwardInference)                   \
  X(SoftmaxForward, cudnnSoftmaxForward)

namespace sy::cuda {

#define SY_CUDA_LIB_MEMBER(member, fn) decltype(&::fn) member = nullptr;

struct CublasApi {
  SY_CUBLAS_FUNCTIONS(SY_CUDA_LIB_MEMBER)
  std::string path;  // the file it was loaded from

  // Loads the library once (thread-safe) and returns it, or Unimplemented
  // naming the library and the loader's reason: a kernel that needs it then
  // declines, and its node runs on a CPU instead of failing the run. Tries
  // the soname (LD_LIBRARY_PATH, ld.so.cache), then the folders the build
  // found the toolkit and cuDNN in.
  static StatusOr<const CublasApi*> get();
  // The loaded library, or null while get() has not succeeded.
  static const CublasApi* loaded();
};

struct CudnnApi {
  SY_CUDNN_FUNCTIONS(SY_CUDA_LIB_MEMBER)
  std::string path;

  static StatusOr<const CudnnApi*> get();  // as CublasApi::get()
  static const CudnnApi* loaded();
};

#undef SY_CUDA_LIB_MEMBER

// The loaded libraries, for code that holds a handle (or a descriptor) of
// them: handles are only made once get() has succeeded, so these are never
// called before.
const CublasApi& cublas_api();
const CudnnApi& cudnn_api();

}  // namespace sy::cuda
