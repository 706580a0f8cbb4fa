// CPU neural-network kernels, part 1: MatMul, Gemm, MatMulInteger and
// QLinearMatMul, plus the family's registration. Float products go through
// oneDNN's sgemm; other types use a plain loop with a wide accumulator.
// Conv, pooling, RNNs and detection ops live in nn_*.cc / rnn_*.cc.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "devices/broadcast.h"
#include "devices/cpu/cpu_kernels.h"
#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/wrapping.h"

namespace sy {
namespace {

using nn::add_kernel;
using nn::for_batches;
using nn::MatMulPlan;
using nn::plan_matmul;
using nn::sgemm;

// Half types accumulate in float; every other type in itself.
template <typename T>
using AccOf = std::conditional_t<std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>, float, T>;

// C[M,N] = A[M,K] * B[K,N] (row-major, leading dims given).
template <typename T>
void plain_gemm(const T* A, const T* B, T* C, int64_t M, int64_t K, int64_t N) {
  using Acc = AccOf<T>;
  std::vector<Acc> row(static_cast<size_t>(N));
  for (int64_t m = 0; m < M; ++m) {
    std::fill(row.begin(), row.end(), Acc{});
    for (int64_t k = 0; k < K; ++k) {
      const Acc a = static_cast<Acc>(A[m * K + k]);
      const T* brow = B + k * N;
      for (int64_t n = 0; n < N; ++n) row[n] = wrap_add(row[n], wrap_mul(a, static_cast<Acc>(brow[n])));
    }
    for (int64_t n = 0; n < N; ++n) C[m * N + n] = static_cast<T>(row[n]);
  }
}

class MatMulKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (!a.defined() || !b.defined()) return InvalidArgument("MatMul: missing input");
    if (a.dtype() != b.dtype())
      return InvalidArgument("MatMul: input types differ: ", a.describe(), " vs ", b.describe());
    ASSIGN_OR_RETURN(MatMulPlan p, plan_matmul(a.dims(), b.dims(), "MatMul"));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, a.dtype(), p.out));
    const int64_t nb = static_cast<int64_t>(p.a_off.size());
    const int64_t MN = p.M * p.N;
    if (a.dtype() == DataType::kFloat) {
      const float* A = a.data<float>();
      const float* B = b.data<float>();
      float* C = y->data<float>();
      // B shared by every batch and A contiguous: one tall GEMM.
      bool fold = nb > 1;
      for (int64_t i = 0; fold && i < nb; ++i) fold = p.b_off[i] == 0 && p.a_off[i] == i * p.M * p.K;
      if (fold) return sgemm('N', 'N', p.M * nb, p.N, p.K, 1.f, A, p.K, B, p.N, 0.f, C, p.N);
      return for_batches(nb, MN * p.K, [&](int64_t i) {
        return sgemm('N', 'N', p.M, p.N, p.K, 1.f, A + p.a_off[i], p.K, B + p.b_off[i], p.N, 0.f, C + i * MN, p.N);
      });
    }
    Status st = Unimplemented("MatMul: unsupported type ", dtype_name(a.dtype()));
    auto run = [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        st = for_batches(nb, MN * p.K, [&](int64_t i) {
          plain_gemm<T>(a.data<T>() + p.a_off[i], b.data<T>() + p.b_off[i], y->data<T>() + i * MN, p.M, p.K, p.N);
          return OkStatus();
        });
      }
    };
    visit_numeric(a.dtype(), run);
    return st;
  }
};

class GemmKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    alpha_ = node.attr_float("alpha", 1.f);
    beta_ = node.attr_float("beta", 1.f);
    trans_a_ = node.attr_int("transA", 0) != 0;
    trans_b_ = node.attr_int("transB", 0) != 0;
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const Tensor* c = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    ASSIGN_OR_RETURN(nn::GemmPlan plan, nn::plan_gemm(a, b, c, trans_a_, trans_b_));
    const int64_t M = plan.M, K = plan.K, N = plan.N, cs_m = plan.cs_m, cs_n = plan.cs_n;
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, a.dtype(), Dims{M, N}));
    if (a.dtype() == DataType::kFloat) {
      float* Y = y->data<float>();
      float beta = 0.f;
      if (c && beta_ != 0.f) {
        const float* C = c->data<float>();
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) Y[i * N + j] = C[i * cs_m + j * cs_n];
        beta = beta_;
      }
      return sgemm(trans_a_ ? 'T' : 'N', trans_b_ ? 'T' : 'N', M, N, K, alpha_, a.data<float>(), a.dim(1),
                   b.data<float>(), b.dim(1), beta, Y, N);
    }
    bool ok = false;
    auto integral = [](float v) { return v == std::trunc(v) && std::fabs(v) <= 1e9f; };
    const bool int_alpha = integral(alpha_), int_beta = integral(beta_);
    auto run = [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        using Acc = std::conditional_t<std::is_floating_point_v<T>, T,
                                       std::conditional_t<std::is_integral_v<T>, T, float>>;
        const T* A = a.data<T>();
        const T* B = b.data<T>();
        T* Y = y->data<T>();
        const int64_t lda = a.dim(1), ldb = b.dim(1);
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            Acc acc{};
            for (int64_t k = 0; k < K; ++k) {
              const Acc av = static_cast<Acc>(trans_a_ ? A[k * lda + i] : A[i * lda + k]);
              const Acc bv = static_cast<Acc>(trans_b_ ? B[j * ldb + k] : B[k * ldb + j]);
              acc = wrap_add(acc, wrap_mul(av, bv));
            }
            const Acc cv = c ? static_cast<Acc>(c->data<T>()[i * cs_m + j * cs_n]) : Acc{};
            if constexpr (std::is_integral_v<Acc>) {
              // Integer alpha and beta (1 and 1, mostly) keep the sum
              // exact: through double, int64 lost the bits past 2^53.
              if (int_alpha && int_beta) {
                Acc v = wrap_mul(acc, static_cast<Acc>(static_cast<int64_t>(alpha_)));
                if (c) v = wrap_add(v, wrap_mul(cv, static_cast<Acc>(static_cast<int64_t>(beta_))));
                Y[i * N + j] = static_cast<T>(v);
                continue;
              }
            }
            double v = static_cast<double>(alpha_) * static_cast<double>(acc);
            if (c) v += static_cast<double>(beta_) * static_cast<double>(cv);
            Y[i * N + j] = static_cast<T>(static_cast<Acc>(v));
          }
        ok = true;
      }
    };
    visit_numeric(a.dtype(), run);
    if (!ok) return Unimplemented("Gemm: unsupported type ", dtype_name(a.dtype()));
    return OkStatus();
  }

 private:
  float alpha_ = 1.f, beta_ = 1.f;
  bool trans_a_ = false, trans_b_ = false;
};

// Reads a zero point or scale that plan_int_matmul() checked: absent (0),
// a scalar, or one value per row (column).
struct PerAxis {
  const Tensor* t = nullptr;
  int32_t int_at(int64_t i) const { return t ? static_cast<int32_t>(t->int_at(t->numel() == 1 ? 0 : i)) : 0; }
  float float_at(int64_t i) const { return nn::float_at(*t, t->numel() == 1 ? 0 : i); }
};

// acc[M,N] = sum_k (A[m,k]-azp[m]) * (B[k,n]-bzp[n]) for each batch.
template <typename TA, typename TB>
void int_gemm(const TA* A, const TB* B, int32_t* acc, int64_t M, int64_t K, int64_t N, const PerAxis& azp,
              const PerAxis& bzp) {
  std::vector<int32_t> bz(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) bz[n] = bzp.int_at(n);
  for (int64_t m = 0; m < M; ++m) {
    const int32_t az = azp.int_at(m);
    int32_t* row = acc + m * N;
    std::fill(row, row + N, 0);
    for (int64_t k = 0; k < K; ++k) {
      const int32_t av = static_cast<int32_t>(A[m * K + k]) - az;
      if (av == 0) continue;
      const TB* brow = B + k * N;
      for (int64_t n = 0; n < N; ++n) row[n] += av * (static_cast<int32_t>(brow[n]) - bz[n]);
    }
  }
}

class MatMulIntegerKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const nn::IntMatMulPlan q, nn::plan_int_matmul(ctx, /*qlinear=*/false));
    const nn::MatMulPlan& p = q.mm;
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const PerAxis azp{q.a_zero}, bzp{q.b_zero};
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kInt32, p.out));
    const int64_t nb = static_cast<int64_t>(p.a_off.size());
    nn::visit_int8_pair(a.dtype(), b.dtype(), [&](auto ta, auto tb) {
      using TA = decltype(ta);
      using TB = decltype(tb);
      for (int64_t i = 0; i < nb; ++i)
        int_gemm<TA, TB>(a.data<TA>() + p.a_off[i], b.data<TB>() + p.b_off[i], y->data<int32_t>() + i * p.M * p.N,
                         p.M, p.K, p.N, azp, bzp);
    });
    return OkStatus();
  }
};

template <typename T>
T saturate_round(float v, int32_t zp) {
  float r = std::nearbyint(v) + static_cast<float>(zp);
  if (std::isnan(r)) r = static_cast<float>(zp);
  r = std::clamp(r, static_cast<float>(std::numeric_limits<T>::min()), static_cast<float>(std::numeric_limits<T>::max()));
  return static_cast<T>(r);
}

class QLinearMatMulKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const nn::IntMatMulPlan q, nn::plan_int_matmul(ctx, /*qlinear=*/true));
    const nn::MatMulPlan& p = q.mm;
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(3);
    const PerAxis as{q.a_scale}, azp{q.a_zero}, bs{q.b_scale}, bzp{q.b_zero};
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, q.y_type, p.out));
    const int64_t nb = static_cast<int64_t>(p.a_off.size());
    std::vector<int32_t> acc(static_cast<size_t>(p.M * p.N));
    nn::visit_int8_pair(a.dtype(), b.dtype(), [&](auto ta, auto tb) {
      using TA = decltype(ta);
      using TB = decltype(tb);
      for (int64_t i = 0; i < nb; ++i) {
        int_gemm<TA, TB>(a.data<TA>() + p.a_off[i], b.data<TB>() + p.b_off[i], acc.data(), p.M, p.K, p.N, azp, bzp);
        for (int64_t m = 0; m < p.M; ++m)
          for (int64_t n = 0; n < p.N; ++n) {
            const float v = static_cast<float>(acc[m * p.N + n]) * (as.float_at(m) * bs.float_at(n) / q.y_scale);
            const int64_t o = i * p.M * p.N + m * p.N + n;
            if (q.y_type == DataType::kUInt8) y->data<uint8_t>()[o] = saturate_round<uint8_t>(v, q.y_zero);
            else y->data<int8_t>()[o] = saturate_round<int8_t>(v, q.y_zero);
          }
      }
    });
    return OkStatus();
  }
};

}  // namespace

void register_cpu_nn_kernels(KernelRegistry& r) {
  const std::vector<DataType> mm_types = {DataType::kFloat,  DataType::kDouble,  DataType::kFloat16,
                                          DataType::kBFloat16, DataType::kInt32, DataType::kInt64,
                                          DataType::kUInt32, DataType::kUInt64};
  add_kernel(r, "MatMul", 1, make_kernel<MatMulKernel>, mm_types);
  add_kernel(r, "Gemm", 1, make_kernel<GemmKernel>, mm_types);
  add_kernel(r, "MatMulInteger", 10, make_kernel<MatMulIntegerKernel>, {DataType::kUInt8, DataType::kInt8});
  add_kernel(r, "QLinearMatMul", 10, make_kernel<QLinearMatMulKernel>, {DataType::kUInt8, DataType::kInt8});
  nn::register_conv_kernels(r);
  nn::register_nhwc_conv_kernel(r);
  nn::register_nhwc_pool_kernels(r);
  nn::register_pool_kernels(r);
  nn::register_rnn_kernels(r);
  nn::register_detection_kernels(r);
  nn::register_deform_conv_kernels(r);
  nn::register_attention_kernels(r);
  nn::register_rotary_embedding_kernels(r);
}

}  // namespace sy
