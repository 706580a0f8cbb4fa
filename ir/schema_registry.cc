#include "ir/schema_registry.h"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <optional>

#include "ir/onnx_loader.h"
#include "ir/str_cat.h"
#include "onnx/defs/attr_proto_util.h"
#include "onnx/defs/shape_inference.h"

namespace sy {
namespace {

using onnx::OpSchema;

// A schema as plain data, so that a delta can edit it before it is frozen
// into an OpSchema (whose type constraints cannot be changed once set).
struct Draft {
  std::string name;
  int since = 0;
  std::vector<OpSchema::FormalParameter> inputs, outputs;
  std::map<std::string, OpSchema::Attribute> attributes;
  std::vector<OpSchema::TypeConstraintParam> types;
  onnx::InferenceFunction infer;
  onnx::DataPropagationFunction propagate;
  std::string error;  // the first thing a delta could not apply

  static Draft of(const OpSchema& s) {
    Draft d;
    d.name = s.Name();
    d.inputs = s.inputs();
    d.outputs = s.outputs();
    for (const auto& [name, a] : s.attributes()) d.attributes.emplace(name, a);
    d.types = s.typeConstraintParams();
    if (s.has_type_and_shape_inference_function()) d.infer = s.GetTypeAndShapeInferenceFunction();
    if (s.has_data_propagation_function()) d.propagate = s.GetDataPropagationFunction();
    return d;
  }

  void fail(const std::string& what) {
    if (error.empty()) error = what;
  }
  OpSchema::TypeConstraintParam* constraint(const std::string& param) {
    for (auto& t : types)
      if (t.type_param_str == param) return &t;
    fail("no type constraint '" + param + "'");
    return nullptr;
  }
  // Element types, written bare: "bfloat16" means tensor(bfloat16).
  Draft& add_types(const std::string& param, std::initializer_list<const char*> elems) {
    if (auto* t = constraint(param))
      for (const char* e : elems) {
        std::string ts = str_cat("tensor(", e, ")");
        if (std::find(t->allowed_type_strs.begin(), t->allowed_type_strs.end(), ts) == t->allowed_type_strs.end())
          t->allowed_type_strs.push_back(std::move(ts));
      }
    return *this;
  }
  Draft& add_constraint(const std::string& param, std::initializer_list<const char*> elems) {
    types.emplace_back(param, std::vector<std::string>{}, "");
    return add_types(param, elems);
  }
  Draft& add_input(const std::string& input, const std::string& type_str,
                   OpSchema::FormalParameterOption option = OpSchema::Optional) {
    inputs.emplace_back(input, "", type_str, option);
    return *this;
  }
  Draft& add_output(const std::string& output, const std::string& type_str,
                    OpSchema::FormalParameterOption option = OpSchema::Single) {
    outputs.emplace_back(output, "", type_str, option);
    return *this;
  }
  // Gives an input or output a new type string, keeping the rest of it.
  static OpSchema::FormalParameter retyped(const OpSchema::FormalParameter& p, const std::string& type_str,
                                           std::optional<OpSchema::FormalParameterOption> option = std::nullopt) {
    return OpSchema::FormalParameter(p.GetName(), p.GetDescription(), type_str, option.value_or(p.GetOption()),
                                     p.GetIsHomogeneous(), p.GetMinArity(), p.GetDifferentiationCategory());
  }
  Draft& retype_input(size_t i, const std::string& type_str,
                      std::optional<OpSchema::FormalParameterOption> option = std::nullopt) {
    if (i < inputs.size()) inputs[i] = retyped(inputs[i], type_str, option);
    else fail(str_cat("no input ", i));
    return *this;
  }
  Draft& retype_output(size_t i, const std::string& type_str) {
    if (i < outputs.size()) outputs[i] = retyped(outputs[i], type_str);
    else fail(str_cat("no output ", i));
    return *this;
  }
  template <typename V>
  Draft& add_attr(const std::string& attr, const V& default_value) {
    attributes.erase(attr);
    attributes.emplace(attr, OpSchema::Attribute(attr, "", onnx::MakeAttribute(attr, default_value)));
    return *this;
  }
  Draft& add_attr_without_default(const std::string& attr, onnx::AttributeProto::AttributeType type,
                                  bool required = false) {
    attributes.erase(attr);
    attributes.emplace(attr, OpSchema::Attribute(attr, "", type, required));
    return *this;
  }
  Draft& drop_attr(const std::string& attr) {
    if (attributes.erase(attr) == 0) fail("no attribute '" + attr + "'");
    return *this;
  }

  // Throws (libonnx's fail_schema) if the result is inconsistent.
  OpSchema freeze() const {
    OpSchema s(name, __FILE__, __LINE__);
    s.SetDomain(onnx::ONNX_DOMAIN).SinceVersion(since);
    s.SetDoc(str_cat(name, "-", since, " as Switchyard's loader checks it; ONNX's operator documentation has the rest."));
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto& p = inputs[i];
      s.Input(static_cast<int>(i), p.GetName(), p.GetDescription(), p.GetTypeStr(), p.GetOption(),
              p.GetIsHomogeneous(), p.GetMinArity(), p.GetDifferentiationCategory());
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const auto& p = outputs[i];
      s.Output(static_cast<int>(i), p.GetName(), p.GetDescription(), p.GetTypeStr(), p.GetOption(),
               p.GetIsHomogeneous(), p.GetMinArity(), p.GetDifferentiationCategory());
    }
    for (const auto& [n, a] : attributes) s.Attr(a);
    for (const auto& t : types) s.TypeConstraint(t.type_param_str, t.allowed_type_strs, t.description);
    if (infer) s.TypeAndShapeInferenceFunction(infer);
    if (propagate) s.PartialDataPropagationFunction(propagate);
    s.Finalize();
    return s;
  }
};

// ------------------------------------------------------------ inference
// Shape inference only fills in static types, which the runtime can do
// without; so where a new attribute changes the output shape and the old
// function would get it wrong, the output gets its type and rank only.

void type_and_rank(onnx::InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0)) return;
  auto* shape = onnx::getOutputShape(ctx, 0);
  shape->clear_dim();
  for (int i = 0; i < onnx::getInputShape(ctx, 0).dim_size(); ++i) shape->add_dim();
}

int64_t int_attr(onnx::InferenceContext& ctx, const char* name, int64_t otherwise) {
  const auto* a = ctx.getAttribute(name);
  return a ? a->i() : otherwise;
}

bool input_given(onnx::InferenceContext& ctx, size_t i) {
  return ctx.getNumInputs() > i && ctx.getInputType(i) != nullptr;
}

// The predecessor's function where `old_semantics` holds, else type and rank.
onnx::InferenceFunction unless_changed(onnx::InferenceFunction base,
                                       std::function<bool(onnx::InferenceContext&)> old_semantics) {
  return [base = std::move(base), old_semantics = std::move(old_semantics)](onnx::InferenceContext& ctx) {
    if (base && old_semantics(ctx)) base(ctx);
    else type_and_rank(ctx);
  };
}

bool no_dilations(onnx::InferenceContext& ctx) {
  const auto* d = ctx.getAttribute("dilations");
  return !d || std::all_of(d->ints().begin(), d->ints().end(), [](int64_t v) { return v == 1; });
}

// Split-18's num_outputs: parts of ceil(dim / n), the last one smaller.
onnx::InferenceFunction split_infer(onnx::InferenceFunction base) {
  return [base = std::move(base)](onnx::InferenceContext& ctx) {
    const auto* n_attr = ctx.getAttribute("num_outputs");
    if (!n_attr || input_given(ctx, 1)) {
      if (base) base(ctx);
      return;
    }
    const size_t outs = ctx.getNumOutputs();
    if (n_attr->i() != static_cast<int64_t>(outs))
      fail_shape_inference("num_outputs is ", n_attr->i(), " but the node has ", outs, " outputs");
    for (size_t i = 0; i < outs; ++i) onnx::propagateElemTypeFromInputToOutput(ctx, 0, i);
    if (!onnx::hasInputShape(ctx, 0)) return;
    const auto& in = onnx::getInputShape(ctx, 0);
    int64_t axis = int_attr(ctx, "axis", 0);
    if (axis < 0) axis += in.dim_size();
    if (axis < 0 || axis >= in.dim_size()) fail_shape_inference("axis is out of range");
    const auto& d = in.dim(static_cast<int>(axis));
    const int64_t n = static_cast<int64_t>(outs);
    for (size_t i = 0; i < outs; ++i) {
      auto* out = onnx::getOutputShape(ctx, i);
      *out = in;
      auto* od = out->mutable_dim(static_cast<int>(axis));
      od->Clear();
      if (!d.has_dim_value()) continue;
      const int64_t part = (d.dim_value() + n - 1) / n;
      od->set_dim_value(static_cast<int64_t>(i) + 1 < n ? part : std::max<int64_t>(d.dim_value() - part * (n - 1), 0));
    }
  };
}

// DequantizeLinear-19+: y takes x_scale's type (float, float16 or bfloat16).
void dequantize_infer(onnx::InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 1, 0);
  if (onnx::hasInputShape(ctx, 0)) onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
}

// QuantizeLinear-21's output_dtype names y's type when no zero point does.
onnx::InferenceFunction quantize_infer(onnx::InferenceFunction base) {
  return [base = std::move(base)](onnx::InferenceContext& ctx) {
    const int64_t dtype = int_attr(ctx, "output_dtype", 0);
    if (dtype == 0 || input_given(ctx, 2)) {
      if (base) base(ctx);
      return;
    }
    onnx::updateOutputElemType(ctx, 0, static_cast<int32_t>(dtype));
    if (onnx::hasInputShape(ctx, 0)) onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
  };
}

// Opset 18 lets the optional ops take a plain tensor or sequence too.
void has_element_infer(onnx::InferenceContext& ctx) {
  onnx::updateOutputElemType(ctx, 0, onnx::TensorProto::BOOL);
  onnx::getOutputShape(ctx, 0)->clear_dim();
}
void get_element_infer(onnx::InferenceContext& ctx) {
  const auto* in = ctx.getInputType(0);
  if (!in) return;
  *ctx.getOutputType(0) = in->has_optional_type() ? in->optional_type().elem_type() : *in;
}

void broadcast_infer(onnx::InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (onnx::hasNInputShapes(ctx, 2))
    onnx::bidirectionalBroadcastShapeInference(onnx::getInputShape(ctx, 0), onnx::getInputShape(ctx, 1),
                                               *onnx::getOutputShape(ctx, 0));
}

// DeformConv: Y is [N, oC, the offset's output positions...].
void deform_conv_infer(onnx::InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasNInputShapes(ctx, 3)) return;
  const auto& x = onnx::getInputShape(ctx, 0);
  const auto& w = onnx::getInputShape(ctx, 1);
  const auto& offset = onnx::getInputShape(ctx, 2);
  if (x.dim_size() < 3 || offset.dim_size() != x.dim_size() || w.dim_size() != x.dim_size())
    fail_shape_inference("X, W and offset must have the same rank, at least 3");
  auto* y = onnx::getOutputShape(ctx, 0);
  *y->add_dim() = x.dim(0);
  *y->add_dim() = w.dim(0);
  for (int i = 2; i < offset.dim_size(); ++i) *y->add_dim() = offset.dim(i);
}

// DequantizeLinear-23: y's type is output_dtype when given, else x_scale's.
void dequantize23_infer(onnx::InferenceContext& ctx) {
  const int64_t dtype = int_attr(ctx, "output_dtype", 0);
  if (dtype == 0) onnx::propagateElemTypeFromInputToOutput(ctx, 1, 0);
  else onnx::updateOutputElemType(ctx, 0, static_cast<int32_t>(dtype));
  if (onnx::hasInputShape(ctx, 0)) onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
}

// Attention: Y is [B, Hq, Sq, Dv] for 4-D inputs, [B, Sq, Hq * Dv] for 3-D
// ones; the caches and the QK product take their dims from the inputs.
void attention_infer(onnx::InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  for (size_t o = 1; o < ctx.getNumOutputs(); ++o)  // present_value is V's type, the rest Q's
    if (ctx.getOutputType(o)) onnx::propagateElemTypeFromInputToOutput(ctx, o == 2 ? 2 : 0, o);
  if (!onnx::hasNInputShapes(ctx, 3)) return;
  const auto& q = onnx::getInputShape(ctx, 0);
  const auto& v = onnx::getInputShape(ctx, 2);
  if (q.dim_size() != onnx::getInputShape(ctx, 1).dim_size() || q.dim_size() != v.dim_size() ||
      (q.dim_size() != 3 && q.dim_size() != 4))
    fail_shape_inference("Q, K and V must all be 3-D or all 4-D");
  auto* y = onnx::getOutputShape(ctx, 0);
  *y->add_dim() = q.dim(0);
  *y->add_dim() = q.dim(1);
  *y->add_dim() = q.dim(2);
  if (q.dim_size() == 4) {
    *y->add_dim() = v.dim(3);
    return;
  }
  // 3-D: Hq * (V's hidden size / Hkv), known only when all three are.
  const int64_t hq = int_attr(ctx, "q_num_heads", 0), hkv = int_attr(ctx, "kv_num_heads", 0);
  auto* hidden = y->mutable_dim(2);
  hidden->Clear();
  if (hq > 0 && hkv > 0 && v.dim(2).has_dim_value() && v.dim(2).dim_value() % hkv == 0)
    hidden->set_dim_value(hq * (v.dim(2).dim_value() / hkv));
}

// ------------------------------------------------------------ the deltas

constexpr std::initializer_list<const char*> kIntegers = {"uint8", "uint16", "uint32", "uint64",
                                                          "int8",  "int16",  "int32",  "int64"};
constexpr std::initializer_list<const char*> kFloats = {"float16", "float", "double"};

// An input or output of a new operator: its name and type string.
struct Io {
  const char* name;
  const char* type;
};

Draft new_operator(const char* op, std::initializer_list<Io> inputs, std::initializer_list<Io> outputs) {
  Draft d;
  d.name = op;
  for (const Io& i : inputs) d.add_input(i.name, i.type, OpSchema::Single);
  for (const Io& o : outputs) d.add_output(o.name, o.type);
  return d;
}

// A new operator: one input, or two broadcast ones, of type T.
Draft elementwise(const char* op, int inputs, std::initializer_list<const char*> t) {
  Draft d = inputs == 1 ? new_operator(op, {{"X", "T"}}, {{"Y", "T"}})
                        : new_operator(op, {{"A", "T"}, {"B", "T"}}, {{"C", "T"}});
  d.add_constraint("T", t);
  d.infer = inputs == 1 ? onnx::InferenceFunction(onnx::propagateShapeAndTypeFromFirstInput)
                        : onnx::InferenceFunction(broadcast_infer);
  return d;
}

// Output 0 takes input 0's element type; its shape is left unknown.
void first_input_type(onnx::InferenceContext& ctx) { onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0); }

constexpr std::initializer_list<const char*> kAllTypes = {
    "uint8",    "uint16",  "uint32", "uint64", "int8",   "int16", "int32",     "int64",
    "bfloat16", "float16", "float",  "double", "string", "bool",  "complex64", "complex128"};

struct Change {
  const char* op;
  int since;
  // Edits the predecessor's draft; for a new operator, an empty one.
  std::function<void(Draft&)> apply;
  bool new_op = false;
};

std::vector<Change> changes() {
  std::vector<Change> c;
  // ---- opset 18
  const auto reduce_sum13 = onnx::OpSchemaRegistry::Schema("ReduceSum", 13)->GetTypeAndShapeInferenceFunction();
  for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                         "ReduceMin", "ReduceProd", "ReduceSumSquare"})
    c.push_back({op, 18, [reduce_sum13](Draft& d) {
                   // ReduceSum-13's signature, and so its inference.
                   d.drop_attr("axes").add_attr("noop_with_empty_axes", int64_t{0}).add_input("axes", "tensor(int64)");
                   d.infer = reduce_sum13;
                 }});
  c.push_back({"Split", 18, [](Draft& d) {
                 d.add_attr_without_default("num_outputs", onnx::AttributeProto::INT);
                 d.infer = split_infer(d.infer);
               }});
  c.push_back({"Pad", 18, [](Draft& d) {
                 d.add_input("axes", "Tind").add_constraint("Tind", {"int32", "int64"});
                 d.infer = unless_changed(d.infer, [](auto& ctx) { return !input_given(ctx, 3); });
               }});
  c.push_back({"Resize", 18, [](Draft& d) {
                 d.add_attr("antialias", int64_t{0}).add_attr("keep_aspect_ratio_policy", std::string("stretch"));
                 d.add_attr_without_default("axes", onnx::AttributeProto::INTS);
                 d.infer = unless_changed(d.infer, [](onnx::InferenceContext& ctx) {
                   const auto* policy = ctx.getAttribute("keep_aspect_ratio_policy");
                   return !ctx.getAttribute("axes") && (!policy || policy->s() == "stretch");
                 });
               }});
  c.push_back({"LpPool", 18, [](Draft& d) {
                 d.add_attr("ceil_mode", int64_t{0}).add_attr_without_default("dilations", onnx::AttributeProto::INTS);
                 d.infer = unless_changed(d.infer, [](onnx::InferenceContext& ctx) {
                   return no_dilations(ctx) && int_attr(ctx, "ceil_mode", 0) == 0;
                 });
               }});
  for (const char* op : {"OptionalHasElement", "OptionalGetElement"})
    c.push_back({op, 18, [](Draft& d) {
                   if (auto* o = d.constraint("O"))
                     for (const char* e : {"uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
                                           "float16", "float", "double", "string", "bool", "complex64", "complex128"}) {
                       o->allowed_type_strs.push_back(str_cat("tensor(", e, ")"));
                       o->allowed_type_strs.push_back(str_cat("seq(tensor(", e, "))"));
                     }
                   if (d.name == "OptionalHasElement") {
                     d.retype_input(0, "O", OpSchema::Optional);
                     d.infer = has_element_infer;
                   } else {
                     d.infer = get_element_infer;
                   }
                 }});
  c.push_back({"Mish", 18, [](Draft& d) { d = elementwise("Mish", 1, kFloats); }, true});
  c.push_back({"GroupNormalization", 18, [](Draft& d) {
                 // scale and bias a group; a channel from opset 21.
                 d = elementwise("GroupNormalization", 1, {"float16", "float", "double", "bfloat16"});
                 d.add_input("scale", "T", OpSchema::Single).add_input("bias", "T", OpSchema::Single);
                 d.add_attr("epsilon", 1e-5f).add_attr_without_default("num_groups", onnx::AttributeProto::INT, true);
               }, true});
  c.push_back({"CenterCropPad", 18, [](Draft& d) {
                 d = new_operator("CenterCropPad", {{"input_data", "T"}, {"shape", "Tind"}}, {{"output_data", "T"}});
                 d.add_constraint("T", kAllTypes).add_constraint("Tind", {"int32", "int64"});
                 d.add_attr_without_default("axes", onnx::AttributeProto::INTS);
                 d.infer = type_and_rank;
               }, true});
  c.push_back({"Col2Im", 18, [](Draft& d) {
                 d = new_operator("Col2Im", {{"input", "T"}, {"image_shape", "tensor(int64)"},
                                             {"block_shape", "tensor(int64)"}}, {{"output", "T"}});
                 d.add_constraint("T", kAllTypes);
                 for (const char* a : {"dilations", "pads", "strides"})
                   d.add_attr_without_default(a, onnx::AttributeProto::INTS);
                 d.infer = first_input_type;
               }, true});
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
    c.push_back({op, 18, [op](Draft& d) { d = elementwise(op, 2, kIntegers); }, true});
  c.push_back({"BitwiseNot", 18, [](Draft& d) { d = elementwise("BitwiseNot", 1, kIntegers); }, true});
  // ---- opset 19
  c.push_back({"AveragePool", 19, [](Draft& d) {
                 d.add_attr_without_default("dilations", onnx::AttributeProto::INTS);
                 d.infer = unless_changed(d.infer, no_dilations);
               }});
  for (const char* op : {"Cast", "CastLike"})  // saturate only matters for float8
    c.push_back({op, 19, [](Draft& d) { d.add_attr("saturate", int64_t{1}); }});
  c.push_back({"Equal", 19, [](Draft& d) { d.add_types("T", {"string"}); }});
  c.push_back({"DequantizeLinear", 19, [](Draft& d) {
                 // x and its zero point are T1; x_scale and y, float types T2.
                 if (auto* t = d.constraint("T")) t->type_param_str = "T1";
                 d.retype_input(0, "T1").retype_input(1, "T2").retype_input(2, "T1").retype_output(0, "T2");
                 d.add_constraint("T2", {"float", "float16", "bfloat16"});
                 d.infer = dequantize_infer;
               }});
  c.push_back({"QuantizeLinear", 19, [](Draft& d) {
                 d.add_types("T1", {"float16", "bfloat16"}).retype_input(1, "T1").add_attr("saturate", int64_t{1});
               }});
  c.push_back({"DeformConv", 19, [](Draft& d) {
                 d = new_operator("DeformConv", {{"X", "T"}, {"W", "T"}, {"offset", "T"}}, {{"Y", "T"}});
                 d.add_input("B", "T").add_input("mask", "T").add_constraint("T", kFloats);
                 for (const char* a : {"dilations", "kernel_shape", "pads", "strides"})
                   d.add_attr_without_default(a, onnx::AttributeProto::INTS);
                 d.add_attr("group", int64_t{1}).add_attr("offset_group", int64_t{1});
                 d.infer = deform_conv_infer;
               }, true});
  // ---- opset 20
  for (const char* op : {"ReduceMax", "ReduceMin"})
    c.push_back({op, 20, [](Draft& d) { d.add_types("T", {"bool"}); }});
  c.push_back({"IsInf", 20, [](Draft& d) { d.add_types("T1", {"float16", "bfloat16"}); }});
  c.push_back({"ConstantOfShape", 20, [](Draft& d) { d.add_types("T2", {"bfloat16"}); }});
  c.push_back({"DFT", 20, [](Draft& d) {
                 d.drop_attr("axis").add_input("axis", "tensor(int64)");
                 d.infer = type_and_rank;
               }});
  c.push_back({"GridSample", 20, [](Draft& d) {
                 // Now N-D, and its modes renamed ("linear", "cubic"): the
                 // old function only knows 4-D inputs.
                 d.infer = unless_changed(d.infer, [](onnx::InferenceContext& ctx) {
                   const auto* mode = ctx.getAttribute("mode");
                   return (!mode || mode->s() == "nearest") && onnx::hasInputShape(ctx, 0) &&
                          onnx::getInputShape(ctx, 0).dim_size() == 4;
                 });
                 d.add_attr("mode", std::string("linear"));
               }});
  c.push_back({"Gelu", 20, [](Draft& d) {
                 d = elementwise("Gelu", 1, {"float16", "float", "double", "bfloat16"});
                 d.add_attr("approximate", std::string("none"));
               }, true});
  c.push_back({"ImageDecoder", 20, [](Draft& d) {
                 d = new_operator("ImageDecoder", {{"encoded_stream", "T1"}}, {{"image", "T2"}});
                 d.add_constraint("T1", {"uint8"}).add_constraint("T2", {"uint8"});
                 d.add_attr("pixel_format", std::string("RGB"));
                 // [height, width, channels]; only the channels are known
                 // before the image is read.
                 d.infer = [](onnx::InferenceContext& ctx) {
                   onnx::updateOutputElemType(ctx, 0, onnx::TensorProto::UINT8);
                   const auto* format = ctx.getAttribute("pixel_format");
                   const std::string f = format ? format->s() : "RGB";
                   if (f != "RGB" && f != "BGR" && f != "Grayscale")
                     fail_shape_inference("pixel_format must be RGB, BGR or Grayscale, got '", f, "'");
                   auto* shape = onnx::getOutputShape(ctx, 0);
                   shape->add_dim();
                   shape->add_dim();
                   shape->add_dim()->set_dim_value(f == "Grayscale" ? 1 : 3);
                 };
               }, true});
  c.push_back({"AffineGrid", 20, [](Draft& d) {
                 d = new_operator("AffineGrid", {{"theta", "T1"}, {"size", "T2"}}, {{"grid", "T1"}});
                 d.add_constraint("T1", {"bfloat16", "float16", "float", "double"}).add_constraint("T2", {"int64"});
                 d.add_attr("align_corners", int64_t{0});
                 d.infer = first_input_type;
               }, true});
  c.push_back({"StringConcat", 20, [](Draft& d) { d = elementwise("StringConcat", 2, {"string"}); }, true});
  c.push_back({"StringSplit", 20, [](Draft& d) {
                 d = new_operator("StringSplit", {{"X", "T1"}}, {{"Y", "T2"}, {"Z", "T3"}});
                 d.add_constraint("T1", {"string"}).add_constraint("T2", {"string"}).add_constraint("T3", {"int64"});
                 d.add_attr_without_default("delimiter", onnx::AttributeProto::STRING);
                 d.add_attr_without_default("maxsplit", onnx::AttributeProto::INT);
                 d.infer = [](onnx::InferenceContext& ctx) {
                   onnx::updateOutputElemType(ctx, 0, onnx::TensorProto::STRING);
                   onnx::updateOutputElemType(ctx, 1, onnx::TensorProto::INT64);
                   if (!onnx::hasInputShape(ctx, 0)) return;
                   onnx::propagateShapeFromInputToOutput(ctx, 0, 1);
                   *onnx::getOutputShape(ctx, 0) = onnx::getInputShape(ctx, 0);
                   onnx::getOutputShape(ctx, 0)->add_dim();  // as many as the most parts
                 };
               }, true});
  c.push_back({"RegexFullMatch", 20, [](Draft& d) {
                 d = new_operator("RegexFullMatch", {{"X", "T1"}}, {{"Y", "T2"}});
                 d.add_constraint("T1", {"string"}).add_constraint("T2", {"bool"});
                 d.add_attr_without_default("pattern", onnx::AttributeProto::STRING);
                 d.infer = [](onnx::InferenceContext& ctx) {
                   onnx::updateOutputElemType(ctx, 0, onnx::TensorProto::BOOL);
                   if (onnx::hasInputShape(ctx, 0)) onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
                 };
               }, true});
  // ---- opset 21
  c.push_back({"GroupNormalization", 21, [](Draft& d) { d.add_attr("stash_type", int64_t{1}); }});
  c.push_back({"DequantizeLinear", 21, [](Draft& d) {
                 d.add_attr("block_size", int64_t{0}).add_types("T1", {"int16", "uint16"});
               }});
  c.push_back({"QuantizeLinear", 21, [](Draft& d) {
                 d.add_attr("block_size", int64_t{0}).add_attr("output_dtype", int64_t{0});
                 d.add_types("T2", {"int16", "uint16"});
                 d.infer = quantize_infer(d.infer);
               }});
  // ---- opset 22: bfloat16, nothing else.
  for (const char* op : {"Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "AveragePool", "Conv", "ConvTranspose",
                         "Cos", "Cosh", "DeformConv", "Det", "Elu", "GRU", "GlobalAveragePool", "GlobalLpPool",
                         "GlobalMaxPool", "HardSigmoid", "HardSwish", "InstanceNormalization", "LSTM",
                         "LpNormalization", "LpPool", "MaxPool", "MaxRoiPool", "Mish", "NegativeLogLikelihoodLoss",
                         "RNN", "RandomNormal", "RandomUniform", "Round", "Selu", "Sin", "Sinh", "Softplus",
                         "Softsign", "Tan", "ThresholdedRelu"})
    c.push_back({op, 22, [](Draft& d) { d.add_types("T", {"bfloat16"}); }});
  for (const char* op : {"Bernoulli", "Dropout", "MaxUnpool", "Multinomial", "RoiAlign"})
    c.push_back({op, 22, [](Draft& d) { d.add_types("T1", {"bfloat16"}); }});
  for (const char* op : {"EyeLike", "GridSample", "RandomNormalLike", "RandomUniformLike"})
    c.push_back({op, 22, [](Draft& d) { d.add_types("T1", {"bfloat16"}).add_types("T2", {"bfloat16"}); }});
  // ---- opset 23: three new operators and the quantizers' new attributes;
  // the rest only adds float4e2m1, which Switchyard has no tensors for.
  c.push_back({"DequantizeLinear", 23, [](Draft& d) {
                 d.add_attr("output_dtype", int64_t{0});
                 d.retype_output(0, "T3").add_constraint("T3", {"float", "float16", "bfloat16"});
                 d.infer = dequantize23_infer;
               }});
  c.push_back({"QuantizeLinear", 23, [](Draft& d) {
                 // y_scale gets a type of its own (T2); y and its zero point become T3.
                 if (auto* t = d.constraint("T2")) t->type_param_str = "T3";
                 d.retype_input(1, "T2").retype_input(2, "T3").retype_output(0, "T3");
                 d.add_constraint("T2", {"float", "float16", "bfloat16", "int32"});
                 d.add_attr("precision", int64_t{0});
               }});
  c.push_back({"RMSNormalization", 23, [](Draft& d) {
                 d = new_operator("RMSNormalization", {{"X", "T"}, {"scale", "V"}}, {{"Y", "V"}});
                 d.add_constraint("T", {"float16", "float", "double", "bfloat16"});
                 d.add_constraint("V", {"float16", "float", "double", "bfloat16"});
                 d.add_attr("axis", int64_t{-1}).add_attr("epsilon", 1e-5f).add_attr("stash_type", int64_t{1});
                 d.infer = [](onnx::InferenceContext& ctx) {
                   onnx::propagateElemTypeFromInputToOutput(ctx, 1, 0);
                   if (onnx::hasInputShape(ctx, 0)) onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
                 };
               }, true});
  c.push_back({"RotaryEmbedding", 23, [](Draft& d) {
                 d = new_operator("RotaryEmbedding", {{"X", "T"}, {"cos_cache", "T"}, {"sin_cache", "T"}},
                                  {{"Y", "T"}});
                 d.add_input("position_ids", "M").add_constraint("T", {"float16", "float", "bfloat16"});
                 d.add_constraint("M", {"int64"});
                 d.add_attr("interleaved", int64_t{0}).add_attr("rotary_embedding_dim", int64_t{0});
                 d.add_attr_without_default("num_heads", onnx::AttributeProto::INT);
                 d.infer = onnx::propagateShapeAndTypeFromFirstInput;
               }, true});
  c.push_back({"Attention", 23, [](Draft& d) {
                 d = new_operator("Attention", {{"Q", "T1"}, {"K", "T1"}, {"V", "T2"}}, {{"Y", "T1"}});
                 d.add_input("attn_mask", "U").add_input("past_key", "T1").add_input("past_value", "T2");
                 d.add_output("present_key", "T1", OpSchema::Optional);
                 d.add_output("present_value", "T2", OpSchema::Optional);
                 d.add_output("qk_matmul_output", "T1", OpSchema::Optional);
                 d.add_constraint("T1", {"float16", "float", "double", "bfloat16"});
                 d.add_constraint("T2", {"float16", "float", "double", "bfloat16"});
                 d.add_constraint("U", {"bool", "float16", "float", "double", "bfloat16", "uint8", "uint16", "uint32",
                                        "uint64", "int8", "int16", "int32", "int64"});
                 d.add_attr("is_causal", int64_t{0}).add_attr("qk_matmul_output_mode", int64_t{0});
                 d.add_attr("softcap", 0.f);
                 for (const char* a : {"kv_num_heads", "q_num_heads", "softmax_precision"})
                   d.add_attr_without_default(a, onnx::AttributeProto::INT);
                 d.add_attr_without_default("scale", onnx::AttributeProto::FLOAT);
                 d.infer = attention_infer;
               }, true});
  return c;
}

}  // namespace

SchemaRegistry::SchemaRegistry() {
  for (const Change& ch : changes()) {
    const std::string where = str_cat(ch.op, "-", ch.since, ": ");
    Draft d;
    if (!ch.new_op) {
      const OpSchema* base = GetSchema(ch.op, ch.since - 1, onnx::ONNX_DOMAIN);
      if (!base) {
        errors_.push_back(where + "no earlier version to derive it from");
        continue;
      }
      d = Draft::of(*base);
    }
    ch.apply(d);
    d.name = ch.op;
    d.since = ch.since;
    if (!d.error.empty()) {
      errors_.push_back(where + d.error);
      continue;
    }
    try {
      newer_[ch.op].emplace(ch.since, d.freeze());
    } catch (const std::exception& e) {
      errors_.push_back(where + e.what());
    }
  }
}

const SchemaRegistry& SchemaRegistry::instance() {
  static const SchemaRegistry r;
  return r;
}

const onnx::OpSchema* SchemaRegistry::GetSchema(const std::string& op, int max_inclusive_version,
                                                const std::string& domain) const {
  if (domain.empty() || domain == "ai.onnx") {
    if (auto it = newer_.find(op); it != newer_.end()) {
      auto v = it->second.upper_bound(max_inclusive_version);
      if (v != it->second.begin()) return &std::prev(v)->second;
    }
    return onnx::OpSchemaRegistry::Schema(op, max_inclusive_version, onnx::ONNX_DOMAIN);
  }
  return onnx::OpSchemaRegistry::Schema(op, max_inclusive_version, domain);
}

int SchemaRegistry::newest_version() const {
  int v = 0;
  for (const auto& [op, versions] : newer_) v = std::max(v, versions.rbegin()->first);
  return v;
}

}  // namespace sy
