// Creates placement policies by name. Registration is explicit
// (register_builtin_policies), never by static initialisers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "placer/placement_policy.h"

namespace sy {

struct PolicyOptions {
  uint64_t seed = 0;
};

class PolicyRegistry {
 public:
  using Factory = std::function<std::unique_ptr<PlacementPolicy>(const PolicyOptions&)>;
  // Not thread-safe; register before use.
  void add(const std::string& name, const std::string& help, Factory factory);
  // Thread-safe after registration.
  StatusOr<std::unique_ptr<PlacementPolicy>> create(const std::string& name, const PolicyOptions& options = {}) const;
  std::vector<std::pair<std::string, std::string>> list() const;  // name, help

  static const PolicyRegistry& builtin();

 private:
  struct Entry {
    std::string help;
    Factory factory;
  };
  std::map<std::string, Entry> entries_;
};

void register_builtin_policies(PolicyRegistry& registry);

}  // namespace sy
