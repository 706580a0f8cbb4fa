// CPU kernels for signal processing: HannWindow, HammingWindow,
// BlackmanWindow, MelWeightMatrix, DFT (opset 17 axis attribute, opset 20
// axis input) and STFT. Arithmetic is done in double and converted to the
// output type at the end.
//
// The FFT is hand-written (no FFT library is a project dependency): an
// iterative radix-2 transform for powers of two, a direct O(n^2) DFT for
// small other sizes and Bluestein's chirp-z algorithm (on top of radix-2) for
// large ones, so every length costs O(n log n).
//
// All kernels are stateless after init(); compute() is const and thread-safe.
#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <string>
#include <type_traits>
#include <vector>

#include "devices/cpu/cpu_kernels.h"
#include "devices/cpu/kernels/signal_plan.h"
#include "devices/cpu/kernels/signal_window.h"

namespace sy {
namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

bool is_float_type(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

// Reads an int32/int64 scalar (or one-element tensor) input.
StatusOr<int64_t> read_int_scalar(const KernelContext& ctx, size_t i, const char* what) {
  const RuntimeValue& v = ctx.input_value(i);
  if (!v.is_tensor() || !v.tensor().defined()) return InvalidArgument(ctx.node().describe(), ": ", what, " must be a tensor");
  const Tensor& t = v.tensor();
  if (t.dtype() != DataType::kInt32 && t.dtype() != DataType::kInt64)
    return InvalidArgument(ctx.node().describe(), ": ", what, " must be int32 or int64, got ", t.describe());
  if (t.numel() != 1 || t.rank() > 1)
    return InvalidArgument(ctx.node().describe(), ": ", what, " must be a scalar, got ", t.describe());
  return t.int_at(0);
}

StatusOr<double> read_float_scalar(const KernelContext& ctx, size_t i, const char* what) {
  const RuntimeValue& v = ctx.input_value(i);
  if (!v.is_tensor() || !v.tensor().defined()) return InvalidArgument(ctx.node().describe(), ": ", what, " must be a tensor");
  const Tensor& t = v.tensor();
  if (t.numel() != 1 || t.rank() > 1 || !visit_numeric(t.dtype(), [](auto) {}))
    return InvalidArgument(ctx.node().describe(), ": ", what, " must be a numeric scalar, got ", t.describe());
  return t.double_at(0);
}

std::vector<double> load_doubles(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  visit_numeric(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); ++i) {
      if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
        out[i] = static_cast<float>(p[i]);
      else
        out[i] = static_cast<double>(p[i]);
    }
  });
  return out;
}

template <typename T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    // Out-of-range or NaN conversions are undefined behaviour: clamp first.
    if (!std::isfinite(v)) return T(0);
    double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    double hi = static_cast<double>(std::numeric_limits<T>::max());
    return static_cast<T>(std::min(std::max(v, lo), hi));
  } else {
    return static_cast<T>(v);
  }
}

void store_doubles(const std::vector<double>& v, Tensor& t) {
  visit_numeric(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data<T>();
    for (size_t i = 0; i < v.size(); ++i) p[i] = from_double<T>(v[i]);
  });
}

// ---------------------------------------------------------------- FFT

// An FFT plan for one length. run() is const and thread-safe.
class Fft {
 public:
  explicit Fft(size_t n) : n_(n) {
    if (n_ == 0) return;
    if ((n_ & (n_ - 1)) == 0) {
      pow2_ = true;
      tw_ = twiddles(n_);
    } else if (n_ <= kDirectMax) {
      tw_.resize(n_);
      for (size_t k = 0; k < n_; ++k) tw_[k] = std::polar(1.0, -2 * kPi * static_cast<double>(k) / static_cast<double>(n_));
    } else {
      m_ = 1;
      while (m_ < 2 * n_ - 1) m_ <<= 1;
      tw_ = twiddles(m_);
      chirp_.resize(n_);
      const uint64_t two_n = 2 * static_cast<uint64_t>(n_);
      for (size_t k = 0; k < n_; ++k) {
        uint64_t kk = (static_cast<uint64_t>(k) * k) % two_n;  // k^2 mod 2n keeps the angle accurate
        chirp_[k] = std::polar(1.0, -kPi * static_cast<double>(kk) / static_cast<double>(n_));
      }
      bfft_.assign(m_, cd(0, 0));
      bfft_[0] = std::conj(chirp_[0]);
      for (size_t k = 1; k < n_; ++k) bfft_[k] = bfft_[m_ - k] = std::conj(chirp_[k]);
      radix2(bfft_, tw_, false);
    }
  }

  // In-place unnormalised transform of a (size n): exp(-2 pi i jk/n) forward,
  // exp(+2 pi i jk/n) when inverse.
  void run(std::vector<cd>& a, bool inverse) const {
    if (n_ <= 1) return;
    if (inverse)
      for (cd& v : a) v = std::conj(v);
    if (pow2_) {
      radix2(a, tw_, false);
    } else if (m_ == 0) {
      std::vector<cd> out(n_);
      for (size_t k = 0; k < n_; ++k) {
        cd s(0, 0);
        for (size_t j = 0; j < n_; ++j) s += a[j] * tw_[(j * k) % n_];
        out[k] = s;
      }
      a.swap(out);
    } else {
      std::vector<cd> w(m_, cd(0, 0));
      for (size_t j = 0; j < n_; ++j) w[j] = a[j] * chirp_[j];
      radix2(w, tw_, false);
      for (size_t j = 0; j < m_; ++j) w[j] *= bfft_[j];
      radix2(w, tw_, true);
      const double scale = 1.0 / static_cast<double>(m_);
      for (size_t k = 0; k < n_; ++k) a[k] = w[k] * scale * chirp_[k];
    }
    if (inverse)
      for (cd& v : a) v = std::conj(v);
  }

 private:
  static constexpr size_t kDirectMax = 32;

  static std::vector<cd> twiddles(size_t n) {
    std::vector<cd> tw(n / 2 + 1);
    for (size_t k = 0; k < tw.size(); ++k)
      tw[k] = std::polar(1.0, -2 * kPi * static_cast<double>(k) / static_cast<double>(n));
    return tw;
  }

  // Iterative Cooley-Tukey; tw holds exp(-2 pi i k/N) for k < N/2.
  static void radix2(std::vector<cd>& a, const std::vector<cd>& tw, bool inverse) {
    const size_t n = a.size();
    for (size_t i = 1, j = 0; i < n; ++i) {
      size_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(a[i], a[j]);
    }
    for (size_t len = 2; len <= n; len <<= 1) {
      const size_t step = n / len;
      for (size_t i = 0; i < n; i += len) {
        for (size_t k = 0; k < len / 2; ++k) {
          cd w = inverse ? std::conj(tw[k * step]) : tw[k * step];
          cd u = a[i + k], v = a[i + k + len / 2] * w;
          a[i + k] = u + v;
          a[i + k + len / 2] = u - v;
        }
      }
    }
  }

  size_t n_;
  bool pow2_ = false;
  size_t m_ = 0;  // Bluestein convolution size, 0 when unused
  std::vector<cd> tw_, chirp_, bfft_;
};

// ---------------------------------------------------------------- windows

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
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_type_, Dims{p.size}));
    std::vector<double> v(static_cast<size_t>(p.size));
    for (int64_t i = 0; i < p.size; ++i) v[static_cast<size_t>(i)] = signal::window_value(K, i, p.n1);
    store_doubles(v, *out);
    return OkStatus();
  }

 private:
  DataType out_type_ = DataType::kFloat;
  bool periodic_ = true;
};

// ---------------------------------------------------------------- MelWeightMatrix

class MelWeightMatrixKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(out_type_, signal::generator_type(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const signal::MelPlan p, signal::plan_mel(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_type_, Dims{p.nspec, p.num_mel_bins}));
    ASSIGN_OR_RETURN(const Tensor edges, signal::mel_edges(ctx.node(), p));
    std::vector<double> w(static_cast<size_t>(out->numel()));
    for (int64_t j = 0; j < p.nspec; ++j)
      for (int64_t i = 0; i < p.num_mel_bins; ++i) {
        const int64_t* e = edges.data<int64_t>() + i;
        w[static_cast<size_t>(j * p.num_mel_bins + i)] = signal::mel_weight(j, e[0], e[1], e[2]);
      }
    store_doubles(w, *out);
    return OkStatus();
  }

 private:
  DataType out_type_ = DataType::kFloat;
};

// ---------------------------------------------------------------- DFT

class DftKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    a_ = signal::dft_attrs(node);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const signal::DftPlan p, signal::plan_dft(ctx, a_));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), p.out));
    // Nothing to transform; also keeps a huge dft_length from sizing an FFT plan.
    if (out->numel() == 0) return OkStatus();

    const int64_t len = p.len, n_in = p.n_in, n_out = p.n_out, inner = p.inner, comps = p.comps, oc = p.out_comps;
    const std::vector<double> in = load_doubles(x);
    std::vector<double> res(static_cast<size_t>(out->numel()));
    const Fft fft(static_cast<size_t>(len));
    std::vector<cd> line(static_cast<size_t>(len));
    const double scale = a_.inverse ? 1.0 / static_cast<double>(len) : 1.0;
    for (int64_t o = 0; o < p.outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        auto in_at = [&](int64_t k) {
          size_t q = static_cast<size_t>(((o * n_in + k) * inner + i) * comps);
          return cd(in[q], comps == 2 ? in[q + 1] : 0.0);
        };
        if (p.irfft) {
          // Rebuild the full Hermitian spectrum from the one-sided half.
          for (int64_t k = 0; k <= len / 2; ++k) line[static_cast<size_t>(k)] = k < n_in ? in_at(k) : cd(0, 0);
          for (int64_t k = len / 2 + 1; k < len; ++k)
            line[static_cast<size_t>(k)] = std::conj(line[static_cast<size_t>(len - k)]);
        } else {
          for (int64_t k = 0; k < len; ++k) line[static_cast<size_t>(k)] = k < n_in ? in_at(k) : cd(0, 0);
        }
        fft.run(line, a_.inverse);
        for (int64_t k = 0; k < n_out; ++k) {
          size_t q = static_cast<size_t>(((o * n_out + k) * inner + i) * oc);
          cd v = line[static_cast<size_t>(k)] * scale;
          res[q] = v.real();
          if (oc == 2) res[q + 1] = v.imag();
        }
      }
    }
    store_doubles(res, *out);
    return OkStatus();
  }

 private:
  signal::DftAttrs a_;
};

// ---------------------------------------------------------------- STFT

class StftKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    onesided_ = node.attr_int("onesided", 1) != 0;
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const signal::StftPlan p, signal::plan_stft(ctx, onesided_));
    const Tensor& x = ctx.input(0);
    const std::vector<double> window =
        p.window ? load_doubles(*p.window) : std::vector<double>(static_cast<size_t>(p.frame), 1.0);
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), p.out));

    const int64_t frame = p.frame, comps = p.comps;
    const std::vector<double> in = load_doubles(x);
    std::vector<double> res(static_cast<size_t>(out->numel()));
    const Fft fft(static_cast<size_t>(frame));
    std::vector<cd> line(static_cast<size_t>(frame));
    for (int64_t b = 0; b < p.batch; ++b) {
      for (int64_t f = 0; f < p.frames; ++f) {
        for (int64_t k = 0; k < frame; ++k) {
          size_t q = static_cast<size_t>((b * p.length + f * p.step + k) * comps);
          line[static_cast<size_t>(k)] = cd(in[q], comps == 2 ? in[q + 1] : 0.0) * window[static_cast<size_t>(k)];
        }
        fft.run(line, false);
        for (int64_t k = 0; k < p.bins; ++k) {
          size_t q = static_cast<size_t>(((b * p.frames + f) * p.bins + k) * 2);
          res[q] = line[static_cast<size_t>(k)].real();
          res[q + 1] = line[static_cast<size_t>(k)].imag();
        }
      }
    }
    store_doubles(res, *out);
    return OkStatus();
  }

 private:
  bool onesided_ = true;
};

void add(KernelRegistry& r, const char* op, int since, int end, KernelFactory f, uint64_t host_inputs) {
  KernelDef d;
  d.op = op;
  d.since_version = since;
  d.end_version = end;
  d.factory = f;
  d.host_inputs = host_inputs;
  r.add(std::move(d));
}

}  // namespace

namespace signal {

StatusOr<DataType> generator_type(const Node& node) {
  const int64_t dt = node.attr_int("output_datatype", static_cast<int64_t>(DataType::kFloat));
  if (dt <= 0 || dt > kMaxDataType) return InvalidArgument(node.describe(), ": invalid output_datatype ", dt);
  const DataType t = static_cast<DataType>(dt);
  if (t == DataType::kBool || !visit_numeric(t, [](auto) {}))
    return InvalidArgument(node.describe(), ": unsupported output_datatype ", dtype_name(t));
  return t;
}

StatusOr<WindowPlan> plan_window(const KernelContext& ctx, bool periodic) {
  WindowPlan p;
  ASSIGN_OR_RETURN(p.size, read_int_scalar(ctx, 0, "size"));
  if (p.size < 0) return InvalidArgument(ctx.node().describe(), ": size must be >= 0, got ", p.size);
  p.n1 = static_cast<double>(periodic ? p.size : p.size - 1);
  return p;
}

StatusOr<MelPlan> plan_mel(const KernelContext& ctx) {
  const std::string where = ctx.node().describe();
  MelPlan p;
  ASSIGN_OR_RETURN(p.num_mel_bins, read_int_scalar(ctx, 0, "num_mel_bins"));
  ASSIGN_OR_RETURN(p.dft_length, read_int_scalar(ctx, 1, "dft_length"));
  ASSIGN_OR_RETURN(p.sample_rate, read_int_scalar(ctx, 2, "sample_rate"));
  ASSIGN_OR_RETURN(const double lower, read_float_scalar(ctx, 3, "lower_edge_hertz"));
  ASSIGN_OR_RETURN(p.upper, read_float_scalar(ctx, 4, "upper_edge_hertz"));
  if (p.num_mel_bins < 0 || p.dft_length <= 0 || p.sample_rate <= 0)
    return InvalidArgument(where, ": need num_mel_bins >= 0, dft_length > 0 and sample_rate > 0");
  if (!(lower >= 0) || !(p.upper >= lower) || !std::isfinite(p.upper))
    return InvalidArgument(where, ": need 0 <= lower_edge_hertz <= upper_edge_hertz");
  p.nspec = p.dft_length / 2 + 1;
  // Mel scale: m = 2595 log10(1 + f/700); the edges are evenly spaced in mel.
  p.low_mel = 2595 * std::log10(1 + lower / 700);
  const double high_mel = 2595 * std::log10(1 + p.upper / 700);
  p.mel_step = (high_mel - p.low_mel) / (static_cast<double>(p.num_mel_bins) + 2);
  return p;
}

StatusOr<Tensor> mel_edges(const Node& node, const MelPlan& p) {
  // The output [nspec, num_mel_bins] exists by now, so this is at most two
  // more entries than it has elements (and num_mel_bins + 2 cannot overflow).
  const int64_t n = p.num_mel_bins + 2;
  ASSIGN_OR_RETURN(Tensor edges, Tensor::host(DataType::kInt64, Dims{n}));
  int64_t* e = edges.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const double mel = static_cast<double>(i) * p.mel_step + p.low_mel;
    const double hz = 700 * (std::pow(10.0, mel / 2595) - 1);
    // The ONNX reference's rounding to a DFT bin.
    const double b = std::floor((static_cast<double>(p.dft_length) + 1) * hz / static_cast<double>(p.sample_rate));
    // Every edge indexes a row except the last, which is only an exclusive bound.
    const double limit = static_cast<double>(i == n - 1 ? p.nspec + 1 : p.nspec);
    if (!(b >= 0) || b >= limit)
      return InvalidArgument(node.describe(), ": upper_edge_hertz ", p.upper, " maps beyond the ", p.nspec,
                             " spectrogram bins");
    e[i] = static_cast<int64_t>(b);
  }
  return edges;
}

DftAttrs dft_attrs(const Node& node) {
  DftAttrs a;
  a.axis_input = node.opset >= 20;
  a.axis = node.attr_int("axis", a.axis_input ? -2 : 1);
  a.inverse = node.attr_int("inverse", 0) != 0;
  a.onesided = node.attr_int("onesided", 0) != 0;
  return a;
}

StatusOr<DftPlan> plan_dft(const KernelContext& ctx, const DftAttrs& a) {
  const std::string where = ctx.node().describe();
  const RuntimeValue& xv = ctx.input_value(0);
  if (!xv.is_tensor() || !is_float_type(xv.tensor().dtype())) return InvalidArgument(where, ": input must be a float tensor");
  const Tensor& x = xv.tensor();
  const int64_t r = static_cast<int64_t>(x.rank());
  if (r < 2) return InvalidArgument(where, ": input must have rank >= 2, got ", x.describe());
  DftPlan p;
  p.comps = x.dim(static_cast<size_t>(r - 1));
  if (p.comps != 1 && p.comps != 2) return InvalidArgument(where, ": last dimension must be 1 or 2, got ", x.describe());
  int64_t axis = a.axis;
  if (a.axis_input && ctx.has_input(2)) {
    ASSIGN_OR_RETURN(axis, read_int_scalar(ctx, 2, "axis"));
  }
  if (axis < -r || axis >= r) return InvalidArgument(where, ": axis ", axis, " out of range for rank ", r);
  if (axis < 0) axis += r;
  if (axis == r - 1) return InvalidArgument(where, ": axis cannot be the last (complex) dimension");

  const Dims& xd = x.dims();
  p.n_in = xd[static_cast<size_t>(axis)];
  p.irfft = a.inverse && a.onesided;
  p.len = p.irfft ? 2 * (p.n_in - 1) : p.n_in;
  if (ctx.has_input(1)) {
    ASSIGN_OR_RETURN(p.len, read_int_scalar(ctx, 1, "dft_length"));
  }
  if (p.len <= 0) return InvalidArgument(where, ": dft_length must be positive, got ", p.len);
  p.out = xd;
  p.n_out = (a.onesided && !a.inverse) ? p.len / 2 + 1 : p.len;
  p.out[static_cast<size_t>(axis)] = p.n_out;
  p.out_comps = p.irfft ? 1 : 2;
  p.out[static_cast<size_t>(r - 1)] = p.out_comps;
  for (int64_t i = 0; i < axis; ++i) p.outer *= xd[static_cast<size_t>(i)];
  for (int64_t i = axis + 1; i < r - 1; ++i) p.inner *= xd[static_cast<size_t>(i)];
  return p;
}

StatusOr<StftPlan> plan_stft(const KernelContext& ctx, bool onesided) {
  const std::string where = ctx.node().describe();
  const RuntimeValue& xv = ctx.input_value(0);
  if (!xv.is_tensor() || !is_float_type(xv.tensor().dtype())) return InvalidArgument(where, ": signal must be a float tensor");
  const Tensor& x = xv.tensor();
  if (x.rank() != 3 || (x.dim(2) != 1 && x.dim(2) != 2))
    return InvalidArgument(where, ": signal must be [batch, length, 1 or 2], got ", x.describe());
  StftPlan p;
  p.batch = x.dim(0);
  p.length = x.dim(1);
  p.comps = x.dim(2);
  ASSIGN_OR_RETURN(p.step, read_int_scalar(ctx, 1, "frame_step"));
  if (p.step <= 0) return InvalidArgument(where, ": frame_step must be positive, got ", p.step);
  int64_t frame = -1;
  if (ctx.has_input(2)) {
    const RuntimeValue& wv = ctx.input_value(2);
    if (!wv.is_tensor() || !is_float_type(wv.tensor().dtype()) || wv.tensor().rank() != 1)
      return InvalidArgument(where, ": window must be a 1-D float tensor");
    p.window = &wv.tensor();
    frame = p.window->dim(0);
  }
  if (ctx.has_input(3)) {
    ASSIGN_OR_RETURN(int64_t fl, read_int_scalar(ctx, 3, "frame_length"));
    if (frame >= 0 && fl != frame)
      return InvalidArgument(where, ": frame_length ", fl, " differs from the window length ", frame);
    frame = fl;
  }
  if (frame < 0) frame = p.length;
  if (frame <= 0 || frame > p.length)
    return InvalidArgument(where, ": frame length ", frame, " must be in [1, ", p.length, "]");
  p.frame = frame;
  p.frames = 1 + (p.length - frame) / p.step;
  p.bins = onesided ? frame / 2 + 1 : frame;
  p.out = Dims{p.batch, p.frames, p.bins, 2};
  return p;
}

}  // namespace signal

void register_cpu_misc_signal_kernels(KernelRegistry& r) {
  add(r, "HannWindow", 17, INT_MAX, &make_kernel<WindowKernel<signal::WindowKind::kHann>>, 1u << 0);
  add(r, "HammingWindow", 17, INT_MAX, &make_kernel<WindowKernel<signal::WindowKind::kHamming>>, 1u << 0);
  add(r, "BlackmanWindow", 17, INT_MAX, &make_kernel<WindowKernel<signal::WindowKind::kBlackman>>, 1u << 0);
  add(r, "MelWeightMatrix", 17, INT_MAX, &make_kernel<MelWeightMatrixKernel>, 0x1f);
  add(r, "DFT", 17, INT_MAX, &make_kernel<DftKernel>, (1u << 1) | (1u << 2));
  add(r, "STFT", 17, INT_MAX, &make_kernel<StftKernel>, (1u << 1) | (1u << 3));
}

}  // namespace sy
