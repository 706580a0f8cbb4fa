// Load-time rewrites of a model that every backend runs alike: a
// BatchNormalization after a Conv folded into the Conv's weights, and a
// Relu or Clip after a Conv fused into it as Switchyard's FusedConv.
#pragma once

namespace onnx {
class ModelProto;
}

namespace sy {

// The fused convolution's domain and op. Inputs and attributes are Conv's,
// plus `activation` ("Relu" or "Clip") and, for Clip, `activation_params`
// (min, max): y = activation(Conv(x, w, b)).
inline constexpr const char* kSwitchyardDomain = "com.switchyard";
inline constexpr const char* kFusedConv = "FusedConv";

struct FusionCounts {
  int batch_norms_folded = 0;
  int activations_fused = 0;
};

// An elementwise op after a convolution reads and writes the whole output
// again: on a MobileNetV2, the Clip nodes after its convolutions took 1 ms
// of 6.6 (ONNX Runtime fuses them). Both rewrites apply only where the
// result is certain to be the same up to rounding: float tensors, a Conv
// output read by nothing else (no other node, no subgraph, not a graph
// output), and for folding, weights and statistics that are initializers
// no caller can override. Anything else is left as it is.
class OpFusion {
 public:
  // Rewrites `model`'s graphs, subgraphs included, in place. Call after the
  // model has been checked, since its FusedConv nodes are not ONNX's.
  // Thread-safe for distinct models.
  static FusionCounts run(onnx::ModelProto& model);
};

}  // namespace sy
