// Differential cases for the CUDA integer products (see
// kernel_diff_test_util.h). MatMulInteger and QLinearMatMul: every
// pairing of int8 and uint8, zero
// points and scales absent, per tensor, per row and per column, partial
// tiles, several k slices, broadcast batches (split into runs), 1-D
// operands, an empty k, saturating outputs, 16-bit scales, and the types
// the kernel leaves to the CPU. ConvInteger and QLinearConv: padding
// (which must add nothing), strides, dilations, groups, depthwise, 1-D to
// 3-D, per-channel zero points and scales, bias, SAME_UPPER, and several
// images of several groups. Integer outputs must match exactly.
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {

using namespace diff;

namespace {

constexpr DataType kU8 = DataType::kUInt8, kI8 = DataType::kInt8;

DiffInput u8(Dims d) { return in(kU8, std::move(d), 0, 255); }
DiffInput s8(Dims d) { return in(kI8, std::move(d), -128, 127); }

// QLinearMatMul of a and b with scales drawn from [lo, hi] (per tensor
// when `rows`/`cols` is 0) and y = (y_scale, y_zero of y_type).
DiffCase qlinear(std::string name, DiffInput a, DiffInput a_zero, DiffInput b, DiffInput b_zero, int64_t rows,
                 int64_t cols, double y_scale, DiffInput y_zero) {
  const auto scale = [](int64_t n) { return n == 0 ? scalar(DataType::kFloat, 0.015) : f32({n}, 0.005, 0.03); };
  return make(std::move(name), "QLinearMatMul",
              {std::move(a), scale(rows), std::move(a_zero), std::move(b), scale(cols), std::move(b_zero),
               scalar(DataType::kFloat, y_scale), std::move(y_zero)});
}

// QLinearConv of x and w with a per-tensor x_scale, w_scale per channel
// (`channels` values) or per tensor (0), an int32 bias of `bias` values
// (0: none), and y = (y_scale, y_zero).
DiffCase qconv(std::string name, DiffInput x, DiffInput x_zero, DiffInput w, DiffInput w_zero, int64_t channels,
               int64_t bias, double y_scale, DiffInput y_zero, std::vector<Attribute> attrs) {
  std::vector<DiffInput> ins = {std::move(x),
                                scalar(DataType::kFloat, 0.02),
                                std::move(x_zero),
                                std::move(w),
                                channels == 0 ? scalar(DataType::kFloat, 0.01) : f32({channels}, 0.004, 0.02),
                                std::move(w_zero),
                                scalar(DataType::kFloat, y_scale),
                                std::move(y_zero)};
  if (bias > 0) ins.push_back(in(DataType::kInt32, {bias}, -3000, 3000));
  return make(std::move(name), "QLinearConv", std::move(ins), std::move(attrs));
}

}  // namespace

void add_int_conv_cases(std::vector<DiffCase>& cs) {
  const Attribute pad1 = attr_ints("pads", {1, 1, 1, 1});
  cs.push_back(make("ConvInteger_u8_scalar_zeros_padded", "ConvInteger",
                    {u8({1, 3, 10, 12}), u8({8, 3, 3, 3}), scalar(kU8, 120), scalar(kU8, 128)}, {pad1}));
  cs.push_back(make("ConvInteger_i8_per_channel_strided_dilated", "ConvInteger",
                    {s8({2, 4, 15, 15}), s8({8, 4, 3, 3}), scalar(kI8, -2), in(kI8, {8}, -6, 6)},
                    {attr_ints("strides", {2, 2}), attr_ints("dilations", {2, 2})}));
  cs.push_back(make("ConvInteger_grouped_per_channel_zeros", "ConvInteger",
                    {u8({1, 4, 9, 9}), u8({6, 2, 3, 3}), scalar(kU8, 9), in(kU8, {6}, 0, 255)},
                    {attr_int("group", 2), pad1}));
  cs.push_back(make("ConvInteger_1d", "ConvInteger", {u8({2, 3, 20}), s8({4, 3, 5}), scalar(kU8, 3)},
                    {attr_ints("pads", {2, 2})}));
  cs.push_back(make("ConvInteger_3d_no_zeros", "ConvInteger", {s8({1, 2, 5, 6, 7}), s8({3, 2, 2, 3, 2})}));
  cs.push_back(qconv("QLinearConv_u8_per_tensor_bias", u8({1, 8, 14, 14}), scalar(kU8, 128), u8({16, 8, 3, 3}),
                     scalar(kU8, 127), 0, 16, 0.6, scalar(kU8, 120), {pad1}));
  cs.push_back(qconv("QLinearConv_i8_depthwise_per_channel", s8({2, 8, 12, 12}), scalar(kI8, 1), s8({8, 1, 3, 3}),
                     values(kI8, {0, 0, 0, 0, 0, 0, 0, 0}), 8, 8, 0.05, scalar(kI8, -5), {attr_int("group", 8), pad1}));
  cs.push_back(qconv("QLinearConv_u8_by_i8_to_i8_saturating_same_upper", u8({1, 6, 11, 13}), scalar(kU8, 100),
                     s8({5, 6, 3, 3}), scalar(kI8, 0), 5, 0, 0.02, scalar(kI8, 4),
                     {attr_string("auto_pad", "SAME_UPPER"), attr_ints("strides", {2, 2})}));
  cs.push_back(qconv("QLinearConv_many_tiles", u8({1, 16, 32, 32}), scalar(kU8, 128), u8({80, 16, 3, 3}),
                     scalar(kU8, 128), 80, 80, 2.0, scalar(kU8, 128), {pad1}));
  // Three images of two groups: the GEMM's weight blocks cycle per image.
  cs.push_back(qconv("QLinearConv_batched_groups_per_channel", s8({3, 4, 7, 7}), scalar(kI8, 0), s8({6, 2, 3, 3}),
                     in(kI8, {6}, -3, 3), 6, 6, 0.1, scalar(kI8, 0), {attr_int("group", 2)}));
}

void add_int_matmul_cases(std::vector<DiffCase>& cs) {
  cs.push_back(make("MatMulInteger_u8_scalar_zeros", "MatMulInteger",
                    {u8({33, 70}), u8({70, 45}), scalar(kU8, 128), scalar(kU8, 3)}));
  cs.push_back(make("MatMulInteger_i8_by_u8_per_row_and_column", "MatMulInteger",
                    {s8({2, 3, 65, 40}), u8({40, 130}), in(kI8, {65}, -10, 10), in(kU8, {130}, 0, 255)}));
  cs.push_back(make("MatMulInteger_broadcast_batches_no_zeros", "MatMulInteger", {s8({2, 1, 5, 7}), s8({1, 3, 7, 9})}));
  cs.push_back(make("MatMulInteger_1d_a", "MatMulInteger", {u8({17}), s8({17, 20}), scalar(kU8, 7)}));
  cs.push_back(make("MatMulInteger_empty_k", "MatMulInteger", {u8({4, 0}), u8({0, 5})}));
  cs.push_back(make("MatMulInteger_many_tiles", "MatMulInteger", {s8({300, 256}), s8({256, 200})}));
  cs.push_back(qlinear("QLinearMatMul_u8_per_tensor", u8({64, 100}), scalar(kU8, 120), u8({100, 80}), scalar(kU8, 130),
                       0, 0, 0.6, scalar(kU8, 128)));
  cs.push_back(qlinear("QLinearMatMul_i8_per_row_and_column_batched", s8({3, 20, 50}), in(kI8, {20}, -5, 5),
                       s8({50, 30}), in(kI8, {30}, -5, 5), 20, 30, 0.4, scalar(kI8, -3)));
  cs.push_back(qlinear("QLinearMatMul_u8_by_i8_to_i8_saturating", u8({70, 90}), scalar(kU8, 0), s8({90, 66}),
                       scalar(kI8, 0), 0, 66, 0.01, scalar(kI8, 10)));
  cs.push_back(qlinear("QLinearMatMul_empty_k_gives_zero_point", u8({3, 0}), scalar(kU8, 1), u8({0, 4}), scalar(kU8, 2),
                       0, 0, 1, scalar(kU8, 77)));
  // Opset 21's 16-bit scales, per row and per tensor.
  cs.push_back(opset(make("QLinearMatMul_f16_and_bf16_scales", "QLinearMatMul",
                          {s8({40, 24}), in(kF16, {40}, 0.005, 0.03), scalar(kI8, 2), s8({24, 36}), scalar(kBF16, 0.02),
                           scalar(kI8, -1), scalar(kF16, 0.3), scalar(kI8, 0)}),
                     21));
  // ONNX's own example (test_qlinearmatmul_2D_uint8_float16): [1]-shaped
  // 16-bit scales.
  cs.push_back(
      opset(make("QLinearMatMul_onnx_example_f16", "QLinearMatMul",
                 {values(kU8, {208, 236, 0, 238, 3, 214, 255, 29}, Dims{2, 4}), values(kF16, {0.0066}),
                  values(kU8, {113}), values(kU8, {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247}, Dims{4, 3}),
                  values(kF16, {0.00705}), values(kU8, {114}), values(kF16, {0.0107}), values(kU8, {118})}),
            21));
  // A zero point of another type than its matrix, which ONNX does not
  // allow: the CPU reads it, CUDA declines.
  cs.push_back(
      declined(make("MatMulInteger_i8_zero_for_u8", "MatMulInteger", {u8({4, 6}), u8({6, 5}), scalar(kI8, 1)})));
}

}  // namespace sy::testing
