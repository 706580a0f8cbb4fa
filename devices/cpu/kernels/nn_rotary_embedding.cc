// CPU RotaryEmbedding (opset 23): rotates pairs of each head's first
// rotary_dim elements by the angle of the token's position,
//   (x1, x2) -> (cos * x1 - sin * x2, sin * x1 + cos * x2),
// the pairs being (i, i + rotary_dim / 2), or (2i, 2i + 1) when
// interleaved; the rest of the head is copied. Halves compute in float.
//
// Thread-safety: compute() is const and uses only attributes parsed in init().
#include <algorithm>

#include "devices/cpu/kernels/attention_common.h"
#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/reduction_common.h"

namespace sy::nn {
namespace {

using attention::RotaryAttrs;
using attention::RotaryShape;
using reduce_detail::ComputeT;
using reduce_detail::load;
using reduce_detail::store;

class RotaryEmbeddingKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, RotaryAttrs::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    const Tensor* ids = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    if (!dtype_is_float(x.dtype()))
      return InvalidArgument(node.describe(), ": X must be a float tensor, got ", x.describe());
    ASSIGN_OR_RETURN(RotaryShape s, resolve_rotary_shape(node, attrs_, x, ctx.input(1), ctx.input(2), ids));
    if (ids) {
      const int64_t* p = ids->data<int64_t>();
      const auto bad = std::find_if(p, p + ids->numel(), [&](int64_t id) { return id < 0 || id >= s.positions; });
      if (bad != p + ids->numel())
        return InvalidArgument(node.describe(), ": position_ids holds ", *bad, ", outside the caches' ",
                               s.positions, " positions");
    }
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    reduce_detail::visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = ComputeT<T>;
      const T* in = x.data<T>();
      const T* cos = ctx.input(1).data<T>();
      const T* sin = ctx.input(2).data<T>();
      T* out = y->data<T>();
      const int64_t half = s.rotary_dim / 2, heads = s.heads, len = s.len;
      // One task a token: its heads share the cache row.
      reduce_detail::parallel_rows(s.batch * len, heads * s.head * 4, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t b = t / len, i = t % len;
          const int64_t row = (ids ? ids->data<int64_t>()[t] : t) * half;
          for (int64_t h = 0; h < heads; ++h) {
            const T* xh = in + s.x.at(b, h, i);
            T* yh = out + s.x.at(b, h, i);
            const int64_t step = attrs_.interleaved ? 2 : 1, second = attrs_.interleaved ? 1 : half;
            for (int64_t k = 0; k < half; ++k) {
              const C c = load(cos[row + k]), sn = load(sin[row + k]);
              const C x1 = load(xh[k * step]), x2 = load(xh[k * step + second]);
              yh[k * step] = store<T>(c * x1 - sn * x2);
              yh[k * step + second] = store<T>(sn * x1 + c * x2);
            }
            std::copy(xh + s.rotary_dim, xh + s.head, yh + s.rotary_dim);
          }
        }
      });
    });
    return OkStatus();
  }

 private:
  RotaryAttrs attrs_;
};

}  // namespace

void register_rotary_embedding_kernels(KernelRegistry& r) {
  add_kernel(r, "RotaryEmbedding", 23, make_kernel<RotaryEmbeddingKernel>, reduce_detail::float_types());
}

}  // namespace sy::nn
