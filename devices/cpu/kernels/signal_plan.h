// The signal ops' attributes and input checks (DFT, STFT, the windows and
// MelWeightMatrix), shared by the CPU kernels (misc_signal_kernels.cc,
// which defines these) and the CUDA ones
// (devices/cuda/kernels/signal_kernels.cc), so that both accept and refuse
// the same nodes with the same messages. dft_length, axis, frame_step,
// frame_length and the generators' sizes are host inputs on both.
#pragma once

#include <cstdint>
#include <vector>

#include "devices/kernel.h"

namespace sy::signal {

struct DftAttrs {
  bool axis_input = false;  // opset 20: the axis is input 2, not an attribute
  int64_t axis = 1;
  bool inverse = false;
  bool onesided = false;
};
DftAttrs dft_attrs(const Node& node);

// The input viewed as [outer, n_in, inner, comps] (comps 1: real, 2:
// complex) along the transformed axis, the output as [outer, n_out,
// inner, out_comps]; each line is transformed at length `len` (zero-padded
// or cut). An inverse one-sided transform (irfft) rebuilds the Hermitian
// spectrum and gives real values.
struct DftPlan {
  int64_t outer = 1, inner = 1, n_in = 0, n_out = 0, len = 0, comps = 1, out_comps = 2;
  bool irfft = false;
  Dims out;
};
StatusOr<DftPlan> plan_dft(const KernelContext& ctx, const DftAttrs& a);

// The signal as [batch, length, comps]; `frames` windows of `frame`
// samples, `step` apart, each giving `bins` complex values (out [batch,
// frames, bins, 2]). window: the input, or null for ones.
struct StftPlan {
  int64_t batch = 0, length = 0, comps = 1, step = 1, frame = 0, frames = 0, bins = 0;
  const Tensor* window = nullptr;
  Dims out;
};
StatusOr<StftPlan> plan_stft(const KernelContext& ctx, bool onesided);

// The generators' output_datatype: a numeric type other than bool
// (InvalidArgument otherwise).
StatusOr<DataType> generator_type(const Node& node);

// HannWindow, HammingWindow, BlackmanWindow: `size` samples (the host
// input 0, >= 0) of period n1.
struct WindowPlan {
  int64_t size = 0;
  double n1 = 0;
};
StatusOr<WindowPlan> plan_window(const KernelContext& ctx, bool periodic);

// MelWeightMatrix: out [nspec, num_mel_bins] from the five host inputs.
// The kernels allocate the output before they ask for the filters' edges,
// so a size the device cannot hold fails there, before any work.
struct MelPlan {
  int64_t nspec = 0, num_mel_bins = 0, dft_length = 0, sample_rate = 0;
  double low_mel = 0, mel_step = 0, upper = 0;
};
StatusOr<MelPlan> plan_mel(const KernelContext& ctx);

// The num_mel_bins + 2 filter edges, as DFT bins (int64, host memory):
// filter i rises from edge i to edge i + 1 and falls to edge i + 2.
// InvalidArgument when upper_edge_hertz maps past the spectrogram.
StatusOr<Tensor> mel_edges(const Node& node, const MelPlan& p);

}  // namespace sy::signal
