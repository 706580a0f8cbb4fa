// PluginPolicy: adapts a placement policy living in a shared library (C ABI
// of placer/plugin_abi.h) to PlacementPolicy.
//
// The C ABI keeps plugins independent of Switchyard's C++ types, compiler and
// standard library. The cost of that is one conversion per place() call,
// which is done into stack arrays (or, for unusually wide nodes, per-thread
// scratch that only ever grows) so the hot path never allocates.
#include "placer/plugin_policy.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include "placer/plugin_abi.h"

namespace sy {
namespace {

// The memo is handed to C as a plain int32_t*; that is only meaningful if the
// atomic is a bare, lock-free int32_t in memory, as on every supported target.
static_assert(sizeof(std::atomic<int32_t>) == sizeof(int32_t));
static_assert(alignof(std::atomic<int32_t>) == alignof(int32_t));
static_assert(std::atomic<int32_t>::is_always_lock_free);

// The ABI's device kinds are Switchyard's DeviceKind values.
static_assert(static_cast<int>(DeviceKind::kCpu) == SY_DEVICE_CPU);
static_assert(static_cast<int>(DeviceKind::kCuda) == SY_DEVICE_CUDA);
static_assert(static_cast<int>(DeviceKind::kSim) == SY_DEVICE_SIM);

// Fields a plugin's sy_policy_v1 must cover: everything up to place().
constexpr size_t kMinPolicyStructSize = offsetof(sy_policy_v1, place) + sizeof(sy_policy_v1::place);

// Nodes with at most this many inputs or candidates convert on the stack.
constexpr size_t kInlineArity = 16;

struct LibraryCloser {
  void operator()(void* handle) const {
    if (handle) dlclose(handle);
  }
};
using LibraryHandle = std::unique_ptr<void, LibraryCloser>;

const char* dl_error_or(const char* fallback) {
  const char* e = dlerror();
  return e ? e : fallback;
}

// Per-thread buffers for nodes wider than kInlineArity. They grow once per
// thread to the widest node seen and are reused after that.
template <typename T>
T* scratch(size_t n) {
  thread_local std::vector<T> buf;
  if (buf.size() < n) buf.resize(n);
  return buf.data();
}

void convert_input(const InputInfo& in, sy_input_v1& out) {
  out.location_kind = static_cast<int32_t>(in.location.kind);
  out.location_index = in.location.index;
  out.dtype = static_cast<int32_t>(in.dtype);
  if (in.dims) {
    out.rank = static_cast<int32_t>(in.dims->rank());
    out.dims = in.dims->rank() > 0 ? in.dims->data() : nullptr;
  } else {
    out.rank = -1;
    out.dims = nullptr;
  }
  out.bytes = in.bytes;
}

void convert_candidate(const Candidate& c, sy_candidate_v1& out) {
  out.device_kind = static_cast<int32_t>(c.device.kind);
  out.device_ordinal = c.device.ordinal;
  out.memory_kind = static_cast<int32_t>(c.space.kind);
  out.memory_index = c.space.index;
  out.device_index = c.device_index;
  out.reserved = 0;
  out.predicted_compute_us = c.predicted_compute_us;
  out.predicted_transfer_us = c.predicted_transfer_us;
  out.backlog_us = c.backlog_us;
}

// Owns the library handle and the plugin's state. The state is destroyed
// before the library is closed, since destroy() is code inside it.
//
// Thread-safety: place() and observe() are as thread-safe as the plugin's
// (the ABI requires plugins to allow concurrent calls); name() and
// uses_costs() read immutable members. The policy must outlive every run
// that uses it: destroying it unmaps the plugin's code.
class PluginPolicy final : public PlacementPolicy {
 public:
  PluginPolicy(LibraryHandle library, const sy_policy_v1& api, void* state, std::string name)
      : library_(std::move(library)), api_(api), state_(state), name_(std::move(name)) {}
  ~PluginPolicy() override {
    if (api_.destroy) api_.destroy(state_);
    // library_ is closed after this body, when members are destroyed.
  }
  PluginPolicy(const PluginPolicy&) = delete;
  PluginPolicy& operator=(const PluginPolicy&) = delete;

  std::string_view name() const override { return name_; }
  bool uses_costs() const override { return (api_.flags & SY_POLICY_IGNORES_COSTS) == 0; }

  // The plugin's answer is passed through unchecked: the executor validates
  // every decision and reports an out-of-range index as the policy's error,
  // which is more useful to a plugin author than a silent clamp.
  PlacementDecision place(const PlacementRequest& r) override {
    sy_input_v1 inline_inputs[kInlineArity];
    sy_candidate_v1 inline_candidates[kInlineArity];
    const size_t ni = r.inputs.size();
    const size_t nc = r.candidates.size();
    sy_input_v1* inputs = ni <= kInlineArity ? inline_inputs : scratch<sy_input_v1>(ni);
    sy_candidate_v1* candidates = nc <= kInlineArity ? inline_candidates : scratch<sy_candidate_v1>(nc);
    // issue_us then output_transfer_us, per candidate.
    double inline_costs[2 * kInlineArity];
    double* costs = nc <= kInlineArity ? inline_costs : scratch<double>(2 * nc);
    for (size_t i = 0; i < ni; ++i) convert_input(r.inputs[i], inputs[i]);
    for (size_t i = 0; i < nc; ++i) {
      convert_candidate(r.candidates[i], candidates[i]);
      costs[i] = r.candidates[i].issue_us;
      costs[nc + i] = r.candidates[i].output_transfer_us;
    }

    sy_place_request_v1 req;
    req.struct_size = sizeof(sy_place_request_v1);
    req.depth = r.depth;
    req.op_type = r.node ? r.node->op_type.c_str() : "";
    req.domain = r.node ? r.node->domain.c_str() : "";
    req.node_name = r.node ? r.node->name.c_str() : "";
    req.graph_name = r.graph ? r.graph->name().c_str() : "";
    req.node_id = r.node ? static_cast<int32_t>(r.node->id) : -1;
    req.num_inputs = static_cast<int32_t>(ni);
    req.inputs = ni ? inputs : nullptr;
    req.num_candidates = static_cast<int32_t>(nc);
    req.reserved = 0;
    req.candidates = nc ? candidates : nullptr;
    req.memo = reinterpret_cast<int32_t*>(r.memo);
    req.issue_us = nc ? costs : nullptr;
    req.output_transfer_us = nc ? costs + nc : nullptr;
    return PlacementDecision{api_.place(state_, &req), "plugin"};
  }

  void observe(const Completion& c) override {
    if (!api_.observe) return;
    sy_completion_v1 out;
    out.struct_size = sizeof(sy_completion_v1);
    out.node_id = c.node ? static_cast<int32_t>(c.node->id) : -1;
    out.op_type = c.node ? c.node->op_type.c_str() : "";
    out.domain = c.node ? c.node->domain.c_str() : "";
    out.node_name = c.node ? c.node->name.c_str() : "";
    out.graph_name = c.graph ? c.graph->name().c_str() : "";
    out.device_kind = static_cast<int32_t>(c.device.kind);
    out.device_ordinal = c.device.ordinal;
    out.device_index = c.device_index;
    out.reserved = 0;
    out.work = c.work;
    out.predicted_us = c.predicted_us;
    out.measured_us = c.measured_us;
    api_.observe(state_, &out);
  }

 private:
  LibraryHandle library_;  // declared first: closed last
  sy_policy_v1 api_;       // a copy, zero past the plugin's struct_size
  void* state_;
  std::string name_;
};

// "./lib.so?threshold_us=5" -> {"./lib.so", "threshold_us=5"}.
std::pair<std::string, std::string> split_options(const std::string& spec) {
  size_t q = spec.find('?');
  if (q == std::string::npos) return {spec, ""};
  return {spec.substr(0, q), spec.substr(q + 1)};
}

}  // namespace

bool is_plugin_path(const std::string& name) {
  std::string_view file = std::string_view(name).substr(0, name.find('?'));
  return name.find('/') != std::string::npos || (file.size() > 3 && file.substr(file.size() - 3) == ".so");
}

StatusOr<std::unique_ptr<PlacementPolicy>> load_plugin_policy(const std::string& spec, const PolicyOptions& options) {
  auto [path, user_options] = split_options(spec);
  if (path.empty()) return InvalidArgument("policy plugin '", spec, "': empty library path");

  // dlopen searches the library path for names without a '/'. A user typing
  // `--policy libfoo.so` most likely means the file in the working
  // directory, so prefer that; otherwise let dlopen search (installed
  // plugins).
  std::error_code ec;
  std::string open_path = path;
  if (path.find('/') == std::string::npos && std::filesystem::is_regular_file(path, ec)) open_path = "./" + path;
  if (open_path.find('/') != std::string::npos) {
    if (!std::filesystem::exists(open_path, ec)) return NotFound("policy plugin '", path, "' not found");
    if (std::filesystem::is_directory(open_path, ec))
      return InvalidArgument("policy plugin '", path, "' is a directory, not a shared library");
  }

  dlerror();  // clear any stale error so the messages below are ours
  LibraryHandle library(dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!library) {
    std::string err = dl_error_or("unknown dlopen error");
    if (open_path.find('/') == std::string::npos && err.find("No such file") != std::string::npos)
      return NotFound("policy plugin '", path, "' not found in the working directory or library path: ", err);
    return InvalidArgument("cannot load policy plugin '", path, "': ", err);
  }

  dlerror();
  void* sym = dlsym(library.get(), SY_POLICY_ENTRY_SYMBOL);
  if (!sym) {
    return InvalidArgument("policy plugin '", path, "' does not export ", SY_POLICY_ENTRY_SYMBOL,
                           "() (is it a Switchyard policy?): ", dl_error_or("symbol is null"));
  }
  // POSIX guarantees that dlsym's object pointer converts to a function pointer.
  auto entry = reinterpret_cast<sy_policy_entry_fn>(sym);
  const sy_policy_v1* table = entry();
  if (!table) return InvalidArgument("policy plugin '", path, "': ", SY_POLICY_ENTRY_SYMBOL, "() returned NULL");
  if (table->abi_version != SY_POLICY_ABI_VERSION) {
    return InvalidArgument("policy plugin '", path, "' uses plugin ABI version ", table->abi_version,
                           " but this Switchyard supports version ", SY_POLICY_ABI_VERSION,
                           "; rebuild it against this Switchyard's placer/plugin_abi.h");
  }
  if (table->struct_size < kMinPolicyStructSize) {
    return InvalidArgument("policy plugin '", path, "': sy_policy_v1.struct_size is ", table->struct_size,
                           ", less than the ", kMinPolicyStructSize, " bytes ABI version 1 requires");
  }
  // Copy only what the plugin declared; fields it does not know stay zero
  // (absent), which is how older plugins keep working with newer hosts.
  sy_policy_v1 api;
  std::memset(&api, 0, sizeof api);
  std::memcpy(&api, table, std::min<size_t>(table->struct_size, sizeof api));
  if (!api.create || !api.place) {
    return InvalidArgument("policy plugin '", path, "': sy_policy_v1.", api.create ? "place" : "create",
                           " is NULL but required");
  }

  std::string create_options = str_cat("seed=", options.seed);
  if (!user_options.empty()) create_options += "," + user_options;
  char err[SY_POLICY_ERROR_SIZE] = {0};
  void* state = api.create(create_options.c_str(), err, sizeof err);
  if (!state) {
    err[sizeof err - 1] = '\0';  // do not trust the plugin to terminate it
    return InvalidArgument("policy plugin '", path, "' failed to start with options '", create_options,
                           "': ", err[0] ? err : "create() returned NULL");
  }

  std::string name = api.name ? std::string(api.name) : std::filesystem::path(path).filename().string();
  return std::unique_ptr<PlacementPolicy>(
      std::make_unique<PluginPolicy>(std::move(library), api, state, std::move(name)));
}

}  // namespace sy
