// Attention (opset 23) against plain loops written
// from the operator specification, over head layouts, grouped heads,
// caches, masks, softcap and every qk_matmul_output mode; then the edge
// cases (fully masked rows, more query rows than one block of scores) and
// bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "tests/devices/kernel_test_util.h"

namespace sy::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

struct Config {
  bool three_d = false;
  int64_t batch = 2, q_heads = 4, kv_heads = 2, q_len = 3, kv_len = 5, past = 0, head = 4, v_head = 3;
  bool causal = false;
  std::optional<float> scale = std::nullopt;
  float softcap = 0;
  int qk_mode = -1;  // -1: no qk_matmul_output
  std::optional<Dims> mask_dims = std::nullopt;
  bool bool_mask = false;
};

// Element (b, h, s, d) of a [B, H, S, D] view of a 3-D or 4-D tensor.
int64_t at(bool three_d, int64_t H, int64_t S, int64_t D, int64_t b, int64_t h, int64_t s, int64_t d) {
  return three_d ? ((b * S + s) * H + h) * D + d : ((b * H + h) * S + s) * D + d;
}

struct Inputs {
  std::vector<float> q, k, v, past_k, past_v, mask;
  std::vector<RuntimeValue> values;
};

Inputs make_inputs(const Config& c, uint32_t seed) {
  Inputs in;
  in.q = random_floats(c.batch * c.q_heads * c.q_len * c.head, seed);
  in.k = random_floats(c.batch * c.kv_heads * c.kv_len * c.head, seed + 1);
  in.v = random_floats(c.batch * c.kv_heads * c.kv_len * c.v_head, seed + 2);
  auto dims = [&](int64_t H, int64_t S, int64_t D) {
    return c.three_d ? Dims{c.batch, S, H * D} : Dims{c.batch, H, S, D};
  };
  in.values = {make_tensor<float>(dims(c.q_heads, c.q_len, c.head), in.q),
               make_tensor<float>(dims(c.kv_heads, c.kv_len, c.head), in.k),
               make_tensor<float>(dims(c.kv_heads, c.kv_len, c.v_head), in.v)};
  in.values.emplace_back();
  if (c.mask_dims) {
    std::mt19937 gen(seed + 3);
    in.mask.resize(static_cast<size_t>(c.mask_dims->numel()));
    if (c.bool_mask) {
      std::vector<bool> keep;
      for (float& m : in.mask) {
        keep.push_back(gen() % 4 != 0);
        m = keep.back() ? 0.f : -kInf;
      }
      in.values.back() = make_tensor<bool>(*c.mask_dims, keep);
    } else {
      in.mask = random_floats(c.mask_dims->numel(), seed + 3, -2.f, 2.f);
      in.values.back() = make_tensor<float>(*c.mask_dims, in.mask);
    }
  }
  if (c.past > 0) {
    in.past_k = random_floats(c.batch * c.kv_heads * c.past * c.head, seed + 4);
    in.past_v = random_floats(c.batch * c.kv_heads * c.past * c.v_head, seed + 5);
    in.values.push_back(make_tensor<float>({c.batch, c.kv_heads, c.past, c.head}, in.past_k));
    in.values.push_back(make_tensor<float>({c.batch, c.kv_heads, c.past, c.v_head}, in.past_v));
  }
  return in;
}

struct Expected {
  std::vector<float> y, qk;
};

// The specification's computation, in double, one score at a time.
Expected reference(const Config& c, const Inputs& in) {
  const int64_t T = c.past + c.kv_len, group = c.q_heads / c.kv_heads;
  const double scale = c.scale ? *c.scale : 1.0 / std::sqrt(static_cast<double>(c.head));
  auto key = [&](int64_t b, int64_t h, int64_t j, int64_t d) {
    return j < c.past ? in.past_k[static_cast<size_t>(((b * c.kv_heads + h) * c.past + j) * c.head + d)]
                      : in.k[static_cast<size_t>(at(c.three_d, c.kv_heads, c.kv_len, c.head, b, h, j - c.past, d))];
  };
  auto value = [&](int64_t b, int64_t h, int64_t j, int64_t d) {
    return j < c.past
               ? in.past_v[static_cast<size_t>(((b * c.kv_heads + h) * c.past + j) * c.v_head + d)]
               : in.v[static_cast<size_t>(at(c.three_d, c.kv_heads, c.kv_len, c.v_head, b, h, j - c.past, d))];
  };
  // The mask, right-aligned onto [B, Hq, Sq, T]; keys past its last dim masked.
  auto mask_at = [&](int64_t b, int64_t h, int64_t i, int64_t j) -> double {
    if (!c.mask_dims) return 0;
    const Dims& m = *c.mask_dims;
    const int64_t idx[4] = {b, h, i, j};
    if (m.back() != 1 && j >= m.back()) return -INFINITY;
    int64_t off = 0;
    for (size_t r = 0; r < m.size(); ++r) {
      const int64_t full = idx[4 - m.size() + r];
      off = off * m[r] + (m[r] == 1 ? 0 : full);
    }
    return in.mask[static_cast<size_t>(off)];
  };
  Expected e;
  e.y.assign(static_cast<size_t>(c.batch * c.q_heads * c.q_len * c.v_head), 0.f);
  e.qk.assign(static_cast<size_t>(c.batch * c.q_heads * c.q_len * T), 0.f);
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.q_heads; ++h)
      for (int64_t i = 0; i < c.q_len; ++i) {
        std::vector<double> s(static_cast<size_t>(T)), bias(static_cast<size_t>(T));
        bool all_masked = true;
        for (int64_t j = 0; j < T; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < c.head; ++d)
            dot += in.q[static_cast<size_t>(at(c.three_d, c.q_heads, c.q_len, c.head, b, h, i, d))] *
                   static_cast<double>(key(b, h / group, j, d));
          dot *= scale;
          double& qk = s[static_cast<size_t>(j)];
          qk = dot;
          float& out = e.qk[static_cast<size_t>(((b * c.q_heads + h) * c.q_len + i) * T + j)];
          if (c.qk_mode == 0) out = static_cast<float>(qk);
          if (c.softcap > 0) qk = c.softcap * std::tanh(qk / c.softcap);
          if (c.qk_mode == 1) out = static_cast<float>(qk);
          double add = mask_at(b, h, i, j);
          if (c.causal && j > i + c.past) add = -INFINITY;
          bias[static_cast<size_t>(j)] = add;
          all_masked = all_masked && std::isinf(add) && add < 0;
          qk += add;
          if (c.qk_mode == 2) out = static_cast<float>(qk);
        }
        if (!(c.mask_dims || c.causal)) all_masked = false;
        double top = -INFINITY, sum = 0;
        for (double v : s) top = std::max(top, v);
        for (double& v : s) sum += (v = all_masked ? 0.0 : std::exp(v - top));
        for (int64_t j = 0; j < T; ++j) {
          const double p = all_masked ? 0.0 : s[static_cast<size_t>(j)] / sum;
          if (c.qk_mode == 3)
            e.qk[static_cast<size_t>(((b * c.q_heads + h) * c.q_len + i) * T + j)] = static_cast<float>(p);
          for (int64_t d = 0; d < c.v_head; ++d)
            e.y[static_cast<size_t>(at(c.three_d, c.q_heads, c.q_len, c.v_head, b, h, i, d))] +=
                static_cast<float>(p * value(b, h / group, j, d));
        }
      }
  return e;
}

std::vector<Attribute> attributes(const Config& c) {
  std::vector<Attribute> a;
  if (c.three_d) {
    a.push_back(attr_int("q_num_heads", c.q_heads));
    a.push_back(attr_int("kv_num_heads", c.kv_heads));
  }
  if (c.causal) a.push_back(attr_int("is_causal", 1));
  if (c.scale) a.push_back(attr_float("scale", *c.scale));
  if (c.softcap > 0) a.push_back(attr_float("softcap", c.softcap));
  if (c.qk_mode >= 0) a.push_back(attr_int("qk_matmul_output_mode", c.qk_mode));
  return a;
}

void check(const Config& c, uint32_t seed) {
  const Inputs in = make_inputs(c, seed);
  const Expected want = reference(c, in);
  const size_t outputs = c.qk_mode >= 0 ? 4 : (c.past > 0 ? 3 : 1);
  auto r = run_kernel("Attention", in.values, outputs, attributes(c), 23);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(out<float>(r, 0), want.y, 2e-5f);
  const Dims y_dims = c.three_d ? Dims{c.batch, c.q_len, c.q_heads * c.v_head}
                                : Dims{c.batch, c.q_heads, c.q_len, c.v_head};
  EXPECT_EQ(out_dims(r, 0), y_dims);
  if (outputs >= 3) {
    // The caches: past then new keys, in [B, Hkv, T, D].
    const std::vector<float> pk = out<float>(r, 1);
    const int64_t T = c.past + c.kv_len;
    EXPECT_EQ(out_dims(r, 1), (Dims{c.batch, c.kv_heads, T, c.head}));
    EXPECT_EQ(out_dims(r, 2), (Dims{c.batch, c.kv_heads, T, c.v_head}));
    for (int64_t b = 0; b < c.batch; ++b)
      for (int64_t h = 0; h < c.kv_heads; ++h)
        for (int64_t j = 0; j < T; ++j) {
          const float want_k =
              j < c.past ? in.past_k[static_cast<size_t>(((b * c.kv_heads + h) * c.past + j) * c.head)]
                         : in.k[static_cast<size_t>(at(c.three_d, c.kv_heads, c.kv_len, c.head, b, h, j - c.past, 0))];
          ASSERT_EQ(pk[static_cast<size_t>(((b * c.kv_heads + h) * T + j) * c.head)], want_k);
        }
  }
  if (c.qk_mode >= 0) expect_near(out<float>(r, 3), want.qk, 2e-5f);
}

TEST(Attention, MatchesTheSpecification) {
  std::vector<std::pair<const char*, Config>> cases;
  cases.push_back({"4-D, grouped heads", Config{}});
  cases.push_back({"3-D", Config{.three_d = true, .q_heads = 3, .kv_heads = 3}});
  cases.push_back({"3-D, grouped, causal", Config{.three_d = true, .q_heads = 6, .kv_heads = 2, .causal = true}});
  cases.push_back({"scale, softcap", Config{.scale = 0.3f, .softcap = 1.5f, .qk_mode = 1}});
  cases.push_back({"2-D float mask", Config{.mask_dims = Dims{3, 5}}});
  cases.push_back({"4-D bool mask", Config{.qk_mode = 2, .mask_dims = Dims{2, 4, 3, 5}, .bool_mask = true}});
  cases.push_back({"3-D mask over heads", Config{.qk_mode = 3, .mask_dims = Dims{4, 1, 5}}});
  cases.push_back({"past, short mask, causal", Config{.q_len = 2, .kv_len = 2, .past = 4, .causal = true,
                                                      .qk_mode = 2, .mask_dims = Dims{2, 1, 2, 4}}});
  cases.push_back({"3-D with past", Config{.three_d = true, .past = 3, .qk_mode = 0}});
  cases.push_back({"mask's last dim broadcasts", Config{.mask_dims = Dims{2, 1, 3, 1}}});
  cases.push_back({"more query rows than a block", Config{.batch = 1, .q_heads = 1, .kv_heads = 1, .q_len = 300,
                                                          .kv_len = 300, .head = 8, .v_head = 5, .causal = true}});
  uint32_t seed = 10;
  for (const auto& [name, c] : cases) {
    SCOPED_TRACE(name);
    check(c, seed += 10);
  }
}

// A row whose every key is masked gives zeros, also when its scores hold
// an infinity (which a softmax would turn into NaN), and so does its row
// of the softmax output.
TEST(Attention, FullyMaskedRows_AreZero) {
  const Tensor q = make_tensor<float>({1, 1, 2, 2}, {kInf, 1, 1, 1});
  const Tensor k = make_tensor<float>({1, 1, 2, 2}, {1, 0, 0, 1});
  const Tensor v = make_tensor<float>({1, 1, 2, 1}, {3, 5});
  const Tensor mask = make_tensor<bool>({2, 2}, {false, false, true, false});
  auto r = run_kernel("Attention", {q, k, v, mask}, 4, {attr_int("qk_matmul_output_mode", 3)}, 23);
  expect_near(out<float>(r, 0), {0, 3});
  expect_near(out<float>(r, 3), {0, 0, 1, 0});
}

// Double stays double; float16 computes in float and rounds once.
TEST(Attention, OtherTypes) {
  const Config c{.batch = 1, .q_heads = 2, .kv_heads = 1, .causal = true};
  const Inputs in = make_inputs(c, 5);
  const Expected want = reference(c, in);
  auto convert = [&](auto tag) {
    using T = decltype(tag);
    std::vector<RuntimeValue> values;
    for (size_t i = 0; i < 3; ++i) {
      const Tensor& f = in.values[i].tensor();
      std::vector<T> v;
      for (float x : to_vector<float>(f)) v.push_back(T(x));
      values.push_back(make_tensor<T>(f.dims(), v));
    }
    return run_kernel("Attention", values, 1, attributes(c), 23);
  };
  auto dbl = convert(double{});
  const std::vector<double> got = out<double>(dbl);
  ASSERT_EQ(got.size(), want.y.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want.y[i], 1e-6);
  auto half = convert(Float16{});
  const std::vector<Float16> got16 = out<Float16>(half);
  ASSERT_EQ(got16.size(), want.y.size());
  for (size_t i = 0; i < got16.size(); ++i) EXPECT_NEAR(static_cast<float>(got16[i]), want.y[i], 2e-3);
}

TEST(Attention, BadInputs) {
  const Tensor q4 = make_tensor<float>({1, 3, 2, 4}, std::vector<float>(24));
  const Tensor k4 = make_tensor<float>({1, 2, 2, 4}, std::vector<float>(16));
  const Tensor v4 = make_tensor<float>({1, 2, 2, 4}, std::vector<float>(16));
  auto status = [](std::vector<RuntimeValue> in, std::vector<Attribute> attrs = {}) {
    return run_kernel("Attention", std::move(in), 1, std::move(attrs), 23).status;
  };
  // 3 query heads over 2 key/value heads.
  EXPECT_EQ(status({q4, k4, v4}).code(), StatusCode::kInvalidArgument);
  const Tensor q = make_tensor<float>({1, 2, 2, 4}, std::vector<float>(16));
  EXPECT_TRUE(status({q, k4, v4}).ok());
  // 3-D without head counts; head sizes that differ; ranks that differ.
  const Tensor q3 = make_tensor<float>({1, 2, 8}, std::vector<float>(16));
  EXPECT_EQ(status({q3, q3, q3}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status({q3, q3, q3}, {attr_int("q_num_heads", 3), attr_int("kv_num_heads", 2)}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(status({q3, k4, v4}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status({make_tensor<float>({1, 2, 2, 3}, std::vector<float>(12)), k4, v4}).code(),
            StatusCode::kInvalidArgument);
  // A mask that does not broadcast, or longer than the keys.
  EXPECT_EQ(status({q, k4, v4, make_tensor<float>({3, 2}, std::vector<float>(6))}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(status({q, k4, v4, make_tensor<float>({2, 3}, std::vector<float>(6))}).code(),
            StatusCode::kInvalidArgument);
  // past_key without past_value, and a past_key of the wrong head size.
  const Tensor past = make_tensor<float>({1, 2, 1, 4}, std::vector<float>(8));
  EXPECT_EQ(status({q, k4, v4, RuntimeValue(), past}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status({q, k4, v4, RuntimeValue(), make_tensor<float>({1, 2, 1, 3}, std::vector<float>(6)), past}).code(),
            StatusCode::kInvalidArgument);
  // K of another type than Q; a bad qk_matmul_output_mode.
  EXPECT_EQ(status({q, make_tensor<double>({1, 2, 2, 4}, std::vector<double>(16)), v4}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(status({q, k4, v4}, {attr_int("qk_matmul_output_mode", 4)}).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sy::testing
