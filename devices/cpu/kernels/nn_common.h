// Shared helpers for the CPU neural-network kernel family (nn_*.cc,
// rnn_*.cc): registration entry points of each file, window geometry for
// convolution and pooling, and the oneDNN engine.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "devices/kernel.h"
#include "devices/kernel_registry.h"

namespace dnnl {
class engine;
}

namespace sy::nn {

// Per-file registration (all called from register_cpu_nn_kernels).
void register_conv_kernels(KernelRegistry& r);       // nn_conv.cc
void register_nhwc_conv_kernel(KernelRegistry& r);   // nhwc_conv.cc
void register_nhwc_pool_kernels(KernelRegistry& r);  // nhwc_pool.cc
void register_pool_kernels(KernelRegistry& r);       // nn_pool.cc
void register_rnn_kernels(KernelRegistry& r);        // rnn_kernels.cc
void register_detection_kernels(KernelRegistry& r);  // nn_detection.cc
void register_deform_conv_kernels(KernelRegistry& r);  // nn_deform_conv.cc
void register_attention_kernels(KernelRegistry& r);    // nn_attention.cc
void register_rotary_embedding_kernels(KernelRegistry& r);  // nn_rotary_embedding.cc

// Adds a CPU kernel for domain "" to `r`.
void add_kernel(KernelRegistry& r, const char* op, int since, KernelFactory f, std::vector<DataType> types = {},
                bool data_dependent_shape = false);

// The process-wide oneDNN CPU engine. Thread-safe (created once).
dnnl::engine& cpu_engine();

// Spatial ranks handled by the window helpers; geometry is stored with
// leading 1s so that 1-D and 2-D cases run through the 3-D loops.
constexpr int kMaxSpatial = 3;
using Arr3 = std::array<int64_t, kMaxSpatial>;

// Window attributes of Conv / ConvTranspose / pooling, parsed once in init().
struct WindowAttrs {
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel_shape, pads, strides, dilations;
  bool ceil_mode = false;
  Status parse(const Node& node);
  // parse(), and kernel_shape is required: the pools and MaxUnpool have no
  // weights to infer it from, unlike the convolutions.
  Status parse_pool(const Node& node);
};

// MaxUnpool: the shape X's pooling indices address (inferred from X and
// the attributes) and the output's (the host input output_shape when
// given, no smaller). InvalidArgument for bad shapes or attributes. The
// indices' values are checked by the kernels, OutOfRange past `inferred`.
struct MaxUnpoolPlan {
  Dims inferred, out;
};
StatusOr<MaxUnpoolPlan> plan_max_unpool(const KernelContext& ctx, const WindowAttrs& a);

// NonMaxSuppression's checks, shared by the CPU and CUDA kernels
// (nn_detection.cc): boxes [B, N, 4] and scores [B, C, N] of floating
// types, and the optional scalars max_output_boxes_per_class (0 if absent:
// nothing selected), iou_threshold (in [0, 1]) and score_threshold (kept:
// above it). InvalidArgument otherwise.
struct NmsPlan {
  int64_t batches = 0, boxes = 0, classes = 0, max_out = 0;
  double iou_th = 0, score_th = 0;
  bool has_score_th = false;
};
StatusOr<NmsPlan> plan_nms(const KernelContext& ctx);
// center_point_box: 0 (corners) or 1 (centre and size); InvalidArgument
// otherwise.
StatusOr<int> nms_center(const Node& node);

// Geometry resolved for one call.
struct Window {
  int nsp = 0;  // spatial rank of the tensors
  Arr3 in{1, 1, 1}, k{1, 1, 1}, out{1, 1, 1}, stride{1, 1, 1}, dil{1, 1, 1}, pad_b{0, 0, 0}, pad_e{0, 0, 0};
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t k_size() const { return k[0] * k[1] * k[2]; }
};

// Window w's spatial dims as oneDNN's descriptors take them, one entry per
// spatial dim: input, output and window sizes, strides, dilations (0 for
// none), and begin and end pads.
struct DnnlWindow {
  std::vector<int64_t> in, out, k, strides, dil, pad_b, pad_e;
};
DnnlWindow dnnl_window(const Window& w);

// Resolves output size and padding of a conv/pool window over x (N, C,
// spatial...). `kernel` gives the kernel's spatial dims (from weights or
// the kernel_shape attribute). Errors are InvalidArgument naming `op`.
StatusOr<Window> resolve_window(const WindowAttrs& a, const Dims& x_dims, std::span<const int64_t> kernel,
                                const std::string& op);

// The i in [0, count) with 0 <= i * s + off < limit (s > 0), as [lo, hi)
// with lo <= hi <= count.
std::pair<int64_t, int64_t> index_span(int64_t off, int64_t s, int64_t count, int64_t limit);

// For window column kw: the input column under output column 0 (`off`),
// and the output columns [lo, hi) whose input column is inside the input.
struct ColumnSpan {
  int64_t off, lo, hi;
};
ColumnSpan column_span(const Window& w, int64_t kw);

// Output geometry of a forward convolution (Conv, ConvInteger, QLinearConv):
// checks X/W shapes against `group` and kernel_shape and resolves the window.
// Shared by the CPU and CUDA kernels.
struct ConvShape {
  int64_t N = 0, C = 0, M = 0;
  Window w;
  Dims out;
};
StatusOr<ConvShape> conv_shape(const WindowAttrs& a, int64_t group, const Tensor& x, const Tensor& wt,
                               const std::string& op);
// The same from the dims of X (NCHW) and W.
StatusOr<ConvShape> conv_shape(const WindowAttrs& a, int64_t group, const Dims& x, const Dims& wt,
                               const std::string& op);

// ConvInteger's and QLinearConv's inputs, checked alike by the CPU and CUDA
// kernels: X and W int8 or uint8 and shaped as conv_shape() wants; the X
// zero point a scalar, the W zero point and scale a scalar or one value
// per output channel; for QLinearConv inputs 0-7, scalar x_scale, y_scale
// and y_zero_point, y_scale non-zero and read here (so the CUDA kernel
// wants it in host memory), an 8-bit y_zero_point, and an int32 bias of
// one value per output channel. InvalidArgument otherwise.
struct IntConvPlan {
  ConvShape s;
  const Tensor* x_zero = nullptr;  // null: 0
  const Tensor* w_zero = nullptr;
  const Tensor* x_scale = nullptr;  // QLinearConv only
  const Tensor* w_scale = nullptr;
  const Tensor* bias = nullptr;        // null: none
  DataType y_type = DataType::kInt32;  // QLinearConv: y_zero_point's type
  float y_scale = 1;
  int32_t y_zero = 0;
};
StatusOr<IntConvPlan> plan_int_conv(const KernelContext& ctx, const WindowAttrs& a, int64_t group, bool qlinear);

// DeformConv's attributes and inputs, checked alike by the CPU and CUDA
// kernels (nn_deform_conv.cc): X and W of one type, shaped as conv_shape()
// wants, with C a multiple of offset_group; offset (required)
// [N, offset_group * kernel size * spatial rank, out...], mask
// [N, offset_group * kernel size, out...] and B [M] of X's type.
// InvalidArgument otherwise.
struct DeformConvAttrs {
  WindowAttrs window;
  int64_t group = 1, offset_groups = 1;
  Status parse(const Node& node);
};
struct DeformConvPlan {
  ConvShape s;
  const Tensor* offset = nullptr;
  const Tensor* mask = nullptr;  // null: every tap weighs 1
  const Tensor* bias = nullptr;  // null: none
};
StatusOr<DeformConvPlan> plan_deform_conv(const KernelContext& ctx, const DeformConvAttrs& a);

// Clamps v to [lo, hi] in place, a NaN kept (it fails both comparisons).
// V may be a GCC vector of floats: by reference, since a vector passed by
// value between a target_clones clone and a default-target function
// arrives garbled where the call is not inlined.
template <typename V>
[[gnu::always_inline]] inline void clamp_keep_nan(V& v, float lo, float hi) {
  v = v < lo ? lo : v;
  v = hi < v ? hi : v;
}

// FusedConv's activation (ir/op_fusion.h): y = min(max(y, lo), hi), a NaN
// kept. Shared by the CPU and CUDA kernels.
struct ConvActivation {
  bool on = false;
  float lo = 0, hi = 0;
  // From the node's `activation` and `activation_params`; off for a node
  // without them (Conv). InvalidArgument for an activation other than Relu
  // and Clip, or Clip without its two bounds.
  Status parse(const Node& node);
  // The bounds to clamp to: the activation's, or none (-inf, inf).
  float lower() const { return on ? lo : -std::numeric_limits<float>::infinity(); }
  float upper() const { return on ? hi : std::numeric_limits<float>::infinity(); }
  // Clamps y[0, n) in place if on, on the calling thread: for a kernel's
  // epilogue, while its output is still in the caches.
  void apply(float* y, int64_t n) const {
    if (!on) return;
    for (int64_t i = 0; i < n; ++i) clamp_keep_nan(y[i], lo, hi);
  }
  // y[0, n) += z[0, n) (a FusedConv's residual; none if z is null), then
  // clamped: the float order of the Add and Relu nodes fused.
  void apply(float* y, const float* z, int64_t n) const {
    if (z)
      for (int64_t i = 0; i < n; ++i) y[i] += z[i];
    apply(y, n);
  }
};

// Output geometry of ConvTranspose: out = s*(in-1) + output_padding + dk -
// pad_b - pad_e, or output_shape / SAME with the pads derived from it. The
// derived pads may be negative (output_shape larger than the full result):
// the extra rows then hold only the bias. Channels: X is [N, C, ...], W is
// [C, Mg, k...], Y is [N, M = Mg * group, ...]. Shared by the CPU and CUDA kernels.
struct ConvTransposeShape {
  int64_t N = 0, C = 0, M = 0, Mg = 0, Cg = 0;
  Window w;
  Dims out;
};
StatusOr<ConvTransposeShape> conv_transpose_shape(const WindowAttrs& a, int64_t group,
                                                  const std::vector<int64_t>& output_padding,
                                                  const std::vector<int64_t>& output_shape, const Tensor& x,
                                                  const Tensor& wt);

// Numpy-style batched MatMul: shapes after 1-D promotion and the element
// offsets of each broadcast batch's A and B matrices (batch i writes the
// i-th [M, N] block of the output). Shared by the CPU and CUDA kernels.
struct MatMulPlan {
  int64_t M = 0, K = 0, N = 0;
  Dims out;
  std::vector<int64_t> a_off, b_off;
};
StatusOr<MatMulPlan> plan_matmul(const Dims& a, const Dims& b, const std::string& op);

// Batches [first, first + count) of a MatMulPlan whose A and B offsets
// both advance by a fixed non-negative stride, so that one strided-batched
// call computes them all. A fully broadcast pattern ([2,1] x [1,3]
// batches) splits into a few runs.
struct BatchRun {
  int64_t first = 0, count = 0;
  int64_t a_stride = 0, b_stride = 0;
};
std::vector<BatchRun> batch_runs(const MatMulPlan& p);

// MatMulInteger's and QLinearMatMul's inputs, checked alike by the CPU and
// CUDA kernels: A and B int8 or uint8, their shapes as plan_matmul's; each
// zero point and scale a scalar or 1-D with a value per row of A (per
// column of B); for QLinearMatMul all 8 inputs, an int8 or uint8
// y_zero_point and a non-zero y_scale, both read here (so the CUDA kernel
// wants them in host memory). InvalidArgument otherwise.
struct IntMatMulPlan {
  MatMulPlan mm;
  const Tensor* a_zero = nullptr;  // null: 0
  const Tensor* b_zero = nullptr;
  const Tensor* a_scale = nullptr;  // QLinearMatMul only
  const Tensor* b_scale = nullptr;
  DataType y_type = DataType::kInt32;  // QLinearMatMul: y_zero_point's type
  float y_scale = 1;
  int32_t y_zero = 0;
};
StatusOr<IntMatMulPlan> plan_int_matmul(const KernelContext& ctx, bool qlinear);

// Calls f(TA{}, TB{}) for the 8-bit integer types ta and tb, which the
// plans above have checked.
template <typename F>
void visit_int8_pair(DataType ta, DataType tb, F&& f) {
  if (ta == DataType::kUInt8 && tb == DataType::kUInt8) f(uint8_t{}, uint8_t{});
  else if (ta == DataType::kUInt8) f(uint8_t{}, int8_t{});
  else if (tb == DataType::kUInt8) f(int8_t{}, uint8_t{});
  else f(int8_t{}, int8_t{});
}

// Gemm's shapes: Y [M, N] = op(A) [M, K] x op(B) [K, N], and the element
// strides of the optional C viewed as [M, N] (0 where it broadcasts).
// Validates ranks, types and C's broadcast. Shared by the CPU and CUDA kernels.
struct GemmPlan {
  int64_t M = 0, K = 0, N = 0;
  int64_t cs_m = 0, cs_n = 0;
};
StatusOr<GemmPlan> plan_gemm(const Tensor& a, const Tensor& b, const Tensor* c, bool trans_a, bool trans_b);

// Makes OpenMP parallel regions started by this thread (oneDNN's) single-
// threaded; call before any oneDNN call. Cheap after the first call.
void use_single_threaded_omp();

// Memory for one oneDNN execution's scratchpad (user mode): uninitialised,
// from the host allocator's caches. A zeroed std::vector per call cost
// pooling a third of its time: [1, 64, 112, 112] asks for 2.4 MB.
StatusOr<BufferRef> dnnl_scratchpad(size_t bytes);

// Row-major C = alpha * op(A) * op(B) + beta * C (ta/tb: 'N' or 'T'), by
// gemm_few_rows() for up to four rows of A (few_rows_gemm.h), else by
// oneDNN's sgemm at every size: with OpenMP single-threaded its call costs
// well under a microsecond, and a plain loop below 32K multiply-adds was
// up to 8x slower (1x192x72: 12 us against 1.5). Large products are split
// over the device's cores. Returns a runtime error if oneDNN fails.
// Thread-safe.
Status sgemm(char ta, char tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
             const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

// sgemm's double counterpart: the same contract, by a plain loop over C's
// rows (spread over the device's cores), for the kernels whose double path
// needs a product.
Status dgemm(char ta, char tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
             const double* B, int64_t ldb, double beta, double* C, int64_t ldc);

// f(i) for each of nb batches of mnk multiply-adds: side by side when they
// are many and each is too small for sgemm to split over the cores
// ([8,64,64] x [8,64,64] one after another left a core idle: 55 us
// against ONNX Runtime's 33). Returns the first failing batch's status.
Status for_batches(int64_t nb, int64_t mnk, const std::function<Status(int64_t)>& f);

// Reads element i of a float-ish tensor (float, double, half) as float.
float float_at(const Tensor& t, int64_t i);

}  // namespace sy::nn
