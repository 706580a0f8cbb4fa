// CPU Einsum (batched matrix products by sgemm; the rest by enumerating
// output and contraction indices) and Det (LU decomposition with partial
// pivoting).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/cpu_kernels.h"
#include "devices/cpu/kernels/det_lu.h"
#include "devices/cpu/kernels/einsum_plan.h"
#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cpu/kernels/tensor_common.h"

namespace sy {
namespace {

using namespace reduce_detail;

template <typename F>
bool visit_einsum_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kInt32: f(int32_t{}); return true;
    case DataType::kInt64: f(int64_t{}); return true;
    default: return visit_float(t, std::forward<F>(f));
  }
}

// A float Einsum of two inputs that is a batched matrix product
// (einsum::as_gemm): the inputs are viewed as [batch, M, K] and
// [batch, K, N] (copied only where they are not already laid out so),
// sgemm multiplies them, and the product is viewed in the output's order.
// The generic loop took about 2 ns a term through its index tables
// (bij,bjk->bik over [8, 64, 64]: 4.7 ms, 77x ONNX Runtime's time).
Status einsum_as_gemm(const einsum::Plan& p, const einsum::Gemm& g, const float* a, const float* b, float* y) {
  // The operand's elements in the order of `groups`, contiguous.
  auto lay_out = [&](size_t input, const float* data, std::initializer_list<const std::vector<int>*> groups,
                     std::vector<float>& buf) {
    const einsum::View v = einsum::view_of(p, input, groups);
    if (v.contiguous()) return data;
    buf.resize(static_cast<size_t>(v.dims.numel()));
    tensor_ops::strided_copy(DataType::kFloat, buf.data(), data, v.dims, v.strides);
    return static_cast<const float*>(buf.data());
  };
  std::vector<float> a_buf, b_buf, c_buf;
  const float* A = lay_out(0, a, {&g.batch, &g.m, &g.k}, a_buf);
  const float* B = lay_out(1, b, {&g.batch, &g.k, &g.n}, b_buf);
  const std::vector<int> c_labels = g.product_labels();
  const bool direct = c_labels == p.out_labels;  // the product is the output as it is
  if (!direct) c_buf.resize(static_cast<size_t>(g.nb * g.M * g.N));
  float* C = direct ? y : c_buf.data();
  const int64_t M = g.M, N = g.N, K = g.K;
  RETURN_IF_ERROR(nn::for_batches(g.nb, M * N * K, [&](int64_t i) {
    return nn::sgemm('N', 'N', M, N, K, 1.f, A + i * M * K, K, B + i * K * N, N, 0.f, C + i * M * N, N);
  }));
  if (!direct)
    tensor_ops::strided_copy(DataType::kFloat, y, C, p.out_dims, einsum::strides_in_output_order(p, c_labels));
  return OkStatus();
}

class EinsumKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(spec_, einsum::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const einsum::Plan p, einsum::plan(ctx, spec_));
    const size_t nin = p.nin;
    const DataType dtype = p.dtype;
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, dtype, p.out_dims));
    if (dtype == DataType::kFloat) {
      if (const auto g = einsum::as_gemm(p))
        return einsum_as_gemm(p, *g, ctx.input(0).data<float>(), ctx.input(1).data<float>(), y->data<float>());
    }
    const int64_t out_n = p.out_dims.numel();
    const int64_t sum_n = p.size_of(p.sum_labels);
    // Per-input stride tables in output order and contraction order.
    std::vector<std::vector<int64_t>> out_st(nin), sum_st(nin);
    for (size_t i = 0; i < nin; ++i) {
      out_st[i] = p.strides_of(i, p.out_labels);
      sum_st[i] = p.strides_of(i, p.sum_labels);
    }
    const std::vector<int64_t> out_sz = p.sizes_of(p.out_labels), sum_sz = p.sizes_of(p.sum_labels);

    bool ok = visit_einsum_type(dtype, [&](auto tag) {
      using T = decltype(tag);
      using C = std::conditional_t<kIsFloatLike<T>, ComputeT<T>, int64_t>;
      std::vector<const T*> ptr(nin);
      for (size_t i = 0; i < nin; ++i) ptr[i] = ctx.input(i).data<T>();
      T* out = y->data<T>();
      parallel_rows(out_n, sum_n * static_cast<int64_t>(nin), [&](int64_t b, int64_t e) {
        std::vector<int64_t> base(nin), off(nin), idx(sum_sz.size());
        for (int64_t o = b; o < e; ++o) {
          std::fill(base.begin(), base.end(), 0);
          int64_t rem = o;
          for (size_t k = out_sz.size(); k-- > 0;) {
            const int64_t ik = rem % out_sz[k];
            rem /= out_sz[k];
            for (size_t i = 0; i < nin; ++i) base[i] += ik * out_st[i][k];
          }
          C acc = 0;
          off = base;
          std::fill(idx.begin(), idx.end(), 0);
          for (int64_t s = 0; s < sum_n; ++s) {
            C p = 1;
            for (size_t i = 0; i < nin; ++i) p = wrap_mul(p, static_cast<C>(load(ptr[i][off[i]])));
            acc = wrap_add(acc, p);
            for (size_t k = sum_sz.size(); k-- > 0;) {
              for (size_t i = 0; i < nin; ++i) off[i] += sum_st[i][k];
              if (++idx[k] < sum_sz[k]) break;
              for (size_t i = 0; i < nin; ++i) off[i] -= sum_st[i][k] * sum_sz[k];
              idx[k] = 0;
            }
          }
          out[o] = store<T>(acc);
        }
      });
    });
    if (!ok) return InvalidArgument(ctx.node().describe(), ": unsupported input type ", dtype_name(dtype));
    return OkStatus();
  }

 private:
  einsum::Spec spec_;
};

// --------------------------------------------------------------------- Det

class DetKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(const Dims od, det_output_dims(node, x));
    const int64_t m = x.dim(x.rank() - 1);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), od));
    const int64_t batch = od.numel();
    visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data<T>();
      T* out = y->data<T>();
      parallel_rows(batch, m * m * m, [&](int64_t b, int64_t e) {
        std::vector<double> a(static_cast<size_t>(m * m));
        for (int64_t bi = b; bi < e; ++bi) {
          for (int64_t k = 0; k < m * m; ++k) a[static_cast<size_t>(k)] = static_cast<double>(load(in[bi * m * m + k]));
          const double det = det_lu(a.data(), m);
          out[bi] = store<T>(det);
        }
      });
    });
    return OkStatus();
  }
};

}  // namespace

void register_cpu_einsum_kernels(KernelRegistry& r) {
  r.add(cpu_def("Einsum", 12, INT_MAX, &make_kernel<EinsumKernel>,
                {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16, DataType::kInt32,
                 DataType::kInt64}));
  r.add(cpu_def("Det", 11, INT_MAX, &make_kernel<DetKernel>, float_types()));
}

}  // namespace sy
