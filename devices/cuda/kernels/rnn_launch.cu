// CUDA gate kernels of RNN, GRU and LSTM: one thread per (batch row, hidden
// unit) of a step, in the CPU kernel's order of operations
// (devices/cpu/kernels/rnn_kernels.cc): pre-activations summed as
// x W^T + h R^T + Wb + Rb, clipped, then each activation evaluated in double
// through the definition both backends share (rnn_cell.h).
#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/rnn_launch.h"

namespace sy::cuda {
namespace {

using namespace ew;

template <typename T>
__device__ __forceinline__ T activate(const rnn::Activation& a, T clip, T v) {
  return static_cast<T>(a(static_cast<double>(rnn::clip_to(v, clip))));
}

// The time step row b visits in this step; false once its sequence ended.
__device__ __forceinline__ bool time_of(const RnnStep& s, int64_t b, int64_t* t) {
  const int64_t len = s.lens ? static_cast<int64_t>(s.lens[b]) : s.layout.S;
  if (s.step >= len) return false;
  *t = s.reverse ? len - 1 - s.step : s.step;
  return true;
}

template <typename T>
struct Bufs {
  const T* __restrict__ xw;
  T* __restrict__ hr;
  const T* __restrict__ wb;
  const T* __restrict__ rb;
  const T* __restrict__ p;
  T* __restrict__ h;
  T* __restrict__ c;
  T* __restrict__ rh;
  T* __restrict__ y;

  explicit Bufs(const RnnBuffers& b)
      : xw(static_cast<const T*>(b.xw)),
        hr(static_cast<T*>(b.hr)),
        wb(static_cast<const T*>(b.wb)),
        rb(static_cast<const T*>(b.rb)),
        p(static_cast<const T*>(b.p)),
        h(static_cast<T*>(b.h)),
        c(static_cast<T*>(b.c)),
        rh(static_cast<T*>(b.rh)),
        y(static_cast<T*>(b.y)) {}

  __device__ __forceinline__ T wbias(int64_t k) const { return wb ? wb[k] : T(0); }
  __device__ __forceinline__ T rbias(int64_t k) const { return rb ? rb[k] : T(0); }
  // Gate column k's pre-activation, summed in the CPU kernel's order.
  __device__ __forceinline__ T pre(const T* xr, const T* hp, int64_t k) const {
    return xr[k] + hp[k] + wbias(k) + rbias(k);
  }
};

template <typename T>
__global__ void reset_gate_kernel(RnnStep s, Bufs<T> v) {
  const rnn::Layout& L = s.layout;
  const int64_t H = L.H, GH = 3 * H, n = L.B * H;
  const T clip = static_cast<T>(s.clip);
  for (int64_t i = first_index(); i < n; i += grid_stride()) {
    const int64_t b = i / H, j = i % H;
    int64_t t;
    // An ended row's product is never read; zero keeps it finite.
    if (!time_of(s, b, &t)) {
      v.rh[i] = T(0);
      continue;
    }
    const T r = activate(s.act[0], clip, v.pre(v.xw + L.x_row(t, b) * GH, v.hr + b * GH, H + j));
    v.rh[i] = r * v.h[L.state_at(s.dir, b) + j];
  }
}

template <typename T>
__global__ void gates_kernel(RnnStep s, Bufs<T> v) {
  const rnn::Layout& L = s.layout;
  const int64_t H = L.H, n = L.B * H;
  const int64_t GH = (s.cell == RnnCellKind::kRnn ? 1 : s.cell == RnnCellKind::kGru ? 3 : 4) * H;
  const T clip = static_cast<T>(s.clip);
  for (int64_t i = first_index(); i < n; i += grid_stride()) {
    const int64_t b = i / H, j = i % H;
    int64_t t;
    if (!time_of(s, b, &t)) continue;
    const T* xr = v.xw + L.x_row(t, b) * GH;
    const T* hp = v.hr + b * GH;
    const int64_t at = L.state_at(s.dir, b) + j;
    T h;
    if (s.cell == RnnCellKind::kRnn) {
      h = activate(s.act[0], clip, v.pre(xr, hp, j));
    } else if (s.cell == RnnCellKind::kGru) {  // ONNX's gate order: z, r, h
      const T z = activate(s.act[0], clip, v.pre(xr, hp, j));
      T hc;
      if (s.linear_before_reset) {
        const T r = activate(s.act[0], clip, v.pre(xr, hp, H + j));
        hc = xr[2 * H + j] + v.wbias(2 * H + j) + r * (hp[2 * H + j] + v.rbias(2 * H + j));
      } else {
        hc = v.pre(xr, hp, 2 * H + j);  // hp's third block is (r * h) Rh^T
      }
      hc = activate(s.act[1], clip, hc);
      h = (T(1) - z) * hc + z * v.h[at];
    } else {  // ONNX's gate order: i, o, f, c
      T c = v.c[at];
      T ig = v.pre(xr, hp, j), og = v.pre(xr, hp, H + j), fg = v.pre(xr, hp, 2 * H + j);
      const T cc = activate(s.act[1], clip, v.pre(xr, hp, 3 * H + j));
      if (v.p) {
        ig += v.p[j] * c;
        fg += v.p[2 * H + j] * c;
      }
      ig = activate(s.act[0], clip, ig);
      fg = s.input_forget ? T(1) - ig : activate(s.act[0], clip, fg);
      c = fg * c + ig * cc;
      if (v.p) og += v.p[H + j] * c;
      og = activate(s.act[0], clip, og);
      h = og * activate(s.act[2], T(0), c);  // the cell state is not clipped
      v.c[at] = c;
    }
    v.h[at] = h;
    if (v.y) v.y[L.y_at(t, s.dir, b) + j] = h;
  }
}

template <typename Fn>
cudaError_t visit_float_double(bool is_double, Fn&& fn) {
  return is_double ? fn(Tag<double>{}) : fn(Tag<float>{});
}

}  // namespace

cudaError_t launch_rnn_reset_gate(bool is_double, const RnnStep& s, const RnnBuffers& b, cudaStream_t stream) {
  const int64_t n = s.layout.B * s.layout.H;
  if (n <= 0) return cudaSuccess;
  return visit_float_double(is_double, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reset_gate_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(s, Bufs<T>(b));
    return cudaGetLastError();
  });
}

cudaError_t launch_rnn_gates(bool is_double, const RnnStep& s, const RnnBuffers& b, cudaStream_t stream) {
  const int64_t n = s.layout.B * s.layout.H;
  if (n <= 0) return cudaSuccess;
  return visit_float_double(is_double, [&](auto tag) {
    using T = typename decltype(tag)::type;
    gates_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(s, Bufs<T>(b));
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda
