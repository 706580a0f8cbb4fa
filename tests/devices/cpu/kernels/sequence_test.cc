// Unit tests for the CPU sequence and optional kernels.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_int;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

RuntimeValue make_seq(std::vector<Tensor> items, DataType elem = DataType::kFloat) {
  auto s = std::make_shared<Sequence>();
  s->elem = elem;
  s->items = std::move(items);
  return RuntimeValue(std::shared_ptr<const Sequence>(std::move(s)));
}

Tensor f32(const Dims& d, std::vector<float> v) { return make_tensor<float>(d, v); }
Tensor i64(int64_t v) { return make_tensor<int64_t>(Dims{}, {v}); }

// A sequence of three 1-element float tensors {10}, {20}, {30}.
RuntimeValue three() { return make_seq({f32({1}, {10}), f32({1}, {20}), f32({1}, {30})}); }

std::vector<float> firsts(const RuntimeValue& v) {
  std::vector<float> out;
  for (const Tensor& t : v.sequence()->items) out.push_back(t.data<float>()[0]);
  return out;
}

TEST(Sequence, Construct_SharesTensors) {
  Tensor a = f32({2}, {1, 2}), b = f32({1}, {3});
  auto run = run_kernel("SequenceConstruct", {a, b}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  ASSERT_TRUE(run.outputs[0].is_sequence());
  const Sequence& s = *run.outputs[0].sequence();
  EXPECT_EQ(s.elem, DataType::kFloat);
  ASSERT_EQ(s.items.size(), 2u);
  EXPECT_EQ(s.items[0].raw(), a.raw());  // shared, not copied
  EXPECT_EQ(s.items[1].dims(), Dims({1}));
}

TEST(Sequence, Construct_MixedTypes_InvalidArgument) {
  auto run = run_kernel("SequenceConstruct", {f32({1}, {1}), i64(2)}, 1);
  EXPECT_EQ(run.status.code(), StatusCode::kInvalidArgument);
}

TEST(Sequence, Empty_DefaultsToFloat) {
  auto run = run_kernel("SequenceEmpty", {}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  ASSERT_TRUE(run.outputs[0].is_sequence());
  EXPECT_EQ(run.outputs[0].sequence()->elem, DataType::kFloat);
  EXPECT_TRUE(run.outputs[0].sequence()->items.empty());
}

TEST(Sequence, Empty_DtypeAttribute) {
  auto run = run_kernel("SequenceEmpty", {}, 1, {attr_int("dtype", 7)});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(run.outputs[0].sequence()->elem, DataType::kInt64);
  EXPECT_EQ(run_kernel("SequenceEmpty", {}, 1, {attr_int("dtype", 99)}).status.code(), StatusCode::kInvalidArgument);
}

TEST(Sequence, At_PositiveIndex) {
  auto run = run_kernel("SequenceAt", {three(), i64(1)}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  ASSERT_TRUE(run.outputs[0].is_tensor());
  EXPECT_EQ(to_vector<float>(run.outputs[0].tensor()), std::vector<float>{20});
}

TEST(Sequence, At_NegativeIndex) {
  auto run = run_kernel("SequenceAt", {three(), make_tensor<int32_t>(Dims{}, {-3})}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(to_vector<float>(run.outputs[0].tensor()), std::vector<float>{10});
}

TEST(Sequence, At_OutOfRange) {
  EXPECT_EQ(run_kernel("SequenceAt", {three(), i64(3)}, 1).status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(run_kernel("SequenceAt", {three(), i64(-4)}, 1).status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(run_kernel("SequenceAt", {make_seq({}), i64(0)}, 1).status.code(), StatusCode::kOutOfRange);
}

TEST(Sequence, At_TensorInput_InvalidArgument) {
  EXPECT_EQ(run_kernel("SequenceAt", {f32({1}, {1}), i64(0)}, 1).status.code(), StatusCode::kInvalidArgument);
  // A float position is rejected too.
  EXPECT_EQ(run_kernel("SequenceAt", {three(), f32({}, {0})}, 1).status.code(), StatusCode::kInvalidArgument);
  // A missing position is an error, not a crash.
  EXPECT_EQ(run_kernel("SequenceAt", {three(), RuntimeValue()}, 1).status.code(), StatusCode::kInvalidArgument);
}

TEST(Sequence, Insert_DefaultAppends) {
  RuntimeValue in = three();
  auto run = run_kernel("SequenceInsert", {in, f32({1}, {40})}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(firsts(run.outputs[0]), (std::vector<float>{10, 20, 30, 40}));
  // The input sequence is immutable.
  EXPECT_EQ(in.sequence()->items.size(), 3u);
  EXPECT_NE(run.outputs[0].sequence().get(), in.sequence().get());
}

TEST(Sequence, Insert_AtFrontAndNegative) {
  auto front = run_kernel("SequenceInsert", {three(), f32({1}, {5}), i64(0)}, 1);
  ASSERT_TRUE(front.status.ok()) << front.status.to_string();
  EXPECT_EQ(firsts(front.outputs[0]), (std::vector<float>{5, 10, 20, 30}));
  auto neg = run_kernel("SequenceInsert", {three(), f32({1}, {25}), i64(-1)}, 1);
  ASSERT_TRUE(neg.status.ok()) << neg.status.to_string();
  EXPECT_EQ(firsts(neg.outputs[0]), (std::vector<float>{10, 20, 25, 30}));
  auto end = run_kernel("SequenceInsert", {three(), f32({1}, {35}), i64(3)}, 1);
  ASSERT_TRUE(end.status.ok()) << end.status.to_string();
  EXPECT_EQ(firsts(end.outputs[0]), (std::vector<float>{10, 20, 30, 35}));
}

TEST(Sequence, Insert_Errors) {
  EXPECT_EQ(run_kernel("SequenceInsert", {three(), f32({1}, {1}), i64(4)}, 1).status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(run_kernel("SequenceInsert", {three(), f32({1}, {1}), i64(-4)}, 1).status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(run_kernel("SequenceInsert", {three(), i64(1)}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("SequenceInsert", {f32({1}, {1}), f32({1}, {1})}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("SequenceInsert", {three(), three()}, 1).status.code(), StatusCode::kInvalidArgument);
}

TEST(Sequence, Erase_DefaultsToLast) {
  auto run = run_kernel("SequenceErase", {three()}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(firsts(run.outputs[0]), (std::vector<float>{10, 20}));
}

TEST(Sequence, Erase_Position) {
  auto run = run_kernel("SequenceErase", {three(), i64(-3)}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(firsts(run.outputs[0]), (std::vector<float>{20, 30}));
  EXPECT_EQ(run.outputs[0].sequence()->elem, DataType::kFloat);
}

TEST(Sequence, Erase_OutOfRange) {
  EXPECT_EQ(run_kernel("SequenceErase", {three(), i64(3)}, 1).status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(run_kernel("SequenceErase", {make_seq({})}, 1).status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(run_kernel("SequenceErase", {f32({1}, {1})}, 1).status.code(), StatusCode::kInvalidArgument);
}

TEST(Sequence, Length_CountsItems) {
  auto run = run_kernel("SequenceLength", {three()}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(run.outputs[0].tensor().dtype(), DataType::kInt64);
  EXPECT_EQ(run.outputs[0].tensor().rank(), 0u);
  EXPECT_EQ(to_vector<int64_t>(run.outputs[0].tensor()), std::vector<int64_t>{3});
  EXPECT_EQ(run_kernel("SequenceLength", {f32({1}, {1})}, 1).status.code(), StatusCode::kInvalidArgument);
}

// x = [[1,2,3],[4,5,6]]
Tensor x23() { return f32({2, 3}, {1, 2, 3, 4, 5, 6}); }

TEST(Sequence, SplitToSequence_NoSplitKeepDims) {
  auto run = run_kernel("SplitToSequence", {x23()}, 1, {attr_int("axis", 1)});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  const auto& items = run.outputs[0].sequence()->items;
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[1].dims(), Dims({2, 1}));
  EXPECT_EQ(to_vector<float>(items[1]), (std::vector<float>{2, 5}));
}

TEST(Sequence, SplitToSequence_NoSplitNoKeepDims) {
  auto run = run_kernel("SplitToSequence", {x23()}, 1, {attr_int("axis", 0), attr_int("keepdims", 0)});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  const auto& items = run.outputs[0].sequence()->items;
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[1].dims(), Dims({3}));
  EXPECT_EQ(to_vector<float>(items[1]), (std::vector<float>{4, 5, 6}));
}

TEST(Sequence, SplitToSequence_ScalarSplitWithRemainder) {
  auto run = run_kernel("SplitToSequence", {x23(), i64(2)}, 1, {attr_int("axis", -1), attr_int("keepdims", 0)});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  const auto& items = run.outputs[0].sequence()->items;
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].dims(), Dims({2, 2}));  // keepdims is ignored when split is given
  EXPECT_EQ(to_vector<float>(items[0]), (std::vector<float>{1, 2, 4, 5}));
  EXPECT_EQ(items[1].dims(), Dims({2, 1}));
  EXPECT_EQ(to_vector<float>(items[1]), (std::vector<float>{3, 6}));
}

TEST(Sequence, SplitToSequence_VectorSplit) {
  auto run = run_kernel("SplitToSequence", {x23(), make_tensor<int32_t>({3}, {1, 0, 2})}, 1, {attr_int("axis", 1)});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  const auto& items = run.outputs[0].sequence()->items;
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].dims(), Dims({2, 1}));
  EXPECT_EQ(items[1].dims(), Dims({2, 0}));
  EXPECT_EQ(to_vector<float>(items[2]), (std::vector<float>{2, 3, 5, 6}));
}

TEST(Sequence, SplitToSequence_Strings) {
  Tensor s = make_tensor<std::string>({3}, {"a", "bb", "ccc"});
  auto run = run_kernel("SplitToSequence", {s, make_tensor<int64_t>({2}, {2, 1})}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  const auto& items = run.outputs[0].sequence()->items;
  EXPECT_EQ(run.outputs[0].sequence()->elem, DataType::kString);
  EXPECT_EQ(to_vector<std::string>(items[0]), (std::vector<std::string>{"a", "bb"}));
  EXPECT_EQ(to_vector<std::string>(items[1]), (std::vector<std::string>{"ccc"}));
}

TEST(Sequence, SplitToSequence_EmptyAxisGivesEmptySequence) {
  auto run = run_kernel("SplitToSequence", {make_tensor<float>({0, 2}, {})}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_TRUE(run.outputs[0].sequence()->items.empty());
  EXPECT_EQ(run.outputs[0].sequence()->elem, DataType::kFloat);
}

TEST(Sequence, ConcatFromSequence_Strings) {
  RuntimeValue seq = make_seq({make_tensor<std::string>({1}, {"x"}), make_tensor<std::string>({2}, {"y", "z"})},
                              DataType::kString);
  auto run = run_kernel("ConcatFromSequence", {seq}, 1, {attr_int("axis", 0)});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(to_vector<std::string>(run.outputs[0].tensor()), (std::vector<std::string>{"x", "y", "z"}));
}

TEST(Sequence, SplitToSequence_Errors) {
  EXPECT_EQ(run_kernel("SplitToSequence", {x23(), make_tensor<int64_t>({2}, {1, 1})}, 1, {attr_int("axis", 1)}).status.code(),
            StatusCode::kInvalidArgument);  // sums to 2, not 3
  EXPECT_EQ(run_kernel("SplitToSequence", {x23(), i64(0)}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("SplitToSequence", {x23(), make_tensor<int64_t>({2}, {-1, 3})}, 1).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("SplitToSequence", {x23()}, 1, {attr_int("axis", 2)}).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("SplitToSequence", {f32({}, {1})}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("SplitToSequence", {three()}, 1).status.code(), StatusCode::kInvalidArgument);
}

RuntimeValue two_by_two_items() { return make_seq({f32({1, 2}, {1, 2}), f32({1, 2}, {3, 4})}); }

TEST(Sequence, ConcatFromSequence_Axis0) {
  auto run = run_kernel("ConcatFromSequence", {two_by_two_items()}, 1, {attr_int("axis", 0)});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(run.outputs[0].tensor().dims(), Dims({2, 2}));
  EXPECT_EQ(to_vector<float>(run.outputs[0].tensor()), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Sequence, ConcatFromSequence_Axis1UnevenLengths) {
  RuntimeValue seq = make_seq({f32({2, 1}, {1, 2}), f32({2, 2}, {3, 4, 5, 6})});
  auto run = run_kernel("ConcatFromSequence", {seq}, 1, {attr_int("axis", -1)});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(run.outputs[0].tensor().dims(), Dims({2, 3}));
  EXPECT_EQ(to_vector<float>(run.outputs[0].tensor()), (std::vector<float>{1, 3, 4, 2, 5, 6}));
}

TEST(Sequence, ConcatFromSequence_NewAxis) {
  // np.stack([[1,2]], [[3,4]]], axis=2) -> shape (1,2,2) = [[[1,3],[2,4]]]
  auto run = run_kernel("ConcatFromSequence", {two_by_two_items()}, 1, {attr_int("axis", -1), attr_int("new_axis", 1)});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(run.outputs[0].tensor().dims(), Dims({1, 2, 2}));
  EXPECT_EQ(to_vector<float>(run.outputs[0].tensor()), (std::vector<float>{1, 3, 2, 4}));
  auto front = run_kernel("ConcatFromSequence", {two_by_two_items()}, 1, {attr_int("axis", 0), attr_int("new_axis", 1)});
  ASSERT_TRUE(front.status.ok()) << front.status.to_string();
  EXPECT_EQ(front.outputs[0].tensor().dims(), Dims({2, 1, 2}));
  EXPECT_EQ(to_vector<float>(front.outputs[0].tensor()), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Sequence, ConcatFromSequence_ScalarsWithNewAxis) {
  RuntimeValue seq = make_seq({f32({}, {7}), f32({}, {8})});
  auto run = run_kernel("ConcatFromSequence", {seq}, 1, {attr_int("axis", 0), attr_int("new_axis", 1)});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(run.outputs[0].tensor().dims(), Dims({2}));
  EXPECT_EQ(to_vector<float>(run.outputs[0].tensor()), (std::vector<float>{7, 8}));
}

TEST(Sequence, ConcatFromSequence_Errors) {
  EXPECT_EQ(run_kernel("ConcatFromSequence", {make_seq({})}, 1, {attr_int("axis", 0)}).status.code(),
            StatusCode::kInvalidArgument);
  RuntimeValue bad = make_seq({f32({1, 2}, {1, 2}), f32({1, 3}, {3, 4, 5})});
  EXPECT_EQ(run_kernel("ConcatFromSequence", {bad}, 1, {attr_int("axis", 0)}).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("ConcatFromSequence", {two_by_two_items()}, 1, {attr_int("axis", 2)}).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("ConcatFromSequence", {two_by_two_items()}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("ConcatFromSequence", {f32({1}, {1})}, 1, {attr_int("axis", 0)}).status.code(),
            StatusCode::kInvalidArgument);
}

TEST(Sequence, Optional_WrapsValue) {
  auto run = run_kernel("Optional", {f32({1}, {3})}, 1, {}, 15);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_TRUE(run.outputs[0].is_tensor());
  EXPECT_TRUE(run.outputs[0].is_optional());
  auto seq = run_kernel("Optional", {three()}, 1, {}, 15);
  ASSERT_TRUE(seq.status.ok());
  EXPECT_TRUE(seq.outputs[0].is_sequence());
  EXPECT_TRUE(seq.outputs[0].is_optional());
}

TEST(Sequence, Optional_EmptyWithoutInput) {
  auto run = run_kernel("Optional", {RuntimeValue()}, 1, {}, 15);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_TRUE(run.outputs[0].is_none());
  EXPECT_TRUE(run.outputs[0].is_optional());
}

TEST(Sequence, OptionalHasElement_TrueAndFalse) {
  RuntimeValue full = f32({1}, {3});
  full.set_optional(true);
  auto yes = run_kernel("OptionalHasElement", {full}, 1, {}, 15);
  ASSERT_TRUE(yes.status.ok()) << yes.status.to_string();
  EXPECT_EQ(yes.outputs[0].tensor().dtype(), DataType::kBool);
  EXPECT_EQ(yes.outputs[0].tensor().rank(), 0u);
  EXPECT_TRUE(yes.outputs[0].tensor().data<bool>()[0]);
  RuntimeValue empty;
  empty.set_optional(true);
  auto no = run_kernel("OptionalHasElement", {empty}, 1, {}, 18);
  ASSERT_TRUE(no.status.ok()) << no.status.to_string();
  EXPECT_FALSE(no.outputs[0].tensor().data<bool>()[0]);
}

TEST(Sequence, OptionalGetElement_ReturnsValue) {
  RuntimeValue full = three();
  full.set_optional(true);
  auto run = run_kernel("OptionalGetElement", {full}, 1, {}, 15);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_TRUE(run.outputs[0].is_sequence());
  EXPECT_FALSE(run.outputs[0].is_optional());
  EXPECT_EQ(run.outputs[0].sequence().get(), full.sequence().get());
}

TEST(Sequence, OptionalGetElement_EmptyIsError) {
  RuntimeValue empty;
  empty.set_optional(true);
  auto run = run_kernel("OptionalGetElement", {empty}, 1, {}, 15);
  EXPECT_FALSE(run.status.ok());
  EXPECT_EQ(run.status.code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sy
