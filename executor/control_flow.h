// If, Loop, Scan and SequenceMap as child frames of the same run loop. Only
// the predicate, trip count or condition scalars are read on the host (and
// scan outputs, and scan inputs sliced along a later axis, gathered there); the
// body's nodes go through the same policy and placement as any other node.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "executor/frame.h"

namespace sy {

class RunLoop;

// Scan's attributes, parsed once per Scan execution rather than per step.
struct ScanAttrs {
  size_t num_scan = 0, num_state = 0;
  bool v8 = false;  // opset 8: leading sequence_lens input and a batch axis
  std::vector<int64_t> in_axes, in_dirs, out_axes, out_dirs;
};

// Per control-flow node, per frame instance: child frames (reused across
// iterations) and iteration state.
struct ControlState {
  std::unique_ptr<Frame> child[2];  // If: then/else; others: body in [0]
  int active = 0;
  int64_t iter = 0;
  int64_t trip_count = -1;  // Loop: -1 = no limit; Scan/SequenceMap: length
  bool cond = true;
  std::vector<RuntimeValue> carried;           // Loop/Scan state variables
  std::vector<std::vector<Tensor>> scans;      // per scan output, per iteration
  std::vector<RuntimeValue> scan_inputs;       // Scan: (per batch) scan inputs
  // Scan opset 8: batch loop around the sequence loop.
  int64_t batch = 0, num_batches = 1;
  std::optional<Tensor> sequence_lens;                   // on the host, brought once for all batches
  std::vector<std::vector<RuntimeValue>> batch_outputs;  // per output, per batch
  ScanAttrs scan;
};

class ControlFlow {
 public:
  // Node `n` of `frame` became ready.
  static Status start(RunLoop& loop, Frame& frame, NodeId n);
  // `child` (a frame of node `n` of `parent`) finished all its nodes.
  static Status child_done(RunLoop& loop, Frame& parent, NodeId n, Frame& child);
};

// Tensor helpers shared by the control-flow ops, on tensors in host memory.
// The sub-tensor at `index` along `axis`, with that axis removed.
StatusOr<Tensor> slice_along(const Tensor& t, int64_t axis, int64_t index);
// Stacks equally shaped tensors along a new axis `axis`.
StatusOr<Tensor> stack_along(const std::vector<Tensor>& parts, int64_t axis, DataType dtype_if_empty,
                             const Dims& item_dims_if_empty);

}  // namespace sy
