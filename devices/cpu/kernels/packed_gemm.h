// C = A B^T for one B and many A: the recurrent products of RNN, GRU and
// LSTM, where B is a direction's R and A the hidden state of each step.
#pragma once

#include <cstdint>
#include <vector>

namespace sy::nn {

// oneDNN's sgemm packs B on every call, and for an LSTM step (A [8, 128],
// B [512, 128]) the packing took longer than the product: the steps were
// 1.7x ONNX Runtime's time. PackedGemmNT packs B once, into panels of 16
// of its rows laid out k by k, so that each k of a panel is one vector.
class PackedGemmNT {
 public:
  // Packs B [n, k] (row-major). False, having packed nothing, on a CPU
  // without AVX-512 (or off x86-64): the caller multiplies another way.
  // `vector` false does the same, for tests.
  bool pack(const float* B, int64_t n, int64_t k, bool vector = true);

  // Whether a pack() has succeeded.
  bool ready() const { return ready_; }

  // C [m, n] = A [m, k] B^T, all row-major and contiguous; ready() must
  // be true. Each element is a chain of fused multiply-adds in
  // k order, from 0. `split`: B's panels in shares over the cores (worth
  // its wait only when B is large). Thread-safe: const.
  void multiply(const float* A, int64_t m, float* C, bool split = false) const;

 private:
  bool ready_ = false;
  int64_t n_ = 0, k_ = 0;
  std::vector<float> panels_;  // [ceil(n / 16)][k][16], zero past n
};

}  // namespace sy::nn
