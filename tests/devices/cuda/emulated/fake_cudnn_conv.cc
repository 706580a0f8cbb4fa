// cuDNN's legacy convolutions emulated on the host (see fake_cudnn.cc for
// the approach): filter and convolution descriptors, the output-dimension,
// algorithm and workspace queries, cudnnConvolutionForward and
// cudnnConvolutionBackwardData, written from the cuDNN API reference.
//
// The emulation "implements" three forward algorithms and two backward-data
// ones, with the data-type configurations, dilations and layouts the
// reference's tables of supported algorithms give them: IMPLICIT_GEMM (no
// workspace, any dilation), IMPLICIT_PRECOMP_GEMM and GEMM (a workspace,
// dilation 1; GEMM 2-D only); backward ALGO_0 (no workspace, any dilation)
// and ALGO_1 (a workspace, dilation 1). The rest are reported, and refused,
// as not supported. Every algorithm computes the same exact sum; the
// workspace is scribbled over before the sum, so that a workspace which
// overlaps an operand corrupts the result as it would on the GPU.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "tests/devices/cuda/emulated/fake_cudnn.h"

struct cudnnFilterStruct {
  bool set = false;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
  int nb = 0;
  std::array<int, CUDNN_DIM_MAX> dim{};
};

struct cudnnConvolutionStruct {
  bool set = false;  // until cudnnSetConvolutionNdDescriptor succeeds
  int len = 0;       // spatial dimensions
  std::array<int, CUDNN_DIM_MAX> pad{}, stride{}, dilation{};
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  int groups = 1;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

namespace sy::fake_cudnn {

std::atomic<int64_t> g_algorithm_queries{0};
int64_t algorithm_queries() { return g_algorithm_queries.load(); }

namespace {

enum class Dir { kForward, kBackwardData };

// The data-type configurations of the reference's tables (x, w and y of
// one type; the convolution descriptor's compute type).
enum class Cfg { kUnsupported, kTrueHalf, kPseudoHalf, kPseudoBf16, kFloat, kDouble };

Cfg config(cudnnDataType_t data, cudnnDataType_t compute) {
  switch (data) {
    case CUDNN_DATA_FLOAT:
      return compute == CUDNN_DATA_FLOAT ? Cfg::kFloat : Cfg::kUnsupported;
    case CUDNN_DATA_DOUBLE:
      return compute == CUDNN_DATA_DOUBLE ? Cfg::kDouble : Cfg::kUnsupported;
    case CUDNN_DATA_HALF:
      return compute == CUDNN_DATA_FLOAT  ? Cfg::kPseudoHalf
             : compute == CUDNN_DATA_HALF ? Cfg::kTrueHalf
                                          : Cfg::kUnsupported;
    case CUDNN_DATA_BFLOAT16:
      return compute == CUDNN_DATA_FLOAT ? Cfg::kPseudoBf16 : Cfg::kUnsupported;
    default:
      return Cfg::kUnsupported;
  }
}

// One convolution, checked: x is the forward input (dx going backward), y
// the forward output (dy).
struct Geom {
  cudnnTensorStruct x, y;
  cudnnFilterStruct w;
  cudnnConvolutionStruct conv;
  Cfg cfg = Cfg::kUnsupported;
  int sp = 0;                   // spatial dims
  int64_t n = 0, c = 0, k = 0;  // batch, input and output channels
  int64_t cg = 0, kg = 0;       // per group
  bool unit_dilation = true;
  int64_t in_plane = 1, out_plane = 1, ker_plane = 1;
};

int64_t elem_bytes(cudnnDataType_t t) { return static_cast<int64_t>(fake_libs::elem_size(*elem_of(t))); }

// cudnnGetConvolutionNdForwardOutputDim's checks and result (N, K, then
// "outputDim = 1 + ( inputDim + 2*pad - (((filterDim-1)*dilation)+1) )/
// convolutionStride"), BAD_PARAM when: "One of the parameters convDesc,
// inputTensorDesc, and filterDesc, is nil; The dimension of the filter
// descriptor filterDesc is different from the dimension of input tensor
// descriptor inputTensorDesc; The dimension of the convolution descriptor
// is different from the dimension of input tensor descriptor
// inputTensorDesc -2; The features map of the filter descriptor filterDesc
// is different from the one of input tensor descriptor inputTensorDesc
// [per group, for grouped convolutions]; The size of the dilated filter
// filterDesc is larger than the padded sizes of the input tensor."
cudnnStatus_t output_dims(const cudnnConvolutionStruct* c, const cudnnTensorStruct* x, const cudnnFilterStruct* w,
                          int out[CUDNN_DIM_MAX]) {
  if (!c || !c->set || !usable(x) || !w || !w->set) return CUDNN_STATUS_BAD_PARAM;
  if (w->nb != x->nb || x->nb < 3 || c->len != x->nb - 2) return CUDNN_STATUS_BAD_PARAM;
  if (int64_t{w->dim[1]} * c->groups != x->dim[1]) return CUDNN_STATUS_BAD_PARAM;
  out[0] = x->dim[0];
  out[1] = w->dim[0];
  for (int i = 0; i < c->len; ++i) {
    const int64_t dilated = int64_t{w->dim[i + 2] - 1} * c->dilation[i] + 1;
    const int64_t padded = int64_t{x->dim[i + 2]} + 2 * int64_t{c->pad[i]};
    // Not documented: a filter dimension of 0 (cudnnSetFilterNdDescriptor
    // refuses only negative ones) has no valid output either.
    if (w->dim[i + 2] <= 0 || dilated > padded) return CUDNN_STATUS_BAD_PARAM;
    out[i + 2] = static_cast<int>(1 + (padded - dilated) / c->stride[i]);
  }
  return CUDNN_STATUS_SUCCESS;
}

// The checks cudnnConvolutionForward / cudnnConvolutionBackwardData list,
// BAD_PARAM before NOT_SUPPORTED, except the algorithm's. The queries run
// them too: they list a subset of the same BAD_PARAM cases.
cudnnStatus_t check(Dir dir, const cudnnTensorStruct* x, const cudnnFilterStruct* w, const cudnnConvolutionStruct* c,
                    const cudnnTensorStruct* y, Geom* g) {
  const bool fwd = dir == Dir::kForward;
  if (!usable(x) || !usable(y) || !w || !w->set || !c || !c->set) return CUDNN_STATUS_BAD_PARAM;
  // Forward BAD_PARAM: "xDesc and yDesc have a non-matching number of
  // dimensions; xDesc and wDesc have a non-matching number of dimensions;
  // xDesc has fewer than three number of dimensions; xDesc's number of
  // dimensions is not equal to convDesc's array length + 2; xDesc and wDesc
  // have a non-matching number of input feature maps per image (or group in
  // case of Grouped Convolutions); yDesc or wDesc indicate an output channel
  // count that isn't a multiple of group count; xDesc, wDesc and yDesc have
  // a non-matching data type; For some spatial dimension, wDesc has a
  // spatial size that is larger than the input spatial size (including
  // zero-padding size)". Backward data lists the same, with "dyDesc's
  // spatial sizes do not match with the expected size as determined by
  // cudnnGetConvolutionNdForwardOutputDim" among them, and the group count
  // among its NOT_SUPPORTED cases.
  if (y->nb != x->nb || x->type != w->type || y->type != x->type) return CUDNN_STATUS_BAD_PARAM;
  int out[CUDNN_DIM_MAX];
  if (const cudnnStatus_t s = output_dims(c, x, w, out); s != CUDNN_STATUS_SUCCESS) return s;
  const bool groups_divide = w->dim[0] % c->groups == 0;
  if (fwd && !groups_divide) return CUDNN_STATUS_BAD_PARAM;
  // Not documented: a y whose N or channel count differs from x's and the
  // filter's (the reference speaks of y's spatial sizes only).
  if (y->dim[0] != out[0] || y->dim[1] != out[1]) return CUDNN_STATUS_BAD_PARAM;
  const bool spatial_match = std::equal(out + 2, out + x->nb, y->dim.begin() + 2);
  if (!fwd && !spatial_match) return CUDNN_STATUS_BAD_PARAM;
  // Forward NOT_SUPPORTED: "xDesc or yDesc have negative tensor striding;
  // xDesc, wDesc or yDesc has a number of dimensions that is not 4 or 5;
  // yDescs's spatial sizes do not match with the expected size as determined
  // by cudnnGetConvolutionNdForwardOutputDim". Backward: the same but the
  // sizes, and the group count.
  if (any_negative_stride(*x) || any_negative_stride(*y) || (x->nb != 4 && x->nb != 5))
    return CUDNN_STATUS_NOT_SUPPORTED;
  if ((fwd && !spatial_match) || !groups_divide) return CUDNN_STATUS_NOT_SUPPORTED;
  // The algorithm tables' filter layouts other than NCHW (KCRS) come with
  // restrictions not emulated.
  if (w->format != CUDNN_TENSOR_NCHW) return CUDNN_STATUS_NOT_SUPPORTED;
  // Backward data: every algorithm takes dyDesc "NCHW CHW-packed" (NCDHW
  // CDHW-packed in 3-D).
  if (!fwd && !packed_from(*y, 1)) return CUDNN_STATUS_NOT_SUPPORTED;
  // "This function supports the following combinations of data types for
  // xDesc, wDesc, convDesc, and yDesc" (TRUE_HALF, PSEUDO_HALF,
  // PSEUDO_BFLOAT16, FLOAT, DOUBLE; the int8 ones are not emulated).
  const Cfg cfg = config(x->type, c->compute);
  if (cfg == Cfg::kUnsupported) return CUDNN_STATUS_NOT_SUPPORTED;
  Geom& r = *g;
  r.x = *x;
  r.y = *y;
  r.w = *w;
  r.conv = *c;
  r.cfg = cfg;
  r.sp = x->nb - 2;
  r.n = x->dim[0];
  r.c = x->dim[1];
  r.k = w->dim[0];
  r.cg = w->dim[1];
  r.kg = r.k / c->groups;
  for (int i = 0; i < r.sp; ++i) {
    r.unit_dilation = r.unit_dilation && c->dilation[i] == 1;
    r.in_plane *= x->dim[i + 2];
    r.out_plane *= y->dim[i + 2];
    r.ker_plane *= w->dim[i + 2];
  }
  return CUDNN_STATUS_SUCCESS;
}

// The reference's tables of supported algorithms (NCHW filters), and the
// workspace each emulated one asks for (always a multiple of 8 bytes).
bool fwd_supports(cudnnConvolutionFwdAlgo_t a, const Geom& g) {
  const bool no_true_half = g.cfg != Cfg::kTrueHalf;
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
      return no_true_half;  // "Dilation: Greater than 0"
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
      return g.unit_dilation;  // "Dilation: 1"
    // 2-D only; PSEUDO_HALF, FLOAT and DOUBLE; "Dilation: 1".
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
      return g.sp == 2 && g.unit_dilation && no_true_half && g.cfg != Cfg::kPseudoBf16;
    default:
      return false;
  }
}

int64_t round8(int64_t bytes) { return (bytes + 7) / 8 * 8; }

int64_t fwd_workspace(cudnnConvolutionFwdAlgo_t a, const Geom& g) {
  switch (a) {
    // "a small amount of working space (specifically, C*R*S*sizeof(int)
    // bytes ...)" (cuDNN's algorithm notes); GEMM holds the im2col matrix.
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
      return round8(g.cg * g.ker_plane * 4);
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
      return round8(g.cg * g.ker_plane * g.out_plane * elem_bytes(g.x.type));
    default:
      return 0;
  }
}

bool bwd_supports(cudnnConvolutionBwdDataAlgo_t a, const Geom& g) {
  switch (a) {
    // _ALGO_0: "PSEUDO_HALF_CONFIG, FLOAT_CONFIG, and DOUBLE_CONFIG",
    // "Dilation: greater than 0 for all dimensions".
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_0:
      return g.cfg != Cfg::kTrueHalf;
    // _ALGO_1: TRUE_HALF too, "Dilation: 1 for all dimensions"; in 3-D
    // "NCDHW-fully-packed" dy and dx.
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_1:
      return g.unit_dilation && (g.sp == 2 || (packed_from(g.x, 0) && packed_from(g.y, 0)));
    default:
      return false;
  }
}

int64_t bwd_workspace(cudnnConvolutionBwdDataAlgo_t a, const Geom& g) {
  // ALGO_1 asks room for a rearranged copy of the filter.
  return a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 ? round8(g.k * g.cg * g.ker_plane * elem_bytes(g.x.type)) : 0;
}

// For one output position o, the (x spatial offset, filter spatial offset)
// of each filter tap that lands inside x: x position o*stride - pad +
// f*dilation. CUDNN_CONVOLUTION flips the filter ("Selects between
// CUDNN_CONVOLUTION and CUDNN_CROSS_CORRELATION"): tap f takes filter
// element R-1-f.
void taps(const Geom& g, const int64_t* o, std::vector<std::pair<int64_t, int64_t>>& out) {
  out.clear();
  const bool flip = g.conv.mode == CUDNN_CONVOLUTION;
  for_each_index(g.sp, g.w.dim.data() + 2, [&](const int64_t* f) {
    int64_t xs = 0, ws = 0;
    for (int i = 0; i < g.sp; ++i) {
      const int64_t pos = o[i] * g.conv.stride[i] - g.conv.pad[i] + f[i] * g.conv.dilation[i];
      if (pos < 0 || pos >= g.x.dim[i + 2]) return;  // zero padding
      xs = xs * g.x.dim[i + 2] + pos;
      ws = ws * g.w.dim[i + 2] + (flip ? g.w.dim[i + 2] - 1 - f[i] : f[i]);
    }
    out.emplace_back(xs, ws);
  });
}

// The filter is dense ("The layout of the filters must be contiguous in
// memory"), KCRS for CUDNN_TENSOR_NCHW.
std::vector<double> gather_filter(const Geom& g, const void* w) {
  const int64_t count = g.k * g.cg * g.ker_plane;
  std::vector<double> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[i] = fake_libs::load(*elem_of(g.w.type), w, i);
  return v;
}

void check_workspace(void* ws, int64_t bytes, const char* what) {
  if (bytes == 0) return;
  fake_libs::check_range(ws, Elem::kDouble, bytes / 8, what);
  std::memset(ws, 0xA5, static_cast<size_t>(bytes));
}

// y = conv(x, w): y[n, k, o] = sum over the group's channels and the taps.
std::vector<double> forward(const Geom& g, const std::vector<double>& xv, const std::vector<double>& wv) {
  std::vector<double> r(static_cast<size_t>(g.n * g.k * g.out_plane));
  std::vector<std::pair<int64_t, int64_t>> t;
  int64_t os = 0;  // o's row-major offset in the output plane
  for_each_index(g.sp, g.y.dim.data() + 2, [&](const int64_t* o) {
    taps(g, o, t);
    for (int64_t n = 0; n < g.n; ++n)
      for (int64_t k = 0; k < g.k; ++k) {
        const int64_t grp = k / g.kg;
        double acc = 0;
        for (int64_t cc = 0; cc < g.cg; ++cc) {
          const double* xp = xv.data() + (n * g.c + grp * g.cg + cc) * g.in_plane;
          const double* wp = wv.data() + (k * g.cg + cc) * g.ker_plane;
          for (const auto& [xs, ws] : t) acc += xp[xs] * wp[ws];
        }
        r[(n * g.k + k) * g.out_plane + os] = acc;
      }
    ++os;
  });
  return r;
}

// dx = the transpose of the same map applied to dy: each dy element adds
// dy * w into every x element its taps read.
std::vector<double> backward_data(const Geom& g, const std::vector<double>& dyv, const std::vector<double>& wv) {
  std::vector<double> r(static_cast<size_t>(g.n * g.c * g.in_plane), 0.0);
  std::vector<std::pair<int64_t, int64_t>> t;
  int64_t os = 0;
  for_each_index(g.sp, g.y.dim.data() + 2, [&](const int64_t* o) {
    taps(g, o, t);
    for (int64_t n = 0; n < g.n; ++n)
      for (int64_t k = 0; k < g.k; ++k) {
        const int64_t grp = k / g.kg;
        const double d = dyv[(n * g.k + k) * g.out_plane + os];
        for (int64_t cc = 0; cc < g.cg; ++cc) {
          double* xp = r.data() + (n * g.c + grp * g.cg + cc) * g.in_plane;
          const double* wp = wv.data() + (k * g.cg + cc) * g.ker_plane;
          for (const auto& [xs, ws] : t) xp[xs] += d * wp[ws];
        }
      }
    ++os;
  });
  return r;
}

constexpr cudnnConvolutionFwdAlgo_t kFwdOrder[] = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_GEMM,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_FFT,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED};
constexpr cudnnConvolutionBwdDataAlgo_t kBwdOrder[] = {
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,        CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT,      CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING,
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED};

// "This function will return all algorithms ... sorted by expected (based
// on internal heuristic) relative performance with fastest being index 0
// of perfResults": the supported ones first (the workspace users ahead, to
// be "faster"), then the others with status NOT_SUPPORTED.
template <class Perf, class Algo, size_t N, class Supports, class Workspace, class Deterministic>
void fill_perf(const Algo (&order)[N], cudnnStatus_t common, const Geom& g, int requested, int* returned, Perf* perf,
               Supports supports, Workspace workspace, Deterministic deterministic) {
  std::vector<Perf> all;
  for (int pass = 0; pass < 2; ++pass)
    for (const Algo a : order) {
      const bool ok = common == CUDNN_STATUS_SUCCESS && supports(a, g);
      if (ok != (pass == 0)) continue;
      Perf p{};
      p.algo = a;
      p.status = ok ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED;
      p.time = ok ? 0.1f * static_cast<float>(all.size() + 1) : -1.f;
      p.memory = ok ? static_cast<size_t>(workspace(a, g)) : 0;
      p.determinism = ok && deterministic(a) ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
      p.mathType = common == CUDNN_STATUS_SUCCESS ? g.conv.math : CUDNN_DEFAULT_MATH;
      all.push_back(p);
    }
  *returned = std::min(requested, static_cast<int>(all.size()));
  std::copy(all.begin(), all.begin() + *returned, perf);
}

}  // namespace
}  // namespace sy::fake_cudnn

// NOLINTNEXTLINE: the cuDNN functions below are global, as the header declares them.
using namespace sy::fake_cudnn;
using sy::fake_libs::Elem;

// ------------------------------------------------------------- filters

cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* filterDesc) { return create_descriptor(filterDesc); }

cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc) { return destroy_descriptor(filterDesc); }

cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                         cudnnTensorFormat_t format, int nbDims, const int filterDimA[]) {
  if (!filterDesc) return CUDNN_STATUS_BAD_PARAM;
  // NOT_SUPPORTED: "The parameter nbDims exceeds CUDNN_DIM_MAX". Not
  // documented: fewer than 3 ("the minimum number of dimensions in the
  // filter descriptor is three").
  if (nbDims > CUDNN_DIM_MAX) return CUDNN_STATUS_NOT_SUPPORTED;
  if (nbDims < 3 || !filterDimA) return CUDNN_STATUS_BAD_PARAM;
  // BAD_PARAM: "At least one of the elements of the array filterDimA is
  // negative or dataType or format has an invalid enumerant value."
  if (!valid_data_type(dataType) ||
      (format != CUDNN_TENSOR_NCHW && format != CUDNN_TENSOR_NHWC && format != CUDNN_TENSOR_NCHW_VECT_C))
    return CUDNN_STATUS_BAD_PARAM;
  cudnnFilterStruct f;
  f.type = dataType;
  f.format = format;
  f.nb = nbDims;
  for (int i = 0; i < nbDims; ++i) {
    if (filterDimA[i] < 0) return CUDNN_STATUS_BAD_PARAM;
    f.dim[i] = filterDimA[i];
  }
  f.set = true;
  *filterDesc = f;
  return CUDNN_STATUS_SUCCESS;
}

// ------------------------------------------------- convolution descriptors

cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* convDesc) { return create_descriptor(convDesc); }

cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc) { return destroy_descriptor(convDesc); }

cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc, int arrayLength, const int padA[],
                                              const int filterStrideA[], const int dilationA[],
                                              cudnnConvolutionMode_t mode, cudnnDataType_t computeType) {
  // BAD_PARAM: "The descriptor convDesc is nil. The arrayLengthRequest is
  // negative. The enumerant mode has an invalid value. The enumerant
  // datatype has an invalid value. One of the elements of padA is strictly
  // negative. One of the elements of strideA is negative or zero. One of the
  // elements of dilationA is negative or zero." NOT_SUPPORTED: "The
  // arrayLengthRequest is greater than CUDNN_DIM_MAX."
  if (!convDesc || arrayLength < 0) return CUDNN_STATUS_BAD_PARAM;
  if (arrayLength > CUDNN_DIM_MAX) return CUDNN_STATUS_NOT_SUPPORTED;
  if (arrayLength > 0 && (!padA || !filterStrideA || !dilationA)) return CUDNN_STATUS_BAD_PARAM;
  if ((mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION) || !valid_data_type(computeType))
    return CUDNN_STATUS_BAD_PARAM;
  cudnnConvolutionStruct c = *convDesc;  // keeps the group count and math type
  c.len = arrayLength;
  c.mode = mode;
  c.compute = computeType;
  for (int i = 0; i < arrayLength; ++i) {
    if (padA[i] < 0 || filterStrideA[i] <= 0 || dilationA[i] <= 0) return CUDNN_STATUS_BAD_PARAM;
    c.pad[i] = padA[i];
    c.stride[i] = filterStrideA[i];
    c.dilation[i] = dilationA[i];
  }
  c.set = true;
  *convDesc = c;
  return CUDNN_STATUS_SUCCESS;
}

// BAD_PARAM: "An invalid convolution descriptor was provided"; a count
// below 1 is invalid ("Group count support: Greater than 0").
cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int groupCount) {
  if (!convDesc || groupCount < 1) return CUDNN_STATUS_BAD_PARAM;
  convDesc->groups = groupCount;
  return CUDNN_STATUS_SUCCESS;
}

// BAD_PARAM: "Either an invalid convolution descriptor was provided or an
// invalid math type was specified."
cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType) {
  if (!convDesc || mathType < CUDNN_DEFAULT_MATH || mathType > CUDNN_FMA_MATH) return CUDNN_STATUS_BAD_PARAM;
  convDesc->math = mathType;
  return CUDNN_STATUS_SUCCESS;
}

// "tensorOuputDimA: Array of dimensions nbDims that contains on exit of
// this routine the sizes of the output tensor"; BAD_PARAM also when "The
// dimension nbDims of the output array is negative or greater than the
// dimension of input tensor descriptor".
cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                    const cudnnTensorDescriptor_t inputTensorDesc,
                                                    const cudnnFilterDescriptor_t filterDesc, int nbDims,
                                                    int tensorOuputDimA[]) {
  int out[CUDNN_DIM_MAX];
  if (const cudnnStatus_t s = output_dims(convDesc, inputTensorDesc, filterDesc, out); s != CUDNN_STATUS_SUCCESS)
    return s;
  if (nbDims < 0 || nbDims > inputTensorDesc->nb || (nbDims > 0 && !tensorOuputDimA)) return CUDNN_STATUS_BAD_PARAM;
  std::copy(out, out + nbDims, tensorOuputDimA);
  return CUDNN_STATUS_SUCCESS;
}

// ------------------------------------------------------------ forward

// "the maximum number of algorithms which can be returned from
// cudnnFindConvolution...Algorithm() and cudnnGetConvolution...Algorithm_v7()";
// BAD_PARAM: "The provided handle is not allocated properly."
cudnnStatus_t cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t handle, int* count) {
  if (!handle || !count) return CUDNN_STATUS_BAD_PARAM;
  *count = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  return CUDNN_STATUS_SUCCESS;
}

// BAD_PARAM: "One of the parameters handle, xDesc, wDesc, convDesc, yDesc,
// perfResults, returnedAlgoCount is NULL. Either yDesc or wDesc have
// different dimensions from xDesc. The data types of tensors xDesc, yDesc
// or wDesc are not all the same. The number of feature maps in xDesc and
// wDesc differs. The tensor xDesc has a dimension smaller than 3.
// requestedAlgoCount is less than or equal to 0."
cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
                                                     const cudnnFilterDescriptor_t filterDesc,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnTensorDescriptor_t destDesc,
                                                     const int requestedAlgoCount, int* returnedAlgoCount,
                                                     cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  g_algorithm_queries.fetch_add(1);
  if (!handle || !returnedAlgoCount || !perfResults || requestedAlgoCount <= 0) return CUDNN_STATUS_BAD_PARAM;
  Geom g;
  const cudnnStatus_t s = check(Dir::kForward, srcDesc, filterDesc, convDesc, destDesc, &g);
  if (s == CUDNN_STATUS_BAD_PARAM) return s;
  fill_perf(kFwdOrder, s, g, requestedAlgoCount, returnedAlgoCount, perfResults, fwd_supports, fwd_workspace,
            [](cudnnConvolutionFwdAlgo_t) { return true; });  // "all algorithms perform deterministic computations"
  return CUDNN_STATUS_SUCCESS;
}

// NOT_SUPPORTED: "The combination of the tensor descriptors, filter
// descriptor and convolution descriptor is not supported for the specified
// algorithm."
cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                      const cudnnFilterDescriptor_t wDesc,
                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                      const cudnnTensorDescriptor_t yDesc,
                                                      cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes) {
  if (!handle || !sizeInBytes || algo < 0 || algo >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT) return CUDNN_STATUS_BAD_PARAM;
  Geom g;
  if (const cudnnStatus_t s = check(Dir::kForward, xDesc, wDesc, convDesc, yDesc, &g); s != CUDNN_STATUS_SUCCESS)
    return s;
  if (!fwd_supports(algo, g)) return CUDNN_STATUS_NOT_SUPPORTED;
  *sizeInBytes = static_cast<size_t>(fwd_workspace(algo, g));
  return CUDNN_STATUS_SUCCESS;
}

// y = alpha * conv(x, w) + beta * y.
cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc,
                                      const void* x, const cudnnFilterDescriptor_t wDesc, const void* w,
                                      const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,
                                      void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
                                      const cudnnTensorDescriptor_t yDesc, void* y) {
  // BAD_PARAM: "At least one of the following is NULL: handle, xDesc, wDesc,
  // convDesc, yDesc, xData, w, yData, alpha, beta".
  if (!handle || !x || !w || !y || !alpha || !beta) return CUDNN_STATUS_BAD_PARAM;
  if (algo < 0 || algo >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT) return CUDNN_STATUS_BAD_PARAM;
  Geom g;
  if (const cudnnStatus_t s = check(Dir::kForward, xDesc, wDesc, convDesc, yDesc, &g); s != CUDNN_STATUS_SUCCESS)
    return s;
  // NOT_SUPPORTED: "The chosen algo does not support the parameters
  // provided".
  if (!fwd_supports(algo, g)) return CUDNN_STATUS_NOT_SUPPORTED;
  // "workSpace: ... a workspace needed to able to execute the specified
  // algorithm. If no workspace is needed for a particular algorithm, that
  // pointer can be nil." Less than cudnnGetConvolutionForwardWorkspaceSize
  // gives is refused with BAD_PARAM (the reference lists no status for it;
  // cuDNN answers BAD_PARAM, as in chainer/chainer#3922).
  const int64_t need = fwd_workspace(algo, g);
  if (workSpaceSizeInBytes < static_cast<size_t>(need) || (need > 0 && !workSpace)) return CUDNN_STATUS_BAD_PARAM;
  const Blend b = read_blend(alpha, beta, g.y.type);
  return launch(handle, [=] {
    check_tensor(g.x, x, "cudnnConvolutionForward: x");
    sy::fake_libs::check_range(w, *elem_of(g.w.type), g.k * g.cg * g.ker_plane, "cudnnConvolutionForward: w");
    check_tensor(g.y, y, "cudnnConvolutionForward: y");
    check_workspace(workSpace, need, "cudnnConvolutionForward: workSpace");
    const std::vector<double> xv = gather(g.x, x), wv = gather_filter(g, w);
    blend_store(g.y, y, forward(g, xv, wv), b);
  });
}

// ---------------------------------------------------------- backward data

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t handle, int* count) {
  if (!handle || !count) return CUDNN_STATUS_BAD_PARAM;
  *count = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  return CUDNN_STATUS_SUCCESS;
}

// BAD_PARAM: "One of the parameters handle, wDesc, dyDesc, convDesc,
// dxDesc, perfResults, returnedAlgoCount is NULL. The numbers of feature
// maps of the input tensor and output tensor differ. The dataType of the
// two tensor descriptors or the filter are different. requestedAlgoCount is
// less than or equal to 0."
cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t gradDesc, const int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  g_algorithm_queries.fetch_add(1);
  if (!handle || !returnedAlgoCount || !perfResults || requestedAlgoCount <= 0) return CUDNN_STATUS_BAD_PARAM;
  Geom g;
  const cudnnStatus_t s = check(Dir::kBackwardData, gradDesc, filterDesc, convDesc, diffDesc, &g);
  if (s == CUDNN_STATUS_BAD_PARAM) return s;
  // ALGO_0 is "non-deterministic" (cudnn.h and the algorithm table).
  fill_perf(kBwdOrder, s, g, requestedAlgoCount, returnedAlgoCount, perfResults, bwd_supports, bwd_workspace,
            [](cudnnConvolutionBwdDataAlgo_t a) { return a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_0; });
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                           const cudnnTensorDescriptor_t dyDesc,
                                                           const cudnnConvolutionDescriptor_t convDesc,
                                                           const cudnnTensorDescriptor_t dxDesc,
                                                           cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes) {
  if (!handle || !sizeInBytes || algo < 0 || algo >= CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT)
    return CUDNN_STATUS_BAD_PARAM;
  Geom g;
  if (const cudnnStatus_t s = check(Dir::kBackwardData, dxDesc, wDesc, convDesc, dyDesc, &g); s != CUDNN_STATUS_SUCCESS)
    return s;
  if (!bwd_supports(algo, g)) return CUDNN_STATUS_NOT_SUPPORTED;
  *sizeInBytes = static_cast<size_t>(bwd_workspace(algo, g));
  return CUDNN_STATUS_SUCCESS;
}

// "computes the convolution data gradient of the tensor dy, where y is the
// output of the forward convolution in cudnnConvolutionForward()": dx =
// alpha * (the transposed convolution of dy with w) + beta * dx.
cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t handle, const void* alpha, const cudnnFilterDescriptor_t wDesc,
                                           const void* w, const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                           const cudnnConvolutionDescriptor_t convDesc,
                                           cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                           size_t workSpaceSizeInBytes, const void* beta,
                                           const cudnnTensorDescriptor_t dxDesc, void* dx) {
  // BAD_PARAM: "At least one of the following is NULL: handle, dyDesc,
  // wDesc, convDesc, dxDesc, dy, w, dx, alpha, beta".
  if (!handle || !w || !dy || !dx || !alpha || !beta) return CUDNN_STATUS_BAD_PARAM;
  if (algo < 0 || algo >= CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT) return CUDNN_STATUS_BAD_PARAM;
  Geom g;
  if (const cudnnStatus_t s = check(Dir::kBackwardData, dxDesc, wDesc, convDesc, dyDesc, &g); s != CUDNN_STATUS_SUCCESS)
    return s;
  // "The chosen algo does not support the parameters".
  if (!bwd_supports(algo, g)) return CUDNN_STATUS_NOT_SUPPORTED;
  const int64_t need = bwd_workspace(algo, g);
  if (workSpaceSizeInBytes < static_cast<size_t>(need) || (need > 0 && !workSpace)) return CUDNN_STATUS_BAD_PARAM;
  const Blend b = read_blend(alpha, beta, g.x.type);
  return launch(handle, [=] {
    check_tensor(g.y, dy, "cudnnConvolutionBackwardData: dy");
    sy::fake_libs::check_range(w, *elem_of(g.w.type), g.k * g.cg * g.ker_plane, "cudnnConvolutionBackwardData: w");
    check_tensor(g.x, dx, "cudnnConvolutionBackwardData: dx");
    check_workspace(workSpace, need, "cudnnConvolutionBackwardData: workSpace");
    const std::vector<double> dyv = gather(g.y, dy), wv = gather_filter(g, w);
    blend_store(g.x, dx, backward_data(g, dyv, wv), b);
  });
}
