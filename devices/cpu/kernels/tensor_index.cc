// CPU indexing kernels: Gather, GatherElements, GatherND, Scatter,
// ScatterElements, ScatterND, OneHot, NonZero, Compress, Unique. Every index
// read from data is range-checked before any element is touched, so a bad
// index yields OutOfRange instead of a wild read or write.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <numeric>
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/index_checks.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/cpu/kernels/tensor_register.h"
#include "devices/cpu/kernels/wrapping.h"
#include "devices/host_allocator.h"

namespace sy::tensor_ops {
namespace {

inline int64_t index_at(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kInt64 ? t.data<int64_t>()[i] : t.data<int32_t>()[i];
}

// Returns idx normalised to [0, n) or OutOfRange naming the index and bound.
inline StatusOr<int64_t> checked_index(int64_t idx, int64_t n, const char* op, int64_t pos) {
  if (idx < -n || idx >= n)
    return OutOfRange(op, ": index ", idx, " at position ", pos, " is out of range [", -n, ", ", n - 1, "]");
  return idx < 0 ? idx + n : idx;
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
    ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, r, "Gather axis"));
    int64_t n = x.dim(axis), nidx = ind.numel();
    Dims out_dims;
    for (int64_t k = 0; k < axis; ++k) out_dims.push_back(x.dim(k));
    for (int64_t d : ind.dims()) out_dims.push_back(d);
    for (int64_t k = axis + 1; k < r; ++k) out_dims.push_back(x.dim(k));
    // Normalised once: the copy below visits each index `outer` times.
    std::vector<int64_t> idx(static_cast<size_t>(nidx));
    for (int64_t i = 0; i < nidx; ++i) {
      ASSIGN_OR_RETURN(idx[i], checked_index(index_at(ind, i), n, "Gather", i));
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), out_dims));
    if (out->numel() == 0) return OkStatus();
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= x.dim(k);
    for (int64_t k = axis + 1; k < r; ++k) inner *= x.dim(k);
    visit_storage(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* dst = static_cast<T*>(out->raw());
      const T* src = static_cast<const T*>(x.raw());
      // Rows are (outer, index) pairs of `inner` elements. Single elements
      // (Gather along the last axis) are assigned: a memcpy call for each
      // cost more than the gather itself.
      for_row_ranges(outer * nidx, inner, [&](int64_t begin, int64_t end) {
        int64_t o = begin / nidx, i = begin % nidx;
        for (int64_t row = begin; row < end; ++row) {
          const T* s = src + (o * n + idx[i]) * inner;
          T* d = dst + row * inner;
          if (inner == 1)
            *d = *s;
          else
            std::copy_n(s, inner, d);
          if (++i == nidx) i = 0, ++o;
        }
      });
    });
    return OkStatus();
  }

 private:
  int64_t axis_ = 0;
};

using Reduction = ScatterReduction;

template <typename T>
inline T combine(T a, T b, Reduction r) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T(combine<float>(static_cast<float>(a), static_cast<float>(b), r));
  } else if constexpr (std::is_same_v<T, bool>) {
    switch (r) {
      case Reduction::kAdd: case Reduction::kMax: return a || b;
      case Reduction::kMul: case Reduction::kMin: return a && b;
      default: return b;
    }
  } else {
    switch (r) {
      case Reduction::kAdd: return static_cast<T>(a + b);
      case Reduction::kMul: return static_cast<T>(a * b);
      // A NaN on either side gives NaN (std::max kept the destination's
      // value against a NaN update).
      case Reduction::kMax: return max_nan(a, b);
      case Reduction::kMin: return min_nan(a, b);
      default: return b;
    }
  }
}

// Calls f(Tag<T>{}) with the arithmetic type when reducing, else the storage type.
template <typename F>
bool visit_for_reduction(DataType dt, Reduction r, F&& f) {
  if (r == Reduction::kNone) return visit_storage(dt, f);
  return visit_numeric(dt, [&](auto tag) { f(Tag<decltype(tag)>{}); });
}

// Shared walk for GatherElements and Scatter(Elements): calls
// visit(i, offset) once with the data offset of every element i of `ind`
// (shapes already checked by check_elements_indices), and returns OutOfRange
// naming the first bad index in order. Row by row over the last axis, with
// the index type fixed per call: a StatusOr, a type switch and a vector of
// offsets per element cost about 7 ns an element (GatherElements over
// [256, 1024]: 1.9 ms). Large walks split their rows over the cores, so
// `visit` may run concurrently for different i.
template <typename Visit>
Status walk_elements(const Tensor& x, const Tensor& ind, int64_t axis, const char* op, Visit&& visit) {
  const size_t r = x.rank();
  const Dims strides = contiguous_strides(x.dims());
  const int64_t n = ind.numel();
  if (n == 0) return OkStatus();
  const int64_t last = ind.dim(r - 1), rows = n / last;
  const int64_t dim = x.dim(axis), axis_stride = strides[axis];
  const int64_t column_stride = static_cast<size_t>(axis) == r - 1 ? 0 : 1;
  std::mutex mu;
  int64_t bad_at = n;  // under mu: the position of the first bad index found
  Status st;
  auto walk = [&](const auto* data, int64_t row0, int64_t row1) {
    // Locals, and a copy of the visitor: reached through the captures, they
    // were reloaded after every store (2-3x the loop's time).
    const int64_t len = dim, step = axis_stride, column = column_stride, width = last;
    auto f = visit;
    Dims idx = Dims::of_rank(r, 0);
    int64_t base = 0;  // offset of the row's start, with the axis coordinate at 0
    for (int64_t k = static_cast<int64_t>(r) - 2, rest = row0; k >= 0; --k) {
      idx[k] = rest % ind.dim(k);
      rest /= ind.dim(k);
      if (k != axis) base += idx[k] * strides[k];
    }
    const auto* in = data + row0 * width;
    for (int64_t row = row0; row < row1; ++row, in += width) {
      for (int64_t j = 0; j < width; ++j) {
        const auto a = static_cast<int64_t>(in[j]);
        const int64_t at = a < 0 ? a + len : a;
        if (at < 0 || at >= len) {
          const int64_t pos = row * width + j;
          std::lock_guard<std::mutex> lock(mu);
          if (pos < bad_at) {
            bad_at = pos;
            st = checked_index(a, len, op, pos).status();
          }
          return;
        }
        f(row * width + j, base + at * step + j * column);
      }
      for (size_t k = r - 1; k-- > 0;) {  // the next row
        if (static_cast<int64_t>(k) != axis) base += strides[k];
        if (++idx[k] < ind.dim(k)) break;
        if (static_cast<int64_t>(k) != axis) base -= idx[k] * strides[k];
        idx[k] = 0;
      }
    }
  };
  auto run = [&](const auto* data) {
    for_row_ranges(rows, last, [&](int64_t begin, int64_t end) { walk(data, begin, end); });
  };
  if (ind.dtype() == DataType::kInt64) run(ind.data<int64_t>());
  else run(ind.data<int32_t>());
  return st;
}

// GatherElements along the last axis of a contiguous x with indices of
// its shape but the last axis, the usual case: a row of x per row of
// indices, with none of walk_elements' offset arithmetic ([256, 1024]:
// 140-190 us to 86-111). False, with `d` partly written, where a case is
// not this one or an index is out of range; walk_elements then does the
// work and names the first bad index.
template <typename T>
bool gather_last_axis(const Tensor& x, const Tensor& ind, int64_t axis, const T* s, T* d) {
  const size_t r = x.rank();
  if (static_cast<size_t>(axis) != r - 1 || ind.numel() == 0) return false;
  for (size_t k = 0; k + 1 < r; ++k)
    if (ind.dim(k) != x.dim(k)) return false;
  const int64_t len = x.dim(r - 1), width = ind.dim(r - 1), rows = ind.numel() / width;
  std::atomic<bool> bad{false};
  auto run = [&](const auto* index) {
    for_row_ranges(rows, width, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const T* src = s + row * len;
        const auto* in = index + row * width;
        T* dst = d + row * width;
        for (int64_t j = 0; j < width; ++j) {
          const auto a = static_cast<int64_t>(in[j]);
          const int64_t at = a < 0 ? a + len : a;
          if (static_cast<uint64_t>(at) >= static_cast<uint64_t>(len)) {
            bad.store(true);
            return;
          }
          dst[j] = src[at];
        }
      }
    });
  };
  if (ind.dtype() == DataType::kInt64) run(ind.data<int64_t>());
  else run(ind.data<int32_t>());
  return !bad.load();
}

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
    if (x.rank() == 0) return InvalidArgument("GatherElements: data must have rank >= 1");
    ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, x.rank(), "GatherElements axis"));
    RETURN_IF_ERROR(check_elements_indices(x, ind, axis, "GatherElements"));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), ind.dims()));
    Status st;
    visit_storage(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* s = x.data<T>();
      T* d = out->data<T>();
      if (gather_last_axis(x, ind, axis, s, d)) return;
      st = walk_elements(x, ind, axis, "GatherElements", [s, d](int64_t i, int64_t off) { d[i] = s[off]; });
    });
    return st;
  }

 private:
  int64_t axis_ = 0;
};

class ScatterElementsKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axis_ = node.attr_int("axis", 0);
    ASSIGN_OR_RETURN(reduction_, parse_scatter_reduction(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    const Tensor& upd = ctx.input(2);
    ASSIGN_OR_RETURN(int64_t axis, check_scatter_elements(x, ind, upd, reduction_, axis_));
    // Every index is checked before the output is touched.
    std::vector<int64_t> offsets(static_cast<size_t>(ind.numel()));
    RETURN_IF_ERROR(walk_elements(x, ind, axis, "ScatterElements",
                                  [o = offsets.data()](int64_t i, int64_t off) { o[i] = off; }));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), x.dims()));
    copy_elements(x.dtype(), out->raw(), 0, x.raw(), 0, x.numel());
    Reduction red = reduction_;
    visit_for_reduction(x.dtype(), red, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* u = upd.data<T>();
      T* d = out->data<T>();
      for (size_t i = 0; i < offsets.size(); ++i) {
        if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, Bytes16>) {
          d[offsets[i]] = u[i];
        } else if (red == Reduction::kNone) {
          d[offsets[i]] = u[i];
        } else {
          d[offsets[i]] = combine<T>(d[offsets[i]], u[i], red);
        }
      }
    });
    return OkStatus();
  }

 private:
  int64_t axis_ = 0;
  Reduction reduction_ = Reduction::kNone;
};

class GatherNDKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(batch_dims_, parse_batch_dims(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    ASSIGN_OR_RETURN(const GatherNDShape s, check_gather_nd(x, ind, batch_dims_));
    const int64_t b = batch_dims_, k = s.k, slice = s.slice, batch = s.batch, tuples = s.tuples;
    Dims strides = contiguous_strides(x.dims());
    int64_t per_batch = batch == 0 ? 0 : tuples / batch;
    int64_t batch_stride = b > 0 ? strides[b - 1] : 0;
    std::vector<int64_t> offsets(static_cast<size_t>(tuples));
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t off = per_batch ? (t / per_batch) * batch_stride : 0;
      for (int64_t j = 0; j < k; ++j) {
        ASSIGN_OR_RETURN(int64_t a, checked_index(index_at(ind, t * k + j), x.dim(b + j), "GatherND", t * k + j));
        off += a * strides[b + j];
      }
      offsets[t] = off;
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), s.out_dims));
    DataType dt = x.dtype();
    for_each_row(tuples, slice, [&](int64_t t) { copy_elements(dt, out->raw(), t * slice, x.raw(), offsets[t], slice); });
    return OkStatus();
  }

 private:
  int64_t batch_dims_ = 0;
};

class ScatterNDKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(reduction_, parse_scatter_reduction(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    const Tensor& upd = ctx.input(2);
    ASSIGN_OR_RETURN(const ScatterNDShape s, check_scatter_nd(x, ind, upd, reduction_));
    const int64_t k = s.k, slice = s.slice, tuples = s.tuples;
    Dims strides = contiguous_strides(x.dims());
    std::vector<int64_t> offsets(static_cast<size_t>(tuples));
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t off = 0;
      for (int64_t j = 0; j < k; ++j) {
        ASSIGN_OR_RETURN(int64_t a, checked_index(index_at(ind, t * k + j), x.dim(j), "ScatterND", t * k + j));
        off += a * strides[j];
      }
      offsets[t] = off;
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), x.dims()));
    copy_elements(x.dtype(), out->raw(), 0, x.raw(), 0, x.numel());
    Reduction red = reduction_;
    visit_for_reduction(x.dtype(), red, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* u = upd.data<T>();
      T* d = out->data<T>();
      for (int64_t t = 0; t < tuples; ++t)
        for (int64_t e = 0; e < slice; ++e) {
          T& dst = d[offsets[t] + e];
          if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, Bytes16>) {
            dst = u[t * slice + e];
          } else if (red == Reduction::kNone) {
            dst = u[t * slice + e];
          } else {
            dst = combine<T>(dst, u[t * slice + e], red);
          }
        }
    });
    return OkStatus();
  }

 private:
  Reduction reduction_ = Reduction::kNone;
};

// OneHot follows the ONNX spec: indices outside [-depth, depth-1] produce an
// all-off row (they are never used to address memory).
class OneHotKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axis_ = node.attr_int("axis", -1);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& ind = ctx.input(0);
    const Tensor& depth_t = ctx.input(1);
    const Tensor& values = ctx.input(2);
    ASSIGN_OR_RETURN(const OneHotShape s, check_one_hot(ind, depth_t, values, axis_));
    const int64_t depth = s.depth, outer = s.outer, inner = s.inner;
    const auto dd = static_cast<double>(depth);
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, values.dtype(), s.out_dims));
    ScalarValue off = scalar_from_tensor(values, 0), on = scalar_from_tensor(values, 1);
    DataType dt = values.dtype();
    fill_elements(dt, out->raw(), out->numel(), off.ptr(dt));
    if (ind.numel() == 0) return OkStatus();  // empty indices may claim 2^40 rows of nothing
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        double v = ind.double_at(o * inner + i);
        if (!(v > -dd - 1 && v < dd)) continue;  // NaN too
        int64_t idx = static_cast<int64_t>(v);   // toward 0: -depth - 0.5 gives -depth
        if (idx < 0) idx += depth;
        copy_elements(dt, out->raw(), (o * depth + idx) * inner + i, on.ptr(dt), 0, 1);
      }
    return OkStatus();
  }

 private:
  int64_t axis_ = -1;
};

template <typename T>
inline bool is_nonzero(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) return !v.empty();
  else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) return static_cast<float>(v) != 0.f;
  else return v != T(0);
}

// Calls f(Tag<T>{}) with the value type (numeric or string).
template <typename F>
bool visit_values(DataType dt, F&& f) {
  if (dt == DataType::kString) {
    f(Tag<std::string>{});
    return true;
  }
  return visit_numeric(dt, [&](auto tag) { f(Tag<decltype(tag)>{}); });
}

class NonZeroKernel final : public Kernel {
 public:
  // Two passes: count, then write each row of the last axis's hits. Their
  // columns are collected without a branch, and the other coordinates are
  // the row's, filled in runs. Pushing every hit's flat index and dividing
  // it back into coordinates (two 64-bit divisions a dimension) took 3.2 ms
  // for a [256, 1024] bool tensor half true, 1.1x ONNX Runtime.
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("NonZero: input is missing");
    const int64_t n = x.numel(), r = static_cast<int64_t>(x.rank());
    const int64_t last = r == 0 ? 1 : x.dim(r - 1), rows = n / std::max<int64_t>(last, 1);
    int64_t nnz = 0;
    bool ok = visit_values(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* p = x.data<T>();
      for (int64_t i = 0; i < n; ++i) nnz += is_nonzero(p[i]);
    });
    if (!ok) return InvalidArgument("NonZero: unsupported type ", dtype_name(x.dtype()));
    // A scalar has no coordinates: [0, nnz], as the spec says (numpy and
    // ONNX Runtime give one row of 0s instead).
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, DataType::kInt64, Dims{r, nnz}));
    if (nnz == 0 || r == 0) return OkStatus();
    int64_t* o = out->data<int64_t>();
    visit_values(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* p = x.data<T>();
      std::vector<int64_t> cols(static_cast<size_t>(last)), idx(static_cast<size_t>(r - 1), 0);
      int64_t at = 0;  // hits written so far
      for (int64_t row = 0; row < rows; ++row, p += last) {
        int64_t hits = 0;
        for (int64_t j = 0; j < last; ++j) {
          cols[static_cast<size_t>(hits)] = j;
          hits += is_nonzero(p[j]);
        }
        std::copy_n(cols.begin(), hits, o + (r - 1) * nnz + at);
        for (int64_t k = 0; k + 1 < r; ++k) std::fill_n(o + k * nnz + at, hits, idx[static_cast<size_t>(k)]);
        at += hits;
        for (int64_t k = r - 1; k-- > 0;) {  // the next row's coordinates
          if (++idx[static_cast<size_t>(k)] < x.dim(k)) break;
          idx[static_cast<size_t>(k)] = 0;
        }
      }
    });
    return OkStatus();
  }
};

class CompressKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    has_axis_ = node.has_attr("axis");
    axis_ = node.attr_int("axis", 0);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(const CompressPlan p, plan_compress(x, ctx.input(1), has_axis_, axis_));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), p.out));
    const int64_t m = static_cast<int64_t>(p.keep.size());
    for (int64_t o = 0; o < p.outer; ++o)
      for (int64_t j = 0; j < m; ++j)
        copy_elements(x.dtype(), out->raw(), (o * m + j) * p.inner, x.raw(), (o * p.dim + p.keep[j]) * p.inner,
                      p.inner);
    return OkStatus();
  }

 private:
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

// A strict weak order on values, NaN sorted last and equal to itself, so
// std::sort stays well-defined on any data.
template <typename T>
inline bool value_less(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return value_less<float>(static_cast<float>(a), static_cast<float>(b));
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
    return a < b;
  } else {
    return a < b;
  }
}

class UniqueKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    attrs_ = tensor_ops::UniqueAttrs::parse(node);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override;

 private:
  // An empty X along an axis: its `items` slices hold nothing, so all are
  // equal, one group (none when there are none). Answered without the
  // tables, which X may claim 2^31 items for while holding no data: the
  // outputs then go to the allocator, which refuses what it cannot hold.
  static Status empty_slices(KernelContext& ctx, const Tensor& x, int64_t axis, int64_t items);

  tensor_ops::UniqueAttrs attrs_;
};

Status UniqueKernel::empty_slices(KernelContext& ctx, const Tensor& x, int64_t axis, int64_t items) {
  const int64_t u = items > 0 ? 1 : 0;
  Dims y_dims = x.dims();
  y_dims[static_cast<size_t>(axis)] = u;
  RETURN_IF_ERROR(ctx.allocate_output(0, x.dtype(), y_dims).status());
  for (size_t i = 1; i < 4 && i < ctx.num_outputs(); ++i) {
    ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output(i, DataType::kInt64, Dims{i == 2 ? items : u}));
    int64_t* p = t->data<int64_t>();
    if (i == 2) std::fill(p, p + items, int64_t{0});  // inverse: every slice is group 0
    else if (u) p[0] = i == 1 ? 0 : items;            // indices: the first; counts: all
  }
  return OkStatus();
}

Status UniqueKernel::compute(KernelContext& ctx) const {
  const Tensor& x = ctx.input(0);
  if (!x.defined()) return InvalidArgument("Unique: input is missing");
  ASSIGN_OR_RETURN(const tensor_ops::UniqueShape shape, tensor_ops::unique_shape(x, attrs_));
  const int64_t axis = shape.axis, outer = shape.outer, items = shape.items, inner = shape.inner;
  if (attrs_.has_axis && x.numel() == 0) return empty_slices(ctx, x, axis, items);
  // order and group_of per item; firsts, counts, pos and by_first per group.
  RETURN_IF_ERROR(check_host_table_bytes(6.0 * sizeof(int64_t) * static_cast<double>(items), "Unique's tables"));
  std::vector<int64_t> order(static_cast<size_t>(items));
  std::iota(order.begin(), order.end(), 0);
  // Group ids per item after sorting; first occurrence per group.
  std::vector<int64_t> group_of(static_cast<size_t>(items));
  std::vector<int64_t> firsts, counts;
  bool ok = visit_values(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data<T>();
    auto cmp = [&](int64_t a, int64_t b) {  // lexicographic over the slice
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const T& va = p[(o * items + a) * inner + i];
          const T& vb = p[(o * items + b) * inner + i];
          if (value_less(va, vb)) return -1;
          if (value_less(vb, va)) return 1;
        }
      return 0;
    };
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
    for (int64_t j = 0; j < items; ++j) {
      if (j == 0 || cmp(order[j - 1], order[j]) != 0) {
        firsts.push_back(order[j]);
        counts.push_back(0);
      }
      group_of[order[j]] = static_cast<int64_t>(firsts.size()) - 1;
      ++counts.back();
    }
  });
  if (!ok) return InvalidArgument("Unique: unsupported type ", dtype_name(x.dtype()));
  int64_t u = static_cast<int64_t>(firsts.size());
  // Output position of each group: sorted order, or order of first occurrence.
  std::vector<int64_t> pos(static_cast<size_t>(u));
  std::iota(pos.begin(), pos.end(), 0);
  if (!attrs_.sorted) {
    std::vector<int64_t> by_first(static_cast<size_t>(u));
    std::iota(by_first.begin(), by_first.end(), 0);
    std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) { return firsts[a] < firsts[b]; });
    for (int64_t j = 0; j < u; ++j) pos[by_first[j]] = j;
  }
  Dims y_dims = attrs_.has_axis ? x.dims() : Dims{u};
  if (attrs_.has_axis) y_dims[axis] = u;
  ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), y_dims));
  for (int64_t g = 0; g < u; ++g)
    for (int64_t o = 0; o < outer; ++o)
      copy_elements(x.dtype(), y->raw(), (o * u + pos[g]) * inner, x.raw(), (o * items + firsts[g]) * inner, inner);
  if (ctx.num_outputs() > 1) {
    ASSIGN_OR_RETURN(Tensor * idx, ctx.allocate_output(1, DataType::kInt64, Dims{u}));
    for (int64_t g = 0; g < u; ++g) idx->data<int64_t>()[pos[g]] = firsts[g];
  }
  if (ctx.num_outputs() > 2) {
    ASSIGN_OR_RETURN(Tensor * inv, ctx.allocate_output(2, DataType::kInt64, Dims{items}));
    for (int64_t j = 0; j < items; ++j) inv->data<int64_t>()[j] = pos[group_of[j]];
  }
  if (ctx.num_outputs() > 3) {
    ASSIGN_OR_RETURN(Tensor * cnt, ctx.allocate_output(3, DataType::kInt64, Dims{u}));
    for (int64_t g = 0; g < u; ++g) cnt->data<int64_t>()[pos[g]] = counts[g];
  }
  return OkStatus();
}

}  // namespace

void register_index_kernels(KernelRegistry& r) {
  add_kernel<GatherKernel>(r, "Gather", 1);
  add_kernel<GatherElementsKernel>(r, "GatherElements", 11);
  add_kernel<GatherNDKernel>(r, "GatherND", 11);
  add_kernel<ScatterElementsKernel>(r, "Scatter", 9, 0, false, 10);
  add_kernel<ScatterElementsKernel>(r, "ScatterElements", 11);
  add_kernel<ScatterNDKernel>(r, "ScatterND", 11);
  add_kernel<OneHotKernel>(r, "OneHot", 9, kBit1);
  add_kernel<NonZeroKernel>(r, "NonZero", 9, 0, true);
  add_kernel<CompressKernel>(r, "Compress", 9, 0, true);
  add_kernel<UniqueKernel>(r, "Unique", 11, 0, true);
}

}  // namespace sy::tensor_ops
