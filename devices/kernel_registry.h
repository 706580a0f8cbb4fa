// KernelRegistry: kernels keyed by domain, op, opset range, device kind and
// input type. Registration is explicit (register_builtin_kernels), never via
// static initialisers. Lookups are done at plan time, not per node run.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "devices/kernel.h"

namespace sy {

class KernelRegistry {
 public:
  // Not thread-safe; register everything before creating sessions.
  void add(KernelDef def);
  // Thread-safe after registration. Returns the best match or nullptr.
  // `first_input` may be kUndefined when the type is not known statically.
  const KernelDef* find(std::string_view domain, std::string_view op, int opset, DeviceKind device,
                        DataType first_input = DataType::kUndefined) const;
  // True if any device has a kernel for the op at some version.
  bool knows_op(std::string_view domain, std::string_view op) const;
  std::vector<std::string> ops(DeviceKind device) const;
  // Every kernel registered for `device`; the pointers stay valid until the
  // next add().
  std::vector<const KernelDef*> defs(DeviceKind device) const;

  // The registry with every built-in kernel of every compiled-in backend.
  static const KernelRegistry& builtin();

 private:
  std::map<std::string, std::vector<KernelDef>, std::less<>> defs_;  // key: domain + "::" + op
};

// Adds all built-in kernels (CPU now; CUDA when compiled in).
void register_builtin_kernels(KernelRegistry& registry);

}  // namespace sy
