// CUDA pooling (MaxPool, AveragePool, LpPool, GlobalMaxPool,
// GlobalAveragePool), BatchNormalization (inference), Softmax / LogSoftmax
// and LRN. cuDNN runs float and double, and float16 for pooling and
// BatchNormalization; softmax_launch.cu runs 16-bit softmax, and
// pool_launch.cu the windows and types cuDNN cannot pool (see PoolKernel).
// Every tensor is viewed as the 4-D or 5-D NCHW layout cuDNN wants;
// reshaping a packed tensor that way costs nothing.
//
// What cuDNN cannot reproduce exactly is refused in init() (the planner then
// keeps the node on the CPU): BatchNormalization in training mode or with
// statistics outputs, and LRN outside cuDNN's parameter limits.
#include <cmath>
#include <limits>
#include <vector>

#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cuda/kernels/blas_dnn_common.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/elementwise_launch.h"
#include "devices/cuda/kernels/norm_launch.h"
#include "devices/cuda/kernels/pool_launch.h"
#include "devices/cuda/kernels/softmax_launch.h"

namespace sy::cuda::dnn {
namespace {

using nn::kMaxSpatial;

int64_t prod(const Dims& d, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= d[i];
  return p;
}

bool output_present(const Node& node, size_t i) { return i < node.outputs.size() && node.outputs[i] != kNoValue; }

// ---------------------------------------------------------------- pooling

enum class PoolKind { kMax, kAvg, kLp };

// Y, and MaxPool's Indices when the node wants them, from pool_launch.cu's
// kernel, which takes any window and type cuDNN does not.
Status window_pool(KernelContext& ctx, const Tensor& x, const Dims& out, const PoolMeta& m, const char* op) {
  ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), out));
  int64_t* indices = nullptr;
  if (m.op == PoolOp::kMax && ctx.num_outputs() > 1 && ctx.output_wanted(1)) {
    ASSIGN_OR_RETURN(Tensor * it, ctx.allocate_output(1, DataType::kInt64, out));
    indices = it->data<int64_t>();
  }
  if (y->numel() == 0) return OkStatus();
  ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
  const cudaError_t err = launch_window_pool(static_cast<int>(x.dtype()), x.raw(), y->raw(), indices, m, l.stream);
  // A type the registration does not list reaches here only when it was
  // unknown at placement: the CPU runs it.
  if (err == cudaErrorNotSupported) return Unimplemented(op, ": ", x.describe(), " on CUDA");
  CUDA_RETURN_IF_ERROR(err);
  return OkStatus();
}

// cuDNN pools over symmetric pads with floor-mode output sizes. A window
// geometry outside that (asymmetric or SAME pads, ceil_mode, pads not
// smaller than the kernel) runs on a copy of X padded explicitly with the
// value that cannot win (-inf for max, 0 for an average that counts pads).
// What cuDNN cannot pool (dilations, MaxPool's Indices, averages that
// exclude asymmetric padding or use ceil_mode, LpPool, and bfloat16, int8
// and uint8) runs in pool_launch.cu's kernel, which takes every window.
class PoolKernel : public Kernel {
 public:
  explicit PoolKernel(PoolKind kind) : kind_(kind) {}

  Status init(const Node& node) override {
    RETURN_IF_ERROR(attrs_.parse_pool(node));
    count_include_pad_ = node.attr_int("count_include_pad", 0) != 0;
    const int64_t storage_order = node.attr_int("storage_order", 0);
    if (storage_order != 0 && storage_order != 1)
      return InvalidArgument(node.describe(), ": storage_order must be 0 or 1");
    column_major_ = storage_order == 1;
    p_ = static_cast<double>(node.attr_int("p", 2));
    generic_ = kind_ == PoolKind::kLp || (kind_ == PoolKind::kMax && output_present(node, 1));
    for (int64_t d : attrs_.dilations) generic_ = generic_ || d != 1;
    if (kind_ == PoolKind::kAvg) {
      generic_ = generic_ || attrs_.ceil_mode;
      if (!count_include_pad_) {
        // Excluding padding needs cuDNN's own (symmetric) pads.
        generic_ = generic_ || attrs_.auto_pad == "SAME_UPPER" || attrs_.auto_pad == "SAME_LOWER";
        const size_t nsp = attrs_.kernel_shape.size();
        if (attrs_.auto_pad == "NOTSET" && attrs_.pads.size() == 2 * nsp) {
          for (size_t i = 0; i < nsp; ++i)
            generic_ = generic_ || attrs_.pads[i] != attrs_.pads[nsp + i] || attrs_.pads[i] >= attrs_.kernel_shape[i];
        }
      }
    }
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const char* op = kind_ == PoolKind::kMax ? "MaxPool" : kind_ == PoolKind::kAvg ? "AveragePool" : "LpPool";
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument(op, ": missing input X");
    ASSIGN_OR_RETURN(nn::Window w, nn::resolve_window(attrs_, x.dims(), attrs_.kernel_shape, op));
    const StatusOr<cudnnDataType_t> type = cudnn_type(x.dtype(), op, Also16::kHalf);
    const int nsp = w.nsp;
    Dims out{x.dim(0), x.dim(1)};
    for (int i = 0; i < nsp; ++i) out.push_back(w.out[kMaxSpatial - nsp + i]);
    if (generic_ || !type.ok()) return pool_any_window(ctx, x, w, out, op);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), out));
    if (y->numel() == 0) return OkStatus();

    bool direct = true;
    for (int i = 0; i < nsp; ++i) {
      const int o = kMaxSpatial - nsp + i;
      const int64_t pb = w.pad_b[o], k = w.k[o];
      direct = direct && pb == w.pad_e[o] && pb < k && (w.in[o] + 2 * pb - k) / w.stride[o] + 1 == w.out[o];
    }
    if (!direct && kind_ == PoolKind::kAvg && !count_include_pad_) return pool_any_window(ctx, x, w, out, op);

    const int64_t NC = x.dim(0) * x.dim(1);
    std::vector<int64_t> xd{x.dim(0), x.dim(1)}, yd{x.dim(0), x.dim(1)}, win, pad, stride;
    std::vector<int64_t> x_onnx{NC}, xp_onnx{NC}, offset{0};
    if (nsp == 1) {
      for (auto* v : {&xd, &yd, &win, &stride}) v->push_back(1);
      pad.push_back(0);
    }
    for (int i = 0; i < nsp; ++i) {
      const int o = kMaxSpatial - nsp + i;
      // The padded copy spans exactly the ONNX windows: (out-1)*s + k
      // elements from -pad_b (trailing input no window reads is dropped).
      const int64_t in = direct ? w.in[o] : (w.out[o] - 1) * w.stride[o] + w.k[o];
      xd.push_back(in);
      yd.push_back(w.out[o]);
      win.push_back(w.k[o]);
      pad.push_back(direct ? w.pad_b[o] : 0);
      stride.push_back(w.stride[o]);
      x_onnx.push_back(w.in[o]);
      xp_onnx.push_back(in);
      offset.push_back(-w.pad_b[o]);
    }
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(cudnnHandle_t h, l.cudnn());
    const Tensor* xin = &x;
    Tensor padded;
    if (!direct) {
      ASSIGN_OR_RETURN(padded, scratch(ctx, x.dtype(), Dims(xd)));
      const double fill = kind_ == PoolKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0;
      RETURN_IF_ERROR(window_copy(l.stream, x, x_onnx, padded, xp_onnx, offset, fill));
      xin = &padded;
    }
    const cudnnPoolingMode_t mode = kind_ == PoolKind::kMax ? CUDNN_POOLING_MAX
                                    : count_include_pad_    ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                            : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    return run_pool(h, mode, *type, *xin, xd, *y, yd, win, pad, stride, op);
  }

  // Pools a packed NCHW / NCDHW view; also used by the global pools.
  static Status run_pool(cudnnHandle_t h, cudnnPoolingMode_t mode, cudnnDataType_t type, const Tensor& x,
                         const std::vector<int64_t>& xd, Tensor& y, const std::vector<int64_t>& yd,
                         const std::vector<int64_t>& win, const std::vector<int64_t>& pad,
                         const std::vector<int64_t>& stride, const char* op) {
    TensorDesc x_desc, y_desc;
    PoolDesc p_desc;
    RETURN_IF_ERROR(x_desc.set(type, xd));
    RETURN_IF_ERROR(y_desc.set(type, yd));
    RETURN_IF_ERROR(p_desc.set(mode, win, pad, stride));
    std::vector<int> got(yd.size());
    CUDA_RETURN_IF_ERROR(
        cudnn_api().GetPoolingNdForwardOutputDim(p_desc.get(), x_desc.get(), static_cast<int>(got.size()), got.data()));
    for (size_t i = 0; i < yd.size(); ++i)
      if (got[i] != yd[i]) return Internal(op, ": cuDNN pooling geometry differs from the ONNX shape");
    CUDA_RETURN_IF_ERROR(cudnn_api().PoolingForward(h, p_desc.get(), one_for(x.dtype()), x_desc.get(), x.raw(),
                                                    zero_for(x.dtype()), y_desc.get(), y.raw()));
    return OkStatus();
  }

 private:
  // Y (and MaxPool's Indices) from pool_launch.cu's kernel.
  Status pool_any_window(KernelContext& ctx, const Tensor& x, const nn::Window& w, const Dims& out,
                         const char* op) const {
    PoolMeta m;
    m.planes = x.dim(0) * x.dim(1);
    for (int j = 0; j < kMaxSpatial; ++j) {
      // The kernel's window arithmetic stays in 64 bits below this.
      if (w.dil[j] > INT32_MAX || w.k[j] > INT32_MAX)
        return Unimplemented(op, ": a window of ", w.k[j], " with dilation ", w.dil[j], " on CUDA");
      m.in[j] = w.in[j];
      m.out[j] = w.out[j];
      m.k[j] = w.k[j];
      m.stride[j] = w.stride[j];
      m.dil[j] = w.dil[j];
      m.pad_b[j] = w.pad_b[j];
      m.pad_e[j] = w.pad_e[j];
    }
    m.op = kind_ == PoolKind::kMax ? PoolOp::kMax : kind_ == PoolKind::kAvg ? PoolOp::kAvg : PoolOp::kLp;
    m.count_include_pad = count_include_pad_;
    m.column_major = column_major_;
    m.p = p_;
    return window_pool(ctx, x, out, m, op);
  }

  PoolKind kind_;
  nn::WindowAttrs attrs_;
  bool count_include_pad_ = false;
  bool column_major_ = false;  // storage_order 1
  double p_ = 2;               // LpPool
  bool generic_ = false;       // a window cuDNN cannot pool
};

struct MaxPoolKernel final : PoolKernel {
  MaxPoolKernel() : PoolKernel(PoolKind::kMax) {}
};
struct AveragePoolKernel final : PoolKernel {
  AveragePoolKernel() : PoolKernel(PoolKind::kAvg) {}
};
struct LpPoolKernel final : PoolKernel {
  LpPoolKernel() : PoolKernel(PoolKind::kLp) {}
};

// Global pools: X viewed as [N, C, S, 1] with one S x 1 window.
class GlobalPoolKernel : public Kernel {
 public:
  explicit GlobalPoolKernel(PoolKind kind) : kind_(kind) {}

  Status compute(KernelContext& ctx) const override {
    const char* op = kind_ == PoolKind::kMax ? "GlobalMaxPool" : "GlobalAveragePool";
    const Tensor& x = ctx.input(0);
    if (!x.defined() || x.rank() < 2) return InvalidArgument(op, ": input must have rank >= 2, got ", x.describe());
    Dims out{x.dim(0), x.dim(1)};
    for (size_t i = 2; i < x.rank(); ++i) out.push_back(1);
    const int64_t sp = prod(x.dims(), 2, x.rank());
    if (sp == 0 && kind_ == PoolKind::kMax) return InvalidArgument("GlobalMaxPool: empty spatial dimensions");
    const StatusOr<cudnnDataType_t> type = cudnn_type(x.dtype(), op, Also16::kHalf);
    if (!type.ok() && sp > 0) {  // bfloat16: one window over the flattened plane
      PoolMeta m;
      m.planes = x.dim(0) * x.dim(1);
      m.in[2] = m.k[2] = sp;
      m.op = kind_ == PoolKind::kMax ? PoolOp::kMax : PoolOp::kAvg;
      return window_pool(ctx, x, out, m, op);
    }
    RETURN_IF_ERROR(type.status());
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), out));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    if (sp == 0) {  // the CPU kernel's average of nothing is 0
      CUDA_RETURN_IF_ERROR(cudaMemsetAsync(y->raw(), 0, y->nbytes(), l.stream));
      return OkStatus();
    }
    ASSIGN_OR_RETURN(cudnnHandle_t h, l.cudnn());
    const std::vector<int64_t> xd{x.dim(0), x.dim(1), sp, 1}, yd{x.dim(0), x.dim(1), 1, 1};
    const cudnnPoolingMode_t mode =
        kind_ == PoolKind::kMax ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    return PoolKernel::run_pool(h, mode, *type, x, xd, *y, yd, {sp, 1}, {0, 0}, {1, 1}, op);
  }

 private:
  PoolKind kind_;
};

struct GlobalMaxPoolKernel final : GlobalPoolKernel {
  GlobalMaxPoolKernel() : GlobalPoolKernel(PoolKind::kMax) {}
};
struct GlobalAveragePoolKernel final : GlobalPoolKernel {
  GlobalAveragePoolKernel() : GlobalPoolKernel(PoolKind::kAvg) {}
};

// ---------------------------------------------------- BatchNormalization

// Inference with the given statistics goes to cuDNN: X viewed as [N, C, S,
// 1], the four 1-D parameters as [1, C, 1, 1] (cuDNN's spatial mode).
// Training mode, an old opset's statistics outputs, bfloat16 and an epsilon
// below cuDNN's minimum take norm_launch.cu's kernel, which follows the CPU
// kernel's arithmetic.
class BatchNormKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    epsilon_ = node.attr_float("epsilon", 1e-5f);
    momentum_ = node.attr_float("momentum", 0.9f);
    opset_ = node.opset;
    training_ = opset_ >= 14 && node.attr_int("training_mode", 0) != 0;
    if (opset_ < 7 && node.attr_int("is_test", 0) == 0 && node.num_outputs() > 1) training_ = true;
    if (opset_ < 9 && node.attr_int("spatial", 1) == 0)
      return Unimplemented(node.describe(), ": spatial=0 is not supported");
    // As on the CPU: statistics outputs are written in training mode, and
    // before opset 14 whenever the model names them.
    stats_ = training_;
    for (size_t i = 1; i < node.outputs.size() && opset_ < 14; ++i) stats_ = stats_ || output_present(node, i);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(reduce_detail::check_batch_norm_inputs(ctx));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    const bool below_cudnn = !(static_cast<double>(epsilon_) >= CUDNN_BN_MIN_EPSILON);
    if (stats_ || below_cudnn || x.dtype() == DataType::kBFloat16) return with_stats(ctx, l, *y);
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(cudnnDataType_t type, cudnn_type(x.dtype(), "BatchNormalization", Also16::kHalf));
    // cuDNN takes the four parameters in float for float16 X, in X's type
    // otherwise. ONNX lets each parameter have its own float type (as the
    // CPU kernel reads them), so those of another type are converted first.
    const DataType param_type = x.dtype() == DataType::kFloat16 ? DataType::kFloat : x.dtype();
    ASSIGN_OR_RETURN(cudnnDataType_t p_type, cudnn_type(param_type, "BatchNormalization"));
    const int64_t n = x.dim(0), c = x.dim(1), sp = prod(x.dims(), 2, x.rank());
    ASSIGN_OR_RETURN(cudnnHandle_t h, l.cudnn());
    const void* params[4];
    Tensor converted[4];
    for (size_t i = 0; i < 4; ++i) {
      ASSIGN_OR_RETURN(params[i], as_type(ctx, l.stream, ctx.input(i + 1), param_type, converted[i]));
    }
    TensorDesc x_desc, p_desc;
    RETURN_IF_ERROR(x_desc.set(type, std::vector<int64_t>{n, c, sp, 1}));
    RETURN_IF_ERROR(p_desc.set(p_type, std::vector<int64_t>{1, c, 1, 1}));
    CUDA_RETURN_IF_ERROR(cudnn_api().BatchNormalizationForwardInference(
        h, CUDNN_BATCHNORM_SPATIAL, one_for(x.dtype()), zero_for(x.dtype()), x_desc.get(), x.raw(), x_desc.get(),
        y->raw(), p_desc.get(), params[0], params[1], params[2], params[3], static_cast<double>(epsilon_)));
    return OkStatus();
  }

 private:
  Status with_stats(KernelContext& ctx, const Launch& l, Tensor& y) const {
    const Tensor& x = ctx.input(0);
    // The parameters in the compute type (double for double X, else float).
    const DataType calc = x.dtype() == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
    const void* params[4];
    Tensor converted[4];
    for (size_t i = 0; i < 4; ++i) {
      ASSIGN_OR_RETURN(params[i], as_type(ctx, l.stream, ctx.input(i + 1), calc, converted[i]));
    }
    BatchNormMeta m;
    m.n = x.dim(0);
    m.c = x.dim(1);
    m.sp = prod(x.dims(), 2, x.rank());
    m.epsilon = epsilon_;
    m.momentum = momentum_;
    m.training = training_;
    ASSIGN_OR_RETURN(Tensor stats, scratch(ctx, calc, Dims{4, m.c}));
    CUDA_RETURN_IF_ERROR(launch_batch_norm_stats(static_cast<int>(x.dtype()), x.raw(), y.raw(), params[0], params[1],
                                                 params[2], params[3], stats.raw(), m, l.stream));
    if (!stats_) return OkStatus();
    // Outputs 1, 2: the running mean and var; (opset < 14) 3, 4: the batch's.
    const DataType stat_type = ctx.input(3).dtype();
    const size_t last = opset_ < 14 ? 4 : 2;
    for (size_t i = 1; i <= last && i < ctx.num_outputs(); ++i) {
      if (!ctx.output_wanted(i)) continue;
      ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output(i, stat_type, Dims{m.c}));
      const auto* row = static_cast<const unsigned char*>(stats.raw()) + (i - 1) * m.c * dtype_size(calc);
      CUDA_RETURN_IF_ERROR(
          launch_cast(static_cast<int>(calc), static_cast<int>(stat_type), row, t->raw(), m.c, l.stream));
    }
    return OkStatus();
  }

  float epsilon_ = 1e-5f;
  float momentum_ = 0.9f;
  int opset_ = 15;
  bool training_ = false;
  bool stats_ = false;  // the statistics outputs are written
};

// ------------------------------------------------------ Softmax / LogSoftmax

// Opset 13+: softmax along one axis, X viewed as [outer, D, inner, 1] with
// cuDNN's channel mode. Before opset 13 the input is coerced to 2-D at the
// axis: [outer, rest, 1, 1].
class SoftmaxKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    log_ = node.op_type == "LogSoftmax";
    coerce_2d_ = node.opset < 13;
    axis_ = node.attr_int("axis", coerce_2d_ ? 1 : -1);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument(node.describe(), ": missing input");
    // 16-bit rows run in this project's kernel (softmax_launch.cu), which
    // follows the CPU kernel's float steps; cuDNN takes float and double.
    const bool half = is_16bit_float(x.dtype());
    cudnnDataType_t type = CUDNN_DATA_FLOAT;
    if (!half) {
      ASSIGN_OR_RETURN(type, cudnn_type(x.dtype(), log_ ? "LogSoftmax" : "Softmax"));
    }
    const int64_t rank = static_cast<int64_t>(x.rank());
    int64_t outer = 1, d = 1, inner = 1;
    if (rank > 0) {
      // Before opset 13, axis == rank is legal (the whole tensor is one row
      // each). A negative axis counts from the back in every opset
      // ([-r, r-1] in opset 11): -1 is the last dimension, not rank.
      const int64_t hi = coerce_2d_ ? rank + 1 : rank;
      if (axis_ < -rank || axis_ >= hi)
        return InvalidArgument(node.describe(), ": axis ", axis_, " is out of range for rank ", rank);
      const auto a = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
      outer = prod(x.dims(), 0, a);
      if (coerce_2d_) {
        d = prod(x.dims(), a, x.rank());
      } else {
        d = x.dim(a);
        inner = prod(x.dims(), a + 1, x.rank());
      }
    } else if (axis_ < -1 || axis_ > 0) {
      return InvalidArgument(node.describe(), ": axis ", axis_, " is out of range for a scalar");
    }
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    if (half) {
      CUDA_RETURN_IF_ERROR(
          launch_softmax_16(static_cast<int>(x.dtype()), x.raw(), y->raw(), outer, d, inner, log_, l.stream));
      return OkStatus();
    }
    ASSIGN_OR_RETURN(cudnnHandle_t h, l.cudnn());
    TensorDesc desc;
    RETURN_IF_ERROR(desc.set(type, std::vector<int64_t>{outer, d, inner, 1}));
    CUDA_RETURN_IF_ERROR(cudnn_api().SoftmaxForward(h, log_ ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
                                                    CUDNN_SOFTMAX_MODE_CHANNEL, one_for(x.dtype()), desc.get(), x.raw(),
                                                    zero_for(x.dtype()), desc.get(), y->raw()));
    return OkStatus();
  }

 private:
  bool log_ = false;
  bool coerce_2d_ = false;
  int64_t axis_ = -1;
};

// -------------------------------------------------------------------- LRN

// ONNX: y = x / (bias + alpha / size * sum(x^2 over the window))^beta with
// the window [c - floor((size-1)/2), c + ceil((size-1)/2)]. cuDNN uses the
// same window (lookBehind = floor((n-1)/2), lookAhead = n - lookBehind - 1)
// and divides lrnAlpha by n itself, so ONNX's alpha is passed unchanged (as
// ONNX Runtime's and Caffe's cuDNN LRN layers do). X is viewed as
// [N, C, S, 1]: only the channel axis matters.
class LrnKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    alpha_ = node.attr_float("alpha", 1e-4f);
    beta_ = node.attr_float("beta", 0.75f);
    bias_ = node.attr_float("bias", 1.0f);
    size_ = node.attr_int("size", 0);
    if (size_ <= 0) return InvalidArgument(node.describe(), ": attribute size must be positive");
    if (size_ < CUDNN_LRN_MIN_N || size_ > CUDNN_LRN_MAX_N || !(static_cast<double>(bias_) >= CUDNN_LRN_MIN_K) ||
        !(static_cast<double>(beta_) >= CUDNN_LRN_MIN_BETA))
      return Unimplemented(node.describe(), ": LRN parameters outside cuDNN's limits (size <= ", CUDNN_LRN_MAX_N,
                           ", bias >= ", CUDNN_LRN_MIN_K, ", beta >= ", CUDNN_LRN_MIN_BETA, ")");
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument(node.describe(), ": missing input X");
    if (x.rank() < 2) return InvalidArgument(node.describe(), ": X must have rank >= 2, got ", x.describe());
    ASSIGN_OR_RETURN(cudnnDataType_t type, cudnn_type(x.dtype(), "LRN"));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(cudnnHandle_t h, l.cudnn());
    TensorDesc desc;
    RETURN_IF_ERROR(desc.set(type, std::vector<int64_t>{x.dim(0), x.dim(1), prod(x.dims(), 2, x.rank()), 1}));
    LrnDesc lrn;
    RETURN_IF_ERROR(lrn.set(static_cast<unsigned>(size_), static_cast<double>(alpha_), static_cast<double>(beta_),
                            static_cast<double>(bias_)));
    CUDA_RETURN_IF_ERROR(cudnn_api().LRNCrossChannelForward(h, lrn.get(), CUDNN_LRN_CROSS_CHANNEL_DIM1,
                                                            one_for(x.dtype()), desc.get(), x.raw(),
                                                            zero_for(x.dtype()), desc.get(), y->raw()));
    return OkStatus();
  }

 private:
  float alpha_ = 1e-4f, beta_ = 0.75f, bias_ = 1.0f;
  int64_t size_ = 0;
};

}  // namespace

void register_dnn_kernels(KernelRegistry& r) {
  const std::vector<DataType> fd = {DataType::kFloat, DataType::kDouble};
  // cuDNN pools float16 data as it is (the padded copy of an asymmetric
  // window fills in float16's -inf or 0), and pool_launch.cu pools
  // bfloat16 and 8-bit integers. BatchNormalization takes float parameters
  // with float16 data; bfloat16 BatchNormalization stays on the CPU.
  const std::vector<DataType> fdh = {DataType::kFloat, DataType::kDouble, DataType::kFloat16};
  const std::vector<DataType> floats = {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16};
  std::vector<DataType> max_types = floats;
  max_types.insert(max_types.end(), {DataType::kInt8, DataType::kUInt8});
  add_cuda_kernel<MaxPoolKernel>(r, "MaxPool", 1, max_types);
  add_cuda_kernel<AveragePoolKernel>(r, "AveragePool", 1, floats);
  add_cuda_kernel<LpPoolKernel>(r, "LpPool", 1, floats);
  add_cuda_kernel<GlobalMaxPoolKernel>(r, "GlobalMaxPool", 1, floats);
  add_cuda_kernel<GlobalAveragePoolKernel>(r, "GlobalAveragePool", 1, floats);
  // Opsets 7-8 differ from 9 only by the `spatial` attribute (checked in init).
  // bfloat16, which cuDNN does not take here, runs the statistics kernel.
  add_cuda_kernel<BatchNormKernel>(r, "BatchNormalization", 7,
                                   {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16});
  add_cuda_kernel<SoftmaxKernel>(r, "Softmax", 1, floats);
  add_cuda_kernel<SoftmaxKernel>(r, "LogSoftmax", 1, floats);
  add_cuda_kernel<LrnKernel>(r, "LRN", 1, fd);
}

}  // namespace sy::cuda::dnn
