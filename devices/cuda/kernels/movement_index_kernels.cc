// CUDA Gather, Compress, ReverseSequence, GatherElements, Pad and CenterCropPad. Gather's indices live in device memory
// and cannot be checked on the host without a synchronisation, so the
// kernels flag an out-of-range index on the device (Launch::error_flag);
// the task then fails with OutOfRange when it completes, as on the CPU. A
// bad index never addresses memory.
#include <cstring>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/index_checks.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/cpu/kernels/tensor_register.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/elements_meta.h"
#include "devices/cuda/kernels/movement_common.h"
#include "devices/cuda/kernels/movement_launch.h"

namespace sy::cuda {
namespace {

using tensor_ops::kBit1;
using tensor_ops::kBit2;
using tensor_ops::kBit3;
using tensor_ops::check_index_tensor;

// out = x viewed as [outer, axis_dim, inner] gathered along its axis at
// the m.nidx `indices`, inner in elements. Gather calls it directly;
// Compress and ReverseSequence through gather_by_host_indices.
Status gather_rows(const Launch& l, const Tensor& x, const void* indices, bool indices64, GatherMeta m, Tensor& out) {
  const size_t es = dtype_size(x.dtype());
  // Whole inner rows move together, so they can go in wider units.
  const int unit =
      widest_unit(es, address_bits(out.raw()) | address_bits(x.raw()) | static_cast<uint64_t>(m.inner) * es);
  const int64_t f = unit / static_cast<int64_t>(es);
  m.inner /= f;
  const bool index32 = fits_index32(out.numel() / f, x.numel() / f);
  ASSIGN_OR_RETURN(int* bad, l.error_flag("Gather: an index is out of range for the gathered axis"));
  CUDA_RETURN_IF_ERROR(launch_gather(out.raw(), x.raw(), indices, indices64, unit, index32, m, bad, l.stream));
  return OkStatus();
}

// gather_rows with indices known on the host, uploaded through the
// device's own copy on this task's stream (so the host copy may go when
// compute() returns).
Status gather_by_host_indices(KernelContext& ctx, const Launch& l, const Tensor& x, const std::vector<int64_t>& indices,
                              int64_t outer, int64_t axis_dim, int64_t inner, Tensor& out) {
  ASSIGN_OR_RETURN(Tensor host, Tensor::host(DataType::kInt64, Dims{static_cast<int64_t>(indices.size())}));
  std::memcpy(host.raw(), indices.data(), indices.size() * sizeof(int64_t));
  ASSIGN_OR_RETURN(const Tensor dev, ctx.device().copy(host, ctx.device().memory_space()));
  GatherMeta m;
  m.outer = outer;
  m.nidx = static_cast<int64_t>(indices.size());
  m.inner = inner;
  m.axis_dim = axis_dim;
  return gather_rows(l, x, dev.raw(), true, m, out);
}

class GatherKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axis_ = node.attr_int("axis", 0);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    if (!x.defined()) return InvalidArgument("Gather: data is missing");
    RETURN_IF_ERROR(check_index_tensor(ind, "Gather"));
    int64_t r = static_cast<int64_t>(x.rank());
    if (r == 0) return InvalidArgument("Gather: data must have rank >= 1");
    ASSIGN_OR_RETURN(int64_t axis, tensor_ops::normalize_axis(axis_, r, "Gather axis"));
    Dims out_dims;
    for (int64_t k = 0; k < axis; ++k) out_dims.push_back(x.dim(k));
    for (int64_t d : ind.dims()) out_dims.push_back(d);
    for (int64_t k = axis + 1; k < r; ++k) out_dims.push_back(x.dim(k));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), out_dims));
    if (out->numel() == 0) return OkStatus();
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= x.dim(k);
    for (int64_t k = axis + 1; k < r; ++k) inner *= x.dim(k);
    GatherMeta m;
    m.outer = outer;
    m.nidx = ind.numel();
    m.inner = inner;
    m.axis_dim = x.dim(axis);
    return gather_rows(l, x, ind.raw(), ind.dtype() == DataType::kInt64, m, *out);
  }

 private:
  int64_t axis_ = 0;
};

// Compress: the condition is a host input, so the kept positions are
// known on the host (with the CPU kernel's checks) and the output sized
// without a synchronisation; they go up as Gather's indices.
class CompressKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    has_axis_ = node.has_attr("axis");
    axis_ = node.attr_int("axis", 0);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(const tensor_ops::CompressPlan p, tensor_ops::plan_compress(x, ctx.input(1), has_axis_, axis_));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), p.out));
    if (out->numel() == 0) return OkStatus();
    return gather_by_host_indices(ctx, l, x, p.keep, p.outer, p.dim, p.inner, *out);
  }

 private:
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

// ReverseSequence: sequence_lens is a host input, so each output row's
// source row is known on the host (with the CPU kernel's checks); that
// table goes up as Gather's indices over the batch * time rows.
class ReverseSequenceKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(axes_, tensor_ops::reverse_sequence_axes(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const tensor_ops::ReverseSequencePlan p, tensor_ops::plan_reverse_sequence(ctx, axes_));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (out->numel() == 0) return OkStatus();
    return gather_by_host_indices(ctx, l, x, p.rows, 1, static_cast<int64_t>(p.rows.size()), p.inner, *out);
  }

 private:
  tensor_ops::SequenceAxes axes_;
};

class GatherElementsKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axis_ = node.attr_int("axis", 0);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    if (!x.defined()) return InvalidArgument("GatherElements: data is missing");
    RETURN_IF_ERROR(check_index_tensor(ind, "GatherElements"));
    size_t r = x.rank();
    if (r == 0) return InvalidArgument("GatherElements: data must have rank >= 1");
    if (r > static_cast<size_t>(kMoveMaxRank))
      return Unimplemented("CUDA GatherElements: rank ", r, " > ", kMoveMaxRank);
    ASSIGN_OR_RETURN(int64_t axis, tensor_ops::normalize_axis(axis_, static_cast<int64_t>(r), "GatherElements axis"));
    RETURN_IF_ERROR(tensor_ops::check_elements_indices(x, ind, axis, "GatherElements"));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), ind.dims()));
    if (out->numel() == 0) return OkStatus();
    const GatherElementsMeta m = elements_meta(x, ind, axis);
    ASSIGN_OR_RETURN(int* bad, l.error_flag("GatherElements: an index is out of range for the axis"));
    CUDA_RETURN_IF_ERROR(launch_gather_elements(out->raw(), x.raw(), ind.raw(), ind.dtype() == DataType::kInt64,
                                                static_cast<int>(dtype_size(x.dtype())), out->numel(), m, bad,
                                                l.stream));
    return OkStatus();
  }

 private:
  int64_t axis_ = 0;
};

// y = x padded by `pads` (2 * rank entries, negative to crop) in `mode`,
// the constant `cval`. Shared by Pad and CenterCropPad.
Status pad_on_device(KernelContext& ctx, const Tensor& x, const Dims& pads, tensor_ops::PadMode mode,
                     const tensor_ops::ScalarValue& cval, const char* op) {
  // The kernel moves 1-8 byte units and PadMeta holds the constant in one
  // uint64: complex128 (which reaches here when the type was unknown at
  // lookup) goes to the CPU.
  const size_t es = dtype_size(x.dtype());
  if (x.dtype() == DataType::kString || es == 0 || es > 8)
    return Unimplemented("CUDA ", op, ": no kernel for ", dtype_name(x.dtype()), " elements");
  const size_t r = x.rank();
  ASSIGN_OR_RETURN(Dims out_dims, tensor_ops::pad_output_dims(x.dims(), pads, mode));
  if (r > static_cast<size_t>(kMoveMaxRank)) return Unimplemented("CUDA ", op, ": rank ", r, " > ", kMoveMaxRank);
  ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
  ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), out_dims));
  if (out->numel() == 0) return OkStatus();
  if (r == 0) {
    CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out->raw(), x.raw(), es, cudaMemcpyDeviceToDevice, l.stream));
    return OkStatus();
  }
  Dims in_strides = contiguous_strides(x.dims());
  PadMeta m;
  m.rank = static_cast<int32_t>(r);
  m.mode = static_cast<int32_t>(mode);
  for (size_t k = 0; k < r; ++k) {
    m.out_dims[k] = out_dims[k];
    m.in_dims[k] = x.dim(k);
    m.in_strides[k] = in_strides[k];
    m.before[k] = pads[k];
  }
  std::memcpy(&m.value, cval.bytes, es);
  CUDA_RETURN_IF_ERROR(launch_pad(out->raw(), x.raw(), static_cast<int>(es), out->numel(), m, l.stream));
  return OkStatus();
}

class PadKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    std::string mode = node.attr_string("mode", "constant");
    if (mode == "constant") mode_ = tensor_ops::PadMode::kConstant;
    else if (mode == "reflect") mode_ = tensor_ops::PadMode::kReflect;
    else if (mode == "edge") mode_ = tensor_ops::PadMode::kEdge;
    else if (mode == "wrap") mode_ = tensor_ops::PadMode::kWrap;
    else return InvalidArgument(node.describe(), ": unknown pad mode '", mode, "'");
    from_inputs_ = node.opset >= 11;
    if (!from_inputs_) {
      pads_ = tensor_ops::to_dims(node.opset < 2 ? node.attr_ints("paddings") : node.attr_ints("pads"));
      value_ = node.attr_float("value", 0.f);
    }
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Pad: data is missing");
    Dims pads;
    tensor_ops::ScalarValue cval;
    if (from_inputs_) {
      RETURN_IF_ERROR(tensor_ops::read_pad_inputs(ctx, x, &pads, &cval));
    } else {
      pads = pads_;
      cval = tensor_ops::scalar_from_double(x.dtype(), value_);
    }
    return pad_on_device(ctx, x, pads, mode_, cval, "Pad");
  }

 private:
  tensor_ops::PadMode mode_ = tensor_ops::PadMode::kConstant;
  bool from_inputs_ = true;
  Dims pads_;
  float value_ = 0;
};

// CenterCropPad (opset 18): a constant Pad by the CPU kernel's pads
// (tensor_ops::center_crop_pads), negative where an axis is cropped.
class CenterCropPadKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    has_axes_ = node.has_attr("axes");
    axes_ = node.attr_ints("axes");
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const Dims pads, tensor_ops::center_crop_pads(ctx, has_axes_, axes_));
    const Tensor& x = ctx.input(0);
    return pad_on_device(ctx, x, pads, tensor_ops::PadMode::kConstant, tensor_ops::scalar_from_double(x.dtype(), 0.0),
                         "CenterCropPad");
  }

 private:
  bool has_axes_ = false;
  std::vector<int64_t> axes_;
};

}  // namespace

void register_cuda_movement_index_kernels(KernelRegistry& r) {
  const std::vector<DataType>& types = movement_types();
  add_cuda_kernel<GatherKernel>(r, "Gather", 1, types);
  add_cuda_kernel<GatherElementsKernel>(r, "GatherElements", 11, types);
  add_cuda_kernel<CompressKernel>(r, "Compress", 9, types, kBit1);
  add_cuda_kernel<ReverseSequenceKernel>(r, "ReverseSequence", 10, types, kBit1);
  add_cuda_kernel<PadKernel>(r, "Pad", 1, types, kBit1 | kBit2 | kBit3);
  add_cuda_kernel<CenterCropPadKernel>(r, "CenterCropPad", 18, types, kBit1);
}

}  // namespace sy::cuda
