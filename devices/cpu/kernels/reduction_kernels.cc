// CPU Reduce* (Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp,
// SumSquare) and ArgMax/ArgMin, plus the family's registration entry point.
//
// A reduction is planned by merging adjacent dimensions that are both reduced
// or both kept, so any axes set becomes an alternation of kept and reduced
// groups. The innermost group is contiguous: when it is reduced each output
// is a strided walk ending in a contiguous run; when it is kept, whole rows
// are accumulated elementwise (vectorisable, cache friendly).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>
#include <string>

#include "devices/cpu/cpu_kernels.h"
#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cpu/kernels/target_clones.h"
#include "devices/cpu/kernels/vector_math.h"

namespace sy {
namespace {

using namespace reduce_detail;

enum class ReduceKind { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// Accumulator type: halves in float, double in double, integers in 64 bits.
template <typename T>
using AccT = std::conditional_t<kIsFloatLike<T>, ComputeT<T>, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

// Type for transcendental finishing steps (sqrt, log) on integer inputs.
template <typename T>
using MathT = std::conditional_t<kIsFloatLike<T>, ComputeT<T>, double>;

template <typename T>
struct SumOp {
  using Acc = AccT<T>;
  static Acc init() { return Acc(0); }
  static void add(Acc& a, T x) { a = wrap_add(a, static_cast<Acc>(load(x))); }
  static void merge(Acc& a, const Acc& b) { a = wrap_add(a, b); }
  static T finish(const Acc& a, int64_t) { return store<T>(a); }
};
template <typename T>
struct SumSquareOp : SumOp<T> {
  using Acc = AccT<T>;
  static void add(Acc& a, T x) {
    Acc v = static_cast<Acc>(load(x));
    a = wrap_add(a, wrap_mul(v, v));
  }
};
template <typename T>
struct L1Op : SumOp<T> {
  using Acc = AccT<T>;
  static void add(Acc& a, T x) {
    Acc v = static_cast<Acc>(load(x));
    if constexpr (std::is_signed_v<Acc>) a = wrap_add(a, v < 0 ? wrap_neg(v) : v);
    else a += v;
  }
};
template <typename T>
struct L2Op : SumSquareOp<T> {
  using Acc = AccT<T>;
  static T finish(const Acc& a, int64_t) { return store<T>(std::sqrt(static_cast<MathT<T>>(a))); }
};
template <typename T>
struct LogSumOp : SumOp<T> {
  using Acc = AccT<T>;
  static T finish(const Acc& a, int64_t) { return store<T>(std::log(static_cast<MathT<T>>(a))); }
};
template <typename T>
struct MeanOp : SumOp<T> {
  using Acc = AccT<T>;
  static T finish(const Acc& a, int64_t n) {
    if constexpr (kIsFloatLike<T>) {
      return store<T>(a / static_cast<Acc>(n));  // empty set: 0/0 = NaN
    } else {
      return n == 0 ? T(0) : static_cast<T>(a / static_cast<Acc>(n));
    }
  }
};
template <typename T>
struct ProdOp {
  using Acc = AccT<T>;
  static Acc init() { return Acc(1); }
  static void add(Acc& a, T x) { a = wrap_mul(a, static_cast<Acc>(load(x))); }
  static void merge(Acc& a, const Acc& b) { a = wrap_mul(a, b); }
  static T finish(const Acc& a, int64_t) { return store<T>(a); }
};
template <typename T>
struct MaxOp {
  using Acc = std::conditional_t<kIsFloatLike<T>, ComputeT<T>, T>;
  static Acc init() {
    if constexpr (kIsFloatLike<T>) return -std::numeric_limits<Acc>::infinity();
    else return std::numeric_limits<Acc>::lowest();
  }
  static void add(Acc& a, T x) { add_acc(a, load(x)); }
  static void merge(Acc& a, const Acc& b) { add_acc(a, b); }
  // NaN propagates: a NaN v replaces a, nothing replaces a NaN a. One
  // unconditional select: `if (...) a = ...` is a conditional store, which
  // kept the column loop of a reduction over the first axis scalar
  // ([1024, 1024]: 2.4x ONNX Runtime's time).
  static void add_acc(Acc& a, Acc v) { a = max_nan(a, v); }
  static T finish(const Acc& a, int64_t) { return store<T>(a); }
  // For accumulate_run's vector lanes: `v` replaces `a` (NaN aside).
  static bool better(Acc v, Acc a) { return v > a; }
};
template <typename T>
struct MinOp {
  using Acc = std::conditional_t<kIsFloatLike<T>, ComputeT<T>, T>;
  static Acc init() {
    if constexpr (kIsFloatLike<T>) return std::numeric_limits<Acc>::infinity();
    else return std::numeric_limits<Acc>::max();
  }
  static void add(Acc& a, T x) { merge(a, load(x)); }
  static void merge(Acc& a, const Acc& v) { a = min_nan(a, v); }  // as MaxOp's
  static T finish(const Acc& a, int64_t) { return store<T>(a); }
  static bool better(Acc v, Acc a) { return v < a; }  // as MaxOp's
};
template <typename T>
struct LogSumExpOp {
  using C = MathT<T>;
  // Running (max, sum of exp(x - max)): one pass and no overflow.
  struct Acc {
    C m;
    C s;
  };
  static Acc init() { return {-std::numeric_limits<C>::infinity(), C(0)}; }
  static void add(Acc& a, T x) { merge(a, Acc{static_cast<C>(load(x)), C(1)}); }
  static void merge(Acc& a, const Acc& b) {
    if (b.s == C(0)) return;
    if (a.s == C(0)) {
      a = b;
    } else if (b.m == a.m) {
      // Not exp(b.m - a.m): two equal infinite maxima would give
      // exp(inf - inf) = NaN where the sum is exact.
      a.s += b.s;
    } else if (b.m > a.m) {
      a.s = a.s * std::exp(a.m - b.m) + b.s;
      a.m = b.m;
    } else {
      a.s += b.s * std::exp(b.m - a.m);
    }
  }
  static T finish(const Acc& a, int64_t) {
    if (a.s == C(0)) return store<T>(-std::numeric_limits<C>::infinity());
    return store<T>(a.m + std::log(a.s));
  }
};

// Offset of linear index `idx` over `groups` (row-major).
inline int64_t offset_of(int64_t idx, const std::vector<ReducePlan::Group>& groups) {
  int64_t off = 0;
  for (size_t g = groups.size(); g-- > 0;) {
    off += (idx % groups[g].size) * groups[g].stride;
    idx /= groups[g].size;
  }
  return off;
}

// Calls f(offset) for the elements [begin, end) of the odometer over
// `groups` (end -1: to the last).
template <typename F>
inline void for_each_offset(const std::vector<ReducePlan::Group>& groups, int64_t base, F&& f, int64_t begin = 0,
                            int64_t end = -1) {
  if (groups.empty()) {
    if (begin == 0 && end != 0) f(base);
    return;
  }
  size_t n = groups.size();
  int64_t idx[Dims::kInline * 2] = {};
  std::vector<int64_t> heap;
  int64_t* ix = idx;
  if (n > Dims::kInline * 2) {
    heap.assign(n, 0);
    ix = heap.data();
  }
  int64_t total = 1;
  for (const auto& g : groups) total *= g.size;
  if (end < 0) end = total;
  int64_t off = base;
  if (begin > 0) {  // begin < total: no group is empty
    off += offset_of(begin, groups);
    for (size_t g = n, rest = static_cast<size_t>(begin); g-- > 0; rest /= static_cast<size_t>(groups[g].size))
      ix[g] = static_cast<int64_t>(rest % static_cast<size_t>(groups[g].size));
  }
  for (int64_t k = begin; k < end; ++k) {
    f(off);
    for (size_t g = n; g-- > 0;) {
      off += groups[g].stride;
      if (++ix[g] < groups[g].size) break;
      off -= groups[g].stride * groups[g].size;
      ix[g] = 0;
    }
  }
}

// Folds a contiguous run into `a`. Long runs go through kLanes independent
// accumulators, merged at the end, which the compiler turns into vector
// instructions for sums; with one accumulator every add waits for the
// previous one (a LayerNorm's ReduceMean over [64, 448]: 21 us, now 4).
// 32 of them, cloned for x86-64-v3 and v4, keep four AVX adds in flight:
// with 8 at the baseline, ReduceMean over the last axis of [256, 1024]
// waited on each add (15 us, now 9).
template <typename Op, typename T>
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void accumulate_run(typename Op::Acc& a, const T* r, int64_t n) {
  constexpr int64_t kLanes = std::is_arithmetic_v<typename Op::Acc> ? 32 : 8;
  int64_t j = 0;
  if constexpr (std::is_same_v<Op, LogSumExpOp<float>>) {
    // The largest element, then e^(x - max) summed with the vector exp:
    // add()'s running (max, sum) took an exp and two branches an element
    // (the last axis of [256, 1024]: 470 us). A NaN or an infinity takes
    // add()'s exact path, as do short runs.
    bool nan = true;
    const float m = n >= 2 * kLanes ? elementwise::max_skipping_nan(r, n, &nan) : 0.f;
    if (!nan && std::isfinite(m)) {
      constexpr int64_t kBlock = 256;
      float exps[kBlock];
      float s = 0;
      for (int64_t c = 0; c < n; c += kBlock)
        s += elementwise::exp_shifted_sum(r + c, m, exps, std::min(kBlock, n - c));
      Op::merge(a, typename Op::Acc{m, s});
      return;
    }
  }
  if constexpr (requires { Op::better(T{}, T{}); } && std::is_floating_point_v<T> &&
                std::is_same_v<T, typename Op::Acc>) {
    // Max and Min of float or double. The NaN-propagating select of add()
    // stays scalar (ReduceMax was 7x slower than ONNX Runtime), so: float
    // with SSE, NaNs skipped and noted; double with a plain select per
    // lane and a probe that sums v * 0, NaN if a v was NaN or infinite.
    // Runs with a NaN (or, for double, an infinity) are redone with add(),
    // which orders them exactly.
    if constexpr (std::is_same_v<T, float>) {
      bool nan = false;
      const bool max = Op::better(T(1), T(0));
      const T e = max ? elementwise::max_skipping_nan(r, n, &nan) : elementwise::min_skipping_nan(r, n, &nan);
      if (!nan) {
        Op::merge(a, e);
        return;
      }
    } else if (n >= 2 * kLanes) {
      T lane[kLanes], probe[kLanes] = {};
      for (auto& l : lane) l = Op::init();
      for (; j + kLanes <= n; j += kLanes)
        for (int64_t l = 0; l < kLanes; ++l) {
          const T v = r[j + l];
          lane[l] = Op::better(v, lane[l]) ? v : lane[l];
          probe[l] += v * T(0);
        }
      const T p = std::accumulate(probe, probe + kLanes, T(0));
      if (p == p) {
        for (const T& l : lane) Op::merge(a, l);
      } else {
        j = 0;
      }
    }
    for (; j < n; ++j) Op::add(a, r[j]);
    return;
  }
  if (n >= 2 * kLanes) {
    typename Op::Acc lane[kLanes];
    for (auto& l : lane) l = Op::init();
    for (; j + kLanes <= n; j += kLanes)
      for (int64_t l = 0; l < kLanes; ++l) Op::add(lane[l], r[j + l]);
    for (const auto& l : lane) Op::merge(a, l);
  }
  for (; j < n; ++j) Op::add(a, r[j]);
}

// acc[j] += r[k * stride + j] (by Op) for j < w and k < rows: the column
// loop of a reduction over an outer axis, cloned for x86-64-v3 and v4: at
// the baseline it ran 4 floats a step ([64, 256, 64] summed over axis 1:
// 2.3x ONNX Runtime's time). Blocks of kBlock columns are summed over all
// the rows in a local array the compiler keeps in registers: a call and a
// load and store of the accumulators per row made that case 1.9x.
template <typename Op, typename T>
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void add_rows(typename Op::Acc* __restrict acc, const T* __restrict r, int64_t stride, int64_t rows, int64_t w) {
  constexpr int64_t kBlock = 64;
  int64_t j = 0;
  for (; j + kBlock <= w; j += kBlock) {
    typename Op::Acc a[kBlock];
    for (int64_t i = 0; i < kBlock; ++i) a[i] = acc[j + i];
    for (int64_t k = 0; k < rows; ++k) {
      const T* __restrict row = r + k * stride + j;
      for (int64_t i = 0; i < kBlock; ++i) Op::add(a[i], row[i]);
    }
    for (int64_t i = 0; i < kBlock; ++i) acc[j + i] = a[i];
  }
  for (int64_t k = 0; k < rows && j < w; ++k)
    for (int64_t i = j; i < w; ++i) Op::add(acc[i], r[k * stride + i]);
}

template <typename Op, typename T>
void run_reduce(const ReducePlan& p, const T* x, T* y) {
  using Acc = typename Op::Acc;
  const int64_t n = p.red_numel;
  const int64_t inner = p.inner;
  if (n == 0) {
    // Every output reduces nothing. The loops below would step through
    // the reduced groups, which an empty input may claim 2^40 of.
    std::fill(y, y + p.out_numel, Op::finish(Op::init(), 0));
    return;
  }
  if (p.inner_reduced) {
    // Each output: strided outer reduced groups, contiguous inner run.
    auto reduce_one = [&](int64_t base) {
      Acc a = Op::init();
      for_each_offset(p.reduced, base, [&](int64_t off) { accumulate_run<Op>(a, x + off, inner); });
      return a;
    };
    if (p.out_numel == 1 && p.reduced.empty() && inner >= 2 * kParallelWork) {
      // One long contiguous reduction: fixed chunks, merged in order, so
      // the result does not depend on the thread count.
      const int64_t chunk = kParallelWork;
      const int64_t nchunks = (inner + chunk - 1) / chunk;
      std::vector<Acc> parts(static_cast<size_t>(nchunks), Op::init());
      parallel_for_ranges(nchunks, 1, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
          Acc a = Op::init();
          const int64_t begin = c * chunk, end = std::min(inner, begin + chunk);
          accumulate_run<Op>(a, x + begin, end - begin);
          parts[static_cast<size_t>(c)] = a;
        }
      });
      Acc a = Op::init();
      for (const Acc& part : parts) Op::merge(a, part);
      y[0] = Op::finish(a, n);
      return;
    }
    parallel_rows(p.out_numel, n, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) y[o] = Op::finish(reduce_one(offset_of(o, p.kept)), n);
    });
  } else {
    // Kept inner rows accumulated elementwise, in tiles of at most kTile
    // columns so that a reduction with few (or one) outer rows still splits
    // into parallel tasks and the accumulators stay in cache.
    constexpr int64_t kTile = 1024;
    const int64_t outer = p.out_numel / std::max<int64_t>(inner, 1);
    const int64_t tiles = (inner + kTile - 1) / kTile, tasks = outer * tiles, wmax = std::min(inner, kTile);
    struct Tile {
      int64_t in;  // offset of its first element in x
      T* out;
      int64_t w;
    };
    auto tile = [&](int64_t t) {
      const int64_t o = t / tiles, j0 = (t % tiles) * kTile;
      return Tile{offset_of(o, p.kept) + j0, y + o * inner + j0, std::min(kTile, inner - j0)};
    };
    // Reduced rows [r0, r1) of a tile into acc: one call where the rows
    // are one group, evenly apart.
    auto accumulate = [&](const Tile& tl, Acc* acc, int64_t r0, int64_t r1) {
      std::fill(acc, acc + tl.w, Op::init());
      if (p.reduced.size() == 1) {
        const int64_t stride = p.reduced[0].stride;
        add_rows<Op>(acc, x + tl.in + r0 * stride, stride, r1 - r0, tl.w);
        return;
      }
      for_each_offset(
          p.reduced, tl.in, [&](int64_t off) { add_rows<Op>(acc, x + off, 0, 1, tl.w); }, r0, r1);
    };
    // Few tiles over many reduced rows ([256, 1024] summed over axis 0 is
    // one tile, 262K adds on one core: 2.5x ONNX Runtime's time) also split
    // the rows, in slabs fixed by the shape alone whose partial results
    // merge in order: the result does not depend on the thread count.
    constexpr int64_t kFewTiles = 8, kMaxSlabs = 64;
    const int64_t slab = std::max(kParallelWork / wmax, (n + kMaxSlabs - 1) / kMaxSlabs);
    if (tasks < kFewTiles && n >= 2 * slab) {
      const int64_t slabs = (n + slab - 1) / slab;
      std::vector<Acc> part(static_cast<size_t>(tasks * slabs * wmax));
      parallel_for_ranges(tasks * slabs, 1, [&](int64_t t0, int64_t t1) {
        for (int64_t ts = t0; ts < t1; ++ts) {
          const int64_t r0 = ts % slabs * slab;
          accumulate(tile(ts / slabs), part.data() + ts * wmax, r0, std::min(n, r0 + slab));
        }
      });
      for (int64_t t = 0; t < tasks; ++t) {
        const Tile tl = tile(t);
        Acc* acc = part.data() + t * slabs * wmax;
        for (int64_t j = 0; j < tl.w; ++j) {
          for (int64_t k = 1; k < slabs; ++k) Op::merge(acc[j], acc[k * wmax + j]);
          tl.out[j] = Op::finish(acc[j], n);
        }
      }
      return;
    }
    parallel_rows(tasks, n * wmax, [&](int64_t b, int64_t e) {
      std::vector<Acc> acc(static_cast<size_t>(wmax));
      for (int64_t t = b; t < e; ++t) {
        const Tile tl = tile(t);
        accumulate(tl, acc.data(), 0, n);
        for (int64_t j = 0; j < tl.w; ++j) tl.out[j] = Op::finish(acc[j], n);
      }
    });
  }
}

template <typename T>
void dispatch_reduce(ReduceKind k, const ReducePlan& p, const T* x, T* y) {
  switch (k) {
    case ReduceKind::kSum: return run_reduce<SumOp<T>>(p, x, y);
    case ReduceKind::kMean: return run_reduce<MeanOp<T>>(p, x, y);
    case ReduceKind::kMax: return run_reduce<MaxOp<T>>(p, x, y);
    case ReduceKind::kMin: return run_reduce<MinOp<T>>(p, x, y);
    case ReduceKind::kProd: return run_reduce<ProdOp<T>>(p, x, y);
    case ReduceKind::kL1: return run_reduce<L1Op<T>>(p, x, y);
    case ReduceKind::kL2: return run_reduce<L2Op<T>>(p, x, y);
    case ReduceKind::kLogSum: return run_reduce<LogSumOp<T>>(p, x, y);
    case ReduceKind::kLogSumExp: return run_reduce<LogSumExpOp<T>>(p, x, y);
    case ReduceKind::kSumSquare: return run_reduce<SumSquareOp<T>>(p, x, y);
  }
}

template <typename F>
bool visit_reduce_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kFloat: f(float{}); return true;
    case DataType::kDouble: f(double{}); return true;
    case DataType::kFloat16: f(Float16{}); return true;
    case DataType::kBFloat16: f(BFloat16{}); return true;
    case DataType::kInt32: f(int32_t{}); return true;
    case DataType::kInt64: f(int64_t{}); return true;
    case DataType::kUInt32: f(uint32_t{}); return true;
    case DataType::kUInt64: f(uint64_t{}); return true;
    case DataType::kInt8: f(int8_t{}); return true;
    case DataType::kUInt8: f(uint8_t{}); return true;
    default: return false;
  }
}

ReduceKind kind_of(const std::string& op) {
  if (op == "ReduceSum") return ReduceKind::kSum;
  if (op == "ReduceMean") return ReduceKind::kMean;
  if (op == "ReduceMax") return ReduceKind::kMax;
  if (op == "ReduceMin") return ReduceKind::kMin;
  if (op == "ReduceProd") return ReduceKind::kProd;
  if (op == "ReduceL1") return ReduceKind::kL1;
  if (op == "ReduceL2") return ReduceKind::kL2;
  if (op == "ReduceLogSum") return ReduceKind::kLogSum;
  if (op == "ReduceLogSumExp") return ReduceKind::kLogSumExp;
  return ReduceKind::kSumSquare;
}

class ReduceKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    kind_ = kind_of(node.op_type);
    attrs_ = ReduceAttrs::parse(node);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(ReduceShape shape, resolve_reduce_shape(ctx, attrs_));
    if (shape.identity) {
      ctx.set_output(0, RuntimeValue(x));
      return OkStatus();
    }
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), shape.out_dims));
    if (y->numel() == 0) return OkStatus();
    ReducePlan plan = make_reduce_plan(x.dims(), shape.reduced);
    if (x.dtype() == DataType::kBool && (kind_ == ReduceKind::kMax || kind_ == ReduceKind::kMin)) {
      // Opset 20: max is any, min is all; on the bytes, which are 0 or 1.
      // The min of nothing is uint8's 255, which must become true (1).
      auto* out = reinterpret_cast<uint8_t*>(y->data<bool>());
      dispatch_reduce<uint8_t>(kind_, plan, reinterpret_cast<const uint8_t*>(x.data<bool>()), out);
      for (int64_t i = 0; i < y->numel(); ++i) out[i] = out[i] != 0;
      return OkStatus();
    }
    bool ok = visit_reduce_type(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      dispatch_reduce<T>(kind_, plan, x.data<T>(), y->data<T>());
    });
    if (!ok) return InvalidArgument(node.describe(), ": unsupported input type ", x.describe());
    return OkStatus();
  }

 private:
  ReduceKind kind_ = ReduceKind::kSum;
  ReduceAttrs attrs_;
};

// ---------------------------------------------------------------- ArgMax/Min

// ArgMax/ArgMin along an outer axis takes a block of columns at a time,
// each row of it compared with the running best as one vector of selects
// (an output at a time walked the axis with a stride: 1.4x ONNX Runtime's
// time for [8, 64, 32, 32] along axis 1). The same rules as a row's: the
// first row, then strictly better ones (or as good, for the last index);
// NaN is never better.
constexpr int64_t kArgBlock = 32;

// The best rows of `w` columns of p (d rows, `inner` apart) into arg. A
// full block has a constant width, so the bests and their rows stay in
// registers.
template <bool kMax, bool kLast, int64_t W, typename T>
[[gnu::always_inline]] inline void arg_down(const T* __restrict p, int64_t d, int64_t inner, int64_t w,
                                            int64_t* __restrict arg) {
  using Acc = decltype(load(p[0]));
  const int64_t n = W > 0 ? W : w;
  Acc best[kArgBlock];
  int64_t at[kArgBlock];
  for (int64_t i = 0; i < n; ++i) {
    best[i] = load(p[i]);
    at[i] = 0;
  }
  for (int64_t k = 1; k < d; ++k) {
    const T* __restrict row = p + k * inner;
    for (int64_t i = 0; i < n; ++i) {
      const Acc v = load(row[i]);
      const bool better = kMax ? (kLast ? v >= best[i] : v > best[i]) : (kLast ? v <= best[i] : v < best[i]);
      best[i] = better ? v : best[i];
      at[i] = better ? k : at[i];
    }
  }
  std::copy(at, at + n, arg);
}

template <int64_t W, typename T>
[[gnu::always_inline]] inline void arg_down_as(const T* p, int64_t d, int64_t inner, int64_t w, bool is_max,
                                               bool last, int64_t* arg) {
  if (is_max) {
    if (last) arg_down<true, true, W>(p, d, inner, w, arg);
    else arg_down<true, false, W>(p, d, inner, w, arg);
  } else {
    if (last) arg_down<false, true, W>(p, d, inner, w, arg);
    else arg_down<false, false, W>(p, d, inner, w, arg);
  }
}

// Cloned for x86-64-v3 and v4: at the baseline, with the bests in memory
// and the flags tested per element, the case above stayed 1.1-1.4x ONNX
// Runtime's time.
template <typename T>
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void arg_columns(const T* p, int64_t d, int64_t inner, int64_t w, bool is_max, bool last, int64_t* arg) {
  if (w == kArgBlock) arg_down_as<kArgBlock>(p, d, inner, w, is_max, last, arg);
  else arg_down_as<0>(p, d, inner, w, is_max, last, arg);
}

// ArgMax/ArgMin take every numeric type, int16 and uint16 too, which no
// Reduce* op does.
template <typename F>
bool visit_arg_type(DataType t, F&& f) {
  if (t == DataType::kInt16) return f(int16_t{}), true;
  if (t == DataType::kUInt16) return f(uint16_t{}), true;
  return visit_reduce_type(t, f);
}

class ArgKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    attrs_ = ArgAttrs::parse(node);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(AxisView v, resolve_arg_shape(node, x, attrs_));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kInt64, v.out_dims));
    const int64_t outer = v.outer, d = v.d, inner = v.inner;
    int64_t* out = y->data<int64_t>();
    bool ok = visit_arg_type(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data<T>();
      const bool is_max = attrs_.is_max, last = attrs_.select_last_index;
      if (inner > 1) {
        // Along an outer axis: a block of columns at a time (arg_columns).
        const int64_t blocks = (inner + kArgBlock - 1) / kArgBlock;
        parallel_rows(outer * blocks, d * std::min(inner, kArgBlock), [&](int64_t b, int64_t e) {
          for (int64_t t = b; t < e; ++t) {
            const int64_t oi = t / blocks, c0 = t % blocks * kArgBlock;
            arg_columns(in + oi * d * inner + c0, d, inner, std::min(kArgBlock, inner - c0), is_max, last,
                        out + oi * inner + c0);
          }
        });
        return;
      }
      parallel_rows(outer * inner, d, [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          const int64_t oi = o / inner, ii = o % inner;
          const T* p = in + oi * d * inner + ii;
          if constexpr (std::is_same_v<T, float>) {
            // A float row without NaN: the extreme with SSE, then its first
            // (last) position; the compare-and-branch loop below took 2x
            // ONNX Runtime's time. With a NaN, the loop's rules apply.
            bool nan = true;
            if (inner == 1 && d >= 16) {
              const float m = is_max ? elementwise::max_skipping_nan(p, d, &nan) : elementwise::min_skipping_nan(p, d, &nan);
              if (!nan) {
                out[o] = last ? std::find(std::make_reverse_iterator(p + d), std::make_reverse_iterator(p), m).base() - p - 1
                              : std::find(p, p + d, m) - p;
                continue;
              }
            }
          }
          auto best = load(p[0]);
          int64_t bi = 0;
          for (int64_t k = 1; k < d; ++k) {
            auto v = load(p[k * inner]);
            bool better = is_max ? (last ? v >= best : v > best) : (last ? v <= best : v < best);
            if (better) {
              best = v;
              bi = k;
            }
          }
          out[o] = bi;
        }
      });
    });
    if (!ok) return InvalidArgument(node.describe(), ": unsupported input type ", x.describe());
    return OkStatus();
  }

 private:
  ArgAttrs attrs_;
};

const std::vector<DataType>& reduce_types() {
  static const std::vector<DataType> k{DataType::kFloat,  DataType::kDouble, DataType::kFloat16, DataType::kBFloat16,
                                       DataType::kInt32,  DataType::kInt64,  DataType::kUInt32,  DataType::kUInt64,
                                       DataType::kInt8,   DataType::kUInt8};
  return k;
}

}  // namespace

void register_cpu_reduction_kernels(KernelRegistry& r) {
  const char* reduce_ops[] = {"ReduceSum", "ReduceMean",      "ReduceMax",      "ReduceMin",       "ReduceProd",
                              "ReduceL1",  "ReduceL2",        "ReduceLogSum",   "ReduceLogSumExp", "ReduceSumSquare"};
  for (const char* op : reduce_ops) {
    int split = reduce_axes_input_since(op);
    r.add(cpu_def(op, 1, split - 1, &make_kernel<ReduceKernel>, reduce_types()));
    if (std::string_view(op) == "ReduceMax" || std::string_view(op) == "ReduceMin") {
      std::vector<DataType> with_bool = reduce_types();
      with_bool.push_back(DataType::kBool);
      r.add(cpu_def(op, split, 19, &make_kernel<ReduceKernel>, reduce_types(), /*axes*/ 1u << 1));
      r.add(cpu_def(op, 20, INT_MAX, &make_kernel<ReduceKernel>, with_bool, /*axes*/ 1u << 1));
      continue;
    }
    r.add(cpu_def(op, split, INT_MAX, &make_kernel<ReduceKernel>, reduce_types(), /*axes*/ 1u << 1));
  }
  std::vector<DataType> arg_types = reduce_types();
  arg_types.insert(arg_types.end(), {DataType::kInt16, DataType::kUInt16});
  for (const char* op : {"ArgMax", "ArgMin"}) r.add(cpu_def(op, 1, INT_MAX, &make_kernel<ArgKernel>, arg_types));
  register_cpu_softmax_kernels(r);
  register_cpu_norm_kernels(r);
  register_cpu_loss_kernels(r);
  register_cpu_einsum_kernels(r);
}

}  // namespace sy
