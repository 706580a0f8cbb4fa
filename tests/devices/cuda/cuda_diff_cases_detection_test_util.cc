// Differential cases for the CUDA RoiAlign, Col2Im and MaxUnpool kernels
// (see kernel_diff_test_util.h).
// - RoiAlign: average and max pooling, fixed and adaptive sampling, both
//   coordinate transformations (and opset 10's default), ROIs that reach
//   past the feature map and ROIs drawn with their corners in either
//   order, double, int32 batch indices, and enough ROIs and channels to
//   need several blocks.
// - Col2Im: 2-D and 3-D images, dilations, uneven pads and strides, 16-bit
//   and double types.
// - MaxUnpool: random indices, so several elements often name one position
//   (the last must win, as on the CPU), an output_shape larger than the
//   inferred one, 1-D with pads, other element types.
// - NonMaxSuppression: corner boxes drawn with either corner first and
//   centre boxes, with and without a score threshold (one that leaves
//   fewer boxes than the maximum), tied scores (the
//   lower box first), more classes than the emulator's blocks, as many
//   kept boxes as boxes, an IoU threshold of 1, double, nothing selected;
//   mixed types decline.
// - DeformConv: 1-D, 2-D and 3-D; groups and offset groups with a mask,
//   a bias, pads, strides and dilations; offsets that reach past the
//   input (zeros) and NaN and infinite ones; double and the half types;
//   enough images, channels and positions to need several blocks.
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {

using namespace diff;

namespace {

DiffCase roi_align(std::string name, std::vector<DiffInput> inputs, std::vector<Attribute> attrs, int version = 16) {
  return opset(make(std::move(name), "RoiAlign", std::move(inputs), std::move(attrs)), version);
}

}  // namespace

void add_detection_cases(std::vector<DiffCase>& cs) {
  cs.push_back(roi_align("RoiAlign_avg_ratio2", {f32({2, 3, 20, 24}), f32({6, 4}, 0, 40), i64({6}, 0, 1)},
                         {attr_int("output_height", 5), attr_int("output_width", 4), attr_int("sampling_ratio", 2),
                          attr_float("spatial_scale", 0.5f)}));
  cs.push_back(roi_align("RoiAlign_adaptive_output_half_pixel",
                         {f32({1, 4, 16, 16}), f32({5, 4}, 0, 15), i64({5}, 0, 0)},
                         {attr_int("output_height", 3), attr_int("output_width", 3),
                          attr_string("coordinate_transformation_mode", "output_half_pixel")}));
  cs.push_back(roi_align("RoiAlign_opset10_default", {f32({1, 2, 10, 12}), f32({4, 4}, 0, 11), i64({4}, 0, 0)},
                         {attr_int("output_height", 2), attr_int("output_width", 2)}, 10));
  cs.push_back(roi_align("RoiAlign_max_past_the_edges", {f32({2, 3, 12, 10}), f32({8, 4}, -6, 18), i64({8}, 0, 1)},
                         {attr_string("mode", "max"), attr_int("output_height", 4), attr_int("output_width", 3),
                          attr_int("sampling_ratio", 3)}));
  cs.push_back(tol(roi_align("RoiAlign_f64_adaptive_max", {f64({1, 3, 9, 9}), f64({3, 4}, 0, 9), i32({3}, 0, 0)},
                             {attr_string("mode", "max"), attr_int("output_height", 2), attr_int("output_width", 2)}),
                   1e-12, 1e-12));
  cs.push_back(roi_align("RoiAlign_many_rois", {f32({3, 32, 14, 14}), f32({40, 4}, 0, 14), i64({40}, 0, 2)},
                         {attr_int("output_height", 7), attr_int("output_width", 7), attr_int("sampling_ratio", 2)}));
}

void add_fold_cases(std::vector<DiffCase>& cs) {
  const auto col2im = [](std::string name, std::vector<DiffInput> in, std::vector<Attribute> attrs = {}) {
    return opset(make(std::move(name), "Col2Im", std::move(in), std::move(attrs)), 18);
  };
  cs.push_back(col2im("Col2Im_2d", {f32({2, 12, 16}), ints({5, 5}), ints({2, 2})}));
  cs.push_back(col2im("Col2Im_dilated_padded_strided", {f32({1, 12, 32}), ints({9, 7}), ints({3, 2})},
                      {attr_ints("dilations", {2, 1}), attr_ints("pads", {1, 0, 1, 2}), attr_ints("strides", {2, 1})}));
  cs.push_back(tol(col2im("Col2Im_3d_f64", {f64({1, 16, 60}), ints({4, 5, 6}), ints({2, 2, 2})}), 1e-12, 1e-12));
  cs.push_back(
      tol(col2im("Col2Im_f16_many_planes", {in(kF16, {8, 36, 64}), ints({10, 10}), ints({3, 3})}), 1e-2, 1e-2));
  const auto unpool = [](std::string name, std::vector<DiffInput> in, std::vector<Attribute> attrs) {
    return opset(make(std::move(name), "MaxUnpool", std::move(in), std::move(attrs)), 11);
  };
  const auto k2s2 = std::vector<Attribute>{attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})};
  cs.push_back(unpool("MaxUnpool_2d_random_indices", {f32({2, 3, 4, 5}), i64({2, 3, 4, 5}, 0, 479)}, k2s2));
  cs.push_back(
      unpool("MaxUnpool_output_shape", {f32({2, 3, 4, 5}), i64({2, 3, 4, 5}, 0, 479), ints({2, 3, 9, 11})}, k2s2));
  cs.push_back(unpool("MaxUnpool_1d_pads_f16", {in(kF16, {1, 4, 50}), i64({1, 4, 50}, 0, 4 * 101 - 1)},
                      {attr_ints("kernel_shape", {3}), attr_ints("strides", {2}), attr_ints("pads", {0, 0})}));
  cs.push_back(unpool("MaxUnpool_contended_i8",
                      {in(DataType::kInt8, {1, 1, 2000}, -100, 100), i64({1, 1, 2000}, 0, 99)},
                      {attr_ints("kernel_shape", {2})}));
  const auto nms = [](std::string name, std::vector<DiffInput> in, int center = 0) {
    return opset(make(std::move(name), "NonMaxSuppression", std::move(in), {attr_int("center_point_box", center)}), 11);
  };
  const DataType F = DataType::kFloat, I = DataType::kInt64;
  cs.push_back(nms("NMS_corners_score_threshold",
                   {f32({2, 300, 4}, 0, 20), f32({2, 3, 300}, 0, 1), scalar(I, 50), scalar(F, 0.5), scalar(F, 0.2)}));
  cs.push_back(nms("NMS_high_score_threshold",
                   {f32({1, 200, 4}, 0, 20), f32({1, 2, 200}, 0, 1), scalar(I, 1000), scalar(F, 0.5), scalar(F, 0.9)}));
  cs.push_back(nms("NMS_centers_keep_all",
                   {f32({1, 200, 4}, 1, 10), f32({1, 2, 200}, 0, 1), scalar(I, 1000), scalar(F, 0.3)}, 1));
  DiffInput tied = f32({1, 2, 400}, 0, 3);
  tied.whole = true;
  cs.push_back(nms("NMS_tied_scores", {f32({1, 400, 4}, 0, 30), tied, scalar(I, 400), scalar(F, 0.4)}));
  cs.push_back(nms("NMS_many_classes",
                   {f32({1, 50, 4}, 0, 10), f32({1, 100, 50}), scalar(I, 7), scalar(F, 0.5), scalar(F, -1)}));
  cs.push_back(nms("NMS_iou_threshold_one", {f32({1, 100, 4}, 0, 5), f32({1, 1, 100}), scalar(I, 30), scalar(F, 1)}));
  cs.push_back(nms("NMS_f64", {f64({3, 120, 4}, 0, 15), f64({3, 2, 120}), scalar(I, 20), scalar(F, 0.25)}));
  cs.push_back(nms("NMS_max_zero", {f32({1, 10, 4}), f32({1, 1, 10}), scalar(I, 0)}));
  cs.push_back(nms("NMS_no_optional_inputs", {f32({1, 10, 4}), f32({1, 1, 10})}));
  cs.push_back(declined(nms("NMS_mixed_types_declines", {f32({1, 10, 4}), f64({1, 1, 10}), scalar(I, 5)})));
}

void add_deform_conv_cases(std::vector<DiffCase>& cs) {
  // The GPU sums each output's products (channels x kernel taps) through
  // cuBLAS, in another order than the CPU: on an H100 an output of -0.0144
  // from 36 products came out 1.2e-6 away, past the default atol of 1e-6.
  const auto deform = [](std::string name, std::vector<DiffInput> in, std::vector<Attribute> attrs = {}) {
    return tol(opset(make(std::move(name), "DeformConv", std::move(in), std::move(attrs)), 19), 1e-5, 1e-5);
  };
  cs.push_back(deform("DeformConv_2d", {f32({2, 4, 7, 8}), f32({6, 4, 3, 3}), f32({2, 18, 5, 6}, -3, 3)}));
  cs.push_back(
      deform("DeformConv_groups_mask_bias_pads_strides",
             {f32({2, 4, 9, 9}), f32({6, 2, 3, 3}), f32({2, 36, 5, 5}, -2, 2), f32({6}), f32({2, 18, 5, 5}, 0, 1)},
             {attr_int("group", 2), attr_int("offset_group", 2), attr_ints("pads", {1, 1, 1, 1}),
              attr_ints("strides", {2, 2})}));
  cs.push_back(deform(
      "DeformConv_offset_groups_dilated_uneven_pads",
      {f32({1, 6, 8, 7}), f32({4, 6, 2, 3}), f32({1, 36, 9, 6}, -1.5, 1.5), omitted(), f32({1, 18, 9, 6}, -1, 1)},
      {attr_int("offset_group", 3), attr_ints("dilations", {2, 1}), attr_ints("pads", {1, 0, 2, 1})}));
  cs.push_back(deform("DeformConv_1d", {f32({2, 3, 20}), f32({4, 3, 3}), f32({2, 3, 18}, -4, 4), f32({4})}));
  cs.push_back(deform("DeformConv_3d", {f32({1, 2, 4, 5, 6}), f32({3, 2, 2, 2, 2}), f32({1, 24, 3, 4, 5}, -1, 1)}));
  cs.push_back(deform("DeformConv_far_outside", {f32({1, 2, 5, 5}), f32({2, 2, 3, 3}), f32({1, 18, 3, 3}, -20, 20)}));
  std::vector<double> odd(2 * 3 * 3, 0.25);
  odd[1] = kNaN;
  odd[5] = kInf;
  odd[12] = -kInf;
  cs.push_back(deform("DeformConv_nan_and_infinite_offsets",
                      {f32({1, 1, 3, 3}), f32({1, 1, 1, 1}), values(DataType::kFloat, odd, Dims{1, 2, 3, 3})}));
  // 144 products a sum: cuBLAS adds them in another order than the CPU's GEMM.
  cs.push_back(tol(deform("DeformConv_many_blocks", {f32({3, 16, 12, 12}), f32({8, 16, 3, 3}), f32({3, 18, 10, 10}),
                                                     f32({8}), f32({3, 9, 10, 10}, 0, 1)}),
                   1e-4, 1e-4));
  cs.push_back(
      tol(deform("DeformConv_f64", {f64({2, 3, 6, 6}), f64({4, 3, 3, 3}), f64({2, 18, 4, 4}, -2, 2), f64({4})}), 1e-12,
          1e-12));
  cs.push_back(tol(deform("DeformConv_f16", {in(kF16, {1, 4, 6, 6}), in(kF16, {4, 4, 3, 3}),
                                             in(kF16, {1, 18, 4, 4}, -2, 2), in(kF16, {4})}),
                   1e-2, 1e-2));
  cs.push_back(
      tol(deform("DeformConv_bf16_mask", {in(kBF16, {1, 2, 5, 5}), in(kBF16, {2, 2, 3, 3}),
                                          in(kBF16, {1, 18, 3, 3}, -1, 1), omitted(), in(kBF16, {1, 9, 3, 3}, 0, 1)}),
          2e-2, 2e-2));
}

}  // namespace sy::testing
