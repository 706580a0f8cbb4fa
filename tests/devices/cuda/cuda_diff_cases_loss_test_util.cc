// Differential cases for the CUDA SoftmaxCrossEntropyLoss and
// NegativeLogLikelihoodLoss kernels (see kernel_diff_test_util.h): every
// reduction, weights, ignore_index inside and outside the class range,
// both label types, the log-probabilities output, class counts that take
// the one-thread-a-point kernel and both block-a-row ones, 16-bit inputs,
// enough points for the sum to span many threads, every label ignored
// (0 / 0, NaN), and empty batches.
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {

using namespace diff;

namespace {

constexpr DataType kI32 = DataType::kInt32;

DiffCase loss(std::string name, std::string op, std::vector<DiffInput> inputs, std::string reduction,
              std::optional<int64_t> ignore = std::nullopt, size_t outputs = 1) {
  std::vector<Attribute> attrs = {attr_string("reduction", std::move(reduction))};
  if (ignore) attrs.push_back(attr_int("ignore_index", *ignore));
  return make(std::move(name), std::move(op), std::move(inputs), std::move(attrs), outputs);
}

DiffCase sce(std::string name, std::vector<DiffInput> inputs, std::string reduction,
             std::optional<int64_t> ignore = std::nullopt, size_t outputs = 1) {
  return loss(std::move(name), "SoftmaxCrossEntropyLoss", std::move(inputs), std::move(reduction), ignore, outputs);
}

DiffCase nll(std::string name, std::vector<DiffInput> inputs, std::string reduction,
             std::optional<int64_t> ignore = std::nullopt) {
  return loss(std::move(name), "NegativeLogLikelihoodLoss", std::move(inputs), std::move(reduction), ignore);
}

}  // namespace

void add_loss_cases(std::vector<DiffCase>& cs) {
  // A thread a point (10 classes), then a block a row of 64 and of 256 threads.
  cs.push_back(sce("SCE_mean_few_classes", {f32({64, 10}, -4, 4), i64({64}, 0, 9)}, "mean"));
  cs.push_back(
      tol(sce("SCE_mean_1000_classes_log_prob", {f32({32, 1000}, -6, 6), i64({32}, 0, 999)}, "mean", std::nullopt, 2),
          1e-5, 1e-5));
  cs.push_back(
      tol(sce("SCE_sum_weighted_3000_classes", {f32({8, 3000}, -6, 6), i64({8}, 0, 2999), f32({3000}, 0, 2)}, "sum"),
          1e-5, 1e-4));
  // Spatial points [N, C, d1, d2] with an ignored class inside the range.
  cs.push_back(sce("SCE_none_4d_ignore_inside_i32_log_prob", {f32({4, 5, 6, 7}), i32({4, 6, 7}, 0, 4)}, "none", 2, 2));
  cs.push_back(
      sce("SCE_mean_weighted_ignore_negative", {f32({3, 5, 20}), i64({3, 20}, -1, 4), f32({5}, 0.1, 1)}, "mean", -1));
  cs.push_back(tol(sce("SCE_f16_mean_log_prob", {in(kF16, {20, 50}, -3, 3), i64({20}, 0, 49)}, "mean", std::nullopt, 2),
                   1e-2, 1e-2));
  cs.push_back(tol(sce("SCE_mean_many_points", {f32({256, 16, 64}), i64({256, 64}, 0, 15)}, "mean"), 1e-5, 1e-5));
  cs.push_back(sce("SCE_mean_every_label_ignored", {f32({2, 3}), values(DataType::kInt64, {-5, -5})}, "mean", -5));
  cs.push_back(sce("SCE_mean_empty_batch", {f32({0, 4}), i64({0}, 0, 3)}, "mean"));
  cs.push_back(sce("SCE_nan_and_infinite_scores",
                   {values(DataType::kFloat, {kNaN, 1, 2, -kInf, 0, 1, kInf, 0, 1}, Dims{3, 3}), i64({3}, 0, 2)},
                   "none", std::nullopt, 2));
  cs.push_back(nll("NLL_none_3d", {f32({16, 7, 30}, -5, 0), i64({16, 30}, 0, 6)}, "none"));
  cs.push_back(nll("NLL_mean_weighted_ignore_zero", {f32({50, 8}, -5, 0), i64({50}, 0, 7), f32({8}, 0, 3)}, "mean", 0));
  cs.push_back(tol(nll("NLL_f64_sum_4d", {f64({10, 6, 4, 4}, -5, 0), i32({10, 4, 4}, 0, 5)}, "sum"), 1e-12, 1e-12));
  cs.push_back(
      tol(nll("NLL_bf16_mean_weighted", {in(kBF16, {12, 9}, -4, 0), i64({12}, 0, 8), in(kBF16, {9}, 0, 1)}, "mean"),
          2e-2, 2e-2));
  cs.push_back(opset(nll("NLL_none_empty_points", {f32({3, 4, 0}), i64({3, 0}, 0, 3)}, "none"), 13));
  // Weights of another float type than the input: the CPU reads them, the
  // CUDA kernel leaves the node to it.
  cs.push_back(declined(nll("NLL_f64_weights_for_f32", {f32({5, 4}, -3, 0), i64({5}, 0, 3), f64({4}, 0, 1)}, "sum")));
}

}  // namespace sy::testing
