// The differential cases for the CUDA kernels (see kernel_diff_test_util.h).
// Sizes are chosen to cross the launch geometry: more elements than one
// block or one grid-stride pass, odd extents that leave ragged tails,
// reductions long enough to need several passes, and broadcasts that stride
// on every axis. Value ranges keep each op inside its domain, so a mismatch
// is the kernel's, not the data's.
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {
namespace {

using namespace diff;

void add_elementwise(std::vector<DiffCase>& cs) {
  // Binary ops with broadcasting on every axis, ragged sizes, several types.
  cs.push_back(make("Add_f32_4d_broadcast", "Add", {f32({2, 3, 64, 65}), f32({3, 1, 65})}));
  cs.push_back(make("Add_f32_scalar_1M", "Add", {f32({(1 << 20) + 3}), f32({})}));
  cs.push_back(make("Add_f32_outer", "Add", {f32({300, 1}), f32({1, 257})}));
  cs.push_back(tol(make("Add_f16", "Add", {in(kF16, {4, 1000}), in(kF16, {1000})}), 1e-3, 1e-3));
  cs.push_back(tol(make("Add_bf16", "Add", {in(kBF16, {4, 1000}), in(kBF16, {4, 1})}), 1e-2, 1e-2));
  cs.push_back(make("Add_i64", "Add", {i64({1000, 37}, -1e6, 1e6), i64({37}, -1e6, 1e6)}));
  cs.push_back(make("Add_u8_wraps", "Add", {in(DataType::kUInt8, {777}, 0, 255), in(DataType::kUInt8, {777}, 0, 255)}));
  cs.push_back(make("Sub_f64", "Sub", {f64({513, 129}), f64({129})}));
  cs.push_back(make("Mul_i32", "Mul", {i32({4096, 17}, -1000, 1000), i32({4096, 1}, -1000, 1000)}));
  cs.push_back(make("Div_f32", "Div", {f32({2, 2000}), nonzero(f32({2000}, -3, 3))}));
  cs.push_back(make("Div_i32_truncates", "Div", {i32({3000}, -50, 50), nonzero(i32({3000}, -7, 7))}));
  cs.push_back(make("Equal_i64", "Equal", {i64({100, 100}, 0, 3), i64({100, 1}, 0, 3)}));
  cs.push_back(make("Greater_f32", "Greater", {whole_f32({64, 300}, -3, 3), whole_f32({300}, -3, 3)}));
  cs.push_back(make("Less_f64", "Less", {f64({5000}), f64({})}));
  cs.push_back(make("GreaterOrEqual_i32", "GreaterOrEqual", {i32({50, 60}, -2, 2), i32({50, 1}, -2, 2)}));
  cs.push_back(make("LessOrEqual_f32", "LessOrEqual", {whole_f32({7, 1, 300}, -2, 2), whole_f32({9, 1}, -2, 2)}));
  cs.push_back(make("And_bool", "And", {boolean({1000, 33}), boolean({33})}));
  cs.push_back(make("Or_bool", "Or", {boolean({33, 1000}), boolean({33, 1})}));
  cs.push_back(make("Xor_bool", "Xor", {boolean({2049}), boolean({2049})}));
  cs.push_back(opset(make("BitwiseAnd_i32", "BitwiseAnd", {i32({3000}, -1e9, 1e9), i32({3000}, -1e9, 1e9)}), 18));
  cs.push_back(opset(make("BitwiseOr_u8", "BitwiseOr",
                          {in(DataType::kUInt8, {30, 100}, 0, 255), in(DataType::kUInt8, {100}, 0, 255)}), 18));
  cs.push_back(opset(make("BitwiseXor_i64", "BitwiseXor", {i64({3000}, -1e12, 1e12), i64({1}, -1e12, 1e12)}), 18));
  cs.push_back(make("Mod_i32_sign_of_divisor", "Mod", {i32({4000}, -100, 100), nonzero(i32({4000}, -9, 9))}));
  cs.push_back(make("Mod_i64_fmod", "Mod", {i64({4000}, -100, 100), nonzero(i64({4000}, -9, 9))},
                    {attr_int("fmod", 1)}));
  cs.push_back(make("Mod_f32_fmod", "Mod", {f32({4000}, -10, 10), nonzero(f32({4000}, -3, 3))}, {attr_int("fmod", 1)}));
  cs.push_back(make("BitShift_left_u32", "BitShift",
                    {in(DataType::kUInt32, {3000}, 0, 1e9), in(DataType::kUInt32, {3000}, 0, 31)},
                    {attr_string("direction", "LEFT")}));
  cs.push_back(make("BitShift_right_u64", "BitShift",
                    {in(DataType::kUInt64, {3000}, 0, 1e15), in(DataType::kUInt64, {1}, 0, 40)},
                    {attr_string("direction", "RIGHT")}));
  cs.push_back(tol(make("Pow_f32", "Pow", {f32({100, 300}, 0.1, 3), f32({300}, -2, 3)}), 1e-5, 1e-5));
  cs.push_back(make("Pow_i32_by_whole_floats", "Pow", {i32({3000}, -6, 6), whole_f32({3000}, 0, 5)}));
  // Integer powers that CUDA's pow misses by an ulp (9^0.5 = 2.9999999999999996
  // truncates to 2): roots of perfect powers, and powers past 2^53 that the
  // CPU's pow rounds (none an exact midpoint, where libms may differ).
  cs.push_back(make("Pow_i64_exact_by_floats", "Pow",
                    {values(DataType::kInt64, {9, 81, 4, 361, 64, 441, 3, 2, 27, 20, -3, -8, 4294967296.0,
                                               1853020188851841.0, 21, 3, 6, 4, 27, -27, 0, 1, 7}),
                     values(DataType::kFloat, {0.5, 0.25, 5.5, 1.5, 3.5, 1.5, 1, 11, 9, 11, 1, 7, 0.03125, 0.03125,
                                               12, 33, 22, 30, 12, 9, 0.5, 0.75, 0})}));
  cs.push_back(make("PRelu_f32", "PRelu", {f32({2, 64, 33, 33}), f32({64, 1, 1})}));
  cs.push_back(make("Max_f32_3way", "Max", {f32({64, 1, 33}), f32({1, 50, 33}), f32({33})}));
  cs.push_back(make("Min_i64", "Min", {i64({5000}, -1e9, 1e9), i64({5000}, -1e9, 1e9)}));
  cs.push_back(make("Sum_f32_4way", "Sum", {f32({300, 257}), f32({257}), f32({300, 1}), f32({})}));
  cs.push_back(make("Mean_f64", "Mean", {f64({77, 1, 91}), f64({1, 13, 91})}));
  // More inputs than the element type counts: the divisor must not wrap
  // (130 as int8 is -126; 256 as uint8 is 0).
  cs.push_back(make("Mean_i8_130_inputs", "Mean", std::vector<DiffInput>(130, in(DataType::kInt8, {3, 5}, -100, 100))));
  cs.push_back(make("Mean_u8_256_inputs", "Mean", std::vector<DiffInput>(256, in(DataType::kUInt8, {3, 5}, 0, 255))));
  cs.push_back(make("Where_broadcast", "Where", {boolean({100, 1, 64}), f32({1, 200, 64}), f32({64})}));
  cs.push_back(make("Where_i64", "Where", {boolean({5000}), i64({5000}, -9, 9), i64({}, -9, 9)}));

  // Unary ops over a million elements each, inside their domains.
  const Dims big{1000, 1001};
  struct U {
    const char* op;
    double lo, hi;
    int opset;
    std::vector<Attribute> attrs;
  };
  const std::vector<U> unary = {
      {"Abs", -5, 5, 13, {}},          {"Neg", -5, 5, 13, {}},
      {"Reciprocal", 0.1, 5, 13, {}},  {"Sqrt", 0, 100, 13, {}},
      {"Exp", -10, 10, 13, {}},        {"Log", 0.01, 100, 13, {}},
      {"Floor", -5, 5, 13, {}},        {"Ceil", -5, 5, 13, {}},
      {"Round", -5, 5, 11, {}},        {"Sign", -2, 2, 13, {}},
      {"Erf", -3, 3, 13, {}},          {"Sin", -10, 10, 7, {}},
      {"Cos", -10, 10, 7, {}},         {"Tan", -1.5, 1.5, 7, {}},
      {"Asin", -0.99, 0.99, 7, {}},    {"Acos", -0.99, 0.99, 7, {}},
      {"Atan", -10, 10, 7, {}},        {"Sinh", -5, 5, 9, {}},
      {"Cosh", -5, 5, 9, {}},          {"Asinh", -10, 10, 9, {}},
      {"Acosh", 1.01, 10, 9, {}},      {"Atanh", -0.99, 0.99, 9, {}},
      {"Relu", -2, 2, 14, {}},         {"LeakyRelu", -2, 2, 16, {attr_float("alpha", 0.02f)}},
      {"Elu", -3, 3, 6, {attr_float("alpha", 0.5f)}},
      {"Selu", -3, 3, 6, {}},
      {"Celu", -3, 3, 12, {attr_float("alpha", 0.7f)}},
      {"Sigmoid", -20, 20, 13, {}},
      {"HardSigmoid", -5, 5, 6, {attr_float("alpha", 0.3f), attr_float("beta", 0.4f)}},
      {"HardSwish", -5, 5, 14, {}},    {"Tanh", -5, 5, 13, {}},
      {"Softplus", -20, 20, 1, {}},    {"Softsign", -5, 5, 1, {}},
      {"ThresholdedRelu", -2, 2, 10, {attr_float("alpha", 0.5f)}},
      {"Mish", -5, 5, 18, {}},         {"Gelu", -5, 5, 20, {}},
      {"Shrink", -2, 2, 9, {attr_float("lambd", 0.5f), attr_float("bias", 0.2f)}},
  };
  for (const U& u : unary)
    cs.push_back(tol(opset(make(std::string(u.op) + "_f32", u.op, {f32(big, u.lo, u.hi)}, u.attrs), u.opset), 1e-5,
                     1e-5));
  cs.push_back(tol(opset(make("Gelu_tanh_f32", "Gelu", {f32(big, -5, 5)}, {attr_string("approximate", "tanh")}), 20),
                   1e-5, 1e-5));
  {
    // The loader's Gelu made from Erf arithmetic (ir/op_fusion.h).
    DiffCase fused = make("FusedGelu_f32", kFusedGelu, {f32(big, -5, 5)});
    fused.domain = kSwitchyardDomain;
    fused.opset = 1;
    cs.push_back(tol(std::move(fused), 1e-5, 1e-5));
  }
  cs.push_back(make("Abs_i32", "Abs", {i32({3000}, -1e9, 1e9)}));
  cs.push_back(make("Neg_i64", "Neg", {i64({3000}, -1e12, 1e12)}));
  cs.push_back(make("Sign_i32", "Sign", {i32({3000}, -3, 3)}));
  cs.push_back(make("Sign_f32_specials", "Sign", {values(DataType::kFloat, {kNaN, -kNaN, kInf, -kInf, 0.0, -0.0, 1e-40, -2.5})}));
  cs.push_back(tol(make("Exp_f64", "Exp", {f64({3000}, -30, 30)}), 1e-12, 0));
  cs.push_back(tol(make("Sigmoid_f16", "Sigmoid", {in(kF16, {3000}, -8, 8)}), 1e-3, 1e-3));
  cs.push_back(make("Round_halves", "Round", {values(DataType::kFloat, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.49, -3.51})}));
  cs.push_back(make("Not_bool", "Not", {boolean({3001})}));
  cs.push_back(opset(make("BitwiseNot_i32", "BitwiseNot", {i32({3001}, -1e9, 1e9)}), 18));
  cs.push_back(make("IsNaN_f32", "IsNaN", {values(DataType::kFloat, {0, kNaN, kInf, -kInf, 1, -kNaN})}));
  cs.push_back(make("IsInf_positive_only", "IsInf", {values(DataType::kFloat, {0, kNaN, kInf, -kInf, 1e38, -1})},
                    {attr_int("detect_negative", 0)}));
  cs.push_back(make("IsInf_f64", "IsInf", {values(DataType::kDouble, {0, kNaN, kInf, -kInf, 1e308})}));
  cs.push_back(make("Clip_f32", "Clip", {f32(big), scalar(DataType::kFloat, -0.5), scalar(DataType::kFloat, 0.7)}));
  cs.push_back(make("Clip_i32_min_only", "Clip", {i32({3000}, -100, 100), scalar(DataType::kInt32, -7), omitted()}));
  cs.push_back(opset(make("Clip_6_attrs", "Clip", {f32({3000})}, {attr_float("min", -1), attr_float("max", 0.25f)}), 6));

  // Casts between families, with values each target type can hold.
  const int kF = static_cast<int>(DataType::kFloat);
  cs.push_back(make("Cast_f32_to_i32", "Cast", {f32({5000}, -1000, 1000)}, {attr_int("to", 6)}));
  cs.push_back(tol(make("Cast_f32_to_f16", "Cast", {f32({5000}, -60000, 60000)}, {attr_int("to", 10)}), 0, 0));
  cs.push_back(make("Cast_f16_to_f32", "Cast", {in(kF16, {5000}, -100, 100)}, {attr_int("to", kF)}));
  cs.push_back(tol(make("Cast_f32_to_bf16", "Cast", {f32({5000}, -1e30, 1e30)}, {attr_int("to", 16)}), 0, 0));
  cs.push_back(make("Cast_i64_to_f32", "Cast", {i64({5000}, -1e15, 1e15)}, {attr_int("to", kF)}));
  cs.push_back(make("Cast_f32_to_bool", "Cast", {whole_f32({5000}, -1, 1)}, {attr_int("to", 9)}));
  cs.push_back(make("Cast_bool_to_f32", "Cast", {boolean({5000})}, {attr_int("to", kF)}));
  cs.push_back(make("Cast_f64_to_f32", "Cast", {f64({5000}, -1e30, 1e30)}, {attr_int("to", kF)}));
  // Rounded once (through a float rounded to odd), with the near-ties that
  // rounding twice got wrong.
  cs.push_back(tol(make("Cast_f64_to_f16_near_ties", "Cast",
                        {values(DataType::kDouble, {65519.99999999, 1 + 0x1p-11 + 0x1p-30, 1 + 0x1p-11, 65520, -1e300,
                                                    0x1p-25 + 0x1p-30, 0x1p-25, kNaN, 3.14159})},
                        {attr_int("to", 10)}),
                   0, 0));
  cs.push_back(tol(make("Cast_f64_to_bf16", "Cast", {f64({5000}, -1e30, 1e30)}, {attr_int("to", 16)}), 0, 0));
  cs.push_back(make("Cast_f32_to_u8", "Cast", {f32({5000}, 0, 255)}, {attr_int("to", 2)}));
  cs.push_back(make("Cast_i32_to_i64", "Cast", {i32({5000}, -1e9, 1e9)}, {attr_int("to", 7)}));
  cs.push_back(make("CastLike_f32_as_i64", "CastLike", {f32({5000}, -1e6, 1e6), i64({2, 2}, 0, 1)}));
  cs.push_back(make("Identity_f32", "Identity", {f32(big)}));
}

void add_movement(std::vector<DiffCase>& cs) {
  cs.push_back(make("Transpose_4d", "Transpose", {f32({3, 64, 65, 33})}, {attr_ints("perm", {0, 3, 1, 2})}));
  cs.push_back(make("Transpose_2d_default", "Transpose", {i64({1000, 999}, -1e9, 1e9)}));
  cs.push_back(make("Transpose_5d_u8", "Transpose", {in(DataType::kUInt8, {3, 5, 7, 11, 13}, 0, 255)},
                    {attr_ints("perm", {4, 2, 0, 3, 1})}));
  cs.push_back(make("Transpose_f16", "Transpose", {in(kF16, {128, 3, 257})}, {attr_ints("perm", {2, 0, 1})}));
  cs.push_back(make("Transpose_rank9", "Transpose", {f32({2, 2, 2, 2, 2, 2, 2, 2, 3})},
                    {attr_ints("perm", {8, 7, 6, 5, 4, 3, 2, 1, 0})}));
  cs.push_back(make("Concat_axis1", "Concat", {f32({8, 100, 33}), f32({8, 1, 33}), f32({8, 57, 33})},
                    {attr_int("axis", 1)}));
  cs.push_back(make("Concat_i64_last", "Concat", {i64({64, 3}, -9, 9), i64({64, 1000}, -9, 9)}, {attr_int("axis", -1)}));
  cs.push_back(make("Concat_bool_axis0", "Concat", {boolean({3, 77}), boolean({5000, 77})}, {attr_int("axis", 0)}));
  cs.push_back(make("Split_sizes", "Split", {f32({6, 1000, 7}), ints({2, 1, 3})}, {attr_int("axis", 0)}, 3));
  cs.push_back(make("Split_equal_axis1", "Split", {i32({3, 1000, 5}, -9, 9), omitted()}, {attr_int("axis", 1)}, 4));
  cs.push_back(make("Slice_steps", "Slice",
                    {f32({100, 200, 30}), ints({5, -1, 0}), ints({95, -1000, 30}), ints({0, 1, 2}), ints({3, -2, 1})}));
  cs.push_back(make("Slice_no_axes", "Slice", {i64({1000, 64}, -9, 9), ints({10, 3}), ints({990, 60}), omitted(),
                                               omitted()}));
  cs.push_back(make("Expand_4d", "Expand", {f32({3, 1, 65}), ints({2, 3, 64, 65})}));
  cs.push_back(make("Expand_bool", "Expand", {boolean({1, 5}), ints({3000, 1})}));
  cs.push_back(make("Tile_3d", "Tile", {f32({30, 1, 17}), ints({3, 100, 2})}));
  cs.push_back(make("Gather_rows", "Gather", {f32({5000, 64}), i64({300}, -5000, 4999)}, {attr_int("axis", 0)}));
  cs.push_back(make("Gather_axis1_i32_indices", "Gather", {f32({8, 300, 16}), i32({4, 5}, -300, 299)},
                    {attr_int("axis", 1)}));
  cs.push_back(make("Gather_scalar_index", "Gather", {i64({77, 1000}, -9, 9), i64({}, -77, 76)}));
  // Compress: along an axis (rows of several widths), flattened with a
  // condition shorter than the input, and one that keeps nothing.
  cs.push_back(make("Compress_rows", "Compress", {f32({500, 64}), boolean({500})}, {attr_int("axis", 0)}));
  cs.push_back(
      make("Compress_last_axis_f16", "Compress", {in(kF16, {8, 30, 13}), boolean({13})}, {attr_int("axis", -1)}));
  cs.push_back(
      make("Compress_middle_axis_i64", "Compress", {i64({6, 300, 5}, -9, 9), boolean({300})}, {attr_int("axis", 1)}));
  cs.push_back(make("Compress_flattened", "Compress", {f32({40, 50}), boolean({1500})}));
  cs.push_back(make("Compress_keeps_nothing", "Compress", {f32({4, 5}), values(DataType::kBool, {0, 0, 0, 0})},
                    {attr_int("axis", 0)}));
  // ReverseSequence: time-major and batch-major, lengths from 0 to the
  // whole sequence, int32 lengths, rank 2 (rows of one element).
  cs.push_back(opset(make("ReverseSequence_time_major", "ReverseSequence", {f32({20, 6, 33}), i64({6}, 0, 20)}), 10));
  cs.push_back(
      opset(make("ReverseSequence_batch_major_f16", "ReverseSequence", {in(kF16, {5, 100, 3, 4}), i32({5}, 0, 100)},
                 {attr_int("batch_axis", 0), attr_int("time_axis", 1)}),
            10));
  cs.push_back(
      opset(make("ReverseSequence_rank2_bool", "ReverseSequence", {boolean({300, 4}), ints({300, 0, 1, 150})}), 10));
  cs.push_back(make("GatherElements_axis1", "GatherElements", {f32({50, 400, 7}), i64({50, 123, 7}, -400, 399)},
                    {attr_int("axis", 1)}));
  cs.push_back(make("Pad_constant", "Pad", {f32({3, 64, 65}), ints({0, 3, 2, 1, 4, 5}), scalar(DataType::kFloat, 1.5)}));
  cs.push_back(make("Pad_reflect", "Pad", {f32({3, 64, 65}), ints({1, 3, 2, 1, 4, 5})}, {attr_string("mode", "reflect")}));
  cs.push_back(make("Pad_edge_i64", "Pad", {i64({64, 65}, -9, 9), ints({7, 0, 0, 9})}, {attr_string("mode", "edge")}));
  cs.push_back(make("Pad_negative_crops", "Pad", {f32({64, 65}), ints({-3, 2, 4, -5})}));
  cs.push_back(make("Pad_wrap", "Pad", {f32({5, 7}), ints({3, 9, 4, 15})}, {attr_string("mode", "wrap")}));
  // CenterCropPad: cropping and padding by odd and even amounts at once,
  // named axes, other element types, and a crop to nothing.
  cs.push_back(opset(make("CenterCropPad_crop_and_pad", "CenterCropPad", {f32({9, 20, 7}), ints({4, 33, 7})}), 18));
  cs.push_back(opset(make("CenterCropPad_axes_i64", "CenterCropPad", {i64({3, 10, 11}, -9, 9), ints({5, 6})},
                          {attr_ints("axes", {-1, 0})}),
                     18));
  cs.push_back(opset(make("CenterCropPad_bool_pads_only", "CenterCropPad", {boolean({2, 3}), ints({5, 8})}), 18));
  cs.push_back(opset(make("CenterCropPad_to_empty", "CenterCropPad", {f32({4, 6}), ints({0, 3})}), 18));
  cs.push_back(make("Pad_wrap_crop_i32", "Pad", {i32({5, 7}, -9, 9), ints({-2, 3, 4, -3})}, {attr_string("mode", "wrap")}));
  {  // Concat and Split take their parts 32 at a time: 40 crosses a chunk, with empty parts.
    std::vector<DiffInput> parts;
    for (int i = 0; i < 40; ++i) parts.push_back(f32({3, i % 7 == 3 ? 0 : 1 + i % 5, 4}));
    cs.push_back(make("Concat_40_parts", "Concat", parts, {attr_int("axis", 1)}));
    std::vector<double> sizes;
    for (int i = 0; i < 40; ++i) sizes.push_back(i % 6 == 2 ? 0 : 1 + i % 4);
    double total = 0;
    for (double v : sizes) total += v;
    cs.push_back(make("Split_40_outputs", "Split", {f32({3, static_cast<int64_t>(total), 2}), ints(sizes)},
                      {attr_int("axis", 1)}, 40));
  }
  cs.push_back(make("Reshape_infer", "Reshape", {f32({1000, 64}), ints({250, -1, 16})}));
  cs.push_back(make("Flatten_axis2", "Flatten", {f32({4, 5, 6, 7})}, {attr_int("axis", 2)}));
  cs.push_back(make("Squeeze_axes", "Squeeze", {f32({5, 1, 7, 1, 9}), ints({1, 3})}));
  cs.push_back(make("Unsqueeze_axes", "Unsqueeze", {f32({5, 7}), ints({0, -1})}));
  cs.push_back(opset(make("Shape_slice", "Shape", {f32({3, 4, 5, 6})}, {attr_int("start", 1), attr_int("end", -1)}), 15));
  cs.push_back(make("Size_3d", "Size", {f32({3, 4, 5})}));
  cs.push_back(make("ConstantOfShape_default", "ConstantOfShape", {ints({3, 1000, 7})}));
  cs.push_back(make("ConstantOfShape_i32", "ConstantOfShape", {ints({5, 3001})}, {attr_tensor_i32("value", 7)}));
}

void add_reductions(std::vector<DiffCase>& cs) {
  // Sums over many terms round differently in a different order.
  cs.push_back(tol(make("ReduceSum_all_1M", "ReduceSum", {f32({1000, 1001}, 0, 1), omitted()}), 1e-4, 1e-3));
  cs.push_back(tol(make("ReduceSum_axis1", "ReduceSum", {f32({64, 5000, 3}), ints({1})}), 1e-4, 1e-3));
  cs.push_back(tol(make("ReduceSum_axes02_i64", "ReduceSum", {i64({40, 50, 60}, -1e6, 1e6), ints({0, 2})},
                        {attr_int("keepdims", 0)}), 0, 0));
  cs.push_back(make("ReduceSum_noop", "ReduceSum", {f32({33, 44}), omitted()}, {attr_int("noop_with_empty_axes", 1)}));
  // A composite reduction's elementwise step applies with nothing reduced.
  for (const char* op : {"ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum"})
    cs.push_back(opset(
        make(std::string(op) + "_noop", op, {f32({33, 44}), omitted()}, {attr_int("noop_with_empty_axes", 1)}), 18));
  cs.push_back(tol(make("ReduceMean_last", "ReduceMean", {f32({300, 777})}, {attr_ints("axes", {-1})}), 1e-4, 1e-5));
  cs.push_back(make("ReduceMax_i64_axis0", "ReduceMax", {i64({5000, 13}, -1e12, 1e12)}, {attr_ints("axes", {0})}));
  cs.push_back(make("ReduceMin_f64", "ReduceMin", {f64({33, 44, 55})},
                    {attr_ints("axes", {1}), attr_int("keepdims", 0)}));
  // Opset 20's bool any (max) and all (min): reduced axes of 3, so that
  // both answers come up; an empty reduced axis gives false and true.
  cs.push_back(opset(make("ReduceMax_bool_any", "ReduceMax", {boolean({400, 3, 5}), ints({1})}), 20));
  cs.push_back(opset(
      make("ReduceMin_bool_all_keepdims0", "ReduceMin", {boolean({3, 700}), ints({0})}, {attr_int("keepdims", 0)}),
      20));
  cs.push_back(opset(make("ReduceMin_bool_everything", "ReduceMin", {boolean({2, 2})}), 20));
  cs.push_back(opset(make("ReduceMax_bool_empty_axis", "ReduceMax", {boolean({6, 0}), ints({1})}), 20));
  cs.push_back(opset(make("ReduceMin_bool_empty_axis", "ReduceMin", {boolean({6, 0}), ints({-1})}), 20));
  cs.push_back(tol(make("ReduceProd", "ReduceProd", {f32({100, 20}, 0.8, 1.2)}, {attr_ints("axes", {1})}), 1e-5, 1e-6));
  cs.push_back(tol(make("ReduceL1", "ReduceL1", {f32({64, 3000})}, {attr_ints("axes", {1})}), 1e-4, 1e-3));
  cs.push_back(tol(make("ReduceL2", "ReduceL2", {f32({64, 3000})}, {attr_ints("axes", {0})}), 1e-4, 1e-4));
  cs.push_back(tol(make("ReduceLogSum", "ReduceLogSum", {f32({64, 3000}, 0.1, 2)}, {attr_ints("axes", {1})}), 1e-5,
                   1e-5));
  cs.push_back(tol(make("ReduceLogSumExp", "ReduceLogSumExp", {f32({64, 3000}, -50, 50)}, {attr_ints("axes", {1})}),
                   1e-5, 1e-5));
  cs.push_back(tol(make("ReduceSumSquare", "ReduceSumSquare", {f32({3000, 64})}, {attr_ints("axes", {0})}), 1e-4,
                   1e-3));
  cs.push_back(make("ArgMax_last_axis", "ArgMax", {f32({300, 1001})}, {attr_int("axis", 1), attr_int("keepdims", 0)}));
  cs.push_back(make("ArgMax_ties_last_index", "ArgMax", {whole_f32({300, 1001}, 0, 3)},
                    {attr_int("axis", 1), attr_int("select_last_index", 1)}));
  cs.push_back(make("ArgMin_i32_ties_axis0", "ArgMin", {i32({1000, 77}, 0, 5)}, {attr_int("axis", 0)}));
  cs.push_back(make("TopK_largest_last_axis", "TopK", {f32({64, 5000}), ints({100})}, {attr_int("axis", -1)}, 2));
  cs.push_back(make("TopK_smallest_axis0", "TopK", {f64({3000, 5}), ints({7})},
                    {attr_int("axis", 0), attr_int("largest", 0)}, 2));
  // Ties must come out lower index first.
  cs.push_back(make("TopK_i64_ties", "TopK", {i64({16, 4000}, 0, 10), ints({500})}, {}, 2));
  cs.push_back(opset(make("TopK_1_attr_k", "TopK", {f32({8, 3000})}, {attr_int("k", 33)}, 2), 1));
  cs.push_back(make("CumSum_f64_100k", "CumSum", {f64({100000}), scalar(DataType::kInt64, 0)}));
  cs.push_back(tol(make("CumSum_exclusive_reverse", "CumSum", {f32({64, 3000}), scalar(DataType::kInt64, 1)},
                        {attr_int("exclusive", 1), attr_int("reverse", 1)}), 1e-4, 1e-3));
  cs.push_back(make("CumSum_i32_middle", "CumSum", {i32({5, 1000, 7}, -100, 100), scalar(DataType::kInt32, -2)}));
  // NaN, infinities and signed zeros, and the launch paths the cases above
  // miss: ArgMax/ArgMin and CumSum one line per thread, Reduce* one output
  // per thread over a kept inner axis. Values are whole numbers in [-4, 4]
  // (ties) that `f(i, w)` may replace.
  auto pattern = [](DataType t, Dims d, auto f) {
    std::vector<double> v(static_cast<size_t>(d.numel()));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = f(static_cast<int64_t>(i), static_cast<double>(static_cast<int64_t>(i * 7919 % 9) - 4));
    return values(t, std::move(v), d);
  };
  // Rows 1 and 3 hold a NaN (row 3 in its last element), row 0 +inf, row 2 neither.
  cs.push_back(make("ReduceMax_nan_inf_split", "ReduceMax",
                    {pattern(DataType::kFloat, {4, 20000}, [](int64_t i, double w) {
                      return i == 24321 || i == 79999 ? kNaN : i == 7 ? kInf : w + static_cast<double>(i % 1000) / 1000;
                    })},
                    {attr_ints("axes", {1})}));
  cs.push_back(make("ReduceMin_nan_thread_inner", "ReduceMin",
                    {pattern(DataType::kFloat, {40, 9000}, [](int64_t i, double w) {
                      return i % 1237 == 5 ? kNaN : i % 11 == 3 ? -0.0 : i % 2003 == 8 ? -kInf : w;
                    })},
                    {attr_ints("axes", {0})}));
  cs.push_back(make("ArgMax_nan_thread", "ArgMax",
                    {pattern(DataType::kFloat, {50, 20, 300}, [](int64_t i, double w) {
                      return i % 97 == 0 ? kNaN : i % 89 == 1 ? kInf : w;
                    })},
                    {attr_int("axis", 1)}));
  cs.push_back(make("ArgMin_nan_block_last_index", "ArgMin",
                    {pattern(DataType::kDouble, {30, 1001}, [](int64_t i, double w) {
                      return i % 389 == 0 ? kNaN : i % 503 == 2 ? -kInf : w;
                    })},
                    {attr_int("axis", 1), attr_int("select_last_index", 1)}));
  auto topk_specials = [](int64_t i, double w) {
    return i % 31 == 4 ? kNaN : i % 31 == 9 ? -kNaN : i % 37 == 1 ? kInf : i % 41 == 2 ? -kInf : i % 5 == 0 ? -0.0 : w;
  };
  cs.push_back(make("TopK_nan_inf_zeros_largest", "TopK",
                    {pattern(DataType::kFloat, {16, 500}, topk_specials), ints({500})}, {}, 2));
  cs.push_back(make("TopK_nan_inf_zeros_smallest_axis0", "TopK",
                    {pattern(DataType::kDouble, {500, 6}, topk_specials), ints({37})},
                    {attr_int("axis", 0), attr_int("largest", 0)}, 2));
  cs.push_back(make("CumSum_thread_lines", "CumSum", {f32({3, 200, 3000}), scalar(DataType::kInt64, 1)}));
  cs.push_back(make("CumSum_short_lines_exclusive_reverse", "CumSum",
                    {i64({500, 64}, -1e12, 1e12), scalar(DataType::kInt64, -1)},
                    {attr_int("exclusive", 1), attr_int("reverse", 1)}));
  // float16 and bfloat16 reduce in float and round once: a sum split over
  // blocks, a mean one thread an output, an L2 and a LogSumExp over block
  // rows, Max with NaN and infinities, ArgMax/ArgMin over ties both ways.
  cs.push_back(tol(make("ReduceSum_f16_split", "ReduceSum", {in(kF16, {4, 100000}, 0, 1), ints({1})}), 2e-3, 1e-2));
  cs.push_back(tol(make("ReduceMean_bf16_kept_inner", "ReduceMean", {in(DataType::kBFloat16, {64, 300, 40})},
                        {attr_ints("axes", {1})}), 1e-2, 1e-2));
  cs.push_back(tol(make("ReduceL2_f16", "ReduceL2", {in(kF16, {64, 3000})}, {attr_ints("axes", {1})}), 2e-3, 1e-2));
  cs.push_back(tol(make("ReduceLogSumExp_bf16", "ReduceLogSumExp", {in(DataType::kBFloat16, {64, 3000}, -50, 50)},
                        {attr_ints("axes", {1})}), 1e-2, 1e-2));
  cs.push_back(make("ReduceMax_f16_nan_inf", "ReduceMax",
                    {pattern(kF16, {4, 5000}, [](int64_t i, double w) {
                      return i == 6001 ? kNaN : i == 7 || i == 19999 ? kInf : w;
                    })},
                    {attr_ints("axes", {1})}));
  cs.push_back(make("ArgMax_f16_nan_ties", "ArgMax",
                    {pattern(kF16, {300, 1001}, [](int64_t i, double w) { return i % 997 == 3 ? kNaN : w; })},
                    {attr_int("axis", 1)}));
  cs.push_back(make("ArgMin_bf16_ties_last_index_axis0", "ArgMin", {pattern(DataType::kBFloat16, {1000, 77},
                                                                            [](int64_t, double w) { return w; })},
                    {attr_int("axis", 0), attr_int("select_last_index", 1)}));
}

// Attention-23: every output, layout, mask type and softmax precision the
// CUDA kernel takes, and the two inputs it leaves to the CPU.
void add_attention(std::vector<DiffCase>& cs) {
  const auto heads = [](int64_t q, int64_t kv) {
    return std::vector<Attribute>{attr_int("q_num_heads", q), attr_int("kv_num_heads", kv)};
  };
  // Grouped heads, causal prefill of 70 rows, V's head narrower than K's.
  cs.push_back(tol(opset(make("Attention_4d_gqa_causal", "Attention",
                              {f32({2, 8, 70, 64}), f32({2, 2, 70, 64}), f32({2, 2, 70, 48})},
                              {attr_int("is_causal", 1)}), 23), 1e-4, 1e-5));
  // 3-D inputs with caches and a broadcast boolean mask (rows it masks
  // wholly give zeros), all four outputs, the QK output after the softmax.
  std::vector<Attribute> a = heads(4, 2);
  a.push_back(attr_int("qk_matmul_output_mode", 3));
  cs.push_back(tol(opset(make("Attention_3d_past_bool_mask_all_outputs", "Attention",
                              {f32({2, 5, 64}), f32({2, 5, 32}), f32({2, 5, 16}), boolean({5, 12}),
                               f32({2, 2, 7, 16}), f32({2, 2, 7, 8})}, a, 4), 23), 1e-4, 1e-5));
  // float16 with softcap, a float16 mask shorter than the keys (later keys
  // masked), the QK output after the bias, causal offset by the past.
  a = {attr_int("is_causal", 1), attr_float("softcap", 1.5f), attr_int("qk_matmul_output_mode", 2)};
  cs.push_back(tol(opset(make("Attention_f16_softcap_short_mask", "Attention",
                              {in(kF16, {2, 4, 9, 32}), in(kF16, {2, 4, 9, 32}), in(kF16, {2, 4, 9, 32}),
                               in(kF16, {1, 4, 9, 14}), in(kF16, {2, 4, 6, 32}), in(kF16, {2, 4, 6, 32})}, a, 4),
                         23), 2e-3, 2e-3));
  // A decode step over 2,000 cached keys: one query row a head, each warp
  // lane summing 63 keys; the softmax in double, a bfloat16 mask.
  a = heads(32, 8);
  a.push_back(attr_int("softmax_precision", static_cast<int64_t>(DataType::kDouble)));
  cs.push_back(tol(opset(make("Attention_decode_long_past_bf16_mask", "Attention",
                              {f32({1, 1, 32 * 128}), f32({1, 1, 8 * 128}), f32({1, 1, 8 * 128}),
                               in(DataType::kBFloat16, {1, 32, 1, 2001}), f32({1, 8, 2000, 128}),
                               f32({1, 8, 2000, 128})}, a, 3), 23), 1e-4, 1e-5));
  cs.push_back(tol(opset(make("Attention_bf16_raw_qk", "Attention",
                              {in(DataType::kBFloat16, {1, 2, 33, 16}), in(DataType::kBFloat16, {1, 2, 40, 16}),
                               in(DataType::kBFloat16, {1, 2, 40, 16}), omitted(), omitted(), omitted()},
                              {attr_float("scale", 0.3f)}, 4), 23), 1e-2, 1e-2));
  // Double is not listed: only a value of unknown type brings it, to be declined.
  cs.push_back(untyped(opset(make("Attention_f64_declines", "Attention",
                                  {f64({1, 2, 3, 8}), f64({1, 2, 4, 8}), f64({1, 2, 4, 8})}), 23)));
  cs.push_back(declined(opset(make("Attention_int_mask_declines", "Attention",
                                   {f32({1, 2, 3, 8}), f32({1, 2, 4, 8}), f32({1, 2, 4, 8}), i32({3, 4}, -3, 0)}),
                              23)));
}

void add_dnn(std::vector<DiffCase>& cs) {
  // cuBLAS and cuDNN sum in their own order: tolerances scale with K.
  cs.push_back(tol(make("MatMul_2d", "MatMul", {f32({64, 300}), f32({300, 129})}), 1e-4, 1e-3));
  cs.push_back(tol(make("MatMul_batched_broadcast", "MatMul", {f32({3, 1, 64, 100}), f32({5, 100, 33})}), 1e-4, 1e-3));
  cs.push_back(tol(make("MatMul_vector_matrix", "MatMul", {f32({300}), f32({300, 17})}), 1e-4, 1e-3));
  cs.push_back(tol(make("MatMul_matrix_vector", "MatMul", {f32({2, 17, 300}), f32({300})}), 1e-4, 1e-3));
  cs.push_back(tol(make("MatMul_f64", "MatMul", {f64({50, 60}), f64({60, 70})}), 1e-12, 1e-12));
  // An empty A that claims 2^40 batches: an empty output, with no table of
  // 2^40 batch offsets made on the way.
  cs.push_back(make("MatMul_empty_many_batches", "MatMul", {f32({int64_t{1} << 40, 1, 0, 1}), f32({1, 1, 1, 1})}));
  cs.push_back(tol(make("Gemm_transposed_bias", "Gemm", {f32({300, 64}), f32({129, 300}), f32({1, 129})},
                        {attr_int("transA", 1), attr_int("transB", 1), attr_float("alpha", 0.5f),
                         attr_float("beta", 2.0f)}), 1e-4, 1e-3));
  cs.push_back(tol(make("Gemm_no_bias", "Gemm", {f32({64, 300}), f32({300, 65})}), 1e-4, 1e-3));
  // Half types accumulate in float and round once on both devices; the
  // tolerances allow one unit in the last place for a different sum order.
  cs.push_back(tol(make("MatMul_f16_batched_broadcast", "MatMul", {in(kF16, {3, 1, 40, 100}), in(kF16, {5, 100, 33})}),
                   2e-3, 1e-2));
  cs.push_back(tol(make("MatMul_bf16", "MatMul", {in(DataType::kBFloat16, {64, 300}), in(DataType::kBFloat16, {300, 9})}),
                   1e-2, 5e-2));
  cs.push_back(tol(make("Gemm_f16_bias_beta", "Gemm", {in(kF16, {70, 64}), in(kF16, {33, 70}), in(kF16, {33})},
                        {attr_int("transA", 1), attr_int("transB", 1), attr_float("alpha", 0.5f),
                         attr_float("beta", 0.75f)}),
                   2e-3, 1e-2));
  cs.push_back(tol(make("Gemm_bf16_column_bias", "Gemm", {in(DataType::kBFloat16, {16, 40}),
                                                          in(DataType::kBFloat16, {40, 24}),
                                                          in(DataType::kBFloat16, {16, 1})}),
                   1e-2, 5e-2));
  // alpha 0 leaves beta * C, which the CPU computes.
  cs.push_back(declined(make("Gemm_alpha0_beta_declines", "Gemm", {f32({4, 5}), f32({5, 3}), f32({4, 3})},
                             {attr_float("alpha", 0.f), attr_float("beta", 2.f)})));
  cs.push_back(tol(make("Conv_2d_strided_dilated", "Conv", {f32({2, 16, 33, 35}), f32({32, 16, 3, 3}), f32({32})},
                        {attr_ints("pads", {1, 1, 1, 1}), attr_ints("strides", {2, 1}), attr_ints("dilations", {1, 2})}),
                   1e-4, 1e-3));
  cs.push_back(tol(make("Conv_grouped", "Conv", {f32({2, 16, 20, 21}), f32({32, 4, 3, 3})}, {attr_int("group", 4)}),
                   1e-4, 1e-3));
  cs.push_back(tol(make("Conv_depthwise_same", "Conv", {f32({1, 16, 30, 31}), f32({16, 1, 5, 5}), f32({16})},
                        {attr_int("group", 16), attr_string("auto_pad", "SAME_UPPER")}), 1e-4, 1e-3));
  cs.push_back(tol(make("Conv_1d", "Conv", {f32({2, 8, 100}), f32({16, 8, 5})}), 1e-4, 1e-3));
  cs.push_back(tol(make("Conv_3d", "Conv", {f32({1, 4, 8, 9, 10}), f32({6, 4, 3, 3, 3})}), 1e-4, 1e-3));
  {
    // The loader's fusion of Conv and Clip (ir/op_fusion.h).
    DiffCase fused = make("FusedConv_clip", "FusedConv", {f32({2, 16, 33, 35}), f32({32, 16, 3, 3}), f32({32})},
                          {attr_ints("pads", {1, 1, 1, 1}), attr_string("activation", "Clip"),
                           attr_floats("activation_params", {-0.5f, 0.75f})});
    fused.domain = kSwitchyardDomain;
    fused.opset = 1;
    cs.push_back(tol(std::move(fused), 1e-4, 1e-3));
    // And of an Add before the Relu: a residual as the fourth input, with
    // the bias absent.
    DiffCase residual = make("FusedConv_residual_relu", "FusedConv",
                             {f32({2, 16, 33, 35}), f32({32, 16, 3, 3}), omitted(), f32({2, 32, 33, 35})},
                             {attr_ints("pads", {1, 1, 1, 1}), attr_string("activation", "Relu")});
    residual.domain = kSwitchyardDomain;
    residual.opset = 1;
    cs.push_back(tol(std::move(residual), 1e-4, 1e-3));
  }
  cs.push_back(tol(make("ConvTranspose_2d", "ConvTranspose", {f32({2, 16, 15, 17}), f32({16, 8, 3, 3}), f32({8})},
                        {attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1}),
                         attr_ints("output_padding", {1, 1})}), 1e-4, 1e-3));
  cs.push_back(tol(make("ConvTranspose_grouped", "ConvTranspose", {f32({1, 8, 10, 11}), f32({8, 3, 2, 2})},
                        {attr_int("group", 2)}), 1e-4, 1e-3));
  cs.push_back(make("MaxPool_2d", "MaxPool", {f32({2, 16, 65, 67})},
                    {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1})}));
  cs.push_back(make("MaxPool_asymmetric_pads", "MaxPool", {f32({2, 8, 30, 31})},
                    {attr_ints("kernel_shape", {2, 3}), attr_ints("pads", {0, 1, 1, 2})}));
  cs.push_back(make("MaxPool_indices", "MaxPool", {f32({2, 3, 17, 19})},
                    {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1})},
                    2));
  cs.push_back(tol(make("AveragePool_excludes_pads", "AveragePool", {f32({2, 16, 33, 35})},
                        {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 1, 1, 1})}), 1e-5, 1e-6));
  cs.push_back(tol(make("AveragePool_counts_pads", "AveragePool", {f64({2, 16, 33, 35})},
                        {attr_ints("kernel_shape", {3, 2}), attr_ints("pads", {1, 0, 2, 1}),
                         attr_int("count_include_pad", 1)}), 1e-12, 1e-12));
  cs.push_back(tol(make("AveragePool_ceil_mode", "AveragePool", {f32({2, 5, 33, 34})},
                        {attr_ints("kernel_shape", {3, 2}), attr_ints("strides", {2, 3}), attr_int("ceil_mode", 1)}),
                   1e-5, 1e-6));
  // The windows cuDNN cannot pool, in pool_launch.cu's kernel: dilations
  // with ceil_mode, Indices column-major and in bfloat16, averages that
  // exclude asymmetric (3-D) or SAME padding or count it past ceil_mode's
  // end, LpPool with a general p, and bfloat16, int8 and uint8 pools.
  cs.push_back(opset(make("MaxPool_dilated_ceil_mode", "MaxPool", {f32({2, 4, 31, 30})},
                          {attr_ints("kernel_shape", {3, 2}), attr_ints("dilations", {2, 3}),
                           attr_ints("strides", {2, 2}), attr_ints("pads", {1, 0, 2, 1}), attr_int("ceil_mode", 1)}),
                     12));
  cs.push_back(make("MaxPool_bf16_indices_column_major", "MaxPool", {in(DataType::kBFloat16, {2, 3, 16, 15})},
                    {attr_ints("kernel_shape", {2, 3}), attr_ints("strides", {2, 2}), attr_int("storage_order", 1)},
                    2));
  cs.push_back(make("MaxPool_i8_padded", "MaxPool", {in(DataType::kInt8, {2, 4, 20, 21}, -128, 127)},
                    {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 1, 1, 1})}));
  // Values 0 to 3: most windows tie, and Indices name the first maximum.
  cs.push_back(make("MaxPool_u8_3d_ties_indices", "MaxPool", {in(DataType::kUInt8, {1, 3, 9, 10, 11}, 0, 3)},
                    {attr_ints("kernel_shape", {2, 2, 3}), attr_ints("strides", {1, 2, 2})}, 2));
  cs.push_back(tol(make("AveragePool_excludes_asymmetric_pads_3d", "AveragePool", {f64({1, 4, 9, 10, 11})},
                        {attr_ints("kernel_shape", {3, 2, 3}), attr_ints("pads", {0, 1, 2, 2, 0, 1})}),
                   1e-12, 1e-12));
  cs.push_back(tol(make("AveragePool_bf16_same_upper", "AveragePool", {in(DataType::kBFloat16, {2, 6, 20, 21})},
                        {attr_ints("kernel_shape", {3, 4}), attr_ints("strides", {2, 2}),
                         attr_string("auto_pad", "SAME_UPPER")}),
                   1e-2, 1e-2));
  cs.push_back(tol(opset(make("AveragePool_counts_pads_ceil_mode", "AveragePool", {f32({2, 3, 17, 18})},
                              {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}),
                               attr_ints("pads", {1, 1, 1, 1}), attr_int("count_include_pad", 1),
                               attr_int("ceil_mode", 1)}),
                         19),
                   1e-5, 1e-6));
  cs.push_back(tol(opset(make("LpPool_p3_dilated", "LpPool", {f32({2, 4, 20, 21})},
                              {attr_ints("kernel_shape", {2, 3}), attr_int("p", 3), attr_ints("dilations", {2, 1}),
                               attr_ints("pads", {1, 1, 0, 1})}),
                         18),
                   1e-5, 1e-6));
  cs.push_back(tol(make("LpPool_f16_p2", "LpPool", {in(kF16, {2, 4, 20, 21})},
                        {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2})}),
                   2e-3, 2e-3));
  cs.push_back(make("GlobalMaxPool_bf16", "GlobalMaxPool", {in(DataType::kBFloat16, {3, 8, 17, 19})}));
  cs.push_back(tol(make("GlobalAveragePool_bf16", "GlobalAveragePool", {in(DataType::kBFloat16, {3, 8, 17, 19})}),
                   1e-2, 1e-2));
  cs.push_back(make("GlobalMaxPool", "GlobalMaxPool", {f32({4, 64, 17, 19})}));
  cs.push_back(tol(make("GlobalAveragePool", "GlobalAveragePool", {f32({4, 64, 17, 19})}), 1e-5, 1e-6));
  cs.push_back(tol(opset(make("BatchNormalization", "BatchNormalization",
                              {f32({4, 64, 17, 19}), f32({64}), f32({64}), f32({64}), f32({64}, 0.5, 2)}), 15),
                   1e-5, 1e-5));
  cs.push_back(tol(opset(make("Softmax_last_axis", "Softmax", {f32({64, 5000}, -10, 10)}), 13), 1e-5, 1e-8));
  cs.push_back(tol(opset(make("Softmax_middle_axis", "Softmax", {f32({8, 100, 33}, -10, 10)}, {attr_int("axis", 1)}),
                         13), 1e-5, 1e-8));
  cs.push_back(tol(opset(make("Softmax_11_flattens", "Softmax", {f32({4, 5, 600})}, {attr_int("axis", 1)}), 11), 1e-5,
                   1e-8));
  cs.push_back(tol(opset(make("LogSoftmax_axis1", "LogSoftmax", {f64({8, 100, 33}, -10, 10)}, {attr_int("axis", 1)}),
                         13), 1e-12, 1e-12));
  cs.push_back(tol(make("LRN", "LRN", {f32({2, 32, 17, 19})},
                        {attr_int("size", 5), attr_float("alpha", 1e-3f), attr_float("beta", 0.75f),
                         attr_float("bias", 2.0f)}), 1e-5, 1e-6));
  // 16-bit cuDNN data, accumulated in float: Conv float16 (asymmetric pads
  // through the padded 16-bit copy) and bfloat16 (grouped); float16 pools,
  // MaxPool's padded copy filled with float16's -inf; BatchNormalization
  // with float16 parameters (converted to float first) and with float ones,
  // and float X with double statistics. Conv's bias is added after the
  // convolution's rounding: one more rounding than on the CPU.
  cs.push_back(tol(make("Conv_f16_bias_asymmetric_pads", "Conv",
                        {in(kF16, {2, 8, 20, 21}, -1, 1), in(kF16, {16, 8, 3, 3}, -1, 1), in(kF16, {16})},
                        {attr_ints("pads", {0, 1, 1, 2})}), 4e-3, 1e-2));
  cs.push_back(tol(make("Conv_bf16_grouped_strided", "Conv",
                        {in(DataType::kBFloat16, {1, 16, 31, 30}, -1, 1),
                         in(DataType::kBFloat16, {32, 4, 3, 3}, -1, 1)},
                        {attr_int("group", 4), attr_ints("strides", {2, 2})}), 2e-2, 5e-2));
  // ConvTranspose in 16 bits: cropped (pads) and grown (output_padding).
  cs.push_back(
      tol(make("ConvTranspose_f16_cropped_grown", "ConvTranspose",
               {in(kF16, {2, 8, 9, 10}, -1, 1), in(kF16, {8, 4, 3, 3}, -1, 1), in(kF16, {4})},
               {attr_ints("strides", {2, 2}), attr_ints("pads", {1, 0, 1, 1}), attr_ints("output_padding", {1, 0})}),
          4e-3, 1e-2));
  cs.push_back(tol(make("ConvTranspose_bf16_grouped", "ConvTranspose",
                        {in(DataType::kBFloat16, {1, 8, 10, 11}, -1, 1), in(DataType::kBFloat16, {8, 3, 2, 2}, -1, 1)},
                        {attr_int("group", 2)}),
                   2e-2, 5e-2));
  cs.push_back(make("MaxPool_f16_asymmetric_pads", "MaxPool", {in(kF16, {2, 8, 30, 31})},
                    {attr_ints("kernel_shape", {2, 3}), attr_ints("pads", {0, 1, 1, 2})}));
  cs.push_back(tol(make("AveragePool_f16_counts_pads", "AveragePool", {in(kF16, {2, 16, 33, 35})},
                        {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 1, 1, 1}),
                         attr_int("count_include_pad", 1)}), 2e-3, 2e-3));
  cs.push_back(tol(make("GlobalAveragePool_f16", "GlobalAveragePool", {in(kF16, {4, 64, 17, 19})}), 2e-3, 2e-3));
  cs.push_back(tol(opset(make("BatchNormalization_f16", "BatchNormalization",
                              {in(kF16, {4, 64, 17, 19}), in(kF16, {64}), in(kF16, {64}), in(kF16, {64}),
                               in(kF16, {64}, 0.5, 2)}), 15), 2e-3, 2e-3));
  cs.push_back(tol(opset(make("BatchNormalization_f16_float_params", "BatchNormalization",
                              {in(kF16, {2, 32, 50}), f32({32}), f32({32}), f32({32}), f32({32}, 0.5, 2)}), 15),
                   2e-3, 2e-3));
  cs.push_back(tol(opset(make("BatchNormalization_f32_double_stats", "BatchNormalization",
                              {f32({2, 32, 50}), f32({32}), f32({32}), f64({32}), f64({32}, 0.5, 2)}), 15),
                   1e-5, 1e-5));
  // BatchNormalization's statistics kernel: training mode (Y and the running
  // statistics), an old opset's saved statistics, [N, C] input, mixed
  // parameter types, and bfloat16, which cuDNN does not take.
  const auto bn = [](std::string name, std::vector<DiffInput> in, int version, size_t outputs,
                     std::vector<Attribute> attrs = {}) {
    return opset(make(std::move(name), "BatchNormalization", std::move(in), std::move(attrs), outputs), version);
  };
  cs.push_back(
      tol(bn("BatchNormalization_training", {f32({4, 64, 17, 19}), f32({64}), f32({64}), f32({64}), f32({64}, 0.5, 2)},
             15, 3, {attr_int("training_mode", 1), attr_float("momentum", 0.8f)}),
          1e-4, 1e-4));
  cs.push_back(
      tol(bn("BatchNormalization_training_rows", {f32({256, 40}), f32({40}), f32({40}), f32({40}), f32({40}, 0.5, 2)},
             15, 3, {attr_int("training_mode", 1)}),
          1e-4, 1e-4));
  cs.push_back(
      tol(bn("BatchNormalization_training_f64_float_params",
             {f64({3, 5, 7}), f32({5}), f32({5}), f32({5}), f32({5}, 0.5, 2)}, 15, 3, {attr_int("training_mode", 1)}),
          1e-6, 1e-6));
  cs.push_back(tol(bn("BatchNormalization_training_f16",
                      {in(kF16, {2, 16, 30}), in(kF16, {16}), in(kF16, {16}), in(kF16, {16}), in(kF16, {16}, 0.5, 2)},
                      15, 3, {attr_int("training_mode", 1)}),
                   3e-3, 3e-3));
  cs.push_back(tol(bn("BatchNormalization_opset9_saved_stats",
                      {f32({2, 8, 9, 9}), f32({8}), f32({8}), f32({8}), f32({8}, 0.5, 2)}, 9, 5),
                   1e-4, 1e-4));
  cs.push_back(
      tol(bn("BatchNormalization_bf16", {in(kBF16, {2, 6, 40}), f32({6}), f32({6}), f32({6}), f32({6}, 0.5, 2)}, 15, 1),
          1e-2, 1e-2));
  // 16-bit rows, computed in float: Softmax and LogSoftmax a block a row
  // (64 and 256 threads) and a thread a line (axis not innermost); Layer-
  // and RMSNormalization on both block sizes.
  cs.push_back(tol(opset(make("Softmax_f16", "Softmax", {in(kF16, {32, 1000}, -8, 8)}), 13), 2e-3, 1e-4));
  cs.push_back(tol(opset(make("Softmax_bf16_long_rows", "Softmax", {in(DataType::kBFloat16, {8, 5000}, -8, 8)}), 13),
                   1e-2, 1e-4));
  cs.push_back(tol(opset(make("LogSoftmax_bf16_middle_axis", "LogSoftmax",
                              {in(DataType::kBFloat16, {4, 300, 33}, -8, 8)}, {attr_int("axis", 1)}), 13),
                   1e-2, 1e-2));
  cs.push_back(tol(opset(make("LogSoftmax_f16_axis1", "LogSoftmax", {in(kF16, {8, 50, 7}, -8, 8)},
                              {attr_int("axis", 1)}), 13), 2e-3, 2e-3));
  cs.push_back(tol(make("LayerNormalization_f16_stats", "LayerNormalization",
                        {in(kF16, {16, 700}), in(kF16, {700}), in(kF16, {700})}, {}, 3), 2e-3, 2e-3));
  cs.push_back(tol(make("LayerNormalization_bf16_wide", "LayerNormalization",
                        {in(DataType::kBFloat16, {4, 3000}), in(DataType::kBFloat16, {3000})}), 1e-2, 2e-2));
  cs.push_back(tol(opset(make("RMSNormalization_f16", "RMSNormalization", {in(kF16, {9, 4, 300}), in(kF16, {300})}),
                         23), 2e-3, 2e-3));
  cs.push_back(tol(make("LayerNormalization_last", "LayerNormalization", {f32({64, 1000}), f32({1000}), f32({1000})},
                        {attr_int("axis", -1)}), 1e-4, 1e-4));
  {
    // The loader's LayerNormalization made from arithmetic (ir/op_fusion.h).
    DiffCase fused = make("FusedLayerNorm_f32", kFusedLayerNorm, {f32({2, 64, 768}), f32({768}), f32({768})},
                          {attr_float("epsilon", 1e-12f)});
    fused.domain = kSwitchyardDomain;
    fused.opset = 1;
    cs.push_back(tol(std::move(fused), 1e-4, 1e-4));
  }
  cs.push_back(tol(make("LayerNormalization_axis1_stats", "LayerNormalization", {f64({8, 16, 50}), f64({16, 50})},
                        {attr_int("axis", 1)}, 3), 1e-10, 1e-10));
  cs.push_back(tol(make("InstanceNormalization", "InstanceNormalization", {f32({4, 32, 50, 51}), f32({32}), f32({32})}),
                   1e-4, 1e-4));
  cs.push_back(tol(make("MeanVarianceNormalization", "MeanVarianceNormalization", {f32({4, 32, 20, 21})}), 1e-4, 1e-4));
  cs.push_back(tol(make("LpNormalization_p2", "LpNormalization", {f32({64, 300, 5})}, {attr_int("axis", 1)}), 1e-5,
                   1e-6));
  cs.push_back(tol(make("LpNormalization_p1_last", "LpNormalization", {f64({64, 300})},
                        {attr_int("axis", -1), attr_int("p", 1)}), 1e-12, 1e-12));
  // Launch paths the norm cases above miss: LayerNormalization's 256-thread
  // rows (cols > 1024) with Scale and B broadcast along different dims and
  // double statistics; InstanceNormalization's 64-thread rows in double;
  // MVN over non-adjacent axes; LpNormalization's thread-per-line kernel.
  cs.push_back(tol(make("LayerNormalization_wide_broadcast_params", "LayerNormalization",
                        {f32({9, 4, 300}), f32({4, 1}), f32({300})}, {attr_int("axis", 1), attr_int("stash_type", 11)},
                        3), 1e-4, 1e-4));
  cs.push_back(tol(make("InstanceNormalization_f64_short_rows", "InstanceNormalization",
                        {f64({3, 20, 7, 5}), f64({20}), f64({20})}), 1e-10, 1e-10));
  // GroupNormalization: a scale a group (18) over 256-thread rows, and a
  // scale a channel (21) over 64-thread rows with a ragged spatial extent.
  cs.push_back(tol(opset(make("GroupNormalization_18_per_group", "GroupNormalization",
                              {f32({3, 12, 20, 21}), f32({4}), f32({4})}, {attr_int("num_groups", 4)}), 18), 1e-4,
                   1e-4));
  cs.push_back(tol(opset(make("GroupNormalization_21_per_channel", "GroupNormalization",
                              {f64({2, 12, 7, 5}), f64({12}), f64({12})}, {attr_int("num_groups", 3)}), 21), 1e-10,
                   1e-10));
  // 16-bit grouped norms: InstanceNormalization over 256-thread rows, and
  // GroupNormalization-21 (a scale a channel) over 64-thread rows.
  cs.push_back(tol(make("InstanceNormalization_f16", "InstanceNormalization",
                        {in(kF16, {2, 8, 40, 41}), in(kF16, {8}), in(kF16, {8})}), 2e-3, 2e-3));
  cs.push_back(tol(opset(make("GroupNormalization_21_bf16", "GroupNormalization",
                              {in(DataType::kBFloat16, {2, 12, 7, 5}), in(DataType::kBFloat16, {12}),
                               in(DataType::kBFloat16, {12})}, {attr_int("num_groups", 3)}), 21), 2e-2, 2e-2));
  // RMSNormalization: 256-thread rows with the scale broadcast along the
  // first normalised axis, and 64-thread rows in double.
  cs.push_back(tol(opset(make("RMSNormalization_wide_broadcast_scale", "RMSNormalization",
                              {f32({9, 4, 300}), f32({4, 1})}, {attr_int("axis", 1)}), 23), 1e-4, 1e-4));
  cs.push_back(tol(opset(make("RMSNormalization_f64_short_rows", "RMSNormalization", {f64({30, 50}), f64({50})}), 23),
                   1e-10, 1e-10));
  // RotaryEmbedding: 4-D X with caches read through position_ids; 3-D
  // float16 X, interleaved, half of each head rotated, caches a token.
  cs.push_back(tol(opset(make("RotaryEmbedding_4d_position_ids", "RotaryEmbedding",
                              {f32({2, 3, 70, 64}), f32({80, 32}), f32({80, 32}), i64({2, 70}, 0, 79)}), 23), 1e-5,
                   1e-6));
  cs.push_back(tol(opset(make("RotaryEmbedding_3d_interleaved_partial_f16", "RotaryEmbedding",
                              {in(kF16, {2, 33, 96}), in(kF16, {2, 33, 6}), in(kF16, {2, 33, 6})},
                              {attr_int("num_heads", 4), attr_int("interleaved", 1),
                               attr_int("rotary_embedding_dim", 12)}),
                         23),
                   1e-3, 1e-3));
  add_attention(cs);
  cs.push_back(tol(make("MeanVarianceNormalization_f64_axes02", "MeanVarianceNormalization", {f64({20, 33, 30})},
                        {attr_ints("axes", {0, 2})}), 1e-10, 1e-10));
  cs.push_back(tol(make("LpNormalization_thread_per_line", "LpNormalization", {f32({50, 40, 30})},
                        {attr_int("axis", 1)}), 1e-5, 1e-6));
  // 16-bit MVN and LpNormalization compute in float and round once: MVN
  // over non-adjacent axes, LpNormalization's block kernel (p 1) and its
  // thread-per-line kernel (p 2).
  cs.push_back(tol(make("MeanVarianceNormalization_f16", "MeanVarianceNormalization", {in(kF16, {4, 16, 20, 21})}),
                   2e-3, 2e-3));
  cs.push_back(tol(make("MeanVarianceNormalization_bf16_axes02", "MeanVarianceNormalization",
                        {in(DataType::kBFloat16, {20, 33, 30})}, {attr_ints("axes", {0, 2})}), 2e-2, 2e-2));
  cs.push_back(tol(make("LpNormalization_p1_f16_block", "LpNormalization", {in(kF16, {64, 300})},
                        {attr_int("axis", -1), attr_int("p", 1)}), 2e-3, 1e-4));
  cs.push_back(tol(make("LpNormalization_p2_bf16_thread_per_line", "LpNormalization",
                        {in(DataType::kBFloat16, {50, 40, 30})}, {attr_int("axis", 1)}), 2e-2, 1e-3));
}

void add_unlisted_types(std::vector<DiffCase>& cs) {
  cs.push_back(untyped(make("MatMul_i32_untyped", "MatMul", {i32({4, 5}, -9, 9), i32({5, 3}, -9, 9)})));
  cs.push_back(untyped(make("Gemm_i64_untyped", "Gemm", {i64({4, 5}, -9, 9), i64({5, 3}, -9, 9)})));
  cs.push_back(untyped(make("Conv_f64_untyped", "Conv", {f64({1, 2, 5, 5}), f64({3, 2, 3, 3})})));
  cs.push_back(untyped(make("ReduceMax_u8_untyped", "ReduceMax", {in(DataType::kUInt8, {8, 9}, 0, 255)},
                            {attr_ints("axes", {1})})));
  cs.push_back(untyped(make("TopK_i8_untyped", "TopK", {in(DataType::kInt8, {4, 50}, -100, 100), ints({3})}, {}, 2)));
  cs.push_back(untyped(make("CumSum_f16_untyped", "CumSum", {in(kF16, {100}), scalar(DataType::kInt64, 0)})));
}

}  // namespace

const std::vector<DiffCase>& cuda_diff_cases() {
  static const std::vector<DiffCase> cases = [] {
    std::vector<DiffCase> cs;
    add_elementwise(cs);
    add_movement(cs);
    add_reductions(cs);
    add_dnn(cs);
    add_unlisted_types(cs);
    add_index_cases(cs);
    add_resize_cases(cs);
    add_quant_cases(cs);
    add_rnn_cases(cs);
    add_einsum_cases(cs);
    add_loss_cases(cs);
    add_int_matmul_cases(cs);
    add_int_conv_cases(cs);
    add_signal_cases(cs);
    add_signal_generator_cases(cs);
    add_detection_cases(cs);
    add_fold_cases(cs);
    add_deform_conv_cases(cs);
    return cs;
  }();
  return cases;
}

}  // namespace sy::testing
