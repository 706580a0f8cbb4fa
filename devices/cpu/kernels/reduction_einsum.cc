// CPU Einsum (batched matrix products by sgemm; the rest by enumerating
// output and contraction indices) and Det (LU decomposition with partial
// pivoting).
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/cpu_kernels.h"
#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cpu/kernels/tensor_common.h"

namespace sy {
namespace {

using namespace reduce_detail;

// Labels: 0..51 for letters, 52 + k for the k-th ellipsis dimension.
constexpr int kLetters = 52;
constexpr int kEllipsis = -1;  // marker inside a parsed term

int label_of(char ch) {
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;  // lowercase sorts after uppercase (ASCII)
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  return -2;
}

struct EinsumSpec {
  std::vector<std::vector<int>> inputs;  // letters or kEllipsis
  std::vector<int> output;               // letters or kEllipsis
  bool explicit_output = false;
};

StatusOr<std::vector<int>> parse_term(const Node& node, const std::string& term) {
  std::vector<int> out;
  bool seen_ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      if (term.compare(i, 3, "...") != 0 || seen_ellipsis)
        return InvalidArgument(node.describe(), ": malformed ellipsis in einsum term '", term, "'");
      seen_ellipsis = true;
      out.push_back(kEllipsis);
      i += 2;
      continue;
    }
    int l = label_of(term[i]);
    if (l < 0) return InvalidArgument(node.describe(), ": bad character '", term[i], "' in einsum equation");
    out.push_back(l);
  }
  return out;
}

StatusOr<EinsumSpec> parse_equation(const Node& node, std::string eq) {
  eq.erase(std::remove_if(eq.begin(), eq.end(), [](unsigned char ch) { return std::isspace(ch); }), eq.end());
  EinsumSpec spec;
  std::string lhs = eq, rhs;
  size_t arrow = eq.find("->");
  if (arrow != std::string::npos) {
    lhs = eq.substr(0, arrow);
    rhs = eq.substr(arrow + 2);
    spec.explicit_output = true;
  }
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    ASSIGN_OR_RETURN(std::vector<int> t, parse_term(node, lhs.substr(start, comma - start)));
    spec.inputs.push_back(std::move(t));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (spec.explicit_output) {
    ASSIGN_OR_RETURN(spec.output, parse_term(node, rhs));
  }
  return spec;
}

template <typename F>
bool visit_einsum_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kInt32: f(int32_t{}); return true;
    case DataType::kInt64: f(int64_t{}); return true;
    default: return visit_float(t, std::forward<F>(f));
  }
}

// One float input of a two-input Einsum: its data and, per label, its
// summed element stride and whether its term has the label.
struct GemmOperand {
  const float* data;
  const std::vector<int64_t>& stride;
  const std::vector<char>& present;
};

// The product of the sizes of `labels`.
int64_t size_of(const std::vector<int>& labels, const std::vector<int64_t>& size) {
  int64_t n = 1;
  for (int l : labels) n *= size[static_cast<size_t>(l)];
  return n;
}

// A float Einsum of two inputs that is a batched matrix product: each label
// in both inputs and the output is a batch, in the first input and the
// output a row (M), in the second and the output a column (N), and each
// of the summed labels `k` must be in both inputs. The inputs are viewed as [batch, M, K] and
// [batch, K, N] (copied only where they are not already laid out so), sgemm
// multiplies them, and the product is viewed in the output's order. The
// generic loop took about 2 ns a term through its index tables (bij,bjk->bik
// over [8, 64, 64]: 4.7 ms, 77x ONNX Runtime's time). False, with nothing
// written, for any other equation (a label summed within one input, an
// empty dimension) and for products too small to be worth a call.
StatusOr<bool> einsum_as_gemm(const GemmOperand& a, const GemmOperand& b, const std::vector<int64_t>& size,
                              const std::vector<int>& out_labels, const std::vector<int>& k, const Dims& out_dims,
                              float* y) {
  if (std::find(size.begin(), size.end(), 0) != size.end()) return false;
  std::vector<int> batch, m, n;
  for (int l : out_labels) {
    const auto i = static_cast<size_t>(l);
    (a.present[i] && b.present[i] ? batch : a.present[i] ? m : n).push_back(l);
  }
  for (int l : k)
    if (!a.present[static_cast<size_t>(l)] || !b.present[static_cast<size_t>(l)]) return false;
  const int64_t nb = size_of(batch, size), M = size_of(m, size), N = size_of(n, size), K = size_of(k, size);
  // Below this an sgemm call costs more than the loop's terms (ij,ij->ij
  // would be a 1x1x1 product per element).
  constexpr int64_t kMinProduct = 512;
  if (M * N * K < kMinProduct) return false;
  // The operand's elements in the order of `groups`, contiguous.
  auto lay_out = [&](const GemmOperand& op, std::initializer_list<const std::vector<int>*> groups,
                     std::vector<float>& buf) {
    Dims dims, strides;
    for (const auto* g : groups)
      for (int l : *g) {
        dims.push_back(size[static_cast<size_t>(l)]);
        strides.push_back(op.stride[static_cast<size_t>(l)]);
      }
    bool contiguous = true;
    for (int64_t d = static_cast<int64_t>(dims.rank()) - 1, expect = 1; d >= 0; expect *= dims[d--])
      contiguous &= dims[d] == 1 || strides[d] == expect;
    if (contiguous) return op.data;
    buf.resize(static_cast<size_t>(dims.numel()));
    tensor_ops::strided_copy(DataType::kFloat, buf.data(), op.data, dims, strides);
    return static_cast<const float*>(buf.data());
  };
  std::vector<float> a_buf, b_buf, c_buf;
  const float* A = lay_out(a, {&batch, &m, &k}, a_buf);
  const float* B = lay_out(b, {&batch, &k, &n}, b_buf);
  std::vector<int> c_labels = batch;
  c_labels.insert(c_labels.end(), m.begin(), m.end());
  c_labels.insert(c_labels.end(), n.begin(), n.end());
  const bool direct = c_labels == out_labels;  // the product is the output as it is
  if (!direct) c_buf.resize(static_cast<size_t>(nb * M * N));
  float* C = direct ? y : c_buf.data();
  RETURN_IF_ERROR(nn::for_batches(nb, M * N * K, [&](int64_t i) {
    return nn::sgemm('N', 'N', M, N, K, 1.f, A + i * M * K, K, B + i * K * N, N, 0.f, C + i * M * N, N);
  }));
  if (!direct) {
    // The product in the output's order: each label's stride in C's layout.
    Dims c_dims;
    for (int l : c_labels) c_dims.push_back(size[static_cast<size_t>(l)]);
    const Dims c_strides = contiguous_strides(c_dims);
    std::vector<int64_t> stride_of(size.size(), 0);
    for (size_t d = 0; d < c_labels.size(); ++d) stride_of[static_cast<size_t>(c_labels[d])] = c_strides[d];
    Dims strides;
    for (int l : out_labels) strides.push_back(stride_of[static_cast<size_t>(l)]);
    tensor_ops::strided_copy(DataType::kFloat, y, C, out_dims, strides);
  }
  return true;
}

class EinsumKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    if (!node.has_attr("equation")) return InvalidArgument(node.describe(), ": missing attribute equation");
    ASSIGN_OR_RETURN(spec_, parse_equation(node, node.attr_string("equation", "")));
    if (spec_.inputs.size() != node.num_inputs())
      return InvalidArgument(node.describe(), ": equation has ", spec_.inputs.size(), " terms but the node has ",
                             node.num_inputs(), " inputs");
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const size_t nin = spec_.inputs.size();
    if (ctx.num_inputs() != nin) return InvalidArgument(node.describe(), ": wrong number of inputs");
    DataType dtype = ctx.input(0).dtype();
    int64_t ell = 0;  // number of ellipsis dims (max over inputs)
    std::vector<int64_t> ell_of(nin, 0);
    for (size_t i = 0; i < nin; ++i) {
      const Tensor& t = ctx.input(i);
      if (!t.defined() || t.dtype() != dtype)
        return InvalidArgument(node.describe(), ": all inputs must be tensors of one type");
      int64_t letters = 0;
      bool has_ell = false;
      for (int l : spec_.inputs[i]) {
        if (l == kEllipsis) has_ell = true;
        else ++letters;
      }
      const int64_t rank = static_cast<int64_t>(t.rank());
      if ((!has_ell && rank != letters) || (has_ell && rank < letters))
        return InvalidArgument(node.describe(), ": input ", i, " of shape ", t.dims().to_string(),
                               " does not match its einsum term");
      ell_of[i] = has_ell ? rank - letters : 0;
      ell = std::max(ell, ell_of[i]);
    }
    const int nlabels = kLetters + static_cast<int>(ell);
    std::vector<int64_t> size(static_cast<size_t>(nlabels), -1);
    std::vector<int> count(static_cast<size_t>(nlabels), 0);
    // strides[i][label]: summed element stride of input i along label.
    std::vector<std::vector<int64_t>> strides(nin, std::vector<int64_t>(static_cast<size_t>(nlabels), 0));
    std::vector<std::vector<char>> present(nin, std::vector<char>(static_cast<size_t>(nlabels), 0));
    for (size_t i = 0; i < nin; ++i) {
      const Tensor& t = ctx.input(i);
      std::vector<int64_t> st(t.rank());
      int64_t s = 1;
      for (size_t k = t.rank(); k-- > 0;) {
        st[k] = s;
        s *= t.dim(k);
      }
      size_t dim = 0;
      for (int l : spec_.inputs[i]) {
        std::vector<std::pair<int, size_t>> dims_here;
        if (l == kEllipsis) {
          for (int64_t k = 0; k < ell_of[i]; ++k)
            dims_here.push_back({kLetters + static_cast<int>(ell - ell_of[i] + k), dim++});
        } else {
          dims_here.push_back({l, dim++});
          ++count[static_cast<size_t>(l)];
        }
        for (auto [lab, dd] : dims_here) {
          const int64_t ds = t.dim(dd);
          auto& sz = size[static_cast<size_t>(lab)];
          const bool is_ell = lab >= kLetters;
          if (sz < 0 || (is_ell && sz == 1)) {
            sz = ds;
          } else if (ds != sz && !(is_ell && ds == 1)) {
            return InvalidArgument(node.describe(), ": einsum dimension mismatch for input ", i, " (", ds, " vs ",
                                   sz, ")");
          }
          if (!(is_ell && ds == 1)) strides[i][static_cast<size_t>(lab)] += st[dd];
          present[i][static_cast<size_t>(lab)] = 1;
        }
      }
    }
    // Output labels.
    std::vector<int> out_labels;
    if (spec_.explicit_output) {
      for (int l : spec_.output) {
        if (l == kEllipsis) {
          for (int64_t k = 0; k < ell; ++k) out_labels.push_back(kLetters + static_cast<int>(k));
        } else {
          if (size[static_cast<size_t>(l)] < 0)
            return InvalidArgument(node.describe(), ": output label not present in any input");
          if (std::find(out_labels.begin(), out_labels.end(), l) != out_labels.end())
            return InvalidArgument(node.describe(), ": output label repeated");
          out_labels.push_back(l);
        }
      }
      // Ellipsis dims missing from an explicit output are summed over.
    } else {
      for (int64_t k = 0; k < ell; ++k) out_labels.push_back(kLetters + static_cast<int>(k));
      for (int l = 0; l < kLetters; ++l)
        if (count[static_cast<size_t>(l)] == 1) out_labels.push_back(l);
    }
    std::vector<int> sum_labels;
    for (int l = 0; l < nlabels; ++l)
      if (size[static_cast<size_t>(l)] >= 0 &&
          std::find(out_labels.begin(), out_labels.end(), l) == out_labels.end())
        sum_labels.push_back(l);
    Dims out_dims;
    for (int l : out_labels) out_dims.push_back(size[static_cast<size_t>(l)]);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, dtype, out_dims));
    if (dtype == DataType::kFloat && nin == 2) {
      ASSIGN_OR_RETURN(bool done, einsum_as_gemm({ctx.input(0).data<float>(), strides[0], present[0]},
                                                 {ctx.input(1).data<float>(), strides[1], present[1]}, size,
                                                 out_labels, sum_labels, out_dims, y->data<float>()));
      if (done) return OkStatus();
    }
    const int64_t out_n = out_dims.numel();
    const int64_t sum_n = size_of(sum_labels, size);
    // Per-input stride tables in output order and contraction order.
    auto gather = [&](const std::vector<int>& labels) {
      std::vector<std::vector<int64_t>> g(nin);
      for (size_t i = 0; i < nin; ++i)
        for (int l : labels) g[i].push_back(strides[i][static_cast<size_t>(l)]);
      return g;
    };
    const auto out_st = gather(out_labels), sum_st = gather(sum_labels);
    std::vector<int64_t> out_sz, sum_sz;
    for (int l : out_labels) out_sz.push_back(size[static_cast<size_t>(l)]);
    for (int l : sum_labels) sum_sz.push_back(size[static_cast<size_t>(l)]);

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
    if (!ok) return InvalidArgument(node.describe(), ": unsupported input type ", dtype_name(dtype));
    return OkStatus();
  }

 private:
  EinsumSpec spec_;
};

// --------------------------------------------------------------------- Det

class DetKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    RETURN_IF_ERROR(check_float_input(node, x, "X"));
    if (x.rank() < 2 || x.dim(x.rank() - 1) != x.dim(x.rank() - 2))
      return InvalidArgument(node.describe(), ": input must be [..., M, M], got ", x.describe());
    const int64_t m = x.dim(x.rank() - 1);
    Dims od(std::span<const int64_t>(x.dims().data(), x.rank() - 2));
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
          double det = 1;
          for (int64_t c = 0; c < m && det != 0; ++c) {
            int64_t piv = c;
            for (int64_t r = c + 1; r < m; ++r)
              if (std::abs(a[static_cast<size_t>(r * m + c)]) > std::abs(a[static_cast<size_t>(piv * m + c)])) piv = r;
            const double pv = a[static_cast<size_t>(piv * m + c)];
            if (pv == 0) {
              det = 0;
              break;
            }
            if (piv != c) {
              for (int64_t k = 0; k < m; ++k) std::swap(a[static_cast<size_t>(piv * m + k)], a[static_cast<size_t>(c * m + k)]);
              det = -det;
            }
            det *= pv;
            for (int64_t r = c + 1; r < m; ++r) {
              const double f = a[static_cast<size_t>(r * m + c)] / pv;
              if (f == 0) continue;
              for (int64_t k = c; k < m; ++k) a[static_cast<size_t>(r * m + k)] -= f * a[static_cast<size_t>(c * m + k)];
            }
          }
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
