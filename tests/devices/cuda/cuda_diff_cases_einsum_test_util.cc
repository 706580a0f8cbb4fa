// Differential cases for the CUDA Einsum kernel (see
// kernel_diff_test_util.h): batched products that go to cuBLAS directly,
// with an operand laid out first, or with the product permuted; and the
// plain kernel's diagonals, full sums, three inputs, integers, broadcast
// ellipses and empty dimensions. GEMM cases allow for cuBLAS's summation
// order. Det: a batch of small matrices in each float type, singular
// ones, 0 x 0 and 1 x 1, and an order left to the CPU.
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {

using namespace diff;

namespace {

DiffCase einsum(std::string name, const std::string& equation, std::vector<DiffInput> inputs) {
  return make(std::move(name), "Einsum", std::move(inputs), {attr_string("equation", equation)});
}

}  // namespace

void add_einsum_cases(std::vector<DiffCase>& cs) {
  // cuBLAS: the operands as they are, one laid out, the product permuted,
  // an outer product (K = 1), a broadcast ellipsis batch.
  cs.push_back(tol(einsum("Einsum_f32_bmm", "bij,bjk->bik", {f32({8, 64, 64}), f32({8, 64, 64})}), 1e-4, 1e-4));
  cs.push_back(
      tol(einsum("Einsum_f32_bmm_b_transposed", "bij,bkj->bik", {f32({4, 50, 70}), f32({4, 60, 70})}), 1e-4, 1e-4));
  cs.push_back(tol(einsum("Einsum_f32_product_permuted", "ij,jk->ki", {f32({40, 30}), f32({30, 50})}), 1e-4, 1e-4));
  cs.push_back(tol(einsum("Einsum_f32_outer", "i,j->ij", {f32({30}), f32({40})}), 1e-5, 1e-6));
  cs.push_back(
      tol(einsum("Einsum_f32_ellipsis_broadcast", "...ij,...jk->...ik", {f32({2, 1, 16, 20}), f32({3, 20, 24})}), 1e-4,
          1e-4));
  cs.push_back(tol(einsum("Einsum_f32_attention_scores", "bhqd,bhkd->bhqk", {f32({2, 4, 33, 16}), f32({2, 4, 40, 16})}),
                   1e-4, 1e-4));
  cs.push_back(tol(einsum("Einsum_f64_gemm", "ik,kj->ij", {f64({64, 65}), f64({65, 66})}), 1e-12, 1e-12));
  cs.push_back(
      tol(einsum("Einsum_f16_bmm", "bij,bjk->bik", {in(kF16, {4, 32, 48}, -1, 1), in(kF16, {4, 48, 40}, -1, 1)}), 1e-2,
          1e-2));
  // The plain kernel: elementwise, a diagonal, sums, a trace, three inputs,
  // a label repeated within one input.
  cs.push_back(einsum("Einsum_f32_elementwise_small", "ij,ij->ij", {f32({7, 9}), f32({7, 9})}));
  cs.push_back(einsum("Einsum_f32_diagonal", "ii->i", {f32({30, 30})}));
  cs.push_back(tol(einsum("Einsum_f32_sum_all", "ij->", {f32({100, 70})}), 1e-5, 1e-4));
  cs.push_back(tol(einsum("Einsum_f32_trace_implicit", "ii", {f32({50, 50})}), 1e-5, 1e-5));
  cs.push_back(
      tol(einsum("Einsum_f32_chain_of_three", "ij,jk,kl->il", {f32({6, 7}), f32({7, 8}), f32({8, 9})}), 1e-5, 1e-5));
  cs.push_back(
      tol(einsum("Einsum_f32_diagonal_product", "bii,bij->bj", {f32({3, 12, 12}), f32({3, 12, 10})}), 1e-5, 1e-5));
  cs.push_back(einsum("Einsum_bf16_transpose", "ij->ji", {in(kBF16, {33, 65})}));
  cs.push_back(einsum("Einsum_i32_matmul", "ij,jk->ik", {i32({20, 30}, -50, 50), i32({30, 10}, -50, 50)}));
  cs.push_back(
      einsum("Einsum_i64_batched", "bij,bjk->bik", {i64({3, 10, 12}, -1000, 1000), i64({3, 12, 11}, -1000, 1000)}));
  cs.push_back(einsum("Einsum_i32_wraps", "i,i->", {i32({64}, 1000000, 2000000), i32({64}, 1000000, 2000000)}));
  // Empty: no output elements; and an empty contraction, which gives zeros.
  cs.push_back(einsum("Einsum_f32_empty_rows", "ij,jk->ik", {f32({0, 5}), f32({5, 3})}));
  cs.push_back(einsum("Einsum_f32_empty_contraction", "ij,jk->ik", {f32({4, 0}), f32({0, 3})}));
  // More inputs than the kernel takes: the CPU computes it.
  cs.push_back(declined(
      einsum("Einsum_five_inputs_declines", "a,b,c,d,e->abcde", {f32({2}), f32({3}), f32({2}), f32({3}), f32({2})})));
  cs.push_back(tol(make("Det_f32_batch", "Det", {f32({600, 5, 5})}), 1e-5, 1e-5));
  cs.push_back(tol(make("Det_f64_nested_batch", "Det", {f64({3, 4, 12, 12})}), 1e-12, 1e-12));
  cs.push_back(tol(make("Det_f16", "Det", {in(kF16, {10, 3, 3})}), 1e-2, 1e-2));
  // Whole numbers in [0, 1] make singular matrices common (zero pivots).
  cs.push_back(make("Det_singular_and_pivoting", "Det", {whole_f32({200, 3, 3}, 0, 1)}));
  cs.push_back(make("Det_0x0", "Det", {f32({4, 0, 0})}));
  cs.push_back(make("Det_1x1", "Det", {f32({7, 1, 1})}));
  cs.push_back(declined(make("Det_order_past_64", "Det", {f32({1, 65, 65})})));
}

}  // namespace sy::testing
