#include "executor/frame.h"

#include <cstring>
#include <new>
#include <stdexcept>

#include "executor/control_flow.h"

namespace sy {

Frame::Frame(const ExecutionPlan& plan, Frame* parent, NodeId parent_node, int num_spaces)
    : plan_(plan), parent_(parent), parent_node_(parent_node), num_spaces_(parent ? parent->num_spaces_ : num_spaces) {
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
  if (num_spaces_ > 1) {
    replicas_.resize(g.num_values() * static_cast<size_t>(num_spaces_));
    copying_.assign(replicas_.size(), nullptr);
  }
}

Frame::~Frame() = default;

void Frame::reset() {
  const Graph& g = plan_.graph();
  for (size_t n = 0; n < pending_.size(); ++n) pending_[n] = plan_.nodes()[n].initial_pending;
  std::memcpy(uses_.data(), plan_.initial_uses().data(), uses_.size() * sizeof(int32_t));
  remaining_ = static_cast<int32_t>(pending_.size());
  for (auto& v : values_) v.reset();
  for (auto& v : replicas_) v.reset();
  for (const auto& [id, t] : plan_.initializers()) values_[id] = RuntimeValue(t);
  if (parent_) {
    for (ValueId c : g.captures()) values_[c] = parent_->value(g.value(c).outer);
  }
}

void Frame::clear_replicas(ValueId v) {
  RuntimeValue* r = &replicas_[static_cast<size_t>(v) * num_spaces_];
  for (int s = 0; s < num_spaces_; ++s) r[s].reset();
}

Frame* Frame::owner(ValueId* v) {
  Frame* f = this;
  while (f->parent_) {
    const ValueInfo& info = f->graph().value(*v);
    if (info.outer == kNoValue) break;
    *v = info.outer;
    f = f->parent_;
  }
  return f;
}

CopyTask* Frame::new_copy() {
  if (free_copies_.empty()) {
    copy_pool_.push_back(std::make_unique<CopyTask>());
    copy_pool_.back()->frame = this;
    return copy_pool_.back().get();
  }
  CopyTask* c = free_copies_.back();
  free_copies_.pop_back();
  return c;
}

void Frame::recycle(CopyTask* c) {
  c->src.reset();
  c->result.reset();
  c->waiters.clear();
  free_copies_.push_back(c);
}

int value_space(const RuntimeValue& v, const Topology& topology) {
  if (v.is_tensor()) {
    const int i = topology.index_of(v.tensor().space());
    return i < 0 ? -2 : i;
  }
  if (!v.is_sequence() || v.sequence()->items.empty()) return -1;
  const auto& items = v.sequence()->items;
  const MemorySpace s = items[0].space();
  for (const Tensor& t : items)
    if (!(t.space() == s)) return -2;
  const int i = topology.index_of(s);
  return i < 0 ? -2 : i;
}

Status CopyTask::execute(Device& device) {
  ASSIGN_OR_RETURN(result, copy_value(src, to_space, [&](const Tensor& t) { return device.copy(t, to_space); }));
  return OkStatus();
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
  if (!staged.empty()) {
    in = staged.data();
  } else {
    if (n.inputs.size() > kInline) {
      in_heap.resize(n.inputs.size());
      in = in_heap.data();
    }
    for (size_t i = 0; i < n.inputs.size(); ++i)
      in[i] = n.inputs[i] == kNoValue ? nullptr : &frame->value(n.inputs[i]);
  }
  if (n.outputs.size() > kInline) {
    out_heap.resize(n.outputs.size());
    out = out_heap.data();
  }
  for (size_t i = 0; i < n.outputs.size(); ++i)
    out[i] = n.outputs[i] == kNoValue ? nullptr : &frame->value(n.outputs[i]);
  KernelContext ctx(n, device, {in, n.inputs.size()}, {out, n.outputs.size()}, frame->plan().node(node).constant_inputs,
                    donated);
  ctx.set_resume(&resume);
  // Kernels size their working memory (index tables, scratch) from the
  // shapes they are given, which a model or its inputs can make huge while
  // holding no data: an empty tensor may claim 2^40 rows. Plans that can
  // size up their tables first do (check_host_table_bytes). This is the net
  // under the rest: a request the host cannot meet fails the node with a
  // status rather than unwinding through the run loop.
  try {
    return kernel->compute(ctx);
  } catch (const std::bad_alloc&) {
    return ResourceExhausted("out of host memory: these input shapes need more working memory than can be allocated");
  } catch (const std::length_error&) {
    return ResourceExhausted("these input shapes need a working table longer than can be allocated");
  }
}

}  // namespace sy
