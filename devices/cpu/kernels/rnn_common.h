// Attributes and input checks of ONNX RNN, GRU and LSTM, shared by the CPU
// kernels (rnn_kernels.cc) and the CUDA ones (devices/cuda/kernels/
// rnn_kernels.cc), so that both accept and refuse the same nodes with the
// same messages.
#pragma once

#include <cstdint>
#include <vector>

#include "devices/cpu/kernels/rnn_cell.h"
#include "devices/kernel.h"

namespace sy::nn {

enum class RnnCell { kRnn, kGru, kLstm };

// Every attribute, parsed and checked once, at init().
struct RnnAttrs {
  RnnCell cell = RnnCell::kRnn;
  int64_t hidden = 0;  // 0: from W's shape
  int dirs = 1;
  bool reverse_only = false;  // direction "reverse"
  bool batch_first = false;   // layout 1
  float clip = 0;             // 0: none
  bool linear_before_reset = false, input_forget = false;
  int nact = 1;                          // activations per direction
  std::vector<rnn::Activation> acts;     // nact per direction, direction 0 first
};

StatusOr<RnnAttrs> rnn_attrs(const Node& node, RnnCell cell);

const char* rnn_op_name(RnnCell cell);

// The sizes of one call, after checking X, W, R, B, sequence_lens,
// initial_h, initial_c and P against each other and the attributes.
struct RnnPlan {
  int64_t S = 0, B = 0, I = 0, H = 0, G = 0;  // steps, batch, input, hidden, gates
  std::vector<int64_t> lens;                  // per batch row, each in [0, S]
  int64_t max_len = 0;                        // the largest of lens (0 for no rows)
  Dims state, y;                              // Y_h / Y_c's and Y's dims
  rnn::Layout layout;
};

// Checks the inputs; reads sequence_lens, which must be in host memory
// (the CUDA kernel registers it as a host input). InvalidArgument for
// mismatched shapes or lengths, Unimplemented for a type other than float
// or double.
StatusOr<RnnPlan> plan_rnn(const KernelContext& ctx, const RnnAttrs& a);

// Y, Y_h and (LSTM) Y_c, each allocated only when a consumer wants it;
// null otherwise.
struct RnnOutputs {
  Tensor *y = nullptr, *yh = nullptr, *yc = nullptr;
};
StatusOr<RnnOutputs> allocate_rnn_outputs(KernelContext& ctx, const RnnAttrs& a, const RnnPlan& p);

}  // namespace sy::nn
