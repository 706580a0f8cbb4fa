// CPU Softmax, LogSoftmax, Hardmax, CumSum and TopK: ops that work along one
// axis, viewing the input as [outer, D, inner].
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "devices/cpu/cpu_kernels.h"
#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cpu/kernels/target_clones.h"
#include "devices/cpu/kernels/vector_math.h"

namespace sy {
namespace {

using namespace reduce_detail;

// ------------------------------------------------- Softmax / LogSoftmax / Hardmax

enum class SoftmaxKind { kSoftmax, kLogSoftmax, kHardmax };

// y[0, d) *= r. Cloned for AVX-512: reading back in SSE registers the row
// that exp_shifted_sum had just stored in AVX-512 ones stalled every load
// (a quarter of Softmax's time under perf; 7% this way).
SY_TARGET_CLONES("avx512f", "default") void scale_row(float* __restrict y, float r, int64_t d) {
  for (int64_t k = 0; k < d; ++k) y[k] *= r;
}

// Softmax or LogSoftmax of one contiguous row of a full-precision type, the
// usual case (the last axis). The block path below keeps its running max
// and sum in vectors that may alias y as far as the compiler knows, so each
// element paid a load and a store there: 10 us for 1024 floats.
// Float rows take three passes: the max (max_skipping_nan, in SSE or
// AVX-512 registers), the exps and their sum together (exp_shifted_sum;
// apart, the passes that wrote x - max and summed took as long as the exp),
// and the scaling (scale_row).
template <typename T>
void softmax_row(bool log, const T* x, T* y, int64_t d) {
  T m = -std::numeric_limits<T>::infinity();  // NaNs skipped: they turn the sum NaN below
  T s;
  if constexpr (std::is_same_v<T, float>) {
    m = elementwise::max_skipping_nan(x, d);
    s = elementwise::exp_shifted_sum(x, m, y, d);
  } else {
    for (int64_t k = 0; k < d; ++k) m = x[k] > m ? x[k] : m;
    for (int64_t k = 0; k < d; ++k) y[k] = std::exp(x[k] - m);
    s = lane_sum<T>(d, [&](int64_t k) { return y[k]; });
  }
  if (log) {
    // (x - m) - log(s), not x - (m + log(s)): with large x, m + log(s)
    // rounds at x's magnitude, and outputs near 0 lost that much.
    const T lse = std::log(s);
    for (int64_t k = 0; k < d; ++k) y[k] = (x[k] - m) - lse;
  } else {
    const T r = T(1) / s;
    if constexpr (std::is_same_v<T, float>) {
      scale_row(y, r, d);
    } else {
      for (int64_t k = 0; k < d; ++k) y[k] *= r;
    }
  }
}

// Computes one [D, inner] block. `inner` rows are processed together so the
// inner loops run over contiguous memory.
template <typename T>
void softmax_block(SoftmaxKind kind, const T* x, T* y, int64_t d, int64_t inner, std::vector<ComputeT<T>>& mx,
                   std::vector<ComputeT<T>>& sum, std::vector<int64_t>& arg) {
  using C = ComputeT<T>;
  if constexpr (std::is_same_v<T, C>) {
    if (inner == 1 && kind != SoftmaxKind::kHardmax) return softmax_row(kind == SoftmaxKind::kLogSoftmax, x, y, d);
  }
  if constexpr (std::is_same_v<T, float>) {
    // A float row without NaN: its max in vector registers, then the first
    // position holding it, as ArgMax does; the loop below took 4x ONNX
    // Runtime's time. With a NaN, the loop's rules apply.
    bool nan = true;
    const float m = kind == SoftmaxKind::kHardmax && inner == 1 && d >= 16 ? elementwise::max_skipping_nan(x, d, &nan) : 0;
    if (!nan) {
      std::fill(y, y + d, 0.f);
      y[std::find(x, x + d, m) - x] = 1.f;
      return;
    }
  }
  const auto n = static_cast<size_t>(inner);
  mx.assign(n, -std::numeric_limits<C>::infinity());
  arg.assign(n, 0);
  for (int64_t k = 0; k < d; ++k) {
    const T* row = x + k * inner;
    for (size_t i = 0; i < n; ++i) {
      C v = load(row[i]);
      if (k == 0 || v > mx[i]) {  // first maximum wins (Hardmax)
        mx[i] = v;
        arg[i] = k;
      }
    }
  }
  if (kind == SoftmaxKind::kHardmax) {
    for (int64_t k = 0; k < d; ++k) {
      T* out = y + k * inner;
      for (size_t i = 0; i < n; ++i) out[i] = store<T>(arg[i] == k ? C(1) : C(0));
    }
    return;
  }
  sum.assign(n, C(0));
  if constexpr (std::is_same_v<T, C>) {
    // Full-precision types: x - max, then exp over the whole block in place
    // (for float32 one vectorised call: a scalar expf cost 4 ns an element,
    // the vector one well under 1), then sum and scale.
    for (int64_t k = 0; k < d; ++k)
      for (size_t i = 0; i < n; ++i) y[k * inner + i] = x[k * inner + i] - mx[i];
    const int64_t all = d * inner;
    bool vectorised = false;
    if constexpr (std::is_same_v<T, float>)
      vectorised = elementwise::vector_math(elementwise::VecFn::kExp, y, y, all);
    if (!vectorised)
      for (int64_t j = 0; j < all; ++j) y[j] = std::exp(y[j]);
    for (int64_t k = 0; k < d; ++k)
      for (size_t i = 0; i < n; ++i) sum[i] += y[k * inner + i];
    const bool log = kind == SoftmaxKind::kLogSoftmax;
    for (size_t i = 0; i < n; ++i) sum[i] = log ? std::log(sum[i]) : C(1) / sum[i];
    for (int64_t k = 0; k < d; ++k)
      for (size_t i = 0; i < n; ++i)
        y[k * inner + i] = log ? (x[k * inner + i] - mx[i]) - sum[i] : y[k * inner + i] * sum[i];
    return;
  }
  // Half types: y cannot hold the exps at full precision, so they are
  // computed again for the output.
  for (int64_t k = 0; k < d; ++k) {
    const T* row = x + k * inner;
    for (size_t i = 0; i < n; ++i) sum[i] += std::exp(C(load(row[i])) - mx[i]);
  }
  if (kind == SoftmaxKind::kSoftmax) {
    for (size_t i = 0; i < n; ++i) sum[i] = C(1) / sum[i];
    for (int64_t k = 0; k < d; ++k) {
      const T* row = x + k * inner;
      T* out = y + k * inner;
      for (size_t i = 0; i < n; ++i) out[i] = store<T>(std::exp(C(load(row[i])) - mx[i]) * sum[i]);
    }
  } else {
    for (size_t i = 0; i < n; ++i) sum[i] = std::log(sum[i]);
    for (int64_t k = 0; k < d; ++k) {
      const T* row = x + k * inner;
      T* out = y + k * inner;
      for (size_t i = 0; i < n; ++i) out[i] = store<T>((C(load(row[i])) - mx[i]) - sum[i]);
    }
  }
}

class SoftmaxKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    kind_ = node.op_type == "Softmax" ? SoftmaxKind::kSoftmax
            : node.op_type == "LogSoftmax" ? SoftmaxKind::kLogSoftmax
                                           : SoftmaxKind::kHardmax;
    coerce_2d_ = node.opset < 13;
    axis_ = node.attr_int("axis", coerce_2d_ ? 1 : -1);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    RETURN_IF_ERROR(check_float_input(node, x, "input"));
    const int64_t rank = static_cast<int64_t>(x.rank());
    int64_t outer = 1, d = 1, inner = 1;
    if (rank > 0) {
      // Before opset 13 the input is coerced to 2-D at axis. The spec allows
      // [-rank, rank - 1], so -1 is the last axis; axis == rank (one 2-D
      // row per element) is tolerated as older exporters wrote it.
      ASSIGN_OR_RETURN(int64_t axis,
                       coerce_2d_ && axis_ == rank ? StatusOr<int64_t>(rank) : normalize_axis(axis_, rank, node));
      const auto a = static_cast<size_t>(axis);
      outer = prod(x.dims(), 0, a);
      if (coerce_2d_) {
        d = prod(x.dims(), a, x.rank());
      } else {
        d = x.dim(a);
        inner = prod(x.dims(), a + 1, x.rank());
      }
    } else if (axis_ < -1 || axis_ > 0) {
      return InvalidArgument(node.describe(), ": axis ", axis_, " is out of range for a scalar");
    }
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (x.numel() == 0) return OkStatus();
    visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data<T>();
      T* out = y->data<T>();
      parallel_rows(outer, d * inner * 4, [&](int64_t b, int64_t e) {
        std::vector<ComputeT<T>> mx, sum;
        std::vector<int64_t> arg;
        for (int64_t o = b; o < e; ++o)
          softmax_block(kind_, in + o * d * inner, out + o * d * inner, d, inner, mx, sum, arg);
      });
    });
    return OkStatus();
  }

 private:
  SoftmaxKind kind_ = SoftmaxKind::kSoftmax;
  bool coerce_2d_ = false;
  int64_t axis_ = -1;
};

// ------------------------------------------------------------------ CumSum

template <typename F>
bool visit_cumsum_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kInt32: f(int32_t{}); return true;
    case DataType::kInt64: f(int64_t{}); return true;
    case DataType::kUInt32: f(uint32_t{}); return true;
    case DataType::kUInt64: f(uint64_t{}); return true;
    default: return visit_float(t, std::forward<F>(f));
  }
}

// A block of CumSum's columns, its sums kept in registers: 256 bytes, 8
// AVX or 4 AVX-512 registers.
constexpr int64_t kCumSumBlockBytes = 256;

// Running sums of `w` columns down `rows` rows `step` elements apart (a
// negative step runs in reverse). A full block has a constant width, so its
// sums stay in registers.
template <int64_t W, bool kExclusive, typename T, typename Acc>
[[gnu::always_inline]] inline void cumsum_down(const T* __restrict in, T* __restrict out, int64_t rows,
                                               int64_t step, int64_t w) {
  constexpr int64_t kMax = kCumSumBlockBytes / static_cast<int64_t>(sizeof(Acc));
  const int64_t n = W > 0 ? W : w;
  Acc acc[kMax] = {};
  for (int64_t s = 0; s < rows; ++s, in += step, out += step) {
    for (int64_t i = 0; i < n; ++i) {
      const Acc v = static_cast<Acc>(load(in[i]));
      if constexpr (kExclusive) {
        out[i] = store<T>(acc[i]);
        acc[i] = wrap_add(acc[i], v);
      } else {
        acc[i] = wrap_add(acc[i], v);
        out[i] = store<T>(acc[i]);
      }
    }
  }
}

// Cloned for x86-64-v3 and v4: at the baseline, with the sums in memory, it
// took twice ONNX Runtime's time on [1000, 256] along axis 0.
template <typename T, typename Acc>
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void cumsum_columns(const T* in, T* out, int64_t rows, int64_t step, int64_t w, bool exclusive) {
  constexpr int64_t kFull = kCumSumBlockBytes / static_cast<int64_t>(sizeof(Acc));
  if (w == kFull) {
    if (exclusive) cumsum_down<kFull, true, T, Acc>(in, out, rows, step, w);
    else cumsum_down<kFull, false, T, Acc>(in, out, rows, step, w);
  } else {
    if (exclusive) cumsum_down<0, true, T, Acc>(in, out, rows, step, w);
    else cumsum_down<0, false, T, Acc>(in, out, rows, step, w);
  }
}

class CumSumKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    exclusive_ = node.attr_int("exclusive", 0) != 0;
    reverse_ = node.attr_int("reverse", 0) != 0;
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(AxisView v, resolve_cumsum_shape(ctx));
    const int64_t outer = v.outer, d = v.d, inner = v.inner;
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (x.numel() == 0) return OkStatus();
    bool ok = visit_cumsum_type(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using Acc = ComputeT<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      // Along the last axis each row is one chain of dependent adds, with
      // its sum kept in memory (the stores to y might alias it as far as the
      // compiler knows): 3.6 ns an element. Eight rows at a time, each sum
      // in a register of its own, overlap the chains; every row still adds
      // in its own order.
      auto step = [this](Acc& a, const T* x, T* y) {
        if (exclusive_) {
          *y = store<T>(a);
          a = wrap_add(a, static_cast<Acc>(load(*x)));
        } else {
          a = wrap_add(a, static_cast<Acc>(load(*x)));
          *y = store<T>(a);
        }
      };
      if (inner == 1) {
        parallel_rows(outer, d, [&](int64_t b, int64_t e) {
          constexpr int64_t kRows = 8;
          int64_t o = b;
          for (; o + kRows <= e; o += kRows) {
            Acc a[kRows] = {};
            for (int64_t s = 0; s < d; ++s) {
              const int64_t k = reverse_ ? d - 1 - s : s;
              for (int64_t r = 0; r < kRows; ++r) step(a[r], in + (o + r) * d + k, out + (o + r) * d + k);
            }
          }
          for (; o < e; ++o) {
            Acc a = Acc(0);
            for (int64_t s = 0; s < d; ++s) {
              const int64_t k = reverse_ ? d - 1 - s : s;
              step(a, in + o * d + k, out + o * d + k);
            }
          }
        });
        return;
      }
      // Along an outer axis: running sums down a block of columns per task,
      // so that one outer slice ([1000, 256] along axis 0) still splits.
      constexpr int64_t kCols = kCumSumBlockBytes / static_cast<int64_t>(sizeof(Acc));
      const int64_t blocks = (inner + kCols - 1) / kCols;
      parallel_rows(outer * blocks, d * std::min(inner, kCols), [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          const int64_t o = t / blocks, c0 = t % blocks * kCols, w = std::min(kCols, inner - c0);
          const int64_t first = (o * d + (reverse_ ? d - 1 : 0)) * inner + c0;
          cumsum_columns<T, Acc>(in + first, out + first, d, reverse_ ? -inner : inner, w, exclusive_);
        }
      });
    });
    if (!ok) return InvalidArgument(node.describe(), ": unsupported input type ", x.describe());
    return OkStatus();
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

// -------------------------------------------------------------------- TopK

template <typename F>
bool visit_topk_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kInt8: f(int8_t{}); return true;
    case DataType::kUInt8: f(uint8_t{}); return true;
    case DataType::kInt16: f(int16_t{}); return true;
    case DataType::kUInt16: f(uint16_t{}); return true;
    case DataType::kInt32: f(int32_t{}); return true;
    case DataType::kInt64: f(int64_t{}); return true;
    case DataType::kUInt32: f(uint32_t{}); return true;
    case DataType::kUInt64: f(uint64_t{}); return true;
    default: return visit_float(t, std::forward<F>(f));
  }
}

// A 32-bit image of v that orders as TopK ranks values, larger first: NaN
// above every number, -0 equal to +0.
template <typename C>
uint32_t rank_bits(C v) {
  if constexpr (std::is_floating_point_v<C>) {
    static_assert(sizeof(C) == 4);
    if (v != v) return 0xFFFFFFFFu;
    const float f = v == 0 ? 0.f : v;
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u >> 31 ? ~u : u | 0x80000000u;
  } else if constexpr (std::is_signed_v<C>) {
    return static_cast<uint32_t>(static_cast<int32_t>(v)) ^ 0x80000000u;
  } else {
    return static_cast<uint32_t>(v);
  }
}

// A value's rank_bits and its index in one integer that orders as TopK
// does, better larger: a later index loses ties. A 200-key nth_element took
// 1.7 us on these against 4 us on (value, index) pairs under a NaN-aware
// compare.
uint64_t pack_key(uint32_t rank, int64_t j) { return uint64_t{rank} << 32 | (0xFFFFFFFFu - static_cast<uint32_t>(j)); }
int64_t key_index(uint64_t key) { return int64_t{0xFFFFFFFF} - static_cast<int64_t>(key & 0xFFFFFFFFu); }

// Up to this k, TopK keeps its selection sorted as it goes (k=5 of 1000:
// 1.3 us a row against 2 us by the bar below).
constexpr int64_t kInsertTopK = 32;

// The k best of d keys, best first, into buf. One pass collects the keys
// that pass a bar; each time k more have come, the best k are kept and the
// worst of them becomes the bar. `skip(j, bar)` may jump to the next key
// that could pass. A long row first takes its bar from an evenly spaced
// sample: the sample's key at the rank where the row's k-th is expected,
// plus three standard deviations. Rarely, fewer than k keys pass it; the
// row then runs again without it. On random values, k=100 of 10000 keeps
// some 300 keys this way, 750 with no first bar; a partial sort copied the
// whole row (2000 us for 64 rows, now 560).
template <typename Key, typename KeyAt, typename Better, typename Skip>
void select_best_k(int64_t d, int64_t k, KeyAt key_at, Better better, Skip skip, std::vector<Key>& buf) {
  if (k <= kInsertTopK) {
    // The best k so far, sorted: each key that passes the k-th goes in
    // its place, and the bar rises with every insert.
    buf.clear();
    const size_t full = static_cast<size_t>(k);
    for (int64_t j = 0; j < d; ++j) {
      if (buf.size() == full && (j = skip(j, buf.back())) == d) break;
      const Key c = key_at(j);
      if (buf.size() == full) {
        if (!better(c, buf.back())) continue;
        buf.pop_back();
      }
      buf.insert(std::upper_bound(buf.begin(), buf.end(), c, better), c);
    }
    return;
  }
  const size_t cap = static_cast<size_t>(k + std::max<int64_t>(k, 16));
  const auto keep = [&] {
    std::nth_element(buf.begin(), buf.begin() + (k - 1), buf.end(), better);
    buf.resize(static_cast<size_t>(k));
  };
  const auto pass = [&](bool have_bar, Key bar) {
    buf.clear();
    for (int64_t j = 0; j < d; ++j) {
      if (have_bar && (j = skip(j, bar)) == d) break;
      const Key c = key_at(j);
      if (have_bar && !better(c, bar)) continue;
      buf.push_back(c);
      if (buf.size() == cap) {
        keep();
        bar = buf.back();
        have_bar = true;
      }
    }
  };
  // A sample that would hold fewer than two of the best k on average gives
  // a bar whose slack lets more keys pass than the running bar does.
  const int64_t m = std::max<int64_t>(4 * k, 64), stride = d / m;
  const double expected = stride > 0 ? static_cast<double>(k) / static_cast<double>(stride) : 0;
  if (stride >= 8 && expected >= 2) {
    const auto slack = static_cast<int64_t>(expected + 3 * std::sqrt(expected)) + 2;
    const int64_t rank = std::min(m - 1, slack);
    buf.clear();
    for (int64_t t = 0; t < m; ++t) buf.push_back(key_at(t * stride));
    std::nth_element(buf.begin(), buf.begin() + rank, buf.end(), better);
    pass(true, buf[static_cast<size_t>(rank)]);
    if (buf.size() < static_cast<size_t>(k)) pass(false, Key{});
  } else {
    pass(false, Key{});
  }
  if (buf.size() > static_cast<size_t>(k)) keep();
  std::sort(buf.begin(), buf.end(), better);
}

class TopKKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, TopKAttrs::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(TopKShape shape, resolve_topk_shape(ctx, attrs_));
    const int64_t k = shape.k, d = shape.view.d, outer = shape.view.outer, inner = shape.view.inner;
    const Dims& od = shape.view.out_dims;
    ASSIGN_OR_RETURN(Tensor * values, ctx.allocate_output(0, x.dtype(), od));
    // Values and indices are both needed to sort, so indices are always
    // computed; only write them when the model wants them.
    int64_t* idx_out = nullptr;
    if (ctx.output_wanted(1)) {
      ASSIGN_OR_RETURN(Tensor * indices, ctx.allocate_output(1, DataType::kInt64, od));
      idx_out = indices->data<int64_t>();
    }
    if (values->numel() == 0) return OkStatus();
    bool ok = visit_topk_type(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = ComputeT<T>;
      const T* in = x.data<T>();
      T* vout = values->data<T>();
      const bool largest = attrs_.largest;
      parallel_rows(outer * inner, d * 8, [&](int64_t b, int64_t e) {
        std::vector<uint64_t> keys;
        std::vector<std::pair<C, int64_t>> entries;
        std::vector<int64_t> order(static_cast<size_t>(k));
        for (int64_t s = b; s < e; ++s) {
          const int64_t o = s / inner, i = s % inner;
          const T* p = in + o * d * inner + i;
          // A float row along the last axis jumps with an SSE scan to the
          // next element past the bar's value (equals lose to the bar's
          // earlier index).
          auto skip_past = [&](int64_t j, int64_t bar_index) {
            if constexpr (std::is_same_v<T, float>) {
              if (inner == 1 && p[bar_index] == p[bar_index])
                return j + elementwise::find_beyond(p + j, d - j, p[bar_index], largest, largest);
            }
            return j;
          };
          const bool packed = sizeof(C) <= 4 && d <= 0xFFFFFFFF;
          if constexpr (sizeof(C) <= 4) {
            if (packed) {
              const uint32_t flip = largest ? 0 : 0xFFFFFFFFu;
              auto key_at = [&](int64_t j) { return pack_key(rank_bits(load(p[j * inner])) ^ flip, j); };
              auto skip = [&](int64_t j, uint64_t bar) { return skip_past(j, key_index(bar)); };
              select_best_k(d, k, key_at, std::greater<>(), skip, keys);
              for (int64_t j = 0; j < k; ++j) order[static_cast<size_t>(j)] = key_index(keys[static_cast<size_t>(j)]);
            }
          }
          if (!packed) {
            using Entry = std::pair<C, int64_t>;
            // NaN ranks above every number; ties go to the lower index.
            auto before = [largest](const Entry& l, const Entry& r) {
              bool ln = l.first != l.first, rn = r.first != r.first;
              if (ln || rn) {
                if (ln && rn) return l.second < r.second;
                return largest ? ln : rn;
              }
              if (l.first != r.first) return largest ? l.first > r.first : l.first < r.first;
              return l.second < r.second;
            };
            auto key_at = [&](int64_t j) { return Entry{load(p[j * inner]), j}; };
            auto skip = [&](int64_t j, const Entry& bar) { return skip_past(j, bar.second); };
            select_best_k(d, k, key_at, before, skip, entries);
            for (int64_t j = 0; j < k; ++j) order[static_cast<size_t>(j)] = entries[static_cast<size_t>(j)].second;
          }
          T* vo = vout + o * k * inner + i;
          for (int64_t j = 0; j < k; ++j) vo[j * inner] = p[order[static_cast<size_t>(j)] * inner];
          if (idx_out) {
            int64_t* io = idx_out + o * k * inner + i;
            for (int64_t j = 0; j < k; ++j) io[j * inner] = order[static_cast<size_t>(j)];
          }
        }
      });
    });
    if (!ok) return InvalidArgument(node.describe(), ": unsupported input type ", x.describe());
    return OkStatus();
  }

 private:
  TopKAttrs attrs_;
};

}  // namespace

void register_cpu_softmax_kernels(KernelRegistry& r) {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"})
    r.add(cpu_def(op, 1, INT_MAX, &make_kernel<SoftmaxKernel>, float_types()));
  r.add(cpu_def("CumSum", 11, INT_MAX, &make_kernel<CumSumKernel>, {}, /*axis*/ 1u << 1));
  r.add(cpu_def("TopK", 1, 9, &make_kernel<TopKKernel>));
  r.add(cpu_def("TopK", 10, INT_MAX, &make_kernel<TopKKernel>, {}, /*K*/ 1u << 1));
}

}  // namespace sy
