// CPU kernels for sequences and optionals: SequenceConstruct/Empty/At/Insert/
// Erase/Length, SplitToSequence, ConcatFromSequence, Optional,
// OptionalHasElement, OptionalGetElement. Also registers the miscellaneous
// families that live in misc_*.cc (signal, text, training).
//
// Sequences are immutable shared values: ops that change a sequence build a
// new one. The tensors inside are shared (Tensor copies share buffers), so
// SequenceAt/Insert/Construct never copy element data.
//
// All kernels are stateless after init(); compute() is const and thread-safe.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "devices/cpu/cpu_kernels.h"

namespace sy {

namespace {

RuntimeValue seq_value(std::shared_ptr<Sequence> s) { return RuntimeValue(std::shared_ptr<const Sequence>(std::move(s))); }

// The sequence held by input i, or InvalidArgument when it is absent or not a
// sequence (e.g. SequenceAt applied to a tensor).
StatusOr<const Sequence*> input_sequence(const KernelContext& ctx, size_t i) {
  const RuntimeValue& v = ctx.input_value(i);
  if (!v.is_sequence() || !v.sequence())
    return InvalidArgument(ctx.node().describe(), ": input ", i, " must be a sequence");
  return v.sequence().get();
}

StatusOr<const Tensor*> input_tensor(const KernelContext& ctx, size_t i) {
  const RuntimeValue& v = ctx.input_value(i);
  if (!v.is_tensor() || !v.tensor().defined())
    return InvalidArgument(ctx.node().describe(), ": input ", i, " must be a tensor");
  return &v.tensor();
}

// Reads an int32/int64 scalar (or one-element) position tensor.
StatusOr<int64_t> read_position(const KernelContext& ctx, size_t i) {
  ASSIGN_OR_RETURN(const Tensor* t, input_tensor(ctx, i));
  if (t->dtype() != DataType::kInt32 && t->dtype() != DataType::kInt64)
    return InvalidArgument(ctx.node().describe(), ": position must be int32 or int64, got ", t->describe());
  if (t->numel() != 1 || t->rank() > 1)
    return InvalidArgument(ctx.node().describe(), ": position must be a scalar, got ", t->describe());
  return t->int_at(0);
}

// Copies `count` elements; strings are assigned, everything else is raw bytes.
void copy_elems(const Tensor& src, int64_t src_off, Tensor& dst, int64_t dst_off, int64_t count) {
  if (count <= 0) return;
  if (src.dtype() == DataType::kString) {
    const std::string* s = src.data<std::string>() + src_off;
    std::string* d = dst.data<std::string>() + dst_off;
    for (int64_t k = 0; k < count; ++k) d[k] = s[k];
    return;
  }
  size_t es = dtype_size(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw()) + static_cast<size_t>(dst_off) * es,
              static_cast<const char*>(src.raw()) + static_cast<size_t>(src_off) * es, static_cast<size_t>(count) * es);
}

int64_t prod(const Dims& d, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= d[i];
  return p;
}

// ---------------------------------------------------------------- sequences

class SequenceConstructKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    if (ctx.num_inputs() == 0) return InvalidArgument(ctx.node().describe(), ": needs at least one input");
    auto seq = std::make_shared<Sequence>();
    seq->items.reserve(ctx.num_inputs());
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      ASSIGN_OR_RETURN(const Tensor* t, input_tensor(ctx, i));
      if (i == 0) seq->elem = t->dtype();
      if (t->dtype() != seq->elem)
        return InvalidArgument(ctx.node().describe(), ": input ", i, " is ", t->describe(), " but input 0 is ",
                               dtype_name(seq->elem));
      seq->items.push_back(*t);
    }
    ctx.set_output(0, seq_value(std::move(seq)));
    return OkStatus();
  }
};

class SequenceEmptyKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    int64_t dt = node.attr_int("dtype", static_cast<int64_t>(DataType::kFloat));
    if (dt > INT32_MAX || dt < 0 || !dtype_is_valid(static_cast<int>(dt)) || dt == 0)
      return InvalidArgument(node.describe(), ": invalid dtype ", dt);
    elem_ = static_cast<DataType>(dt);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    auto seq = std::make_shared<Sequence>();
    seq->elem = elem_;
    ctx.set_output(0, seq_value(std::move(seq)));
    return OkStatus();
  }

 private:
  DataType elem_ = DataType::kFloat;
};

class SequenceAtKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const Sequence* seq, input_sequence(ctx, 0));
    if (!ctx.has_input(1)) return InvalidArgument(ctx.node().describe(), ": position is required");
    ASSIGN_OR_RETURN(int64_t pos, read_position(ctx, 1));
    int64_t n = static_cast<int64_t>(seq->items.size());
    if (pos < -n || pos >= n)
      return OutOfRange(ctx.node().describe(), ": position ", pos, " out of range for a sequence of length ", n);
    if (pos < 0) pos += n;
    ctx.set_output(0, RuntimeValue(seq->items[static_cast<size_t>(pos)]));
    return OkStatus();
  }
};

class SequenceInsertKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const Sequence* seq, input_sequence(ctx, 0));
    ASSIGN_OR_RETURN(const Tensor* t, input_tensor(ctx, 1));
    // Checked against the items rather than `elem`: an empty sequence's element
    // type is only as good as whoever built it, and a mismatch there cannot
    // corrupt anything.
    if (!seq->items.empty() && t->dtype() != seq->items[0].dtype())
      return InvalidArgument(ctx.node().describe(), ": cannot insert ", t->describe(), " into a sequence of ",
                             dtype_name(seq->items[0].dtype()));
    int64_t n = static_cast<int64_t>(seq->items.size());
    int64_t pos = n;
    if (ctx.has_input(2)) {
      ASSIGN_OR_RETURN(pos, read_position(ctx, 2));
      if (pos < -n || pos > n)
        return OutOfRange(ctx.node().describe(), ": position ", pos, " out of range for a sequence of length ", n);
      if (pos < 0) pos += n;
    }
    auto out = std::make_shared<Sequence>();
    out->elem = t->dtype();
    out->items.reserve(seq->items.size() + 1);
    out->items.insert(out->items.end(), seq->items.begin(), seq->items.begin() + pos);
    out->items.push_back(*t);
    out->items.insert(out->items.end(), seq->items.begin() + pos, seq->items.end());
    ctx.set_output(0, seq_value(std::move(out)));
    return OkStatus();
  }
};

class SequenceEraseKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const Sequence* seq, input_sequence(ctx, 0));
    int64_t n = static_cast<int64_t>(seq->items.size());
    int64_t pos = -1;
    if (ctx.has_input(1)) {
      ASSIGN_OR_RETURN(pos, read_position(ctx, 1));
    }
    if (pos < -n || pos >= n)
      return OutOfRange(ctx.node().describe(), ": position ", pos, " out of range for a sequence of length ", n);
    if (pos < 0) pos += n;
    auto out = std::make_shared<Sequence>();
    out->elem = seq->elem;
    out->items.reserve(seq->items.size() - 1);
    for (int64_t i = 0; i < n; ++i)
      if (i != pos) out->items.push_back(seq->items[static_cast<size_t>(i)]);
    ctx.set_output(0, seq_value(std::move(out)));
    return OkStatus();
  }
};

class SequenceLengthKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const Sequence* seq, input_sequence(ctx, 0));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, DataType::kInt64, Dims{}));
    out->data<int64_t>()[0] = static_cast<int64_t>(seq->items.size());
    return OkStatus();
  }
};

class SplitToSequenceKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axis_ = node.attr_int("axis", 0);
    keepdims_ = node.attr_int("keepdims", 1) != 0;
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const std::string where = ctx.node().describe();
    ASSIGN_OR_RETURN(const Tensor* x, input_tensor(ctx, 0));
    const int64_t r = static_cast<int64_t>(x->rank());
    if (r == 0) return InvalidArgument(where, ": input must have rank >= 1");
    if (axis_ < -r || axis_ >= r) return InvalidArgument(where, ": axis ", axis_, " out of range for rank ", r);
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + r : axis_);
    const int64_t dim = x->dim(axis);

    std::vector<int64_t> lengths;
    bool squeeze = false;
    if (!ctx.has_input(1)) {
      lengths.assign(static_cast<size_t>(dim), 1);
      squeeze = !keepdims_;
    } else {
      ASSIGN_OR_RETURN(const Tensor* split, input_tensor(ctx, 1));
      if (split->dtype() != DataType::kInt32 && split->dtype() != DataType::kInt64)
        return InvalidArgument(where, ": split must be int32 or int64, got ", split->describe());
      if (split->rank() == 0) {
        int64_t len = split->int_at(0);
        if (len <= 0) return InvalidArgument(where, ": split must be positive, got ", len);
        for (int64_t done = 0; done < dim;) {
          int64_t piece = std::min(len, dim - done);
          lengths.push_back(piece);
          done += piece;
        }
      } else if (split->rank() == 1) {
        int64_t sum = 0;
        for (int64_t i = 0; i < split->numel(); ++i) {
          int64_t len = split->int_at(i);
          if (len < 0) return InvalidArgument(where, ": split lengths must be >= 0, got ", len);
          if (len > dim - sum) return InvalidArgument(where, ": split lengths exceed axis ", axis, " of size ", dim);
          sum += len;
          lengths.push_back(len);
        }
        if (sum != dim)
          return InvalidArgument(where, ": split lengths sum to ", sum, " but axis ", axis, " has size ", dim);
      } else {
        return InvalidArgument(where, ": split must be a scalar or 1-D, got ", split->describe());
      }
    }

    const Dims& xd = x->dims();
    const int64_t outer = prod(xd, 0, axis);
    const int64_t inner = prod(xd, axis + 1, xd.size());
    auto seq = std::make_shared<Sequence>();
    seq->elem = x->dtype();
    seq->items.reserve(lengths.size());
    int64_t start = 0;
    for (int64_t len : lengths) {
      Dims d = xd;
      d[axis] = len;
      ASSIGN_OR_RETURN(Tensor piece, ctx.device().allocate(x->dtype(), d));
      for (int64_t o = 0; o < outer; ++o)
        copy_elems(*x, (o * dim + start) * inner, piece, o * len * inner, len * inner);
      if (squeeze) {
        d.erase(axis);
        piece = piece.reshaped(std::move(d));
      }
      seq->items.push_back(std::move(piece));
      start += len;
    }
    ctx.set_output(0, seq_value(std::move(seq)));
    return OkStatus();
  }

 private:
  int64_t axis_ = 0;
  bool keepdims_ = true;
};

class ConcatFromSequenceKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    if (!node.has_attr("axis")) return InvalidArgument(node.describe(), ": attribute 'axis' is required");
    axis_ = node.attr_int("axis", 0);
    new_axis_ = node.attr_int("new_axis", 0) != 0;
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const std::string where = ctx.node().describe();
    ASSIGN_OR_RETURN(const Sequence* seq, input_sequence(ctx, 0));
    if (seq->items.empty()) return InvalidArgument(where, ": cannot concatenate an empty sequence");
    const Tensor& first = seq->items[0];
    const int64_t r = static_cast<int64_t>(first.rank());
    const int64_t out_rank = new_axis_ ? r + 1 : r;
    if (out_rank == 0) return InvalidArgument(where, ": cannot concatenate scalars without new_axis");
    if (axis_ < -out_rank || axis_ >= out_rank)
      return InvalidArgument(where, ": axis ", axis_, " out of range for rank ", out_rank);
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + out_rank : axis_);

    // View every item with the output's rank: new_axis inserts a 1 at axis.
    std::vector<Tensor> items;
    items.reserve(seq->items.size());
    Dims out_dims;
    for (size_t k = 0; k < seq->items.size(); ++k) {
      const Tensor& t = seq->items[k];
      if (!t.defined() || t.dtype() != first.dtype())
        return InvalidArgument(where, ": item ", k, " is ", t.describe(), " but item 0 is ", first.describe());
      if (!t.space().is_host_accessible())
        return InvalidArgument(where, ": item ", k, " is in ", t.space().to_string(), ", not host memory");
      Dims d = t.dims();
      if (new_axis_) d.insert(axis, 1);
      if (d.size() != static_cast<size_t>(out_rank))
        return InvalidArgument(where, ": item ", k, " has shape ", t.dims().to_string(), ", item 0 has ",
                               first.dims().to_string());
      if (k == 0) {
        out_dims = d;
      } else {
        for (size_t i = 0; i < d.size(); ++i)
          if (i != axis && d[i] != out_dims[i])
            return InvalidArgument(where, ": item ", k, " has shape ", t.dims().to_string(), ", item 0 has ",
                                   first.dims().to_string());
        out_dims[axis] += d[axis];
      }
      items.push_back(t.reshaped(std::move(d)));
    }

    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, first.dtype(), out_dims));
    const int64_t outer = prod(out_dims, 0, axis);
    const int64_t inner = prod(out_dims, axis + 1, out_dims.size());
    const int64_t total = out_dims[axis];
    int64_t start = 0;
    for (const Tensor& t : items) {
      const int64_t len = t.dim(axis);
      for (int64_t o = 0; o < outer; ++o)
        copy_elems(t, o * len * inner, *out, (o * total + start) * inner, len * inner);
      start += len;
    }
    return OkStatus();
  }

 private:
  int64_t axis_ = 0;
  bool new_axis_ = false;
};

// ---------------------------------------------------------------- optionals

class OptionalKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    RuntimeValue v;
    if (ctx.has_input(0)) v = ctx.input_value(0);
    v.set_optional(true);
    ctx.set_output(0, std::move(v));
    return OkStatus();
  }
};

class OptionalHasElementKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, DataType::kBool, Dims{}));
    out->data<bool>()[0] = ctx.has_input(0);
    return OkStatus();
  }
};

class OptionalGetElementKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    if (!ctx.has_input(0))
      return InvalidArgument(ctx.node().describe(), ": the optional input is empty");
    RuntimeValue v = ctx.input_value(0);
    v.set_optional(false);
    ctx.set_output(0, std::move(v));
    return OkStatus();
  }
};

void add(KernelRegistry& r, const char* op, int since, KernelFactory f, uint64_t host_inputs = 0,
         bool data_dependent = false) {
  KernelDef d;
  d.op = op;
  d.since_version = since;
  d.factory = f;
  d.host_inputs = host_inputs;
  d.data_dependent_shape = data_dependent;
  r.add(std::move(d));
}

}  // namespace

void register_cpu_sequence_kernels(KernelRegistry& r) {
  add(r, "SequenceConstruct", 11, &make_kernel<SequenceConstructKernel>);
  add(r, "SequenceEmpty", 11, &make_kernel<SequenceEmptyKernel>);
  add(r, "SequenceAt", 11, &make_kernel<SequenceAtKernel>, 1u << 1);
  add(r, "SequenceInsert", 11, &make_kernel<SequenceInsertKernel>, 1u << 2);
  add(r, "SequenceErase", 11, &make_kernel<SequenceEraseKernel>, 1u << 1);
  add(r, "SequenceLength", 11, &make_kernel<SequenceLengthKernel>);
  add(r, "SplitToSequence", 11, &make_kernel<SplitToSequenceKernel>, 1u << 1);
  add(r, "ConcatFromSequence", 11, &make_kernel<ConcatFromSequenceKernel>);
  add(r, "Optional", 15, &make_kernel<OptionalKernel>);
  add(r, "OptionalHasElement", 15, &make_kernel<OptionalHasElementKernel>);
  add(r, "OptionalGetElement", 15, &make_kernel<OptionalGetElementKernel>);

  register_cpu_misc_signal_kernels(r);
  register_cpu_misc_text_kernels(r);
  register_cpu_misc_training_kernels(r);
}

}  // namespace sy
