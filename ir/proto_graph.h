// Small queries over an ONNX GraphProto, shared by the load-time rewrites
// (op_fusion.cc, channels_last.cc), which work on the proto before the IR
// graph is built from it.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "onnx/onnx_pb.h"

namespace sy {

// Whether n is in ONNX's default domain.
bool default_domain(const onnx::NodeProto& n);

// n's attribute `name`, or null.
const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name);

// Reads of each value name in g, its subgraphs' included (a subgraph may
// read an outer value by name), and g's outputs: a rewrite removes a value
// only if its one reader is the node fused with its producer.
void count_uses(const onnx::GraphProto& g, std::unordered_map<std::string, int>& uses);

// Every name g and its subgraphs give a value, so that a new value takes
// none of them.
void collect_names(const onnx::GraphProto& g, std::unordered_set<std::string>& names);

// `base` + `suffix`, or with a number after it, whichever `names` does not
// hold yet; `names` takes it.
std::string unique_name(const std::string& base, const std::string& suffix, std::unordered_set<std::string>& names);

// Adds `domain`, version 1, to the model's opset imports if it has none.
void import_domain(onnx::ModelProto& model, const std::string& domain);

// The element type of each value g gives one: its first tensor type among
// g's inputs, value_info and outputs, else its initializer's. Made once a
// graph, as a scan of g per Conv was quadratic in the model's size.
std::unordered_map<std::string, int> elem_types(const onnx::GraphProto& g);

}  // namespace sy
