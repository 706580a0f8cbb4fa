#include "devices/sim/sim_profile.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ir/str_cat.h"

namespace sy {
namespace {

using json = nlohmann::json;

constexpr int kMaxDevices = 64;  // as many as --devices takes
constexpr int kMaxNodes = 16;
constexpr size_t kMaxCosts = 4096;
constexpr size_t kMaxPoints = 256;
constexpr size_t kMaxNameLength = 256;
constexpr size_t kMaxTextLength = 4096;  // "source" explains where numbers come from
constexpr uint64_t kMaxFileBytes = 64u << 20;
// Minimum kernel time, as in the cost model: no launch is free.
constexpr double kMinUs = 0.05;

class Parser {
 public:
  explicit Parser(const std::string& path) : path_(path) {}

  Status bad(const std::string& where, const std::string& what) const {
    return InvalidArgument("simulation profile '", path_, "': ", where, ": ", what);
  }

  StatusOr<double> number(const json& o, const char* key, const std::string& where, double lo, double hi,
                          const double* fallback = nullptr) const {
    auto it = o.find(key);
    if (it == o.end()) {
      if (fallback) return *fallback;
      return bad(where, str_cat("missing '", key, "'"));
    }
    if (!it->is_number()) return bad(where, str_cat("'", key, "' must be a number"));
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < lo || v > hi) return bad(where, str_cat("'", key, "' must be in [", lo, ", ", hi, "]"));
    return v;
  }

  StatusOr<int> integer(const json& o, const char* key, const std::string& where, int lo, int hi, int fallback) const {
    auto it = o.find(key);
    if (it == o.end()) return fallback;
    if (!it->is_number_integer()) return bad(where, str_cat("'", key, "' must be an integer"));
    const int64_t v = it->get<int64_t>();
    if (v < lo || v > hi) return bad(where, str_cat("'", key, "' must be in [", lo, ", ", hi, "]"));
    return static_cast<int>(v);
  }

  StatusOr<std::string> name(const json& o, const char* key, const std::string& where, bool required = true,
                             size_t max_length = kMaxNameLength) const {
    auto it = o.find(key);
    if (it == o.end()) {
      if (!required) return std::string();
      return bad(where, str_cat("missing '", key, "'"));
    }
    if (!it->is_string()) return bad(where, str_cat("'", key, "' must be a string"));
    std::string s = it->get<std::string>();
    if ((required && s.empty()) || s.size() > max_length)
      return bad(where, str_cat("'", key, "' must be ", required ? "1" : "0", " to ", max_length, " characters"));
    return s;
  }

  StatusOr<SimCost> cost(const json& e, const std::string& where) const {
    if (!e.is_object()) return bad(where, "must be an object");
    SimCost c;
    ASSIGN_OR_RETURN(c.op, name(e, "op", where));
    ASSIGN_OR_RETURN(c.base_us, number(e, "base_us", where, 0, 1e9));
    ASSIGN_OR_RETURN(c.us_per_work, number(e, "us_per_work", where, 0, 1e6));
    if (auto it = e.find("points"); it != e.end()) {
      if (!it->is_array() || it->size() > kMaxPoints) return bad(where, str_cat("'points' must be an array of at most ", kMaxPoints));
      for (size_t i = 0; i < it->size(); ++i) {
        const json& p = (*it)[i];
        const std::string pw = str_cat(where, ".points[", i, "]");
        if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number())
          return bad(pw, "must be [work, us]");
        const double w = p[0].get<double>(), us = p[1].get<double>();
        if (!std::isfinite(w) || w <= 0 || w > 1e30) return bad(pw, "work must be in (0, 1e30]");
        if (!std::isfinite(us) || us < 0 || us > 1e9) return bad(pw, "us must be in [0, 1e9]");
        if (!c.points.empty() && w <= c.points.back()[0]) return bad(pw, "work must increase from point to point");
        c.points.push_back({w, us});
      }
    }
    return c;
  }

  StatusOr<SimDeviceClass> device_class(const json& e, const std::string& where) const {
    if (!e.is_object()) return bad(where, "must be an object");
    SimDeviceClass d;
    ASSIGN_OR_RETURN(d.name, name(e, "class", where));
    if (d.name == "*") return bad(where, "'*' is not a class name");
    ASSIGN_OR_RETURN(std::string kind, name(e, "kind", where));
    if (kind == "cpu") d.kind = DeviceKind::kCpu;
    else if (kind == "cuda") d.kind = DeviceKind::kCuda;
    else return bad(where, str_cat("'kind' must be cpu or cuda, not '", kind, "'"));
    ASSIGN_OR_RETURN(d.count, integer(e, "count", where, 1, kMaxDevices, 1));
    ASSIGN_OR_RETURN(double gb, number(e, "memory_gb", where, 1e-6, 1e6));
    d.memory_bytes = static_cast<uint64_t>(gb * 1e9);
    ASSIGN_OR_RETURN(d.queues, integer(e, "queues", where, 1, 64, 1));
    ASSIGN_OR_RETURN(d.copy_queues, integer(e, "copy_queues", where, 1, 16, 1));
    const double zero = 0;
    ASSIGN_OR_RETURN(d.launch_us, number(e, "launch_us", where, 0, 1e6, &zero));
    const double handoff = d.handoff_us;
    ASSIGN_OR_RETURN(d.handoff_us, number(e, "handoff_us", where, 0, 1e6, &handoff));
    return d;
  }

  StatusOr<SimLink> link(const json& e, const std::string& where) const {
    if (!e.is_object()) return bad(where, "must be an object");
    SimLink l;
    ASSIGN_OR_RETURN(l.from, name(e, "from", where));
    ASSIGN_OR_RETURN(l.to, name(e, "to", where));
    ASSIGN_OR_RETURN(std::string scope, name(e, "scope", where, /*required=*/false));
    if (scope == "remote") l.remote = true;
    else if (!scope.empty() && scope != "local") return bad(where, "'scope' must be local or remote");
    ASSIGN_OR_RETURN(l.latency_us, number(e, "latency_us", where, 0, 1e9));
    ASSIGN_OR_RETURN(l.bandwidth_gbps, number(e, "bandwidth_gbps", where, 1e-6, 1e6));
    return l;
  }

 private:
  std::string path_;
};

// The most specific link for (from, to, remote): exact classes before a
// wildcard on one side before "*"->"*". -1 if none.
int find_link(const std::vector<SimLink>& links, const std::string& from, const std::string& to, bool remote) {
  int best = -1, best_score = -1;
  for (size_t i = 0; i < links.size(); ++i) {
    const SimLink& l = links[i];
    if (l.remote != remote) continue;
    if ((l.from != from && l.from != "*") || (l.to != to && l.to != "*")) continue;
    const int score = (l.from == from) + (l.to == to);
    if (score > best_score) {
      best = static_cast<int>(i);
      best_score = score;
    }
  }
  return best;
}

}  // namespace

double SimCost::predict_us(double work) const {
  work = std::max(work, 0.0);
  double us;
  if (points.empty()) {
    us = base_us + us_per_work * work;
  } else if (work <= points.front()[0]) {
    us = points.front()[1] - us_per_work * (points.front()[0] - work);
  } else if (work >= points.back()[0]) {
    us = points.back()[1] + us_per_work * (work - points.back()[0]);
  } else {
    auto hi = std::lower_bound(points.begin(), points.end(), work,
                               [](const std::array<double, 2>& p, double w) { return p[0] < w; });
    auto lo = hi - 1;
    const double f = (work - (*lo)[0]) / ((*hi)[0] - (*lo)[0]);
    us = (*lo)[1] + f * ((*hi)[1] - (*lo)[1]);
  }
  return std::max(us, kMinUs);
}

const SimCost& SimDeviceClass::cost(const std::string& op) const {
  const SimCost* fallback = nullptr;
  for (const SimCost& c : costs) {
    if (c.op == op) return c;
    if (c.op == "*") fallback = &c;
  }
  return *fallback;  // validated: every class has one
}

const SimLink& SimProfile::link(int a, int b) const {
  return links[static_cast<size_t>(pair_link[static_cast<size_t>(a) * devices.size() + static_cast<size_t>(b)])];
}

std::string SimProfile::describe() const {
  std::string s = name.empty() ? path : name;
  s += ": ";
  for (size_t i = 0; i < devices.size(); ++i) {
    if (i) s += ',';
    s += devices[i].id.to_string();
  }
  return s;
}

StatusOr<SimProfile> load_sim_profile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound("simulation profile '", path, "' not found");
  if (!std::filesystem::is_regular_file(path, ec))
    return InvalidArgument("simulation profile '", path, "' is not a regular file");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxFileBytes) return InvalidArgument("simulation profile '", path, "': larger than 64 MiB");
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) return InvalidArgument("simulation profile '", path, "': cannot be read");
  return parse_sim_profile(ss.str(), path);
}

StatusOr<SimProfile> parse_sim_profile(const std::string& text, const std::string& path) {
  Parser p(path);
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return p.bad("top level", "not valid JSON");
  if (!doc.is_object()) return p.bad("top level", "must be an object");
  auto fmt = doc.find("format");
  if (fmt == doc.end() || *fmt != "switchyard-sim-profile")
    return p.bad("format", "must be \"switchyard-sim-profile\" (is this a cost profile for --profile?)");
  auto ver = doc.find("version");
  if (ver == doc.end() || !ver->is_number_integer() || ver->get<int64_t>() != 1) return p.bad("version", "must be 1");

  SimProfile prof;
  prof.path = path;
  ASSIGN_OR_RETURN(prof.name, p.name(doc, "name", "name", /*required=*/false));
  ASSIGN_OR_RETURN(prof.source, p.name(doc, "source", "source", /*required=*/false, kMaxTextLength));
  ASSIGN_OR_RETURN(prof.nodes, p.integer(doc, "nodes", "nodes", 1, kMaxNodes, 1));
  const double zero = 0;
  ASSIGN_OR_RETURN(prof.noise, p.number(doc, "noise", "noise", 0, 1, &zero));

  auto devs = doc.find("devices");
  if (devs == doc.end() || !devs->is_array() || devs->empty() || devs->size() > static_cast<size_t>(kMaxDevices))
    return p.bad("devices", str_cat("must be an array of 1 to ", kMaxDevices, " classes"));
  int total = 0;
  for (size_t i = 0; i < devs->size(); ++i) {
    ASSIGN_OR_RETURN(SimDeviceClass c, p.device_class((*devs)[i], str_cat("devices[", i, "]")));
    for (const SimDeviceClass& o : prof.classes)
      if (o.name == c.name) return p.bad(str_cat("devices[", i, "]"), str_cat("class '", c.name, "' listed twice"));
    total += c.count;
    prof.classes.push_back(std::move(c));
  }
  if (prof.classes[0].kind != DeviceKind::kCpu)
    return p.bad("devices[0]", "must be a cpu class: the host, where inputs and outputs live");
  if (static_cast<int64_t>(total) * prof.nodes > kMaxDevices)
    return p.bad("devices", str_cat("more than ", kMaxDevices, " devices in all (", total, " per node x ", prof.nodes, " nodes)"));

  auto costs = doc.find("costs");
  if (costs == doc.end() || !costs->is_array() || costs->size() > kMaxCosts)
    return p.bad("costs", str_cat("must be an array of at most ", kMaxCosts, " entries"));
  for (size_t i = 0; i < costs->size(); ++i) {
    const std::string where = str_cat("costs[", i, "]");
    const json& e = (*costs)[i];
    if (!e.is_object()) return p.bad(where, "must be an object");
    ASSIGN_OR_RETURN(std::string cls, p.name(e, "class", where));
    auto c = std::find_if(prof.classes.begin(), prof.classes.end(), [&](const SimDeviceClass& d) { return d.name == cls; });
    if (c == prof.classes.end()) return p.bad(where, str_cat("unknown class '", cls, "'"));
    ASSIGN_OR_RETURN(SimCost cost, p.cost(e, where));
    for (const SimCost& o : c->costs)
      if (o.op == cost.op) return p.bad(where, str_cat("op '", cost.op, "' of class '", cls, "' listed twice"));
    c->costs.push_back(std::move(cost));
  }
  for (const SimDeviceClass& c : prof.classes)
    if (std::none_of(c.costs.begin(), c.costs.end(), [](const SimCost& x) { return x.op == "*"; }))
      return p.bad("costs", str_cat("class '", c.name, "' has no \"*\" entry (the cost of ops it does not list)"));

  auto links = doc.find("links");
  if (links != doc.end()) {
    if (!links->is_array() || links->size() > kMaxCosts) return p.bad("links", "must be an array");
    for (size_t i = 0; i < links->size(); ++i) {
      ASSIGN_OR_RETURN(SimLink l, p.link((*links)[i], str_cat("links[", i, "]")));
      for (const std::string& c : {l.from, l.to})
        if (c != "*" && std::none_of(prof.classes.begin(), prof.classes.end(), [&](const SimDeviceClass& d) { return d.name == c; }))
          return p.bad(str_cat("links[", i, "]"), str_cat("unknown class '", c, "'"));
      prof.links.push_back(std::move(l));
    }
  }

  int ordinal[2] = {0, 0};  // next cpu, cuda ordinal
  for (int node = 0; node < prof.nodes; ++node)
    for (size_t c = 0; c < prof.classes.size(); ++c)
      for (int k = 0; k < prof.classes[c].count; ++k) {
        const int kind = prof.classes[c].kind == DeviceKind::kCpu ? 0 : 1;
        prof.devices.push_back({static_cast<int>(c), node, DeviceId{prof.classes[c].kind, static_cast<int16_t>(ordinal[kind]++)}});
      }
  const size_t n = prof.devices.size();
  prof.pair_link.assign(n * n, -1);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      const SimDeviceSpec &da = prof.devices[a], &db = prof.devices[b];
      const std::string &ca = prof.classes[static_cast<size_t>(da.cls)].name, &cb = prof.classes[static_cast<size_t>(db.cls)].name;
      const bool remote = da.node != db.node;
      const int l = find_link(prof.links, ca, cb, remote);
      if (l < 0)
        return p.bad("links", str_cat("no ", remote ? "remote" : "local", " link from class '", ca, "' to class '", cb,
                                      "' (needed for ", da.id.to_string(), " -> ", db.id.to_string(), ")"));
      prof.pair_link[a * n + b] = l;
    }
  return prof;
}

}  // namespace sy
