// CUDA Resize (opset 10+) and Upsample (7+), DepthToSpace and SpaceToDepth,
// and Hardmax. The CPU kernels are the reference (they pass the ONNX node
// tests): Resize's per-axis plan, output shape and scales are computed here
// on the host by the CPU kernel's own planner (devices/cpu/kernels/
// resize_plan.h), then uploaded as small tap tables that the device only
// gathers and sums (resize_launch.h). DepthToSpace and SpaceToDepth are the
// CPU's strided views (devices/cpu/kernels/depth_space.h) handed to the
// movement kernels' copy_view.
#include <cstring>
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/depth_space.h"
#include "devices/cpu/kernels/resize_plan.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/cpu/kernels/tensor_register.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/movement_common.h"
#include "devices/cuda/kernels/resize_launch.h"

namespace sy::cuda {
namespace {

using tensor_ops::kBit1;
using tensor_ops::kBit2;
using tensor_ops::kBit3;

using tensor_ops::ResizeAttrs;
using tensor_ops::ResizeAxisPlan;
using tensor_ops::ResizeMode;
using tensor_ops::ResizeSpec;
using tensor_ops::ResizeTarget;
using tensor_ops::resize_mode_name;

// ------------------------------------------------------ Resize on the device

// The plans as device tables, in one upload: [offsets][weights][outside].
struct HostTables {
  std::vector<int64_t> offsets;
  std::vector<double> weights;
  std::vector<uint8_t> outside;
};

Status run_resize(KernelContext& ctx, const ResizeAttrs& a, const Tensor& x, const ResizeTarget& target) {
  const Dims& out_dims = target.out_dims;
  const size_t r = x.rank();
  const DataType dt = x.dtype();
  const size_t es = dtype_size(dt);
  // Declines that need no plan come first, before anything is allocated or enqueued.
  if (dt == DataType::kString || es == 0 || es > 8)
    return Unimplemented("CUDA Resize: ", dtype_name(dt), " elements are not supported");
  if (a.mode != ResizeMode::kNearest && !resize_interp_supports(static_cast<int>(dt)))
    return Unimplemented("CUDA Resize: ", resize_mode_name(a.mode), " mode on ", dtype_name(dt), " runs on the CPU");
  if (r > static_cast<size_t>(kResizeMaxRank))
    return Unimplemented("CUDA Resize: rank ", r, " > ", kResizeMaxRank);

  // The output is allocated before the plan, as on the CPU: the device
  // refuses an output too large for it, and the plan's tables grow with the
  // output's dims. Should an axis below decline, the CPU fallback frees it.
  ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, dt, out_dims));
  if (out->numel() == 0) return OkStatus();
  if (x.numel() == 0) return InvalidArgument("Resize: cannot resize an empty input to a non-empty output");
  ASSIGN_OR_RETURN(const std::vector<ResizeAxisPlan> plans, tensor_ops::plan_resize_axes(a, x.dims(), target));

  ResizeMeta m;
  m.rank = static_cast<int32_t>(r);
  m.ntaps = tensor_ops::resize_taps(a.mode);
  const Dims in_strides = contiguous_strides(x.dims());
  HostTables h;
  int interp = 0;
  for (size_t k = 0; k < r; ++k) {
    const ResizeAxisPlan& p = plans[k];
    m.out_dims[k] = out_dims[k];
    m.in_strides[k] = in_strides[k];
    m.tap_begin[k] = -1;
    m.slot[k] = -1;
    m.outside_begin[k] = -1;
    if (p.any_outside) {
      m.outside_begin[k] = static_cast<int64_t>(h.outside.size());
      h.outside.insert(h.outside.end(), p.outside.begin(), p.outside.end());
    }
    // An identity axis reads coordinate c itself; the CPU skips its pass.
    if (p.identity) continue;
    if (a.mode != ResizeMode::kNearest) {
      if (interp == kResizeMaxInterpAxes)
        return Unimplemented("CUDA Resize: ", resize_mode_name(a.mode), " on more than ", kResizeMaxInterpAxes,
                             " resized axes runs on the CPU");
      m.slot[k] = interp;
      m.slot_tap_begin[interp] = static_cast<int64_t>(h.offsets.size());
      m.slot_ntaps[interp] = p.ntaps;
      // Antialiased downsampling widens this axis's filter: the kernel then
      // reads each slot's own count.
      if (p.ntaps != m.ntaps) m.ntaps = 0;
      ++interp;
      h.weights.insert(h.weights.end(), p.w.begin(), p.w.end());
    }
    m.tap_begin[k] = static_cast<int64_t>(h.offsets.size());
    for (int64_t i : p.idx) h.offsets.push_back(i * in_strides[k]);
  }
  m.interp_axes = interp;
  tensor_ops::ScalarValue ev = tensor_ops::scalar_from_double(dt, a.extrapolation);
  std::memcpy(&m.extrapolation, ev.bytes, es);

  ASSIGN_OR_RETURN(Launch l, current_launch(ctx));

  // One upload through the device's own host-to-device copy (on this
  // task's stream, staged through pinned memory when large), so the host
  // blob may go when compute() returns and the device copy is freed in
  // stream order after the kernel.
  const size_t off_bytes = h.offsets.size() * sizeof(int64_t);
  const size_t w_bytes = h.weights.size() * sizeof(double);
  const size_t total = off_bytes + w_bytes + h.outside.size();
  ResizeTables t;
  Tensor tables;
  if (total > 0) {
    ASSIGN_OR_RETURN(Tensor blob, Tensor::host(DataType::kUInt8, Dims{static_cast<int64_t>(total)}));
    auto* hb = static_cast<unsigned char*>(blob.raw());
    if (off_bytes) std::memcpy(hb, h.offsets.data(), off_bytes);
    if (w_bytes) std::memcpy(hb + off_bytes, h.weights.data(), w_bytes);
    if (!h.outside.empty()) std::memcpy(hb + off_bytes + w_bytes, h.outside.data(), h.outside.size());
    ASSIGN_OR_RETURN(tables, ctx.device().copy(blob, ctx.device().memory_space()));
    const auto* base = static_cast<const unsigned char*>(tables.raw());
    if (off_bytes) t.offsets = reinterpret_cast<const int64_t*>(base);
    if (w_bytes) t.weights = reinterpret_cast<const double*>(base + off_bytes);
    if (!h.outside.empty()) t.outside = base + off_bytes + w_bytes;
  }
  const int64_t n = out->numel();
  const bool index32 = fits_index32(n, x.numel());
  if (a.mode == ResizeMode::kNearest) {
    CUDA_RETURN_IF_ERROR(launch_resize_nearest(out->raw(), x.raw(), n, static_cast<int>(es), index32, m, t, l.stream));
  } else {
    CUDA_RETURN_IF_ERROR(
        launch_resize_interp(out->raw(), x.raw(), n, static_cast<int>(dt), index32, m, t, l.stream));
  }
  return OkStatus();
}

// One kernel for Resize and Upsample: ResizeSpec tells them apart.
class ResizeKernel final : public Kernel {
 public:
  Status init(const Node& node) override { return spec_.init(node); }

  // Thread-safe: reads only the spec fixed by init().
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(ResizeTarget t, spec_.target(ctx));
    return run_resize(ctx, spec_.attrs(), ctx.input(0), t);
  }

 private:
  ResizeSpec spec_;
};

// ------------------------------------------------ DepthToSpace / SpaceToDepth

// The CPU kernel's view of the input (depth_space.h), copied by the
// movement kernels' strided copy (which collapses it and may pick the tiled
// transpose).
// kToSpace: DepthToSpace; otherwise SpaceToDepth.
template <bool kToSpace>
class DepthSpaceKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, tensor_ops::parse_depth_space_attrs(node));
    return OkStatus();
  }
  // Thread-safe: reads only the attributes fixed by init().
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(tensor_ops::DepthSpaceView v, tensor_ops::depth_space_view(x.dims(), attrs_, kToSpace));
    const DataType dt = x.dtype();
    if (dt == DataType::kString || dtype_size(dt) == 0 || dtype_size(dt) > 8)
      return Unimplemented("CUDA ", kToSpace ? "DepthToSpace" : "SpaceToDepth", ": ", dtype_name(dt),
                           " elements are not supported");
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, dt, v.out_dims));
    return copy_view(l, dt, out->raw(), x.raw(), v.view, v.strides);
  }

 private:
  tensor_ops::DepthSpaceAttrs attrs_;
};

// ------------------------------------------------------------------ Hardmax

// Opset 13+: along one axis, X viewed as [outer, D, inner]. Before 13 the
// input is coerced to 2-D at the axis: [outer, rest, 1]. Axis rules are the
// CPU kernel's (reduction_softmax.cc).
class HardmaxKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    coerce_2d_ = node.opset < 13;
    axis_ = node.attr_int("axis", coerce_2d_ ? 1 : -1);
    return OkStatus();
  }

  // Thread-safe: reads only the attributes fixed by init().
  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument(node.describe(), ": missing input");
    const DataType dt = x.dtype();
    if (dt != DataType::kFloat && dt != DataType::kDouble && dt != DataType::kFloat16 && dt != DataType::kBFloat16)
      return Unimplemented("CUDA Hardmax: ", dtype_name(dt), " runs on the CPU");
    const int64_t rank = static_cast<int64_t>(x.rank());
    HardmaxMeta m;
    if (rank > 0) {
      // Before opset 13, axis == rank (one 2-D row per element) is tolerated
      // as older exporters wrote it; otherwise [-rank, rank - 1].
      int64_t axis = axis_;
      if (!(coerce_2d_ && axis_ == rank)) {
        if (axis_ < -rank || axis_ >= rank)
          return InvalidArgument(node.describe(), ": axis ", axis_, " is out of range for rank ", rank);
        axis = axis_ < 0 ? axis_ + rank : axis_;
      }
      const auto a = static_cast<size_t>(axis);
      m.outer = 1;
      for (size_t k = 0; k < a; ++k) m.outer *= x.dim(k);
      m.d = 1;
      m.inner = 1;
      if (coerce_2d_) {
        for (size_t k = a; k < x.rank(); ++k) m.d *= x.dim(k);
      } else {
        m.d = x.dim(a);
        for (size_t k = a + 1; k < x.rank(); ++k) m.inner *= x.dim(k);
      }
    } else if (axis_ < -1 || axis_ > 0) {
      return InvalidArgument(node.describe(), ": axis ", axis_, " is out of range for a scalar");
    }
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, dt, x.dims()));
    if (x.numel() == 0) return OkStatus();
    CUDA_RETURN_IF_ERROR(launch_hardmax(y->raw(), x.raw(), static_cast<int>(dt), m, l.stream));
    return OkStatus();
  }

 private:
  bool coerce_2d_ = false;
  int64_t axis_ = -1;
};

}  // namespace

void register_cuda_resize_kernels(KernelRegistry& r) {
  const std::vector<DataType>& types = movement_types();
  // roi, scales and sizes are shape-like: read on the host.
  add_cuda_kernel<ResizeKernel>(r, "Resize", 10, types, kBit1 | kBit2 | kBit3);
  add_cuda_kernel<ResizeKernel>(r, "Upsample", 7, types, kBit1);
  add_cuda_kernel<DepthSpaceKernel<true>>(r, "DepthToSpace", 1, types);
  add_cuda_kernel<DepthSpaceKernel<false>>(r, "SpaceToDepth", 1, types);
  add_cuda_kernel<HardmaxKernel>(r, "Hardmax", 1,
                                 {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16});
}

}  // namespace sy::cuda
