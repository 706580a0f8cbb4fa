// RotaryEmbedding (opset 23) against plain loops written from the
// operator specification: 3-D and 4-D inputs, interleaved pairs, partial
// rotation, caches by position or by token; then bad inputs.
#include <gtest/gtest.h>

#include <random>

#include "tests/devices/kernel_test_util.h"

namespace sy::testing {
namespace {

// Element (b, h, s, 0) of a [B, H, S, D] view of a 3-D or 4-D tensor.
int64_t at(bool three_d, int64_t H, int64_t S, int64_t D, int64_t b, int64_t h, int64_t s) {
  return three_d ? ((b * S + s) * H + h) * D : ((b * H + h) * S + s) * D;
}

struct RotaryConfig {
  bool three_d = false, interleaved = false, by_position = true;
  int64_t batch = 2, heads = 3, len = 4, head = 6, rotary_dim = 0, positions = 7;
};

TEST(RotaryEmbedding, MatchesTheSpecification) {
  const std::vector<RotaryConfig> configs = {
      {}, {.interleaved = true}, {.three_d = true, .rotary_dim = 4}, {.interleaved = true, .rotary_dim = 2},
      {.by_position = false}, {.three_d = true, .interleaved = true, .by_position = false, .rotary_dim = 4}};
  uint32_t seed = 3;
  for (const RotaryConfig& c : configs) {
    SCOPED_TRACE(::testing::Message() << "3-D " << c.three_d << " interleaved " << c.interleaved << " rotary_dim "
                                    << c.rotary_dim << " positions " << c.by_position);
    const int64_t rot = c.rotary_dim ? c.rotary_dim : c.head, half = rot / 2;
    const std::vector<float> x = random_floats(c.batch * c.heads * c.len * c.head, seed++);
    const int64_t rows = c.by_position ? c.positions : c.batch * c.len;
    const std::vector<float> cos = random_floats(rows * half, seed++), sin = random_floats(rows * half, seed++);
    std::vector<int64_t> ids;
    std::mt19937 gen(seed++);
    for (int64_t i = 0; i < c.batch * c.len; ++i) ids.push_back(static_cast<int64_t>(gen() % c.positions));
    const Dims cache_dims = c.by_position ? Dims{c.positions, half} : Dims{c.batch, c.len, half};
    std::vector<RuntimeValue> in = {
        make_tensor<float>(c.three_d ? Dims{c.batch, c.len, c.heads * c.head} : Dims{c.batch, c.heads, c.len, c.head},
                           x),
        make_tensor<float>(cache_dims, cos), make_tensor<float>(cache_dims, sin)};
    if (c.by_position) in.push_back(make_tensor<int64_t>({c.batch, c.len}, ids));
    std::vector<Attribute> attrs = {attr_int("interleaved", c.interleaved),
                                    attr_int("rotary_embedding_dim", c.rotary_dim)};
    if (c.three_d) attrs.push_back(attr_int("num_heads", c.heads));
    auto r = run_kernel("RotaryEmbedding", in, 1, attrs, 23);
    std::vector<float> want = x;
    for (int64_t b = 0; b < c.batch; ++b)
      for (int64_t h = 0; h < c.heads; ++h)
        for (int64_t s = 0; s < c.len; ++s) {
          const int64_t row = c.by_position ? ids[static_cast<size_t>(b * c.len + s)] : b * c.len + s;
          const int64_t base = at(c.three_d, c.heads, c.len, c.head, b, h, s);
          for (int64_t k = 0; k < half; ++k) {
            const int64_t i1 = base + (c.interleaved ? 2 * k : k), i2 = base + (c.interleaved ? 2 * k + 1 : k + half);
            const float cs = cos[static_cast<size_t>(row * half + k)], sn = sin[static_cast<size_t>(row * half + k)];
            want[static_cast<size_t>(i1)] = cs * x[static_cast<size_t>(i1)] - sn * x[static_cast<size_t>(i2)];
            want[static_cast<size_t>(i2)] = sn * x[static_cast<size_t>(i1)] + cs * x[static_cast<size_t>(i2)];
          }
        }
    expect_near(out<float>(r), want, 1e-6f);
  }
}

TEST(RotaryEmbedding, BadInputs) {
  const Tensor x = make_tensor<float>({1, 1, 2, 4}, std::vector<float>(8));
  const Tensor cache = make_tensor<float>({3, 2}, std::vector<float>(6));
  auto status = [](std::vector<RuntimeValue> in, std::vector<Attribute> attrs = {}) {
    return run_kernel("RotaryEmbedding", std::move(in), 1, std::move(attrs), 23).status;
  };
  EXPECT_TRUE(status({x, cache, cache, make_tensor<int64_t>({1, 2}, {0, 2})}).ok());
  // A position past the caches, or negative.
  EXPECT_EQ(status({x, cache, cache, make_tensor<int64_t>({1, 2}, {0, 3})}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status({x, cache, cache, make_tensor<int64_t>({1, 2}, {-1, 0})}).code(), StatusCode::kInvalidArgument);
  // Caches of the wrong width; an odd or too long rotary_embedding_dim.
  const Tensor narrow = make_tensor<float>({3, 1}, std::vector<float>(3));
  const Tensor ids = make_tensor<int64_t>({1, 2}, {0, 1});
  EXPECT_EQ(status({x, narrow, narrow, ids}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status({x, narrow, narrow, ids}, {attr_int("rotary_embedding_dim", 3)}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(status({x, cache, cache, ids}, {attr_int("rotary_embedding_dim", 6)}).code(),
            StatusCode::kInvalidArgument);
  // Without position_ids the caches are [B, S, half]; 3-D X needs num_heads.
  EXPECT_EQ(status({x, cache, cache}).code(), StatusCode::kInvalidArgument);
  const Tensor x3 = make_tensor<float>({1, 2, 4}, std::vector<float>(8));
  EXPECT_EQ(status({x3, cache, cache, ids}).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(status({x3, cache, cache, ids}, {attr_int("num_heads", 1)}).ok());
}

}  // namespace
}  // namespace sy::testing
