// A load-time rewrite that runs chains of convolutions on channels-last
// ([N, H, W, C]) tensors, for sessions on CPUs only.
#pragma once

#include "ir/op_fusion.h"

namespace onnx {
class ModelProto;
}

namespace sy {

// oneDNN's fast CPU convolutions (brgconv, and brdgmm for depthwise ones)
// read and write channels-last tensors. Between ONNX's NCHW nodes each
// convolution had to transpose its input and output, and the kernels that
// avoid that (Switchyard's own 1x1 and depthwise kernels) stream planes,
// not pixels: a MobileNetV2 took 4.0 ms where oneDNN runs its 52
// convolutions back to back in NHWC in 2.4, and ONNX Runtime, which keeps
// its own blocked layout from one convolution to the next, the network in
// 3.4.
//
// So the nodes that can run on channels-last tensors become nodes that do:
// - a float 2-D Conv or FusedConv of group 1 or depthwise (group = C = M)
//   whose weights are a constant initializer: Switchyard's NhwcConv
//   (ir/op_fusion.h);
// - a MaxPool without Indices, a GlobalAveragePool: NhwcMaxPool,
//   NhwcGlobalAveragePool (a ResNet's stem feeds its MaxPool; networks end
//   in a GlobalAveragePool, whose NHWC output has the NCHW one's bytes);
// - elementwise ops without axes (activations, and Add, Sub, Mul and Div of
//   two 4-D inputs, whose broadcasting matches axis by axis in either
//   layout): the same node, on the channels-last values. A HardSwish that
//   alone reads a convolution's output runs in its epilogue.
// Such nodes that read one another's outputs form a part, and a part is
// rewritten if it holds two convolutions, or one and a pool: a convolution
// alone, with its activation, gains less than the two transposes around it
// cost. A rewritten node's channels-last inputs are its neighbours'
// outputs, or a Transpose of the NCHW value, made once however many nodes
// read it; a Transpose back to NCHW is made only for the readers outside
// the part (other nodes, subgraphs, graph outputs).
//
// The rewritten model runs only where NhwcConv has a kernel, the CPU; the
// loader applies it on request (LoadOptions::channels_last), which the CLI
// makes when every device is a CPU.
class ChannelsLast {
 public:
  // Rewrites `model`'s graphs, subgraphs included, in place; adds the
  // nodes rewritten to `counts` (channels_last_*). Call after OpFusion, so
  // that the residual Adds and activations are in the convolutions already.
  static void run(onnx::ModelProto& model, FusionCounts& counts);
};

}  // namespace sy
