#include "ir/schema_registry.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ir/onnx_loader.h"

namespace sy {
namespace {

const SchemaRegistry& reg() { return SchemaRegistry::instance(); }

bool allows(const onnx::OpSchema& s, const std::string& param, const std::string& type) {
  for (const auto& t : s.typeConstraintParams())
    if (t.type_param_str == param)
      return std::find(t.allowed_type_strs.begin(), t.allowed_type_strs.end(), type) != t.allowed_type_strs.end();
  return false;
}

// Every delta applies to its predecessor, and the newest version defined
// is the loader's limit: raising one without the other fails here.
TEST(SchemaRegistry, EveryChangeApplies_UpToTheLoadersLimit) {
  for (const std::string& e : reg().build_errors()) ADD_FAILURE() << e;
  EXPECT_EQ(reg().newest_version(), kMaxSupportedOpset);
}

TEST(SchemaRegistry, ReduceMean18_TakesAxesAsAnInput) {
  const onnx::OpSchema* s18 = reg().GetSchema("ReduceMean", 18, "");
  ASSERT_NE(s18, nullptr);
  EXPECT_EQ(s18->since_version(), 18);
  EXPECT_EQ(s18->max_input(), 2);
  EXPECT_EQ(s18->attributes().count("axes"), 0u);
  EXPECT_EQ(s18->attributes().count("noop_with_empty_axes"), 1u);
  EXPECT_TRUE(s18->has_type_and_shape_inference_function());
  // Below 18 (and for a later opset that changed nothing), libonnx's.
  const onnx::OpSchema* s17 = reg().GetSchema("ReduceMean", 17, "");
  ASSERT_NE(s17, nullptr);
  EXPECT_EQ(s17->since_version(), 13);
  EXPECT_EQ(s17->max_input(), 1);
  EXPECT_EQ(reg().GetSchema("ReduceMean", 22, "ai.onnx"), s18);
  EXPECT_EQ(reg().GetSchema("ReduceMax", 20, "")->since_version(), 20);
  EXPECT_TRUE(allows(*reg().GetSchema("ReduceMax", 20, ""), "T", "tensor(bool)"));
  EXPECT_FALSE(allows(*reg().GetSchema("ReduceMax", 19, ""), "T", "tensor(bool)"));
}

TEST(SchemaRegistry, Opset22_AddsBFloat16) {
  EXPECT_EQ(reg().GetSchema("Conv", 21, "")->since_version(), 11);
  EXPECT_FALSE(allows(*reg().GetSchema("Conv", 21, ""), "T", "tensor(bfloat16)"));
  const onnx::OpSchema* conv22 = reg().GetSchema("Conv", 22, "");
  EXPECT_EQ(conv22->since_version(), 22);
  EXPECT_TRUE(allows(*conv22, "T", "tensor(bfloat16)"));
  EXPECT_TRUE(allows(*conv22, "T", "tensor(float)"));
  // Derived from our own opset-19 version, so it keeps its dilations.
  EXPECT_EQ(reg().GetSchema("AveragePool", 22, "")->attributes().count("dilations"), 1u);
}

// Opset 23: DequantizeLinear's output_dtype; QuantizeLinear's y_scale gets
// its own type and a precision.
TEST(SchemaRegistry, Opset23_Quantizers) {
  const onnx::OpSchema* dq = reg().GetSchema("DequantizeLinear", 23, "");
  EXPECT_EQ(dq->since_version(), 23);
  EXPECT_EQ(dq->attributes().count("output_dtype"), 1u);
  EXPECT_EQ(dq->outputs()[0].GetTypeStr(), "T3");
  const onnx::OpSchema* q = reg().GetSchema("QuantizeLinear", 23, "");
  EXPECT_EQ(q->attributes().count("precision"), 1u);
  EXPECT_EQ(q->inputs()[1].GetTypeStr(), "T2");
  EXPECT_EQ(q->outputs()[0].GetTypeStr(), "T3");
  EXPECT_TRUE(allows(*q, "T3", "tensor(int16)"));
  EXPECT_EQ(reg().GetSchema("QuantizeLinear", 22, "")->since_version(), 21);
}

TEST(SchemaRegistry, NewOperators) {
  EXPECT_EQ(reg().GetSchema("Gelu", 19, ""), nullptr);
  const onnx::OpSchema* gelu = reg().GetSchema("Gelu", 20, "");
  ASSERT_NE(gelu, nullptr);
  EXPECT_EQ(gelu->attributes().count("approximate"), 1u);
  const onnx::OpSchema* gn18 = reg().GetSchema("GroupNormalization", 18, "");
  ASSERT_NE(gn18, nullptr);
  EXPECT_TRUE(gn18->attributes().at("num_groups").required);
  EXPECT_EQ(gn18->attributes().count("stash_type"), 0u);
  EXPECT_EQ(reg().GetSchema("GroupNormalization", 21, "")->attributes().count("stash_type"), 1u);
  const onnx::OpSchema* deform = reg().GetSchema("DeformConv", 19, "");
  ASSERT_NE(deform, nullptr);
  EXPECT_EQ(deform->inputs().size(), 5u);
  EXPECT_EQ(deform->inputs()[4].GetOption(), onnx::OpSchema::Optional);
  EXPECT_EQ(reg().GetSchema("DeformConv", 22, "")->since_version(), 22);
  // Opset 23's three, with their optional inputs and outputs.
  EXPECT_EQ(reg().GetSchema("Attention", 22, ""), nullptr);
  const onnx::OpSchema* decoder = reg().GetSchema("ImageDecoder", 20, "");
  ASSERT_NE(decoder, nullptr);
  EXPECT_EQ(reg().GetSchema("ImageDecoder", 19, ""), nullptr);
  const onnx::OpSchema* attention = reg().GetSchema("Attention", 23, "");
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->inputs().size(), 6u);
  EXPECT_EQ(attention->outputs().size(), 4u);
  EXPECT_EQ(attention->outputs()[3].GetOption(), onnx::OpSchema::Optional);
  EXPECT_TRUE(allows(*attention, "U", "tensor(bool)"));
  const onnx::OpSchema* rms = reg().GetSchema("RMSNormalization", 23, "");
  ASSERT_NE(rms, nullptr);
  EXPECT_EQ(rms->attributes().count("stash_type"), 1u);
  const onnx::OpSchema* rope = reg().GetSchema("RotaryEmbedding", 23, "");
  ASSERT_NE(rope, nullptr);
  EXPECT_EQ(rope->inputs()[3].GetName(), "position_ids");
  EXPECT_FALSE(allows(*rope, "T", "tensor(double)"));
  // Other domains are libonnx's alone.
  EXPECT_EQ(reg().GetSchema("Gelu", 20, "com.example"), nullptr);
}

}  // namespace
}  // namespace sy
