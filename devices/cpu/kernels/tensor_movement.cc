// CPU data-movement kernels: Transpose, Concat, Split, Slice, Tile, Pad,
// DepthToSpace, SpaceToDepth, Trilu, ReverseSequence, CenterCropPad. Most reduce to
// strided_copy with a computed view; all work for every element type.
#include <algorithm>
#include <limits>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/depth_space.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/cpu/kernels/tensor_register.h"

namespace sy::tensor_ops {
namespace {

class TransposeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    if (const Attribute* a = node.attr("perm"); a && a->kind == Attribute::Kind::kInts) {
      perm_ = to_dims(a->ints);
      has_perm_ = true;
    }
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Transpose: input is missing");
    size_t r = x.rank();
    ASSIGN_OR_RETURN(Dims perm, transpose_perm(perm_, has_perm_, r));
    Dims in_strides = contiguous_strides(x.dims());
    Dims out_dims = Dims::of_rank(r), strides = Dims::of_rank(r);
    for (size_t i = 0; i < r; ++i) {
      out_dims[i] = x.dim(perm[i]);
      strides[i] = in_strides[perm[i]];
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), out_dims));
    strided_copy(x.dtype(), out->raw(), x.raw(), out_dims, strides);
    return OkStatus();
  }

 private:
  Dims perm_;
  bool has_perm_ = false;
};

class ConcatKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    if (!node.has_attr("axis") && node.opset >= 4) return InvalidArgument(node.describe(), ": missing 'axis'");
    axis_ = node.attr_int("axis", 1);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    int64_t axis = 0;
    ASSIGN_OR_RETURN(Dims out_dims, concat_dims(ctx, axis_, &axis));
    size_t n = ctx.num_inputs();
    const Tensor& first = ctx.input(0);
    int64_t r = static_cast<int64_t>(first.rank());
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, first.dtype(), out_dims));
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= out_dims[k];
    for (int64_t k = axis + 1; k < r; ++k) inner *= out_dims[k];
    int64_t out_row = out_dims[axis] * inner;
    int64_t offset = 0;
    for (size_t i = 0; i < n; ++i) {
      const Tensor& t = ctx.input(i);
      int64_t row = t.dim(axis) * inner;
      if (row == 0) continue;
      // View the input as [outer, row] placed at column `offset` of [outer, out_row].
      char* dst = static_cast<char*>(out->raw());
      if (outer == 1) {
        copy_elements(t.dtype(), dst, offset, t.raw(), 0, row);
      } else {
        for (int64_t o = 0; o < outer; ++o) copy_elements(t.dtype(), dst, o * out_row + offset, t.raw(), o * row, row);
      }
      offset += row;
    }
    return OkStatus();
  }

 private:
  int64_t axis_ = 0;
};

class SplitKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axis_ = node.attr_int("axis", 0);
    split_from_input_ = node.opset >= 13;
    if (const Attribute* a = node.attr("split"); a && a->kind == Attribute::Kind::kInts) attr_split_ = to_dims(a->ints);
    num_outputs_attr_ = node.attr_int("num_outputs", 0);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Split: input is missing");
    int64_t r = static_cast<int64_t>(x.rank());
    ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, r, "Split axis"));
    int64_t n_out = static_cast<int64_t>(ctx.num_outputs());
    int64_t dim = x.dim(axis);
    Dims split;
    if (split_from_input_ && ctx.has_input(1)) {
      ASSIGN_OR_RETURN(split, read_int_list(ctx.input(1), "Split split"));
    } else if (!split_from_input_ && !attr_split_.empty()) {
      split = attr_split_;
    }
    ASSIGN_OR_RETURN(split, split_sizes(std::move(split), dim, n_out, num_outputs_attr_ > 0));
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= x.dim(k);
    for (int64_t k = axis + 1; k < r; ++k) inner *= x.dim(k);
    int64_t in_row = dim * inner;
    int64_t offset = 0;
    for (int64_t i = 0; i < n_out; ++i) {
      Dims od = x.dims();
      od[axis] = split[i];
      int64_t row = split[i] * inner;
      if (ctx.output_wanted(i)) {
        ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(i, x.dtype(), od));
        if (row > 0)
          for (int64_t o = 0; o < outer; ++o)
            copy_elements(x.dtype(), out->raw(), o * row, x.raw(), o * in_row + offset, row);
      }
      offset += row;
    }
    return OkStatus();
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
      starts_ = to_dims(node.attr_ints("starts"));
      ends_ = to_dims(node.attr_ints("ends"));
      axes_ = to_dims(node.attr_ints("axes"));
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
      ASSIGN_OR_RETURN(starts, read_int_list(ctx.input(1), "Slice starts"));
      ASSIGN_OR_RETURN(ends, read_int_list(ctx.input(2), "Slice ends"));
      if (ctx.has_input(3)) {
        ASSIGN_OR_RETURN(axes, read_int_list(ctx.input(3), "Slice axes"));
        has_axes = true;
      }
      if (ctx.has_input(4)) {
        ASSIGN_OR_RETURN(steps, read_int_list(ctx.input(4), "Slice steps"));
        has_steps = true;
      }
    } else {
      starts = starts_;
      ends = ends_;
      axes = axes_;
    }
    ASSIGN_OR_RETURN(SliceView v, slice_view(x.dims(), starts, ends, has_axes ? &axes : nullptr,
                                             has_steps ? &steps : nullptr));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), v.out_dims));
    if (out->numel() == 0) return OkStatus();
    const char* src = static_cast<const char*>(x.raw()) + v.offset * static_cast<int64_t>(dtype_size(x.dtype()));
    strided_copy(x.dtype(), out->raw(), src, v.out_dims, v.strides);
    return OkStatus();
  }

 private:
  bool from_inputs_ = true;
  bool has_axes_ = false;
  Dims starts_, ends_, axes_;
};

// Tile views the input as [1, d0, 1, d1, ...] with zero strides on the repeat
// axes, so it is one strided copy into [r0, d0, r1, d1, ...].
class TileKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Tile: input is missing");
    ASSIGN_OR_RETURN(Dims reps, read_int_list(ctx.input(1), "Tile repeats"));
    ASSIGN_OR_RETURN(TileView v, tile_view(x.dims(), reps));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), v.out_dims));
    if (out->numel() == 0) return OkStatus();
    strided_copy(x.dtype(), out->raw(), x.raw(), v.view, v.strides);
    return OkStatus();
  }
};

class PadKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    std::string mode = node.attr_string("mode", "constant");
    if (mode == "constant") mode_ = PadMode::kConstant;
    else if (mode == "reflect") mode_ = PadMode::kReflect;
    else if (mode == "edge") mode_ = PadMode::kEdge;
    else if (mode == "wrap") mode_ = PadMode::kWrap;
    else return InvalidArgument(node.describe(), ": unknown pad mode '", mode, "'");
    from_inputs_ = node.opset >= 11;
    if (!from_inputs_) {
      pads_ = to_dims(node.opset < 2 ? node.attr_ints("paddings") : node.attr_ints("pads"));
      value_ = node.attr_float("value", 0.f);
    }
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override;

 private:
  PadMode mode_ = PadMode::kConstant;
  bool from_inputs_ = true;
  Dims pads_;
  float value_ = 0;
};

// Maps an output coordinate to an input coordinate; -1 means "constant".
inline int64_t pad_source(int64_t o, int64_t before, int64_t dim, PadMode mode) {
  int64_t c = o - before;
  if (c >= 0 && c < dim) return c;
  switch (mode) {
    case PadMode::kConstant: return -1;
    case PadMode::kEdge: return c < 0 ? 0 : dim - 1;
    case PadMode::kWrap: {
      int64_t m = c % dim;
      return m < 0 ? m + dim : m;
    }
    case PadMode::kReflect: {
      if (dim == 1) return 0;
      int64_t period = 2 * (dim - 1);
      int64_t m = c % period;
      if (m < 0) m += period;
      return m < dim ? m : period - m;
    }
  }
  return -1;
}

Status PadKernel::compute(KernelContext& ctx) const {
  const Tensor& x = ctx.input(0);
  if (!x.defined()) return InvalidArgument("Pad: data is missing");
  size_t r = x.rank();
  Dims pads;
  ScalarValue cval;
  if (from_inputs_) {
    RETURN_IF_ERROR(read_pad_inputs(ctx, x, &pads, &cval));
  } else {
    pads = pads_;
    cval = scalar_from_double(x.dtype(), value_);
  }
  ASSIGN_OR_RETURN(Dims out_dims, pad_output_dims(x.dims(), pads, mode_));
  ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), out_dims));
  if (out->numel() == 0) return OkStatus();
  if (r == 0) {
    copy_elements(x.dtype(), out->raw(), 0, x.raw(), 0, 1);
    return OkStatus();
  }
  Dims in_strides = contiguous_strides(x.dims());
  int64_t inner_out = out_dims[r - 1], inner_in = x.dim(r - 1), before_inner = pads[r - 1];
  int64_t rows = out->numel() / inner_out;
  // The inner-dimension source map is the same for every row; it is kept
  // as segments: runs of consecutive source elements, copied in one go,
  // runs of one source element (edge padding) and runs of the constant.
  // Element by element and on one core, a Pad of [8, 64, 56, 56] took 2.5x
  // ONNX Runtime's time. Reflecting or wrapping a short axis starts a
  // segment every few columns, so only the first kMaxSegments are kept and
  // later columns are mapped one by one: a list for every column took 24
  // bytes a column, 24 times a padded uint8 row.
  constexpr size_t kMaxSegments = 256;
  struct Segment {
    int64_t begin, end, src;  // output columns [begin, end) from src, src + 1, ...; src < 0: the constant
    bool repeat;              // from src alone
  };
  std::vector<Segment> segments;
  int64_t mapped = 0;  // the columns the segments cover
  for (; mapped < inner_out; ++mapped) {
    const int64_t j = mapped, m = pad_source(j, before_inner, inner_in, mode_);
    Segment* last = segments.empty() ? nullptr : &segments.back();
    const int64_t len = last ? j - last->begin : 0;
    if (last && m < 0 && last->src < 0) {
      last->end = j + 1;
    } else if (last && m >= 0 && last->src >= 0 && m == last->src && (last->repeat || len == 1)) {
      last->repeat = true;
      last->end = j + 1;
    } else if (last && m >= 0 && last->src >= 0 && !last->repeat && m == last->src + len) {
      last->end = j + 1;
    } else if (segments.size() < kMaxSegments) {
      segments.push_back({j, j + 1, m < 0 ? -1 : m, false});
    } else {
      break;
    }
  }
  DataType dt = x.dtype();
  visit_storage(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.data<T>();
    T* dst = out->data<T>();
    const T c = *static_cast<const T*>(cval.ptr(dt));
    auto run_rows = [&](int64_t begin, int64_t end) {
      Dims idx = Dims::of_rank(r - 1, 0);
      for (size_t k = r - 1, rem = static_cast<size_t>(begin); k-- > 0;) {
        idx[k] = static_cast<int64_t>(rem % static_cast<size_t>(out_dims[k]));
        rem /= static_cast<size_t>(out_dims[k]);
      }
      for (int64_t row = begin; row < end; ++row) {
        T* d = dst + row * inner_out;
        int64_t off = 0;
        bool constant_row = false;
        for (size_t k = 0; k + 1 < r; ++k) {
          int64_t si = pad_source(idx[k], pads[k], x.dim(k), mode_);
          if (si < 0) {
            constant_row = true;
            break;
          }
          off += si * in_strides[k];
        }
        if (constant_row) {
          std::fill(d, d + inner_out, c);
        } else {
          for (const Segment& g : segments) {
            if (g.src < 0) std::fill(d + g.begin, d + g.end, c);
            else if (g.repeat) std::fill(d + g.begin, d + g.end, src[off + g.src]);
            else std::copy(src + off + g.src, src + off + g.src + (g.end - g.begin), d + g.begin);
          }
          for (int64_t j = mapped; j < inner_out; ++j) {
            const int64_t m = pad_source(j, before_inner, inner_in, mode_);
            d[j] = m < 0 ? c : src[off + m];
          }
        }
        for (size_t k = r - 1; k-- > 0;) {
          if (++idx[k] < out_dims[k]) break;
          idx[k] = 0;
        }
      }
    };
    for_row_ranges(rows, inner_out, run_rows);
  });
  return OkStatus();
}

// kToSpace: DepthToSpace; otherwise SpaceToDepth.
template <bool kToSpace>
class DepthSpaceKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, parse_depth_space_attrs(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(DepthSpaceView v, depth_space_view(x.dims(), attrs_, kToSpace));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), v.out_dims));
    strided_copy(x.dtype(), out->raw(), x.raw(), v.view, v.strides);
    return OkStatus();
  }

 private:
  DepthSpaceAttrs attrs_;
};

class TriluKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    upper_ = node.attr_int("upper", 1) != 0;
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined() || x.rank() < 2) return InvalidArgument("Trilu: input must have rank >= 2");
    int64_t k = 0;
    if (ctx.has_input(1)) {
      ASSIGN_OR_RETURN(k, read_int_scalar(ctx.input(1), "Trilu k"));
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), x.dims()));
    int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
    int64_t mats = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
    // Beyond these bounds every k keeps all or nothing: clamped, i + k
    // cannot overflow.
    k = std::clamp<int64_t>(k, -rows - 1, cols + 1);
    visit_storage(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* s = x.data<T>();
      T* d = out->data<T>();
      // Row i keeps columns j - i >= k (upper) or j - i <= k (lower): one
      // copied range and one zeroed, where a compare per element took 4.8x
      // ONNX Runtime's time.
      for_each_row(mats * rows, cols, [&](int64_t row) {
        const int64_t i = row % rows, edge = std::clamp<int64_t>(upper_ ? i + k : i + k + 1, 0, cols);
        const T* src = s + row * cols;
        T* dst = d + row * cols;
        if (upper_) {
          std::fill(dst, dst + edge, T{});
          std::copy(src + edge, src + cols, dst + edge);
        } else {
          std::copy(src, src + edge, dst);
          std::fill(dst + edge, dst + cols, T{});
        }
      });
    });
    return OkStatus();
  }

 private:
  bool upper_ = true;
};

class ReverseSequenceKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(axes_, reverse_sequence_axes(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const ReverseSequencePlan p, plan_reverse_sequence(ctx, axes_));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), x.dims()));
    for (size_t j = 0; j < p.rows.size(); ++j)
      copy_elements(x.dtype(), out->raw(), static_cast<int64_t>(j) * p.inner, x.raw(), p.rows[j] * p.inner, p.inner);
    return OkStatus();
  }

 private:
  SequenceAxes axes_;
};

// CenterCropPad (opset 18): each named axis cropped or zero-padded to its
// requested size about its centre; an odd difference puts the extra
// element (cropped or padded) at the end, as in the ONNX reference.
class CenterCropPadKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    has_axes_ = node.has_attr("axes");
    axes_ = node.attr_ints("axes");
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const Dims pads, center_crop_pads(ctx, has_axes_, axes_));
    const Tensor& x = ctx.input(0);
    const size_t r = x.rank();
    ASSIGN_OR_RETURN(const Dims out, pad_output_dims(x.dims(), pads, PadMode::kConstant));
    // Per axis: where the kept elements start in the input and in the
    // output, and how many there are.
    Dims from = Dims::of_rank(r), to = Dims::of_rank(r), keep = x.dims();
    for (size_t a = 0; a < r; ++a) {
      from[a] = std::max<int64_t>(-pads[a], 0);
      to[a] = std::max<int64_t>(pads[a], 0);
      keep[a] = std::min(out[a], x.dim(a));
    }
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), out));
    if (y->numel() == 0) return OkStatus();
    const Dims xs = contiguous_strides(x.dims()), ys = contiguous_strides(out);
    int64_t x0 = 0, y0 = 0;
    for (size_t k = 0; k < r; ++k) {
      x0 += from[k] * xs[k];
      y0 += to[k] * ys[k];
    }
    const int64_t es = static_cast<int64_t>(dtype_size(x.dtype()));
    if (keep == out) {  // only crops: a slice of the input
      strided_copy(x.dtype(), y->raw(), static_cast<const char*>(x.raw()) + x0 * es, out, xs);
      return OkStatus();
    }
    fill_elements(x.dtype(), y->raw(), y->numel(), ScalarValue{}.ptr(x.dtype()));  // zero, false or ""
    if (keep.numel() == 0) return OkStatus();
    // The kept box, a row (its last axis) at a time.
    const int64_t row = r ? keep[r - 1] : 1, rows = keep.numel() / row;
    Dims idx = Dims::of_rank(r);
    for (int64_t n = 0; n < rows; ++n) {
      int64_t xo = x0, yo = y0;
      for (size_t k = 0; k + 1 < r; ++k) {
        xo += idx[k] * xs[k];
        yo += idx[k] * ys[k];
      }
      copy_elements(x.dtype(), y->raw(), yo, x.raw(), xo, row);
      for (size_t k = r - 1; k-- > 0;) {
        if (++idx[k] < keep[k]) break;
        idx[k] = 0;
      }
    }
    return OkStatus();
  }

 private:
  bool has_axes_ = false;
  std::vector<int64_t> axes_;
};

}  // namespace

void register_movement_kernels(KernelRegistry& r) {
  add_kernel<TransposeKernel>(r, "Transpose", 1);
  add_kernel<ConcatKernel>(r, "Concat", 1);
  add_kernel<SplitKernel>(r, "Split", 1, kBit1);
  add_kernel<SliceKernel>(r, "Slice", 1, kBit1 | kBit2 | kBit3 | kBit4);
  add_kernel<TileKernel>(r, "Tile", 1, kBit1);
  add_kernel<PadKernel>(r, "Pad", 1, kBit1 | kBit2 | kBit3);
  add_kernel<DepthSpaceKernel<true>>(r, "DepthToSpace", 1);
  add_kernel<DepthSpaceKernel<false>>(r, "SpaceToDepth", 1);
  add_kernel<TriluKernel>(r, "Trilu", 14, kBit1);
  add_kernel<ReverseSequenceKernel>(r, "ReverseSequence", 10, kBit1);
  add_kernel<CenterCropPadKernel>(r, "CenterCropPad", 18, kBit1);
}

}  // namespace sy::tensor_ops
