// Differential cases for the CUDA resize kernels (see kernel_diff_test_util.h):
// Resize and Upsample in every mode, coordinate transformation and nearest
// rule, from scales and from sizes, up and down by non-integer factors;
// DepthToSpace and SpaceToDepth; Hardmax with ties and NaNs. Images are
// 2x3x100x130 or so, so outputs span many blocks and rows straddle them.
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {

using namespace diff;

namespace {

DiffInput f32s(std::vector<double> v) { return values(DataType::kFloat, std::move(v)); }
DiffInput no_roi() { return omitted(); }

// Resize-13 from scales (roi omitted unless given).
DiffCase resize_scales(std::string name, DiffInput x, std::vector<double> scales, std::vector<Attribute> attrs,
                       DiffInput roi = omitted()) {
  return make(std::move(name), "Resize", {std::move(x), std::move(roi), f32s(std::move(scales)), omitted()},
              std::move(attrs));
}

// Resize-13 from sizes (scales omitted).
DiffCase resize_sizes(std::string name, DiffInput x, std::vector<double> sizes, std::vector<Attribute> attrs,
                      DiffInput roi = omitted()) {
  return make(std::move(name), "Resize", {std::move(x), std::move(roi), omitted(), ints(std::move(sizes))},
              std::move(attrs));
}

// Linear and cubic: the CUDA kernel sums in double in the CPU's pass order;
// the CPU sums float tensors in float and the others in double, with FMAs
// where its machine has them (an FMA build of its row loop). Floating
// results agree to the CPU's precision; integers exactly, as long as the
// cases' weights are exact (no sum lands a rounding error away from a tie).
DiffCase interpolation_tol(DiffCase c) {
  switch (c.inputs.at(0).type) {
    case DataType::kFloat: return tol(std::move(c), 1e-6, 1e-6);  // the CPU is within 1e-6 of double
    case DataType::kDouble: return tol(std::move(c), 1e-12, 1e-12);
    case DataType::kFloat16: return tol(std::move(c), 1e-3, 1e-3);  // a rounding of the float result
    case DataType::kBFloat16: return tol(std::move(c), 1e-2, 1e-2);
    default: return tol(std::move(c), 0, 0);
  }
}

Attribute coord(const char* m) { return attr_string("coordinate_transformation_mode", m); }
Attribute nearest(const char* m) { return attr_string("nearest_mode", m); }
Attribute mode(const char* m) { return attr_string("mode", m); }

void add_resize_nearest(std::vector<DiffCase>& cs) {
  const Dims img{2, 3, 100, 130};
  cs.push_back(resize_scales("Resize_nearest_half_pixel_prefer_floor_up", f32(img), {1, 1, 2.5, 1.7},
                             {coord("half_pixel"), nearest("round_prefer_floor")}));
  cs.push_back(resize_scales("Resize_nearest_asymmetric_prefer_ceil_down", f32(img), {1, 1, 0.6, 0.45},
                             {coord("asymmetric"), nearest("round_prefer_ceil")}));
  cs.push_back(resize_sizes("Resize_nearest_align_corners_floor_sizes", f32(img), {2, 3, 157, 211},
                            {coord("align_corners"), nearest("floor")}));
  // An output extent of 1 takes pytorch_half_pixel's special case.
  cs.push_back(resize_sizes("Resize_nearest_pytorch_half_pixel_ceil", f32(img), {2, 3, 1, 301},
                            {coord("pytorch_half_pixel"), nearest("ceil")}));
  cs.push_back(resize_scales("Resize_nearest_tf_half_pixel_for_nn", f32(img), {1, 1, 1.5, 3},
                             {coord("tf_half_pixel_for_nn")}));
  cs.push_back(resize_sizes("Resize_nearest_tf_crop_and_resize", f32(img), {2, 3, 120, 90},
                            {coord("tf_crop_and_resize"), attr_float("extrapolation_value", 7.5f)},
                            f32s({0, 0, -0.2, 0.1, 1, 1, 1.3, 0.8})));
  // Every axis resized, including the batch and channel axes.
  cs.push_back(resize_scales("Resize_nearest_every_axis_i64", i64({4, 3, 50, 60}, -1e15, 1e15), {0.5, 2, 1.3, 0.9},
                             {coord("half_pixel")}));
  cs.push_back(resize_scales("Resize_nearest_u8", in(DataType::kUInt8, img, 0, 255), {1, 1, 2.2, 0.8},
                             {coord("asymmetric"), nearest("floor")}));
  // The extrapolation value converts (saturating) to the element type.
  cs.push_back(resize_sizes("Resize_nearest_tf_crop_and_resize_u8", in(DataType::kUInt8, img, 0, 255), {2, 3, 90, 140},
                            {coord("tf_crop_and_resize"), attr_float("extrapolation_value", 300.5f)},
                            f32s({0, 0, 0.2, -0.15, 1, 1, 1.1, 0.9})));
  cs.push_back(resize_scales("Resize_nearest_f16", in(kF16, img), {1, 1, 0.75, 1.25}, {}));
  cs.push_back(resize_scales("Resize_nearest_bool", boolean({2, 3, 64, 65}), {1, 1, 2, 1.5}, {}));
  cs.push_back(resize_sizes("Resize_nearest_5d", f32({2, 3, 10, 20, 30}), {2, 3, 17, 9, 47},
                            {coord("align_corners"), nearest("round_prefer_ceil")}));
  cs.push_back(resize_scales("Resize_nearest_1d", f32({10007}), {3.3}, {nearest("ceil")}));
  // Opset 10: scales only, asymmetric coordinates, ORT's simple rounding.
  cs.push_back(opset(make("Resize_10_nearest", "Resize", {f32(img), f32s({1, 1, 2.3, 0.7})}), 10));
  cs.push_back(opset(make("Resize_10_nearest_down", "Resize", {i32(img, -1000, 1000), f32s({1, 1, 0.5, 0.3})}), 10));
  // Opset 11 with an empty scales tensor next to sizes.
  cs.push_back(opset(make("Resize_11_nearest_sizes_empty_scales", "Resize",
                          {f32(img), no_roi(), values(DataType::kFloat, {}), ints({2, 3, 99, 131})}),
                     11));
  cs.push_back(resize_sizes("Resize_nearest_empty_output", f32(img), {2, 0, 50, 50}, {}));
  // More than the rank the kernel's metadata holds: the CPU runs it.
  cs.push_back(declined(resize_scales("Resize_nearest_rank9_declined", f32({2, 2, 2, 2, 2, 2, 2, 2, 30}),
                                      {1, 1, 1, 1, 1, 1, 1, 2, 1.5}, {})));
}

void add_resize_linear(std::vector<DiffCase>& cs) {
  const Dims img{2, 3, 100, 130};
  const Attribute linear = mode("linear");
  cs.push_back(resize_scales("Resize_linear_half_pixel_up", f32(img), {1, 1, 2.5, 1.7}, {linear}));
  cs.push_back(resize_sizes("Resize_linear_align_corners_down", f32(img), {2, 3, 37, 61},
                            {linear, coord("align_corners")}));
  cs.push_back(resize_scales("Resize_linear_asymmetric", f32(img), {1, 1, 1.3, 0.55}, {linear, coord("asymmetric")}));
  cs.push_back(resize_sizes("Resize_linear_pytorch_half_pixel", f32(img), {2, 3, 1, 250},
                            {linear, coord("pytorch_half_pixel")}));
  cs.push_back(resize_sizes("Resize_linear_tf_crop_and_resize", f32(img), {2, 3, 77, 160},
                            {linear, coord("tf_crop_and_resize"), attr_float("extrapolation_value", -3.25f)},
                            f32s({0, 0, 0.1, -0.3, 1, 1, 1.2, 0.9})));
  cs.push_back(opset(resize_scales("Resize_19_linear_half_pixel_symmetric", f32(img), {1, 1, 1.7, 0.6},
                                   {linear, coord("half_pixel_symmetric")}),
                     19));
  // Opset 18: scales and sizes for the axes attribute's axes only, and one
  // scale for all of them under keep_aspect_ratio_policy.
  cs.push_back(opset(resize_scales("Resize_18_linear_axes", f32(img), {0.6, 1.7}, {linear, attr_ints("axes", {3, -2})}),
                     18));
  cs.push_back(opset(resize_sizes("Resize_18_linear_not_larger", f32(img), {61, 95},
                                  {linear, attr_ints("axes", {2, 3}), attr_string("keep_aspect_ratio_policy", "not_larger")}),
                     18));
  // Antialias widens a downsampled axis's filter by 1 / scale: each
  // resized axis has its own tap count (ResizeMeta::slot_ntaps), here 8
  // and 6, then 6 and the plain 2 of an upsampled axis.
  cs.push_back(opset(
      resize_scales("Resize_18_linear_antialias", f32(img), {1, 1, 0.3, 0.5}, {linear, attr_int("antialias", 1)}),
      18));
  cs.push_back(opset(resize_scales("Resize_18_linear_antialias_down_and_up", f32(img), {1, 1, 0.45, 1.6},
                                   {linear, attr_int("antialias", 1)}),
                     18));
  // Trilinear over three axes of a 5-D volume.
  cs.push_back(resize_scales("Resize_linear_3_axes", f32({1, 2, 20, 30, 40}), {1, 1, 1.5, 0.7, 2.2}, {linear}));
  // Every axis of NCHW resized; five resized axes are left to the CPU.
  cs.push_back(resize_scales("Resize_linear_4_axes", f32({2, 3, 20, 30}), {2, 1.5, 1.5, 0.5}, {linear}));
  cs.push_back(declined(resize_scales("Resize_linear_5_axes_declined", f32({2, 3, 4, 10, 12}), {1.5, 2, 1.5, 1.5, 0.5},
                                      {linear})));
  // pytorch_half_pixel samples a 1-wide output at -0.5, so N = C = 1 are
  // resized axes too (two taps on the same element), as PyTorch exports
  // batch-1 single-channel resizes.
  cs.push_back(resize_sizes("Resize_linear_pytorch_half_pixel_n1c1", f32({1, 1, 100, 130}), {1, 1, 61, 197},
                            {linear, coord("pytorch_half_pixel")}));
  // Integers round to nearest (ties to even: scale 2 puts samples at
  // quarter and three-quarter points of whole numbers) and saturate. Scales
  // whose weights are exact (halves, quarters) keep ties exact on both.
  cs.push_back(resize_scales("Resize_linear_u8", in(DataType::kUInt8, img, 0, 255), {1, 1, 2, 2}, {linear}));
  cs.push_back(resize_scales("Resize_linear_i32", i32(img, -1e6, 1e6), {1, 1, 1.9, 0.8},
                             {linear, coord("align_corners")}));
  cs.push_back(resize_scales("Resize_linear_i8_asymmetric", in(DataType::kInt8, img, -128, 127), {1, 1, 2, 4},
                             {linear, coord("asymmetric")}));
  // Every axis maps onto itself: still a pass through double, which rounds
  // int64s beyond 2^53 on both devices.
  cs.push_back(resize_scales("Resize_linear_identity_i64", i64({3, 5, 7, 11}, -1e17, 1e17), {1, 1, 1, 1},
                             {linear}));
  cs.push_back(resize_scales("Resize_linear_f16", in(kF16, img), {1, 1, 1.6, 0.8}, {linear}));
  cs.push_back(resize_scales("Resize_linear_bf16", in(kBF16, img), {1, 1, 0.8, 1.6}, {linear}));
  cs.push_back(resize_sizes("Resize_linear_f64", f64(img), {2, 3, 211, 97}, {linear}));
  cs.push_back(declined(resize_scales("Resize_linear_u16_declined", in(DataType::kUInt16, img, 0, 60000),
                                      {1, 1, 2, 2}, {linear})));
  // Opset 10 "linear" and the deprecated bilinear spelling.
  cs.push_back(opset(make("Resize_10_linear", "Resize", {f32(img), f32s({1, 1, 1.75, 0.6})}, {linear}), 10));
  cs.push_back(opset(resize_scales("Resize_11_bilinear", f32(img), {1, 1, 2, 2}, {mode("bilinear")}), 11));
}

void add_resize_cubic(std::vector<DiffCase>& cs) {
  const Dims img{2, 3, 100, 130};
  const Attribute cubic = mode("cubic");
  cs.push_back(resize_scales("Resize_cubic_half_pixel_up", f32(img), {1, 1, 1.9, 2.3}, {cubic}));
  cs.push_back(resize_sizes("Resize_cubic_exclude_outside_down", f32(img), {2, 3, 41, 77},
                            {cubic, attr_float("cubic_coeff_a", -0.5f), attr_int("exclude_outside", 1)}));
  cs.push_back(resize_scales("Resize_cubic_align_corners_f64", f64(img), {1, 1, 1.25, 0.9},
                             {cubic, coord("align_corners")}));
  cs.push_back(resize_scales("Resize_cubic_asymmetric", f32(img), {1, 1, 3, 0.5}, {cubic, coord("asymmetric")}));
  cs.push_back(opset(resize_sizes("Resize_18_cubic_antialias_f64", f64(img), {2, 3, 31, 47},
                                  {cubic, attr_int("antialias", 1)}),
                     18));
  cs.push_back(resize_sizes("Resize_cubic_pytorch_half_pixel", f32(img), {2, 3, 150, 1},
                            {cubic, coord("pytorch_half_pixel")}));
  cs.push_back(resize_sizes("Resize_cubic_tf_crop_and_resize", f32(img), {2, 3, 64, 64},
                            {cubic, coord("tf_crop_and_resize"), attr_float("extrapolation_value", 1.0f)},
                            f32s({0, 0, -0.1, 0.25, 1, 1, 0.9, 1.1})));
  cs.push_back(resize_scales("Resize_cubic_3_axes", f32({2, 10, 20, 30}), {1, 1.5, 1.3, 0.7},
                             {cubic, attr_int("exclude_outside", 1)}));
  cs.push_back(resize_sizes("Resize_cubic_pytorch_half_pixel_n1c1", f32({1, 1, 50, 60}), {1, 1, 77, 41},
                            {cubic, coord("pytorch_half_pixel")}));
  // Cubic overshoots: uint8 results saturate at 0 and 255.
  cs.push_back(resize_scales("Resize_cubic_u8_saturates", in(DataType::kUInt8, img, 0, 255), {1, 1, 2.5, 1.5},
                             {cubic}));
  cs.push_back(resize_scales("Resize_cubic_f16", in(kF16, img), {1, 1, 1.5, 1.5}, {cubic}));
  cs.push_back(resize_scales("Resize_cubic_bf16_exclude_outside", in(kBF16, img), {1, 1, 0.7, 1.9},
                             {cubic, attr_int("exclude_outside", 1)}));
  // Integer scales put every other sample on an input element: taps of
  // weight 0 (1 of 2 in linear, 3 of 4 in cubic) that must be skipped, not
  // summed, or the infinities and NaNs under them would spread.
  std::vector<double> specials(2 * 3 * 20 * 30);
  for (size_t i = 0; i < specials.size(); ++i)
    specials[i] = i % 37 == 5 ? kInf : i % 41 == 7 ? -kInf : i % 43 == 11 ? kNaN : static_cast<double>(i % 17) - 8;
  const DiffInput special_x = values(DataType::kFloat, specials, Dims{2, 3, 20, 30});
  cs.push_back(resize_scales("Resize_cubic_zero_taps_skip_inf_nan", special_x, {1, 1, 2, 3},
                             {cubic, coord("asymmetric")}));
  cs.push_back(resize_scales("Resize_linear_zero_taps_skip_inf_nan", special_x, {1, 1, 3, 2},
                             {mode("linear"), coord("asymmetric")}));
  // Tap tables over 64 KiB: the upload is staged through pinned blocks.
  cs.push_back(resize_sizes("Resize_cubic_long_axis_table", f32({3, 20011}), {3, 47017}, {cubic}));
  // An integer extrapolation value (converted, saturating) in the
  // interpolating kernel.
  cs.push_back(resize_sizes("Resize_linear_tf_crop_and_resize_i32", i32(img, -1e6, 1e6), {2, 3, 70, 150},
                            {mode("linear"), coord("tf_crop_and_resize"), attr_float("extrapolation_value", -3e10f)},
                            f32s({0, 0, -0.2, 0.1, 1, 1, 1.1, 1.05})));
}

void add_upsample(std::vector<DiffCase>& cs) {
  cs.push_back(opset(make("Upsample_9_nearest", "Upsample", {f32({2, 3, 50, 70}), f32s({1, 1, 2, 3})}), 9));
  cs.push_back(opset(make("Upsample_9_linear", "Upsample", {f32({2, 3, 50, 70}), f32s({1, 1, 2.5, 1.5})},
                          {mode("linear")}),
                     9));
  cs.push_back(opset(make("Upsample_7_attr_scales_i64", "Upsample", {i64({2, 3, 50, 70}, -1e9, 1e9)},
                          {attr_floats("scales", {1, 1, 3, 2})}),
                     7));
}

void add_depth_space(std::vector<DiffCase>& cs) {
  cs.push_back(make("DepthToSpace_DCR", "DepthToSpace", {f32({2, 36, 50, 70})}, {attr_int("blocksize", 3)}));
  cs.push_back(make("DepthToSpace_CRD_i64", "DepthToSpace", {i64({2, 32, 33, 65}, -1e9, 1e9)},
                    {attr_int("blocksize", 4), attr_string("mode", "CRD")}));
  cs.push_back(make("DepthToSpace_CRD_f16", "DepthToSpace", {in(kF16, {3, 8, 100, 130})},
                    {attr_int("blocksize", 2), attr_string("mode", "CRD")}));
  cs.push_back(opset(make("DepthToSpace_1", "DepthToSpace", {in(DataType::kUInt8, {2, 50, 40, 30}, 0, 255)},
                          {attr_int("blocksize", 5)}),
                     1));
  cs.push_back(make("SpaceToDepth_b2", "SpaceToDepth", {f32({2, 3, 100, 130})}, {attr_int("blocksize", 2)}));
  cs.push_back(make("SpaceToDepth_b5_u8", "SpaceToDepth", {in(DataType::kUInt8, {1, 4, 100, 65}, 0, 255)},
                    {attr_int("blocksize", 5)}));
  cs.push_back(opset(make("SpaceToDepth_1_f64", "SpaceToDepth", {f64({2, 7, 64, 96})}, {attr_int("blocksize", 4)}), 1));
}

void add_hardmax(std::vector<DiffCase>& cs) {
  // Whole numbers in a small range: many ties, where the first must win.
  cs.push_back(make("Hardmax_last_axis_ties", "Hardmax", {whole_f32({300, 1001}, 0, 3)}));
  cs.push_back(make("Hardmax_long_rows", "Hardmax", {whole_f32({5, 20000}, -50, 50)}));
  cs.push_back(make("Hardmax_middle_axis", "Hardmax", {whole_f32({8, 50, 77}, 0, 4)}, {attr_int("axis", 1)}));
  cs.push_back(make("Hardmax_axis0", "Hardmax", {whole_f32({5000, 4}, 0, 9)}, {attr_int("axis", 0)}));
  // Before opset 13 the input is flattened to 2-D at the axis.
  cs.push_back(opset(make("Hardmax_11_coerced", "Hardmax", {whole_f32({6, 7, 40}, 0, 5)}, {attr_int("axis", 1)}), 11));
  cs.push_back(opset(make("Hardmax_1_default_axis", "Hardmax", {f32({100, 3, 5})}), 1));
  cs.push_back(opset(make("Hardmax_11_axis_rank", "Hardmax", {f32({30, 4})}, {attr_int("axis", 2)}), 11));
  cs.push_back(make("Hardmax_f64", "Hardmax", {f64({64, 3000})}));
  cs.push_back(make("Hardmax_f16_ties", "Hardmax", {in(kF16, {128, 500}, -4, 4)}));
  cs.push_back(make("Hardmax_bf16", "Hardmax", {in(kBF16, {16, 300, 9})}, {attr_int("axis", 1)}));
  // NaN first wins; later NaNs never do; all -inf picks the first.
  cs.push_back(make("Hardmax_nan_and_inf", "Hardmax",
                    {values(DataType::kFloat, {kNaN, 1, 2, 1, kNaN, 3, 3, kNaN, 3, -kInf, -kInf, -kInf, kNaN, kNaN,
                                               kNaN, 0, -0.0, 0, -1, kInf, kInf},
                            Dims{7, 3})}));
  // The same rules across a whole block per row and across warps.
  std::vector<double> long_rows(4 * 3000);
  for (size_t i = 0; i < long_rows.size(); ++i) long_rows[i] = static_cast<double>((i * 7919) % 1013);
  long_rows[0] = kNaN;           // row 0: NaN at 0 wins
  long_rows[3000 + 1] = kNaN;    // row 1: a NaN is skipped
  long_rows[3000 + 2999] = 5000;  // row 1: the maximum is the last element
  for (size_t i = 0; i < 3000; ++i) long_rows[2 * 3000 + i] = i % 2 ? kNaN : 1;  // row 2: first 1
  long_rows[3 * 3000 + 1500] = kInf;  // row 3: one inf
  cs.push_back(make("Hardmax_long_rows_nan", "Hardmax", {values(DataType::kFloat, long_rows, Dims{4, 3000})}));
}

}  // namespace

// GridSample in every mode and padding, 1-D to 3-D, with coordinates
// outside the input (several reflections deep), NaN and infinities, and a
// 16-bit X read through a float grid.
void add_grid_sample(std::vector<DiffCase>& cs) {
  auto gs = [](std::string name, DiffInput x, DiffInput grid, std::string mode, std::string pad, int align) {
    return make(std::move(name), "GridSample", {std::move(x), std::move(grid)},
                {attr_string("mode", std::move(mode)), attr_string("padding_mode", std::move(pad)),
                 attr_int("align_corners", align)});
  };
  cs.push_back(gs("GridSample_bilinear_zeros", f32({2, 3, 20, 24}), f32({2, 15, 17, 2}, -1.2, 1.2), "bilinear",
                  "zeros", 0));
  cs.push_back(gs("GridSample_nearest_border_align", f32({1, 4, 9, 11}), f32({1, 10, 12, 2}, -1.5, 1.5), "nearest",
                  "border", 1));
  cs.push_back(tol(gs("GridSample_bicubic_reflection", f32({2, 2, 13, 10}), f32({2, 8, 9, 2}, -3, 3), "bicubic",
                      "reflection", 0),
                   1e-5, 1e-5));
  cs.push_back(tol(gs("GridSample_f64_bicubic_border", f64({1, 2, 7, 8}), f64({1, 6, 5, 2}, -1.3, 1.3), "bicubic",
                      "border", 1),
                   1e-12, 1e-12));
  cs.push_back(tol(gs("GridSample_f16_by_f32_grid", in(kF16, {1, 3, 16, 16}), f32({1, 10, 10, 2}, -1, 1), "bilinear",
                      "zeros", 1),
                   1e-2, 1e-2));
  cs.push_back(gs("GridSample_nan_and_infinities", f32({1, 2, 5, 5}),
                  values(DataType::kFloat, {kNaN, 0, kInf, 0.3, -kInf, 0.5, 0.2, 0.1}, Dims{1, 1, 4, 2}), "bilinear",
                  "zeros", 0));
  cs.push_back(gs("GridSample_wide", f32({4, 16, 64, 64}), f32({4, 48, 48, 2}, -1.1, 1.1), "bilinear", "zeros", 0));
  cs.push_back(gs("GridSample_empty_input_zeros", f32({1, 2, 0, 5}), f32({1, 3, 3, 2}), "bilinear", "zeros", 0));
  cs.push_back(opset(gs("GridSample_3d_linear_reflection", f32({1, 2, 5, 6, 7}), f32({1, 4, 3, 5, 3}, -1.4, 1.4),
                        "linear", "reflection", 1),
                     20));
  cs.push_back(opset(tol(gs("GridSample_3d_cubic_zeros", f32({1, 1, 6, 6, 6}), f32({1, 3, 3, 3, 3}, -1.2, 1.2),
                            "cubic", "zeros", 0),
                         1e-5, 1e-5),
                     20));
  cs.push_back(opset(gs("GridSample_1d_nearest_reflection", f32({2, 3, 10}), f32({2, 7, 1}, -2.5, 2.5), "nearest",
                        "reflection", 0),
                     20));
}

void add_affine_grid(std::vector<DiffCase>& cs) {
  auto ag = [](std::string name, DiffInput theta, std::vector<double> size, int align) {
    return opset(make(std::move(name), "AffineGrid", {std::move(theta), ints(std::move(size))},
                      {attr_int("align_corners", align)}),
                 20);
  };
  cs.push_back(ag("AffineGrid_2d", f32({3, 2, 3}), {3, 1, 17, 23}, 0));
  cs.push_back(ag("AffineGrid_3d_align_corners", f32({2, 3, 4}), {2, 4, 5, 6, 7}, 1));
  cs.push_back(tol(ag("AffineGrid_f16", in(kF16, {1, 2, 3}), {1, 1, 8, 9}, 0), 1e-2, 1e-2));
  cs.push_back(ag("AffineGrid_single_points_align_corners", f64({2, 2, 3}), {2, 3, 1, 1}, 1));
}

void add_resize_cases(std::vector<DiffCase>& cs) {
  add_resize_nearest(cs);
  const size_t first_interp = cs.size();
  add_resize_linear(cs);
  add_resize_cubic(cs);
  add_upsample(cs);
  for (size_t i = first_interp; i < cs.size(); ++i) cs[i] = interpolation_tol(std::move(cs[i]));
  add_depth_space(cs);
  add_hardmax(cs);
  add_grid_sample(cs);
  add_affine_grid(cs);
}

}  // namespace sy::testing
