// NhwcConv on the CPU (ir/channels_last.h): a float 2-D convolution, group
// 1 or depthwise, on channels-last X, Z and Y, through oneDNN's kernels for
// that layout (brgconv, brdgmm for depthwise ones), which read and write
// the tensors in place.
//
// oneDNN runs single-threaded here (use_single_threaded_omp), as for Conv,
// so the work is split over the device's cores into units of one image and
// a band of output rows: in channels-last order both a band's output and
// the input rows under it are one dense block, so each unit is a plain
// oneDNN convolution with pads of its own at the image's top and bottom
// edges. Images times bands come to a multiple of the cores (one image on
// two cores: two bands; three images: six). Where the weights are large
// (kSplitChannelsBytes), the units split the output channels instead; as
// brgconv takes no strided Y, each writes its slice into a buffer of its
// own, which is then copied into place (a few pixels by its channels).
//
// The residual, the clamp and HardSwish ride in oneDNN's post-ops (sum,
// clip, hardswish), in registers: a pass of our own over each finished
// band cost 0.6 ms of a MobileNetV2's 3.8. oneDNN's clip turns a NaN into
// a bound where the Clip node keeps it, so with a clamp the post-ops are
// used only where no NaN or infinity can arise: inputs, residual and bias
// finite and small enough that no sum overflows (all_within). Elsewhere
// the band runs without them and is finished by finish(), NaN kept. Both
// give the same bits: oneDNN adds the residual to conv + bias, as the Add
// node did. (HardSwish's post-op rounds its own way, within an ulp or
// two.)
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <oneapi/dnnl/dnnl.hpp>
#include <utility>
#include <vector>

#include "devices/cpu/kernels/dnnl_primitive.h"
#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/target_clones.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/host_allocator.h"
#include "ir/op_fusion.h"

namespace sy::nn {
namespace {

using dnnl::memory;

// Output rows [r0, r1) and channels [m0, m0 + mc) of image n, and the
// input rows [i0, i1) under them with the pads that the window reaches
// past the image's edges.
struct Band {
  int64_t n = 0, r0 = 0, r1 = 0, i0 = 0, i1 = 0, pad_t = 0, pad_b = 0, m0 = 0, mc = 0;
};

// The output rows of each image split into `bands` equal parts, and the
// input rows each needs. Empty if a band's input lies wholly in the pads,
// which oneDNN cannot express.
std::vector<Band> split_rows(const ConvShape& s, int64_t bands) {
  const Window& w = s.w;  // 2-D: H and W are the last two of the three
  const int64_t oh = w.out[1], h = w.in[1], ext = (w.k[1] - 1) * w.dil[1] + 1;
  std::vector<Band> out;
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t p = 0; p < bands; ++p) {
      Band b;
      b.n = n;
      b.r0 = oh * p / bands;
      b.r1 = oh * (p + 1) / bands;
      if (b.r0 == b.r1) continue;
      const int64_t first = b.r0 * w.stride[1] - w.pad_b[1], end = (b.r1 - 1) * w.stride[1] - w.pad_b[1] + ext;
      b.i0 = std::max<int64_t>(first, 0);
      b.i1 = std::min(end, h);
      if (b.i0 >= b.i1) return {};
      b.pad_t = b.i0 - first;
      b.pad_b = end - b.i1;
      b.mc = s.M;
      out.push_back(b);
    }
  return out;
}

// Weights from which a convolution of group 1 splits its output channels
// between the cores rather than its rows: each core then reads half the
// weights, not all. ResNet's 3x3 layers of 512 channels at 7x7 (9.4 MB of
// weights): 1000 us by rows, 800 by channels; below a few MB it made no
// difference past the noise.
constexpr int64_t kSplitChannelsBytes = int64_t{4} << 20;

// All rows of each image, its output channels split into `parts` runs of
// whole 16-channel blocks (oneDNN's AVX-512 width).
std::vector<Band> split_channels(const ConvShape& s, int64_t parts) {
  std::vector<Band> out;
  const int64_t blocks = (s.M + 15) / 16;
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t p = 0; p < parts; ++p) {
      Band b;
      b.n = n;
      b.r1 = s.w.out[1];
      b.i1 = s.w.in[1];
      b.pad_t = s.w.pad_b[1];
      b.pad_b = s.w.pad_e[1];
      b.m0 = std::min(s.M, blocks * p / parts * 16);
      b.mc = std::min(s.M, blocks * (p + 1) / parts * 16) - b.m0;
      if (b.mc > 0) out.push_back(b);
    }
  return out;
}

// Whether some output row (axis 1) or column (axis 2) of window `w`
// has every tap in the pads: past a stride or between dilated taps, not
// only where the pads are as wide as the window. A window that starts in
// the input reads it at its first tap, and one that starts past it reads
// none, so only those that start in the leading pads are walked.
bool window_misses_input(const Window& w, int axis) {
  const int64_t out = w.out[axis], stride = w.stride[axis], pad = w.pad_b[axis], in = w.in[axis];
  if (out > 0 && (out - 1) * stride - pad >= in) return true;
  for (int64_t o = 0; o < out && o * stride < pad; ++o) {
    bool hit = false;
    for (int64_t k = 0; k < w.k[axis] && !hit; ++k) {
      const int64_t i = o * stride - pad + k * w.dil[axis];
      hit = i >= 0 && i < in;
    }
    if (!hit) return true;
  }
  return false;
}

// Bound on |x| * sum |w|, |b| and |z| under which conv + b + z has no
// infinity or NaN anywhere in its sums: 3e37 at most, below FLT_MAX.
constexpr float kSafe = 1e37f;

// Whether |p[i]| <= limit for every i < n; false at a NaN.
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
bool all_within(const float* p, int64_t n, float limit) {
  constexpr int64_t kChunk = 4096;  // vectorised within, an early exit between
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t e = std::min(n, i + kChunk);
    int bad = 0;
    for (int64_t k = i; k < e; ++k) bad |= !(std::fabs(p[k]) <= limit);
    if (bad) return false;
  }
  return true;
}

// The largest sum of |w| over one output channel's weights, or infinity
// if W has a non-finite value.
float weight_bound(const float* w, int64_t channels, int64_t per_channel) {
  float most = 0;
  for (int64_t m = 0; m < channels; ++m) {
    float sum = 0;
    for (int64_t i = 0; i < per_channel; ++i) sum += std::fabs(w[m * per_channel + i]);
    if (!(sum <= kSafe)) return std::numeric_limits<float>::infinity();
    most = std::max(most, sum);
  }
  return most;
}

class NhwcConvKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    group_ = node.attr_int("group", 1);
    if (group_ <= 0) return InvalidArgument(node.describe(), ": group must be positive");
    // HardSwish only here: ChannelsLast folds it into NhwcConv, whose
    // kernels are the CPU's alone; FusedConv's activations are the clamps.
    const std::string act = node.attr_string("activation", "");
    hard_swish_ = act == "HardSwish";
    if (!hard_swish_ && !activation_.parse(node).ok())
      return InvalidArgument(node.describe(),
                             ": activation must be Relu, Clip with activation_params (min, max), or HardSwish; got '",
                             act, "'");
    return attrs_.parse(node);
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& wt = ctx.input(1);
    if (x.dtype() != DataType::kFloat || wt.dtype() != DataType::kFloat)
      return InvalidArgument("NhwcConv: X and W must be float, got ", x.describe(), " and ", wt.describe());
    if (x.rank() != 4 || wt.rank() != 4)
      return InvalidArgument("NhwcConv: X [N, H, W, C] and W [M, C/group, kH, kW] must have rank 4, got ", x.describe(),
                             " and ", wt.describe());
    ASSIGN_OR_RETURN(ConvShape s, conv_shape(attrs_, group_, Dims{x.dim(0), x.dim(3), x.dim(1), x.dim(2)}, wt.dims(),
                                             "NhwcConv (X as NCHW)"));
    if (group_ != 1 && !(group_ == s.C && s.M == s.C))
      return InvalidArgument("NhwcConv: group must be 1 or the channel count (depthwise), got ", group_, " for ", s.C,
                             " channels");
    const Dims out{s.N, s.w.out[1], s.w.out[2], s.M};
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    if (b && (b->dtype() != DataType::kFloat || b->rank() != 1 || b->numel() != s.M))
      return InvalidArgument("NhwcConv: bias must be float and 1-D of size ", s.M, ", got ", b->describe());
    const Tensor* z = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    if (z && (z->dtype() != DataType::kFloat || z->dims() != out))
      return InvalidArgument("NhwcConv: the residual Z must be float and shaped as the output, ", out.to_string(),
                             ", got ", z->describe());
    // Where no later node reads Z, Y takes over its buffer: the residual's
    // sum post-op then adds to what is already in place, with no copy.
    ASSIGN_OR_RETURN(Tensor * y, z ? ctx.allocate_output_over(0, 3, DataType::kFloat, out)
                                   : ctx.allocate_output(0, DataType::kFloat, out));
    if (y->numel() == 0) return OkStatus();
    const bool in_place = z && y->raw() == z->raw();
    const float* bias = b ? b->data<float>() : nullptr;
    const float* res = z ? z->data<float>() : nullptr;
    // Units per image: images times units a multiple of the cores.
    const int64_t cores = tbb::this_task_arena::max_concurrency();
    const int64_t parts = cores / std::gcd(s.N, cores);
    // By channels where the weights are large, or the rows too few to go
    // round and the weights not tiny (a squeeze-and-excitation's 1x1
    // image: 960 to 240 channels, 40 us on one core, 25 on two; 120 to 32,
    // 5 us on one, 9 on two).
    const int64_t weight_bytes = wt.numel() * static_cast<int64_t>(sizeof(float));
    const bool by_channels = parts > 1 && group_ == 1 && s.M >= 32 &&
                             (weight_bytes >= kSplitChannelsBytes || (s.w.out[1] < parts && weight_bytes >= 64 << 10));
    std::vector<Band> units = by_channels ? split_channels(s, parts) : split_rows(s, std::min(parts, s.w.out[1]));
    if (units.empty()) units = split_rows(s, 1);
    const Outcome done = s.C == 0 || units.empty()
                             ? Outcome::kDeclined
                             : run_dnnl(x.data<float>(), wt.data<float>(), bias, res, y->data<float>(), s, units,
                                        ctx.input_constant(1), in_place);
    if (done == Outcome::kDone) return OkStatus();
    if (done == Outcome::kFailedPartway && in_place)  // Z is partly written over: nothing to start again from
      return ResourceExhausted(
          "NhwcConv: oneDNN failed partway through (out of memory?), with the residual's buffer "
          "already partly overwritten");
    BufferRef z_copy;  // the reference loop writes Y's rows before it reads Z's
    if (in_place) {
      ASSIGN_OR_RETURN(z_copy, HostAllocator::host().allocate(z->nbytes()));
      std::memcpy(z_copy->data, res, z->nbytes());
      res = static_cast<const float*>(z_copy->data);
    }
    reference(x.data<float>(), wt.data<float>(), bias, res, y->data<float>(), s);
    return OkStatus();
  }

 private:
  // A oneDNN convolution for one band geometry.
  struct Prim {
    dnnl::convolution_forward::primitive_desc pd;
    DnnlPrimitive prim;
  };

  // The primitive for bands of `band`'s geometry, made on first use.
  // With `fused`, the residual (if `residual`) and the clamp are its
  // post-ops.
  std::shared_ptr<const Prim> prim(const ConvShape& s, const Band& band, bool bias, bool fused, bool residual) const {
    const int64_t rows_in = band.i1 - band.i0, rows_out = band.r1 - band.r0;
    std::vector<int64_t> key = {s.C,      s.M,        band.mc,    s.w.k[1],   s.w.k[2], rows_in, s.w.in[2],
                                rows_out, s.w.out[2], band.pad_t, band.pad_b, bias,     fused,   residual};
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = prims_.find(key); it != prims_.end()) return it->second;
    const auto f32 = memory::data_type::f32;
    const auto nhwc = memory::format_tag::nhwc;
    const Window& w = s.w;
    const int64_t mc = band.mc;  // all of M but where channels are split (group 1)
    memory::dims wei = group_ == 1 ? memory::dims{mc, s.C, w.k[1], w.k[2]} : memory::dims{mc, 1, 1, w.k[1], w.k[2]};
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                      memory::desc({1, s.C, rows_in, w.in[2]}, f32, nhwc),
                                      memory::desc(wei, f32, memory::format_tag::any),
                                      bias ? memory::desc({mc}, f32, memory::format_tag::a) : memory::desc(),
                                      memory::desc({1, mc, rows_out, w.out[2]}, f32, nhwc), {w.stride[1], w.stride[2]},
                                      {w.dil[1] - 1, w.dil[2] - 1}, {band.pad_t, w.pad_b[2]}, {band.pad_b, w.pad_e[2]});
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (fused) {
      dnnl::post_ops ops;
      if (residual) ops.append_sum(1.f);
      if (activation_.on) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip_v2, activation_.lo, activation_.hi);
      if (hard_swish_) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_hardswish, 0.f, 0.f);
      attr.set_post_ops(ops);
    }
    auto made = std::make_shared<Prim>();
    made->pd = dnnl::convolution_forward::primitive_desc(d, attr, cpu_engine());
    made->prim = DnnlPrimitive(made->pd);
    if (prims_.size() >= kMaxCached) prims_.clear();
    prims_[key] = made;
    return made;
  }

  // Reordered weights: output channels [m0, m0 + mc) of W in layout md.
  // Shared, so that a call still running keeps its own when another
  // starts the cache over.
  struct Weights {
    int64_t m0;
    memory::desc md;
    std::shared_ptr<BufferRef> buf;
  };

  // Output channels [m0, m0 + mc) of W in the layout `md` asks for:
  // reordered once and kept where W is constant, else into `scratch` on
  // every call.
  std::shared_ptr<BufferRef> weights(const float* w, int64_t m0, int64_t mc, const memory::desc& md, const ConvShape& s,
                                     bool constant, std::vector<Weights>& scratch) const {
    std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
    if (constant) lock.lock();
    auto& list = constant ? weights_ : scratch;
    for (const Weights& k : list)
      if (k.m0 == m0 && k.md == md) return k.buf;
    auto buf = HostAllocator::host().allocate(md.get_size());
    if (!buf.ok()) return nullptr;
    const auto tag = group_ == 1 ? memory::format_tag::oihw : memory::format_tag::goihw;
    const int64_t per_channel = (group_ == 1 ? s.C : 1) * s.w.k[1] * s.w.k[2];
    memory::dims plain =
        group_ == 1 ? memory::dims{mc, s.C, s.w.k[1], s.w.k[2]} : memory::dims{mc, 1, 1, s.w.k[1], s.w.k[2]};
    memory from({plain, memory::data_type::f32, tag}, cpu_engine(), const_cast<float*>(w) + m0 * per_channel);
    memory to(md, cpu_engine(), (*buf)->data);
    dnnl::stream strm(cpu_engine());
    dnnl::reorder(from, to).execute(strm, from, to);
    strm.wait();
    if (constant && list.size() >= kMaxCached) list.clear();
    list.push_back({m0, md, std::make_shared<BufferRef>(std::move(*buf))});
    return list.back().buf;
  }

  // How run_dnnl went. Declined: oneDNN would not make the primitives, or
  // memory ran out, before anything was written. Failed partway: memory ran
  // out or oneDNN failed while the units ran, y partly written.
  enum class Outcome { kDone, kDeclined, kFailedPartway };

  // The bands through oneDNN. With `in_place`, y is z's buffer.
  Outcome run_dnnl(const float* x, const float* w, const float* b, const float* z, float* y, const ConvShape& s,
                   const std::vector<Band>& units, bool constant, bool in_place) const {
    // Before the primitives are made: oneDNN sizes a primitive's thread
    // team when it makes it (blocked_conv.cc).
    use_single_threaded_omp();
    try {
      const bool epilogue = activation_.on || hard_swish_ || z;  // a residual or an activation to apply
      // The clamps need the guard (kSafe): oneDNN's clip turns a NaN into a
      // bound. The residual's sum, and HardSwish (x * relu6(x + 3) / 6,
      // which keeps a NaN and the infinities as ONNX's formula does), give
      // what finish() gives for any input, so every band takes them.
      const bool guarded = activation_.on;
      float x_limit = 0;  // |x| under which a guarded band may take the post-ops; 0: none may
      if (epilogue && guarded && !std::isnan(activation_.lo) && !std::isnan(activation_.hi) &&
          (!b || all_within(b, s.M, kSafe))) {
        const float wb = weight_bound(w, s, constant);
        if (wb <= kSafe) x_limit = kSafe / std::max(wb, 1.f);
      }
      // oneDNN 2.6's brgconv gets the post-ops wrong for output rows or
      // columns whose window lies wholly in the pads: the sum left out, a
      // crash with a clip. Those convolutions are finished by finish().
      const bool padding_only = window_misses_input(s.w, 1) || window_misses_input(s.w, 2);
      const bool any_fused = epilogue && !padding_only && (!guarded || x_limit > 0), any_exact = !any_fused || guarded;
      // Per band, its primitive and weights with the post-ops, and without.
      struct Variant {
        std::shared_ptr<const Prim> prim;
        std::shared_ptr<BufferRef> weights;
      };
      std::vector<Variant> exact(any_exact ? units.size() : 0), fused(any_fused ? units.size() : 0);
      std::vector<Weights> scratch_weights;
      auto make = [&](const Band& u, bool with_post_ops, Variant& v) {
        v.prim = prim(s, u, b != nullptr, with_post_ops, z != nullptr);
        v.weights = weights(w, u.m0, u.mc, v.prim->pd.weights_desc(), s, constant, scratch_weights);
        return v.weights != nullptr;
      };
      for (size_t i = 0; i < units.size(); ++i)
        if ((any_exact && !make(units[i], false, exact[i])) || (any_fused && !make(units[i], true, fused[i])))
          return Outcome::kDeclined;
      const int64_t in_row = s.w.in[2] * s.C, out_row = s.w.out[2] * s.M;
      std::atomic<bool> ok{true};
      tbb::parallel_for(size_t{0}, units.size(), [&](size_t i) {
        try {
          use_single_threaded_omp();
          const Band& u = units[i];
          const float* xb = x + (u.n * s.w.in[1] + u.i0) * in_row;
          const int64_t pixels = (u.r1 - u.r0) * s.w.out[2], at = (u.n * s.w.out[1] + u.r0) * out_row;
          // A slice of the channels is written dense into a buffer of its
          // own (a few pixels by its channels), then into its place in y;
          // the buffer starts as Z's pixels for those channels, which the
          // sum post-op adds to. Whole rows are written in place, where Z
          // already is if y took over its buffer.
          const bool slice = u.mc < s.M;
          BufferRef part;
          float* dst = y + at;
          if (slice) {
            auto buf = HostAllocator::host().allocate(static_cast<size_t>(pixels * u.mc) * sizeof(float));
            if (!buf.ok()) return ok.store(false);
            part = std::move(*buf);
            dst = static_cast<float*>(part->data);
            if (z) tensor_ops::strided_copy(DataType::kFloat, dst, z + at + u.m0, Dims{pixels, u.mc}, Dims{s.M, 1});
          }
          // Z as this unit reads it: other units may be writing the other
          // channels of the same pixels in y, which is Z in place.
          const float* zu = slice ? dst : z ? z + at : nullptr;
          const int64_t zn = pixels * u.mc;
          const bool post_ops =
              any_fused &&
              (!guarded || (all_within(xb, (u.i1 - u.i0) * in_row, x_limit) && (!z || all_within(zu, zn, kSafe))));
          const Variant& v = post_ops ? fused[i] : exact[i];
          auto scratch = dnnl_scratchpad(v.prim->pd.scratchpad_desc().get_size());
          if (!scratch.ok()) return ok.store(false);
          BufferRef z_band;  // in place without the sum post-op: Z's band, which the convolution writes over
          if (z && !slice) {
            if (post_ops && !in_place) {
              std::memcpy(dst, zu, static_cast<size_t>(zn) * sizeof(float));
            } else if (!post_ops && in_place) {
              auto buf = HostAllocator::host().allocate(static_cast<size_t>(zn) * sizeof(float));
              if (!buf.ok()) return ok.store(false);
              z_band = std::move(*buf);
              std::memcpy(z_band->data, zu, static_cast<size_t>(zn) * sizeof(float));
              zu = static_cast<const float*>(z_band->data);
            }
          }
          v.prim->prim.execute({{DNNL_ARG_SRC, xb},
                                {DNNL_ARG_WEIGHTS, (*v.weights)->data},
                                {DNNL_ARG_DST, dst},
                                {DNNL_ARG_SCRATCHPAD, (*scratch)->data},
                                {DNNL_ARG_BIAS, b ? b + u.m0 : nullptr}});
          if (!slice) {
            if (!post_ops && epilogue) finish(dst, zu, zn);
            return;
          }
          // Finished in the buffer, Z read from its place before y's
          // channels there are written.
          for (int64_t p = 0; p < pixels; ++p) {
            float* row = dst + p * u.mc;
            if (!post_ops && epilogue) finish(row, z ? z + at + p * s.M + u.m0 : nullptr, u.mc);
            std::memcpy(y + at + p * s.M + u.m0, row, static_cast<size_t>(u.mc) * sizeof(float));
          }
        } catch (const dnnl::error&) {
          ok.store(false);
        }
      });
      return ok.load() ? Outcome::kDone : Outcome::kFailedPartway;
    } catch (const dnnl::error&) {
      return Outcome::kDeclined;  // making a primitive or reordering weights: before any unit ran
    }
  }

  // weight_bound() of W, kept where W is constant.
  float weight_bound(const float* w, const ConvShape& s, bool constant) const {
    const int64_t per_channel = (group_ == 1 ? s.C : 1) * s.w.k[1] * s.w.k[2];
    if (!constant) return nn::weight_bound(w, s.M, per_channel);
    std::lock_guard<std::mutex> lock(mu_);
    if (weight_bound_ < 0) weight_bound_ = nn::weight_bound(w, s.M, per_channel);
    return weight_bound_;
  }

  // y[0, n) += z[0, n) (none if z is null), then the activation: in the
  // float order of the Add node and the activation's node fused.
  void finish(float* y, const float* z, int64_t n) const {
    activation_.apply(y, z, n);
    if (hard_swish_)
      for (int64_t i = 0; i < n; ++i) y[i] = y[i] * std::max(0.f, std::min(1.f, y[i] / 6.f + 0.5f));  // HardSwish's
  }

  // The convolution as a direct loop: for what oneDNN declines (no input
  // channels, bands wholly in the pads) and as the tests' reference.
  void reference(const float* x, const float* w, const float* b, const float* z, float* y, const ConvShape& s) const {
    const Window& win = s.w;
    const int64_t h = win.in[1], wd = win.in[2], oh = win.out[1], ow = win.out[2];
    const int64_t cg = group_ == 1 ? s.C : 1;
    tbb::parallel_for(int64_t{0}, s.N * oh, [&](int64_t row) {
      const int64_t n = row / oh, r = row % oh;
      for (int64_t c = 0; c < ow; ++c)
        for (int64_t m = 0; m < s.M; ++m) {
          float acc = b ? b[m] : 0.f;
          const int64_t c0 = group_ == 1 ? 0 : m;  // depthwise: channel m only
          for (int64_t kh = 0; kh < win.k[1]; ++kh) {
            const int64_t ih = r * win.stride[1] - win.pad_b[1] + kh * win.dil[1];
            if (ih < 0 || ih >= h) continue;
            for (int64_t kw = 0; kw < win.k[2]; ++kw) {
              const int64_t iw = c * win.stride[2] - win.pad_b[2] + kw * win.dil[2];
              if (iw < 0 || iw >= wd) continue;
              const float* px = x + ((n * h + ih) * wd + iw) * s.C + c0;
              for (int64_t k = 0; k < cg; ++k) acc += px[k] * w[((m * cg + k) * win.k[1] + kh) * win.k[2] + kw];
            }
          }
          y[((n * oh + r) * ow + c) * s.M + m] = acc;
        }
      const int64_t at = (n * oh + r) * ow * s.M;
      finish(y + at, z ? z + at : nullptr, ow * s.M);
    });
  }

  static constexpr size_t kMaxCached = 64;  // primitives, or weight layouts; past it the cache starts over

  WindowAttrs attrs_;
  int64_t group_ = 1;
  ConvActivation activation_;
  bool hard_swish_ = false;  // activation "HardSwish" (activation_ is then off)
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Prim>> prims_;
  mutable std::vector<Weights> weights_;
  mutable float weight_bound_ = -1;  // of constant W; -1: not yet known
};

}  // namespace

void register_nhwc_conv_kernel(KernelRegistry& r) {
  KernelDef def;
  def.domain = kSwitchyardDomain;
  def.op = kNhwcConv;
  def.types = {DataType::kFloat};
  def.factory = make_kernel<NhwcConvKernel>;
  r.add(std::move(def));
}

}  // namespace sy::nn
