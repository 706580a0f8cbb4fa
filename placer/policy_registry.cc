#include "placer/policy_registry.h"

#include "placer/plugin_policy.h"

namespace sy {

void PolicyRegistry::add(const std::string& name, const std::string& help, Factory factory) {
  entries_[name] = Entry{help, std::move(factory)};
}

StatusOr<std::unique_ptr<PlacementPolicy>> PolicyRegistry::create(const std::string& name,
                                                                   const PolicyOptions& options) const {
  auto it = entries_.find(name);
  if (it == entries_.end() && is_plugin_path(name)) return load_plugin_policy(name, options);
  if (it == entries_.end()) {
    std::string known;
    for (const auto& [n, e] : entries_) known += (known.empty() ? "" : ", ") + n;
    return InvalidArgument("unknown placement policy '", name, "' (known: ", known, ")");
  }
  return it->second.factory(options);
}

std::vector<std::pair<std::string, std::string>> PolicyRegistry::list() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [n, e] : entries_) out.emplace_back(n, e.help);
  return out;
}

const PolicyRegistry& PolicyRegistry::builtin() {
  static const PolicyRegistry* r = [] {
    auto* reg = new PolicyRegistry();
    register_builtin_policies(*reg);
    return reg;
  }();
  return *r;
}

}  // namespace sy
