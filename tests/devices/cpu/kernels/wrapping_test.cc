// Integer overflow wraps around (two's complement, as numpy and ONNX
// Runtime give on x86) in the helpers of devices/cpu/kernels/wrapping.h and
// in every CPU kernel that accumulates integers with them. In the sanitizer
// build an overflow left undefined aborts the test (UBSan, no recovery);
// the fuzzer found one in Einsum. Expected values come from unsigned
// arithmetic, where wrapping is defined.
#include "devices/cpu/kernels/wrapping.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_int;
using testing::attr_string;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// a + b, a * b and -a as the hardware wraps them.
int64_t plus(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t times(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

TEST(Wrapping, Helpers_WrapEveryIntegerWidth) {
  EXPECT_EQ(wrap_add<int64_t>(kMax, 2), kMin + 1);
  EXPECT_EQ(wrap_sub<int32_t>(std::numeric_limits<int32_t>::min(), 1), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(wrap_mul<int64_t>(kMax, 3), times(kMax, 3));
  // uint16 * uint16 promotes to int, where 65535 * 65535 would overflow.
  EXPECT_EQ(wrap_mul<uint16_t>(65535, 65535), uint16_t{1});
  EXPECT_EQ(wrap_add<int8_t>(127, 1), int8_t{-128});
  EXPECT_EQ(wrap_neg<int64_t>(kMin), kMin);
  EXPECT_EQ(wrap_add(1.5, 2.25), 3.75);  // floating point untouched
}

std::vector<int64_t> run_int64(const std::string& op, std::vector<RuntimeValue> in, std::vector<Attribute> attrs = {},
                               int opset = 13) {
  auto r = run_kernel(op, std::move(in), 1, std::move(attrs), opset);
  EXPECT_TRUE(r.status.ok()) << op << ": " << r.status.to_string();
  if (!r.status.ok()) return {};
  return to_vector<int64_t>(r.outputs[0].tensor());
}

TEST(Wrapping, Int64Overflow_WrapsInTheKernels) {
  const Tensor big = make_tensor<int64_t>({2}, {kMax, kMin});
  const Tensor small = make_tensor<int64_t>({2}, {2, -3});
  EXPECT_EQ(run_int64("Add", {big, small}), (std::vector<int64_t>{plus(kMax, 2), plus(kMin, -3)}));
  EXPECT_EQ(run_int64("Sub", {small, big}), (std::vector<int64_t>{2 - kMax, plus(-3, kMin)}));  // -INT64_MIN wraps to itself
  EXPECT_EQ(run_int64("Mul", {big, small}), (std::vector<int64_t>{times(kMax, 2), times(kMin, -3)}));
  EXPECT_EQ(run_int64("Sum", {big, small, small}), (std::vector<int64_t>{plus(kMax, 4), plus(kMin, -6)}));

  const Tensor col = make_tensor<int64_t>({3}, {kMax, 2, kMin});
  const int64_t sum = plus(plus(kMax, 2), kMin);
  EXPECT_EQ(run_int64("ReduceSum", {col}, {attr_int("keepdims", 0)}), (std::vector<int64_t>{sum}));
  EXPECT_EQ(run_int64("ReduceProd", {col}, {attr_int("keepdims", 0)}, 13),
            (std::vector<int64_t>{times(times(kMax, 2), kMin)}));
  EXPECT_EQ(run_int64("ReduceSumSquare", {col}, {attr_int("keepdims", 0)}, 13),
            (std::vector<int64_t>{plus(plus(times(kMax, kMax), 4), times(kMin, kMin))}));
  // |INT64_MIN| wraps to itself.
  EXPECT_EQ(run_int64("ReduceL1", {col}, {attr_int("keepdims", 0)}, 13),
            (std::vector<int64_t>{plus(plus(kMax, 2), kMin)}));
  EXPECT_EQ(run_int64("CumSum", {col, make_tensor<int64_t>({}, {0})}, {}, 14),
            (std::vector<int64_t>{kMax, plus(kMax, 2), sum}));
  EXPECT_EQ(run_int64("Einsum", {col, col}, {attr_string("equation", "i,i->")}, 12),
            (std::vector<int64_t>{plus(plus(times(kMax, kMax), 4), times(kMin, kMin))}));
  // Power by squaring: (-1)^2 squares 0xFFFF, which promoted to int overflows.
  auto pow = run_kernel("Pow", {make_tensor<int16_t>({2}, {-1, 181}), make_tensor<int64_t>({2}, {2, 3})}, 1, {}, 15);
  ASSERT_TRUE(pow.status.ok()) << pow.status.to_string();
  EXPECT_EQ(to_vector<int16_t>(pow.outputs[0].tensor()),
            (std::vector<int16_t>{1, static_cast<int16_t>(uint16_t(181u * 181u * 181u % 65536u))}));
  EXPECT_EQ(run_int64("MatMul", {make_tensor<int64_t>({1, 3}, {kMax, 2, kMin}), make_tensor<int64_t>({3, 1}, {3, kMax, 1})}),
            (std::vector<int64_t>{plus(plus(times(kMax, 3), times(2, kMax)), kMin)}));
}

}  // namespace
}  // namespace sy
