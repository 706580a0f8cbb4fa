// Loads an out-of-tree placement policy from a shared library through the
// versioned C ABI in placer/plugin_abi.h (`--policy ./libmypolicy.so`).
#pragma once

#include <memory>
#include <string>

#include "placer/placement_policy.h"
#include "placer/policy_registry.h"

namespace sy {

// True if `name` names a shared library rather than a registered policy:
// it contains a '/' or (ignoring any "?options" suffix) ends in ".so".
// Thread-safe.
bool is_plugin_path(const std::string& name);

// dlopens `path`, checks the ABI version and wraps the plugin's entry points
// in a PlacementPolicy. `path` may end in "?key=value,key=value", which is
// passed to the plugin's create() after "seed=N" (see plugin_abi.h). Errors
// (missing file, missing symbol, wrong ABI version, failing create) are
// returned, never thrown or aborted on, and name the path. The policy keeps
// the library loaded until it is destroyed; a choice outside the candidates
// is returned as is, for the executor to report. Thread-safe as dlopen is.
StatusOr<std::unique_ptr<PlacementPolicy>> load_plugin_policy(const std::string& path, const PolicyOptions& options);

}  // namespace sy
