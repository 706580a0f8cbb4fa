// CUDA DFT and STFT as direct transforms: one thread per output bin sums
// every input sample times its twiddle, in double, as the CPU kernels
// compute (devices/cpu/kernels/misc_signal_kernels.cc, an FFT in double),
// so both agree to rounding. Twiddles come from a table of the n roots of
// unity, indexed by (j * k) mod n, which a step of k walks without a
// division. The work is O(n) per bin; the kernels decline lengths where
// the CPU's O(n log n) FFT would win (signal_kernels.cc).
#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/signal_launch.h"

namespace sy::cuda {
namespace {

using namespace ew;

__global__ void twiddles_kernel(double* tw, int64_t n) {
  constexpr double kPi = 3.14159265358979323846;
  for (int64_t k = first_index(); k < n; k += grid_stride()) {
    // The CPU's angle, std::polar(1, -2 pi k / n), to the same rounding.
    const double a = -2 * kPi * static_cast<double>(k) / static_cast<double>(n);
    tw[2 * k] = cos(a);
    tw[2 * k + 1] = sin(a);
  }
}

// out[o, k, i] = scale * sum_j line[j] * tw[(j * k) mod len] (conjugated
// when inverse), line[j] the input at j zero-padded past n_in, or for an
// irfft the Hermitian spectrum rebuilt from its first half.
template <typename T>
__global__ void dft_kernel(DftMeta m, const T* __restrict__ x, const double* __restrict__ tw, T* __restrict__ out) {
  const int64_t total = m.outer * m.n_out * m.inner;
  const double scale = m.inverse ? 1.0 / static_cast<double>(m.len) : 1.0;
  const double sign = m.inverse ? -1.0 : 1.0;  // conjugates the twiddle
  for (int64_t q = first_index(); q < total; q += grid_stride()) {
    const int64_t i = q % m.inner, k = (q / m.inner) % m.n_out, o = q / (m.inner * m.n_out);
    const auto at = [&](int64_t j, double& re, double& im) {
      re = im = 0;
      if (j >= m.n_in) return;
      const int64_t p = ((o * m.n_in + j) * m.inner + i) * m.comps;
      re = cvt<double>(x[p]);
      if (m.comps == 2) im = cvt<double>(x[p + 1]);
    };
    double sr = 0, si = 0;
    int64_t t = 0;  // (j * k) mod len
    for (int64_t j = 0; j < m.len; ++j) {
      double re, im;
      if (m.irfft && j > m.len / 2) {
        at(m.len - j, re, im);
        im = -im;
      } else {
        at(j, re, im);
      }
      const double wr = tw[2 * t], wi = sign * tw[2 * t + 1];
      sr += re * wr - im * wi;
      si += re * wi + im * wr;
      t += k;
      if (t >= m.len) t -= m.len;
    }
    const int64_t p = ((o * m.n_out + k) * m.inner + i) * m.out_comps;
    out[p] = cvt<T>(sr * scale);
    if (m.out_comps == 2) out[p + 1] = cvt<T>(si * scale);
  }
}

template <typename T>
__global__ void stft_kernel(StftMeta m, const T* __restrict__ x, const double* __restrict__ window,
                            const double* __restrict__ tw, T* __restrict__ out) {
  const int64_t total = m.batch * m.frames * m.bins;
  for (int64_t q = first_index(); q < total; q += grid_stride()) {
    const int64_t k = q % m.bins, f = (q / m.bins) % m.frames, b = q / (m.bins * m.frames);
    const T* s = x + (b * m.length + f * m.step) * m.comps;
    double sr = 0, si = 0;
    int64_t t = 0;  // (j * k) mod frame
    for (int64_t j = 0; j < m.frame; ++j) {
      const double w = window ? window[j] : 1.0;
      const double re = cvt<double>(s[j * m.comps]) * w, im = m.comps == 2 ? cvt<double>(s[j * m.comps + 1]) * w : 0.0;
      const double wr = tw[2 * t], wi = tw[2 * t + 1];
      sr += re * wr - im * wi;
      si += re * wi + im * wr;
      t += k;
      if (t >= m.frame) t -= m.frame;
    }
    out[2 * q] = cvt<T>(sr);
    out[2 * q + 1] = cvt<T>(si);
  }
}

template <typename T>
__global__ void window_kernel(signal::WindowKind kind, int64_t size, double n1, T* __restrict__ out) {
  for (int64_t i = first_index(); i < size; i += grid_stride()) out[i] = cvt<T>(signal::window_value(kind, i, n1));
}

template <typename T>
__global__ void mel_kernel(int64_t nspec, int64_t bins, const int64_t* __restrict__ edges, T* __restrict__ out) {
  const int64_t total = nspec * bins;
  for (int64_t q = first_index(); q < total; q += grid_stride()) {
    const int64_t i = q % bins, j = q / bins;
    out[q] = cvt<T>(signal::mel_weight(j, edges[i], edges[i + 1], edges[i + 2]));
  }
}

}  // namespace

cudaError_t launch_window(int type, signal::WindowKind kind, int64_t size, double n1, void* out, cudaStream_t stream) {
  if (size <= 0) return cudaSuccess;
  return visit<kEwNumeric>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    window_kernel<T><<<grid_for(size), kBlock, 0, stream>>>(kind, size, n1, static_cast<T*>(out));
    return cudaGetLastError();
  });
}

cudaError_t launch_mel_weights(int type, int64_t nspec, int64_t bins, const int64_t* edges, void* out,
                               cudaStream_t stream) {
  const int64_t total = nspec * bins;
  if (total <= 0) return cudaSuccess;
  return visit<kEwNumeric>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    mel_kernel<T><<<grid_for(total), kBlock, 0, stream>>>(nspec, bins, edges, static_cast<T*>(out));
    return cudaGetLastError();
  });
}

cudaError_t launch_twiddles(double* tw, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  twiddles_kernel<<<grid_for(n), kBlock, 0, stream>>>(tw, n);
  return cudaGetLastError();
}

cudaError_t launch_dft(int type, const DftMeta& m, const void* x, const double* tw, void* out, cudaStream_t stream) {
  const int64_t total = m.outer * m.n_out * m.inner;
  if (total <= 0) return cudaSuccess;
  return visit<kEwFloats>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dft_kernel<T><<<grid_for(total), kBlock, 0, stream>>>(m, static_cast<const T*>(x), tw, static_cast<T*>(out));
    return cudaGetLastError();
  });
}

cudaError_t launch_stft(int type, const StftMeta& m, const void* x, const double* window, const double* tw, void* out,
                        cudaStream_t stream) {
  const int64_t total = m.batch * m.frames * m.bins;
  if (total <= 0) return cudaSuccess;
  return visit<kEwFloats>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    stft_kernel<T>
        <<<grid_for(total), kBlock, 0, stream>>>(m, static_cast<const T*>(x), window, tw, static_cast<T*>(out));
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda
