// Launchers of the CUDA DFT and STFT (signal_launch.cu). Element types
// are ONNX codes (elementwise_launch.h's ew_type): float, double, float16
// or bfloat16. The launchers only enqueue on `stream` and return the
// launch error; they never synchronise. Reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cpu/kernels/signal_window.h"

namespace sy::cuda {

// tw[k] = exp(-2 pi i k / n) for k < n, as (re, im) pairs of doubles.
cudaError_t launch_twiddles(double* tw, int64_t n, cudaStream_t stream);

// DFT of x [outer, n_in, inner, comps] along n_in at length len (see
// signal::DftPlan), out [outer, n_out, inner, out_comps], in double.
struct DftMeta {
  int64_t outer = 1, inner = 1, n_in = 0, n_out = 0, len = 0, comps = 1, out_comps = 2;
  bool inverse = false, irfft = false;
};
cudaError_t launch_dft(int type, const DftMeta& m, const void* x, const double* tw, void* out, cudaStream_t stream);

// STFT of x [batch, length, comps], frames of `frame` samples `step`
// apart, each multiplied by window (doubles; null: ones), out [batch,
// frames, bins, 2], in double.
struct StftMeta {
  int64_t batch = 0, length = 0, comps = 1, step = 1, frame = 0, frames = 0, bins = 0;
};
cudaError_t launch_stft(int type, const StftMeta& m, const void* x, const double* window, const double* tw, void* out,
                        cudaStream_t stream);

// out[i] = window_value(kind, i, n1) for i < size, any numeric type.
cudaError_t launch_window(int type, signal::WindowKind kind, int64_t size, double n1, void* out, cudaStream_t stream);

// out [nspec, bins] = mel_weight of each spectrogram bin and filter, from
// the bins + 2 filter edges (device int64), any numeric type.
cudaError_t launch_mel_weights(int type, int64_t nspec, int64_t bins, const int64_t* edges, void* out,
                               cudaStream_t stream);

}  // namespace sy::cuda
