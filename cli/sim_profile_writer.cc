#include "cli/sim_profile_writer.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace sy {
namespace {

using ojson = nlohmann::ordered_json;

bool compute_bound(const std::string& op) { return op == "MatMul" || op == "Gemm" || op == "Conv"; }

// Least squares time = a + b * work weighted by 1 / time^2, so that the
// relative error counts: otherwise the largest sizes (cache misses, tens of
// ms) decide the intercept and every small kernel is predicted far too
// slow. b >= 0 and a >= 0: more work is never faster, and nothing is free.
void fit(const std::vector<std::pair<double, double>>& pts, double* a, double* b) {
  double sw = 0, mx = 0, my = 0;
  for (auto [x, y] : pts) {
    const double w = 1 / std::max(y * y, 1e-6);
    sw += w;
    mx += w * x;
    my += w * y;
  }
  mx /= sw;
  my /= sw;
  double sxx = 0, sxy = 0;
  for (auto [x, y] : pts) {
    const double w = 1 / std::max(y * y, 1e-6);
    sxx += w * (x - mx) * (x - mx);
    sxy += w * (x - mx) * (y - my);
  }
  *b = sxx > 0 ? std::max(sxy / sxx, 0.0) : 0;
  *a = std::max(my - *b * mx, 0.0);
}

}  // namespace

Status write_sim_profile(const std::string& path, const MeasuredMachine& m) {
  const auto class_of = [&](int d) { return std::string(device_kind_name(m.devices[static_cast<size_t>(d)]->id().kind)); };
  ojson devices = ojson::array(), costs = ojson::array(), links = ojson::array();
  std::map<std::string, std::vector<int>> members;
  std::vector<std::string> order;
  for (size_t d = 0; d < m.devices.size(); ++d) {
    const std::string c = class_of(static_cast<int>(d));
    if (!members.count(c)) order.push_back(c);
    members[c].push_back(static_cast<int>(d));
  }
  // The host class first: the schema wants cpu:0 to be devices[0].
  std::stable_sort(order.begin(), order.end(), [](const std::string& x, const std::string& y) { return x == "cpu" && y != "cpu"; });
  for (const std::string& c : order) {
    const std::vector<int>& ds = members[c];
    const Device& first = *m.devices[static_cast<size_t>(ds[0])];
    double launch = 0;
    for (int d : ds) launch += m.launch_us[static_cast<size_t>(d)] / static_cast<double>(ds.size());
    devices.push_back({{"class", c},
                       {"kind", c},
                       {"count", ds.size()},
                       {"memory_gb", static_cast<double>(first.info().memory_bytes) / 1e9},
                       {"queues", 1},
                       {"copy_queues", 1},
                       {"launch_us", launch},
                       {"threads", first.info().threads}});
    // op -> work -> times measured on the class's devices
    std::map<std::string, std::map<double, std::vector<double>>> by_op;
    for (const MeasuredKernel& k : m.kernels)
      if (class_of(k.device) == c && k.median_us > 0) by_op[k.op][k.work].push_back(k.median_us);
    std::vector<std::pair<double, double>> generic;
    for (const auto& [op, by_work] : by_op) {
      std::vector<std::pair<double, double>> pts;
      for (const auto& [w, us] : by_work) {
        double mean = 0;
        for (double u : us) mean += u / static_cast<double>(us.size());
        pts.emplace_back(w, mean);
      }
      if (!compute_bound(op)) generic.insert(generic.end(), pts.begin(), pts.end());
      double a, b;
      fit(pts, &a, &b);
      ojson points = ojson::array();
      for (auto [w, us] : pts) points.push_back({w, us});
      costs.push_back({{"class", c}, {"op", op}, {"base_us", a}, {"us_per_work", b}, {"points", std::move(points)}});
    }
    double a = 1, b = 0.5e-3;  // the cost model's own guess when nothing was measured
    if (!generic.empty()) fit(generic, &a, &b);
    costs.push_back({{"class", c}, {"op", "*"}, {"base_us", a}, {"us_per_work", b}});
  }
  // Links between classes: the mean of the measured pairs.
  std::map<std::pair<std::string, std::string>, std::vector<Link>> by_pair;
  for (const MeasuredLink& l : m.links) {
    int from = -1, to = -1;
    for (size_t d = 0; d < m.devices.size(); ++d) {
      if (m.devices[d]->memory_space() == l.from) from = static_cast<int>(d);
      if (m.devices[d]->memory_space() == l.to) to = static_cast<int>(d);
    }
    if (from >= 0 && to >= 0) by_pair[{class_of(from), class_of(to)}].push_back(l.link);
  }
  for (const auto& [pair, ls] : by_pair) {
    double lat = 0, bw = 0;
    for (const Link& l : ls) {
      lat += l.latency_us / static_cast<double>(ls.size());
      bw += l.bandwidth_gbps / static_cast<double>(ls.size());
    }
    links.push_back({{"from", pair.first}, {"to", pair.second}, {"latency_us", lat}, {"bandwidth_gbps", std::max(bw, 1e-3)}});
  }
  ojson doc = {{"format", "switchyard-sim-profile"},
               {"version", 1},
               {"name", "measured machine"},
               {"source", m.source},
               {"devices", std::move(devices)},
               {"costs", std::move(costs)},
               {"links", std::move(links)}};
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return InvalidArgument("simulation profile '", path, "': cannot be written");
  out << doc.dump(1) << '\n';
  out.close();
  if (!out) return InvalidArgument("simulation profile '", path, "': write failed");
  return OkStatus();
}

}  // namespace sy
