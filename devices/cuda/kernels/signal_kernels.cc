// CUDA DFT, STFT, the window generators and MelWeightMatrix. The
// attributes and checks are the CPU kernels' (signal_plan.h), so both
// backends accept and refuse the same nodes; the DFTs' device work is
// signal_launch.cu's direct transform in double. Its cost
// grows with the length squared, so lengths past kMaxDirect decline to the
// CPU's FFT. Before, an audio front end (framing, windowing, STFT) sent its
// signal to the CPU and its spectrogram back.
//
// Thread-safety: compute() is const and keeps no state beyond attributes
// parsed in init().
#include "devices/cpu/kernels/signal_plan.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/blas_dnn_common.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/signal_launch.h"

namespace sy::cuda {
namespace {

// Past this length a direct transform does len / log2(len) times the
// FFT's work (over 300x at 4096), more than the GPU's advantage.
constexpr int64_t kMaxDirect = 4096;

Status check_length(const char* op, int64_t len) {
  if (len > kMaxDirect) return Unimplemented("CUDA ", op, ": lengths past ", kMaxDirect, " run on the CPU's FFT");
  return OkStatus();
}

// The n twiddles, as (re, im) doubles, in a scratch tensor.
StatusOr<Tensor> twiddles(KernelContext& ctx, const Launch& l, int64_t n) {
  ASSIGN_OR_RETURN(Tensor tw, dnn::scratch(ctx, DataType::kDouble, Dims{2 * n}));
  CUDA_RETURN_IF_ERROR(launch_twiddles(tw.data<double>(), n, l.stream));
  return tw;
}

class DftKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    a_ = signal::dft_attrs(node);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const signal::DftPlan p, signal::plan_dft(ctx, a_));
    RETURN_IF_ERROR(check_length("DFT", p.len));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), p.out));
    if (out->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor tw, twiddles(ctx, l, p.len));
    DftMeta m;
    m.outer = p.outer;
    m.inner = p.inner;
    m.n_in = p.n_in;
    m.n_out = p.n_out;
    m.len = p.len;
    m.comps = p.comps;
    m.out_comps = p.out_comps;
    m.inverse = a_.inverse;
    m.irfft = p.irfft;
    CUDA_RETURN_IF_ERROR(launch_dft(static_cast<int>(x.dtype()), m, x.raw(), tw.data<double>(), out->raw(), l.stream));
    return OkStatus();
  }

 private:
  signal::DftAttrs a_;
};

class StftKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    onesided_ = node.attr_int("onesided", 1) != 0;
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const signal::StftPlan p, signal::plan_stft(ctx, onesided_));
    RETURN_IF_ERROR(check_length("STFT", p.frame));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), p.out));
    if (out->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor tw, twiddles(ctx, l, p.frame));
    // The window in double, as the CPU reads it.
    Tensor keep;
    const void* window = nullptr;
    if (p.window) {
      ASSIGN_OR_RETURN(window, dnn::as_type(ctx, l.stream, *p.window, DataType::kDouble, keep));
    }
    StftMeta m;
    m.batch = p.batch;
    m.length = p.length;
    m.comps = p.comps;
    m.step = p.step;
    m.frame = p.frame;
    m.frames = p.frames;
    m.bins = p.bins;
    CUDA_RETURN_IF_ERROR(launch_stft(static_cast<int>(x.dtype()), m, x.raw(),
                                     static_cast<const double*>(window), tw.data<double>(), out->raw(),
                                     l.stream));
    return OkStatus();
  }

 private:
  bool onesided_ = true;
};

// HannWindow, HammingWindow, BlackmanWindow: generated on the device, so a
// window meant for an STFT there is never made on the host.
template <signal::WindowKind K>
class WindowKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(out_type_, signal::generator_type(node));
    periodic_ = node.attr_int("periodic", 1) != 0;
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const signal::WindowPlan p, signal::plan_window(ctx, periodic_));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_type_, Dims{p.size}));
    CUDA_RETURN_IF_ERROR(launch_window(static_cast<int>(out_type_), K, p.size, p.n1, out->raw(), l.stream));
    return OkStatus();
  }

 private:
  DataType out_type_ = DataType::kFloat;
  bool periodic_ = true;
};

// MelWeightMatrix: the filter edges (num_mel_bins + 2 numbers) are worked
// out on the host as the CPU does and uploaded; the device fills the matrix.
class MelWeightMatrixKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(out_type_, signal::generator_type(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const signal::MelPlan p, signal::plan_mel(ctx));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_type_, Dims{p.nspec, p.num_mel_bins}));
    ASSIGN_OR_RETURN(const Tensor edges, signal::mel_edges(ctx.node(), p));
    if (out->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(const Tensor dev_edges, ctx.device().copy(edges, ctx.device().memory_space()));
    CUDA_RETURN_IF_ERROR(launch_mel_weights(static_cast<int>(out_type_), p.nspec, p.num_mel_bins,
                                            dev_edges.data<int64_t>(), out->raw(), l.stream));
    return OkStatus();
  }

 private:
  DataType out_type_ = DataType::kFloat;
};

}  // namespace

void register_cuda_signal_kernels(KernelRegistry& r) {
  const std::vector<DataType> floats = {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16};
  // dft_length and axis (inputs 1 and 2); frame_step and frame_length (1 and 3).
  add_cuda_kernel<DftKernel>(r, "DFT", 17, floats, (uint64_t{1} << 1) | (uint64_t{1} << 2));
  add_cuda_kernel<StftKernel>(r, "STFT", 17, floats, (uint64_t{1} << 1) | (uint64_t{1} << 3));
  // The generators' inputs are all host scalars; their output type is an
  // attribute, so the first input's type does not pick the kernel.
  add_cuda_kernel<WindowKernel<signal::WindowKind::kHann>>(r, "HannWindow", 17, {}, 1);
  add_cuda_kernel<WindowKernel<signal::WindowKind::kHamming>>(r, "HammingWindow", 17, {}, 1);
  add_cuda_kernel<WindowKernel<signal::WindowKind::kBlackman>>(r, "BlackmanWindow", 17, {}, 1);
  add_cuda_kernel<MelWeightMatrixKernel>(r, "MelWeightMatrix", 17, {}, 0x1f);
}

}  // namespace sy::cuda
