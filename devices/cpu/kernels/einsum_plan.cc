#include "devices/cpu/kernels/einsum_plan.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

#include "devices/broadcast.h"

namespace sy::einsum {
namespace {

constexpr int kEllipsis = -1;  // marker inside a parsed term

int label_of(char ch) {
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;  // lowercase sorts after uppercase (ASCII)
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  return -2;
}

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

}  // namespace

StatusOr<Spec> parse(const Node& node) {
  if (!node.has_attr("equation")) return InvalidArgument(node.describe(), ": missing attribute equation");
  std::string eq = node.attr_string("equation", "");
  eq.erase(std::remove_if(eq.begin(), eq.end(), [](unsigned char ch) { return std::isspace(ch); }), eq.end());
  Spec spec;
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
  if (spec.inputs.size() != node.num_inputs())
    return InvalidArgument(node.describe(), ": equation has ", spec.inputs.size(), " terms but the node has ",
                           node.num_inputs(), " inputs");
  return spec;
}

int64_t Plan::size_of(const std::vector<int>& labels) const {
  int64_t n = 1;
  for (int l : labels) n *= size[static_cast<size_t>(l)];
  return n;
}

std::vector<int64_t> Plan::sizes_of(const std::vector<int>& labels) const {
  std::vector<int64_t> v;
  for (int l : labels) v.push_back(size[static_cast<size_t>(l)]);
  return v;
}

std::vector<int64_t> Plan::strides_of(size_t input, const std::vector<int>& labels) const {
  std::vector<int64_t> v;
  for (int l : labels) v.push_back(strides[input][static_cast<size_t>(l)]);
  return v;
}

StatusOr<Plan> plan(const KernelContext& ctx, const Spec& spec) {
  const Node& node = ctx.node();
  Plan p;
  p.nin = spec.inputs.size();
  const size_t nin = p.nin;
  if (ctx.num_inputs() != nin) return InvalidArgument(node.describe(), ": wrong number of inputs");
  for (size_t i = 0; i < nin; ++i)
    if (!ctx.has_input(i)) return InvalidArgument(node.describe(), ": all inputs must be tensors of one type");
  p.dtype = ctx.input(0).dtype();
  int64_t ell = 0;  // number of ellipsis dims (max over inputs)
  std::vector<int64_t> ell_of(nin, 0);
  for (size_t i = 0; i < nin; ++i) {
    const Tensor& t = ctx.input(i);
    if (t.dtype() != p.dtype) return InvalidArgument(node.describe(), ": all inputs must be tensors of one type");
    int64_t letters = 0;
    bool has_ell = false;
    for (int l : spec.inputs[i]) {
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
  const size_t nlabels = static_cast<size_t>(kLetters + ell);
  p.size.assign(nlabels, -1);
  std::vector<int> count(nlabels, 0);
  p.strides.assign(nin, std::vector<int64_t>(nlabels, 0));
  p.present.assign(nin, std::vector<char>(nlabels, 0));
  for (size_t i = 0; i < nin; ++i) {
    const Tensor& t = ctx.input(i);
    const Dims st = contiguous_strides(t.dims());
    size_t dim = 0;
    for (int l : spec.inputs[i]) {
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
        auto& sz = p.size[static_cast<size_t>(lab)];
        const bool is_ell = lab >= kLetters;
        if (sz < 0 || (is_ell && sz == 1)) {
          sz = ds;
        } else if (ds != sz && !(is_ell && ds == 1)) {
          return InvalidArgument(node.describe(), ": einsum dimension mismatch for input ", i, " (", ds, " vs ", sz,
                                 ")");
        }
        // A broadcast ellipsis dimension of 1 reads its one element.
        if (!(is_ell && ds == 1)) p.strides[i][static_cast<size_t>(lab)] += st[dd];
        p.present[i][static_cast<size_t>(lab)] = 1;
      }
    }
  }
  if (spec.explicit_output) {
    for (int l : spec.output) {
      if (l == kEllipsis) {
        for (int64_t k = 0; k < ell; ++k) p.out_labels.push_back(kLetters + static_cast<int>(k));
      } else {
        if (p.size[static_cast<size_t>(l)] < 0)
          return InvalidArgument(node.describe(), ": output label not present in any input");
        if (std::find(p.out_labels.begin(), p.out_labels.end(), l) != p.out_labels.end())
          return InvalidArgument(node.describe(), ": output label repeated");
        p.out_labels.push_back(l);
      }
    }
    // Ellipsis dims missing from an explicit output are summed over.
  } else {
    for (int64_t k = 0; k < ell; ++k) p.out_labels.push_back(kLetters + static_cast<int>(k));
    for (int l = 0; l < kLetters; ++l)
      if (count[static_cast<size_t>(l)] == 1) p.out_labels.push_back(l);
  }
  for (int l = 0; l < static_cast<int>(nlabels); ++l)
    if (p.size[static_cast<size_t>(l)] >= 0 &&
        std::find(p.out_labels.begin(), p.out_labels.end(), l) == p.out_labels.end())
      p.sum_labels.push_back(l);
  for (int l : p.out_labels) p.out_dims.push_back(p.size[static_cast<size_t>(l)]);
  return p;
}

std::vector<int> Gemm::product_labels() const {
  std::vector<int> c = batch;
  c.insert(c.end(), m.begin(), m.end());
  c.insert(c.end(), n.begin(), n.end());
  return c;
}

std::optional<Gemm> as_gemm(const Plan& p) {
  if (p.nin != 2 || std::find(p.size.begin(), p.size.end(), 0) != p.size.end()) return std::nullopt;
  const std::vector<char>&a = p.present[0], &b = p.present[1];
  Gemm g;
  for (int l : p.out_labels) {
    const auto i = static_cast<size_t>(l);
    (a[i] && b[i] ? g.batch : a[i] ? g.m : g.n).push_back(l);
  }
  for (int l : p.sum_labels)
    if (!a[static_cast<size_t>(l)] || !b[static_cast<size_t>(l)]) return std::nullopt;
  g.k = p.sum_labels;
  g.nb = p.size_of(g.batch);
  g.M = p.size_of(g.m);
  g.N = p.size_of(g.n);
  g.K = p.size_of(g.k);
  if (g.M * g.N * g.K < kMinGemmProduct) return std::nullopt;
  return g;
}

bool View::contiguous() const {
  bool dense = true;
  for (int64_t d = static_cast<int64_t>(dims.rank()) - 1, expect = 1; d >= 0; expect *= dims[d--])
    dense &= dims[d] == 1 || strides[d] == expect;
  return dense;
}

View view_of(const Plan& p, size_t input, std::initializer_list<const std::vector<int>*> groups) {
  View v;
  for (const auto* g : groups)
    for (int l : *g) {
      v.dims.push_back(p.size[static_cast<size_t>(l)]);
      v.strides.push_back(p.strides[input][static_cast<size_t>(l)]);
    }
  return v;
}

Dims strides_in_output_order(const Plan& p, const std::vector<int>& labels) {
  Dims dims;
  for (int64_t d : p.sizes_of(labels)) dims.push_back(d);
  const Dims dense = contiguous_strides(dims);
  std::vector<int64_t> stride_of(p.size.size(), 0);
  for (size_t d = 0; d < labels.size(); ++d) stride_of[static_cast<size_t>(labels[d])] = dense[d];
  Dims out;
  for (int l : p.out_labels) out.push_back(stride_of[static_cast<size_t>(l)]);
  return out;
}

}  // namespace sy::einsum
