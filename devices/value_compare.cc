#include "devices/value_compare.h"

#include <cmath>

#include "ir/str_cat.h"

namespace sy {
namespace {

std::string compare_tensors(const Tensor& got, const Tensor& want, const Tolerance& tol) {
  if (got.dtype() != want.dtype())
    return str_cat("type ", dtype_name(got.dtype()), " != expected ", dtype_name(want.dtype()));
  if (got.dims() != want.dims()) return str_cat("shape ", got.dims().to_string(), " != expected ", want.dims().to_string());
  const int64_t n = got.numel();
  if (got.dtype() == DataType::kString) {
    for (int64_t i = 0; i < n; ++i)
      if (got.data<std::string>()[i] != want.data<std::string>()[i])
        return str_cat("element ", i, ": '", got.data<std::string>()[i], "' != expected '", want.data<std::string>()[i], "'");
    return "";
  }
  int64_t bad = 0, first = -1;
  double worst = 0;
  const bool exact = !dtype_is_float(got.dtype());
  for (int64_t i = 0; i < n; ++i) {
    double a = got.double_at(i), b = want.double_at(i);
    bool ok;
    if (exact) {
      ok = got.int_at(i) == want.int_at(i) && a == b;
    } else if (std::isnan(b)) {
      ok = std::isnan(a);
    } else if (std::isinf(b)) {
      ok = a == b;
    } else {
      ok = std::fabs(a - b) <= tol.atol + tol.rtol * std::fabs(b);
    }
    if (!ok) {
      if (first < 0) first = i;
      ++bad;
      worst = std::max(worst, std::fabs(a - b));
    }
  }
  if (!bad) return "";
  return str_cat(bad, " of ", n, " elements differ; first at ", first, ": ", got.double_at(first), " vs expected ",
                 want.double_at(first), " (max abs diff ", worst, ")");
}

}  // namespace

std::string compare_values(const RuntimeValue& got, const RuntimeValue& want, const Tolerance& tol) {
  if (want.is_none()) return got.is_none() ? "" : "expected an empty optional";
  if (got.is_none()) return "got no value (empty optional)";
  if (want.is_sequence()) {
    if (!got.is_sequence()) return "expected a sequence, got a tensor";
    const auto& a = got.sequence()->items;
    const auto& b = want.sequence()->items;
    if (a.size() != b.size()) return str_cat("sequence length ", a.size(), " != expected ", b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      std::string r = compare_tensors(a[i], b[i], tol);
      if (!r.empty()) return str_cat("sequence item ", i, ": ", r);
    }
    return "";
  }
  if (!got.is_tensor()) return "expected a tensor, got a sequence";
  return compare_tensors(got.tensor(), want.tensor(), tol);
}

}  // namespace sy
