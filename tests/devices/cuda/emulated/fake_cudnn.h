// What fake_cudnn.cc and fake_cudnn_conv.cc share: the handle and tensor
// descriptor (their structs are the opaque types cudnn.h names), and the
// plumbing every emulated compute function uses: the element types, the
// blend factors, gathering a strided tensor into a dense row-major array of
// doubles and blending a result back into one.
//
// Both files follow the cuDNN API reference, not the kernels that call
// them: see fake_cudnn.cc.
#pragma once

#include <cudnn.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "tests/devices/cuda/emulated/fake_library_util.h"

struct cudnnContext {
  // "If the cuDNN library stream is not set, all kernels use the default
  // (NULL) stream".
  cudaStream_t stream = nullptr;
};

// Plain data, so that queued work holds a copy: a caller may destroy or
// reset a descriptor as soon as the call that used it returns.
struct cudnnTensorStruct {
  bool set = false;  // until cudnnSetTensorNdDescriptor succeeds
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int nb = 0;
  std::array<int, CUDNN_DIM_MAX> dim{}, stride{};
};

namespace sy::fake_cudnn {

using fake_libs::Elem;

// The four types emulated; others (int8, fp8, ...) are valid enumerants
// that the compute functions decline.
std::optional<Elem> elem_of(cudnnDataType_t t);
bool valid_data_type(cudnnDataType_t t);

bool usable(const cudnnTensorStruct* t);  // non-null and set
bool any_negative_stride(const cudnnTensorStruct& t);
bool same_dims(const cudnnTensorStruct& a, const cudnnTensorStruct& b);
// Whether dims [from, nb) are packed row-major (dims of size 1 may have any
// stride: no element is ever stepped over them).
bool packed_from(const cudnnTensorStruct& t, int from);
// Elements from the first to one past the furthest: 1 + sum (dim-1)*stride.
int64_t extent(const cudnnTensorStruct& t);
int64_t numel(const cudnnTensorStruct& t);

// "The storage data types for alpha and beta are: float for HALF and FLOAT
// tensors, and double for DOUBLE tensors" (cuDNN developer guide, Scaling
// Parameters); bfloat16 is scaled by float as half is. Read at call time.
struct Blend {
  double alpha, beta;
};
Blend read_blend(const void* alpha, const void* beta, cudnnDataType_t out_type);

// Calls f(idx) for each index of dims[0, nb) in row-major order.
void for_each_index(int nb, const int* dims, const std::function<void(const int64_t*)>& f);
int64_t offset_of(const cudnnTensorStruct& t, const int64_t* idx);

// The tensor's elements as doubles, in row-major order of its dims.
std::vector<double> gather(const cudnnTensorStruct& t, const void* p);
// dst = alpha * r + beta * dst element by element (r row-major over t's
// dims), rounded once into t's type. With beta 0 dst is not read: "When beta
// is zero, the output is not read and may contain uninitialized data
// (including NaN)".
void blend_store(const cudnnTensorStruct& t, void* p, const std::vector<double>& r, Blend b);

// Checks that t's elements at p are live device memory; for queued work.
void check_tensor(const cudnnTensorStruct& t, const void* p, const char* what);

// Every descriptor's Create and Destroy. "When the input pointer is NULL,
// this function performs no destroy operation."
template <typename S>
cudnnStatus_t create_descriptor(S** d) {
  if (!d) return CUDNN_STATUS_BAD_PARAM;
  *d = new S;
  return CUDNN_STATUS_SUCCESS;
}
template <typename S>
cudnnStatus_t destroy_descriptor(S* d) {
  delete d;
  return CUDNN_STATUS_SUCCESS;
}

// Queues work on the handle's stream. "CUDNN_STATUS_EXECUTION_FAILED: The
// function failed to launch on the GPU" when the stream cannot take it.
cudnnStatus_t launch(cudnnHandle_t h, std::function<void()> work);

// Calls of cudnnGetConvolutionForwardAlgorithm_v7 and
// cudnnGetConvolutionBackwardDataAlgorithm_v7 so far, for tests of the
// kernels' algorithm cache.
int64_t algorithm_queries();

}  // namespace sy::fake_cudnn
