// CUDA Conv (float, float16, bfloat16; 16-bit data accumulates in float)
// and ConvTranspose (the same three) on cuDNN. Geometry comes from the
// helpers the CPU kernels use (nn::conv_shape, nn::conv_transpose_shape),
// so both backends agree on output shapes, auto_pad and output_padding.
//
// cuDNN pads symmetrically. Conv with asymmetric pads (explicit, or from
// SAME_* auto_pad) runs on a zero-padded copy of X carrying the excess;
// ConvTranspose computes a larger (less cropped) result and copies the
// ONNX window out of it, which also covers output_padding, output_shape
// and negative derived pads. 1-D convolutions run as 2-D with H = 1.
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "devices/cpu/kernels/nn_common.h"
#include "devices/cuda/kernels/blas_dnn_common.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/elementwise_launch.h"
#include "devices/cuda/kernels/geometry_cache.h"

namespace sy::cuda::dnn {
namespace {

using nn::kMaxSpatial;

// FFT and Winograd algorithms round differently from a direct sum (their
// error grows with the transform, not with the output), which can exceed
// the conformance tolerance on small outputs: they are a last resort.
bool transform_algo(cudnnConvolutionFwdAlgo_t a) {
  return a == CUDNN_CONVOLUTION_FWD_ALGO_FFT || a == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
         a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD || a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}
bool transform_algo(cudnnConvolutionBwdDataAlgo_t a) {
  return a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT || a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING ||
         a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD || a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
}

// Picks the fastest supported heuristic algorithm, preferring direct
// (non-transform) ones. Float convolutions must never run in TF32:
// CUDNN_DEFAULT_MATH permits TF32 on Ampere and later and the tensor-op
// types request it, so for float only FMA / default entries qualify and the
// descriptor stays in CUDNN_FMA_MATH (set_math_type). nullptr when none fits.
template <typename Perf>
const Perf* pick(const std::vector<Perf>& perf, int n, cudnnDataType_t type) {
  const bool fp32 = type == CUDNN_DATA_FLOAT;
  const Perf* fallback = nullptr;
  for (int i = 0; i < n && i < static_cast<int>(perf.size()); ++i) {
    const Perf& p = perf[static_cast<size_t>(i)];
    if (p.status != CUDNN_STATUS_SUCCESS) continue;
    if (fp32 && p.mathType != CUDNN_FMA_MATH && p.mathType != CUDNN_DEFAULT_MATH) continue;
    if (!transform_algo(p.algo)) return &p;
    if (!fallback) fallback = &p;
  }
  return fallback;
}

// The math type the convolution runs in: FMA for float (never TF32), the
// heuristic's own otherwise.
cudnnMathType_t run_math_type(cudnnDataType_t type, cudnnMathType_t suggested) {
  return type == CUDNN_DATA_FLOAT ? CUDNN_FMA_MATH : suggested;
}

// An algorithm chosen for a geometry: what the heuristics suggested, and
// the workspace it needs.
template <typename Algo>
struct AlgoChoice {
  Algo algo;
  cudnnMathType_t math;
  size_t ws;
};

// The geometry an algorithm choice holds for: the GPU, the data type and
// the cuDNN descriptors' contents (the output dims follow from them).
std::vector<int64_t> geometry_key(int device, cudnnDataType_t type, int64_t group,
                                  std::initializer_list<const std::vector<int64_t>*> dims) {
  std::vector<int64_t> key{device, static_cast<int64_t>(type), group};
  for (const std::vector<int64_t>* d : dims) {
    key.push_back(static_cast<int64_t>(d->size()));  // keeps the lists apart
    key.insert(key.end(), d->begin(), d->end());
  }
  return key;
}

// Sets the chosen math type on the (fresh) descriptor and returns the
// algorithm, with its workspace size in *ws.
template <typename Algo>
StatusOr<Algo> use(const AlgoChoice<Algo>& choice, cudnnDataType_t type, const ConvDesc& c, size_t* ws) {
  CUDA_RETURN_IF_ERROR(cudnn_api().SetConvolutionMathType(c.get(), run_math_type(type, choice.math)));
  *ws = choice.ws;
  return choice.algo;
}

StatusOr<cudnnConvolutionFwdAlgo_t> forward_algo(cudnnHandle_t h, const std::vector<int64_t>& key,
                                                 cudnnDataType_t type, const TensorDesc& x, const FilterDesc& w,
                                                 const ConvDesc& c, const TensorDesc& y, size_t* ws) {
  static GeometryCache<AlgoChoice<cudnnConvolutionFwdAlgo_t>> cache;
  if (auto hit = cache.find(key)) return use(*hit, type, c, ws);
  int max_count = 0;
  CUDA_RETURN_IF_ERROR(cudnn_api().GetConvolutionForwardAlgorithmMaxCount(h, &max_count));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
  int n = 0;
  CUDA_RETURN_IF_ERROR(cudnn_api().GetConvolutionForwardAlgorithm_v7(h, x.get(), w.get(), c.get(), y.get(),
                                                                     static_cast<int>(perf.size()), &n, perf.data()));
  // Implicit GEMM supports every geometry: the choice when nothing qualifies.
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnMathType_t math = CUDNN_FMA_MATH;
  if (const auto* p = pick(perf, n, type)) {
    algo = p->algo;
    math = p->mathType;
  }
  CUDA_RETURN_IF_ERROR(cudnn_api().SetConvolutionMathType(c.get(), run_math_type(type, math)));
  CUDA_RETURN_IF_ERROR(cudnn_api().GetConvolutionForwardWorkspaceSize(h, x.get(), w.get(), c.get(), y.get(), algo, ws));
  cache.put(key, {algo, math, *ws});
  return algo;
}

StatusOr<cudnnConvolutionBwdDataAlgo_t> backward_data_algo(cudnnHandle_t h, const std::vector<int64_t>& key,
                                                           cudnnDataType_t type, const FilterDesc& w,
                                                           const TensorDesc& dy, const ConvDesc& c,
                                                           const TensorDesc& dx, size_t* ws) {
  static GeometryCache<AlgoChoice<cudnnConvolutionBwdDataAlgo_t>> cache;
  if (auto hit = cache.find(key)) return use(*hit, type, c, ws);
  int max_count = 0;
  CUDA_RETURN_IF_ERROR(cudnn_api().GetConvolutionBackwardDataAlgorithmMaxCount(h, &max_count));
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
  int n = 0;
  CUDA_RETURN_IF_ERROR(cudnn_api().GetConvolutionBackwardDataAlgorithm_v7(
      h, w.get(), dy.get(), c.get(), dx.get(), static_cast<int>(perf.size()), &n, perf.data()));
  cudnnConvolutionBwdDataAlgo_t algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;  // supports every geometry
  cudnnMathType_t math = CUDNN_FMA_MATH;
  if (const auto* p = pick(perf, n, type)) {
    algo = p->algo;
    math = p->mathType;
  }
  CUDA_RETURN_IF_ERROR(cudnn_api().SetConvolutionMathType(c.get(), run_math_type(type, math)));
  CUDA_RETURN_IF_ERROR(
      cudnn_api().GetConvolutionBackwardDataWorkspaceSize(h, w.get(), dy.get(), c.get(), dx.get(), algo, ws));
  cache.put(key, {algo, math, *ws});
  return algo;
}

// Confirms that cuDNN's forward geometry maps `in` to `expect` (guards the
// pad / crop arithmetic here against silent out-of-bounds windows).
Status check_forward_dims(const ConvDesc& c, const TensorDesc& in, const FilterDesc& w,
                          const std::vector<int64_t>& expect, const char* op) {
  std::vector<int> got(expect.size());
  CUDA_RETURN_IF_ERROR(cudnn_api().GetConvolutionNdForwardOutputDim(c.get(), in.get(), w.get(),
                                                                    static_cast<int>(got.size()), got.data()));
  for (size_t i = 0; i < expect.size(); ++i)
    if (got[i] != expect[i]) return Internal(op, ": cuDNN output geometry differs from the ONNX shape");
  return OkStatus();
}

StatusOr<Tensor> workspace(KernelContext& ctx, size_t bytes) {
  if (bytes == 0) return Tensor();
  return scratch(ctx, DataType::kUInt8, Dims{static_cast<int64_t>(bytes)});
}

// y += bias broadcast over [N, M, spatial...] (dims as given to cuDNN).
Status add_bias(cudnnHandle_t h, cudnnDataType_t type, const Tensor& bias, const TensorDesc& y_desc,
                const std::vector<int64_t>& y_dims, Tensor& y) {
  std::vector<int64_t> bd(y_dims.size(), 1);
  bd[1] = y_dims[1];
  TensorDesc b_desc;
  RETURN_IF_ERROR(b_desc.set(type, bd));
  CUDA_RETURN_IF_ERROR(cudnn_api().AddTensor(h, one_for(y.dtype()), b_desc.get(), bias.raw(), one_for(y.dtype()),
                                             y_desc.get(), y.raw()));
  return OkStatus();
}

Status check_bias(const Tensor* b, const Tensor& x, int64_t M, const char* op) {
  if (b && (b->numel() != M || b->rank() != 1 || b->dtype() != x.dtype()))
    return InvalidArgument(op, ": bias must be 1-D of size ", M, ", got ", b->describe());
  return OkStatus();
}

class ConvKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    group_ = node.attr_int("group", 1);
    if (group_ <= 0) return InvalidArgument(node.describe(), ": group must be positive");
    RETURN_IF_ERROR(activation_.parse(node));
    return attrs_.parse(node);
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor* z = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    ASSIGN_OR_RETURN(Tensor * y, convolve(ctx));
    if (z && (z->dtype() != y->dtype() || z->dims() != y->dims()))
      return InvalidArgument("FusedConv: the residual Z must be shaped and typed as the output, ", y->describe(),
                             ", got ", z->describe());
    if ((!activation_.on && !z) || y->numel() == 0) return OkStatus();
    // FusedConv: the residual added and the output clamped in place, next
    // on the same stream. Only float FusedConv is registered; another type
    // can only be one unknown at placement.
    if (y->dtype() != DataType::kFloat) return Unimplemented("FusedConv: ", y->describe(), " on CUDA");
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    if (z) {
      EwBroadcast m;  // equal shapes: one dimension, every stride 1
      m.numel = m.dims[0] = y->numel();
      m.small = m.numel < (int64_t{1} << 31);
      for (auto& stride : m.strides) stride[0] = 1;
      CUDA_RETURN_IF_ERROR(launch_binary(EwBinary::kAdd, ew_type::kFloat, y->raw(), z->raw(), y->raw(), m, l.stream));
    }
    if (!activation_.on) return OkStatus();
    EwScalar lo, hi;
    std::memcpy(lo.bytes, &activation_.lo, sizeof(float));
    std::memcpy(hi.bytes, &activation_.hi, sizeof(float));
    CUDA_RETURN_IF_ERROR(launch_clip(ew_type::kFloat, y->raw(), y->raw(), y->numel(), lo, hi, l.stream));
    return OkStatus();
  }

 private:
  // The convolution alone, into output 0, which it returns.
  StatusOr<Tensor*> convolve(KernelContext& ctx) const {
    const Tensor& x = ctx.input(0);
    const Tensor& wt = ctx.input(1);
    ASSIGN_OR_RETURN(nn::ConvShape s, nn::conv_shape(attrs_, group_, x, wt, "Conv"));
    if (x.dtype() != wt.dtype()) return InvalidArgument("Conv: X and W types differ");
    ASSIGN_OR_RETURN(cudnnDataType_t type, cudnn_type(x.dtype(), "Conv", Also16::kHalfAndBFloat16));
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    RETURN_IF_ERROR(check_bias(b, x, s.M, "Conv"));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), s.out));
    if (y->numel() == 0) return y;
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(cudnnHandle_t h, l.cudnn());

    // cuDNN geometry: 1-D becomes 2-D with a leading unit spatial dim.
    const int nsp = s.w.nsp;
    std::vector<int64_t> xd{s.N, s.C}, wd{s.M, s.C / group_}, yd{s.N, s.M}, pad, stride, dil;
    std::vector<int64_t> x_onnx{s.N * s.C}, xp_onnx{s.N * s.C}, offset{0};  // for the padded copy
    if (nsp == 1) {
      for (auto* v : {&xd, &wd, &yd, &stride, &dil}) v->push_back(1);
      pad.push_back(0);
    }
    bool repad = false;
    for (int i = 0; i < nsp; ++i) {
      const int o = kMaxSpatial - nsp + i;
      const int64_t p = std::min(s.w.pad_b[o], s.w.pad_e[o]);
      const int64_t extra_b = s.w.pad_b[o] - p, extra_e = s.w.pad_e[o] - p;
      repad = repad || extra_b != 0 || extra_e != 0;
      const int64_t in = s.w.in[o] + extra_b + extra_e;
      xd.push_back(in);
      wd.push_back(s.w.k[o]);
      yd.push_back(s.w.out[o]);
      pad.push_back(p);
      stride.push_back(s.w.stride[o]);
      dil.push_back(s.w.dil[o]);
      x_onnx.push_back(s.w.in[o]);
      xp_onnx.push_back(in);
      offset.push_back(-extra_b);
    }
    if (s.C == 0) {  // no input channels: Y is the bias alone
      CUDA_RETURN_IF_ERROR(cudaMemsetAsync(y->raw(), 0, y->nbytes(), l.stream));
      if (b) {
        TensorDesc y_desc;
        RETURN_IF_ERROR(y_desc.set(type, yd));
        RETURN_IF_ERROR(add_bias(h, type, *b, y_desc, yd, *y));
      }
      return y;
    }
    const Tensor* xin = &x;
    Tensor padded;
    if (repad) {
      ASSIGN_OR_RETURN(padded, scratch(ctx, x.dtype(), Dims(xd)));
      RETURN_IF_ERROR(window_copy(l.stream, x, x_onnx, padded, xp_onnx, offset, 0.0));
      xin = &padded;
    }
    TensorDesc x_desc, y_desc;
    FilterDesc w_desc;
    ConvDesc c_desc;
    RETURN_IF_ERROR(x_desc.set(type, xd));
    RETURN_IF_ERROR(y_desc.set(type, yd));
    RETURN_IF_ERROR(w_desc.set(type, wd));
    RETURN_IF_ERROR(c_desc.set(type, pad, stride, dil, group_));
    RETURN_IF_ERROR(check_forward_dims(c_desc, x_desc, w_desc, yd, "Conv"));
    size_t ws_bytes = 0;
    ASSIGN_OR_RETURN(cudnnConvolutionFwdAlgo_t algo,
                     forward_algo(h, geometry_key(l.device, type, group_, {&xd, &wd, &pad, &stride, &dil}), type,
                                  x_desc, w_desc, c_desc, y_desc, &ws_bytes));
    ASSIGN_OR_RETURN(Tensor ws, workspace(ctx, ws_bytes));
    CUDA_RETURN_IF_ERROR(cudnn_api().ConvolutionForward(h, one_for(x.dtype()), x_desc.get(), xin->raw(), w_desc.get(),
                                                        wt.raw(), c_desc.get(), algo, ws.raw(), ws_bytes,
                                                        zero_for(x.dtype()), y_desc.get(), y->raw()));
    if (b) RETURN_IF_ERROR(add_bias(h, type, *b, y_desc, yd, *y));
    return y;
  }

  nn::WindowAttrs attrs_;
  int64_t group_ = 1;
  nn::ConvActivation activation_;
};

// ConvTranspose is the data gradient of a forward convolution from Y to X:
// cudnnConvolutionBackwardData with W as the forward filter [C, M/g, k...].
// With symmetric pad P it yields the full result cropped by P on each side;
// the ONNX output is the full result read from pad_b (output_padding and
// negative pads extend it with zeros), i.e. the cuDNN result read from
// offset pad_b - P, zeros where it runs past.
class ConvTransposeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    group_ = node.attr_int("group", 1);
    if (group_ <= 0) return InvalidArgument(node.describe(), ": group must be positive");
    output_padding_ = node.attr_ints("output_padding");
    output_shape_ = node.attr_ints("output_shape");
    return attrs_.parse(node);
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& wt = ctx.input(1);
    if (!x.defined() || !wt.defined()) return InvalidArgument("ConvTranspose: X and W are required");
    if (x.dtype() != wt.dtype()) return InvalidArgument("ConvTranspose: X and W types differ");
    ASSIGN_OR_RETURN(nn::ConvTransposeShape s,
                     nn::conv_transpose_shape(attrs_, group_, output_padding_, output_shape_, x, wt));
    ASSIGN_OR_RETURN(cudnnDataType_t type, cudnn_type(x.dtype(), "ConvTranspose", Also16::kHalfAndBFloat16));
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    RETURN_IF_ERROR(check_bias(b, x, s.M, "ConvTranspose"));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), s.out));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(cudnnHandle_t h, l.cudnn());

    const int nsp = s.w.nsp;
    std::vector<int64_t> xd{s.N, s.C}, wd{s.C, s.Mg}, fd{s.N, s.M}, yd{s.N, s.M}, pad, stride, dil;
    std::vector<int64_t> full_onnx{s.N * s.M}, y_onnx{s.N * s.M}, offset{0};
    if (nsp == 1) {
      for (auto* v : {&xd, &wd, &fd, &yd, &stride, &dil}) v->push_back(1);
      pad.push_back(0);
    }
    bool crop = false;
    for (int i = 0; i < nsp; ++i) {
      const int o = kMaxSpatial - nsp + i;
      const int64_t in = s.w.in[o], k = s.w.k[o], st = s.w.stride[o], d = s.w.dil[o];
      const int64_t dk = (k - 1) * d + 1;
      // The unpadded result has full0 entries; ONNX reads [pad_b, pad_b + out)
      // of it (zeros past its end: output_padding, large output_shape).
      // cuDNN's pad p yields [p, full0 - p), so p may not exceed pad_b nor
      // what lies past the last entry read.
      const int64_t full0 = st * (in - 1) + dk;
      const int64_t end = std::min(s.w.pad_b[o] + s.w.out[o], full0);
      int64_t p = std::max<int64_t>(0, std::min(s.w.pad_b[o], full0 - end));
      int64_t full = full0 - 2 * p;
      if (full < 1) {  // cannot happen (full >= out or p == 0); kept as a guard
        p = 0;
        full = full0;
      }
      const int64_t off = s.w.pad_b[o] - p;
      crop = crop || off != 0 || full != s.w.out[o];
      xd.push_back(in);
      wd.push_back(k);
      fd.push_back(full);
      yd.push_back(s.w.out[o]);
      pad.push_back(p);
      stride.push_back(st);
      dil.push_back(d);
      full_onnx.push_back(full);
      y_onnx.push_back(s.w.out[o]);
      offset.push_back(off);
    }
    TensorDesc y_desc;
    RETURN_IF_ERROR(y_desc.set(type, yd));
    if (s.C == 0) {  // no input channels: Y is the bias alone
      CUDA_RETURN_IF_ERROR(cudaMemsetAsync(y->raw(), 0, y->nbytes(), l.stream));
      if (b) RETURN_IF_ERROR(add_bias(h, type, *b, y_desc, yd, *y));
      return OkStatus();
    }
    Tensor* dx = y;
    Tensor full;
    if (crop) {
      ASSIGN_OR_RETURN(full, scratch(ctx, x.dtype(), Dims(fd)));
      dx = &full;
    }
    TensorDesc dy_desc, dx_desc;
    FilterDesc w_desc;
    ConvDesc c_desc;
    RETURN_IF_ERROR(dy_desc.set(type, xd));
    RETURN_IF_ERROR(dx_desc.set(type, fd));
    RETURN_IF_ERROR(w_desc.set(type, wd));
    RETURN_IF_ERROR(c_desc.set(type, pad, stride, dil, group_));
    RETURN_IF_ERROR(check_forward_dims(c_desc, dx_desc, w_desc, xd, "ConvTranspose"));
    size_t ws_bytes = 0;
    ASSIGN_OR_RETURN(cudnnConvolutionBwdDataAlgo_t algo,
                     backward_data_algo(h, geometry_key(l.device, type, group_, {&xd, &wd, &fd, &pad, &stride, &dil}),
                                        type, w_desc, dy_desc, c_desc, dx_desc, &ws_bytes));
    ASSIGN_OR_RETURN(Tensor ws, workspace(ctx, ws_bytes));
    CUDA_RETURN_IF_ERROR(cudnn_api().ConvolutionBackwardData(h, one_for(x.dtype()), w_desc.get(), wt.raw(),
                                                             dy_desc.get(), x.raw(), c_desc.get(), algo, ws.raw(),
                                                             ws_bytes, zero_for(x.dtype()), dx_desc.get(), dx->raw()));
    if (crop) RETURN_IF_ERROR(window_copy(l.stream, full, full_onnx, *y, y_onnx, offset, 0.0));
    if (b) RETURN_IF_ERROR(add_bias(h, type, *b, y_desc, yd, *y));
    return OkStatus();
  }

 private:
  nn::WindowAttrs attrs_;
  int64_t group_ = 1;
  std::vector<int64_t> output_padding_, output_shape_;
};

}  // namespace

void register_conv_kernels(KernelRegistry& r) {
  add_cuda_kernel<ConvKernel>(r, "Conv", 1, {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16});
  KernelDef fused = *r.find("", "Conv", 1, DeviceKind::kCuda, DataType::kFloat);
  fused.domain = kSwitchyardDomain;
  fused.op = kFusedConv;
  fused.types = {DataType::kFloat};  // as on the CPU: the loader fuses float Conv only
  r.add(std::move(fused));
  add_cuda_kernel<ConvTransposeKernel>(r, "ConvTranspose", 1,
                                       {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16});
}

}  // namespace sy::cuda::dnn
