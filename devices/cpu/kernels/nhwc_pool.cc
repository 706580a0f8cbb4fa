// NhwcMaxPool and NhwcGlobalAveragePool on the CPU (ir/channels_last.h):
// MaxPool and GlobalAveragePool on channels-last tensors, between the
// convolutions of a chain. In that layout a window tap is a run of C
// contiguous channels, so both are vector loops over channels, with no
// gathers and no planes to walk.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/target_clones.h"
#include "ir/op_fusion.h"

namespace sy::nn {
namespace {

// Output row r of image X ([H, W, C]) into `out` ([OW, C]): each pixel
// the max over its window's taps inside the image, a NaN winning over
// numbers as in MaxPool's NCHW kernel; a window wholly in the pads gives
// -inf. One function for the row, so that the channel loop is inlined.
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void max_pool_row(const float* X, float* out, const Window& w, int64_t c, int64_t r) {
  const int64_t h = w.in[1], wd = w.in[2];
  for (int64_t col = 0; col < w.out[2]; ++col) {
    float* y = out + col * c;
    for (int64_t i = 0; i < c; ++i) y[i] = -std::numeric_limits<float>::infinity();
    for (int64_t kh = 0; kh < w.k[1]; ++kh) {
      const int64_t ih = r * w.stride[1] - w.pad_b[1] + kh * w.dil[1];
      if (ih < 0 || ih >= h) continue;
      for (int64_t kw = 0; kw < w.k[2]; ++kw) {
        const int64_t iw = col * w.stride[2] - w.pad_b[2] + kw * w.dil[2];
        if (iw < 0 || iw >= wd) continue;
        const float* x = X + (ih * wd + iw) * c;
        for (int64_t i = 0; i < c; ++i) y[i] = (x[i] > y[i] || x[i] != x[i]) ? x[i] : y[i];
      }
    }
  }
}

constexpr int64_t kChannelBlock = 256;

// sum[i] = the sum over `pixels` of x[p * stride + i], for i < n (at most
// kChannelBlock), in double, pixel by pixel. Into a local array first: on
// `sum` itself the loop ran 1.4 times slower.
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void channel_sums(const float* x, int64_t pixels, int64_t stride, int64_t n, double* sum) {
  double acc[kChannelBlock] = {};
  for (int64_t p = 0; p < pixels; ++p)
    for (int64_t i = 0; i < n; ++i) acc[i] += static_cast<double>(x[p * stride + i]);
  std::copy(acc, acc + n, sum);
}

// X [N, H, W, C] as the NCHW dims the window helpers take, after checking
// that it is a float tensor of rank 4.
StatusOr<Dims> nchw_dims(const Tensor& x, const char* op) {
  if (x.dtype() != DataType::kFloat || x.rank() != 4)
    return InvalidArgument(op, ": X must be float [N, H, W, C], got ", x.describe());
  return Dims{x.dim(0), x.dim(3), x.dim(1), x.dim(2)};
}

class NhwcMaxPoolKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    if (node.outputs.size() > 1) return InvalidArgument(node.describe(), ": has no Indices output");
    RETURN_IF_ERROR(attrs_.parse_pool(node));
    if (attrs_.kernel_shape.size() != 2)
      return InvalidArgument(node.describe(), ": kernel_shape must have 2 dims, got ", attrs_.kernel_shape.size());
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Dims d, nchw_dims(x, "NhwcMaxPool"));
    ASSIGN_OR_RETURN(Window w, resolve_window(attrs_, d, attrs_.kernel_shape, "NhwcMaxPool"));
    const int64_t n = d[0], c = d[1], h = w.in[1], wd = w.in[2], oh = w.out[1], ow = w.out[2];
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kFloat, Dims{n, oh, ow, c}));
    if (y->numel() == 0) return OkStatus();
    const float* X = x.data<float>();
    float* Y = y->data<float>();
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, n * oh), [&](const tbb::blocked_range<int64_t>& rows) {
      for (int64_t row = rows.begin(); row < rows.end(); ++row)
        max_pool_row(X + row / oh * h * wd * c, Y + row * ow * c, w, c, row % oh);
    });
    return OkStatus();
  }

 private:
  WindowAttrs attrs_;
};

class NhwcGlobalAveragePoolKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Dims d, nchw_dims(x, "NhwcGlobalAveragePool"));
    const int64_t n = d[0], c = d[1], pixels = d[2] * d[3];
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kFloat, Dims{n, 1, 1, c}));
    if (y->numel() == 0) return OkStatus();
    const float* X = x.data<float>();
    float* Y = y->data<float>();
    // Units of an image's block of channels and a part of its pixels: a
    // squeeze-and-excitation's pool is one image of 16 to 1000 channels.
    // Where there is work to share, the pixels split so that the units
    // come to a multiple of the cores (MobileNetV3's 28x28 pools of 72
    // and 120 channels on two cores: 17-19 us to 8-10). Not the channels
    // further: two units reading parts of each pixel's channels both read
    // all its cache lines, and gained nothing. The parts' double sums are
    // added in part order.
    constexpr int64_t kShareElements = 32 << 10;
    const int64_t width = std::min(c, kChannelBlock), blocks = (c + width - 1) / width;
    const int64_t cores = tbb::this_task_arena::max_concurrency();
    const int64_t parts =
        pixels * width >= kShareElements ? std::min(cores / std::gcd(n * blocks, cores), pixels) : int64_t{1};
    // An empty image averages to 0, as in the NCHW kernel.
    auto mean = [pixels](double sum) {
      return pixels > 0 ? static_cast<float>(sum / static_cast<double>(pixels)) : 0.f;
    };
    auto sum_unit = [&](int64_t t, double* sum) {
      const int64_t part = t % parts, block = t / parts % blocks, img = t / parts / blocks;
      const int64_t c0 = block * width, p0 = pixels * part / parts, p1 = pixels * (part + 1) / parts;
      channel_sums(X + (img * pixels + p0) * c + c0, p1 - p0, c, std::min(width, c - c0), sum);
    };
    if (parts == 1) {
      tbb::parallel_for(int64_t{0}, n * blocks, [&](int64_t t) {
        double sum[kChannelBlock];
        sum_unit(t, sum);
        const int64_t first = t / blocks * c + t % blocks * width;
        for (int64_t i = 0; i < std::min(width, c - t % blocks * width); ++i) Y[first + i] = mean(sum[i]);
      });
      return OkStatus();
    }
    std::vector<double> sums(static_cast<size_t>(n * parts * c));
    tbb::parallel_for(int64_t{0}, n * blocks * parts, [&](int64_t t) {
      const int64_t part = t % parts, img = t / parts / blocks;
      sum_unit(t, sums.data() + (img * parts + part) * c + t / parts % blocks * width);
    });
    for (int64_t img = 0; img < n; ++img)
      for (int64_t i = 0; i < c; ++i) {
        double sum = 0;
        for (int64_t part = 0; part < parts; ++part) sum += sums[static_cast<size_t>((img * parts + part) * c + i)];
        Y[img * c + i] = mean(sum);
      }
    return OkStatus();
  }
};

}  // namespace

void register_nhwc_pool_kernels(KernelRegistry& r) {
  for (const char* op : {kNhwcMaxPool, kNhwcGlobalAveragePool}) {
    KernelDef def;
    def.domain = kSwitchyardDomain;
    def.op = op;
    def.types = {DataType::kFloat};
    def.factory = op == kNhwcMaxPool ? make_kernel<NhwcMaxPoolKernel> : make_kernel<NhwcGlobalAveragePoolKernel>;
    r.add(std::move(def));
  }
}

}  // namespace sy::nn
