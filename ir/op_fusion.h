// Load-time rewrites of a model that every backend runs alike: Constant
// nodes made initializers, a BatchNormalization after a Conv folded into
// the Conv's weights, an Add of a same-shaped tensor (a residual
// connection) and a Relu or Clip after a Conv fused into it as
// Switchyard's FusedConv, and Gelu and LayerNormalization written out in
// arithmetic made one node each.
#pragma once

#include <string>

namespace onnx {
class ModelProto;
}

namespace sy {

// The fused convolution's domain and op. Inputs and attributes are Conv's,
// plus an optional fourth input Z shaped as the output (B may then be
// empty), `activation` ("Relu" or "Clip", or absent for none) and, for
// Clip, `activation_params` (min, max): y = activation(Conv(x, w, b) + z).
inline constexpr const char* kSwitchyardDomain = "com.switchyard";
inline constexpr const char* kFusedConv = "FusedConv";
// ONNX's Gelu (opset 20) in Switchyard's domain, so that models of any
// opset may hold it: y = x/2 (1 + erf(x / sqrt 2)), or with `approximate`
// "tanh" the tanh form, as ONNX's.
inline constexpr const char* kFusedGelu = "Gelu";
// ONNX's LayerNormalization (opset 17) in Switchyard's domain, likewise.
inline constexpr const char* kFusedLayerNorm = "LayerNormalization";

// FusedConv on channels-last tensors (ir/channels_last.h): X, Z and Y are
// [N, H, W, C] where FusedConv's are [N, C, H, W]; W, B and the attributes
// are FusedConv's. 2-D, group 1 or depthwise, float.
inline constexpr const char* kNhwcConv = "NhwcConv";
// MaxPool (2-D, without Indices) and GlobalAveragePool on channels-last
// tensors likewise: X and Y [N, H, W, C]; MaxPool's attributes.
inline constexpr const char* kNhwcMaxPool = "NhwcMaxPool";
inline constexpr const char* kNhwcGlobalAveragePool = "NhwcGlobalAveragePool";

// Whether `op` is one of the ops above, in kSwitchyardDomain.
inline bool is_switchyard_op(const std::string& op) {
  return op == kFusedConv || op == kFusedGelu || op == kFusedLayerNorm || op == kNhwcConv || op == kNhwcMaxPool ||
         op == kNhwcGlobalAveragePool;
}

struct FusionCounts {
  int constants_folded = 0;  // Constant nodes made initializers
  int batch_norms_folded = 0;
  int residuals_fused = 0;
  int activations_fused = 0;
  int gelus_fused = 0;
  int layer_norms_fused = 0;
  // ChannelsLast's (ir/channels_last.h): convolutions, MaxPool and
  // GlobalAveragePool nodes, and elementwise nodes run channels-last.
  int channels_last_convs = 0;
  int channels_last_pools = 0;
  int channels_last_elementwise = 0;
  // Whether any node became one of Switchyard's ops.
  bool any_switchyard_op() const {
    return residuals_fused + activations_fused + gelus_fused + layer_norms_fused + channels_last_convs +
               channels_last_pools >
           0;
  }
};

// An elementwise op after a convolution reads and writes the whole output
// again: on a MobileNetV2, the Clip nodes after its convolutions took 1 ms
// of 6.6 (ONNX Runtime fuses them), and a ResNet-18's Add and Relu nodes
// 0.26 ms of 13.5. Likewise the five passes of a Gelu exported before
// opset 20 (Div, Erf, Add, Mul, Mul: 260 us a BERT-base layer, against
// 90 for one Gelu), and the nine of a LayerNormalization before opset 17.
// The rewrites apply only where the result is certain to be the same up to
// rounding: float tensors, a Conv output read by nothing else (no other
// node, no subgraph, not a graph output), for folding, weights and
// statistics that are initializers no caller can override, for an Add,
// operands and a sum whose shapes shape inference (or the model) gives, all
// the same, and for the arithmetic chains, constants of the exact values
// and shapes (ChainMatcher in op_fusion.cc). Anything else is left as it is.
class OpFusion {
 public:
  // Rewrites `model`'s graphs, subgraphs included, in place. Call after the
  // model has been checked, since the nodes it makes are not ONNX's.
  // Thread-safe for distinct models.
  static FusionCounts run(onnx::ModelProto& model);
};

}  // namespace sy
