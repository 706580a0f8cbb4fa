// CPU convolution kernels: Conv and FusedConv (float: constant weights in
// oneDNN's blocked layout (blocked_conv.cc), depthwise (depthwise_conv.cc),
// im2col and sgemm, or a cached plain oneDNN primitive; other types and
// oneDNN rejections via a direct loop), ConvTranspose (GEMM + col2im),
// ConvInteger and QLinearConv (direct loop, int32 accumulation).
#include <oneapi/dnnl/dnnl.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <utility>

#include "devices/cpu/kernels/blocked_conv.h"
#include "devices/cpu/kernels/depthwise_conv.h"
#include "devices/cpu/kernels/dnnl_primitive.h"
#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/pointwise_conv.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/host_allocator.h"

namespace sy::nn {
namespace {

// Direct N-d convolution on the 3-D canonical geometry. out(n, m, idx, acc)
// stores one accumulated value. Zero points are subtracted before products.
template <typename TX, typename TW, typename Acc, typename Out>
void conv_direct(const TX* X, const TW* W, int64_t N, int64_t C, int64_t M, int64_t G, const Window& w, Acc xz,
                 const std::vector<Acc>& wz, Out&& out) {
  const int64_t Cg = C / G, Mg = M / G, insz = w.in_size(), ksz = w.k_size();
  tbb::parallel_for(int64_t{0}, N * M, [&](int64_t nm) {
    const int64_t n = nm / M, m = nm % M, g = m / Mg;
    const TW* wm = W + m * Cg * ksz;
    const Acc wzm = wz.empty() ? Acc{} : wz[m];
    for (int64_t od = 0; od < w.out[0]; ++od)
      for (int64_t oh = 0; oh < w.out[1]; ++oh)
        for (int64_t ow = 0; ow < w.out[2]; ++ow) {
          Acc acc{};
          for (int64_t c = 0; c < Cg; ++c) {
            const TX* xc = X + (n * C + g * Cg + c) * insz;
            const TW* wc = wm + c * ksz;
            for (int64_t kd = 0; kd < w.k[0]; ++kd) {
              const int64_t id = od * w.stride[0] - w.pad_b[0] + kd * w.dil[0];
              if (id < 0 || id >= w.in[0]) continue;
              for (int64_t kh = 0; kh < w.k[1]; ++kh) {
                const int64_t ih = oh * w.stride[1] - w.pad_b[1] + kh * w.dil[1];
                if (ih < 0 || ih >= w.in[1]) continue;
                for (int64_t kw = 0; kw < w.k[2]; ++kw) {
                  const int64_t iw = ow * w.stride[2] - w.pad_b[2] + kw * w.dil[2];
                  if (iw < 0 || iw >= w.in[2]) continue;
                  const Acc xv = static_cast<Acc>(xc[(id * w.in[1] + ih) * w.in[2] + iw]) - xz;
                  const Acc wv = static_cast<Acc>(wc[(kd * w.k[1] + kh) * w.k[2] + kw]) - wzm;
                  acc += xv * wv;
                }
              }
            }
          }
          out(n, m, (od * w.out[1] + oh) * w.out[2] + ow, acc);
        }
  });
}

// The epilogue of a GEMM's tile of Y, rows [0, rows) of `cols` columns,
// `ld` apart: each row's bias (b[row], if b), then the clamp, while the
// tile is still in the caches.
void bias_and_clamp(float* y, int64_t rows, int64_t cols, int64_t ld, const float* b, const ConvActivation& act) {
  for (int64_t m = 0; m < rows; ++m) {
    float* row = y + m * ld;
    if (b) std::for_each(row, row + cols, [bm = b[m]](float& v) { v += bm; });
    act.apply(row, cols);
  }
}

// A float convolution with a spatial window, by im2col and sgemm, over the
// device's cores. oneDNN's plain-layout path runs it on one
// core here (im2col inside, then a GEMM), and splitting it by output
// channels repeats the im2col, which made it slower still. Here the output
// rows are cut into chunks whose column matrix (C * KH * KW by the chunk's
// columns) stays in L2, and the chunks share out the cores, each an im2col
// and a GEMM into its columns of Y: [1, 64, 56, 56] 3x3 to 64 went from
// 1.7 ms to 1.3, ResNet's 7x7/2 stem from 1.7 to 1.5 (one im2col of the
// whole image, 7 MB for the first, left it memory-bound). Several images
// share out their chunks the same way, where oneDNN gave each core whole
// images ([8, 64, 28, 28] 3x3: 3.3 ms to 2.75), and so do the groups of a
// grouped convolution (4 groups over [1, 64, 56, 56]: 720 us to 450).
// A 3-D window's output rows are its (depth, row) pairs: oneDNN took 6.2 ms
// for [1, 16, 16, 32, 32] 3x3x3, 3.2x ONNX Runtime's time.
// False where it does not apply (a 1x1 window, too few or too narrow
// chunks) or cannot get its buffers; the caller then runs oneDNN, which
// writes all of Y.
constexpr int64_t kIm2colChunkBytes = int64_t{512} << 10;
constexpr int64_t kIm2colMinColumns = 256;
constexpr int64_t kMaxIm2colChunkBytes = int64_t{64} << 20;  // a huge C * KH * KW goes to oneDNN

bool im2col_conv(const float* X, const float* Wt, const float* B, float* Y, const ConvShape& s, int64_t group,
                 const ConvActivation& act) {
  const Window& w = s.w;
  const int64_t cores = tbb::this_task_arena::max_concurrency();
  if (w.k_size() == 1 || cores < 2) return false;
  // An output row is (od, oh): a 2-D window has one depth, a 3-D one OD.
  const int64_t D = w.in[0], H = w.in[1], Wd = w.in[2], OD = w.out[0], OH = w.out[1], OW = w.out[2], KD = w.k[0],
                KH = w.k[1], KW = w.k[2], OR = OD * OH;
  // Per group: Cg input channels, Mg output channels, a K-deep product.
  const int64_t Cg = s.C / group, Mg = s.M / group, K = Cg * KD * KH * KW, cols = OR * OW;
  if (cols == 0) return false;
  // At least kIm2colMinColumns columns a chunk: narrower GEMMs lose more
  // than the cache gains.
  const int64_t rows = std::clamp<int64_t>(
      std::max(kIm2colChunkBytes / 4 / std::max<int64_t>(1, K * OW), (kIm2colMinColumns + OW - 1) / OW), 1, OR);
  const int64_t per_image = (OR + rows - 1) / rows, chunks = s.N * group * per_image;
  // Too few chunks to go round: the sgemm would split one chunk's rows, and
  // each part packs the whole column matrix again ([1, 256, 14, 14], 3x3:
  // 1.5 ms on oneDNN's one core, 1.8 so).
  if (chunks < cores || K > kMaxIm2colChunkBytes / 4 / (rows * OW)) return false;
  // Small images of many images: a GEMM 49 columns wide ([8, 512, 7, 7],
  // 3x3) took 13 ms against oneDNN's 11; 196 ([8, 256, 14, 14]) broke even.
  if (rows * OW < kIm2colMinColumns / 2) return false;
  std::atomic<bool> ok{true};
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, chunks), [&](const tbb::blocked_range<int64_t>& range) {
    auto buf = HostAllocator::host().allocate(static_cast<size_t>(K * rows * OW) * sizeof(float));
    if (!buf.ok()) {
      ok.store(false);
      return;
    }
    float* col = static_cast<float*>((*buf)->data);
    for (int64_t chunk = range.begin(); chunk < range.end(); ++chunk) {
      const int64_t n = chunk / per_image / group, g = chunk / per_image % group, or0 = chunk % per_image * rows,
                    or1 = std::min(OR, or0 + rows), ccols = (or1 - or0) * OW;
      for (int64_t r = 0; r < K; ++r) {
        const int64_t c = r / (KD * KH * KW), kd = r / (KH * KW) % KD, kh = r / KW % KH, kw = r % KW;
        const auto [off, lo, hi] = column_span(w, kw);
        for (int64_t orow = or0; orow < or1; ++orow) {
          float* d = col + r * ccols + (orow - or0) * OW;
          const int64_t id = orow / OH * w.stride[0] - w.pad_b[0] + kd * w.dil[0];
          const int64_t ih = orow % OH * w.stride[1] - w.pad_b[1] + kh * w.dil[1];
          if (id < 0 || id >= D || ih < 0 || ih >= H) {
            std::fill(d, d + OW, 0.f);
            continue;
          }
          const float* src = X + (((n * s.C + g * Cg + c) * D + id) * H + ih) * Wd;
          std::fill(d, d + lo, 0.f);
          if (w.stride[2] == 1) {
            std::copy(src + lo + off, src + hi + off, d + lo);
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) d[ow] = src[ow * w.stride[2] + off];
          }
          std::fill(d + hi, d + OW, 0.f);
        }
      }
      float* y = Y + (n * s.M + g * Mg) * cols + or0 * OW;
      if (!sgemm('N', 'N', Mg, ccols, K, 1.f, Wt + g * Mg * K, K, col, ccols, 0.f, y, cols).ok()) {
        ok.store(false);
        return;
      }
      bias_and_clamp(y, Mg, ccols, cols, B ? B + g * Mg : nullptr, act);
    }
  });
  return ok.load();
}

// Whether a convolution is 1x1 of group 1 without pads (pointwise_conv's),
// and also unstrided: a product per image.
bool is_pointwise(const Window& w, int64_t group) {
  return group == 1 && w.k_size() == 1 && w.pad_b == Arr3{0, 0, 0} && w.pad_e == Arr3{0, 0, 0};
}
bool is_matrix_product(const Window& w, int64_t group) { return is_pointwise(w, group) && w.stride == Arr3{1, 1, 1}; }

// A 1x1 convolution, unstrided and unpadded, is a GEMM per image: Y[n] =
// W x X[n], [M, C] by [C, P]. With too few output channels for run_dnnl to
// give every core a slice of 16, tiles of Y (column chunks whose output
// stays in L2) share out the cores instead, each a single-threaded sgemm
// with the bias and the clamp applied while the tile is in cache
// ([1, 144, 56, 56] to 24 on 2 cores: 204 us to 109; [1, 32, 112, 112] to
// 16: 119 to 80). With more channels, oneDNN's contiguous slices were
// faster than such strided tiles ([1, 16, 112, 112] to 96 then Clip: 330
// us against 355). False where it does not apply.
bool pointwise_gemm(const float* X, const float* Wt, const float* B, float* Y, const ConvShape& s, int64_t group,
                    const ConvActivation& act) {
  const Window& w = s.w;
  const int64_t cores = tbb::this_task_arena::max_concurrency();
  if (s.M >= 16 * cores || !is_matrix_product(w, group)) return false;
  const int64_t P = w.out_size(), M = s.M, C = s.C;
  constexpr int64_t kTileBytes = int64_t{256} << 10;
  // Column chunks as wide as the tile allows, but at least 256 (narrower
  // GEMMs lose more than the cache gains), in a multiple of the cores.
  const int64_t max_cw = std::max<int64_t>(kTileBytes / 4 / std::max(M, C), 256);
  int64_t col_chunks = (P + max_cw - 1) / max_cw;
  if (col_chunks > 1) col_chunks = (col_chunks + cores - 1) / cores * cores;
  const int64_t cw = (P + col_chunks - 1) / col_chunks;
  col_chunks = (P + cw - 1) / cw;
  // Channel blocks, enough for every core to have a tile.
  const int64_t want_rows = std::max<int64_t>(1, (cores + s.N * col_chunks - 1) / (s.N * col_chunks));
  const int64_t mb = std::max<int64_t>(16, (M + want_rows - 1) / want_rows);
  const int64_t row_blocks = (M + mb - 1) / mb, tiles = s.N * row_blocks * col_chunks;
  std::atomic<bool> ok{true};
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, tiles, 1), [&](const tbb::blocked_range<int64_t>& r) {
    use_single_threaded_omp();
    for (int64_t t = r.begin(); t < r.end(); ++t) {
      const int64_t n = t / (row_blocks * col_chunks), m0 = t / col_chunks % row_blocks * mb, c0 = t % col_chunks * cw;
      const int64_t rows = std::min(M - m0, mb), cols = std::min(P - c0, cw);
      float* y = Y + (n * M + m0) * P + c0;
      if (dnnl_sgemm('N', 'N', rows, cols, C, 1.f, Wt + m0 * C, C, X + n * C * P + c0, P, 0.f, y, P) != dnnl_success) {
        ok.store(false);
        return;
      }
      bias_and_clamp(y, rows, cols, P, B ? B + m0 : nullptr, act);
    }
  });
  return ok.load();
}

// A oneDNN forward convolution with its primitive descriptor.
struct DnnlConv {
  dnnl::convolution_forward::primitive_desc pd;
  DnnlPrimitive prim;
};

class ConvKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    group_ = node.attr_int("group", 1);
    if (group_ <= 0) return InvalidArgument(node.describe(), ": group must be positive");
    RETURN_IF_ERROR(activation_.parse(node));
    return attrs_.parse(node);
  }

  // FusedConv's activation is applied by each path as it writes the
  // output: a pass of its own over a finished output cost as much as the
  // Clip node it replaced.
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& wt = ctx.input(1);
    ASSIGN_OR_RETURN(ConvShape s, conv_shape(attrs_, group_, x, wt, "Conv"));
    if (x.dtype() != wt.dtype()) return InvalidArgument("Conv: X and W types differ");
    if (activation_.on && x.dtype() != DataType::kFloat)
      return Unimplemented("FusedConv: unsupported type ", dtype_name(x.dtype()));
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    if (b && (b->numel() != s.M || b->rank() != 1 || b->dtype() != x.dtype()))
      return InvalidArgument("Conv: bias must be 1-D of size ", s.M, ", got ", b->describe());
    const Tensor* z = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    if (z && (x.dtype() != DataType::kFloat || z->dtype() != DataType::kFloat || z->dims() != s.out))
      return InvalidArgument("FusedConv: the residual Z must be float and shaped as the output, ", s.out.to_string(),
                             ", got ", z->describe());
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), s.out));
    if (s.N == 0 || s.M == 0) return OkStatus();
    if (!z) return convolve(ctx, s, b, y, activation_, nullptr);
    // FusedConv with a residual, y = act(conv + b + z) (ir/op_fusion.h):
    // pointwise_conv adds Z in registers and the blocked path as it
    // reorders its output; the other paths write conv + b, and one pass
    // adds Z and clamps, in the float order of the Add and Relu nodes it
    // replaced.
    bool added = false;
    RETURN_IF_ERROR(convolve(ctx, s, b, y, activation_, z->data<float>(), &added));
    if (!added) {
      float* out = y->data<float>();
      const float* res = z->data<float>();
      tensor_ops::for_row_ranges(y->numel(), 1,
                                 [&](int64_t b, int64_t e) { activation_.apply(out + b, res + b, e - b); });
    }
    return OkStatus();
  }

 private:
  // The convolution into y, clamped by act. With residual z (float only),
  // the blocked path and pointwise_conv add it and set *added; every other
  // path leaves it and the clamp to the caller.
  Status convolve(KernelContext& ctx, const ConvShape& s, const Tensor* b, Tensor* y, const ConvActivation& act,
                  const float* z, bool* added = nullptr) const {
    const Tensor& x = ctx.input(0);
    const Tensor& wt = ctx.input(1);
    const ConvActivation none;
    const ConvActivation& path_act = z ? none : act;
    // Constant weights can be kept in oneDNN's blocked layout. Not for a
    // 1x1 window, which is a GEMM: oneDNN's blocked kernel ran it no faster
    // before the reorders ([1, 144, 56, 56] to 24: 263 us against 203).
    if (x.dtype() == DataType::kFloat && group_ == 1 && s.C > 0 && s.w.k_size() > 1 && ctx.input_constant(1) &&
        blocked_.run(x.data<float>(), wt.data<float>(), b ? b->data<float>() : nullptr, z, y->data<float>(), s, act)) {
      if (added) *added = true;
      return OkStatus();
    }
    if (x.dtype() == DataType::kFloat && s.w.nsp <= 2 && group_ == s.C && s.M == s.C) {
      depthwise_conv(x.data<float>(), wt.data<float>(), b ? b->data<float>() : nullptr, y->data<float>(), s.N, s.C, s.w,
                     path_act);
      return OkStatus();
    }
    if (x.dtype() == DataType::kFloat && s.C > 0 && is_pointwise(s.w, group_) &&
        pointwise_conv(x.data<float>(), wt.data<float>(), b ? b->data<float>() : nullptr, z, y->data<float>(), s.N, s.C,
                       s.M, s.w, act)) {
      if (added) *added = true;
      return OkStatus();
    }
    if (x.dtype() == DataType::kFloat && s.C > 0 &&
        pointwise_gemm(x.data<float>(), wt.data<float>(), b ? b->data<float>() : nullptr, y->data<float>(), s, group_,
                       path_act))
      return OkStatus();
    if (x.dtype() == DataType::kFloat && s.C > 0 &&
        im2col_conv(x.data<float>(), wt.data<float>(), b ? b->data<float>() : nullptr, y->data<float>(), s, group_,
                    path_act))
      return OkStatus();
    if (x.dtype() == DataType::kFloat && s.C > 0 && run_dnnl(x, wt, b, y, s, path_act)) return OkStatus();
    bool ok = false;
    auto run = [&](auto tag) {
      using T = decltype(tag);
      using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const int64_t osz = s.w.out_size();
      T* Y = y->data<T>();
      conv_direct<T, T, Acc>(x.data<T>(), wt.data<T>(), s.N, s.C, s.M, group_, s.w, Acc{}, {},
                             [&](int64_t n, int64_t m, int64_t i, Acc acc) {
                               if (b) acc += static_cast<Acc>(b->data<T>()[m]);
                               // float only (checked above)
                               if (path_act.on) clamp_keep_nan(acc, path_act.lo, path_act.hi);
                               Y[(n * s.M + m) * osz + i] = static_cast<T>(acc);
                             });
      ok = true;
    };
    switch (x.dtype()) {
      case DataType::kFloat: run(float{}); break;
      case DataType::kDouble: run(double{}); break;
      case DataType::kFloat16: run(Float16{}); break;
      case DataType::kBFloat16: run(BFloat16{}); break;
      default: break;
    }
    if (!ok) return Unimplemented("Conv: unsupported type ", dtype_name(x.dtype()));
    return OkStatus();
  }

  // Runs the float convolution through oneDNN; false if oneDNN declines
  // (the caller then uses the direct loop). oneDNN runs single-threaded
  // here (use_single_threaded_omp), so the convolution is split over the
  // device's cores: by images, or for one image of a 1x1 convolution by
  // output channels ([1, 256, 28, 28] to 128: 470 us to 320 on 2 cores),
  // each slice its own primitive writing its part of y in place. Slices
  // are dense in y, so oneDNN keeps its fast plain-layout kernels (strided
  // ones fall to its reference code, 1000x slower). Larger kernels of one
  // image are not split: oneDNN's plain-layout path unrolls the input per
  // call (im2col), which each slice would repeat; im2col_conv takes those
  // images that fill the cores before they get here.
  bool run_dnnl(const Tensor& x, const Tensor& wt, const Tensor* b, Tensor* y, const ConvShape& s,
                const ConvActivation& act) const {
    const int64_t cores = tbb::this_task_arena::max_concurrency();
    const bool by_images = s.N > 1;
    const bool pointwise = group_ == 1 && s.w.k_size() == 1;
    const int64_t parts = by_images ? std::min(s.N, cores) : pointwise ? std::clamp<int64_t>(s.M / 16, 1, cores) : 1;
    const int64_t total = by_images ? s.N : s.M, per = (total + parts - 1) / parts;
    std::atomic<bool> ok{true};
    auto run_part = [&](int64_t p) {
      const int64_t a = p * per, e = std::min(total, a + per);
      if (a >= e) return;
      const bool done = by_images ? run_dnnl_slice(x, wt, b, y, s, a, e, 0, s.M) : run_dnnl_slice(x, wt, b, y, s, 0, 1, a, e);
      if (!done) ok.store(false);
      const int64_t osz = s.w.out_size();
      if (done && by_images) act.apply(y->data<float>() + a * s.M * osz, (e - a) * s.M * osz);
      if (done && !by_images) act.apply(y->data<float>() + a * osz, (e - a) * osz);
    };
    if (parts == 1) {
      run_part(0);
    } else {
      tbb::parallel_for(int64_t{0}, parts, run_part);
    }
    return ok.load();
  }

  // Images [n0, n1) and output channels [m0, m1) of the convolution: all
  // channels of some images, or some channels of one image.
  bool run_dnnl_slice(const Tensor& x, const Tensor& wt, const Tensor* b, Tensor* y, const ConvShape& s, int64_t n0,
                      int64_t n1, int64_t m0, int64_t m1) const {
    using dnnl::memory;
    try {
      const int nsp = s.w.nsp;
      const int64_t nb = n1 - n0, mc = m1 - m0, osz = s.w.out_size();
      std::vector<int64_t> key(x.dims().begin(), x.dims().end());
      key.insert(key.end(), wt.dims().begin(), wt.dims().end());
      key.push_back(b ? 1 : 0);
      key.push_back(nb);
      key.push_back(mc);
      std::shared_ptr<DnnlConv> conv;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = cache_.find(key);
        if (it != cache_.end()) conv = it->second;
      }
      if (!conv) {
        memory::dims src(x.dims().begin(), x.dims().end()), dst(s.out.begin(), s.out.end());
        src[0] = dst[0] = nb;
        dst[1] = mc;
        memory::dims wei;
        if (group_ > 1) {
          wei = {group_, s.M / group_};
          wei.insert(wei.end(), wt.dims().begin() + 1, wt.dims().end());
        } else {
          wei.assign(wt.dims().begin(), wt.dims().end());
          wei[0] = mc;
        }
        const DnnlWindow dw = dnnl_window(s.w);
        using tag = memory::format_tag;
        const tag act = nsp == 1 ? tag::ncw : nsp == 2 ? tag::nchw : tag::ncdhw;
        const tag wtag = group_ > 1 ? (nsp == 1 ? tag::goiw : nsp == 2 ? tag::goihw : tag::goidhw)
                                    : (nsp == 1 ? tag::oiw : nsp == 2 ? tag::oihw : tag::oidhw);
        const auto f32 = memory::data_type::f32;
        memory::desc src_md(src, f32, act), dst_md(dst, f32, act), wei_md(wei, f32, wtag);
        memory::desc bias_md = b ? memory::desc({mc}, f32, tag::a) : memory::desc();
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                          src_md, wei_md, bias_md, dst_md, dw.strides, dw.dil, dw.pad_b,
                                          dw.pad_e);
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        auto made = std::make_shared<DnnlConv>();
        made->pd = dnnl::convolution_forward::primitive_desc(d, attr, cpu_engine());
        made->prim = DnnlPrimitive(made->pd);
        conv = made;
        std::lock_guard<std::mutex> lock(mu_);
        if (cache_.size() >= 16) cache_.clear();
        cache_[key] = conv;
      }
      auto scratch = dnnl_scratchpad(conv->pd.scratchpad_desc().get_size());
      if (!scratch.ok()) return false;
      conv->prim.execute({{DNNL_ARG_SRC, x.data<float>() + n0 * (x.numel() / s.N)},
                          {DNNL_ARG_WEIGHTS, wt.data<float>() + m0 * (wt.numel() / s.M)},
                          {DNNL_ARG_DST, y->data<float>() + (n0 * s.M + m0) * osz},
                          {DNNL_ARG_SCRATCHPAD, (*scratch)->data},
                          {DNNL_ARG_BIAS, b ? b->data<float>() + m0 : nullptr}});
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }

  WindowAttrs attrs_;
  int64_t group_ = 1;
  ConvActivation activation_;
  BlockedConv blocked_;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<DnnlConv>> cache_;
};

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
    ASSIGN_OR_RETURN(ConvTransposeShape cs,
                     conv_transpose_shape(attrs_, group_, output_padding_, output_shape_, x, wt));
    const int64_t N = cs.N, C = cs.C, M = cs.M, Mg = cs.Mg, Cg = cs.Cg;
    const Window& w = cs.w;
    const Dims& out_dims = cs.out;
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    if (b && (b->numel() != M || b->rank() != 1 || b->dtype() != x.dtype()))
      return InvalidArgument("ConvTranspose: bias must be 1-D of size ", M, ", got ", b->describe());
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), out_dims));
    switch (x.dtype()) {
      case DataType::kFloat: return run<float>(x, wt, b, y, w, N, C, M, Mg, Cg);
      case DataType::kDouble: return run<double>(x, wt, b, y, w, N, C, M, Mg, Cg);
      case DataType::kFloat16: return run_in_float<Float16>(x, wt, b, y, w, N, C, M, Mg, Cg);
      case DataType::kBFloat16: return run_in_float<BFloat16>(x, wt, b, y, w, N, C, M, Mg, Cg);
      default: return Unimplemented("ConvTranspose: unsupported type ", dtype_name(x.dtype()));
    }
  }

 private:
  // The half types: X, W and B widened to float, the float path run, and
  // Y rounded back once (the sums of the half products are float anyway).
  template <typename H>
  Status run_in_float(const Tensor& x, const Tensor& wt, const Tensor* b, Tensor* y, const Window& w, int64_t N,
                      int64_t C, int64_t M, int64_t Mg, int64_t Cg) const {
    auto widen = [](const Tensor& t) -> StatusOr<Tensor> {
      ASSIGN_OR_RETURN(Tensor f, Tensor::host(DataType::kFloat, t.dims()));
      std::transform(t.data<H>(), t.data<H>() + t.numel(), f.data<float>(), [](H v) { return static_cast<float>(v); });
      return f;
    };
    ASSIGN_OR_RETURN(const Tensor xf, widen(x));
    ASSIGN_OR_RETURN(const Tensor wf, widen(wt));
    Tensor bf;
    if (b) {
      ASSIGN_OR_RETURN(bf, widen(*b));
    }
    ASSIGN_OR_RETURN(Tensor yf, Tensor::host(DataType::kFloat, y->dims()));
    RETURN_IF_ERROR(run<float>(xf, wf, b ? &bf : nullptr, &yf, w, N, C, M, Mg, Cg));
    std::transform(yf.data<float>(), yf.data<float>() + yf.numel(), y->data<H>(), [](float v) { return H(v); });
    return OkStatus();
  }

  // The column buffer holds the taps of a block of whole input rows
  // (one (id, ih) pair each), at most about this many values per image
  // and group: a buffer for the whole image takes the weights' size times
  // the input's, which small inputs can make terabytes.
  static constexpr int64_t kColBudget = int64_t{1} << 22;

  template <typename T>
  Status run(const Tensor& x, const Tensor& wt, const Tensor* b, Tensor* y, const Window& w, int64_t N, int64_t C,
             int64_t M, int64_t Mg, int64_t Cg) const {
    const int64_t insz = w.in_size(), osz = w.out_size();
    T* Y = y->data<T>();
    const T* X = x.data<T>();
    const T* W = wt.data<T>();
    if (y->numel() == 0) return OkStatus();
    const T* bias = b ? b->data<T>() : nullptr;
    // No input or no weights: every tap is 0 and the output is the bias.
    // An empty X or W may claim any number of rows or taps, so none are
    // counted.
    if (x.numel() == 0 || wt.numel() == 0) {
      tbb::parallel_for(int64_t{0}, N * M, [&](int64_t nm) {
        std::fill(Y + nm * osz, Y + (nm + 1) * osz, bias ? bias[nm % M] : T{});
      });
      return OkStatus();
    }
    // Whole input rows per block, at least one however long a row is.
    const int64_t rows = Mg * w.k_size(), in_rows = w.in[0] * w.in[1], row_len = w.in[2];
    const double row_taps = static_cast<double>(rows) * static_cast<double>(row_len);
    const int64_t block =
        std::clamp<int64_t>(static_cast<int64_t>(static_cast<double>(kColBudget) / row_taps), 1, in_rows);
    RETURN_IF_ERROR(
        check_host_table_bytes(row_taps * static_cast<double>(block) * sizeof(T), "ConvTranspose: the column buffer"));
    tbb::parallel_for(int64_t{0}, N * group_, [&](int64_t ng) {
      const int64_t n = ng / group_, g = ng % group_;
      // Not zeroed: add_block writes all of it. Zeroing it as well took a
      // sixth of a 2x2/2 [1, 64, 28, 28].
      std::unique_ptr<T[]> col(new T[static_cast<size_t>(rows * block * row_len)]);
      const T* Wg = W + g * Cg * rows;
      const T* Xg = X + (n * C + g * Cg) * insz;
      for (int64_t r0 = 0; r0 < in_rows; r0 += block) {
        const int64_t r1 = std::min(in_rows, r0 + block), cols = (r1 - r0) * row_len;
        add_block(Wg, Xg + r0 * row_len, rows, cols, insz, Cg, col.get());
        col2im_block(col.get(), bias ? bias + g * Mg : nullptr, Y + (n * M + g * Mg) * osz, w, Mg, osz, r0, r1, cols);
      }
    });
    return OkStatus();
  }

  // col[rows, cols] = W_g^T [rows, Cg] * X_g [Cg, cols], X_g's rows `ld`
  // apart. oneDNN fails only on bad arguments or memory; the plain loop
  // then computes the product instead of leaving col half written.
  template <typename T>
  static void add_block(const T* Wg, const T* Xg, int64_t rows, int64_t cols, int64_t ld, int64_t Cg, T* col) {
    if constexpr (std::is_same_v<T, float>) {
      if (sgemm('T', 'N', rows, cols, Cg, 1.f, Wg, rows, Xg, ld, 0.f, col, cols).ok()) return;
    }
    std::fill(col, col + rows * cols, T{});
    for (int64_t c = 0; c < Cg; ++c)
      for (int64_t r = 0; r < rows; ++r) {
        const T wv = Wg[c * rows + r];
        for (int64_t i = 0; i < cols; ++i) col[r * cols + i] += wv * Xg[c * ld + i];
      }
  }

  // y[j * stride] += x[j] for j < n.
  template <typename T, typename Stride>
  static void add_strided(T* y, const T* x, int64_t n, Stride stride) {
    for (int64_t j = 0; j < n; ++j) y[j * stride] += x[j];
  }

  // Adds the taps of input rows [r0, r1) in col to the Mg output channels
  // from Yg, which the first block sets to their bias first (here, where
  // they are about to be read). The channels run in parallel (independent
  // sums), each column tap over the input columns whose output is inside:
  // one image on one core, with a test per element, took 1.5x ONNX
  // Runtime's time.
  template <typename T>
  static void col2im_block(const T* col, const T* bias, T* Yg, const Window& w, int64_t Mg, int64_t osz, int64_t r0,
                           int64_t r1, int64_t cols) {
    tbb::parallel_for(int64_t{0}, Mg, [=, &w](int64_t m) {
      T* ym = Yg + m * osz;
      if (r0 == 0) std::fill(ym, ym + osz, bias ? bias[m] : T{});
      const int64_t sw = w.stride[2];
      for (int64_t kd = 0; kd < w.k[0]; ++kd)
        for (int64_t kh = 0; kh < w.k[1]; ++kh)
          for (int64_t kw = 0; kw < w.k[2]; ++kw) {
            const T* cr = col + ((m * w.k[0] + kd) * w.k[1] * w.k[2] + kh * w.k[2] + kw) * cols;
            // Input columns iw with 0 <= iw * sw + off < out[2].
            const int64_t off = kw * w.dil[2] - w.pad_b[2];
            const auto [lo, hi] = index_span(off, sw, w.in[2], w.out[2]);
            // Input rows [r0, r1) are (id, ih) pairs, id from r0 / in[1].
            for (int64_t id = r0 / w.in[1]; id * w.in[1] < r1; ++id) {
              const int64_t od = id * w.stride[0] - w.pad_b[0] + kd * w.dil[0];
              if (od < 0 || od >= w.out[0]) continue;
              const int64_t ih1 = std::min(w.in[1], r1 - id * w.in[1]);
              for (int64_t ih = std::max<int64_t>(0, r0 - id * w.in[1]); ih < ih1; ++ih) {
                const int64_t oh = ih * w.stride[1] - w.pad_b[1] + kh * w.dil[1];
                if (oh < 0 || oh >= w.out[1]) continue;
                T* yr = ym + (od * w.out[1] + oh) * w.out[2] + lo * sw + off;  // output column of iw = lo
                const T* cc = cr + (id * w.in[1] + ih - r0) * w.in[2] + lo;
                // Strides 1 and 2 as constants, which the compiler
                // vectorises: 85 -> 74 us for a 2x2/2 [1, 64, 28, 28].
                if (sw == 1) add_strided(yr, cc, hi - lo, std::integral_constant<int64_t, 1>{});
                else if (sw == 2) add_strided(yr, cc, hi - lo, std::integral_constant<int64_t, 2>{});
                else add_strided(yr, cc, hi - lo, sw);
              }
            }
          }
    });
  }

  WindowAttrs attrs_;
  int64_t group_ = 1;
  std::vector<int64_t> output_padding_, output_shape_;
};

// A checked scalar or per-output-channel quantisation parameter, as M
// values (`dflt` when absent).
std::vector<float> per_channel(const Tensor* t, int64_t M, float dflt) {
  std::vector<float> v(static_cast<size_t>(M), dflt);
  if (t)
    for (int64_t m = 0; m < M; ++m) v[m] = float_at(*t, t->numel() == 1 ? 0 : m);
  return v;
}

// ConvInteger (quantized = false) and QLinearConv (quantized = true).
class IntConvKernel : public Kernel {
 public:
  explicit IntConvKernel(bool quantized) : quantized_(quantized) {}
  Status init(const Node& node) override {
    group_ = node.attr_int("group", 1);
    if (group_ <= 0) return InvalidArgument(node.describe(), ": group must be positive");
    return attrs_.parse(node);
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const IntConvPlan p, plan_int_conv(ctx, attrs_, group_, quantized_));
    const ConvShape& s = p.s;
    const Tensor& x = ctx.input(0);
    const Tensor& wt = ctx.input(quantized_ ? 3 : 1);
    const int32_t xz = p.x_zero ? static_cast<int32_t>(p.x_zero->int_at(0)) : 0;
    const std::vector<float> wzf = per_channel(p.w_zero, s.M, 0.f);
    const std::vector<int32_t> wz(wzf.begin(), wzf.end());
    std::vector<float> scale;
    const Tensor* bias = p.bias;
    const float ys = p.y_scale;
    const int32_t yz = p.y_zero;
    const DataType yt = p.y_type;
    if (quantized_) {
      const float xs = float_at(*p.x_scale, 0);
      const std::vector<float> ws = per_channel(p.w_scale, s.M, 1.f);
      scale.resize(static_cast<size_t>(s.M));
      for (int64_t m = 0; m < s.M; ++m) scale[m] = xs * ws[m] / ys;
    }
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, yt, s.out));
    const int64_t osz = s.w.out_size();
    visit_int8_pair(x.dtype(), wt.dtype(), [&](auto tx, auto tw) {
      using TX = decltype(tx);
      using TW = decltype(tw);
      conv_direct<TX, TW, int32_t>(
          x.data<TX>(), wt.data<TW>(), s.N, s.C, s.M, group_, s.w, xz, wz, [&](int64_t n, int64_t m, int64_t i, int32_t acc) {
            const int64_t o = (n * s.M + m) * osz + i;
            if (!quantized_) {
              y->data<int32_t>()[o] = acc;
              return;
            }
            if (bias) acc += bias->data<int32_t>()[m];
            float r = std::nearbyint(static_cast<float>(acc) * scale[m]) + static_cast<float>(yz);
            if (std::isnan(r)) r = static_cast<float>(yz);
            if (yt == DataType::kUInt8) y->data<uint8_t>()[o] = static_cast<uint8_t>(std::clamp(r, 0.f, 255.f));
            else y->data<int8_t>()[o] = static_cast<int8_t>(std::clamp(r, -128.f, 127.f));
          });
    });
    return OkStatus();
  }

 private:
  bool quantized_;
  WindowAttrs attrs_;
  int64_t group_ = 1;
};

struct ConvIntegerKernel final : IntConvKernel {
  ConvIntegerKernel() : IntConvKernel(false) {}
};
struct QLinearConvKernel final : IntConvKernel {
  QLinearConvKernel() : IntConvKernel(true) {}
};

}  // namespace

void register_conv_kernels(KernelRegistry& r) {
  const std::vector<DataType> ft = {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16};
  add_kernel(r, "Conv", 1, make_kernel<ConvKernel>, ft);
  KernelDef fused;
  fused.domain = kSwitchyardDomain;
  fused.op = kFusedConv;
  fused.types = {DataType::kFloat};
  fused.factory = make_kernel<ConvKernel>;
  r.add(std::move(fused));
  add_kernel(r, "ConvTranspose", 1, make_kernel<ConvTransposeKernel>, ft);
  add_kernel(r, "ConvInteger", 10, make_kernel<ConvIntegerKernel>, {DataType::kUInt8, DataType::kInt8});
  add_kernel(r, "QLinearConv", 10, make_kernel<QLinearConvKernel>, {DataType::kUInt8, DataType::kInt8});
}

}  // namespace sy::nn
