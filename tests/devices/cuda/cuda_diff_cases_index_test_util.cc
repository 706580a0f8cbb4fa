// Differential cases for the CUDA index kernels (see kernel_diff_test_util.h):
// ScatterND, ScatterElements, Scatter, GatherND, Trilu, Range, EyeLike,
// OneHot, NonZero and Unique. Every index is in range, half of them in their negative form.
// Scatters without a reduction get unique targets (duplicates are undefined
// in ONNX), generated below from fixed seeds; reducing scatters get many
// duplicates, and whole-number values, so that sums and products are exact
// in any order the atomics happen to apply them. Signed integer products
// stay in range: the CPU kernel computes them in C++, where overflow is
// undefined (and a sanitizer build traps).
#include <algorithm>
#include <numeric>
#include <random>

#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {
namespace {

using namespace diff;

DiffInput whole(DiffInput i) {
  i.whole = true;
  return i;
}

DiffCase reduce(DiffCase c, const char* r, int opset_version = 16) {
  c.attrs.push_back(attr_string("reduction", r));
  c.opset = opset_version;
  return c;
}

// `count` distinct values of [0, n) in a seeded random order, each one
// written as its negative alias (v - n) on a coin flip.
std::vector<int64_t> unique_draw(int64_t n, int64_t count, uint64_t seed) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(p.begin(), p.end(), rng);
  p.resize(static_cast<size_t>(count));
  for (int64_t& v : p)
    if (rng() & 1) v -= n;
  return p;
}

// ScatterND indices [count, rank] naming `count` distinct elements of `dims`.
DiffInput unique_tuples(DataType t, const Dims& dims, int64_t count, uint64_t seed) {
  const int64_t n = dims.numel();
  std::mt19937_64 rng(seed ^ 0x5eed);
  std::vector<double> v;
  for (int64_t flat : unique_draw(n, count, seed)) {
    if (flat < 0) flat += n;
    std::vector<double> tuple(dims.size());
    for (size_t k = dims.size(); k-- > 0;) {
      int64_t c = flat % dims[k];
      flat /= dims[k];
      if (rng() & 1) c -= dims[k];
      tuple[k] = static_cast<double>(c);
    }
    v.insert(v.end(), tuple.begin(), tuple.end());
  }
  return values(t, std::move(v), Dims{count, static_cast<int64_t>(dims.size())});
}

// ScatterElements indices of shape `ind` whose entries along `axis` are
// distinct within each fibre, in [-axis_dim, axis_dim).
DiffInput unique_along_axis(DataType t, const Dims& ind, size_t axis, int64_t axis_dim, uint64_t seed) {
  int64_t outer = 1, inner = 1;
  for (size_t k = 0; k < axis; ++k) outer *= ind[k];
  for (size_t k = axis + 1; k < ind.size(); ++k) inner *= ind[k];
  const int64_t m = ind[axis];
  std::vector<double> v(static_cast<size_t>(ind.numel()));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const std::vector<int64_t> draw = unique_draw(axis_dim, m, seed + static_cast<uint64_t>(o * inner + i));
      for (int64_t j = 0; j < m; ++j) v[static_cast<size_t>((o * m + j) * inner + i)] = static_cast<double>(draw[j]);
    }
  return values(t, std::move(v), ind);
}

DiffInput unique_rows(DataType t, int64_t rows, int64_t count, uint64_t seed) {
  std::vector<double> v;
  for (int64_t r : unique_draw(rows, count, seed)) v.push_back(static_cast<double>(r));
  return values(t, std::move(v), Dims{count, 1});
}

void add_scatter_nd(std::vector<DiffCase>& cs) {
  const DataType I64 = DataType::kInt64, I32 = DataType::kInt32;
  // Whole rows (slices of 64, moved in wide units), unique targets.
  cs.push_back(opset(make("ScatterND_rows_f32", "ScatterND",
                          {f32({1000, 64}), unique_rows(I64, 1000, 300, 1), f32({300, 64})}), 11));
  // Single elements (k = rank), int32 indices.
  cs.push_back(make("ScatterND_elements_i64_i32_indices", "ScatterND",
                    {i64({50, 40, 30}, -1e12, 1e12), unique_tuples(I32, Dims{50, 40, 30}, 5000, 2),
                     i64({5000}, -1e12, 1e12)}));
  // k = 2 of 3: slices of 7 (odd bytes widths stay in elements).
  {
    DiffInput ind = unique_tuples(I64, Dims{64, 33}, 1500, 3);
    ind.dims = Dims{30, 50, 2};
    cs.push_back(make("ScatterND_k2_f16", "ScatterND", {in(kF16, {64, 33, 7}), ind, in(kF16, {30, 50, 7})}));
  }
  cs.push_back(make("ScatterND_bool", "ScatterND",
                    {boolean({3000, 3}), unique_rows(I64, 3000, 2500, 4), boolean({2500, 3})}));
  // k = 0: the single empty tuple replaces all of data.
  cs.push_back(make("ScatterND_k0_replaces_all", "ScatterND",
                    {f32({50, 70}), values(I64, {}, Dims{1, 0}), f32({1, 50, 70})}));
  cs.push_back(make("ScatterND_no_updates", "ScatterND", {f32({100, 10}), values(I64, {}, Dims{0, 1}), f32({0, 10})}));

  // Reductions, many duplicates per target.
  cs.push_back(reduce(make("ScatterND_add_f32_dups", "ScatterND",
                           {whole_f32({100, 33}, -9, 9), i64({5000, 1}, -100, 99), whole_f32({5000, 33}, -3, 3)}),
                      "add"));
  cs.push_back(reduce(make("ScatterND_add_i32_k2", "ScatterND",
                           {i32({40, 30, 17}, -1000, 1000), i32({3000, 2}, -30, 29), i32({3000, 17}, -1000, 1000)}),
                      "add"));
  cs.push_back(reduce(make("ScatterND_add_i64_elements", "ScatterND",
                           {i64({5000}, -1e15, 1e15), i64({20000, 1}, -5000, 4999), i64({20000}, -1e12, 1e12)}),
                      "add"));
  cs.push_back(reduce(make("ScatterND_add_u64", "ScatterND",
                           {in(DataType::kUInt64, {700}, 0, 1e15), i64({4000, 1}, -700, 699),
                            in(DataType::kUInt64, {4000}, 0, 1e15)}),
                      "add"));
  cs.push_back(reduce(make("ScatterND_add_f16", "ScatterND",
                           {whole(in(kF16, {4096}, -8, 8)), i64({3000, 1}, -4096, 4095), whole(in(kF16, {3000}, -2, 2))}),
                      "add"));
  cs.push_back(reduce(make("ScatterND_add_bf16", "ScatterND",
                           {whole(in(kBF16, {64, 50}, -8, 8)), i64({300, 1}, -64, 63), whole(in(kBF16, {300, 50}, -2, 2))}),
                      "add"));
  cs.push_back(reduce(make("ScatterND_add_i16", "ScatterND",
                           {in(DataType::kInt16, {999}, -1000, 1000), i32({5000, 1}, -999, 998),
                            in(DataType::kInt16, {5000}, -1000, 1000)}),
                      "add"));
  cs.push_back(reduce(make("ScatterND_add_bool_is_or", "ScatterND",
                           {boolean({2000}), i64({3000, 1}, -2000, 1999), boolean({3000})}),
                      "add"));
  cs.push_back(reduce(make("ScatterND_mul_f64", "ScatterND",
                           {f64({64, 64}, 0.5, 1.5), i64({2000, 1}, -64, 63), f64({2000, 64}, 0.5, 1.5)}),
                      "mul"));
  cs.back().rtol = 1e-12;
  cs.push_back(reduce(make("ScatterND_mul_f32_whole", "ScatterND",
                           {whole_f32({3000}, -3, 3), i64({4000, 1}, -3000, 2999), whole_f32({4000}, -2, 2)}),
                      "mul"));
  cs.push_back(reduce(make("ScatterND_mul_bf16", "ScatterND",
                           {whole(in(kBF16, {2000}, -4, 4)), i64({3000, 1}, -2000, 1999), whole(in(kBF16, {3000}, -2, 2))}),
                      "mul"));
  cs.push_back(reduce(make("ScatterND_mul_u16_wraps", "ScatterND",
                           {in(DataType::kUInt16, {1000}, 0, 65535), i64({5000, 1}, -1000, 999),
                            in(DataType::kUInt16, {5000}, 0, 255)}),
                      "mul"));
  cs.push_back(reduce(make("ScatterND_mul_i64", "ScatterND",
                           {i64({1000}, -100, 100), i64({3000, 1}, -1000, 999), i64({3000}, -3, 3)}),
                      "mul"));
  cs.push_back(reduce(make("ScatterND_mul_bool_is_and", "ScatterND",
                           {boolean({2000}), i64({1000, 1}, -2000, 1999), boolean({1000})}),
                      "mul"));
  cs.push_back(reduce(make("ScatterND_max_i64", "ScatterND",
                           {i64({300, 20}, -1e9, 1e9), i64({4000, 1}, -300, 299), i64({4000, 20}, -1e9, 1e9)}),
                      "max", 18));
  cs.push_back(reduce(make("ScatterND_min_f32", "ScatterND",
                           {f32({300, 20}), i64({4000, 1}, -300, 299), f32({4000, 20})}),
                      "min", 18));
  // The remaining atomic paths: native double add, 16-bit float and 64-bit
  // integer compare-and-swap, unsigned products that wrap (defined in C++,
  // so exact in any order), and k = 0 with several tuples reducing all of
  // data.
  cs.push_back(reduce(make("ScatterND_add_f64_native", "ScatterND",
                           {whole(f64({200, 16}, -9, 9)), i64({3000, 1}, -200, 199), whole(f64({3000, 16}, -3, 3))}),
                      "add"));
  cs.push_back(reduce(make("ScatterND_min_bf16", "ScatterND",
                           {in(kBF16, {500}), i64({2000, 1}, -500, 499), in(kBF16, {2000})}),
                      "min", 18));
  cs.push_back(reduce(make("ScatterND_min_u64", "ScatterND",
                           {in(DataType::kUInt64, {300, 4}, 0, 1e18), i64({2000, 1}, -300, 299),
                            in(DataType::kUInt64, {2000, 4}, 0, 1e18)}),
                      "min", 18));
  cs.push_back(reduce(make("ScatterND_mul_u32_wraps", "ScatterND",
                           {in(DataType::kUInt32, {1000}, 0, 4e9), i64({5000, 1}, -1000, 999),
                            in(DataType::kUInt32, {5000}, 0, 1e5)}),
                      "mul"));
  cs.push_back(reduce(make("ScatterND_max_i32_k2", "ScatterND",
                           {i32({30, 20, 5}, -1e9, 1e9), i32({2000, 2}, -20, 19), i32({2000, 5}, -1e9, 1e9)}),
                      "max", 18));
  cs.push_back(reduce(make("ScatterND_add_i16_k0_tuples", "ScatterND",
                           {in(DataType::kInt16, {10, 30}, -100, 100), values(I64, {}, Dims{3, 0}),
                            in(DataType::kInt16, {3, 10, 30}, -100, 100)}),
                      "add"));
  // 8-bit integers have no atomic: the node falls back to the CPU.
  cs.push_back(declined(reduce(make("ScatterND_add_u8_declined", "ScatterND",
                                    {in(DataType::kUInt8, {100}, 0, 255), i64({50, 1}, -100, 99),
                                     in(DataType::kUInt8, {50}, 0, 255)}),
                               "add")));
}

void add_scatter_elements(std::vector<DiffCase>& cs) {
  const DataType I64 = DataType::kInt64, I32 = DataType::kInt32;
  cs.push_back(make("ScatterElements_axis1_f32", "ScatterElements",
                    {f32({64, 500}), unique_along_axis(I64, Dims{64, 200}, 1, 500, 10), f32({64, 200})},
                    {attr_int("axis", 1)}));
  // Indices smaller than data on the other axes; axis given negatively.
  cs.push_back(make("ScatterElements_3d_axis_neg2_i64", "ScatterElements",
                    {i64({8, 100, 20}, -1e12, 1e12), unique_along_axis(I32, Dims{6, 50, 17}, 1, 100, 11),
                     i64({6, 50, 17}, -1e12, 1e12)},
                    {attr_int("axis", -2)}));
  cs.push_back(make("ScatterElements_axis0_u8", "ScatterElements",
                    {in(DataType::kUInt8, {300, 40}, 0, 255), unique_along_axis(I64, Dims{250, 40}, 0, 300, 12),
                     in(DataType::kUInt8, {250, 40}, 0, 255)}));
  cs.push_back(opset(make("Scatter_9_f64", "Scatter",
                          {f64({50, 300}), unique_along_axis(I64, Dims{50, 100}, 1, 300, 13), f64({50, 100})},
                          {attr_int("axis", 1)}),
                     9));
  cs.push_back(opset(make("Scatter_10_axis0_i32", "Scatter",
                          {i32({200, 30}, -1000, 1000), unique_along_axis(I32, Dims{150, 30}, 0, 200, 14),
                           i32({150, 30}, -1000, 1000)}),
                     10));
  cs.push_back(make("ScatterElements_no_updates", "ScatterElements",
                    {f32({10, 10}), values(I64, {}, Dims{0, 10}), f32({0, 10})}));

  cs.push_back(reduce(make("ScatterElements_add_i64_axis0", "ScatterElements",
                           {i64({300, 50}, -1e12, 1e12), i64({1000, 50}, -300, 299), i64({1000, 50}, -1e12, 1e12)}),
                      "add"));
  cs.push_back(reduce(make("ScatterElements_add_f32_axis1", "ScatterElements",
                           {whole_f32({64, 100}, -9, 9), i32({64, 700}, -100, 99), whole_f32({64, 700}, -3, 3)},
                           {attr_int("axis", 1)}),
                      "add"));
  cs.push_back(reduce(make("ScatterElements_add_f16", "ScatterElements",
                           {whole(in(kF16, {32, 64}, -8, 8)), i64({32, 300}, -64, 63), whole(in(kF16, {32, 300}, -2, 2))},
                           {attr_int("axis", -1)}),
                      "add"));
  cs.push_back(reduce(make("ScatterElements_add_u32", "ScatterElements",
                           {in(DataType::kUInt32, {500}, 0, 4e9), i64({3000}, -500, 499),
                            in(DataType::kUInt32, {3000}, 0, 4e9)}),
                      "add"));
  cs.push_back(reduce(make("ScatterElements_mul_f32", "ScatterElements",
                           {whole_f32({40, 200}, -3, 3), i64({40, 600}, -200, 199), whole_f32({40, 600}, -2, 2)},
                           {attr_int("axis", 1)}),
                      "mul"));
  cs.push_back(reduce(make("ScatterElements_mul_i32", "ScatterElements",
                           {i32({1000}, -1000, 1000), i64({2000}, -1000, 999), i32({2000}, -3, 3)}),
                      "mul"));
  cs.push_back(reduce(make("ScatterElements_mul_f16", "ScatterElements",
                           {whole(in(kF16, {500}, -3, 3)), i64({1000}, -500, 499), whole(in(kF16, {1000}, -2, 2))}),
                      "mul"));
  cs.push_back(reduce(make("ScatterElements_max_u32", "ScatterElements",
                           {in(DataType::kUInt32, {64, 30}, 0, 4e9), i64({64, 500}, -30, 29),
                            in(DataType::kUInt32, {64, 500}, 0, 4e9)},
                           {attr_int("axis", 1)}),
                      "max", 18));
  cs.push_back(reduce(make("ScatterElements_min_i16", "ScatterElements",
                           {in(DataType::kInt16, {300}, -3e4, 3e4), i64({3000}, -300, 299),
                            in(DataType::kInt16, {3000}, -3e4, 3e4)}),
                      "min", 18));
  cs.push_back(reduce(make("ScatterElements_max_f64", "ScatterElements",
                           {f64({200, 10}), i32({900, 10}, -200, 199), f64({900, 10})}),
                      "max", 18));
  cs.push_back(reduce(make("ScatterElements_max_f16_axis0", "ScatterElements",
                           {in(kF16, {100, 20}), i64({400, 20}, -100, 99), in(kF16, {400, 20})}),
                      "max", 18));
  cs.push_back(reduce(make("ScatterElements_mul_u64_wraps", "ScatterElements",
                           {in(DataType::kUInt64, {400}, 0, 1e18), i64({3000}, -400, 399),
                            in(DataType::kUInt64, {3000}, 0, 1e6)}),
                      "mul"));
  cs.push_back(reduce(make("ScatterElements_max_bool_is_or", "ScatterElements",
                           {boolean({50, 40}), i64({200, 40}, -50, 49), boolean({200, 40})}),
                      "max", 18));
  cs.push_back(reduce(make("ScatterElements_min_bool_is_and", "ScatterElements",
                           {boolean({50, 40}), i32({200, 40}, -50, 49), boolean({200, 40})}),
                      "min", 18));
  cs.push_back(declined(reduce(make("ScatterElements_mul_i8_declined", "ScatterElements",
                                    {in(DataType::kInt8, {100}, -5, 5), i64({50}, -100, 99),
                                     in(DataType::kInt8, {50}, -2, 2)}),
                               "mul")));
}

void add_gather_nd(std::vector<DiffCase>& cs) {
  cs.push_back(opset(make("GatherND_rows_f32", "GatherND", {f32({5000, 64}), i64({300, 1}, -5000, 4999)}), 11));
  // Full tuples: each coordinate within the smallest indexed dim (20).
  cs.push_back(make("GatherND_elements_i64_i32_indices", "GatherND",
                    {i64({20, 30, 40}, -1e12, 1e12), i32({4000, 3}, -20, 19)}));
  cs.push_back(make("GatherND_k2_slices_f16", "GatherND", {in(kF16, {64, 50, 9}), i64({30, 40, 2}, -50, 49)}));
  cs.push_back(make("GatherND_bool_rows", "GatherND", {boolean({300, 7}), i64({1000, 1}, -300, 299)}));
  cs.push_back(opset(make("GatherND_batch_dims1", "GatherND", {f32({16, 100, 30}), i64({16, 50, 1}, -100, 99)},
                          {attr_int("batch_dims", 1)}),
                     12));
  cs.push_back(make("GatherND_batch_dims2_u8", "GatherND",
                    {in(DataType::kUInt8, {4, 8, 50, 6}, 0, 255), i32({4, 8, 200, 2}, -6, 5)},
                    {attr_int("batch_dims", 2)}));
  cs.push_back(make("GatherND_batch_dims1_f64_k2", "GatherND", {f64({10, 30, 40, 5}), i64({10, 7, 11, 2}, -30, 29)},
                    {attr_int("batch_dims", 1)}));
  cs.push_back(make("GatherND_empty_slices", "GatherND", {f32({10, 0}), i64({5, 1}, -10, 9)}));
  cs.push_back(make("GatherND_no_tuples", "GatherND", {f32({10, 4}), values(DataType::kInt64, {}, Dims{0, 1})}));
}

void add_trilu(std::vector<DiffCase>& cs) {
  cs.push_back(opset(make("Trilu_upper_f32", "Trilu", {f32({3, 300, 257})}), 14));
  cs.push_back(make("Trilu_lower_k_neg_f32", "Trilu", {f32({1000, 1001}), scalar(DataType::kInt64, -5)},
                    {attr_int("upper", 0)}));
  cs.push_back(make("Trilu_upper_k_pos_i64", "Trilu", {i64({2, 64, 700}, -1e12, 1e12), scalar(DataType::kInt64, 100)}));
  cs.push_back(make("Trilu_lower_wide_k_bool", "Trilu", {boolean({33, 1000}), scalar(DataType::kInt64, 500)},
                    {attr_int("upper", 0)}));
  cs.push_back(make("Trilu_huge_k_f16", "Trilu", {in(kF16, {50, 60}), scalar(DataType::kInt64, 9e18)}));
  cs.push_back(make("Trilu_lower_huge_negative_k_u8", "Trilu",
                    {in(DataType::kUInt8, {50, 60}, 0, 255), scalar(DataType::kInt64, -9e18)},
                    {attr_int("upper", 0)}));
  cs.push_back(make("Trilu_tall_batched_i32", "Trilu", {i32({5, 7, 400, 30}, -9, 9), scalar(DataType::kInt64, -3)}));
  cs.push_back(make("Trilu_empty", "Trilu", {f32({4, 0, 5})}));
}

void add_range(std::vector<DiffCase>& cs) {
  const DataType F = DataType::kFloat;
  auto range = [](const char* name, DataType t, double a, double b, double d) {
    return opset(make(name, "Range", {scalar(t, a), scalar(t, b), scalar(t, d)}), 11);
  };
  cs.push_back(tol(range("Range_f32_1M", F, -3, 1000.5, 0.001), 0, 0));
  cs.push_back(tol(range("Range_f32_negative_delta", F, 100, -100, -0.37), 0, 0));
  cs.push_back(tol(range("Range_f64", DataType::kDouble, 0.5, 2e5, 0.25), 0, 0));
  cs.push_back(tol(range("Range_f16", kF16, -10, 100, 0.5), 0, 0));
  cs.push_back(tol(range("Range_bf16", kBF16, 0, 300, 1.5), 0, 0));
  cs.push_back(range("Range_i64", DataType::kInt64, -1e6, 1e6, 3));
  cs.push_back(range("Range_i64_large_values", DataType::kInt64, -4e18, 4e18, 1e15));
  cs.push_back(range("Range_i32_negative_delta", DataType::kInt32, 10000, -5000, -7));
  cs.push_back(range("Range_i16", DataType::kInt16, -30000, 30000, 11));
  cs.push_back(range("Range_u8", DataType::kUInt8, 5, 250, 2));
  cs.push_back(range("Range_i8_negative_delta", DataType::kInt8, 100, -100, -3));
  cs.push_back(range("Range_u64", DataType::kUInt64, 5, 1e6, 7));
  cs.push_back(range("Range_empty", DataType::kInt64, 5, 0, 1));
}

void add_eye_like(std::vector<DiffCase>& cs) {
  const int kI32 = static_cast<int>(DataType::kInt32), kHalf = static_cast<int>(DataType::kFloat16),
            kB = static_cast<int>(DataType::kBool), kD = static_cast<int>(DataType::kDouble);
  cs.push_back(opset(make("EyeLike_f32", "EyeLike", {f32({1000, 1200})}), 9));
  cs.push_back(make("EyeLike_k_pos_to_i32", "EyeLike", {f32({300, 500})}, {attr_int("k", 7), attr_int("dtype", kI32)}));
  cs.push_back(make("EyeLike_k_neg_i64", "EyeLike", {i64({700, 300}, -9, 9)}, {attr_int("k", -50)}));
  cs.push_back(make("EyeLike_to_f16", "EyeLike", {i32({2000, 100}, -9, 9)}, {attr_int("k", -1990), attr_int("dtype", kHalf)}));
  cs.push_back(make("EyeLike_to_bool", "EyeLike", {boolean({64, 65})}, {attr_int("dtype", kB)}));
  cs.push_back(make("EyeLike_k_beyond_cols", "EyeLike", {f32({100, 100})}, {attr_int("k", 5000), attr_int("dtype", kD)}));
  cs.push_back(make("EyeLike_u16_to_u64_k3", "EyeLike", {in(DataType::kUInt16, {300, 200}, 0, 9)},
                    {attr_int("k", 3), attr_int("dtype", static_cast<int>(DataType::kUInt64))}));
  cs.push_back(make("EyeLike_empty", "EyeLike", {f32({0, 10})}));
}

void add_one_hot(std::vector<DiffCase>& cs) {
  const DataType I64 = DataType::kInt64;
  // Indices from -12 to 11 with depth 10: both ends out of range (all-off rows).
  cs.push_back(make("OneHot_i64_last_axis", "OneHot",
                    {i64({1000}, -12, 11), scalar(I64, 10), values(DataType::kFloat, {-0.5, 2})}));
  cs.push_back(make("OneHot_axis0_i32_float_depth", "OneHot",
                    {i32({50, 40}, -30, 29), scalar(DataType::kFloat, 30), values(I64, {3, 7})},
                    {attr_int("axis", 0)}));
  // Fractional float indices truncate toward zero, as on the CPU.
  cs.push_back(make("OneHot_axis1_f32_indices_f16_values", "OneHot",
                    {f32({64, 100}, -6, 6), scalar(DataType::kInt32, 5), values(kF16, {0, 1})},
                    {attr_int("axis", 1)}));
  cs.push_back(make("OneHot_fractional_depth_u8_values", "OneHot",
                    {i64({3000}, -5, 5), scalar(DataType::kDouble, 3.7), values(DataType::kUInt8, {1, 200})},
                    {attr_int("axis", -1)}));
  cs.push_back(opset(make("OneHot_9_i32_values", "OneHot",
                          {i64({2000}, 0, 99), scalar(I64, 100), values(DataType::kInt32, {0, 1})}),
                     9));
  cs.push_back(make("OneHot_f16_indices_axis_neg2", "OneHot",
                    {in(kF16, {20, 30}, -8, 8), scalar(I64, 8), values(DataType::kDouble, {0.25, -1})},
                    {attr_int("axis", -2)}));
  cs.push_back(make("OneHot_bool_indices_bf16_values", "OneHot",
                    {boolean({500}), scalar(I64, 3), values(kBF16, {-1, 0.5})}));
  cs.push_back(make("OneHot_u64_indices_axis0_i8_values", "OneHot",
                    {in(DataType::kUInt64, {40, 30}, 0, 20), scalar(I64, 15), values(DataType::kInt8, {-3, 9})},
                    {attr_int("axis", 0)}));
  cs.push_back(make("OneHot_empty_indices", "OneHot",
                    {values(I64, {}, Dims{0, 3}), scalar(I64, 4), values(DataType::kFloat, {0, 1})}));
}

// NonZero runs in two launches (the count, then the coordinates): chunks
// of 2048 elements, so the cases span one partial chunk, several, and
// more than one 256-chunk tile of the count scan; rounded floats include
// -0 (zero) and NaN (non-zero).
void add_nonzero(std::vector<DiffCase>& cs) {
  cs.push_back(make("NonZero_bool_many_chunks", "NonZero", {boolean({3, 700, 300})}));
  cs.push_back(make("NonZero_f32_signed_zeros", "NonZero", {whole(f32({64, 65}, -1, 1))}));
  cs.push_back(make("NonZero_f32_nan_and_negative_zero", "NonZero",
                    {values(DataType::kFloat, {kNaN, -0.0, 0, 1, -kInf, 0}, Dims{2, 3})}));
  cs.push_back(make("NonZero_f16_3d", "NonZero", {whole(in(kF16, {5, 40, 33}, -1, 1))}));
  cs.push_back(make("NonZero_bf16_1d", "NonZero", {whole(in(kBF16, {5000}, -1, 1))}));
  cs.push_back(make("NonZero_f64_2d", "NonZero", {whole(f64({30, 200}, -1, 1))}));
  cs.push_back(make("NonZero_i64_sparse", "NonZero", {i64({9000}, -1, 30)}));
  cs.push_back(make("NonZero_u8_rank8", "NonZero", {in(DataType::kUInt8, {2, 3, 2, 3, 2, 3, 2, 5}, 0, 2)}));
  cs.push_back(make("NonZero_i16_all_zero", "NonZero", {in(DataType::kInt16, {100, 100}, 0, 0)}));
  cs.push_back(make("NonZero_scalar", "NonZero", {scalar(DataType::kInt32, 7)}));
  cs.push_back(make("NonZero_scalar_zero", "NonZero", {scalar(DataType::kFloat, 0)}));
  cs.push_back(make("NonZero_empty", "NonZero", {f32({0, 5})}));
  cs.push_back(declined(make("NonZero_rank9_declines", "NonZero", {boolean({2, 2, 2, 2, 2, 2, 2, 2, 2})})));
}

// Unique (no axis) with all four outputs: many repeats, all distinct,
// every NaN one group and -0 with +0, in value order and in order of first
// occurrence; more than 256 chunks of group starts; one output; a scalar;
// nothing. With an axis: rows, columns and middle slices of few values
// (so slices repeat, and differ first in their last elements), NaN and
// signed zeros inside slices, negative axes, empty slices and no slices;
// slices past kUniqueMaxSlice decline.
void add_unique(std::vector<DiffCase>& cs) {
  auto unique = [](std::string name, DiffInput x, bool sorted = true, size_t outputs = 4) {
    return opset(make(std::move(name), "Unique", {std::move(x)}, {attr_int("sorted", sorted)}, outputs), 11);
  };
  const std::vector<double> odd = {kNaN, 0, -0.0, 1, kNaN, -0.0, 1, -kInf, 3, kInf, -kNaN, 0};
  cs.push_back(unique("Unique_f32_repeats", whole(f32({5000}, -50, 50))));
  cs.push_back(unique("Unique_f32_repeats_unsorted", whole(f32({5000}, -50, 50)), false));
  cs.push_back(unique("Unique_f32_nan_and_zeros", values(DataType::kFloat, odd)));
  cs.push_back(unique("Unique_f64_nan_and_zeros_unsorted", values(DataType::kDouble, odd), false));
  cs.push_back(unique("Unique_f16_2d", whole(in(kF16, {40, 50}, -30, 30))));
  cs.push_back(unique("Unique_bf16_unsorted", whole(in(kBF16, {3000}, -20, 20)), false));
  cs.push_back(unique("Unique_f32_distinct", f32({3000})));
  cs.push_back(unique("Unique_i32_many_chunks", i32({600000}, -100000, 100000)));
  cs.push_back(unique("Unique_i64_unsorted", i64({7000}, -1e12, 1e12), false));
  cs.push_back(unique("Unique_i8_3d", in(DataType::kInt8, {4, 30, 20}, -128, 127)));
  cs.push_back(unique("Unique_u8_unsorted", in(DataType::kUInt8, {3000}, 0, 255), false));
  cs.push_back(unique("Unique_i16", in(DataType::kInt16, {2000}, -300, 300)));
  cs.push_back(unique("Unique_u64", in(DataType::kUInt64, {2000}, 0, 1e15)));
  cs.push_back(unique("Unique_bool_unsorted", boolean({100}), false));
  cs.push_back(unique("Unique_values_only", whole(f32({1000}, -9, 9)), true, 1));
  cs.push_back(unique("Unique_scalar", scalar(DataType::kInt64, 4)));
  cs.push_back(unique("Unique_empty", f32({0, 3})));
  auto along = [&](std::string name, DiffInput x, int64_t axis, bool sorted = true) {
    DiffCase c = unique(std::move(name), std::move(x), sorted);
    c.attrs.push_back(attr_int("axis", axis));
    return c;
  };
  cs.push_back(along("Unique_axis0_rows", i64({3000, 4}, 0, 2), 0));
  cs.push_back(along("Unique_axis1_columns_unsorted", in(DataType::kInt8, {3, 500}, -1, 1), 1, false));
  cs.push_back(along("Unique_axis_middle_f32", whole(f32({2, 400, 3}, -1, 1)), 1));
  cs.push_back(along("Unique_axis_negative_bool", boolean({5, 2, 300}), -1, false));
  const std::vector<double> odd_rows = {kNaN, 0, 1, -kNaN, -0.0, 1, 2, kInf, 1, kNaN, 0, 1, 2, kInf, 0};
  cs.push_back(along("Unique_axis_nan_and_zeros_in_rows", values(DataType::kFloat, odd_rows, Dims{5, 3}), 0));
  cs.push_back(along("Unique_axis_f16_rows", whole(in(kF16, {800, 2}, -2, 2)), 0));
  cs.push_back(along("Unique_axis_u16_long_rows", in(DataType::kUInt16, {200, 64}, 0, 1), 0, false));
  cs.push_back(along("Unique_axis_empty_slices", f32({7, 0}), 0));
  cs.push_back(along("Unique_axis_no_slices", f32({0, 3}), 0));
  cs.push_back(declined(along("Unique_axis_long_slices_decline", i64({30, 65}, 0, 2), 0)));
}

}  // namespace

void add_index_cases(std::vector<DiffCase>& cs) {
  add_scatter_nd(cs);
  add_scatter_elements(cs);
  add_gather_nd(cs);
  add_trilu(cs);
  add_range(cs);
  add_eye_like(cs);
  add_one_hot(cs);
  add_nonzero(cs);
  add_unique(cs);
}

}  // namespace sy::testing
