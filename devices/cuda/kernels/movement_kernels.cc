// CUDA shape and data-movement kernels: Reshape, Flatten, Squeeze and
// Unsqueeze (the CPU's device-agnostic view kernels), Shape, Size,
// ConstantOfShape, Transpose, Concat, Split, Slice, Expand and Tile. Gather,
// GatherElements and Pad live in movement_index_kernels.cc. All shape logic is
// tensor_ops' (shared with the CPU kernels), so both backends validate and
// clamp identically; only the byte moving differs.
#include <algorithm>
#include <cstring>
#include <limits>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/cpu/kernels/tensor_register.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/movement_common.h"
#include "devices/cuda/kernels/movement_launch.h"

namespace sy::cuda {

using tensor_ops::kBit0;
using tensor_ops::kBit1;
using tensor_ops::kBit2;
using tensor_ops::kBit3;
using tensor_ops::kBit4;

const std::vector<DataType>& movement_types() {
  static const std::vector<DataType> types = {
      DataType::kBool,    DataType::kUInt8,  DataType::kInt8,  DataType::kUInt16, DataType::kInt16,
      DataType::kFloat16, DataType::kBFloat16, DataType::kInt32, DataType::kUInt32, DataType::kFloat,
      DataType::kInt64,   DataType::kUInt64, DataType::kDouble, DataType::kComplex64};
  return types;
}

int widest_unit(size_t elem_size, uint64_t must_divide, int max_unit) {
  int unit = static_cast<int>(elem_size);
  while (unit * 2 <= max_unit && must_divide % static_cast<uint64_t>(unit * 2) == 0) unit *= 2;
  return unit;
}

Status copy_view(const Launch& l, DataType dtype, void* dst, const void* src, const Dims& out_dims,
                 const Dims& src_strides) {
  const int64_t n = out_dims.numel();
  if (n == 0) return OkStatus();
  const size_t es = dtype_size(dtype);
  Dims dims, strides;
  tensor_ops::merge_strided_dims(out_dims, src_strides, &dims, &strides);
  const size_t r = dims.size();
  if (r == 0 || (r == 1 && strides[0] == 1)) {
    CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, static_cast<size_t>(n) * es, cudaMemcpyDeviceToDevice, l.stream));
    return OkStatus();
  }
  // [batch,] rows x cols read down the columns: the swap of the last two dims,
  // which the tiled kernel does with coalesced reads and writes. Thin
  // matrices waste most of a tile, so they take the generic path.
  if ((r == 2 || r == 3) && strides[r - 2] == 1 && strides[r - 1] == dims[r - 2] && dims[r - 2] >= 16 &&
      dims[r - 1] >= 16 && es <= 8) {
    TransposeTileMeta m;
    m.batch = r == 3 ? dims[0] : 1;
    m.batch_stride = r == 3 ? strides[0] : 0;
    m.rows = dims[r - 2];
    m.cols = dims[r - 1];
    CUDA_RETURN_IF_ERROR(launch_transpose_tiled(dst, src, static_cast<int>(es), m, l.stream));
    return OkStatus();
  }
  if (r > static_cast<size_t>(kMoveMaxViewDims))
    return Unimplemented("CUDA strided copy: view ", out_dims.to_string(), " has more than ", kMoveMaxViewDims,
                         " dims after collapsing");
  int unit = static_cast<int>(es);
  if (strides[r - 1] == 1) {
    uint64_t bits = address_bits(dst) | address_bits(src) | static_cast<uint64_t>(dims[r - 1]) * es;
    for (size_t k = 0; k + 1 < r; ++k) bits |= static_cast<uint64_t>(strides[k]) * es;  // sign bits don't matter
    unit = widest_unit(es, bits);
    const int64_t f = unit / static_cast<int64_t>(es);
    dims[r - 1] /= f;
    for (size_t k = 0; k + 1 < r; ++k) strides[k] /= f;
  }
  StridedCopyMeta m;
  m.rank = static_cast<int32_t>(r);
  int64_t max_offset = 0, units = 1;
  for (size_t k = 0; k < r; ++k) {
    m.dims[k] = dims[k];
    m.strides[k] = strides[k];
    units *= dims[k];
    const int64_t reach = (dims[k] - 1) * (strides[k] < 0 ? -strides[k] : strides[k]);
    max_offset = reach > INT64_MAX - max_offset ? INT64_MAX : max_offset + reach;
  }
  CUDA_RETURN_IF_ERROR(launch_strided_copy(dst, src, units, unit, fits_index32(units, max_offset), m, l.stream));
  return OkStatus();
}

namespace {

// Views need no GPU work; they are the CPU's kernels registered for CUDA.
void add_view_kernel(KernelRegistry& r, const char* op, uint64_t host_inputs, KernelFactory factory) {
  KernelDef d;
  d.domain = "";
  d.op = op;
  d.since_version = 1;
  d.device = DeviceKind::kCuda;
  d.types = movement_types();
  d.host_inputs = host_inputs;
  d.factory = factory;
  r.add(std::move(d));
}

Status write_int64s(const Launch& l, Tensor* out, const int64_t* values, int64_t count) {
  if (count <= 0) return OkStatus();
  if (count <= kMoveMaxRank) {
    SmallInt64s v;
    v.count = static_cast<int32_t>(count);
    std::copy(values, values + count, v.v);
    CUDA_RETURN_IF_ERROR(launch_write_int64s(out->data<int64_t>(), v, l.stream));
    return OkStatus();
  }
  // Pageable source: the call returns once the bytes are staged, so `values`
  // only has to live until then.
  CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out->raw(), values, static_cast<size_t>(count) * sizeof(int64_t),
                                       cudaMemcpyHostToDevice, l.stream));
  return OkStatus();
}

class ShapeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    start_ = node.attr_int("start", 0);
    end_ = node.attr_int("end", std::numeric_limits<int64_t>::max());
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Shape: input is not a tensor");
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    int64_t r = static_cast<int64_t>(x.rank());
    auto clamp = [r](int64_t v) {
      if (v < 0) v = std::max<int64_t>(0, v + r);
      return std::min(v, r);
    };
    int64_t s = clamp(start_), e = clamp(end_);
    int64_t n = std::max<int64_t>(0, e - s);
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, DataType::kInt64, Dims{n}));
    return write_int64s(l, out, x.dims().data() + s, n);
  }

 private:
  int64_t start_ = 0, end_ = 0;
};

class SizeKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Size: input is not a tensor");
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, DataType::kInt64, Dims{}));
    const int64_t numel = x.numel();
    return write_int64s(l, out, &numel, 1);
  }
};

class ConstantOfShapeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    const Attribute* a = node.attr("value");
    if (a && a->kind == Attribute::Kind::kTensor && a->t) {
      if (a->t->numel() != 1) return InvalidArgument(node.describe(), ": 'value' must hold exactly one element");
      const DataType dt = a->t->dtype;
      const size_t es = dtype_size(dt);
      if (dt == DataType::kString || es == 0 || es > 8 || a->t->bytes.size() < es)
        return Unimplemented(node.describe(), ": CUDA ConstantOfShape does not support ", dtype_name(dt), " values");
      dtype_ = dt;
      std::memcpy(&bits_, a->t->bytes.data(), es);
    }
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(Dims dims, tensor_ops::read_int_list(ctx.input(0), "ConstantOfShape input"));
    for (int64_t d : dims)
      if (d < 0) return InvalidArgument("ConstantOfShape: negative dimension in shape ", dims.to_string());
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, dtype_, dims));
    const int64_t n = out->numel();
    if (n == 0) return OkStatus();
    const size_t es = dtype_size(dtype_);
    unsigned char b[8];
    std::memcpy(b, &bits_, sizeof(b));
    // A value whose bytes are all equal (zeros above all) is a memset.
    if (std::all_of(b, b + es, [&](unsigned char c) { return c == b[0]; })) {
      CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out->raw(), b[0], out->nbytes(), l.stream));
      return OkStatus();
    }
    CUDA_RETURN_IF_ERROR(launch_fill(out->raw(), n, static_cast<int>(es), bits_, l.stream));
    return OkStatus();
  }

 private:
  DataType dtype_ = DataType::kFloat;  // default value: float 0
  uint64_t bits_ = 0;
};

class TransposeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    if (const Attribute* a = node.attr("perm"); a && a->kind == Attribute::Kind::kInts) {
      perm_ = tensor_ops::to_dims(a->ints);
      has_perm_ = true;
    }
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Transpose: input is missing");
    size_t r = x.rank();
    // No rank limit here: copy_view collapses the view and declines
    // (Unimplemented) only views with more than kMoveMaxViewDims dims left.
    ASSIGN_OR_RETURN(Dims perm, tensor_ops::transpose_perm(perm_, has_perm_, r));
    Dims in_strides = contiguous_strides(x.dims());
    Dims out_dims = Dims::of_rank(r), strides = Dims::of_rank(r);
    for (size_t i = 0; i < r; ++i) {
      out_dims[i] = x.dim(perm[i]);
      strides[i] = in_strides[perm[i]];
    }
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), out_dims));
    return copy_view(l, x.dtype(), out->raw(), x.raw(), out_dims, strides);
  }

 private:
  Dims perm_;
  bool has_perm_ = false;
};

// Concat and Split move [outer, row_j] slabs between the parts and columns of
// one big [outer, big_row] tensor, kMaxSlabParts parts per launch. Parts with
// no columns are left out; null parts (omitted Split outputs) are skipped.
struct Slab {
  void* ptr;
  int64_t row;  // elements per outer row
};

Status move_slabs(const Launch& l, size_t es, void* big, int64_t outer, int64_t big_row, const std::vector<Slab>& parts,
                  bool to_parts) {
  if (outer == 0 || big_row == 0) return OkStatus();
  uint64_t bits = address_bits(big) | static_cast<uint64_t>(big_row) * es;
  for (const Slab& p : parts) bits |= address_bits(p.ptr) | static_cast<uint64_t>(p.row) * es;
  const int unit = widest_unit(es, bits);
  const int64_t f = unit / static_cast<int64_t>(es);
  const bool index32 = fits_index32(outer * (big_row / f));
  SlabMeta m;
  m.outer = outer;
  m.big_row = big_row / f;
  int64_t col = 0;  // in units
  for (size_t i = 0; i < parts.size();) {
    m.col0 = col;
    m.count = 0;
    int64_t width = 0;
    for (; i < parts.size() && m.count < kMaxSlabParts; ++i) {
      if (parts[i].row == 0) continue;
      width += parts[i].row / f;
      m.parts[m.count] = parts[i].ptr;
      m.col_end[m.count] = width;
      ++m.count;
    }
    if (m.count == 0) break;
    CUDA_RETURN_IF_ERROR(launch_slab_copy(big, m, unit, to_parts, index32, l.stream));
    col += width;
  }
  return OkStatus();
}

class ConcatKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    if (!node.has_attr("axis") && node.opset >= 4) return InvalidArgument(node.describe(), ": missing 'axis'");
    axis_ = node.attr_int("axis", 1);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    int64_t axis = 0;
    ASSIGN_OR_RETURN(Dims out_dims, tensor_ops::concat_dims(ctx, axis_, &axis));
    const Tensor& first = ctx.input(0);
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, first.dtype(), out_dims));
    if (out->numel() == 0) return OkStatus();
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= out_dims[k];
    for (size_t k = static_cast<size_t>(axis) + 1; k < out_dims.size(); ++k) inner *= out_dims[k];
    std::vector<Slab> parts;
    parts.reserve(ctx.num_inputs());
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.input(i);
      // Inputs are only read; the kernel's part table is untyped.
      parts.push_back(Slab{const_cast<void*>(t.raw()), t.dim(axis) * inner});
    }
    return move_slabs(l, dtype_size(first.dtype()), out->raw(), outer, out_dims[axis] * inner, parts, false);
  }

 private:
  int64_t axis_ = 0;
};

class SplitKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axis_ = node.attr_int("axis", 0);
    split_from_input_ = node.opset >= 13;
    if (const Attribute* a = node.attr("split"); a && a->kind == Attribute::Kind::kInts)
      attr_split_ = tensor_ops::to_dims(a->ints);
    num_outputs_attr_ = node.attr_int("num_outputs", 0);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Split: input is missing");
    int64_t r = static_cast<int64_t>(x.rank());
    ASSIGN_OR_RETURN(int64_t axis, tensor_ops::normalize_axis(axis_, r, "Split axis"));
    int64_t n_out = static_cast<int64_t>(ctx.num_outputs());
    int64_t dim = x.dim(axis);
    Dims split;
    if (split_from_input_ && ctx.has_input(1)) {
      ASSIGN_OR_RETURN(split, tensor_ops::read_int_list(ctx.input(1), "Split split"));
    } else if (!split_from_input_ && !attr_split_.empty()) {
      split = attr_split_;
    }
    ASSIGN_OR_RETURN(split, tensor_ops::split_sizes(std::move(split), dim, n_out, num_outputs_attr_ > 0));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= x.dim(k);
    for (int64_t k = axis + 1; k < r; ++k) inner *= x.dim(k);
    std::vector<Slab> parts;
    parts.reserve(static_cast<size_t>(n_out));
    for (int64_t i = 0; i < n_out; ++i) {
      void* ptr = nullptr;
      if (ctx.output_wanted(i)) {
        Dims od = x.dims();
        od[axis] = split[i];
        ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(i, x.dtype(), od));
        ptr = out->raw();
      }
      parts.push_back(Slab{ptr, split[i] * inner});
    }
    if (x.numel() == 0) return OkStatus();
    return move_slabs(l, dtype_size(x.dtype()), const_cast<void*>(x.raw()), outer, dim * inner, parts, true);
  }

 private:
  int64_t axis_ = 0;
  bool split_from_input_ = false;
  Dims attr_split_;
  int64_t num_outputs_attr_ = 0;
};

class SliceKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    from_inputs_ = node.opset >= 10;
    if (!from_inputs_) {
      starts_ = tensor_ops::to_dims(node.attr_ints("starts"));
      ends_ = tensor_ops::to_dims(node.attr_ints("ends"));
      axes_ = tensor_ops::to_dims(node.attr_ints("axes"));
      has_axes_ = node.has_attr("axes");
    }
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Slice: data is missing");
    Dims starts, ends, axes, steps;
    bool has_axes = has_axes_, has_steps = false;
    if (from_inputs_) {
      ASSIGN_OR_RETURN(starts, tensor_ops::read_int_list(ctx.input(1), "Slice starts"));
      ASSIGN_OR_RETURN(ends, tensor_ops::read_int_list(ctx.input(2), "Slice ends"));
      if (ctx.has_input(3)) {
        ASSIGN_OR_RETURN(axes, tensor_ops::read_int_list(ctx.input(3), "Slice axes"));
        has_axes = true;
      }
      if (ctx.has_input(4)) {
        ASSIGN_OR_RETURN(steps, tensor_ops::read_int_list(ctx.input(4), "Slice steps"));
        has_steps = true;
      }
    } else {
      starts = starts_;
      ends = ends_;
      axes = axes_;
    }
    ASSIGN_OR_RETURN(tensor_ops::SliceView v, tensor_ops::slice_view(x.dims(), starts, ends, has_axes ? &axes : nullptr,
                                                                     has_steps ? &steps : nullptr));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), v.out_dims));
    if (out->numel() == 0) return OkStatus();
    const char* src = static_cast<const char*>(x.raw()) + v.offset * static_cast<int64_t>(dtype_size(x.dtype()));
    return copy_view(l, x.dtype(), out->raw(), src, v.out_dims, v.strides);
  }

 private:
  bool from_inputs_ = true;
  bool has_axes_ = false;
  Dims starts_, ends_, axes_;
};

class ExpandKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Expand: input is missing");
    ASSIGN_OR_RETURN(Dims shape, tensor_ops::read_int_list(ctx.input(1), "Expand shape"));
    for (int64_t d : shape)
      if (d < 0) return InvalidArgument("Expand: negative dimension in shape ", shape.to_string());
    ASSIGN_OR_RETURN(Dims out_dims, broadcast_dims(x.dims(), shape));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), out_dims));
    return copy_view(l, x.dtype(), out->raw(), x.raw(), out_dims, broadcast_strides(x.dims(), out_dims));
  }
};

class TileKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Tile: input is missing");
    ASSIGN_OR_RETURN(Dims reps, tensor_ops::read_int_list(ctx.input(1), "Tile repeats"));
    ASSIGN_OR_RETURN(tensor_ops::TileView v, tensor_ops::tile_view(x.dims(), reps));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), v.out_dims));
    if (out->numel() == 0) return OkStatus();
    return copy_view(l, x.dtype(), out->raw(), x.raw(), v.view, v.strides);
  }
};

}  // namespace

void register_cuda_movement_kernels(KernelRegistry& r) {
  const std::vector<DataType>& types = movement_types();
  add_view_kernel(r, "Reshape", kBit1, &tensor_ops::make_reshape_view_kernel);
  add_view_kernel(r, "Flatten", 0, &tensor_ops::make_flatten_view_kernel);
  add_view_kernel(r, "Squeeze", kBit1, &tensor_ops::make_squeeze_view_kernel);
  add_view_kernel(r, "Unsqueeze", kBit1, &tensor_ops::make_unsqueeze_view_kernel);
  tensor_ops::add_shape_reader<ShapeKernel>(r, "Shape", DeviceKind::kCuda, types);
  tensor_ops::add_shape_reader<SizeKernel>(r, "Size", DeviceKind::kCuda, types);
  add_cuda_kernel<ConstantOfShapeKernel>(r, "ConstantOfShape", 9, {DataType::kInt64}, kBit0);
  add_cuda_kernel<TransposeKernel>(r, "Transpose", 1, types);
  add_cuda_kernel<ConcatKernel>(r, "Concat", 1, types);
  add_cuda_kernel<SplitKernel>(r, "Split", 1, types, kBit1);
  add_cuda_kernel<SliceKernel>(r, "Slice", 1, types, kBit1 | kBit2 | kBit3 | kBit4);
  add_cuda_kernel<ExpandKernel>(r, "Expand", 8, types, kBit1);
  // Tile-1 took (tiles, axis) inputs with other semantics; from 6 it is `repeats`.
  add_cuda_kernel<TileKernel>(r, "Tile", 6, types, kBit1);
  register_cuda_movement_index_kernels(r);
}

}  // namespace sy::cuda
