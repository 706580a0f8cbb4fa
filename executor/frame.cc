#include "executor/frame.h"

#include <cstring>

#include "executor/control_flow.h"

namespace sy {

Frame::Frame(const ExecutionPlan& plan, Frame* parent, NodeId parent_node)
    : plan_(plan), parent_(parent), parent_node_(parent_node) {
  const Graph& g = plan.graph();
  values_.resize(g.num_values());
  pending_.resize(g.nodes().size());
  uses_.resize(g.num_values());
  tasks_.resize(g.nodes().size());
  control_.resize(g.nodes().size());
  for (NodeId n = 0; n < static_cast<NodeId>(tasks_.size()); ++n) {
    tasks_[n].frame = this;
    tasks_[n].node = n;
  }
}

Frame::~Frame() = default;

void Frame::reset() {
  const Graph& g = plan_.graph();
  for (size_t n = 0; n < pending_.size(); ++n) pending_[n] = plan_.nodes()[n].initial_pending;
  std::memcpy(uses_.data(), plan_.initial_uses().data(), uses_.size() * sizeof(int32_t));
  remaining_ = static_cast<int32_t>(pending_.size());
  for (auto& v : values_) v.reset();
  for (const auto& [id, t] : plan_.initializers()) values_[id] = RuntimeValue(t);
  if (parent_) {
    for (ValueId c : g.captures()) values_[c] = parent_->value(g.value(c).outer);
  }
}

Status NodeTask::execute(Device& device) {
  const Node& n = frame->graph().node(node);
  // Inline pointer arrays: no allocation for ordinary arities.
  constexpr size_t kInline = 16;
  const RuntimeValue* in_inline[kInline];
  RuntimeValue* out_inline[kInline];
  std::vector<const RuntimeValue*> in_heap;
  std::vector<RuntimeValue*> out_heap;
  const RuntimeValue** in = in_inline;
  RuntimeValue** out = out_inline;
  if (n.inputs.size() > kInline) {
    in_heap.resize(n.inputs.size());
    in = in_heap.data();
  }
  if (n.outputs.size() > kInline) {
    out_heap.resize(n.outputs.size());
    out = out_heap.data();
  }
  for (size_t i = 0; i < n.inputs.size(); ++i) in[i] = n.inputs[i] == kNoValue ? nullptr : &frame->value(n.inputs[i]);
  for (size_t i = 0; i < n.outputs.size(); ++i)
    out[i] = n.outputs[i] == kNoValue ? nullptr : &frame->value(n.outputs[i]);
  KernelContext ctx(n, device, {in, n.inputs.size()}, {out, n.outputs.size()});
  return kernel->compute(ctx);
}

}  // namespace sy
