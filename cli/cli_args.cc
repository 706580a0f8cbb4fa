#include "cli/cli_args.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace sy {

StatusOr<std::map<std::string, int64_t>> parse_dims(const std::vector<std::string>& specs) {
  std::map<std::string, int64_t> dims;
  for (const std::string& d : specs) {
    const auto eq = d.find('=');
    if (eq == std::string::npos || eq == 0) return InvalidArgument("--dim expects NAME=VALUE, got '", d, "'");
    const std::string k = d.substr(0, eq), v = d.substr(eq + 1);
    char* end = nullptr;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end || x < 0) return InvalidArgument("--dim ", k, ": '", v, "' is not a non-negative integer");
    dims[k] = x;
  }
  return dims;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t idx = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, idx == 0 ? 0 : idx - 1)];
}

}  // namespace sy
