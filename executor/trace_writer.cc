#include "executor/trace_writer.h"

#include <cstdio>
#include <fstream>

namespace sy {

TraceWriter::TraceWriter(std::vector<std::string> device_names) : devices_(std::move(device_names)) {}

double TraceWriter::rel_us(int64_t ns) {
  if (origin_ns_ < 0) origin_ns_ = ns;
  return static_cast<double>(ns - origin_ns_) * 1e-3;
}

void TraceWriter::on_kernel(const KernelEvent& e) {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json j;
  j["name"] = e.node->op_type;
  j["cat"] = "kernel";
  j["ph"] = "X";
  j["ts"] = rel_us(e.start_ns);
  j["dur"] = static_cast<double>(e.end_ns - e.start_ns) * 1e-3;
  j["pid"] = 1;
  j["tid"] = e.device_index * 2;
  j["args"] = {{"node", e.node->name.empty() ? e.node->describe() : e.node->name},
               {"op", e.node->op_type},
               {"graph", e.graph->name()},
               {"predicted_us", e.predicted_us},
               {"actual_us", static_cast<double>(e.end_ns - e.start_ns) * 1e-3}};
  events_.push_back(std::move(j));
  ++kernels_;
}

void TraceWriter::on_copy(const CopyEvent& e) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string value = e.graph->value(e.value).name;
  nlohmann::json j;
  j["name"] = "copy " + value;
  j["cat"] = "copy";
  j["ph"] = "X";
  j["ts"] = rel_us(e.start_ns);
  j["dur"] = static_cast<double>(e.end_ns - e.start_ns) * 1e-3;
  j["pid"] = 1;
  j["tid"] = e.device_index * 2 + 1;
  j["args"] = {{"value", value}, {"from", e.from.to_string()}, {"to", e.to.to_string()}, {"bytes", e.bytes}};
  events_.push_back(std::move(j));
  ++copies_;
}

nlohmann::json TraceWriter::to_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "switchyard"}}}});
  for (size_t d = 0; d < devices_.size(); ++d) {
    const int tid = static_cast<int>(d) * 2;
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid},
                      {"args", {{"name", devices_[d] + " compute"}}}});
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid + 1},
                      {"args", {{"name", devices_[d] + " copies"}}}});
  }
  for (const auto& e : events_) events.push_back(e);
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
}

Status TraceWriter::write(const std::string& path) const {
  std::ofstream out(path);
  if (!out) return InvalidArgument("cannot write trace '", path, "'");
  out << to_json().dump() << "\n";
  if (!out) return InvalidArgument("cannot write trace '", path, "'");
  return OkStatus();
}

size_t TraceWriter::num_kernels() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kernels_;
}

size_t TraceWriter::num_copies() const {
  std::lock_guard<std::mutex> lock(mu_);
  return copies_;
}

}  // namespace sy
