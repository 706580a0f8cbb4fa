#include "executor/decision_log.h"

#include <nlohmann/json.hpp>

namespace sy {

DecisionLog::DecisionLog(std::vector<std::string> device_names, std::string policy)
    : devices_(std::move(device_names)), policy_(std::move(policy)) {}

Status DecisionLog::open(const std::string& path) {
  out_ = std::fopen(path.c_str(), "w");
  if (!out_) return InvalidArgument("cannot write decisions '", path, "'");
  return OkStatus();
}

void DecisionLog::on_decision(const PlacementRequest& r, const PlacementDecision& d) {
  nlohmann::json j;
  j["graph"] = r.graph->name();
  j["depth"] = r.depth;
  j["node"] = r.node->name.empty() ? r.node->describe() : r.node->name;
  j["op"] = r.node->op_type;
  j["policy"] = policy_;
  const Candidate& chosen = r.candidates[static_cast<size_t>(d.candidate)];
  j["device"] = devices_[static_cast<size_t>(chosen.device_index)];
  j["reason"] = d.reason ? d.reason : "";
  nlohmann::json ins = nlohmann::json::array();
  for (const InputInfo& in : r.inputs) ins.push_back({{"at", in.location.to_string()}, {"bytes", in.bytes}});
  j["inputs"] = std::move(ins);
  nlohmann::json cands = nlohmann::json::array();
  for (const Candidate& c : r.candidates) {
    cands.push_back({{"device", devices_[static_cast<size_t>(c.device_index)]},
                     {"compute_us", c.predicted_compute_us},
                     {"transfer_us", c.predicted_transfer_us},
                     {"backlog_us", c.backlog_us},
                     {"issue_us", c.issue_us},
                     {"output_transfer_us", c.output_transfer_us},
                     {"finish_us", c.finish_us()}});
  }
  j["candidates"] = std::move(cands);
  const std::string line = j.dump() + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  if (out_) std::fwrite(line.data(), 1, line.size(), out_);
  ++lines_;
}

Status DecisionLog::close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!out_) return OkStatus();
  const bool bad = std::ferror(out_) != 0;
  std::fclose(out_);
  out_ = nullptr;
  if (bad) return RuntimeError("writing the decision log failed");
  return OkStatus();
}

size_t DecisionLog::lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

}  // namespace sy
