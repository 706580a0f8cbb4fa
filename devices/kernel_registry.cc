#include "devices/kernel_registry.h"

#include <algorithm>

namespace sy {
namespace {
std::string key_of(std::string_view domain, std::string_view op) {
  std::string d(domain == "ai.onnx" ? std::string_view() : domain);
  return d + "::" + std::string(op);
}
}  // namespace

void KernelRegistry::add(KernelDef def) { defs_[key_of(def.domain, def.op)].push_back(std::move(def)); }

const KernelDef* KernelRegistry::find(std::string_view domain, std::string_view op, int opset, DeviceKind device,
                                      DataType first_input) const {
  auto it = defs_.find(key_of(domain, op));
  if (it == defs_.end()) return nullptr;
  const KernelDef* best = nullptr;
  for (const KernelDef& d : it->second) {
    if (d.device != device || opset < d.since_version || opset > d.end_version) continue;
    if (first_input != DataType::kUndefined && !d.types.empty() &&
        std::find(d.types.begin(), d.types.end(), first_input) == d.types.end())
      continue;
    if (!best || d.since_version > best->since_version) best = &d;
  }
  return best;
}

bool KernelRegistry::knows_op(std::string_view domain, std::string_view op) const {
  return defs_.count(key_of(domain, op)) > 0;
}

std::vector<std::string> KernelRegistry::ops(DeviceKind device) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : defs_)
    for (const auto& d : v)
      if (d.device == device) {
        out.push_back(k);
        break;
      }
  return out;
}

std::vector<const KernelDef*> KernelRegistry::defs(DeviceKind device) const {
  std::vector<const KernelDef*> out;
  for (const auto& [k, v] : defs_)
    for (const auto& d : v)
      if (d.device == device) out.push_back(&d);
  return out;
}

const KernelRegistry& KernelRegistry::builtin() {
  static const KernelRegistry* r = [] {
    auto* reg = new KernelRegistry();
    register_builtin_kernels(*reg);
    return reg;
  }();
  return *r;
}

}  // namespace sy
