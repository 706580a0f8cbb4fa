#include "ir/onnx_loader.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <filesystem>
#include <fstream>
#include <queue>
#include <set>
#include <sstream>

#include "ir/channels_last.h"
#include "ir/isolated_inference.h"
#include "ir/op_fusion.h"
#include "ir/schema_registry.h"
#include "ir/tensor_proto.h"
#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"

namespace sy {
namespace fs = std::filesystem;

namespace {

// What a GraphBuilder does with the values of tensors (initializers and
// tensor attributes).
enum class TensorValues {
  kCheck,  // checks them, copies none: a graph to check the model with, not to run
  kCopy,   // copies them out of the proto
  kTake,   // copies each, then frees it in the proto, so the weights are never held twice
};

// Builds one Graph (and, recursively, its subgraphs) from a GraphProto.
class GraphBuilder {
 public:
  GraphBuilder(const Model& model, const LoadOptions& opt, const std::string& base_dir, TensorValues values)
      : model_(model), opt_(opt), base_dir_(base_dir), values_(values) {}

  Status build(onnx::GraphProto& gp, Graph& g, int depth) {
    if (depth > opt_.max_nesting_depth)
      return InvalidArgument("graph '", gp.name(), "': subgraph nesting depth exceeds the limit of ",
                             opt_.max_nesting_depth);
    // Inputs first; an initializer with the same name is the input's default.
    for (const auto& in : gp.input()) {
      if (in.name().empty()) return InvalidArgument("graph '", gp.name(), "' has an input with no name");
      if (g.find_value(in.name())) return InvalidArgument("graph '", gp.name(), "' declares input '", in.name(), "' twice");
      ValueInfo v;
      v.name = in.name();
      v.type = type_from_proto(in.type());
      v.is_graph_input = true;
      g.mutable_inputs().push_back(g.add_value(std::move(v)));
    }
    for (auto& init : *gp.mutable_initializer()) {
      auto t = read_tensor(init);
      if (!t.ok()) return t.status().with_context("graph '" + gp.name() + "': initializer '" + init.name() + "'");
      std::optional<ValueId> existing = g.find_value(init.name());
      if (existing && g.value(*existing).initializer >= 0)
        return InvalidArgument("graph '", gp.name(), "': initializer '", init.name(), "' is defined twice");
      ValueId id;
      if (existing) {
        id = *existing;
      } else {
        ValueInfo v;
        v.name = init.name();
        v.type.kind = TypeInfo::Kind::kTensor;
        v.type.elem = (*t)->dtype;
        id = g.add_value(std::move(v));
      }
      g.mutable_value(id).initializer = g.add_initializer(std::move(t).value());
      release(init);
    }
    if (gp.sparse_initializer_size() > 0)
      return Unimplemented("graph '", gp.name(), "': sparse initializers are not supported");
    std::map<std::string, TypeInfo> declared;
    for (const auto& vi : gp.value_info()) declared[vi.name()] = type_from_proto(vi.type());
    for (const auto& vi : gp.output()) declared[vi.name()] = type_from_proto(vi.type());

    // Pass 1: declare every node output so inputs may refer forward (the
    // cycle check below then reports real cycles, not file order).
    for (int ni = 0; ni < gp.node_size(); ++ni) {
      const auto& np = gp.node(ni);
      Node n;
      n.name = np.name();
      n.op_type = np.op_type();
      n.domain = np.domain() == "ai.onnx" ? "" : np.domain();
      Node& node = g.add_node(std::move(n));
      for (const auto& out : np.output()) {
        if (out.empty()) {
          node.outputs.push_back(kNoValue);
          continue;
        }
        if (std::optional<ValueId> prev = g.find_value(out)) {
          const ValueInfo& pv = g.value(*prev);
          std::string who = pv.producer >= 0 ? g.node(pv.producer).describe()
                                             : (pv.is_graph_input ? std::string("a graph input") : std::string("an initializer"));
          return InvalidArgument(node.describe(), ": output '", out, "' is already produced by ", who);
        }
        ValueInfo v;
        v.name = out;
        v.producer = node.id;
        if (auto it = declared.find(out); it != declared.end()) v.type = it->second;
        node.outputs.push_back(g.add_value(std::move(v)));
      }
    }
    // Pass 2: opsets, kernels' schemas, inputs, attributes and subgraphs.
    for (int ni = 0; ni < gp.node_size(); ++ni) {
      auto& np = *gp.mutable_node(ni);
      Node& node = g.mutable_node(ni);
      RETURN_IF_ERROR(resolve_op(node));
      for (const auto& in : np.input()) {
        if (in.empty()) {
          node.inputs.push_back(kNoValue);
          continue;
        }
        ASSIGN_OR_RETURN(ValueId id, resolve_name(g, in));
        if (id == kNoValue) return InvalidArgument(node.describe(), ": input '", in, "' is not defined in this graph or an enclosing one");
        node.inputs.push_back(id);
      }
      for (auto& ap : *np.mutable_attribute()) {
        auto a = convert_attribute(ap, g, node, depth);
        if (!a.ok()) return a.status();
        g.mutable_node(ni).attributes.push_back(std::move(a).value());
      }
      RETURN_IF_ERROR(check_subgraph_signature(g.node(ni)));
    }
    for (const auto& out : gp.output()) {
      ASSIGN_OR_RETURN(ValueId id, resolve_name(g, out.name()));
      if (id == kNoValue) return InvalidArgument("graph '", gp.name(), "': output '", out.name(), "' is never produced");
      g.mutable_value(id).is_graph_output = true;
      if (g.value(id).type.kind == TypeInfo::Kind::kUnknown) g.mutable_value(id).type = type_from_proto(out.type());
      g.mutable_outputs().push_back(id);
    }
    for (NodeId nid = 0; nid < static_cast<NodeId>(g.nodes().size()); ++nid) {
      const Node& n = g.node(nid);
      auto add_consumer = [&](ValueId v) {
        auto& c = g.mutable_value(v).consumers;
        if (c.empty() || c.back() != nid) c.push_back(nid);
      };
      for (ValueId v : n.inputs)
        if (v != kNoValue) add_consumer(v);
      for (ValueId v : n.implicit_inputs) add_consumer(v);
    }
    return topo_sort(gp, g);
  }

 private:
  Status resolve_op(Node& node) {
    auto it = model_.opsets.find(node.domain);
    if (it == model_.opsets.end())
      return InvalidArgument(node.describe(), ": domain '", node.domain, "' is not imported by the model");
    node.opset = it->second;
    // Switchyard's own ops, which OpFusion makes; libonnx has no schema of them.
    if (node.domain == kSwitchyardDomain && is_switchyard_op(node.op_type)) return OkStatus();
    const auto* schema = SchemaRegistry::instance().GetSchema(node.op_type, node.opset, node.domain);
    if (!schema) {
      return InvalidArgument(node.describe(), ": unknown operator '", node.op_type, "' in domain '",
                             node.domain.empty() ? "ai.onnx" : node.domain, "' at opset ", node.opset);
    }
    return OkStatus();
  }

  // Finds `name` in g or an enclosing graph. Outer values become captures of
  // every graph between the owner and g, and implicit inputs of the nodes
  // that own those subgraphs, so readiness and lifetimes stay exact.
  StatusOr<ValueId> resolve_name(Graph& g, const std::string& name) {
    if (auto id = g.find_value(name)) return *id;
    if (!g.parent()) return kNoValue;
    Graph& parent = *const_cast<Graph*>(g.parent());
    ASSIGN_OR_RETURN(ValueId outer, resolve_name(parent, name));
    if (outer == kNoValue) return kNoValue;
    ValueInfo v;
    v.name = name;
    v.type = parent.value(outer).type;
    v.outer = outer;
    ValueId id = g.add_value(std::move(v));
    g.mutable_captures().push_back(id);
    auto owner = owner_node_.find(&g);
    if (owner != owner_node_.end()) {
      auto& imp = parent.mutable_node(owner->second).implicit_inputs;
      if (std::find(imp.begin(), imp.end(), outer) == imp.end()) imp.push_back(outer);
    }
    return id;
  }

  StatusOr<std::shared_ptr<TensorData>> read_tensor(const onnx::TensorProto& tp) const {
    return tensor_from_proto(tp, base_dir_, values_ != TensorValues::kCheck);
  }
  // Frees a tensor's proto once its values are copied (kTake).
  void release(onnx::TensorProto& tp) const {
    if (values_ == TensorValues::kTake) onnx::TensorProto().Swap(&tp);  // the temporary takes the memory along
  }

  StatusOr<Attribute> convert_attribute(onnx::AttributeProto& ap, Graph& g, const Node& node, int depth) {
    Attribute a;
    a.name = ap.name();
    auto sub = [&](onnx::GraphProto& sgp) -> StatusOr<const Graph*> {
      auto child = std::make_unique<Graph>(sgp.name(), &g);
      Graph* raw = g.add_subgraph(std::move(child));
      owner_node_[raw] = node.id;
      Status s = build(sgp, *raw, depth + 1);
      if (!s.ok()) return s.with_context(node.describe() + " attribute '" + ap.name() + "'");
      return static_cast<const Graph*>(raw);
    };
    switch (ap.type()) {
      case onnx::AttributeProto::FLOAT: a.kind = Attribute::Kind::kFloat; a.f = ap.f(); break;
      case onnx::AttributeProto::INT: a.kind = Attribute::Kind::kInt; a.i = ap.i(); break;
      case onnx::AttributeProto::STRING: a.kind = Attribute::Kind::kString; a.s = ap.s(); break;
      case onnx::AttributeProto::FLOATS: a.kind = Attribute::Kind::kFloats; a.floats.assign(ap.floats().begin(), ap.floats().end()); break;
      case onnx::AttributeProto::INTS: a.kind = Attribute::Kind::kInts; a.ints.assign(ap.ints().begin(), ap.ints().end()); break;
      case onnx::AttributeProto::STRINGS: a.kind = Attribute::Kind::kStrings; a.strings.assign(ap.strings().begin(), ap.strings().end()); break;
      case onnx::AttributeProto::TENSOR: {
        a.kind = Attribute::Kind::kTensor;
        auto t = read_tensor(ap.t());
        if (!t.ok()) return t.status().with_context(node.describe() + " attribute '" + ap.name() + "'");
        a.t = std::move(t).value();
        release(*ap.mutable_t());
        break;
      }
      case onnx::AttributeProto::TENSORS:
        a.kind = Attribute::Kind::kTensors;
        for (auto& tp : *ap.mutable_tensors()) {
          auto t = read_tensor(tp);
          if (!t.ok()) return t.status().with_context(node.describe() + " attribute '" + ap.name() + "'");
          a.tensors.push_back(std::move(t).value());
          release(tp);
        }
        break;
      case onnx::AttributeProto::GRAPH: {
        a.kind = Attribute::Kind::kGraph;
        ASSIGN_OR_RETURN(a.g, sub(*ap.mutable_g()));
        break;
      }
      case onnx::AttributeProto::GRAPHS:
        a.kind = Attribute::Kind::kGraphs;
        for (auto& sgp : *ap.mutable_graphs()) {
          ASSIGN_OR_RETURN(const Graph* sg, sub(sgp));
          a.graphs.push_back(sg);
        }
        break;
      case onnx::AttributeProto::TYPE_PROTO: a.kind = Attribute::Kind::kTypeProto; a.type_proto = type_from_proto(ap.tp()); break;
      case onnx::AttributeProto::SPARSE_TENSOR:
      case onnx::AttributeProto::SPARSE_TENSORS:
        return Unimplemented(node.describe(), ": sparse tensor attribute '", ap.name(), "' is not supported");
      default:
        return InvalidArgument(node.describe(), ": attribute '", ap.name(), "' has undefined type");
    }
    return a;
  }

  // Control-flow subgraphs must agree with the node that runs them.
  Status check_subgraph_signature(const Node& n) {
    if (!n.domain.empty()) return OkStatus();
    auto mismatch = [&](const char* what, size_t got, size_t want) {
      return InvalidArgument(n.describe(), ": subgraph signature mismatch: ", what, " has ", got, ", expected ", want);
    };
    // Inputs [from, end) must be present, and at least `min` of them. The
    // variadic inputs of Scan and SequenceMap each feed a body input, yet
    // the ONNX checker lets empty names through there; and the checker
    // may be off.
    auto require_inputs = [&](size_t from, size_t min) -> Status {
      if (n.inputs.size() < from + min)
        return InvalidArgument(n.describe(), ": ", n.op_type, " needs at least ", from + min, " inputs, got ",
                               n.inputs.size());
      for (size_t i = from; i < n.inputs.size(); ++i)
        if (n.inputs[i] == kNoValue)
          return InvalidArgument(n.describe(), ": input ", i, " is omitted; ", n.op_type, " needs it");
      return OkStatus();
    };
    if (n.op_type == "If") {
      RETURN_IF_ERROR(require_inputs(0, 1));
      for (const char* b : {"then_branch", "else_branch"}) {
        ASSIGN_OR_RETURN(const Graph* g, n.required_graph(b));
        if (g->outputs().size() != n.outputs.size()) return mismatch(b, g->outputs().size(), n.outputs.size());
        if (!g->inputs().empty()) return mismatch(b, g->inputs().size(), 0);
      }
    } else if (n.op_type == "Loop") {
      ASSIGN_OR_RETURN(const Graph* body, n.required_graph("body"));
      if (n.inputs.size() < 2) return InvalidArgument(n.describe(), ": Loop needs at least the inputs M and cond (may be empty names)");
      size_t carried = n.inputs.size() - 2;
      if (body->inputs().size() != carried + 2) return mismatch("body inputs", body->inputs().size(), carried + 2);
      if (body->outputs().size() < carried + 1) return mismatch("body outputs", body->outputs().size(), carried + 1);
      size_t scans = body->outputs().size() - 1 - carried;
      if (n.outputs.size() != carried + scans) return mismatch("Loop outputs", n.outputs.size(), carried + scans);
    } else if (n.op_type == "Scan") {
      ASSIGN_OR_RETURN(const Graph* body, n.required_graph("body"));
      int64_t m = n.attr_int("num_scan_inputs", -1);
      if (m < 1 || static_cast<size_t>(m) + (n.opset < 9 ? 1 : 0) > n.inputs.size())
        return InvalidArgument(n.describe(), ": num_scan_inputs must be in [1, ", n.inputs.size(), "], got ", m);
      // Opset 8 has a leading sequence_lens input that the body does not see.
      const size_t body_inputs = n.inputs.size() - (n.opset < 9 ? 1 : 0);
      size_t state = body_inputs - static_cast<size_t>(m);
      if (body->inputs().size() != body_inputs) return mismatch("body inputs", body->inputs().size(), body_inputs);
      if (body->outputs().size() != n.outputs.size()) return mismatch("body outputs", body->outputs().size(), n.outputs.size());
      if (n.outputs.size() < state) return mismatch("Scan outputs", n.outputs.size(), state);
      RETURN_IF_ERROR(require_inputs(n.opset < 9 ? 1 : 0, 1));  // opset 8's sequence_lens is optional
    } else if (n.op_type == "SequenceMap") {
      ASSIGN_OR_RETURN(const Graph* body, n.required_graph("body"));
      if (body->inputs().size() != n.inputs.size()) return mismatch("body inputs", body->inputs().size(), n.inputs.size());
      if (body->outputs().size() != n.outputs.size()) return mismatch("body outputs", body->outputs().size(), n.outputs.size());
      RETURN_IF_ERROR(require_inputs(0, 1));
    }
    return OkStatus();
  }

  Status topo_sort(const onnx::GraphProto& gp, Graph& g) {
    const size_t n = g.nodes().size();
    std::vector<int> pending(n, 0);
    std::vector<std::vector<NodeId>> succ(n);
    for (const Node& node : g.nodes()) {
      std::set<NodeId> preds;
      auto dep = [&](ValueId v) {
        if (v != kNoValue && g.value(v).producer >= 0) preds.insert(g.value(v).producer);
      };
      for (ValueId v : node.inputs) dep(v);
      for (ValueId v : node.implicit_inputs) dep(v);
      pending[node.id] = static_cast<int>(preds.size());
      for (NodeId p : preds) succ[p].push_back(node.id);
    }
    std::queue<NodeId> ready;
    for (NodeId i = 0; i < static_cast<NodeId>(n); ++i)
      if (pending[i] == 0) ready.push(i);
    auto& order = g.mutable_topo_order();
    while (!ready.empty()) {
      NodeId i = ready.front();
      ready.pop();
      order.push_back(i);
      for (NodeId s : succ[i])
        if (--pending[s] == 0) ready.push(s);
    }
    if (order.size() != n) {
      for (NodeId i = 0; i < static_cast<NodeId>(n); ++i)
        if (pending[i] > 0)
          return InvalidArgument("graph '", gp.name(), "' has a cycle through ", g.node(i).describe());
    }
    return OkStatus();
  }

  const Model& model_;
  const LoadOptions& opt_;
  std::string base_dir_;
  TensorValues values_;
  std::map<const Graph*, NodeId> owner_node_;  // subgraph -> node in its parent
};

// Parses a whole model from `in`, or says why not.
Status parse_model(google::protobuf::io::ZeroCopyInputStream& in, const std::string& name, onnx::ModelProto& proto) {
  google::protobuf::io::CodedInputStream cis(&in);
  cis.SetTotalBytesLimit(INT32_MAX);
  // Each subgraph level costs about three message levels, so this admits
  // nesting well past max_nesting_depth and lets that check give the error.
  cis.SetRecursionLimit(1024);
  if (!proto.ParseFromCodedStream(&cis) || !cis.ConsumedEntireMessage())
    return InvalidArgument(name, ": not a valid ONNX protobuf (parse failed; the file may be truncated, of another "
                                 "format, or nested too deeply)");
  return OkStatus();
}
}  // namespace

StatusOr<std::unique_ptr<Model>> OnnxLoader::load_file(const std::string& path) const {
  std::error_code ec;
  if (!fs::exists(path, ec)) return NotFound(path, ": no such file");
  if (fs::is_directory(path, ec)) return InvalidArgument(path, ": is a directory, not an ONNX model");
  uintmax_t size = fs::file_size(path, ec);
  if (ec) return NotFound(path, ": cannot read file size");
  if (size > options_.max_file_bytes) return InvalidArgument(path, ": file of ", size, " bytes exceeds the limit");
  if (size == 0) return InvalidArgument(path, ": empty file, not an ONNX model");
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path, ": cannot open file");
  // Parsed straight from the file: the file's bytes are never held whole
  // beside the message.
  onnx::ModelProto proto;
  google::protobuf::io::IstreamInputStream stream(&in);
  RETURN_IF_ERROR(parse_model(stream, path, proto));
  if (in.bad()) return InvalidArgument(path, ": failed to read file");
  std::string dir = fs::path(path).parent_path().string();
  return load(proto, path, dir.empty() ? "." : dir, /*take_values=*/true);
}

StatusOr<std::unique_ptr<Model>> OnnxLoader::load_bytes(const std::string& bytes, const std::string& name,
                                                       const std::string& base_dir) const {
  if (bytes.empty() || bytes.size() > static_cast<size_t>(INT32_MAX))
    return InvalidArgument(name, ": not a valid ONNX protobuf (", bytes.size(), " bytes)");
  onnx::ModelProto proto;
  google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
  RETURN_IF_ERROR(parse_model(stream, name, proto));
  return load(proto, name, base_dir, /*take_values=*/true);
}

StatusOr<std::unique_ptr<Model>> OnnxLoader::load_proto(onnx::ModelProto& proto, const std::string& name,
                                                       const std::string& base_dir) const {
  return load(proto, name, base_dir, /*take_values=*/false);
}

namespace {
// libonnx's messages end in paragraphs of context ("==> Context: ...").
std::string first_paragraph(std::string msg) {
  if (auto nl = msg.find("\n\n"); nl != std::string::npos) msg.resize(nl);
  return msg;
}

// libonnx names a failing node by its name, which most nodes lack ("Node ()
// has input size 1 ..."): finds the main-graph node that fails alone with
// the same message and describes it ("Upsample (node '#3'): "), or "".
std::string checker_culprit(const onnx::GraphProto& gp, const Graph& g, const onnx::checker::CheckerContext& ctx,
                            const std::string& what) {
  if (what.rfind("Node (", 0) != 0) return "";
  for (int i = 0; i < gp.node_size() && static_cast<size_t>(i) < g.nodes().size(); ++i) {
    try {
      onnx::checker::LexicalScopeContext lex;
      onnx::checker::check_node(gp.node(i), ctx, lex);
    } catch (const std::exception& e) {
      if (what == first_paragraph(e.what())) return g.nodes()[static_cast<size_t>(i)].describe() + ": ";
    }
  }
  return "";
}
}  // namespace

StatusOr<std::unique_ptr<Model>> OnnxLoader::load(onnx::ModelProto& proto, const std::string& name,
                                                 const std::string& base_dir, bool take_values) const {
  auto model = std::make_unique<Model>();
  model->path = name;
  model->ir_version = proto.ir_version();
  model->producer = proto.producer_name();
  if (!proto.has_graph()) return InvalidArgument(name, ": model has no graph");
  if (proto.opset_import_size() == 0) return InvalidArgument(name, ": model imports no opset");
  for (const auto& op : proto.opset_import()) {
    std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
    if (domain.empty() && op.version() > kMaxSupportedOpset)
      return InvalidArgument(name, ": opset ", op.version(), " is newer than the newest supported (", kMaxSupportedOpset,
                             "); export the model at opset ", kMaxSupportedOpset,
                             " or older (torch.onnx.export's opset_version)");
    if (op.version() < 1) return InvalidArgument(name, ": opset version ", op.version(), " for domain '", domain, "' is invalid");
    model->opsets[domain] = static_cast<int>(op.version());
  }
  if (proto.functions_size() > 0)
    return Unimplemented(name, ": model-local functions are not supported yet");
  if (options_.infer_shapes) {
    // Fills value_info so kernels can be chosen by type. In a child process,
    // as libonnx's inference functions crash on some malformed models; a
    // failure is not fatal, because our own checks below give better
    // messages.
    if (auto inferred = infer_types_isolated(proto)) apply_inferred_types(*proto.mutable_graph(), *inferred);
  }
  // A first graph without the tensors' values (cheap) serves our checks and
  // names culprits for libonnx's checker; the values are read once, into
  // the graph that runs, when the model has passed them and been fused.
  model->graph = std::make_unique<Graph>(proto.graph().name());
  GraphBuilder checked(*model, options_, base_dir, TensorValues::kCheck);
  Status s = checked.build(*proto.mutable_graph(), *model->graph, 0);
  if (!s.ok()) return s.with_context(name);
  if (options_.run_onnx_checker) {
    onnx::checker::CheckerContext ctx;
    ctx.set_schema_registry(&SchemaRegistry::instance());
    ctx.set_ir_version(static_cast<int>(proto.ir_version()));
    std::unordered_map<std::string, int> opsets;
    for (const auto& [d, v] : model->opsets) opsets[d] = v;
    ctx.set_opset_imports(opsets);
    ctx.set_model_dir(base_dir);
    try {
      onnx::checker::LexicalScopeContext lex;
      onnx::checker::check_graph(proto.graph(), ctx, lex);
    } catch (const std::exception& e) {
      const std::string msg = first_paragraph(e.what());
      return InvalidArgument(name, ": ", checker_culprit(proto.graph(), *model->graph, ctx, msg), "ONNX checker: ", msg);
    }
  }
  // After the checks, so that every error names the model's own nodes.
  if (options_.fuse_ops) model->fusions = OpFusion::run(proto);
  if (options_.channels_last) ChannelsLast::run(proto, model->fusions);
  const bool fused =
      model->fusions.constants_folded + model->fusions.batch_norms_folded > 0 || model->fusions.any_switchyard_op();
  if (model->fusions.any_switchyard_op()) model->opsets[kSwitchyardDomain] = 1;
  model->graph = std::make_unique<Graph>(proto.graph().name());
  GraphBuilder builder(*model, options_, base_dir, take_values ? TensorValues::kTake : TensorValues::kCopy);
  if (Status st = builder.build(*proto.mutable_graph(), *model->graph, 0); !st.ok())
    return st.with_context(fused ? name + " (after fusing operators; --no-fusion loads it unfused)" : name);
  return model;
}

}  // namespace sy
