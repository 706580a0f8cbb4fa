#include "executor/session.h"

#include <set>
#include <sstream>

#include "devices/cpu/cpu_device.h"

namespace sy {

StatusOr<std::vector<std::unique_ptr<Device>>> create_devices(const std::string& spec) {
  std::vector<std::unique_ptr<Device>> out;
  std::set<std::string> seen;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    std::string kind = item, ord = "0";
    if (auto c = item.find(':'); c != std::string::npos) {
      kind = item.substr(0, c);
      ord = item.substr(c + 1);
    }
    char* end = nullptr;
    long o = std::strtol(ord.c_str(), &end, 10);
    if (ord.empty() || *end != '\0' || o < 0 || o > 63) return InvalidArgument("bad device '", item, "': ordinal must be 0..63");
    if (!seen.insert(kind + ":" + std::to_string(o)).second) return InvalidArgument("device '", item, "' listed twice");
    if (kind == "cpu") {
      out.push_back(std::make_unique<CpuDevice>(static_cast<int>(o)));
    } else if (kind == "cuda") {
      return Unimplemented("device '", item, "': this build has no CUDA support");
    } else {
      return InvalidArgument("unknown device kind '", kind, "' in '", item, "' (known: cpu)");
    }
  }
  if (out.empty()) return InvalidArgument("no devices given");
  return out;
}

Session::~Session() = default;

StatusOr<std::unique_ptr<Session>> Session::create(std::shared_ptr<const Model> model, const SessionOptions& options) {
  if (!model || !model->graph) return InvalidArgument("no model");
  std::unique_ptr<Session> s(new Session());
  s->model_ = std::move(model);
  s->options_ = options;
  ASSIGN_OR_RETURN(s->devices_, create_devices(options.devices));
  for (auto& d : s->devices_) s->device_ptrs_.push_back(d.get());
  if (options.custom_policy) {
    s->policy_ = options.custom_policy;
  } else {
    ASSIGN_OR_RETURN(std::unique_ptr<PlacementPolicy> p, PolicyRegistry::builtin().create(options.policy, options.policy_options));
    s->policy_ = std::move(p);
  }
  const KernelRegistry& reg = options.registry ? *options.registry : KernelRegistry::builtin();
  auto plan = ExecutionPlan::build(*s->model_->graph, s->device_ptrs_, reg);
  if (!plan.ok()) return plan.status().with_context(s->model_->path);
  s->plan_ = std::move(plan).value();
  return s;
}

std::vector<std::string> Session::input_names() const {
  std::vector<std::string> out;
  for (ValueId v : model_->graph->inputs()) out.push_back(model_->graph->value(v).name);
  return out;
}

std::vector<std::string> Session::output_names() const {
  std::vector<std::string> out;
  for (ValueId v : model_->graph->outputs()) out.push_back(model_->graph->value(v).name);
  return out;
}

Status Session::check_input(const ValueInfo& info, const RuntimeValue& v, std::map<std::string, int64_t>& bound) const {
  const TypeInfo& t = info.type;
  if (t.kind == TypeInfo::Kind::kUnknown) return OkStatus();
  const TypeInfo* want = &t;
  if (t.kind == TypeInfo::Kind::kOptional) {
    if (v.is_none()) return OkStatus();
    want = t.inner.get();
    if (!want) return OkStatus();
  }
  if (want->kind == TypeInfo::Kind::kSequence) {
    if (!v.is_sequence()) return InvalidArgument("input '", info.name, "' must be a sequence (", t.to_string(), ")");
    return OkStatus();
  }
  if (want->kind != TypeInfo::Kind::kTensor) return OkStatus();
  if (!v.is_tensor()) return InvalidArgument("input '", info.name, "' must be a tensor (", t.to_string(), ")");
  const Tensor& x = v.tensor();
  if (want->elem != DataType::kUndefined && x.dtype() != want->elem)
    return InvalidArgument("input '", info.name, "' has type ", dtype_name(x.dtype()), " but the model expects ",
                           dtype_name(want->elem));
  if (!want->has_shape) return OkStatus();
  if (x.rank() != want->shape.size())
    return InvalidArgument("input '", info.name, "' has shape ", x.dims().to_string(), " but the model expects ",
                           want->to_string());
  for (size_t i = 0; i < x.rank(); ++i) {
    const Dim& d = want->shape[i];
    if (d.known() && d.value != x.dim(i))
      return InvalidArgument("input '", info.name, "' has shape ", x.dims().to_string(), " but the model expects ",
                             want->to_string());
    if (!d.known() && !d.symbol.empty()) {
      auto [it, fresh] = bound.emplace(d.symbol, x.dim(i));
      if (!fresh && it->second != x.dim(i))
        return InvalidArgument("input '", info.name, "' dimension ", i, " ('", d.symbol, "') is ", x.dim(i),
                               " but it is ", it->second, options_.dims.count(d.symbol) ? " (set by --dim)" : " elsewhere");
    }
  }
  return OkStatus();
}

Status Session::validate_inputs(const std::map<std::string, RuntimeValue>& inputs) const {
  const Graph& g = *model_->graph;
  std::map<std::string, int64_t> bound = options_.dims;
  size_t used = 0;
  for (ValueId id : g.inputs()) {
    const ValueInfo& info = g.value(id);
    auto it = inputs.find(info.name);
    if (it == inputs.end()) {
      if (info.initializer >= 0 || info.type.kind == TypeInfo::Kind::kOptional) continue;
      return InvalidArgument("missing input '", info.name, "' (", info.type.to_string(), ")");
    }
    RETURN_IF_ERROR(check_input(info, it->second, bound));
    ++used;
  }
  if (used != inputs.size()) {
    std::string known;
    for (ValueId id : g.inputs()) known += (known.empty() ? "" : ", ") + g.value(id).name;
    for (const auto& [name, v] : inputs) {
      auto id = g.find_value(name);
      if (!id || !g.value(*id).is_graph_input) return InvalidArgument("unknown input '", name, "' (model inputs: ", known, ")");
    }
  }
  return OkStatus();
}

StatusOr<RunResult> Session::run(const std::map<std::string, RuntimeValue>& inputs) const {
  const Clock& clock = options_.clock ? *options_.clock : SteadyClock::instance();
  const int64_t t0 = clock.now_ns();
  const Graph& g = *model_->graph;
  RETURN_IF_ERROR(validate_inputs(inputs));
  Frame root(*plan_, nullptr, -1);
  root.reset();
  for (ValueId id : g.inputs()) {
    auto it = inputs.find(g.value(id).name);
    if (it != inputs.end()) root.value(id) = it->second;
  }

  RunLoop loop(device_ptrs_, *policy_, clock);
  RETURN_IF_ERROR(loop.run(root));
  RunResult result;
  for (ValueId id : g.outputs()) {
    RuntimeValue v = root.value(id);
    if (v.is_tensor() && !v.tensor().space().is_host_accessible()) {
      ASSIGN_OR_RETURN(Tensor h, device_ptrs_[0]->copy(v.tensor(), kHostSpace));
      v = RuntimeValue(std::move(h));
    }
    result.outputs.push_back(std::move(v));
  }
  result.stats = loop.stats();
  result.latency_ns = clock.now_ns() - t0;
  return result;
}

}  // namespace sy
