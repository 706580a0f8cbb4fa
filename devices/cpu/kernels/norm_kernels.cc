// CPU normalisations: LayerNormalization, RMSNormalization, BatchNormalization (inference and
// opset-14+ training mode), InstanceNormalization, GroupNormalization, LRN,
// MeanVarianceNormalization and LpNormalization. All compute in float
// (double for double inputs); float16/bfloat16 are converted on load.
#include <algorithm>
#include <cmath>
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/cpu_kernels.h"
#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cpu/kernels/target_clones.h"
#include "ir/op_fusion.h"

namespace sy {
namespace {

using namespace reduce_detail;

// Expands a per-channel-shape parameter (Scale, B of LayerNormalization)
// that is unidirectionally broadcastable to `target` into a dense vector.
template <typename C>
StatusOr<std::vector<C>> expand_param(const Node& node, const Tensor& t, const Dims& target, const char* what) {
  RETURN_IF_ERROR(check_float_input(node, t, what));
  std::vector<C> v = read_floats<C>(t);
  const int64_t n = target.numel();
  if (t.dims() == target || (t.numel() == n && t.rank() <= target.rank() && n > 0 &&
                             std::equal(t.dims().begin(), t.dims().end(), target.end() - t.rank())))
    return v;
  ASSIGN_OR_RETURN(Dims st, param_broadcast_strides(node, t.dims(), target, what));
  std::vector<C> out(static_cast<size_t>(n));
  std::vector<int64_t> idx(target.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (size_t k = 0; k < target.size(); ++k) off += idx[k] * st[k];
    out[static_cast<size_t>(i)] = v[static_cast<size_t>(off)];
    for (size_t k = target.size(); k-- > 0;) {
      if (++idx[k] < target[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

// ------------------------------------------------------- LayerNormalization

class LayerNormKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, LayerNormAttrs::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    RETURN_IF_ERROR(check_float_input(node, x, "X"));
    ASSIGN_OR_RETURN(LayerNormShape shape, resolve_layer_norm_shape(node, x, attrs_));
    const int64_t rows = shape.rows, cols = shape.cols;
    const Dims& norm_dims = shape.norm_dims;
    const DataType stash = attrs_.stash;
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    ASSIGN_OR_RETURN(Tensor * mean_out, maybe_output(ctx, 1, stash, shape.stat_dims));
    ASSIGN_OR_RETURN(Tensor * inv_out, maybe_output(ctx, 2, stash, shape.stat_dims));
    // Nothing to write: an empty X may claim 2^40 rows of nothing.
    if (y->numel() == 0 && !mean_out && !inv_out) return OkStatus();
    Status st;
    visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = ComputeT<T>;
      auto scale = expand_param<C>(node, ctx.input(1), norm_dims, "Scale");
      if (!scale.ok()) {
        st = scale.status();
        return;
      }
      std::vector<C> bias;
      if (ctx.has_input(2)) {
        auto b = expand_param<C>(node, ctx.input(2), norm_dims, "B");
        if (!b.ok()) {
          st = b.status();
          return;
        }
        bias = std::move(b).value();
      }
      const std::vector<C>& sc = *scale;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      const C eps = static_cast<C>(attrs_.epsilon);
      parallel_rows(rows, cols * 3, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const T* xr = in + r * cols;
          T* yr = out + r * cols;
          C mean, var;
          mean_variance(xr, cols, &mean, &var);
          const C inv = C(1) / std::sqrt(var + eps);
          if (bias.empty()) {
            for (int64_t j = 0; j < cols; ++j) yr[j] = store<T>((C(load(xr[j])) - mean) * inv * sc[static_cast<size_t>(j)]);
          } else {
            for (int64_t j = 0; j < cols; ++j) {
              const auto jj = static_cast<size_t>(j);
              yr[j] = store<T>((C(load(xr[j])) - mean) * inv * sc[jj] + bias[jj]);
            }
          }
          visit_float(stash, [&](auto stag) {
            using S = decltype(stag);
            if (mean_out) mean_out->data<S>()[r] = store<S>(mean);
            if (inv_out) inv_out->data<S>()[r] = store<S>(inv);
          });
        }
      });
    });
    return st;
  }

 private:
  LayerNormAttrs attrs_;
};

// ------------------------------------------------------- RMSNormalization

// One row of RMSNormalization, cloned for AVX-512 and AVX2: at the
// baseline's SSE width it took 1.3x ONNX Runtime's time.
template <typename T, typename V, typename C>
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void rms_row(const T* __restrict x, V* __restrict y, const C* __restrict scale, int64_t n, C eps) {
  const C squares = lane_sum<C>(n, [&](int64_t j) {
    const C v = C(load(x[j]));
    return v * v;
  });
  const C inv = C(1) / std::sqrt(squares / static_cast<C>(n) + eps);
  for (int64_t j = 0; j < n; ++j) y[j] = store<V>(C(load(x[j])) * inv * scale[j]);
}

// LayerNormalization without the mean or bias: y = x / sqrt(mean(x^2) + eps)
// * scale over the dims from axis on. Y takes scale's type, which may
// differ from X's.
class RmsNormKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, LayerNormAttrs::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    const Tensor& scale_t = ctx.input(1);
    RETURN_IF_ERROR(check_float_input(node, x, "X"));
    RETURN_IF_ERROR(check_float_input(node, scale_t, "scale"));
    ASSIGN_OR_RETURN(LayerNormShape shape, resolve_layer_norm_shape(node, x, attrs_));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, scale_t.dtype(), x.dims()));
    if (y->numel() == 0) return OkStatus();  // an empty X may claim 2^40 rows of nothing
    Status st;
    visit_float(x.dtype(), [&](auto xtag) {
      using T = decltype(xtag);
      visit_float(scale_t.dtype(), [&](auto ytag) {
        using V = decltype(ytag);
        // The wider of the two, and float at the least.
        using C = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<V, double>, double, float>;
        auto scale = expand_param<C>(node, scale_t, shape.norm_dims, "scale");
        if (!scale.ok()) {
          st = scale.status();
          return;
        }
        const C* sc = scale->data();
        const T* in = x.data<T>();
        V* out = y->data<V>();
        const int64_t cols = shape.cols;
        const C eps = static_cast<C>(attrs_.epsilon);
        parallel_rows(shape.rows, cols * 3, [&](int64_t b, int64_t e) {
          for (int64_t r = b; r < e; ++r) rms_row<T, V, C>(in + r * cols, out + r * cols, sc, cols, eps);
        });
      });
    });
    return st;
  }

 private:
  LayerNormAttrs attrs_;
};

// ------------------------------------------------------- BatchNormalization

class BatchNormKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    epsilon_ = node.attr_float("epsilon", 1e-5f);
    momentum_ = node.attr_float("momentum", 0.9f);
    opset_ = node.opset;
    training_ = opset_ >= 14 && node.attr_int("training_mode", 0) != 0;
    if (opset_ < 7 && node.attr_int("is_test", 0) == 0 && node.num_outputs() > 1) training_ = true;
    if (opset_ < 9 && node.attr_int("spatial", 1) == 0)
      return Unimplemented(node.describe(), ": spatial=0 is not supported");
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    RETURN_IF_ERROR(check_batch_norm_inputs(ctx));
    const int64_t n = x.dim(0), c = x.dim(1), spatial = prod(x.dims(), 2, x.rank());
    // The images the loops visit: none when X is empty, which may claim
    // 2^40 images of nothing.
    const int64_t images = x.numel() > 0 ? n : 0;
    // Old opsets list training outputs even in inference models; those are
    // filled too when requested.
    const bool want_stats = training_ || (opset_ < 14 && (ctx.output_wanted(1) || ctx.output_wanted(2) ||
                                                          ctx.output_wanted(3) || ctx.output_wanted(4)));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    Status st;
    visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = ComputeT<T>;
      std::vector<C> scale = read_floats<C>(ctx.input(1)), bias = read_floats<C>(ctx.input(2)),
                     mean = read_floats<C>(ctx.input(3)), var = read_floats<C>(ctx.input(4));
      const T* in = x.data<T>();
      std::vector<C> bmean(static_cast<size_t>(c), C(0)), bvar(static_cast<size_t>(c), C(0));
      if (want_stats) {
        const C cnt = static_cast<C>(n * spatial);
        parallel_rows(c, n * spatial * 2, [&](int64_t b, int64_t e) {
          for (int64_t ch = b; ch < e; ++ch) {
            C s = 0;
            for (int64_t i = 0; i < images; ++i) {
              const T* p = in + (i * c + ch) * spatial;
              for (int64_t j = 0; j < spatial; ++j) s += load(p[j]);
            }
            const C m = cnt > 0 ? s / cnt : C(0);
            C v = 0;
            for (int64_t i = 0; i < images; ++i) {
              const T* p = in + (i * c + ch) * spatial;
              for (int64_t j = 0; j < spatial; ++j) {
                C dlt = C(load(p[j])) - m;
                v += dlt * dlt;
              }
            }
            bmean[static_cast<size_t>(ch)] = m;
            bvar[static_cast<size_t>(ch)] = cnt > 0 ? v / cnt : C(0);
          }
        });
      }
      const std::vector<C>& use_mean = training_ ? bmean : mean;
      const std::vector<C>& use_var = training_ ? bvar : var;
      std::vector<C> mul(static_cast<size_t>(c)), add(static_cast<size_t>(c));
      for (size_t ch = 0; ch < mul.size(); ++ch) {
        mul[ch] = scale[ch] / std::sqrt(use_var[ch] + static_cast<C>(epsilon_));
        add[ch] = bias[ch] - use_mean[ch] * mul[ch];
      }
      T* out = y->data<T>();
      if (spatial == 1) {
        // [N, C]: a row of every channel per sample, where a row per
        // channel held one element ([256, 1024]: 320 us, 8x ONNX Runtime).
        parallel_rows(images, c, [&, m = mul.data(), a = add.data()](int64_t b, int64_t e) {
          for (int64_t r = b; r < e; ++r) {
            const T* p = in + r * c;
            T* q = out + r * c;
            for (int64_t ch = 0; ch < c; ++ch) q[ch] = store<T>(C(load(p[ch])) * m[ch] + a[ch]);
          }
        });
      } else {
        parallel_rows(images * c, spatial, [&](int64_t b, int64_t e) {
          for (int64_t r = b; r < e; ++r) {
            const auto ch = static_cast<size_t>(r % c);
            const T* p = in + r * spatial;
            T* q = out + r * spatial;
            for (int64_t j = 0; j < spatial; ++j) q[j] = store<T>(C(load(p[j])) * mul[ch] + add[ch]);
          }
        });
      }
      if (!want_stats) return;
      // Outputs 1, 2: running mean/var; (opset < 14) 3, 4: saved mean/var.
      const C mom = static_cast<C>(momentum_);
      const DataType stat_type = ctx.input(3).dtype();
      auto write = [&](size_t out_i, auto&& value_of) -> Status {
        if (!ctx.output_wanted(out_i) || out_i >= ctx.num_outputs()) return OkStatus();
        ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output(out_i, stat_type, Dims{c}));
        visit_float(stat_type, [&](auto stag) {
          using S = decltype(stag);
          for (int64_t ch = 0; ch < c; ++ch) t->data<S>()[ch] = store<S>(value_of(static_cast<size_t>(ch)));
        });
        return OkStatus();
      };
      st = write(1, [&](size_t ch) { return mean[ch] * mom + bmean[ch] * (C(1) - mom); });
      if (st.ok()) st = write(2, [&](size_t ch) { return var[ch] * mom + bvar[ch] * (C(1) - mom); });
      if (st.ok() && opset_ < 14) st = write(3, [&](size_t ch) { return bmean[ch]; });
      if (st.ok() && opset_ < 14) st = write(4, [&](size_t ch) { return bvar[ch]; });
    });
    return st;
  }

 private:
  float epsilon_ = 1e-5f;
  float momentum_ = 0.9f;
  int opset_ = 15;
  bool training_ = false;
};

// ------------------------------------ InstanceNormalization, GroupNormalization

// Normalises each group of channels of each image over the group's
// channels and spatial positions, then scales and shifts each channel.
// GroupNormalization-21's stash_type asks for at least float precision,
// which the float (double for double) computation gives.
class GroupedNormKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, GroupedNormAttrs::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    RETURN_IF_ERROR(check_float_input(node, x, "input"));
    RETURN_IF_ERROR(check_float_input(node, ctx.input(1), "scale"));
    RETURN_IF_ERROR(check_float_input(node, ctx.input(2), "bias"));
    ASSIGN_OR_RETURN(GroupedNormShape sh, resolve_grouped_norm_shape(node, x, ctx.input(1), ctx.input(2), attrs_));
    const int64_t groups = sh.groups, per_group = sh.per_group, spatial = sh.spatial, len = per_group * spatial;
    const bool params_per_group = attrs_.params_per_group;
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (y->numel() == 0) return OkStatus();  // an empty X may claim 2^40 images of nothing
    visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = ComputeT<T>;
      std::vector<C> scale = read_floats<C>(ctx.input(1)), bias = read_floats<C>(ctx.input(2));
      const T* in = x.data<T>();
      T* out = y->data<T>();
      const C eps = static_cast<C>(attrs_.epsilon);
      parallel_rows(sh.images * groups, len * 3, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const int64_t g = r % groups;
          const T* p = in + r * len;
          T* q = out + r * len;
          C m, v;
          mean_variance(p, len, &m, &v);
          const C inv = C(1) / std::sqrt(v + eps);
          for (int64_t k = 0; k < per_group; ++k) {
            const auto pi = static_cast<size_t>(params_per_group ? g : g * per_group + k);
            const C mul = scale[pi] * inv, add = bias[pi];
            const T* pk = p + k * spatial;
            T* qk = q + k * spatial;
            for (int64_t j = 0; j < spatial; ++j) qk[j] = store<T>((C(load(pk[j])) - m) * mul + add);
          }
        }
      });
    });
    return OkStatus();
  }

 private:
  GroupedNormAttrs attrs_;
};

// --------------------------------------------------------------------- LRN

class LrnKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    alpha_ = node.attr_float("alpha", 1e-4f);
    beta_ = node.attr_float("beta", 0.75f);
    bias_ = node.attr_float("bias", 1.0f);
    size_ = node.attr_int("size", 0);
    if (size_ <= 0) return InvalidArgument(node.describe(), ": attribute size must be positive");
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    RETURN_IF_ERROR(check_float_input(node, x, "X"));
    if (x.rank() < 2) return InvalidArgument(node.describe(), ": X must have rank >= 2, got ", x.describe());
    const int64_t n = x.dim(0), c = x.dim(1), spatial = prod(x.dims(), 2, x.rank());
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (y->numel() == 0) return OkStatus();  // an empty X may claim 2^40 images of nothing
    const int64_t lo = (size_ - 1) / 2, hi = size_ / 2;  // floor((s-1)/2), ceil((s-1)/2)
    visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = ComputeT<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      const C scale = static_cast<C>(alpha_) / static_cast<C>(size_);
      parallel_rows(n * c, spatial * (size_ + 2), [&](int64_t b, int64_t e) {
        std::vector<C> sq(static_cast<size_t>(spatial));
        for (int64_t r = b; r < e; ++r) {
          const int64_t ni = r / c, ch = r % c;
          std::fill(sq.begin(), sq.end(), C(0));
          for (int64_t k = std::max<int64_t>(0, ch - lo); k <= std::min(c - 1, ch + hi); ++k) {
            const T* p = in + (ni * c + k) * spatial;
            for (int64_t j = 0; j < spatial; ++j) {
              C v = load(p[j]);
              sq[static_cast<size_t>(j)] += v * v;
            }
          }
          const T* p = in + r * spatial;
          T* q = out + r * spatial;
          for (int64_t j = 0; j < spatial; ++j)
            q[j] = store<T>(C(load(p[j])) /
                            std::pow(static_cast<C>(bias_) + scale * sq[static_cast<size_t>(j)], static_cast<C>(beta_)));
        }
      });
    });
    return OkStatus();
  }

 private:
  float alpha_ = 1e-4f, beta_ = 0.75f, bias_ = 1.0f;
  int64_t size_ = 0;
};

// ----------------------------------------------- MeanVarianceNormalization

class MvnKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axes_ = node.attr_ints("axes", {0, 2, 3});
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    RETURN_IF_ERROR(check_float_input(node, x, "X"));
    const int64_t rank = static_cast<int64_t>(x.rank());
    std::vector<bool> red(static_cast<size_t>(rank), false);
    for (int64_t a : axes_) {
      ASSIGN_OR_RETURN(int64_t ax, normalize_axis(a, rank, node));
      red[static_cast<size_t>(ax)] = true;
    }
    // Statistic index of each element: strides over kept dims, 0 on reduced.
    Dims sdims = x.dims();
    for (size_t i = 0; i < sdims.size(); ++i)
      if (red[i]) sdims[i] = 1;
    const int64_t groups = sdims.numel(), total = x.numel();
    const int64_t count = groups > 0 ? total / groups : 0;
    Dims sstr = broadcast_strides(sdims, x.dims());
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (total == 0) return OkStatus();
    std::vector<int64_t> gidx(static_cast<size_t>(total));
    {
      std::vector<int64_t> idx(x.rank(), 0);
      int64_t off = 0;
      for (int64_t i = 0; i < total; ++i) {
        gidx[static_cast<size_t>(i)] = off;
        for (size_t k = x.rank(); k-- > 0;) {
          off += sstr[k];
          if (++idx[k] < x.dim(k)) break;
          off -= sstr[k] * x.dim(k);
          idx[k] = 0;
        }
      }
    }
    visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = ComputeT<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      std::vector<double> s(static_cast<size_t>(groups), 0.0), s2(static_cast<size_t>(groups), 0.0);
      for (int64_t i = 0; i < total; ++i) {
        double v = static_cast<double>(load(in[i]));
        s[static_cast<size_t>(gidx[static_cast<size_t>(i)])] += v;
        s2[static_cast<size_t>(gidx[static_cast<size_t>(i)])] += v * v;
      }
      std::vector<C> mean(static_cast<size_t>(groups)), denom(static_cast<size_t>(groups));
      for (size_t g = 0; g < mean.size(); ++g) {
        double m = s[g] / static_cast<double>(count);
        double var = std::max(0.0, s2[g] / static_cast<double>(count) - m * m);
        mean[g] = static_cast<C>(m);
        denom[g] = static_cast<C>(std::sqrt(var) + 1e-9);
      }
      for (int64_t i = 0; i < total; ++i) {
        const auto g = static_cast<size_t>(gidx[static_cast<size_t>(i)]);
        out[i] = store<T>((C(load(in[i])) - mean[g]) / denom[g]);
      }
    });
    return OkStatus();
  }

 private:
  std::vector<int64_t> axes_;
};

// --------------------------------------------------------- LpNormalization

class LpNormKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axis_ = node.attr_int("axis", -1);
    p_ = node.attr_int("p", 2);
    if (p_ != 1 && p_ != 2) return InvalidArgument(node.describe(), ": p must be 1 or 2, got ", p_);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    RETURN_IF_ERROR(check_float_input(node, x, "input"));
    const int64_t rank = static_cast<int64_t>(x.rank());
    if (rank == 0) return InvalidArgument(node.describe(), ": input must have rank >= 1");
    ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, rank, node));
    const auto a = static_cast<size_t>(axis);
    const int64_t outer = prod(x.dims(), 0, a), d = x.dim(a), inner = prod(x.dims(), a + 1, x.rank());
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (y->numel() == 0) return OkStatus();  // an empty X may claim 2^40 vectors of nothing
    visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = ComputeT<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      parallel_rows(outer * inner, d * 2, [&](int64_t b, int64_t e) {
        for (int64_t s = b; s < e; ++s) {
          const int64_t o = s / inner, i = s % inner;
          const T* p = in + o * d * inner + i;
          T* q = out + o * d * inner + i;
          C norm = 0;
          for (int64_t k = 0; k < d; ++k) {
            C v = load(p[k * inner]);
            norm += p_ == 1 ? std::abs(v) : v * v;
          }
          if (p_ == 2) norm = std::sqrt(norm);
          // A zero vector stays zero rather than becoming 0/0.
          for (int64_t k = 0; k < d; ++k) q[k * inner] = store<T>(norm == C(0) ? C(0) : C(load(p[k * inner])) / norm);
        }
      });
    });
    return OkStatus();
  }

 private:
  int64_t axis_ = -1;
  int64_t p_ = 2;
};

template <typename K>
void add_float_op(KernelRegistry& r, const char* op, int since) {
  r.add(cpu_def(op, since, INT_MAX, &make_kernel<K>, float_types()));
}

}  // namespace

void register_cpu_norm_kernels(KernelRegistry& r) {
  add_float_op<LayerNormKernel>(r, "LayerNormalization", 17);
  // OpFusion's, from the arithmetic of float models before opset 17.
  KernelDef fused = cpu_def(kFusedLayerNorm, 1, INT_MAX, &make_kernel<LayerNormKernel>, {DataType::kFloat});
  fused.domain = kSwitchyardDomain;
  r.add(std::move(fused));
  add_float_op<RmsNormKernel>(r, "RMSNormalization", 23);
  add_float_op<BatchNormKernel>(r, "BatchNormalization", 1);
  add_float_op<GroupedNormKernel>(r, "InstanceNormalization", 1);
  add_float_op<GroupedNormKernel>(r, "GroupNormalization", 18);
  add_float_op<LrnKernel>(r, "LRN", 1);
  add_float_op<MvnKernel>(r, "MeanVarianceNormalization", 1);
  add_float_op<LpNormKernel>(r, "LpNormalization", 1);
}

}  // namespace sy
