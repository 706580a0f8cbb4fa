// The equation and shape analysis of ONNX Einsum, shared by the CPU kernel
// (reduction_einsum.cc) and the CUDA one (devices/cuda/kernels/
// einsum_kernels.cc), so that both accept and refuse the same nodes and
// read the inputs through the same per-label strides.
//
// Labels are 0..51 for letters (uppercase first, as ASCII sorts them) and
// 52 + k for the k-th dimension an ellipsis covers.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "devices/kernel.h"

namespace sy::einsum {

constexpr int kLetters = 52;

struct Spec {
  std::vector<std::vector<int>> inputs;  // letters, or -1 for an ellipsis
  std::vector<int> output;
  bool explicit_output = false;
};

// The node's `equation`, checked against its input count (init time).
StatusOr<Spec> parse(const Node& node);

struct Plan {
  DataType dtype = DataType::kFloat;
  size_t nin = 0;
  std::vector<int64_t> size;                  // per label; -1 where no input has it
  std::vector<std::vector<int64_t>> strides;  // [input][label]: element stride, summed over repeats
  std::vector<std::vector<char>> present;     // [input][label]
  std::vector<int> out_labels;                // in the output's order
  std::vector<int> sum_labels;                // contracted
  Dims out_dims;

  int64_t size_of(const std::vector<int>& labels) const;
  std::vector<int64_t> sizes_of(const std::vector<int>& labels) const;
  std::vector<int64_t> strides_of(size_t input, const std::vector<int>& labels) const;
};

// Checks the inputs against the equation (ranks, sizes, one type) and
// works out the labels' sizes and strides and the output. InvalidArgument
// for a mismatch.
StatusOr<Plan> plan(const KernelContext& ctx, const Spec& spec);

// A two-input Einsum that is a batched matrix product: each output label
// in both inputs is a batch, in the first only a row (M), in the second
// only a column (N), and every summed label (K) is in both inputs. The
// inputs are then [batch, M, K] and [batch, K, N] and the product
// [batch, M, N] in the label order batch, m, n.
struct Gemm {
  std::vector<int> batch, m, n, k;
  int64_t nb = 0, M = 0, N = 0, K = 0;

  // The product's labels (batch, m, n): the output itself when they are
  // the output's order.
  std::vector<int> product_labels() const;
};

// Below this many terms (M * N * K) a GEMM call costs more than the
// kernels' plain loop (ij,ij->ij would be a 1x1x1 product per element).
constexpr int64_t kMinGemmProduct = 512;

// Empty for any other equation, an empty dimension, or a product smaller
// than kMinGemmProduct.
std::optional<Gemm> as_gemm(const Plan& p);

// Input `input`'s elements in the order of `groups`' labels: their sizes
// and the input's strides along them.
struct View {
  Dims dims, strides;
  bool contiguous() const;  // already dense in that order
};
View view_of(const Plan& p, size_t input, std::initializer_list<const std::vector<int>*> groups);

// The strides, per output label, that read a dense tensor laid out in the
// order of `labels` (which hold every output label) in the output's order.
Dims strides_in_output_order(const Plan& p, const std::vector<int>& labels);

}  // namespace sy::einsum
