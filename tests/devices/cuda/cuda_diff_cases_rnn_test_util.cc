// Differential cases for the CUDA recurrent kernels (see
// kernel_diff_test_util.h): RNN, GRU and LSTM in both layouts and every
// direction, with biases, initial states, peepholes, sequence lengths that
// end rows early (0 included), clip, and each activation ONNX names. Values
// stay small so the gates do not all saturate, where a wrong weight would
// hide; the tolerance allows for the GEMMs' summation order compounding
// over the steps.
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {

using namespace diff;

namespace {

// Inputs X, W, R, B of a cell with `gates` gates: S steps, B batch rows, I
// inputs, H hidden units, D directions.
struct Sizes {
  int64_t S, B, I, H, D = 1;
  bool batch_first = false;
};

std::vector<DiffInput> xwrb(DataType t, const Sizes& z, int64_t gates) {
  const Dims x = z.batch_first ? Dims{z.B, z.S, z.I} : Dims{z.S, z.B, z.I};
  return {in(t, x, -1, 1), in(t, {z.D, gates * z.H, z.I}, -0.4, 0.4), in(t, {z.D, gates * z.H, z.H}, -0.4, 0.4),
          in(t, {z.D, 2 * gates * z.H}, -0.3, 0.3)};
}

Dims state(const Sizes& z) { return z.batch_first ? Dims{z.B, z.D, z.H} : Dims{z.D, z.B, z.H}; }

DiffCase rnn_case(std::string name, std::string op, std::vector<DiffInput> inputs, std::vector<Attribute> attrs,
                  size_t outputs) {
  return tol(make(std::move(name), std::move(op), std::move(inputs), std::move(attrs), outputs), 1e-4, 1e-5);
}

}  // namespace

void add_rnn_cases(std::vector<DiffCase>& cs) {
  constexpr DataType kF32 = DataType::kFloat, kF64 = DataType::kDouble, kI32 = DataType::kInt32;

  // RNN: the default Tanh; then bidirectional Relu with clip, batch first,
  // an initial state and rows that end early.
  {
    const Sizes z{7, 5, 10, 16};
    cs.push_back(rnn_case("RNN_f32_forward", "RNN", xwrb(kF32, z, 1), {attr_int("hidden_size", 16)}, 2));
  }
  {
    const Sizes z{6, 4, 9, 12, 2, true};
    auto ins = xwrb(kF32, z, 1);
    ins.push_back(values(kI32, {6, 0, 3, 5}));
    ins.push_back(in(kF32, state(z), -1, 1));
    cs.push_back(rnn_case("RNN_f32_bidirectional_relu_clip_layout1_lens", "RNN", ins,
                          {attr_int("hidden_size", 12), attr_string("direction", "bidirectional"),
                           attr_strings("activations", {"Relu", "LeakyRelu"}), attr_floats("activation_alpha", {0.1f}),
                           attr_float("clip", 0.75f), attr_int("layout", 1)},
                          2));
  }

  // GRU: both linear_before_reset forms, reverse, double, and the
  // activations that take alpha and beta.
  {
    const Sizes z{8, 6, 11, 20};
    auto ins = xwrb(kF32, z, 3);
    ins.push_back(omitted());
    ins.push_back(in(kF32, state(z), -1, 1));
    cs.push_back(rnn_case("GRU_f32_forward_initial_h", "GRU", ins, {attr_int("hidden_size", 20)}, 2));
  }
  {
    const Sizes z{9, 5, 7, 13, 1, true};
    cs.push_back(rnn_case("GRU_f32_reverse_linear_before_reset_layout1", "GRU", xwrb(kF32, z, 3),
                          {attr_int("hidden_size", 13), attr_string("direction", "reverse"),
                           attr_int("linear_before_reset", 1), attr_int("layout", 1)},
                          2));
  }
  {
    const Sizes z{7, 5, 6, 10, 2};
    auto ins = xwrb(kF64, z, 3);
    ins.push_back(values(kI32, {7, 2, 0, 5, 1}));
    cs.push_back(
        rnn_case("GRU_f64_bidirectional_lens_hardsigmoid_scaledtanh", "GRU", ins,
                 {attr_int("hidden_size", 10), attr_string("direction", "bidirectional"),
                  attr_strings("activations", {"HardSigmoid", "ScaledTanh", "Sigmoid", "Softsign"}),
                  attr_floats("activation_alpha", {0.3f, 0.9f}), attr_floats("activation_beta", {0.45f, 1.3f})},
                 2));
  }

  // LSTM: every input (peepholes, both initial states, lengths), both
  // layouts, input_forget, clip, and the remaining activations.
  {
    const Sizes z{6, 5, 8, 14};
    auto ins = xwrb(kF32, z, 4);
    ins.push_back(values(kI32, {6, 3, 0, 1, 6}));
    ins.push_back(in(kF32, state(z), -1, 1));
    ins.push_back(in(kF32, state(z), -1, 1));
    ins.push_back(in(kF32, {1, 3 * z.H}, -0.5, 0.5));
    cs.push_back(rnn_case("LSTM_f32_all_inputs", "LSTM", ins, {attr_int("hidden_size", 14)}, 3));
  }
  {
    const Sizes z{5, 4, 6, 9, 2, true};
    auto ins = xwrb(kF32, z, 4);
    ins.push_back(omitted());
    ins.push_back(in(kF32, state(z), -1, 1));
    ins.push_back(in(kF32, state(z), -1, 1));
    ins.push_back(in(kF32, {2, 3 * z.H}, -0.5, 0.5));
    cs.push_back(rnn_case(
        "LSTM_f32_bidirectional_input_forget_clip_layout1", "LSTM", ins,
        {attr_int("hidden_size", 9), attr_string("direction", "bidirectional"), attr_int("input_forget", 1),
         attr_float("clip", 0.6f), attr_int("layout", 1),
         attr_strings("activations", {"Sigmoid", "Elu", "Softplus", "HardSigmoid", "Affine", "ThresholdedRelu"}),
         attr_floats("activation_alpha", {0.8f, 0.25f, 1.5f, 0.1f}), attr_floats("activation_beta", {0.5f, 0.2f})},
        3));
  }
  {
    const Sizes z{5, 3, 4, 6};
    auto ins = xwrb(kF64, z, 4);
    cs.push_back(rnn_case("LSTM_f64_reverse", "LSTM", ins,
                          {attr_int("hidden_size", 6), attr_string("direction", "reverse")}, 3));
  }
  // Several blocks per step and a projection larger than one grid pass.
  {
    const Sizes z{12, 64, 96, 160};
    cs.push_back(rnn_case("LSTM_f32_wide", "LSTM", xwrb(kF32, z, 4), {attr_int("hidden_size", 160)}, 3));
  }
  // No time steps: Y is empty and the final states are the initial ones.
  {
    const Sizes z{0, 3, 4, 5};
    auto ins = xwrb(kF32, z, 3);
    ins.push_back(omitted());
    ins.push_back(in(kF32, state(z), -1, 1));
    cs.push_back(rnn_case("GRU_f32_no_steps", "GRU", ins, {attr_int("hidden_size", 5)}, 2));
  }
}

}  // namespace sy::testing
