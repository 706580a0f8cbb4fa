#include "cli/random_inputs.h"

#include <type_traits>

namespace sy {

StatusOr<Tensor> random_tensor(const ValueInfo& info, const std::map<std::string, int64_t>& dims, std::mt19937_64& rng) {
  const TypeInfo& t = info.type;
  if (t.kind != TypeInfo::Kind::kTensor)
    return InvalidArgument("cannot generate random input '", info.name, "' of type ", t.to_string());
  Dims d;
  for (const Dim& dim : t.shape) {
    if (dim.known()) d.push_back(dim.value);
    else if (auto it = dims.find(dim.symbol); it != dims.end()) d.push_back(it->second);
    else return InvalidArgument("input '", info.name, "' has symbolic dimension '", dim.symbol.empty() ? "?" : dim.symbol,
                                "'; give its size with --dim NAME=VALUE");
  }
  ASSIGN_OR_RETURN(Tensor out, Tensor::host(t.elem, d));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int64_t n = out.numel();
  bool ok = visit_numeric(t.elem, [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, bool>) p[i] = u(rng) > 0;
      else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) p[i] = T(static_cast<float>(u(rng)));
      else if constexpr (std::is_floating_point_v<T>) p[i] = static_cast<T>(u(rng));
      else p[i] = static_cast<T>(static_cast<int64_t>((u(rng) + 1.0) * 4));  // small non-negative ints
    }
  });
  if (!ok) return InvalidArgument("cannot generate random input '", info.name, "' of type ", t.to_string());
  return out;
}

StatusOr<std::map<std::string, RuntimeValue>> random_inputs(const Graph& graph,
                                                            const std::map<std::string, int64_t>& dims,
                                                            std::mt19937_64& rng) {
  std::map<std::string, RuntimeValue> out;
  for (ValueId id : graph.inputs()) {
    const ValueInfo& info = graph.value(id);
    if (info.initializer >= 0) continue;
    ASSIGN_OR_RETURN(Tensor t, random_tensor(info, dims, rng));
    out[info.name] = RuntimeValue(std::move(t));
  }
  return out;
}

}  // namespace sy
