// Unit tests for DnnlPrimitive (dnnl_primitive.h): a primitive whose
// memory objects each thread keeps and repoints computes on whatever
// buffers each call names, on any thread.
#include "devices/cpu/kernels/dnnl_primitive.h"

#include <gtest/gtest.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <vector>

#include "devices/cpu/kernels/nn_common.h"

namespace sy::nn {
namespace {

using dnnl::memory;

// y[m] = b[m] + sum_c w[m][c] * x[c] over 4 pixels: a 1x1 convolution of
// 2 channels to 3, NHWC, weights plain (oihw).
dnnl::convolution_forward::primitive_desc pointwise_desc() {
  const auto f32 = memory::data_type::f32;
  dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                    memory::desc({1, 2, 2, 2}, f32, memory::format_tag::nhwc),
                                    memory::desc({3, 2, 1, 1}, f32, memory::format_tag::oihw),
                                    memory::desc({3}, f32, memory::format_tag::a),
                                    memory::desc({1, 3, 2, 2}, f32, memory::format_tag::nhwc), {1, 1}, {0, 0}, {0, 0});
  return dnnl::convolution_forward::primitive_desc(d, cpu_engine());
}

std::vector<float> expected(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b) {
  std::vector<float> y(12);
  for (int p = 0; p < 4; ++p)
    for (int m = 0; m < 3; ++m) y[p * 3 + m] = b[m] + w[m * 2] * x[p * 2] + w[m * 2 + 1] * x[p * 2 + 1];
  return y;
}

TEST(DnnlPrimitive, EachCallReadsAndWritesTheBuffersItNames) {
  const auto pd = pointwise_desc();
  const DnnlPrimitive prim(pd);
  const std::vector<float> w = {1, 2, 3, 4, 5, 6}, b = {0.5f, -1, 2};
  std::vector<float> scratch(pd.scratchpad_desc().get_size() / sizeof(float) + 1);
  // Two inputs and outputs in turn, then the first again: each call's
  // pointers, not the ones the thread's memory objects were made with.
  std::vector<float> x0 = {1, 2, 3, 4, 5, 6, 7, 8}, x1 = {-1, 0, 1, 0, 2, 2, 0, -3};
  for (int round = 0; round < 3; ++round) {
    const std::vector<float>& x = round == 1 ? x1 : x0;
    std::vector<float> y(12, -99.f);
    prim.execute({{DNNL_ARG_SRC, x.data()},
                  {DNNL_ARG_WEIGHTS, w.data()},
                  {DNNL_ARG_BIAS, b.data()},
                  {DNNL_ARG_DST, y.data()},
                  {DNNL_ARG_SCRATCHPAD, scratch.data()}});
    EXPECT_EQ(y, expected(x, w, b)) << "round " << round;
  }
}

TEST(DnnlPrimitive, RunsOnManyThreadsAtOnce) {
  const auto pd = pointwise_desc();
  const DnnlPrimitive prim(pd);
  const std::vector<float> w = {1, -2, 3, 0.25f, 5, 6}, b = {1, 2, 3};
  constexpr int kCalls = 256;
  std::vector<std::vector<float>> xs(kCalls), ys(kCalls, std::vector<float>(12));
  for (int i = 0; i < kCalls; ++i)
    for (int k = 0; k < 8; ++k) xs[i].push_back(static_cast<float>((i * 7 + k * 3) % 17) - 8);
  tbb::task_arena arena(3);
  arena.execute([&] {
    tbb::parallel_for(0, kCalls, [&](int i) {
      std::vector<float> scratch(pd.scratchpad_desc().get_size() / sizeof(float) + 1);
      prim.execute({{DNNL_ARG_SRC, xs[i].data()},
                    {DNNL_ARG_WEIGHTS, w.data()},
                    {DNNL_ARG_BIAS, b.data()},
                    {DNNL_ARG_DST, ys[i].data()},
                    {DNNL_ARG_SCRATCHPAD, scratch.data()}});
    });
  });
  for (int i = 0; i < kCalls; ++i) EXPECT_EQ(ys[i], expected(xs[i], w, b)) << i;
}

}  // namespace
}  // namespace sy::nn
