// Unit tests for the CPU GridSample kernel (devices/cpu/kernels/image_kernels.cc).
// Expected values were produced with onnx.reference.ReferenceEvaluator
// (onnx 1.23, GridSample with the opset-20 mode names linear/cubic, which
// compute the same thing as opset 16's bilinear/bicubic for 4-D inputs)
// and hard-coded here; the remaining cases are hand-computed.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_int;
using testing::attr_string;
using testing::KernelRun;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

// X: (2, 2, 3, 4); grid: (2, 2, 3, 2) with in-range, border and far
// out-of-range coordinates.
const std::vector<float> kX = {-3.0f, -2.13f, -1.26f, -0.39f, 0.48f, -0.5f, 0.37f, 1.24f, 2.11f, 2.98f, 2.0f, 2.87f, 3.74f, 4.61f, 5.48f, 4.5f, 5.37f, 6.24f, 7.11f, 7.98f, 7.0f, 7.87f, 8.74f, 9.61f, 10.48f, 9.5f, 10.37f, 11.24f, 12.11f, 12.98f, 12.0f, 12.87f, 13.74f, 14.61f, 15.48f, 14.5f, 15.37f, 16.24f, 17.11f, 17.98f, 17.0f, 17.87f, 18.74f, 19.61f, 20.48f, 19.5f, 20.37f, 21.24f};
const std::vector<float> kGrid = {-1.3f, -0.9f, -0.4f, 0.2f, 0.15f, -1.0f, 0.95f, 0.7f, 1.4f, 1.8f, 2.6f, -2.3f, 0.0f, 0.0f, -2.7f, 0.55f, 0.33f, 1.2f, -0.77f, -0.25f, 1.0f, 1.0f, -1.0f, -1.0f};

struct Case {
  const char* mode;
  const char* padding;
  int align_corners;
  std::vector<float> want;  // (2, 2, 2, 3)
};

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = {
    {"bilinear", "zeros", 0, {0.0f, 0.6715002f, -0.717f, 1.635899f, 0.0f, 0.0f, 0.0f, 6.468f, 2.653f, 5.477698f, 0.0f, 0.0f, 12.49f, 0.0f, 3.064637f, 11.0388f, 3.625f, 2.62f, 18.305f, 0.0f, 4.101836f, 15.7332f, 5.31f, 3.8425f}},
    {"bilinear", "zeros", 1, {-1.4586f, 0.2570001f, -1.49925f, 2.31575f, 0.2296f, 0.0f, 2.14665f, 6.479f, 5.24075f, 9.05575f, 0.7687998f, 0.0f, 12.49f, 0.0f, 12.38052f, 11.84309f, 14.5f, 10.48f, 18.305f, 0.0f, 16.29252f, 16.89265f, 21.24f, 15.37f}},
    {"bilinear", "border", 0, {-3.0f, 0.6715002f, -1.434f, 2.87f, 2.87f, -0.39f, 3.74f, 6.468f, 5.306f, 9.61f, 9.61f, 4.5f, 12.49f, 13.45475f, 15.3232f, 11.49875f, 14.5f, 10.48f, 18.305f, 19.871f, 20.5092f, 16.38875f, 21.24f, 15.37f}},
    {"bilinear", "border", 1, {-2.652f, 0.2570001f, -1.49925f, 2.31575f, 2.87f, -0.39f, 3.903f, 6.479f, 5.24075f, 9.05575f, 9.61f, 4.5f, 12.49f, 13.0065f, 15.47565f, 11.84309f, 14.5f, 10.48f, 18.305f, 18.914f, 20.36565f, 16.89265f, 21.24f, 15.37f}},
    {"bilinear", "reflection", 0, {-2.913f, 0.6715002f, -1.434f, 2.87f, 1.468f, 1.16925f, 3.827f, 6.468f, 5.306f, 9.61f, 8.208f, 6.3645f, 12.49f, 14.28037f, 15.3232f, 11.49875f, 14.5f, 10.48f, 18.305f, 20.86775f, 20.5092f, 16.38875f, 21.24f, 15.37f}},
    {"bilinear", "reflection", 1, {-2.34375f, 0.2570001f, -1.49925f, 2.31575f, 1.044f, 0.7139997f, 4.2945f, 6.479f, 5.24075f, 9.05575f, 7.784f, 6.381001f, 12.49f, 13.83288f, 14.7815f, 11.84309f, 14.5f, 10.48f, 18.305f, 20.115f, 20.03965f, 16.89265f, 21.24f, 15.37f}},
    {"nearest", "zeros", 0, {0.0f, -0.5f, -1.26f, 2.87f, 0.0f, 0.0f, 0.0f, 6.24f, 5.48f, 9.61f, 0.0f, 0.0f, 12.0f, 0.0f, 0.0f, 12.11f, 0.0f, 10.48f, 18.74f, 0.0f, 0.0f, 17.0f, 0.0f, 15.37f}},
    {"nearest", "zeros", 1, {-3.0f, -0.5f, -1.26f, 2.87f, 0.0f, 0.0f, 3.74f, 6.24f, 5.48f, 9.61f, 0.0f, 0.0f, 12.0f, 0.0f, 15.48f, 12.11f, 14.5f, 10.48f, 18.74f, 0.0f, 20.37f, 17.0f, 21.24f, 15.37f}},
    {"nearest", "border", 0, {-3.0f, -0.5f, -1.26f, 2.87f, 2.87f, -0.39f, 3.74f, 6.24f, 5.48f, 9.61f, 9.61f, 4.5f, 12.0f, 13.74f, 15.48f, 12.11f, 14.5f, 10.48f, 18.74f, 20.48f, 20.37f, 17.0f, 21.24f, 15.37f}},
    {"nearest", "border", 1, {-3.0f, -0.5f, -1.26f, 2.87f, 2.87f, -0.39f, 3.74f, 6.24f, 5.48f, 9.61f, 9.61f, 4.5f, 12.0f, 13.74f, 15.48f, 12.11f, 14.5f, 10.48f, 18.74f, 20.48f, 20.37f, 17.0f, 21.24f, 15.37f}},
    {"nearest", "reflection", 0, {-3.0f, -0.5f, -1.26f, 2.87f, 1.24f, 0.48f, 3.74f, 6.24f, 5.48f, 9.61f, 7.98f, 5.37f, 12.0f, 14.5f, 15.48f, 12.11f, 14.5f, 10.48f, 18.74f, 21.24f, 20.37f, 17.0f, 21.24f, 15.37f}},
    {"nearest", "reflection", 1, {-3.0f, -0.5f, -1.26f, 2.87f, 0.37f, -0.5f, 3.74f, 6.24f, 5.48f, 9.61f, 7.11f, 6.24f, 12.0f, 14.5f, 15.48f, 12.11f, 14.5f, 10.48f, 18.74f, 21.24f, 20.37f, 17.0f, 21.24f, 15.37f}},
    {"bicubic", "zeros", 0, {0.1450183f, 0.9993832f, -0.8865308f, 1.811416f, 0.01495066f, 0.0f, -0.1405773f, 7.191029f, 2.584758f, 5.774134f, 0.05006127f, 0.0f, 12.49f, 0.0f, 2.836766f, 11.65545f, 3.639209f, 2.605791f, 18.305f, 0.0f, 3.719124f, 16.48099f, 5.427188f, 3.725313f}},
    {"bicubic", "zeros", 1, {-1.694788f, 0.3831221f, -1.538279f, 2.883407f, 0.2221901f, 0.0f, 2.180513f, 6.785443f, 5.402283f, 10.819f, 0.6824526f, 0.0f, 12.49f, 0.0f, 13.08989f, 13.44115f, 14.5f, 10.48f, 18.305f, 0.0f, 16.93597f, 18.9756f, 21.24f, 15.37f}},
    {"bicubic", "border", 0, {-3.385953f, 0.7979329f, -1.624411f, 3.019125f, 2.87f, -0.39f, 3.559225f, 6.535827f, 5.305679f, 9.759122f, 9.61f, 4.5f, 12.49f, 13.52387f, 15.41925f, 11.33793f, 14.54468f, 10.43532f, 18.305f, 19.98352f, 20.56298f, 16.00063f, 21.47437f, 15.13562f}},
    {"bicubic", "border", 1, {-2.725642f, 0.3041129f, -1.538279f, 2.438014f, 2.87f, -0.39f, 3.862659f, 6.559171f, 5.402283f, 9.265365f, 9.61f, 4.5f, 12.49f, 13.15274f, 15.48037f, 11.76064f, 14.5f, 10.48f, 18.305f, 19.07169f, 20.36347f, 16.5616f, 21.24f, 15.37f}},
    {"bicubic", "reflection", 0, {-3.502424f, 0.7979329f, -1.773062f, 3.084668f, 1.648468f, 1.459346f, 3.52735f, 6.535827f, 5.169517f, 9.824666f, 8.559916f, 6.461452f, 12.49f, 14.34499f, 15.8252f, 11.33769f, 14.55684f, 10.42316f, 18.305f, 20.9584f, 20.75858f, 15.99939f, 21.70875f, 14.90125f}},
    {"bicubic", "reflection", 1, {-2.731173f, 0.3920047f, -1.538279f, 2.658797f, 1.306681f, 1.053265f, 3.98826f, 6.592418f, 5.402283f, 9.491151f, 8.168342f, 6.457334f, 12.49f, 14.20497f, 15.24127f, 11.6354f, 14.5f, 10.48f, 18.305f, 20.59453f, 20.2722f, 16.38606f, 21.24f, 15.37f}},
  };
  return cases;
}

std::vector<Attribute> attrs_of(const Case& c) {
  return {attr_string("mode", c.mode), attr_string("padding_mode", c.padding), attr_int("align_corners", c.align_corners)};
}

std::string label(const Case& c) {
  return std::string(c.mode) + "/" + c.padding + "/align_corners=" + std::to_string(c.align_corners);
}

template <typename T>
std::vector<double> as_doubles(const Tensor& t) {
  std::vector<double> out;
  for (const T& v : to_vector<T>(t)) out.push_back(static_cast<double>(static_cast<float>(v)));
  return out;
}

void expect_close(const std::vector<double>& got, const std::vector<float>& want, double atol, double rtol,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], atol + rtol * std::fabs(want[i])) << what << " at " << i;
}

template <typename T>
Tensor convert(const Dims& d, const std::vector<float>& v) {
  std::vector<T> out;
  for (float f : v) out.push_back(T(f));
  return make_tensor<T>(d, out);
}

TEST(GridSample, AllModesPaddingsAndAlignments_Float) {
  for (const Case& c : all_cases()) {
    auto run = run_kernel("GridSample", {make_tensor<float>(Dims{2, 2, 3, 4}, kX), make_tensor<float>(Dims{2, 2, 3, 2}, kGrid)},
                          1, attrs_of(c), 16);
    ASSERT_TRUE(run.status.ok()) << label(c) << ": " << run.status.to_string();
    const Tensor& y = run.outputs[0].tensor();
    EXPECT_EQ(y.dtype(), DataType::kFloat);
    EXPECT_EQ(y.dims(), (Dims{2, 2, 2, 3})) << label(c);
    expect_close(as_doubles<float>(y), c.want, 1e-5, 1e-5, label(c));
  }
}

TEST(GridSample, AllModesPaddingsAndAlignments_Double) {
  for (const Case& c : all_cases()) {
    auto run = run_kernel("GridSample",
                          {convert<double>(Dims{2, 2, 3, 4}, kX), convert<double>(Dims{2, 2, 3, 2}, kGrid)}, 1,
                          attrs_of(c), 16);
    ASSERT_TRUE(run.status.ok()) << label(c) << ": " << run.status.to_string();
    const Tensor& y = run.outputs[0].tensor();
    EXPECT_EQ(y.dtype(), DataType::kDouble);
    // The reference rounds coordinates to float32, hence the tolerance.
    expect_close(as_doubles<double>(y), c.want, 1e-5, 1e-5, label(c));
  }
}

TEST(GridSample, AllModesPaddingsAndAlignments_Float16) {
  for (const Case& c : all_cases()) {
    auto run = run_kernel("GridSample",
                          {convert<Float16>(Dims{2, 2, 3, 4}, kX), convert<Float16>(Dims{2, 2, 3, 2}, kGrid)}, 1,
                          attrs_of(c), 16);
    ASSERT_TRUE(run.status.ok()) << label(c) << ": " << run.status.to_string();
    const Tensor& y = run.outputs[0].tensor();
    EXPECT_EQ(y.dtype(), DataType::kFloat16);
    // Inputs and grid are rounded to half precision.
    expect_close(as_doubles<Float16>(y), c.want, 0.05, 0.01, label(c));
  }
}

TEST(GridSample, GridTypeMayDifferFromInput) {
  const Case& c = all_cases()[4];  // bilinear / reflection / 0
  auto run = run_kernel("GridSample",
                        {make_tensor<float>(Dims{2, 2, 3, 4}, kX), convert<double>(Dims{2, 2, 3, 2}, kGrid)}, 1,
                        attrs_of(c), 16);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  expect_close(as_doubles<float>(run.outputs[0].tensor()), c.want, 1e-5, 1e-5, label(c));
}

TEST(GridSample, DefaultsAreBilinearZerosNoAlign) {
  auto run = run_kernel("GridSample", {make_tensor<float>(Dims{2, 2, 3, 4}, kX), make_tensor<float>(Dims{2, 2, 3, 2}, kGrid)},
                        1, {}, 16);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  expect_close(as_doubles<float>(run.outputs[0].tensor()), all_cases()[0].want, 1e-5, 1e-5, "defaults");
}

TEST(GridSample, NearestRoundsHalfToEven) {
  // W = 4, align_corners = 0: x = ((g + 1) * 4 - 1) / 2 = 0.5, 1.5, 2.5, 0.
  auto run = run_kernel("GridSample",
                        {make_tensor<float>(Dims{1, 1, 1, 4}, {0, 10, 20, 30}),
                         make_tensor<float>(Dims{1, 1, 4, 2}, {-0.5f, 0, 0, 0, 0.5f, 0, -0.75f, 0})},
                        1, {attr_string("mode", "nearest")}, 16);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(to_vector<float>(run.outputs[0].tensor()), (std::vector<float>{0, 20, 20, 0}));
}

TEST(GridSample, ReflectionOnSingletonAxisWithAlignCorners) {
  // d = 1 and align_corners = 1 make the reflection range empty; every
  // coordinate maps to the only pixel.
  for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
    auto run = run_kernel("GridSample",
                          {make_tensor<float>(Dims{1, 1, 1, 1}, {5}),
                           make_tensor<float>(Dims{1, 1, 3, 2}, {-3.5f, 0.25f, 0, 0, 7, -1})},
                          1,
                          {attr_string("mode", mode), attr_string("padding_mode", "reflection"),
                           attr_int("align_corners", 1)},
                          16);
    ASSERT_TRUE(run.status.ok()) << mode << ": " << run.status.to_string();
    auto got = to_vector<float>(run.outputs[0].tensor());
    ASSERT_EQ(got.size(), 3u);
    for (float v : got) EXPECT_FLOAT_EQ(v, 5.0f) << mode;
  }
}

TEST(GridSample, NonFiniteGridCoordinates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {1, 2, 3, 4};
  const Tensor grid = make_tensor<float>(Dims{1, 1, 3, 2}, {nan, 0, inf, 0, 0, -inf});
  // zeros: NaN propagates, an infinite coordinate reads only padding zeros.
  auto zeros = run_kernel("GridSample", {make_tensor<float>(Dims{1, 1, 2, 2}, x), grid}, 1, {}, 16);
  ASSERT_TRUE(zeros.status.ok()) << zeros.status.to_string();
  auto z = to_vector<float>(zeros.outputs[0].tensor());
  EXPECT_TRUE(std::isnan(z[0]));
  EXPECT_EQ(z[1], 0.0f);
  EXPECT_EQ(z[2], 0.0f);
  // border clamps infinities to the edge: (x=1, y=0.5) and (x=0.5, y=0).
  auto border = run_kernel("GridSample", {make_tensor<float>(Dims{1, 1, 2, 2}, x), grid}, 1,
                           {attr_string("padding_mode", "border")}, 16);
  ASSERT_TRUE(border.status.ok()) << border.status.to_string();
  auto b = to_vector<float>(border.outputs[0].tensor());
  EXPECT_TRUE(std::isnan(b[0]));
  EXPECT_FLOAT_EQ(b[1], 3.0f);
  EXPECT_FLOAT_EQ(b[2], 1.5f);
  // reflection and the other modes must not crash.
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* pad : {"zeros", "border", "reflection"}) {
      auto run = run_kernel("GridSample", {make_tensor<float>(Dims{1, 1, 2, 2}, x), grid}, 1,
                            {attr_string("mode", mode), attr_string("padding_mode", pad)}, 16);
      EXPECT_TRUE(run.status.ok()) << mode << "/" << pad << ": " << run.status.to_string();
    }
}

TEST(GridSample, HugeCoordinatesDoNotOverflow) {
  const Tensor grid = make_tensor<float>(Dims{1, 1, 2, 2}, {3e30f, -1e25f, -3e38f, 2e20f});
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* pad : {"zeros", "border", "reflection"}) {
      auto run = run_kernel("GridSample", {make_tensor<float>(Dims{1, 1, 2, 2}, {1, 2, 3, 4}), grid}, 1,
                            {attr_string("mode", mode), attr_string("padding_mode", pad)}, 16);
      ASSERT_TRUE(run.status.ok()) << mode << "/" << pad << ": " << run.status.to_string();
      if (std::string(pad) == "zeros") {
        for (float v : to_vector<float>(run.outputs[0].tensor())) EXPECT_EQ(v, 0.0f) << mode;
      }
    }
}

TEST(GridSample, EmptyShapes) {
  // Empty output: fine.
  auto none = run_kernel("GridSample",
                         {make_tensor<float>(Dims{1, 1, 2, 2}, {1, 2, 3, 4}), make_tensor<float>(Dims{1, 0, 3, 2}, {})},
                         1, {}, 16);
  ASSERT_TRUE(none.status.ok()) << none.status.to_string();
  EXPECT_EQ(none.outputs[0].tensor().dims(), (Dims{1, 1, 0, 3}));
  // Empty input with zeros padding samples zeros.
  auto zeros = run_kernel("GridSample",
                          {make_tensor<float>(Dims{1, 2, 0, 3}, {}), make_tensor<float>(Dims{1, 1, 1, 2}, {0, 0})}, 1,
                          {}, 16);
  ASSERT_TRUE(zeros.status.ok()) << zeros.status.to_string();
  EXPECT_EQ(to_vector<float>(zeros.outputs[0].tensor()), (std::vector<float>{0, 0}));
  // ... but has nothing to clamp to with border padding.
  auto border = run_kernel("GridSample",
                           {make_tensor<float>(Dims{1, 2, 0, 3}, {}), make_tensor<float>(Dims{1, 1, 1, 2}, {0, 0})}, 1,
                           {attr_string("padding_mode", "border")}, 16);
  EXPECT_EQ(border.status.code(), StatusCode::kInvalidArgument);
}

TEST(GridSample, LargeIdentityGridReproducesInput) {
  // Big enough to take the parallel path.
  const int64_t c = 4, h = 96, w = 160;
  std::vector<float> x(static_cast<size_t>(c * h * w));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1000) * 0.01f;
  std::vector<float> g;
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < w; ++j) {
      g.push_back(-1.0f + 2.0f * static_cast<float>(j) / static_cast<float>(w - 1));
      g.push_back(-1.0f + 2.0f * static_cast<float>(i) / static_cast<float>(h - 1));
    }
  for (const char* mode : {"bilinear", "bicubic", "nearest"}) {
    auto run = run_kernel("GridSample",
                          {make_tensor<float>(Dims{1, c, h, w}, x), make_tensor<float>(Dims{1, h, w, 2}, g)}, 1,
                          {attr_string("mode", mode), attr_int("align_corners", 1), attr_string("padding_mode", "border")},
                          16);
    ASSERT_TRUE(run.status.ok()) << mode << ": " << run.status.to_string();
    auto y = to_vector<float>(run.outputs[0].tensor());
    ASSERT_EQ(y.size(), x.size());
    for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], x[i], 2e-3) << mode << " at " << i;
  }
}

// Float tensors sample through the vector gathers, in tasks of a chunk of
// points and, where there are few points, a block of channels; double
// tensors through the scalar loop. Random grids reaching past the borders,
// in every mode, padding and alignment, 2-D and 3-D, under four threads,
// so that the split does not depend on the machine's cores.
TEST(GridSample, FloatChunksMatchDoubleOnRandomGrids) {
  struct Shape {
    Dims x, grid;
  };
  const std::vector<Shape> shapes = {
      {{2, 5, 37, 23}, {2, 19, 31, 2}},     // chunks of points
      {{1, 1100, 4, 5}, {1, 1, 3, 2}},      // three points, channel blocks
      {{1, 3, 6, 7, 9}, {1, 5, 8, 11, 3}},  // 3-D
  };
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-4.0f, 4.0f), coord(-1.3f, 1.3f);
  tbb::task_arena arena(4);
  for (const Shape& sh : shapes) {
    std::vector<float> x(static_cast<size_t>(sh.x.numel())), g(static_cast<size_t>(sh.grid.numel()));
    for (float& v : x) v = value(rng);
    for (float& v : g) v = coord(rng);
    const int opset = sh.x.size() == 4 ? 16 : 20;
    for (const char* mode : {"linear", "nearest", "cubic"})
      for (const char* pad : {"zeros", "border", "reflection"})
        for (int align : {0, 1}) {
          const std::string m = opset == 20                     ? mode
                                : std::string(mode) == "linear" ? "bilinear"
                                : std::string(mode) == "cubic"  ? "bicubic"
                                                                : mode;
          const std::vector<Attribute> attrs = {attr_string("mode", m), attr_string("padding_mode", pad),
                                                attr_int("align_corners", align)};
          KernelRun f, d;
          arena.execute([&] {
            f = run_kernel("GridSample", {make_tensor<float>(sh.x, x), make_tensor<float>(sh.grid, g)}, 1, attrs,
                           opset);
            d = run_kernel("GridSample", {convert<double>(sh.x, x), convert<double>(sh.grid, g)}, 1, attrs, opset);
          });
          const std::string what = std::to_string(sh.x.size()) + "-D " + m + "/" + pad + "/" + std::to_string(align);
          ASSERT_TRUE(f.status.ok()) << what << ": " << f.status.to_string();
          ASSERT_TRUE(d.status.ok()) << what << ": " << d.status.to_string();
          const std::vector<float> got = to_vector<float>(f.outputs[0].tensor());
          const std::vector<double> want = to_vector<double>(d.outputs[0].tensor());
          ASSERT_EQ(got.size(), want.size()) << what;
          for (size_t i = 0; i < got.size(); ++i)
            ASSERT_NEAR(got[i], want[i], 1e-4 + 1e-5 * std::fabs(want[i])) << what << " at " << i;
        }
  }
}

TEST(GridSample, Opset20ModeNames) {
  const Case& lin = all_cases()[2];   // bilinear / border / 0
  const Case& cub = all_cases()[14];  // bicubic / border / 0
  auto a = run_kernel("GridSample", {make_tensor<float>(Dims{2, 2, 3, 4}, kX), make_tensor<float>(Dims{2, 2, 3, 2}, kGrid)},
                      1, {attr_string("mode", "linear"), attr_string("padding_mode", "border")}, 20);
  ASSERT_TRUE(a.status.ok()) << a.status.to_string();
  expect_close(as_doubles<float>(a.outputs[0].tensor()), lin.want, 1e-5, 1e-5, "linear");
  auto b = run_kernel("GridSample", {make_tensor<float>(Dims{2, 2, 3, 4}, kX), make_tensor<float>(Dims{2, 2, 3, 2}, kGrid)},
                      1, {attr_string("mode", "cubic"), attr_string("padding_mode", "border")}, 20);
  ASSERT_TRUE(b.status.ok()) << b.status.to_string();
  expect_close(as_doubles<float>(b.outputs[0].tensor()), cub.want, 1e-5, 1e-5, "cubic");
  // Each opset only knows its own names.
  auto old_name = run_kernel("GridSample", {make_tensor<float>(Dims{1, 1, 1, 1}, {1}), make_tensor<float>(Dims{1, 1, 1, 2}, {0, 0})},
                             1, {attr_string("mode", "bilinear")}, 20);
  EXPECT_EQ(old_name.status.code(), StatusCode::kInvalidArgument);
  auto new_name = run_kernel("GridSample", {make_tensor<float>(Dims{1, 1, 1, 1}, {1}), make_tensor<float>(Dims{1, 1, 1, 2}, {0, 0})},
                             1, {attr_string("mode", "linear")}, 16);
  EXPECT_EQ(new_name.status.code(), StatusCode::kInvalidArgument);
}

TEST(GridSample, NoKernelBeforeOpset16) {
  auto run = run_kernel("GridSample", {make_tensor<float>(Dims{1, 1, 1, 1}, {1}), make_tensor<float>(Dims{1, 1, 1, 2}, {0, 0})},
                        1, {}, 15);
  EXPECT_EQ(run.status.code(), StatusCode::kNotFound);
}

// Opset 20's N-D GridSample: three spatial axes of different sizes, so
// that grid[..., 0] must address W, [..., 1] H and [..., 2] D, in every mode
// and padding, against the reference evaluator.
TEST(GridSample, Opset20_ThreeSpatialAxes) {
  std::vector<float> x;
  for (int i = 0; i < 48; ++i) x.push_back(0.5f * i - 3);
  const std::vector<float> grid = {-1.08f, -0.68f, 0.78f,  0.21f, -1.06f, -0.17f, -0.05f, -0.88f,
                                   0.61f,  -1.0f,  -0.28f, 0.04f, -0.18f, 0.23f,  0.62f,  1.19f,
                                   -0.56f, 0.39f,  0.51f,  -0.54f, -1.3f, 1.23f,  -0.52f, -0.48f};
  struct Want {
    const char* mode;
    const char* pad;
    std::vector<float> y;
  };
  const std::vector<Want> wants = {
      {"linear", "zeros", {0.71971f, -0.0246f, 2.23924f, 0.7f, 16.0688f, 1.9392f, 2.128f, 0.4424f}},
      {"linear", "border", {3.0f, -0.06f, 3.7f, 1.4f, 18.26f, 16.16f, 10.64f, 11.06f}},
      {"nearest", "zeros", {0, 0, 3.5f, 5.0f, 17.5f, 0, 0, 0}},
      {"nearest", "reflection", {3.0f, -2.0f, 3.5f, 5.0f, 17.5f, 16.5f, 10.5f, 10.5f}},
      {"cubic", "zeros", {0.88542f, -0.25355f, 2.4333f, 0.68336f, 18.09667f, 1.887f, 2.06311f, 0.37987f}},
      {"cubic", "border", {3.62437f, -0.18822f, 3.88214f, 1.19049f, 18.88684f, 16.19658f, 10.5946f, 10.92709f}},
      {"cubic", "reflection", {3.79364f, -0.55107f, 3.82615f, 1.14361f, 18.94386f, 16.23617f, 9.87461f, 10.94149f}},
  };
  for (const Want& w : wants) {
    auto run = run_kernel("GridSample",
                          {make_tensor<float>(Dims{2, 1, 2, 3, 4}, x), make_tensor<float>(Dims{2, 2, 1, 2, 3}, grid)},
                          1, {attr_string("mode", w.mode), attr_string("padding_mode", w.pad)}, 20);
    ASSERT_TRUE(run.status.ok()) << run.status.to_string();
    EXPECT_EQ(run.outputs[0].tensor().dims(), Dims({2, 1, 2, 1, 2}));
    expect_close(as_doubles<float>(run.outputs[0].tensor()), w.y, 1e-4, 1e-5, std::string(w.mode) + "/" + w.pad);
  }
}

// One spatial axis, with align_corners: 1.2 lands past the last element,
// of which 0.7 is read and the rest is zero padding.
TEST(GridSample, Opset20_OneSpatialAxis) {
  auto run = run_kernel("GridSample", {make_tensor<float>(Dims{1, 1, 4}, {1, 2, 4, 8}),
                                       make_tensor<float>(Dims{1, 4, 1}, {-1, -0.5f, 0.1f, 1.2f})},
                        1, {attr_int("align_corners", 1)}, 20);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  expect_close(as_doubles<float>(run.outputs[0].tensor()), {1, 1.75f, 3.3f, 5.6f}, 1e-5, 1e-5, "1-D");
  auto four = run_kernel("GridSample", {make_tensor<float>(Dims{1, 1, 1, 1, 1, 1}, {1}),
                                        make_tensor<float>(Dims{1, 1, 1, 1, 1, 4}, {0, 0, 0, 0})},
                         1, {}, 20);
  EXPECT_EQ(four.status.code(), StatusCode::kUnimplemented);
  auto mismatch = run_kernel("GridSample", {make_tensor<float>(Dims{1, 1, 4}, {1, 2, 4, 8}),
                                            make_tensor<float>(Dims{1, 1, 2}, {0, 0})},
                             1, {}, 20);
  EXPECT_EQ(mismatch.status.code(), StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------- bad input

void expect_invalid(std::vector<RuntimeValue> inputs, std::vector<Attribute> attrs, const std::string& what) {
  auto run = run_kernel("GridSample", std::move(inputs), 1, std::move(attrs), 16);
  EXPECT_EQ(run.status.code(), StatusCode::kInvalidArgument) << what << ": " << run.status.to_string();
}

TEST(GridSample, RejectsBadInput) {
  const Tensor x4 = make_tensor<float>(Dims{1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor g4 = make_tensor<float>(Dims{1, 1, 1, 2}, {0, 0});
  expect_invalid({make_tensor<float>(Dims{1, 2, 2}, {1, 2, 3, 4}), g4}, {}, "X rank 3");
  expect_invalid({make_tensor<float>(Dims{1, 1, 1, 2, 2}, {1, 2, 3, 4}), make_tensor<float>(Dims{1, 1, 1, 1, 3}, {0, 0, 0})},
                 {}, "X rank 5 at opset 16");
  expect_invalid({x4, make_tensor<float>(Dims{1, 2, 2}, {0, 0, 0, 0})}, {}, "grid rank 3");
  expect_invalid({x4, make_tensor<float>(Dims{1, 1, 1, 3}, {0, 0, 0})}, {}, "grid last dim 3");
  expect_invalid({x4, make_tensor<float>(Dims{1, 1, 1, 1}, {0})}, {}, "grid last dim 1");
  expect_invalid({x4, make_tensor<float>(Dims{2, 1, 1, 2}, {0, 0, 0, 0})}, {}, "batch mismatch");
  expect_invalid({x4, make_tensor<int64_t>(Dims{1, 1, 1, 2}, {0, 0})}, {}, "integer grid");
  expect_invalid({x4}, {}, "missing grid");
  expect_invalid({x4, RuntimeValue()}, {}, "omitted grid");
  expect_invalid({x4, g4}, {attr_string("mode", "trilinear")}, "unknown mode");
  expect_invalid({x4, g4}, {attr_string("mode", "")}, "empty mode");
  expect_invalid({x4, g4}, {attr_string("padding_mode", "wrap")}, "unknown padding_mode");
}

TEST(GridSample, UnsupportedInputTypeHasNoKernel) {
  auto run = run_kernel("GridSample", {make_tensor<int32_t>(Dims{1, 1, 1, 1}, {1}), make_tensor<float>(Dims{1, 1, 1, 2}, {0, 0})},
                        1, {}, 16);
  EXPECT_FALSE(run.status.ok());
}

// ---------------------------------------------------------------- AffineGrid, Col2Im

// The identity theta gives the base grid: pixel centres, or with
// align_corners the corners at -1 and 1.
TEST(AffineGrid, IdentityGivesTheBaseGrid) {
  Tensor theta = make_tensor<float>({1, 2, 3}, {1, 0, 0, 0, 1, 0});
  Tensor size = make_tensor<int64_t>({4}, {1, 1, 2, 2});
  auto r = run_kernel("AffineGrid", {theta, size}, 1, {}, 20);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{1, 2, 2, 2}));
  EXPECT_EQ(to_vector<float>(r.outputs[0].tensor()), (std::vector<float>{-.5f, -.5f, .5f, -.5f, -.5f, .5f, .5f, .5f}));
  auto ac = run_kernel("AffineGrid", {theta, size}, 1, {attr_int("align_corners", 1)}, 20);
  ASSERT_TRUE(ac.status.ok()) << ac.status.to_string();
  EXPECT_EQ(to_vector<float>(ac.outputs[0].tensor()), (std::vector<float>{-1, -1, 1, -1, -1, 1, 1, 1}));
  // A 3-D size needs a [N, 3, 4] theta.
  auto bad = run_kernel("AffineGrid", {theta, make_tensor<int64_t>({5}, {1, 1, 2, 2, 2})}, 1, {}, 20);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

// Two 1x2 blocks over a 1x3 image, stride 1: the middle pixel is in both.
TEST(Col2Im, OverlappingBlocksSum) {
  Tensor x = make_tensor<float>({1, 2, 2}, {1, 10, 2, 20});  // [N, C * 2, L = 2]
  Tensor image = make_tensor<int64_t>({2}, {1, 3});
  Tensor block = make_tensor<int64_t>({2}, {1, 2});
  auto r = run_kernel("Col2Im", {x, image, block}, 1, {}, 18);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{1, 1, 1, 3}));
  EXPECT_EQ(to_vector<float>(r.outputs[0].tensor()), (std::vector<float>{1, 12, 20}));
  // L must be the number of block positions, and a block must fit.
  auto wrong_l = run_kernel("Col2Im", {make_tensor<float>({1, 2, 3}, std::vector<float>(6)), image, block}, 1, {}, 18);
  EXPECT_EQ(wrong_l.status.code(), StatusCode::kInvalidArgument);
  auto too_big = run_kernel("Col2Im", {x, image, make_tensor<int64_t>({2}, {2, 2})}, 1, {}, 18);
  EXPECT_EQ(too_big.status.code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sy
