// Differential cases for the CUDA quantization kernels (see
// kernel_diff_test_util.h): QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear and Dropout. Quantized outputs are integers, so
// they must match the CPU exactly: whole-number inputs over a scale of 2
// (or 0.5) give exact halves, where rounding to nearest even differs from
// rounding away from zero, and wide ranges saturate at both ends.
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {

using namespace diff;

void add_quant_cases(std::vector<DiffCase>& cs) {
  constexpr DataType kU8 = DataType::kUInt8, kI8 = DataType::kInt8, kU16 = DataType::kUInt16, kI16 = DataType::kInt16,
                     kI32 = DataType::kInt32;
  // Per tensor, ties and saturation on both sides of uint8.
  cs.push_back(
      make("QuantizeLinear_f32_u8_ties", "QuantizeLinear",
           {whole_f32({1000, 37}, -300, 800), values(DataType::kFloat, {2}, Dims{}), values(kU8, {128}, Dims{})}));
  // Per axis, with the specials: NaN gives the zero point's 0, infinities
  // saturate.
  cs.push_back(
      make("QuantizeLinear_f32_i8_axis1_specials", "QuantizeLinear",
           {values(DataType::kFloat, {kNaN, kInf, -kInf, 0.25, -0.25, 300, -300, 1.5, 2.5, -3.5, 7, 1}, Dims{2, 3, 2}),
            values(DataType::kFloat, {0.5, 1, 0.125}), values(kI8, {-3, 0, 5})},
           {attr_int("axis", 1)}));
  cs.push_back(make("QuantizeLinear_f32_i8_axis_neg", "QuantizeLinear",
                    {f32({4, 64, 33}, -20, 20), f32({33}, 0.05, 0.3), in(kI8, {33}, -10, 10)}, {attr_int("axis", -1)}));
  cs.push_back(opset(make("QuantizeLinear_f16_i16", "QuantizeLinear",
                          {in(kF16, {300, 40}, -1000, 1000), values(kF16, {0.25}, Dims{}), values(kI16, {-7}, Dims{})}),
                     19));
  cs.push_back(
      opset(make("QuantizeLinear_bf16_u16_axis0", "QuantizeLinear",
                 {in(kBF16, {3, 500}, -100, 100), values(kBF16, {0.5, 0.03125, 2}), values(kU16, {0, 30000, 65535})},
                 {attr_int("axis", 0)}),
            21));
  // A double x divides in double; an int32 x in float; a float16 scale for
  // a float x is widened first.
  cs.push_back(opset(
      make("QuantizeLinear_f64_i32", "QuantizeLinear",
           {f64({5000}, -1e12, 1e12), values(DataType::kDouble, {1000.5}, Dims{}), values(kI32, {12345}, Dims{})}),
      21));
  cs.push_back(opset(make("QuantizeLinear_i32_u8_no_zero_point", "QuantizeLinear",
                          {i32({5000}, -100, 600), values(DataType::kFloat, {2}, Dims{})}),
                     21));
  cs.push_back(opset(make("QuantizeLinear_f32_by_f16_scale_output_dtype_i8", "QuantizeLinear",
                          {f32({64, 65}, -50, 50), values(kF16, {0.3}, Dims{})}, {attr_int("output_dtype", 3)}),
                     21));
  cs.push_back(
      opset(make("QuantizeLinear_f32_precision_double", "QuantizeLinear",
                 {f32({5000}, -1000, 1000), values(DataType::kFloat, {0.1}, Dims{}), values(kI16, {3}, Dims{})},
                 {attr_int("precision", 11)}),
            23));

  // Opset 21's blocks: along the innermost axis with a short last block,
  // and along an outer axis.
  cs.push_back(opset(make("QuantizeLinear_f32_i8_blocked_last_axis", "QuantizeLinear",
                          {f32({6, 70}, -20, 20), f32({6, 3}, 0.05, 0.3), in(kI8, {6, 3}, -10, 10)},
                          {attr_int("axis", -1), attr_int("block_size", 32)}),
                     21));
  cs.push_back(opset(make("DequantizeLinear_u8_blocked_axis0", "DequantizeLinear",
                          {in(kU8, {9, 5, 4}, 0, 255), f32({3, 5, 4}, 0.01, 0.5), in(kU8, {3, 5, 4}, 0, 255)},
                          {attr_int("axis", 0), attr_int("block_size", 4)}),
                     21));
  cs.push_back(
      make("DequantizeLinear_u8", "DequantizeLinear",
           {in(kU8, {1000, 37}, 0, 255), values(DataType::kFloat, {0.02}, Dims{}), values(kU8, {128}, Dims{})}));
  cs.push_back(make("DequantizeLinear_i8_axis1_f16_scale", "DequantizeLinear",
                    {in(kI8, {4, 64, 33}, -128, 127), in(kF16, {64}, 0.01, 0.5), in(kI8, {64}, -10, 10)}));
  cs.push_back(opset(
      make("DequantizeLinear_i32_f64_scale", "DequantizeLinear",
           {i32({5000}, -2e9, 2e9), values(DataType::kDouble, {1e-3}, Dims{}), values(kI32, {-2000000000}, Dims{})}),
      21));
  cs.push_back(opset(make("DequantizeLinear_i16_no_zero_point_bf16", "DequantizeLinear",
                          {in(kI16, {300, 41}, -32768, 32767), values(kBF16, {0.0625}, Dims{})}),
                     21));
  cs.push_back(
      opset(make("DequantizeLinear_u16_output_dtype_f16", "DequantizeLinear",
                 {in(kU16, {2, 700}, 0, 65535), values(DataType::kFloat, {0.001, 0.01}), values(kU16, {1000, 60000})},
                 {attr_int("axis", 0), attr_int("output_dtype", 10)}),
            23));

  // The range includes 0 whatever the data; NaN is skipped; a zero range
  // gives the scale 1/255.
  cs.push_back(make("DynamicQuantizeLinear_f32", "DynamicQuantizeLinear", {f32({1000, 33}, -3, 7)}, {}, 3));
  cs.push_back(make("DynamicQuantizeLinear_positive", "DynamicQuantizeLinear", {f32({70, 70}, 2, 9)}, {}, 3));
  cs.push_back(make("DynamicQuantizeLinear_nan_and_zero_range", "DynamicQuantizeLinear",
                    {values(DataType::kFloat, {0, kNaN, 0, 0})}, {}, 3));
  cs.push_back(make("DynamicQuantizeLinear_zeros", "DynamicQuantizeLinear", {f32({3, 5}, 0, 0)}, {}, 3));

  cs.push_back(opset(make("Dropout_inference_bool_mask", "Dropout", {f32({300, 41})}, {}, 2), 13));
  cs.push_back(opset(
      make("Dropout_training_off", "Dropout",
           {in(kF16, {5000}), values(DataType::kFloat, {0.3}, Dims{}), values(DataType::kBool, {0}, Dims{})}, {}, 2),
      13));
  cs.push_back(opset(make("Dropout_ratio_0_in_training", "Dropout",
                          {f64({5000}), values(DataType::kFloat, {0}, Dims{}), values(DataType::kBool, {1}, Dims{})}),
                     13));
  cs.push_back(opset(make("Dropout_opset7_typed_mask", "Dropout", {in(kBF16, {2, 999})}, {}, 2), 7));
  cs.push_back(
      declined(opset(make("Dropout_training_declined", "Dropout",
                          {f32({100}), values(DataType::kFloat, {0.5}, Dims{}), values(DataType::kBool, {1}, Dims{})},
                          {attr_int("seed", 7)}, 2),
                     13)));
}

}  // namespace sy::testing
