// Launchers of the CUDA recurrent gate kernels (rnn_launch.cu): the
// elementwise part of one time step of RNN, GRU or LSTM, after cuBLAS has
// computed the products with W and R (rnn_kernels.cc). Each launcher only
// enqueues on `stream` and returns the launch error; it never synchronises.
// Thread-safety: all launchers are reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cpu/kernels/rnn_cell.h"

namespace sy::cuda {

enum class RnnCellKind : int32_t { kRnn, kGru, kLstm };

// One time step of one direction, passed by value to the gate kernels.
struct RnnStep {
  RnnCellKind cell = RnnCellKind::kRnn;
  rnn::Layout layout;
  int64_t step = 0;  // steps done so far in this direction
  int32_t dir = 0;
  bool reverse = false;  // row b visits t = lens[b] - 1 - step
  bool linear_before_reset = false, input_forget = false;
  double clip = 0;  // 0: none
  rnn::Activation act[3];
  const int32_t* lens = nullptr;  // [B] on the device; null: every row has S steps
};

// Device buffers of element type float or double (`is_double`). Rows whose
// sequence has ended by this step are left alone.
struct RnnBuffers {
  const void* xw = nullptr;  // [S * B, G * H]: X W^T, row layout.x_row(t, b)
  void* hr = nullptr;        // [B, G * H]: h R^T of this step (see launch_rnn_reset_gate for GRU)
  const void* wb = nullptr;  // this direction's W bias [G * H]; null: zeros
  const void* rb = nullptr;  // this direction's R bias [G * H]; null: zeros
  const void* p = nullptr;   // this direction's LSTM peepholes [3 * H] (i, o, f); null: none
  void* h = nullptr;         // hidden state, laid out as Y_h (layout.state_at); updated in place
  void* c = nullptr;         // LSTM cell state, laid out as Y_c; updated in place
  void* rh = nullptr;        // [B, H]: GRU's r * h, the input of the second product
  void* y = nullptr;         // Y, or null when not wanted
};

// GRU without linear_before_reset, first half of a step: with hr's columns
// [0, 2H) holding h Rz^T and h Rr^T, rh = act0(r) * h.
cudaError_t launch_rnn_reset_gate(bool is_double, const RnnStep& s, const RnnBuffers& b, cudaStream_t stream);

// The gates and the new state of every row still in its sequence, and Y.
// GRU without linear_before_reset expects hr's columns [2H, 3H) to hold
// rh Rh^T.
cudaError_t launch_rnn_gates(bool is_double, const RnnStep& s, const RnnBuffers& b, cudaStream_t stream);

}  // namespace sy::cuda
