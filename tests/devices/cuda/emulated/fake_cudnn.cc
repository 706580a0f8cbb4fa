// The part of cuDNN's legacy API the CUDA kernels call (SY_CUDNN_FUNCTIONS
// in devices/cuda/cuda_libraries.h), emulated on the host for
// sy_emulated_gpu_tests. Each function does what NVIDIA's cuDNN API
// reference says it does, checks its arguments synchronously and returns
// the status the reference lists for each mistake, then queues the
// computation on the handle's stream, where every operand is first checked
// to be live device memory. It is written from the documentation, not from
// our kernels: a kernel that passes a wrong stride, dimension, blend factor
// or descriptor gets a wrong answer or an error here, as on a GPU. Results
// are computed in double and rounded once into the output's type.
//
// This file: the handle, tensor descriptors, cudnnAddTensor, pooling, LRN,
// batch normalization (inference) and softmax. Convolutions, filters and
// the algorithm queries are in fake_cudnn_conv.cc.
//
// Where the reference is silent the choice is noted at the check ("not
// documented").
#include "tests/devices/cuda/emulated/fake_cudnn.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sy::fake_cudnn {

std::optional<Elem> elem_of(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT:
      return Elem::kFloat;
    case CUDNN_DATA_DOUBLE:
      return Elem::kDouble;
    case CUDNN_DATA_HALF:
      return Elem::kHalf;
    case CUDNN_DATA_BFLOAT16:
      return Elem::kBFloat16;
    default:
      return std::nullopt;
  }
}

bool valid_data_type(cudnnDataType_t t) { return t >= CUDNN_DATA_FLOAT && t <= CUDNN_DATA_COMPLEX_FP64; }

bool usable(const cudnnTensorStruct* t) { return t && t->set; }

bool any_negative_stride(const cudnnTensorStruct& t) {
  return std::any_of(t.stride.begin(), t.stride.begin() + t.nb, [](int s) { return s < 0; });
}

bool same_dims(const cudnnTensorStruct& a, const cudnnTensorStruct& b) {
  return a.nb == b.nb && std::equal(a.dim.begin(), a.dim.begin() + a.nb, b.dim.begin());
}

bool packed_from(const cudnnTensorStruct& t, int from) {
  int64_t want = 1;
  for (int i = t.nb - 1; i >= from; --i) {
    if (t.dim[i] > 1 && t.stride[i] != want) return false;
    want *= t.dim[i];
  }
  return true;
}

int64_t extent(const cudnnTensorStruct& t) {
  int64_t e = 1;
  for (int i = 0; i < t.nb; ++i) e += int64_t{t.dim[i] - 1} * std::abs(int64_t{t.stride[i]});
  return e;
}

int64_t numel(const cudnnTensorStruct& t) {
  int64_t n = 1;
  for (int i = 0; i < t.nb; ++i) n *= t.dim[i];
  return n;
}

Blend read_blend(const void* alpha, const void* beta, cudnnDataType_t out_type) {
  if (out_type == CUDNN_DATA_DOUBLE) return {*static_cast<const double*>(alpha), *static_cast<const double*>(beta)};
  return {*static_cast<const float*>(alpha), *static_cast<const float*>(beta)};
}

void for_each_index(int nb, const int* dims, const std::function<void(const int64_t*)>& f) {
  std::array<int64_t, CUDNN_DIM_MAX> idx{};
  for (int i = 0; i < nb; ++i)
    if (dims[i] <= 0) return;
  for (;;) {
    f(idx.data());
    int i = nb - 1;
    for (; i >= 0; --i) {
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
    }
    if (i < 0) return;
  }
}

int64_t offset_of(const cudnnTensorStruct& t, const int64_t* idx) {
  int64_t o = 0;
  for (int i = 0; i < t.nb; ++i) o += idx[i] * t.stride[i];
  return o;
}

std::vector<double> gather(const cudnnTensorStruct& t, const void* p) {
  std::vector<double> v;
  v.reserve(static_cast<size_t>(numel(t)));
  const Elem e = *elem_of(t.type);
  for_each_index(t.nb, t.dim.data(),
                 [&](const int64_t* idx) { v.push_back(fake_libs::load(e, p, offset_of(t, idx))); });
  return v;
}

void blend_store(const cudnnTensorStruct& t, void* p, const std::vector<double>& r, Blend b) {
  const Elem e = *elem_of(t.type);
  size_t i = 0;
  for_each_index(t.nb, t.dim.data(), [&](const int64_t* idx) {
    const int64_t o = offset_of(t, idx);
    const double prior = b.beta == 0 ? 0 : b.beta * fake_libs::load(e, p, o);
    fake_libs::store(e, p, o, b.alpha * r[i++] + prior);
  });
}

void check_tensor(const cudnnTensorStruct& t, const void* p, const char* what) {
  fake_libs::check_range(p, *elem_of(t.type), extent(t), what);
}

cudnnStatus_t launch(cudnnHandle_t h, std::function<void()> work) {
  return fake_libs::enqueue(h->stream, std::move(work)) == cudaSuccess ? CUDNN_STATUS_SUCCESS
                                                                       : CUDNN_STATUS_EXECUTION_FAILED;
}

namespace {

// Rounds v to `e`: "Values of double parameters will be cast down to the
// tensor datatype during computation" (cudnnSetLRNDescriptor).
double cast_to(Elem e, double v) {
  double buf = 0;
  fake_libs::store(e, &buf, 0, v);
  return fake_libs::load(e, &buf, 0);
}

// Dims 2.. of t flattened: the spatial size the cross-channel functions
// treat alike.
int64_t spatial(const cudnnTensorStruct& t) {
  int64_t s = 1;
  for (int i = 2; i < t.nb; ++i) s *= t.dim[i];
  return s;
}

}  // namespace
}  // namespace sy::fake_cudnn

// NOLINTNEXTLINE: the cuDNN functions below are global, as the header declares them.
using namespace sy::fake_cudnn;
using sy::fake_libs::Elem;

// ------------------------------------------------------------------ handle

cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM;  // "Invalid (NULL) input pointer supplied"
  *handle = new cudnnContext;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM;
  delete handle;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM;  // "Invalid (NULL) handle"
  handle->stream = streamId;
  return CUDNN_STATUS_SUCCESS;
}

// "converts the cuDNN status code to a NUL terminated (ASCIIZ) static
// string ... When an invalid status value is passed to the function, the
// returned string is "CUDNN_UNKNOWN_STATUS"."
const char* cudnnGetErrorString(cudnnStatus_t status) {
#define SY_CASE(s) \
  case s:          \
    return #s;
  // clang-format off
  switch (static_cast<int>(status)) {
    SY_CASE(CUDNN_STATUS_SUCCESS)
    SY_CASE(CUDNN_STATUS_NOT_INITIALIZED)
    SY_CASE(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH)
    SY_CASE(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH)
    SY_CASE(CUDNN_STATUS_DEPRECATED)
    SY_CASE(CUDNN_STATUS_LICENSE_ERROR)
    SY_CASE(CUDNN_STATUS_RUNTIME_IN_PROGRESS)
    SY_CASE(CUDNN_STATUS_RUNTIME_FP_OVERFLOW)
    SY_CASE(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED)
    SY_CASE(CUDNN_STATUS_BAD_PARAM)
    case 2001: return "CUDNN_STATUS_INVALID_VALUE";
    SY_CASE(CUDNN_STATUS_BAD_PARAM_NULL_POINTER)
    SY_CASE(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER)
    SY_CASE(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED)
    SY_CASE(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
    SY_CASE(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT)
    SY_CASE(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH)
    SY_CASE(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH)
    SY_CASE(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES)
    SY_CASE(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE)
    SY_CASE(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH)
    SY_CASE(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_PADDING)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API)
    SY_CASE(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE)
    SY_CASE(CUDNN_STATUS_INTERNAL_ERROR)
    SY_CASE(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED)
    SY_CASE(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE)
    SY_CASE(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
    SY_CASE(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    SY_CASE(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM)
    SY_CASE(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED)
    SY_CASE(CUDNN_STATUS_EXECUTION_FAILED)
    SY_CASE(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER)
    SY_CASE(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS)
    SY_CASE(CUDNN_STATUS_EXECUTION_FAILED_CUDART)
    SY_CASE(CUDNN_STATUS_EXECUTION_FAILED_CURAND)
    default: return "CUDNN_UNKNOWN_STATUS";
  }
    // clang-format on
#undef SY_CASE
}

// ------------------------------------------------------- tensor descriptors

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* tensorDesc) { return create_descriptor(tensorDesc); }

cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc) { return destroy_descriptor(tensorDesc); }

cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType, int nbDims,
                                         const int dimA[], const int strideA[]) {
  if (!tensorDesc) return CUDNN_STATUS_BAD_PARAM;
  // "CUDNN_STATUS_NOT_SUPPORTED: The parameter nbDims is outside the range
  // [4, CUDNN_DIM_MAX]" ("Tensors are restricted to having at least 4
  // dimensions"). Checked first: the arrays hold nbDims entries.
  if (nbDims < 4 || nbDims > CUDNN_DIM_MAX) return CUDNN_STATUS_NOT_SUPPORTED;
  if (!dimA || !strideA || !valid_data_type(dataType)) return CUDNN_STATUS_BAD_PARAM;
  cudnnTensorStruct t;
  t.type = dataType;
  t.nb = nbDims;
  for (int i = 0; i < nbDims; ++i) {
    // "At least one of the elements of the array dimA was negative or zero".
    // Strides are not checked here: the compute functions list negative
    // strides among their own NOT_SUPPORTED cases.
    if (dimA[i] <= 0) return CUDNN_STATUS_BAD_PARAM;
    t.dim[i] = dimA[i];
    t.stride[i] = strideA[i];
  }
  // "the total size of the tensor descriptor exceeds the maximum limit of 2
  // Giga-elements" (the size including padding between dimensions).
  if (extent(t) > std::numeric_limits<int32_t>::max()) return CUDNN_STATUS_NOT_SUPPORTED;
  t.set = true;
  *tensorDesc = t;
  return CUDNN_STATUS_SUCCESS;
}

// -------------------------------------------------------------- AddTensor

// C = alpha * A + beta * C: "Each dimension of the bias tensor A must match
// the corresponding dimension of the destination tensor C or must be equal
// to 1. In the latter case, the same value from the bias tensor for those
// dimensions will be used to blend into the C tensor."
cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t aDesc,
                             const void* A, const void* beta, const cudnnTensorDescriptor_t cDesc, void* C) {
  if (!handle || !alpha || !beta || !usable(aDesc) || !usable(cDesc) || !A || !C) return CUDNN_STATUS_BAD_PARAM;
  const cudnnTensorStruct a = *aDesc, c = *cDesc;
  // BAD_PARAM: "The dimensions of the bias tensor refer to an amount of data
  // that is incompatible with the output tensor dimensions or the dataType
  // of the two tensor descriptors are different."
  if (a.type != c.type || a.nb != c.nb) return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < c.nb; ++i)
    if (a.dim[i] != c.dim[i] && a.dim[i] != 1) return CUDNN_STATUS_BAD_PARAM;
  // "Up to dimension 5, all tensor formats are supported. Beyond those
  // dimensions, this routine is not supported."
  if (c.nb > 5 || !elem_of(c.type) || any_negative_stride(a) || any_negative_stride(c))
    return CUDNN_STATUS_NOT_SUPPORTED;
  const Blend b = read_blend(alpha, beta, c.type);
  return launch(handle, [=] {
    check_tensor(a, A, "cudnnAddTensor: A");
    check_tensor(c, C, "cudnnAddTensor: C");
    const Elem e = *elem_of(a.type);
    std::vector<double> r;
    r.reserve(static_cast<size_t>(numel(c)));
    for_each_index(c.nb, c.dim.data(), [&](const int64_t* idx) {
      int64_t o = 0;
      for (int i = 0; i < a.nb; ++i) o += (a.dim[i] == 1 ? 0 : idx[i]) * a.stride[i];
      r.push_back(sy::fake_libs::load(e, A, o));
    });
    blend_store(c, C, r, b);
  });
}

// ---------------------------------------------------------------- pooling

struct cudnnPoolingStruct {
  bool set = false;
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  cudnnNanPropagation_t nan = CUDNN_NOT_PROPAGATE_NAN;
  int nb = 0;  // spatial dims
  std::array<int, CUDNN_DIM_MAX> window{}, pad{}, stride{};
};

cudnnStatus_t cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t* poolingDesc) { return create_descriptor(poolingDesc); }

cudnnStatus_t cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t poolingDesc) { return destroy_descriptor(poolingDesc); }

cudnnStatus_t cudnnSetPoolingNdDescriptor(cudnnPoolingDescriptor_t poolingDesc, const cudnnPoolingMode_t mode,
                                          const cudnnNanPropagation_t maxpoolingNanOpt, int nbDims,
                                          const int windowDimA[], const int paddingA[], const int strideA[]) {
  if (!poolingDesc) return CUDNN_STATUS_BAD_PARAM;
  // "NOT_SUPPORTED: If (nbDims > CUDNN_DIM_MAX - 2)"; "nbDims ... Must be
  // greater than zero."
  if (nbDims > CUDNN_DIM_MAX - 2) return CUDNN_STATUS_NOT_SUPPORTED;
  if (nbDims <= 0 || !windowDimA || !paddingA || !strideA) return CUDNN_STATUS_BAD_PARAM;
  // "mode or maxpoolingNanOpt has an invalid enumerant value"
  if (mode < CUDNN_POOLING_MAX || mode > CUDNN_POOLING_MAX_DETERMINISTIC) return CUDNN_STATUS_BAD_PARAM;
  if (maxpoolingNanOpt != CUDNN_NOT_PROPAGATE_NAN && maxpoolingNanOpt != CUDNN_PROPAGATE_NAN)
    return CUDNN_STATUS_BAD_PARAM;
  cudnnPoolingStruct p;
  p.mode = mode;
  p.nan = maxpoolingNanOpt;
  p.nb = nbDims;
  for (int i = 0; i < nbDims; ++i) {
    // Windows and strides "must be greater than zero"; "Negative padding is
    // allowed."
    if (windowDimA[i] <= 0 || strideA[i] <= 0) return CUDNN_STATUS_BAD_PARAM;
    p.window[i] = windowDimA[i];
    p.pad[i] = paddingA[i];
    p.stride[i] = strideA[i];
  }
  p.set = true;
  *poolingDesc = p;
  return CUDNN_STATUS_SUCCESS;
}

// "outputDim = 1 + (inputDim + 2*padding - windowDim)/poolingStride", as C
// evaluates it; outDimA holds N, C and then the spatial dims.
cudnnStatus_t cudnnGetPoolingNdForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                                const cudnnTensorDescriptor_t inputTensorDesc, int nbDims,
                                                int outputTensorDimA[]) {
  // BAD_PARAM: "poolingDesc has not been initialized. The value of nbDims is
  // inconsistent with the dimensionality of poolingDesc and inputDesc."
  if (!poolingDesc || !poolingDesc->set || !usable(inputTensorDesc) || !outputTensorDimA) return CUDNN_STATUS_BAD_PARAM;
  const cudnnPoolingStruct& p = *poolingDesc;
  const cudnnTensorStruct& x = *inputTensorDesc;
  if (nbDims != x.nb || x.nb != p.nb + 2) return CUDNN_STATUS_BAD_PARAM;
  int out[CUDNN_DIM_MAX] = {x.dim[0], x.dim[1]};
  for (int i = 0; i < p.nb; ++i) {
    out[i + 2] = 1 + (x.dim[i + 2] + 2 * p.pad[i] - p.window[i]) / p.stride[i];
    // Not documented: a window that cannot fit gives no output dimension
    // a tensor descriptor could hold.
    if (out[i + 2] <= 0) return CUDNN_STATUS_BAD_PARAM;
  }
  std::copy(out, out + nbDims, outputTensorDimA);
  return CUDNN_STATUS_SUCCESS;
}

// y = alpha * pool(x) + beta * y. "Only 2 and 3 spatial dimensions are
// allowed." "The dimensions of the output tensor yDesc can be smaller or
// bigger than the dimensions advised by ... cudnnGetPoolingNdForwardOutputDim":
// output element o pools the window starting at o*stride - pad; window
// positions outside x are padding.
cudnnStatus_t cudnnPoolingForward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc, const void* alpha,
                                  const cudnnTensorDescriptor_t xDesc, const void* x, const void* beta,
                                  const cudnnTensorDescriptor_t yDesc, void* y) {
  if (!handle || !poolingDesc || !poolingDesc->set || !alpha || !beta || !usable(xDesc) || !usable(yDesc) || !x || !y)
    return CUDNN_STATUS_BAD_PARAM;
  const cudnnPoolingStruct p = *poolingDesc;
  const cudnnTensorStruct xd = *xDesc, yd = *yDesc;
  // BAD_PARAM: "The dimensions n,c of the input tensor and output tensors
  // differ. The datatype of the input tensor and output tensors differs."
  if (xd.type != yd.type || xd.nb != yd.nb || xd.dim[0] != yd.dim[0] || xd.dim[1] != yd.dim[1])
    return CUDNN_STATUS_BAD_PARAM;
  if (xd.nb != p.nb + 2) return CUDNN_STATUS_BAD_PARAM;  // not documented: the window's rank is the input's
  if (xd.nb != 4 && xd.nb != 5) return CUDNN_STATUS_NOT_SUPPORTED;
  // NOT_SUPPORTED: "The wStride of input tensor or output tensor is not 1."
  if (xd.stride[xd.nb - 1] != 1 || yd.stride[yd.nb - 1] != 1) return CUDNN_STATUS_NOT_SUPPORTED;
  if (!elem_of(xd.type) || any_negative_stride(xd) || any_negative_stride(yd)) return CUDNN_STATUS_NOT_SUPPORTED;
  const Blend b = read_blend(alpha, beta, yd.type);
  return launch(handle, [=] {
    check_tensor(xd, x, "cudnnPoolingForward: x");
    check_tensor(yd, y, "cudnnPoolingForward: y");
    const std::vector<double> xv = gather(xd, x);
    const int sp = p.nb;
    int64_t in_plane = 1, win_size = 1;
    for (int i = 0; i < sp; ++i) in_plane *= xd.dim[i + 2], win_size *= p.window[i];
    std::vector<double> r;
    r.reserve(static_cast<size_t>(numel(yd)));
    for_each_index(yd.nb, yd.dim.data(), [&](const int64_t* o) {
      const double* plane = xv.data() + (o[0] * xd.dim[1] + o[1]) * in_plane;
      double sum = 0, mx = -std::numeric_limits<double>::infinity();
      bool nan = false;
      int64_t count = 0;  // window positions inside x
      for_each_index(sp, p.window.data(), [&](const int64_t* w) {
        int64_t at = 0;
        for (int i = 0; i < sp; ++i) {
          const int64_t pos = o[i + 2] * p.stride[i] - p.pad[i] + w[i];
          if (pos < 0 || pos >= xd.dim[i + 2]) return;  // padding
          at = at * xd.dim[i + 2] + pos;
        }
        const double v = plane[at];
        ++count;
        sum += v;
        if (std::isnan(v))
          nan = true;
        else
          mx = std::max(mx, v);
      });
      switch (p.mode) {
        case CUDNN_POOLING_MAX:
        case CUDNN_POOLING_MAX_DETERMINISTIC:
          // CUDNN_PROPAGATE_NAN: "NaN numbers are propagated"; otherwise they
          // are not. Not documented: a window with no element of x (or only
          // NaNs, not propagated) gives -inf, max's identity.
          r.push_back(nan && p.nan == CUDNN_PROPAGATE_NAN ? std::numeric_limits<double>::quiet_NaN() : mx);
          break;
        // "The number of elements used to calculate the average includes
        // spatial locations falling in the padding region" (INCLUDE), or
        // does not (EXCLUDE). Not documented: the divisor of a window past
        // the padding (an output larger than advised) is still the window's
        // size, and EXCLUDE over no element of x is 0/0.
        case CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING:
          r.push_back(sum / static_cast<double>(win_size));
          break;
        default:
          r.push_back(sum / static_cast<double>(count));
          break;
      }
    });
    blend_store(yd, y, r, b);
  });
}

// -------------------------------------------------------------------- LRN

struct cudnnLRNStruct {
  // "Uses lrnN=5, lrnAlpha=1e-4, lrnBeta=0.75, lrnK=2.0 as defaults"
  unsigned n = 5;
  double alpha = 1e-4, beta = 0.75, k = 2.0;
};

cudnnStatus_t cudnnCreateLRNDescriptor(cudnnLRNDescriptor_t* normDesc) { return create_descriptor(normDesc); }

cudnnStatus_t cudnnDestroyLRNDescriptor(cudnnLRNDescriptor_t lrnDesc) { return destroy_descriptor(lrnDesc); }

cudnnStatus_t cudnnSetLRNDescriptor(cudnnLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha, double lrnBeta,
                                    double lrnK) {
  // "Macros CUDNN_LRN_MIN_N, CUDNN_LRN_MAX_N, CUDNN_LRN_MIN_K,
  // CUDNN_LRN_MIN_BETA defined in cudnn.h specify valid ranges for
  // parameters"; BAD_PARAM: "One of the input parameters was out of valid
  // range". (Written so that NaN is out of range.)
  if (!normDesc || lrnN < CUDNN_LRN_MIN_N || lrnN > CUDNN_LRN_MAX_N || !(lrnK >= CUDNN_LRN_MIN_K) ||
      !(lrnBeta >= CUDNN_LRN_MIN_BETA) || std::isnan(lrnAlpha))
    return CUDNN_STATUS_BAD_PARAM;
  *normDesc = {lrnN, lrnAlpha, lrnBeta, lrnK};
  return CUDNN_STATUS_SUCCESS;
}

// y = alpha * x / (k + (lrnAlpha / lrnN) * sum of x^2 over the window)^lrnBeta
// + beta * y, the window across dimA[1] being [c - lookBehind, c + lookAhead]
// with "lookBehind = floor( (lrnN-1)/2 ), lookAhead = lrnN-lookBehind-1"
// (cut at the tensor's edges), and lrnAlpha "divided by the window width
// for LRN" inside the library.
cudnnStatus_t cudnnLRNCrossChannelForward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc, cudnnLRNMode_t lrnMode,
                                          const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
                                          const void* beta, const cudnnTensorDescriptor_t yDesc, void* y) {
  // BAD_PARAM: "One of the tensor pointers x, y is NULL. Number of input
  // tensor dimensions is 2 or less. ... One of tensor parameters is 5D but
  // is not in NCDHW DHW-packed format."
  if (!handle || !normDesc || !alpha || !beta || !usable(xDesc) || !usable(yDesc) || !x || !y)
    return CUDNN_STATUS_BAD_PARAM;
  if (lrnMode != CUDNN_LRN_CROSS_CHANNEL_DIM1) return CUDNN_STATUS_BAD_PARAM;  // "Currently only ... DIM1"
  const cudnnLRNStruct d = *normDesc;
  const cudnnTensorStruct xd = *xDesc, yd = *yDesc;
  if (xd.nb <= 2) return CUDNN_STATUS_BAD_PARAM;
  if ((xd.nb == 5 && !packed_from(xd, 2)) || (yd.nb == 5 && !packed_from(yd, 2))) return CUDNN_STATUS_BAD_PARAM;
  // NOT_SUPPORTED: "Any of the input tensor datatypes is not the same as any
  // of the output tensor datatype. x and y tensor dimensions mismatch. Any
  // tensor parameters strides are negative." Supported: "positive-strided,
  // NCHW for 4D x and y, and only NCDHW DHW-packed for 5D".
  if (xd.type != yd.type || !same_dims(xd, yd) || any_negative_stride(xd) || any_negative_stride(yd))
    return CUDNN_STATUS_NOT_SUPPORTED;
  if (xd.nb > 5 || !elem_of(xd.type)) return CUDNN_STATUS_NOT_SUPPORTED;
  const Blend b = read_blend(alpha, beta, yd.type);
  return launch(handle, [=] {
    check_tensor(xd, x, "cudnnLRNCrossChannelForward: x");
    check_tensor(yd, y, "cudnnLRNCrossChannelForward: y");
    const Elem e = *elem_of(xd.type);
    const double k = cast_to(e, d.k), scale = cast_to(e, d.alpha) / d.n, pw = cast_to(e, d.beta);
    const int64_t n = xd.dim[0], c = xd.dim[1], s = spatial(xd);
    const int64_t behind = (d.n - 1) / 2, ahead = d.n - behind - 1;
    const std::vector<double> xv = gather(xd, x);
    std::vector<double> r(xv.size());
    for (int64_t in = 0; in < n; ++in)
      for (int64_t ic = 0; ic < c; ++ic)
        for (int64_t is = 0; is < s; ++is) {
          double sq = 0;
          for (int64_t j = std::max<int64_t>(0, ic - behind); j <= std::min(c - 1, ic + ahead); ++j) {
            const double v = xv[(in * c + j) * s + is];
            sq += v * v;
          }
          const int64_t i = (in * c + ic) * s + is;
          r[i] = xv[i] / std::pow(k + scale * sq, pw);
        }
    blend_store(yd, y, r, b);
  });
}

// ------------------------------------------------ batch normalization
// (inference)

// "y = beta*y + alpha *[bnBias + (bnScale * (x-estimatedMean)/sqrt(epsilon +
// estimatedVariance)]", the parameters indexed per channel (SPATIAL:
// "1xCx1x1 for 4D and 1xCx1x1x1 for 5D") or per activation (PER_ACTIVATION:
// "1xCxHxW for 4D and 1xCxDxHxW for 5D").
cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t yDesc, void* y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void* bnScale, const void* bnBias,
    const void* estimatedMean, const void* estimatedVariance, double epsilon) {
  // BAD_PARAM: "One of the pointers alpha, beta, x, y, bnScale, bnBias,
  // estimatedMean, estimatedInvVariance is NULL. Number of xDesc or yDesc
  // tensor descriptor dimensions is not within the range of [4,5] ...
  // bnScaleBiasMeanVarDesc dimensions are not [as above] ... epsilon value is
  // less than CUDNN_BN_MIN_EPSILON. Dimensions or data types mismatch for
  // xDesc, yDesc."
  if (!handle || !alpha || !beta || !x || !y || !bnScale || !bnBias || !estimatedMean || !estimatedVariance)
    return CUDNN_STATUS_BAD_PARAM;
  if (!usable(xDesc) || !usable(yDesc) || !usable(bnScaleBiasMeanVarDesc)) return CUDNN_STATUS_BAD_PARAM;
  if (mode != CUDNN_BATCHNORM_PER_ACTIVATION && mode != CUDNN_BATCHNORM_SPATIAL &&
      mode != CUDNN_BATCHNORM_SPATIAL_PERSISTENT)
    return CUDNN_STATUS_BAD_PARAM;
  const cudnnTensorStruct xd = *xDesc, yd = *yDesc, pd = *bnScaleBiasMeanVarDesc;
  if (xd.nb < 4 || xd.nb > 5 || !same_dims(xd, yd) || xd.type != yd.type) return CUDNN_STATUS_BAD_PARAM;
  if (!(epsilon >= CUDNN_BN_MIN_EPSILON)) return CUDNN_STATUS_BAD_PARAM;
  const bool per_channel = mode != CUDNN_BATCHNORM_PER_ACTIVATION;
  if (pd.nb != xd.nb || pd.dim[0] != 1 || pd.dim[1] != xd.dim[1]) return CUDNN_STATUS_BAD_PARAM;
  for (int i = 2; i < xd.nb; ++i)
    if (pd.dim[i] != (per_channel ? 1 : xd.dim[i])) return CUDNN_STATUS_BAD_PARAM;
  // "The data type of this tensor descriptor must be 'float' for FP16 and
  // FP32 input tensors, and 'double' for FP64 input tensors"
  // (cudnnDeriveBNTensorDescriptor gives float for bfloat16 too).
  if (pd.type != (xd.type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT)) return CUDNN_STATUS_BAD_PARAM;
  if (!elem_of(xd.type) || any_negative_stride(xd) || any_negative_stride(yd) || any_negative_stride(pd))
    return CUDNN_STATUS_NOT_SUPPORTED;
  const Blend b = read_blend(alpha, beta, yd.type);
  return launch(handle, [=] {
    const char* what[] = {"cudnnBatchNormalizationForwardInference: bnScale",
                          "cudnnBatchNormalizationForwardInference: bnBias",
                          "cudnnBatchNormalizationForwardInference: estimatedMean",
                          "cudnnBatchNormalizationForwardInference: estimatedVariance"};
    const void* params[] = {bnScale, bnBias, estimatedMean, estimatedVariance};
    check_tensor(xd, x, "cudnnBatchNormalizationForwardInference: x");
    check_tensor(yd, y, "cudnnBatchNormalizationForwardInference: y");
    for (int i = 0; i < 4; ++i) check_tensor(pd, params[i], what[i]);
    const std::vector<double> xv = gather(xd, x), scale = gather(pd, bnScale), bias = gather(pd, bnBias),
                              mean = gather(pd, estimatedMean), var = gather(pd, estimatedVariance);
    const int64_t c = xd.dim[1], s = spatial(xd);
    std::vector<double> r(xv.size());
    for (size_t i = 0; i < xv.size(); ++i) {
      const int64_t ic = static_cast<int64_t>(i) / s % c;
      const size_t p = static_cast<size_t>(per_channel ? ic : ic * s + static_cast<int64_t>(i) % s);
      r[i] = bias[p] + scale[p] * (xv[i] - mean[p]) / std::sqrt(epsilon + var[p]);
    }
    blend_store(yd, y, r, b);
  });
}

// ---------------------------------------------------------------- softmax

// CUDNN_SOFTMAX_MODE_INSTANCE: "computed per image (N) across the dimensions
// C,H,W"; _CHANNEL: "per spatial location (H,W) per image (N) across the
// dimension C". _ACCURATE "scales each point of the softmax input domain by
// its maximum value to avoid potential floating point overflows"; _FAST is
// "the straightforward softmax operation" (here in double, without the
// shift); _LOG is log-softmax, shifted as _ACCURATE.
cudnnStatus_t cudnnSoftmaxForward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                                  const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
                                  const void* beta, const cudnnTensorDescriptor_t yDesc, void* y) {
  if (!handle || !alpha || !beta || !usable(xDesc) || !usable(yDesc) || !x || !y) return CUDNN_STATUS_BAD_PARAM;
  // BAD_PARAM: "The dimensions n,c,h,w of the input tensor and output tensors
  // differ. The datatype of the input tensor and output tensors differ. The
  // parameters algorithm or mode have an invalid enumerant value."
  if (algo != CUDNN_SOFTMAX_FAST && algo != CUDNN_SOFTMAX_ACCURATE && algo != CUDNN_SOFTMAX_LOG)
    return CUDNN_STATUS_BAD_PARAM;
  if (mode != CUDNN_SOFTMAX_MODE_INSTANCE && mode != CUDNN_SOFTMAX_MODE_CHANNEL) return CUDNN_STATUS_BAD_PARAM;
  const cudnnTensorStruct xd = *xDesc, yd = *yDesc;
  if (!same_dims(xd, yd) || xd.type != yd.type) return CUDNN_STATUS_BAD_PARAM;
  // "All tensor formats are supported for all modes and algorithms with 4
  // and 5D tensors ... For more than 5 dimensions tensors must be packed in
  // their spatial dimensions".
  if (xd.nb > 5 && (!packed_from(xd, 2) || !packed_from(yd, 2))) return CUDNN_STATUS_NOT_SUPPORTED;
  if (!elem_of(xd.type) || any_negative_stride(xd) || any_negative_stride(yd)) return CUDNN_STATUS_NOT_SUPPORTED;
  const Blend b = read_blend(alpha, beta, yd.type);
  return launch(handle, [=] {
    check_tensor(xd, x, "cudnnSoftmaxForward: x");
    check_tensor(yd, y, "cudnnSoftmaxForward: y");
    const std::vector<double> xv = gather(xd, x);
    std::vector<double> r(xv.size());
    const int64_t n = xd.dim[0], c = xd.dim[1], s = spatial(xd);
    // One softmax over `len` elements `step` apart from `first`.
    const auto one = [&](int64_t first, int64_t len, int64_t step) {
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t i = 0; i < len; ++i) mx = std::max(mx, xv[first + i * step]);
      if (algo == CUDNN_SOFTMAX_FAST) mx = 0;
      double sum = 0;
      for (int64_t i = 0; i < len; ++i) sum += std::exp(xv[first + i * step] - mx);
      for (int64_t i = 0; i < len; ++i) {
        const double v = xv[first + i * step] - mx;
        r[first + i * step] = algo == CUDNN_SOFTMAX_LOG ? v - std::log(sum) : std::exp(v) / sum;
      }
    };
    for (int64_t in = 0; in < n; ++in) {
      if (mode == CUDNN_SOFTMAX_MODE_INSTANCE)
        one(in * c * s, c * s, 1);
      else
        for (int64_t is = 0; is < s; ++is) one(in * c * s + is, c, s);
    }
    blend_store(yd, y, r, b);
  });
}
