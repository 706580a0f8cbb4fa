#include "devices/cpu/kernels/blocked_conv.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <oneapi/dnnl/dnnl.hpp>
#include <string_view>

#include "devices/cpu/kernels/dnnl_primitive.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/host_allocator.h"

namespace sy::nn {

using dnnl::memory;

struct BlockedConv::Part {
  dnnl::convolution_forward::primitive_desc pd;
  DnnlPrimitive prim;
  memory::desc src_plain, dst_plain;  // this part's slices of x and y in NCHW
  // From src_plain to the primitive's layout and from its layout to
  // dst_plain, where the two differ: by our own transposes where that
  // layout is channels-last (to_channels_last, to_planar), else by oneDNN.
  bool reorder_src = false, reorder_dst = false;
  bool src_nxc = false, dst_nxc = false;
  dnnl::reorder src_in, dst_out;
  int64_t m0 = 0;                      // the part's first output channel
  std::shared_ptr<BufferRef> weights;  // pd.weights_desc(), shared by parts with the same channels
};

namespace {

constexpr int64_t kChannelBlock = 16;  // oneDNN's AVX-512 channel block
constexpr size_t kMaxParts = 16;       // per kernel; a new input shape beyond it starts over

// The plain (NCHW-like) tag of a spatial rank.
memory::format_tag plain_tag(int nsp, bool weights) {
  using tag = memory::format_tag;
  if (weights) return nsp == 1 ? tag::oiw : nsp == 2 ? tag::oihw : tag::oidhw;
  return nsp == 1 ? tag::ncw : nsp == 2 ? tag::nchw : tag::ncdhw;
}

// The channels-last tag of a spatial rank: brgconv's layout on AVX-512.
memory::format_tag channels_last_tag(int nsp) {
  using tag = memory::format_tag;
  return nsp == 1 ? tag::nwc : nsp == 2 ? tag::nhwc : tag::ndhwc;
}

// nb images of `channels` planes of `pixels` between planar (NCHW) and
// channels-last (NHWC) order: a transpose per image in
// tensor_ops::strided_copy's tiles over all cores. oneDNN's reorders for
// the same took 2-4 times as long on one core ([1, 64, 56, 56] to NHWC:
// 50 us in a loop, about 100 in a network, against 15 here), and the
// input's ran before the parts could start.
void to_channels_last(const float* x, int64_t nb, int64_t channels, int64_t pixels, float* out) {
  tensor_ops::strided_copy(DataType::kFloat, out, x, Dims{nb, pixels, channels}, Dims{channels * pixels, 1, pixels});
}

// The other way, one image at a time into the `image_stride` apart planes
// of y, each finished (residual z, clamp) while it is still in the caches.
void to_planar(const float* in, int64_t nb, int64_t channels, int64_t pixels, float* y, const float* z,
               int64_t image_stride, const ConvActivation& act) {
  for (int64_t n = 0; n < nb; ++n) {
    float* dst = y + n * image_stride;
    tensor_ops::strided_copy(DataType::kFloat, dst, in + n * pixels * channels, Dims{channels, pixels},
                             Dims{1, channels});
    act.apply(dst, z ? z + n * image_stride : nullptr, channels * pixels);
  }
}

}  // namespace

std::shared_ptr<const BlockedConv::Part> BlockedConv::part(const float* w, const ConvShape& s, int64_t nb,
                                                           int64_t m0, int64_t mc, bool bias) const {
  const int nsp = s.w.nsp;
  const DnnlWindow dw = dnnl_window(s.w);
  memory::dims src{nb, s.C}, dst{nb, mc}, wei{mc, s.C};
  src.insert(src.end(), dw.in.begin(), dw.in.end());
  dst.insert(dst.end(), dw.out.begin(), dw.out.end());
  wei.insert(wei.end(), dw.k.begin(), dw.k.end());
  std::vector<int64_t> key = src;
  for (const auto* v : {&dw.k, &dw.strides, &dw.dil, &dw.pad_b, &dw.pad_e}) key.insert(key.end(), v->begin(), v->end());
  key.push_back(m0);
  key.push_back(mc);
  key.push_back(s.M);
  key.push_back(bias ? 1 : 0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = parts_.find(key);
    if (it != parts_.end()) return it->second;
  }
  const auto f32 = memory::data_type::f32;
  const auto any = memory::format_tag::any;
  auto made = std::make_shared<Part>();
  made->m0 = m0;
  made->src_plain = memory::desc(src, f32, plain_tag(nsp, false));
  // Channels [m0, m0 + mc) of nb images of y: dense for one image, strided
  // by the whole image for several.
  memory::dims dst_strides(dst.size(), 1);
  for (size_t i = dst.size() - 1; i > 1; --i) dst_strides[i - 1] = dst_strides[i] * dst[i];
  dst_strides[0] = s.M * s.w.out_size();
  made->dst_plain = memory::desc(dst, f32, dst_strides);
  memory::desc bias_md = bias ? memory::desc({mc}, f32, memory::format_tag::a) : memory::desc();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto make = [&](memory::format_tag src_tag) {
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                      memory::desc(src, f32, src_tag), memory::desc(wei, f32, any), bias_md,
                                      memory::desc(dst, f32, any), dw.strides, dw.dil, dw.pad_b, dw.pad_e);
    return dnnl::convolution_forward::primitive_desc(d, attr, cpu_engine());
  };
  // A few input channels: oneDNN's direct JIT kernel reads them planar,
  // where the layout it picks itself (channels-last) costs a transpose of
  // a wide, shallow input (the 7x7/2 stem [1, 3, 224, 224]: 525 us against
  // 557; [1, 4, 224, 224] 3x3/2: 100 against 155). Not where only a GEMM
  // or a reference kernel would take planar input.
  if (s.C < kChannelBlock) {
    made->pd = make(plain_tag(nsp, false));
    if (std::string_view(made->pd.impl_info_str()).substr(0, 4) != "jit:") made->pd = make(any);
  } else {
    made->pd = make(any);
  }
  made->prim = DnnlPrimitive(made->pd);
  made->reorder_src = made->pd.src_desc() != made->src_plain;
  made->reorder_dst = made->pd.dst_desc() != made->dst_plain;
  // Channels-last only where it differs from planar: for a one-pixel image
  // the two are the same bytes, and oneDNN reads and writes y in place.
  made->src_nxc = made->reorder_src && made->pd.src_desc() == memory::desc(src, f32, channels_last_tag(nsp));
  made->dst_nxc = made->reorder_dst && made->pd.dst_desc() == memory::desc(dst, f32, channels_last_tag(nsp));
  if (made->reorder_src && !made->src_nxc)
    made->src_in = dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), made->src_plain, cpu_engine(),
                                                               made->pd.src_desc()));
  if (made->reorder_dst && !made->dst_nxc)
    made->dst_out = dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), made->pd.dst_desc(), cpu_engine(),
                                                                made->dst_plain));

  std::lock_guard<std::mutex> lock(mu_);
  // Parts of the same channels (a batch split by images) share the weights.
  for (const auto& [k, p] : parts_)
    if (p->m0 == m0 && p->pd.weights_desc() == made->pd.weights_desc()) made->weights = p->weights;
  if (!made->weights) {
    auto buf = HostAllocator::host().allocate(made->pd.weights_desc().get_size());
    if (!buf.ok()) return nullptr;
    made->weights = std::make_shared<BufferRef>(std::move(*buf));
    memory plain({wei, f32, plain_tag(nsp, true)}, cpu_engine(), const_cast<float*>(w) + m0 * (s.C * s.w.k_size()));
    memory blocked(made->pd.weights_desc(), cpu_engine(), (*made->weights)->data);
    dnnl::stream strm(cpu_engine());
    dnnl::reorder(plain, blocked).execute(strm, plain, blocked);
    strm.wait();
  }
  if (parts_.size() >= kMaxParts) parts_.clear();
  parts_[key] = made;
  return made;
}

bool BlockedConv::run(const float* x, const float* w, const float* b, const float* z, float* y, const ConvShape& s,
                      const ConvActivation& act) const {
  const int64_t cores = tbb::this_task_arena::max_concurrency();
  // Images in equal shares if they go round the cores evenly, else all
  // images and the output channels in whole blocks per part.
  const bool by_channels = s.N % cores != 0;
  int64_t per_part = 0, count = 0;
  if (by_channels) {
    const int64_t blocks = (s.M + kChannelBlock - 1) / kChannelBlock;
    per_part = (blocks + std::min(cores, blocks) - 1) / std::min(cores, blocks) * kChannelBlock;
    count = (s.M + per_part - 1) / per_part;
  } else {
    per_part = s.N / cores;
    count = cores;
  }
  // Before the primitives are made too: oneDNN sizes a primitive's thread
  // team when it makes it, and running it on fewer threads still starts
  // that team (36% of a [1, 64, 56, 56] 3x3 convolution spinning in libgomp).
  use_single_threaded_omp();
  try {
    std::vector<std::shared_ptr<const Part>> parts(static_cast<size_t>(count));
    for (int64_t p = 0; p < count; ++p) {
      const int64_t a = p * per_part, e = std::min(by_channels ? s.M : s.N, a + per_part);
      parts[p] = by_channels ? part(w, s, s.N, a, e - a, b != nullptr) : part(w, s, e - a, 0, s.M, b != nullptr);
      if (!parts[p]) return false;
    }
    dnnl::engine& eng = cpu_engine();
    // Parts by channels all read all of x: it is reordered once.
    BufferRef shared_src;
    if (by_channels && parts[0]->reorder_src) {
      for (const auto& p : parts)
        if (p->pd.src_desc() != parts[0]->pd.src_desc()) return false;
      auto buf = HostAllocator::host().allocate(parts[0]->pd.src_desc().get_size());
      if (!buf.ok()) return false;
      shared_src = std::move(*buf);
      if (parts[0]->src_nxc) {
        to_channels_last(x, s.N, s.C, s.w.in_size(), static_cast<float*>(shared_src->data));
      } else {
        dnnl::stream strm(eng);
        memory x_m(parts[0]->src_plain, eng, const_cast<float*>(x));
        memory src_m(parts[0]->pd.src_desc(), eng, shared_src->data);
        parts[0]->src_in.execute(strm, x_m, src_m);
        strm.wait();
      }
    }
    std::atomic<bool> ok{true};
    tbb::parallel_for(int64_t{0}, count, [&](int64_t p) {
      const int64_t n0 = by_channels ? 0 : p * per_part, m0 = by_channels ? p * per_part : 0;
      if (!run_part(*parts[p], x, b, z, y, s, n0, m0, shared_src, act)) ok.store(false);
    });
    return ok.load();
  } catch (const dnnl::error&) {
    return false;
  }
}

bool BlockedConv::run_part(const Part& part, const float* x, const float* b, const float* z, float* y,
                           const ConvShape& s, int64_t n0, int64_t m0, const BufferRef& shared_src,
                           const ConvActivation& act) {
  try {
    use_single_threaded_omp();
    const int64_t nb = part.dst_plain.dims()[0], mc = part.dst_plain.dims()[1], osz = s.w.out_size();
    const float* x0 = x + n0 * s.C * s.w.in_size();
    float* y0 = y + (n0 * s.M + m0) * osz;
    const float* z0 = z ? z + (n0 * s.M + m0) * osz : nullptr;
    auto scratch = dnnl_scratchpad(part.pd.scratchpad_desc().get_size());
    if (!scratch.ok()) return false;
    // dnnl::memory objects only for oneDNN's reorders; the convolution
    // takes pointers (DnnlPrimitive).
    dnnl::engine& eng = cpu_engine();
    dnnl::stream strm(eng);
    const void* src = x0;
    BufferRef src_buf, dst_buf;
    if (shared_src) {
      src = shared_src->data;
    } else if (part.reorder_src) {
      auto buf = HostAllocator::host().allocate(part.pd.src_desc().get_size());
      if (!buf.ok()) return false;
      src_buf = std::move(*buf);
      src = src_buf->data;
      if (part.src_nxc) {
        to_channels_last(x0, nb, s.C, s.w.in_size(), static_cast<float*>(src_buf->data));
      } else {
        memory from(part.src_plain, eng, const_cast<float*>(x0)), to(part.pd.src_desc(), eng, src_buf->data);
        part.src_in.execute(strm, from, to);
        strm.wait();
      }
    }
    void* dst = y0;
    if (part.reorder_dst) {
      auto buf = HostAllocator::host().allocate(part.pd.dst_desc().get_size());
      if (!buf.ok()) return false;
      dst_buf = std::move(*buf);
      dst = dst_buf->data;
    }
    part.prim.execute({{DNNL_ARG_SRC, src},
                       {DNNL_ARG_WEIGHTS, (*part.weights)->data},
                       {DNNL_ARG_DST, dst},
                       {DNNL_ARG_SCRATCHPAD, (*scratch)->data},
                       {DNNL_ARG_BIAS, b ? b + m0 : nullptr}});
    // Not oneDNN's eltwise post-op: its clip and relu turn a NaN into a
    // bound. Nor its sum post-op: the residual is added as the Add node
    // did, after the bias.
    if (part.dst_nxc) {
      to_planar(static_cast<float*>(dst_buf->data), nb, mc, osz, y0, z0, s.M * osz, act);
      return true;
    }
    if (part.reorder_dst) {
      memory from(part.pd.dst_desc(), eng, dst), to(part.dst_plain, eng, y0);
      part.dst_out.execute(strm, from, to);
      strm.wait();
    }
    for (int64_t n = 0; n < nb; ++n) act.apply(y0 + n * s.M * osz, z0 ? z0 + n * s.M * osz : nullptr, mc * osz);
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

}  // namespace sy::nn
