// Differential cases for the CUDA RoiAlign kernel (see
// kernel_diff_test_util.h): average and max pooling, fixed and adaptive
// sampling, both coordinate transformations (and opset 10's default), ROIs
// that reach past the feature map and ROIs drawn with their corners in
// either order, double, int32 batch indices, and enough ROIs and channels
// to need several blocks.
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
  cs.push_back(roi_align("RoiAlign_adaptive_output_half_pixel", {f32({1, 4, 16, 16}), f32({5, 4}, 0, 15), i64({5}, 0, 0)},
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

}  // namespace sy::testing
