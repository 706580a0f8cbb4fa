#include "executor/control_flow.h"

#include <cstring>

#include "devices/host_allocator.h"
#include "executor/run_loop.h"

namespace sy {
namespace {

void copy_elements(void* dst, const void* src, int64_t count, DataType t) {
  if (count <= 0) return;
  if (t == DataType::kString) {
    auto* d = static_cast<std::string*>(dst);
    const auto* s = static_cast<const std::string*>(src);
    for (int64_t i = 0; i < count; ++i) d[i] = s[i];
  } else {
    std::memcpy(dst, src, static_cast<size_t>(count) * dtype_size(t));
  }
}

// `t`, or its copy in host memory if the host cannot read it where it is
// (a GPU's): what the control-flow code reads or copies with the CPU.
StatusOr<Tensor> on_host(RunLoop& loop, const Tensor& t) {
  if (t.space().is_host_accessible()) return t;
  return loop.copy_to_host(t);
}

// The one-element tensor behind a control-flow scalar (If/Loop condition,
// trip count), brought to the host if it lives elsewhere.
StatusOr<Tensor> host_scalar(RunLoop& loop, const RuntimeValue& v, const Node& node, const char* what) {
  if (!v.is_tensor()) return InvalidArgument(node.describe(), ": ", what, " is not a tensor");
  const Tensor& t = v.tensor();
  if (t.numel() != 1) return InvalidArgument(node.describe(), ": ", what, " must have one element, has shape ", t.dims().to_string());
  return on_host(loop, t);
}

// Scan outputs are gathered on the host: the parts of a body that ran on a
// GPU come over one by one, after the last iteration (the stacked result
// goes wherever its consumer runs, like any host value).
StatusOr<Tensor> stack_on_host(RunLoop& loop, std::vector<Tensor>& parts, int64_t axis, DataType dtype_if_empty,
                               const Dims& item_dims_if_empty) {
  for (Tensor& p : parts) {
    ASSIGN_OR_RETURN(p, on_host(loop, p));
  }
  return stack_along(parts, axis, dtype_if_empty, item_dims_if_empty);
}

StatusOr<bool> read_bool(RunLoop& loop, const RuntimeValue& v, const Node& node, const char* what) {
  ASSIGN_OR_RETURN(Tensor t, host_scalar(loop, v, node, what));
  if (t.dtype() == DataType::kString) return InvalidArgument(node.describe(), ": ", what, " must be boolean");
  return t.double_at(0) != 0;
}

StatusOr<int64_t> read_int(RunLoop& loop, const RuntimeValue& v, const Node& node, const char* what) {
  ASSIGN_OR_RETURN(Tensor t, host_scalar(loop, v, node, what));
  if (!dtype_is_integer(t.dtype())) return InvalidArgument(node.describe(), ": ", what, " must be an integer");
  return t.int_at(0);
}

Frame& child_frame(ControlState& st, int idx, const ExecutionPlan& plan, Frame& parent, NodeId n) {
  if (!st.child[idx]) st.child[idx] = std::make_unique<Frame>(plan, &parent, n);
  return *st.child[idx];
}

ControlState& state_of(Frame& frame, NodeId n) {
  auto& s = frame.control(n);
  if (!s) s = std::make_unique<ControlState>();
  return *s;
}

void set_output(Frame& frame, const Node& node, size_t i, RuntimeValue v) {
  if (i < node.outputs.size() && node.outputs[i] != kNoValue) frame.value(node.outputs[i]) = std::move(v);
}

// Declared dims of a body output when all are known (else empty), so a
// zero-iteration Loop or Scan can still give its scan output the right shape.
Dims declared_dims(const Graph& body, size_t output_index) {
  const TypeInfo& t = body.value(body.outputs()[output_index]).type;
  Dims d;
  if (t.kind != TypeInfo::Kind::kTensor || !t.has_shape) return d;
  for (const Dim& dim : t.shape) {
    if (!dim.known()) return Dims();
    d.push_back(dim.value);
  }
  return d;
}

DataType declared_elem(const Graph& body, size_t output_index) {
  const TypeInfo& t = body.value(body.outputs()[output_index]).type;
  return t.kind == TypeInfo::Kind::kTensor && t.elem != DataType::kUndefined ? t.elem : DataType::kFloat;
}

// Drops the child's references once a control node is finished, so values
// (including captured outer values) are not kept alive by an idle frame.
void release_child(ControlState& st) {
  for (auto& c : st.child)
    if (c)
      for (auto& v : c->values()) v.reset();
  st.carried.clear();
  st.scan_inputs.clear();
  st.scans.clear();
  st.batch_outputs.clear();
  st.sequence_lens.reset();
}

// ---- Loop -------------------------------------------------------------------

Status loop_next(RunLoop& loop, Frame& frame, NodeId n, ControlState& st) {
  const Node& node = frame.graph().node(n);
  const NodePlan& np = frame.plan().node(n);
  if ((st.trip_count >= 0 && st.iter >= st.trip_count) || !st.cond) {
    const Graph& body = np.subplans[0]->graph();
    const size_t carried = st.carried.size();
    for (size_t i = 0; i < carried; ++i) set_output(frame, node, i, std::move(st.carried[i]));
    for (size_t k = 0; k < st.scans.size(); ++k) {
      const size_t out = 1 + carried + k;
      ASSIGN_OR_RETURN(Tensor t,
                       stack_on_host(loop, st.scans[k], 0, declared_elem(body, out), declared_dims(body, out)));
      set_output(frame, node, carried + k, RuntimeValue(std::move(t)));
    }
    release_child(st);
    loop.finish_node(frame, n);
    return OkStatus();
  }
  Frame& child = child_frame(st, 0, *np.subplans[0], frame, n);
  child.reset();
  const auto& in = child.graph().inputs();
  ASSIGN_OR_RETURN(Tensor it, Tensor::host(DataType::kInt64, Dims{}));
  *it.data<int64_t>() = st.iter;
  ASSIGN_OR_RETURN(Tensor c, Tensor::host(DataType::kBool, Dims{}));
  *c.data<bool>() = st.cond;
  child.value(in[0]) = RuntimeValue(std::move(it));
  child.value(in[1]) = RuntimeValue(std::move(c));
  for (size_t i = 0; i < st.carried.size(); ++i) child.value(in[2 + i]) = st.carried[i];
  loop.start_frame(child);
  return OkStatus();
}

Status loop_start(RunLoop& loop, Frame& frame, NodeId n) {
  const Node& node = frame.graph().node(n);
  ControlState& st = state_of(frame, n);
  st.iter = 0;
  st.trip_count = -1;
  st.cond = true;
  if (node.has_input(0) && !frame.value(node.inputs[0]).is_none()) {
    ASSIGN_OR_RETURN(st.trip_count, read_int(loop, frame.value(node.inputs[0]), node, "trip count M"));
    if (st.trip_count < 0) st.trip_count = 0;
  }
  if (node.has_input(1) && !frame.value(node.inputs[1]).is_none()) {
    ASSIGN_OR_RETURN(st.cond, read_bool(loop, frame.value(node.inputs[1]), node, "cond"));
  }
  const size_t carried = node.inputs.size() - 2;
  st.carried.assign(carried, RuntimeValue());
  for (size_t i = 0; i < carried; ++i)
    if (node.inputs[2 + i] != kNoValue) st.carried[i] = frame.value(node.inputs[2 + i]);
  const Graph& body = frame.plan().node(n).subplans[0]->graph();
  st.scans.assign(body.outputs().size() - 1 - carried, {});
  return loop_next(loop, frame, n, st);
}

Status loop_body_done(RunLoop& loop, Frame& frame, NodeId n, ControlState& st, Frame& child) {
  const Node& node = frame.graph().node(n);
  const auto& out = child.graph().outputs();
  ASSIGN_OR_RETURN(st.cond, read_bool(loop, child.value(out[0]), node, "body condition output"));
  for (size_t i = 0; i < st.carried.size(); ++i) st.carried[i] = child.value(out[1 + i]);
  for (size_t k = 0; k < st.scans.size(); ++k) {
    const RuntimeValue& v = child.value(out[1 + st.carried.size() + k]);
    if (!v.is_tensor()) return InvalidArgument(node.describe(), ": scan output ", k, " of the body is not a tensor");
    if (!st.scans[k].empty() && st.scans[k][0].dims() != v.tensor().dims())
      return InvalidArgument(node.describe(), ": scan output ", k, " changes shape from ", st.scans[k][0].dims().to_string(),
                             " to ", v.tensor().dims().to_string(), " at iteration ", st.iter);
    st.scans[k].push_back(v.tensor());
  }
  ++st.iter;
  loop.count_iteration();
  return loop_next(loop, frame, n, st);
}

// ---- Scan -------------------------------------------------------------------

ScanAttrs scan_attrs(const Node& node) {
  ScanAttrs a;
  a.v8 = node.opset < 9;
  size_t offset = a.v8 ? 1 : 0;  // opset 8: first input is sequence_lens
  a.num_scan = static_cast<size_t>(node.attr_int("num_scan_inputs", 1));
  a.num_state = node.inputs.size() - offset - a.num_scan;
  a.in_dirs = node.attr_ints(a.v8 ? "directions" : "scan_input_directions", std::vector<int64_t>(a.num_scan, 0));
  a.in_axes = node.attr_ints("scan_input_axes", std::vector<int64_t>(a.num_scan, 0));
  size_t num_out_scan = node.outputs.size() - a.num_state;
  a.out_axes = node.attr_ints("scan_output_axes", std::vector<int64_t>(num_out_scan, 0));
  a.out_dirs = node.attr_ints("scan_output_directions", std::vector<int64_t>(num_out_scan, 0));
  return a;
}

Status scan_next(RunLoop& loop, Frame& frame, NodeId n, ControlState& st);

// Starts the sequence loop for batch st.batch (opset 8) or the only batch.
Status scan_begin_batch(RunLoop& loop, Frame& frame, NodeId n, ControlState& st) {
  const Node& node = frame.graph().node(n);
  const ScanAttrs& a = st.scan;
  const size_t offset = a.v8 ? 1 : 0;
  if (a.in_axes.size() != a.num_scan || a.in_dirs.size() != a.num_scan)
    return InvalidArgument(node.describe(), ": scan input axes/directions must have ", a.num_scan, " entries");
  st.carried.assign(a.num_state, RuntimeValue());
  st.scan_inputs.assign(a.num_scan, RuntimeValue());
  for (size_t i = 0; i < a.num_state + a.num_scan; ++i) {
    const RuntimeValue& v = frame.value(node.inputs[offset + i]);
    if (!v.is_tensor()) return InvalidArgument(node.describe(), ": input ", offset + i, " must be a tensor");
    Tensor t = v.tensor();
    if (a.v8) {
      if (t.rank() < 1) return InvalidArgument(node.describe(), ": opset-8 Scan inputs need a batch dimension");
      ASSIGN_OR_RETURN(t, slice_along(t, 0, st.batch));
    }
    if (i < a.num_state) st.carried[i] = RuntimeValue(std::move(t));
    else st.scan_inputs[i - a.num_state] = RuntimeValue(std::move(t));
  }
  int64_t len = -1;
  for (size_t j = 0; j < a.num_scan; ++j) {
    const Tensor& t = st.scan_inputs[j].tensor();
    int64_t axis = a.in_axes[j] < 0 ? a.in_axes[j] + static_cast<int64_t>(t.rank()) : a.in_axes[j];
    if (axis < 0 || axis >= static_cast<int64_t>(t.rank()))
      return InvalidArgument(node.describe(), ": scan input axis ", a.in_axes[j], " out of range for shape ", t.dims().to_string());
    int64_t l = t.dim(static_cast<size_t>(axis));
    if (len >= 0 && l != len)
      return InvalidArgument(node.describe(), ": scan inputs have different sequence lengths (", len, " and ", l, ")");
    len = l;
    // A slice along a later axis is gathered by the host (slice_along), so
    // an input it cannot read comes over once for all iterations.
    int64_t outer = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= t.dim(static_cast<size_t>(i));
    if (outer > 1) {
      ASSIGN_OR_RETURN(Tensor host, on_host(loop, t));
      st.scan_inputs[j] = RuntimeValue(std::move(host));
    }
  }
  if (st.sequence_lens) {
    const Tensor& lens = *st.sequence_lens;
    if (st.batch < lens.numel()) {
      int64_t l = lens.int_at(st.batch);
      if (l < 0 || l > len) return OutOfRange(node.describe(), ": sequence_lens value ", l, " exceeds length ", len);
      len = l;
    }
  }
  // Every iteration's scan outputs are kept until the last. An empty scan
  // input (another axis 0) can claim 2^40 iterations while holding nothing.
  const size_t num_scans = node.outputs.size() - a.num_state;
  RETURN_IF_ERROR(
      check_host_table_bytes(static_cast<double>(len) * static_cast<double>(num_scans) * sizeof(Tensor),
                             node.describe() + ": the scan outputs of " + std::to_string(len) + " iterations"));
  st.trip_count = len;
  st.iter = 0;
  st.scans.assign(num_scans, {});
  return scan_next(loop, frame, n, st);
}

Status scan_start(RunLoop& loop, Frame& frame, NodeId n) {
  const Node& node = frame.graph().node(n);
  ControlState& st = state_of(frame, n);
  st.scan = scan_attrs(node);
  const ScanAttrs& a = st.scan;
  st.batch = 0;
  st.num_batches = 1;
  if (a.v8) {
    const RuntimeValue& first = frame.value(node.inputs[1]);
    if (!first.is_tensor() || first.tensor().rank() < 1)
      return InvalidArgument(node.describe(), ": opset-8 Scan inputs need a batch dimension");
    st.num_batches = first.tensor().dim(0);
  }
  st.sequence_lens.reset();
  if (a.v8 && node.has_input(0)) {
    const RuntimeValue& v = frame.value(node.inputs[0]);
    if (!v.is_tensor()) return InvalidArgument(node.describe(), ": sequence_lens must be a tensor");
    ASSIGN_OR_RETURN(st.sequence_lens, on_host(loop, v.tensor()));
  }
  st.batch_outputs.assign(node.outputs.size(), {});
  return scan_begin_batch(loop, frame, n, st);
}

Status scan_finish_batch(RunLoop& loop, Frame& frame, NodeId n, ControlState& st) {
  const Node& node = frame.graph().node(n);
  const ScanAttrs& a = st.scan;
  const Graph& body = frame.plan().node(n).subplans[0]->graph();
  for (size_t i = 0; i < a.num_state; ++i) st.batch_outputs[i].push_back(st.carried[i]);
  for (size_t k = 0; k < st.scans.size(); ++k) {
    auto& parts = st.scans[k];
    if (k < a.out_dirs.size() && a.out_dirs[k] == 1) std::reverse(parts.begin(), parts.end());
    int64_t axis = k < a.out_axes.size() ? a.out_axes[k] : 0;
    // No iterations (a scan axis of 0): the body's declared output shape,
    // as for a Loop of no trips, so that [0, D] is not reported as [0].
    const Dims empty_item = parts.empty() ? declared_dims(body, a.num_state + k) : Dims{};
    const int64_t item_rank = static_cast<int64_t>(parts.empty() ? empty_item.size() : parts[0].rank());
    if (axis < 0) axis += item_rank + 1;
    if (axis < 0 || axis > item_rank)
      return InvalidArgument(node.describe(), ": scan output axis ", axis, " out of range");
    ASSIGN_OR_RETURN(Tensor t, stack_on_host(loop, parts, axis, declared_elem(body, a.num_state + k), empty_item));
    st.batch_outputs[a.num_state + k].push_back(RuntimeValue(std::move(t)));
  }
  if (++st.batch < st.num_batches) return scan_begin_batch(loop, frame, n, st);
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    auto& parts = st.batch_outputs[i];
    if (!a.v8) {
      set_output(frame, node, i, std::move(parts[0]));
      continue;
    }
    std::vector<Tensor> ts;
    for (auto& p : parts) ts.push_back(p.tensor());
    ASSIGN_OR_RETURN(Tensor t, stack_on_host(loop, ts, 0, declared_elem(body, i), Dims{}));
    set_output(frame, node, i, RuntimeValue(std::move(t)));
  }
  release_child(st);
  loop.finish_node(frame, n);
  return OkStatus();
}

Status scan_next(RunLoop& loop, Frame& frame, NodeId n, ControlState& st) {
  if (st.iter >= st.trip_count) return scan_finish_batch(loop, frame, n, st);
  const ScanAttrs& a = st.scan;
  Frame& child = child_frame(st, 0, *frame.plan().node(n).subplans[0], frame, n);
  child.reset();
  const auto& in = child.graph().inputs();
  for (size_t i = 0; i < a.num_state; ++i) child.value(in[i]) = st.carried[i];
  for (size_t j = 0; j < a.num_scan; ++j) {
    const Tensor& t = st.scan_inputs[j].tensor();
    int64_t axis = a.in_axes[j] < 0 ? a.in_axes[j] + static_cast<int64_t>(t.rank()) : a.in_axes[j];
    int64_t idx = a.in_dirs[j] == 1 ? st.trip_count - 1 - st.iter : st.iter;
    ASSIGN_OR_RETURN(Tensor s, slice_along(t, axis, idx));
    child.value(in[a.num_state + j]) = RuntimeValue(std::move(s));
  }
  loop.start_frame(child);
  return OkStatus();
}

Status scan_body_done(RunLoop& loop, Frame& frame, NodeId n, ControlState& st, Frame& child) {
  const Node& node = frame.graph().node(n);
  const auto& out = child.graph().outputs();
  const size_t ns = st.carried.size();
  for (size_t i = 0; i < ns; ++i) st.carried[i] = child.value(out[i]);
  for (size_t k = 0; k < st.scans.size(); ++k) {
    const RuntimeValue& v = child.value(out[ns + k]);
    if (!v.is_tensor()) return InvalidArgument(node.describe(), ": scan output ", k, " of the body is not a tensor");
    if (!st.scans[k].empty() && st.scans[k][0].dims() != v.tensor().dims())
      return InvalidArgument(node.describe(), ": scan output ", k, " changes shape between iterations");
    st.scans[k].push_back(v.tensor());
  }
  ++st.iter;
  loop.count_iteration();
  return scan_next(loop, frame, n, st);
}

// ---- SequenceMap --------------------------------------------------------------

Status seqmap_next(RunLoop& loop, Frame& frame, NodeId n, ControlState& st) {
  const Node& node = frame.graph().node(n);
  if (st.iter >= st.trip_count) {
    const Graph& body = frame.plan().node(n).subplans[0]->graph();
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      auto seq = std::make_shared<Sequence>();
      seq->elem = st.scans[k].empty() ? declared_elem(body, k) : st.scans[k][0].dtype();
      seq->items = std::move(st.scans[k]);
      set_output(frame, node, k, RuntimeValue(std::shared_ptr<const Sequence>(std::move(seq))));
    }
    release_child(st);
    loop.finish_node(frame, n);
    return OkStatus();
  }
  Frame& child = child_frame(st, 0, *frame.plan().node(n).subplans[0], frame, n);
  child.reset();
  const auto& in = child.graph().inputs();
  for (size_t j = 0; j < node.inputs.size(); ++j) {
    const RuntimeValue& v = frame.value(node.inputs[j]);
    child.value(in[j]) = v.is_sequence() ? RuntimeValue(v.sequence()->items[static_cast<size_t>(st.iter)]) : v;
  }
  loop.start_frame(child);
  return OkStatus();
}

Status seqmap_start(RunLoop& loop, Frame& frame, NodeId n) {
  const Node& node = frame.graph().node(n);
  ControlState& st = state_of(frame, n);
  const RuntimeValue& first = frame.value(node.inputs[0]);
  if (!first.is_sequence()) return InvalidArgument(node.describe(), ": input 0 must be a sequence");
  st.trip_count = static_cast<int64_t>(first.sequence()->items.size());
  for (size_t j = 1; j < node.inputs.size(); ++j) {
    const RuntimeValue& v = frame.value(node.inputs[j]);
    if (v.is_sequence() && static_cast<int64_t>(v.sequence()->items.size()) != st.trip_count)
      return InvalidArgument(node.describe(), ": input sequences have different lengths");
  }
  st.iter = 0;
  st.scans.assign(node.outputs.size(), {});
  return seqmap_next(loop, frame, n, st);
}

Status seqmap_body_done(RunLoop& loop, Frame& frame, NodeId n, ControlState& st, Frame& child) {
  const Node& node = frame.graph().node(n);
  const auto& out = child.graph().outputs();
  for (size_t k = 0; k < out.size(); ++k) {
    const RuntimeValue& v = child.value(out[k]);
    if (!v.is_tensor()) return InvalidArgument(node.describe(), ": body output ", k, " is not a tensor");
    st.scans[k].push_back(v.tensor());
  }
  ++st.iter;
  loop.count_iteration();
  return seqmap_next(loop, frame, n, st);
}

}  // namespace

StatusOr<Tensor> slice_along(const Tensor& t, int64_t axis, int64_t index) {
  if (axis < 0 || axis >= static_cast<int64_t>(t.rank()) || index < 0 || index >= t.dim(static_cast<size_t>(axis)))
    return OutOfRange("slice index ", index, " on axis ", axis, " of shape ", t.dims().to_string());
  Dims out = t.dims();
  out.erase(static_cast<size_t>(axis));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= t.dim(static_cast<size_t>(i));
  for (size_t i = static_cast<size_t>(axis) + 1; i < t.rank(); ++i) inner *= t.dim(i);
  const int64_t len = t.dim(static_cast<size_t>(axis));
  const size_t es = dtype_size(t.dtype());
  if (outer == 1 && t.dtype() != DataType::kString) {
    // A contiguous slab: share the buffer instead of copying.
    const size_t base = static_cast<size_t>(static_cast<const char*>(t.raw()) - static_cast<const char*>(t.buffer()->data));
    return Tensor(t.dtype(), std::move(out), t.buffer(), base + static_cast<size_t>(index * inner) * es);
  }
  ASSIGN_OR_RETURN(Tensor r, Tensor::host(t.dtype(), out));
  for (int64_t o = 0; o < outer; ++o)
    copy_elements(static_cast<char*>(r.raw()) + static_cast<size_t>(o * inner) * es,
                  static_cast<const char*>(t.raw()) + static_cast<size_t>((o * len + index) * inner) * es, inner, t.dtype());
  return r;
}

StatusOr<Tensor> stack_along(const std::vector<Tensor>& parts, int64_t axis, DataType dtype_if_empty,
                             const Dims& item_dims_if_empty) {
  if (parts.empty()) {
    Dims d = item_dims_if_empty;
    d.insert(static_cast<size_t>(std::min<int64_t>(axis, static_cast<int64_t>(d.size()))), 0);
    return Tensor::host(dtype_if_empty, d);
  }
  const Dims& item = parts[0].dims();
  const DataType dt = parts[0].dtype();
  Dims out = item;
  out.insert(static_cast<size_t>(axis), static_cast<int64_t>(parts.size()));
  ASSIGN_OR_RETURN(Tensor r, Tensor::host(dt, out));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= item[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(axis); i < item.size(); ++i) inner *= item[i];
  const size_t es = dtype_size(dt);
  const int64_t n = static_cast<int64_t>(parts.size());
  for (int64_t p = 0; p < n; ++p) {
    const Tensor& src = parts[static_cast<size_t>(p)];
    if (src.dims() != item || src.dtype() != dt)
      return InvalidArgument("cannot stack ", src.describe(), " with ", parts[0].describe());
    for (int64_t o = 0; o < outer; ++o)
      copy_elements(static_cast<char*>(r.raw()) + static_cast<size_t>((o * n + p) * inner) * es,
                    static_cast<const char*>(src.raw()) + static_cast<size_t>(o * inner) * es, inner, dt);
  }
  return r;
}

Status ControlFlow::start(RunLoop& loop, Frame& frame, NodeId n) {
  const NodePlan& np = frame.plan().node(n);
  const Node& node = frame.graph().node(n);
  switch (np.kind) {
    case NodeKind::kIf: {
      if (!node.has_input(0)) return InvalidArgument(node.describe(), ": missing condition input");
      ASSIGN_OR_RETURN(bool cond, read_bool(loop, frame.value(node.inputs[0]), node, "condition"));
      ControlState& st = state_of(frame, n);
      st.active = cond ? 0 : 1;
      Frame& child = child_frame(st, st.active, *np.subplans[static_cast<size_t>(st.active)], frame, n);
      child.reset();
      loop.start_frame(child);
      return OkStatus();
    }
    case NodeKind::kLoop: return loop_start(loop, frame, n);
    case NodeKind::kScan: return scan_start(loop, frame, n);
    case NodeKind::kSequenceMap: return seqmap_start(loop, frame, n);
    case NodeKind::kKernel: break;
  }
  return Internal("not a control-flow node: ", node.describe());
}

Status ControlFlow::child_done(RunLoop& loop, Frame& parent, NodeId n, Frame& child) {
  ControlState& st = state_of(parent, n);
  const Node& node = parent.graph().node(n);
  switch (parent.plan().node(n).kind) {
    case NodeKind::kIf: {
      const auto& out = child.graph().outputs();
      for (size_t i = 0; i < out.size(); ++i) set_output(parent, node, i, child.value(out[i]));
      release_child(st);
      loop.finish_node(parent, n);
      return OkStatus();
    }
    case NodeKind::kLoop: return loop_body_done(loop, parent, n, st, child);
    case NodeKind::kScan: return scan_body_done(loop, parent, n, st, child);
    case NodeKind::kSequenceMap: return seqmap_body_done(loop, parent, n, st, child);
    case NodeKind::kKernel: break;
  }
  return Internal("not a control-flow node: ", node.describe());
}

}  // namespace sy
