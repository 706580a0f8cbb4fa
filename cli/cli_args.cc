#include "cli/cli_args.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "devices/sim/sim_profile.h"
#include "executor/session.h"
#include "ir/graph.h"

namespace sy {

StatusOr<std::map<std::string, int64_t>> parse_dims(const std::vector<std::string>& specs) {
  std::map<std::string, int64_t> dims;
  for (const std::string& d : specs) {
    const auto eq = d.find('=');
    if (eq == std::string::npos || eq == 0) return InvalidArgument("--dim expects NAME=VALUE, got '", d, "'");
    const std::string k = d.substr(0, eq), v = d.substr(eq + 1);
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end || x < 0) return InvalidArgument("--dim ", k, ": '", v, "' is not a non-negative integer");
    if (errno == ERANGE) return InvalidArgument("--dim ", k, ": '", v, "' is out of range");
    dims[k] = x;
  }
  return dims;
}

namespace {

void collect_symbols(const TypeInfo& t, std::set<std::string>& out) {
  for (const Dim& d : t.shape)
    if (!d.symbol.empty()) out.insert(d.symbol);
  if (t.inner) collect_symbols(*t.inner, out);
}

}  // namespace

Status check_dims_named(const std::map<std::string, int64_t>& dims, const std::vector<const Graph*>& graphs) {
  std::set<std::string> symbols;
  for (const Graph* g : graphs)
    for (ValueId id : g->inputs()) collect_symbols(g->value(id).type, symbols);
  for (const auto& [name, value] : dims) {
    if (symbols.count(name)) continue;
    std::string have;
    for (const std::string& s : symbols) have += (have.empty() ? "" : ", ") + s;
    return InvalidArgument("--dim ", name, ": no input has a symbolic dimension of that name (",
                           have.empty() ? std::string("the inputs have none") : "they have: " + have, ")");
  }
  return OkStatus();
}

Status check_devices(const std::string& devices, const std::string& simulate) {
  if (!simulate.empty()) return load_sim_profile(simulate).status();
  auto d = create_devices(devices);
  if (!d.ok()) return InvalidArgument("--devices '", devices, "': ", d.status().message());
  return OkStatus();
}

bool cpu_devices_only(const std::string& devices, const std::string& simulate) {
  const std::vector<std::string> items = device_list_items(devices);
  return simulate.empty() && !items.empty() &&
         std::all_of(items.begin(), items.end(), [](const std::string& d) { return d.rfind("cpu", 0) == 0; });
}

// Expands folders to their *.onnx files (sorted); keeps files as given.
StatusOr<std::vector<std::string>> expand_models(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    std::error_code ec;
    if (std::filesystem::is_directory(a, ec)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::directory_iterator(a, ec))
        if (e.is_regular_file() && e.path().extension() == ".onnx") found.push_back(e.path().string());
      if (ec) return InvalidArgument("cannot list folder '", a, "': ", ec.message());
      if (found.empty()) return InvalidArgument("folder '", a, "' has no .onnx files");
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else if (std::filesystem::exists(a, ec)) {
      out.push_back(a);
    } else {
      return NotFound("model '", a, "' not found");
    }
  }
  return out;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t idx = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, idx == 0 ? 0 : idx - 1)];
}

std::string human_bytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

}  // namespace sy
