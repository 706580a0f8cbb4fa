#include "cli/case_runner.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cli/tensor_io.h"
#include "ir/onnx_loader.h"

namespace sy {
namespace fs = std::filesystem;

std::vector<fs::path> numbered_files(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  // input_10 must come after input_9: sort by the numeric suffix.
  auto num = [&](const fs::path& p) {
    std::string s = p.stem().string().substr(prefix.size());
    return std::atoi(s.c_str());
  };
  std::sort(out.begin(), out.end(), [&](const fs::path& a, const fs::path& b) { return num(a) < num(b); });
  return out;
}

std::map<std::string, std::string> load_exclusions(const std::string& path, bool required, std::string* err) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  std::ifstream in(path);
  // A folder opens as a stream that reads as empty.
  if (!in || !fs::is_regular_file(path, ec)) {
    if (required)
      *err = "cannot read exclusion list '" + path + "'" + (fs::exists(path, ec) ? ": not a regular file" : "");
    return out;
  }
  std::string line;
  while (std::getline(in, line)) {
    auto hash = line.find('#');
    if (hash == 0) continue;
    std::istringstream ls(line);
    std::string name;
    if (!(ls >> name)) continue;
    std::string reason;
    std::getline(ls, reason);
    reason.erase(0, reason.find_first_not_of(" \t"));
    out[name] = reason.empty() ? "excluded" : reason;
  }
  if (in.bad() && required) *err = "cannot read exclusion list '" + path + "'";
  return out;
}

namespace {
// ONNX's backend test data stores bfloat16 tensors as uint16 protos (same
// bits). Reinterpret them when the model declares bfloat16.
RuntimeValue as_declared(RuntimeValue v, const TypeInfo& declared) {
  if (v.is_tensor() && declared.kind == TypeInfo::Kind::kTensor && declared.elem == DataType::kBFloat16 &&
      v.tensor().dtype() == DataType::kUInt16) {
    const Tensor& t = v.tensor();
    return RuntimeValue(Tensor(DataType::kBFloat16, t.dims(), t.buffer()));
  }
  return v;
}

}  // namespace

CaseResult run_test_case(const std::string& dir, const SessionOptions& options, const Tolerance& tol) {
  CaseResult r;
  auto fail = [&](CaseResult::Outcome o, std::string reason) {
    r.outcome = o;
    r.reason = std::move(reason);
    return r;
  };
  fs::path model_path = fs::path(dir) / "model.onnx";
  auto model = OnnxLoader().load_file(model_path.string());
  if (!model.ok()) return fail(CaseResult::Outcome::kError, "load: " + model.status().message());
  std::set<std::string> ops;
  for (const Node& n : (*model)->graph->nodes()) ops.insert(n.op_type);
  r.ops.assign(ops.begin(), ops.end());
  std::shared_ptr<const Model> shared(std::move(model).value());
  auto session = Session::create(shared, options);
  if (!session.ok()) return fail(CaseResult::Outcome::kError, "plan: " + session.status().message());
  const Graph& g = *shared->graph;
  auto sets = numbered_files(dir, "test_data_set_");
  if (sets.empty()) return fail(CaseResult::Outcome::kError, "no test_data_set_* folders in " + dir);
  for (const auto& set : sets) {
    std::map<std::string, RuntimeValue> inputs;
    auto in_files = numbered_files(set, "input_");
    for (size_t i = 0; i < in_files.size(); ++i) {
      if (i >= g.inputs().size()) return fail(CaseResult::Outcome::kError, "more input files than model inputs");
      // Input files follow the graph's input order; the name in the proto
      // (when present) takes precedence.
      std::string name;
      auto v = read_value_file(in_files[i].string(), &g.value(g.inputs()[i]).type, &name);
      if (!v.ok()) return fail(CaseResult::Outcome::kError, v.status().message());
      if (name.empty() || !g.find_value(name)) name = g.value(g.inputs()[i]).name;
      inputs[name] = as_declared(std::move(v).value(), g.value(*g.find_value(name)).type);
    }
    auto result = (*session)->run(inputs);
    if (!result.ok()) return fail(CaseResult::Outcome::kFail, "run: " + result.status().message());
    const auto& devices = (*session)->devices();
    r.placed.resize(devices.size());
    for (size_t d = 0; d < devices.size() && d < result->stats.nodes_per_device.size(); ++d) {
      r.placed[d].first = devices[d]->info().name;
      r.placed[d].second += result->stats.nodes_per_device[d];
    }
    auto out_files = numbered_files(set, "output_");
    if (out_files.size() != result->outputs.size())
      return fail(CaseResult::Outcome::kFail, "model has " + std::to_string(result->outputs.size()) + " outputs, reference has " +
                                                  std::to_string(out_files.size()));
    for (size_t i = 0; i < out_files.size(); ++i) {
      auto want = read_value_file(out_files[i].string(), &g.value(g.outputs()[i]).type);
      if (!want.ok()) return fail(CaseResult::Outcome::kError, want.status().message());
      std::string diff = compare_values(result->outputs[i], as_declared(*want, g.value(g.outputs()[i]).type), tol);
      if (!diff.empty())
        return fail(CaseResult::Outcome::kFail, set.filename().string() + " output '" + g.value(g.outputs()[i]).name + "': " + diff);
    }
  }
  r.outcome = CaseResult::Outcome::kPass;
  return r;
}

}  // namespace sy
