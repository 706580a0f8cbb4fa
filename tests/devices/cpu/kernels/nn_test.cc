// Unit tests for the CPU neural-network kernels (nn_*.cc; pooling in
// nn_pool_test.cc, recurrent ones in rnn_kernels_test.cc).
// Hand-computed cases first, then a runner over the ONNX reference cases
// in /usr/share/libonnx-testdata (skipped when that folder is absent).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <thread>

#include <tbb/task_arena.h>

#include "devices/cpu/cpu_device.h"
#include "devices/cpu/kernels/nn_common.h"
#include "ir/onnx_loader.h"
#include "ir/tensor_proto.h"
#include "onnx/onnx_pb.h"
#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_float;
using testing::attr_floats;
using testing::attr_int;
using testing::attr_ints;
using testing::attr_string;
using testing::expect_near;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

// ---------------------------------------------------------------- MatMul

TEST(Nn, MatMul_2D) {
  auto r = run_kernel("MatMul", {make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}), make_tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6})}, 1);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{2, 2}));
  expect_near(to_vector<float>(r.outputs[0].tensor()), {22, 28, 49, 64});
}

TEST(Nn, MatMul_BatchBroadcastAnd1D) {
  // A [2,1,2,2] x B [3,2,1]: batch broadcasts to [2,3].
  std::vector<float> a = {1, 2, 3, 4, 5, 6, 7, 8};
  auto r = run_kernel("MatMul", {make_tensor<float>({2, 1, 2, 2}, a), make_tensor<float>({3, 2, 1}, {1, 0, 0, 1, 1, 1})}, 1);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{2, 3, 2, 1}));
  expect_near(to_vector<float>(r.outputs[0].tensor()), {1, 3, 2, 4, 3, 7, 5, 7, 6, 8, 11, 15});
  // 1-D x 1-D is a scalar dot product.
  auto d = run_kernel("MatMul", {make_tensor<double>({3}, {1, 2, 3}), make_tensor<double>({3}, {4, 5, 6})}, 1);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.outputs[0].tensor().rank(), 0u);
  EXPECT_DOUBLE_EQ(d.outputs[0].tensor().data<double>()[0], 32.0);
  // 1-D x 3-D: prepended 1 is removed.
  auto v = run_kernel("MatMul", {make_tensor<int64_t>({2}, {1, 2}), make_tensor<int64_t>({2, 2, 1}, {1, 2, 3, 4})}, 1);
  ASSERT_TRUE(v.status.ok());
  EXPECT_EQ(v.outputs[0].tensor().dims(), (Dims{2, 1}));
  EXPECT_EQ(to_vector<int64_t>(v.outputs[0].tensor()), (std::vector<int64_t>{5, 11}));
}

TEST(Nn, MatMul_FoldedBatch) {
  auto r = run_kernel("MatMul", {make_tensor<float>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), make_tensor<float>({2, 1}, {1, -1})}, 1);
  ASSERT_TRUE(r.status.ok());
  expect_near(to_vector<float>(r.outputs[0].tensor()), {-1, -1, -1, -1});
}

// Many small batches run side by side (for_batches) in a 4-thread arena:
// [3,4,1,...] x [4,1,...] broadcast both ways so that every batch reads
// its own A and B offsets, in float (sgemm) and int32 (the plain loop).
TEST(Nn, MatMul_ParallelBatches_MatchReference) {
  tbb::task_arena arena(4);
  const int64_t M = 40, K = 64, N = 50;  // 12 batches of 128K multiply-adds: past for_batches' threshold
  std::vector<float> a(static_cast<size_t>(3 * M * K)), b(static_cast<size_t>(4 * K * N));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int64_t>(i * 7 % 13) - 6);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int64_t>(i * 5 % 11) - 5);
  std::vector<float> want(static_cast<size_t>(12 * M * N));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          float acc = 0;
          for (int64_t k = 0; k < K; ++k) acc += a[(i * M + m) * K + k] * b[(j * K + k) * N + n];
          want[static_cast<size_t>(((i * 4 + j) * M + m) * N + n)] = acc;
        }
  testing::KernelRun f, n;
  arena.execute([&] {
    f = run_kernel("MatMul", {make_tensor<float>({3, 1, M, K}, a), make_tensor<float>({4, K, N}, b)}, 1);
    std::vector<int32_t> ai(a.begin(), a.end()), bi(b.begin(), b.end());
    n = run_kernel("MatMul", {make_tensor<int32_t>({3, 1, M, K}, ai), make_tensor<int32_t>({4, K, N}, bi)}, 1);
  });
  ASSERT_TRUE(f.status.ok()) << f.status.to_string();
  ASSERT_TRUE(n.status.ok()) << n.status.to_string();
  EXPECT_EQ(f.outputs[0].tensor().dims(), (Dims{3, 4, M, N}));
  EXPECT_EQ(to_vector<float>(f.outputs[0].tensor()), want);  // small integers: exact in any order
  EXPECT_EQ(to_vector<int32_t>(n.outputs[0].tensor()), std::vector<int32_t>(want.begin(), want.end()));
}

// nn::sgemm's paths (gemm_few_rows() for up to four rows of A, oneDNN in
// blocks of rows, or of columns when there are few rows or B is
// transposed) in a 4-thread arena whatever the machine, with row blocks of
// 32 rows and of a quarter of the rows, every transpose, padded leading
// dimensions, alpha and beta.
TEST(Nn, Sgemm_RowAndColumnBlocks_MatchReference) {
  tbb::task_arena arena(4);
  struct Shape {
    int64_t M, N, K;
  };
  for (Shape sh :
       {Shape{1, 1, 1}, Shape{3, 5, 7}, Shape{2, 3, 0}, Shape{100, 70, 300}, Shape{3, 300, 400}, Shape{1, 1000, 300},
        Shape{4, 1000, 300}, Shape{2, 37, 5000}, Shape{5, 300, 400}, Shape{300, 100, 40}, Shape{200, 300, 64}}) {
    for (char ta : {'N', 'T'}) {
      for (char tb : {'N', 'T'}) {
        const int64_t M = sh.M, N = sh.N, K = sh.K;
        // Stored shapes: op(A) is MxK, op(B) is KxN; each row padded by 3.
        const int64_t ar = ta == 'T' ? K : M, ac = ta == 'T' ? M : K, br = tb == 'T' ? N : K, bc = tb == 'T' ? K : N;
        const int64_t lda = ac + 3, ldb = bc + 3, ldc = N + 3;
        std::vector<float> A(static_cast<size_t>(ar * lda)), B(static_cast<size_t>(br * ldb)),
            C(static_cast<size_t>(M * ldc));
        for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<float>(static_cast<int64_t>(i * 7 % 13) - 6) / 8;
        for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>(static_cast<int64_t>(i * 5 % 11) - 5) / 4;
        for (size_t i = 0; i < C.size(); ++i) C[i] = static_cast<float>(i % 3);
        const std::vector<float> C0 = C;
        const float alpha = 0.5f, beta = 2.f;
        Status st;
        arena.execute([&] { st = nn::sgemm(ta, tb, M, N, K, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc); });
        ASSERT_TRUE(st.ok()) << st.to_string();
        double worst = 0;
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            double acc = 0;
            for (int64_t k = 0; k < K; ++k)
              acc += double(ta == 'T' ? A[k * lda + i] : A[i * lda + k]) * (tb == 'T' ? B[j * ldb + k] : B[k * ldb + j]);
            const double want = alpha * acc + beta * C0[i * ldc + j];
            worst = std::max(worst, std::abs(C[i * ldc + j] - want) / (1 + std::abs(want)));
          }
        EXPECT_LT(worst, 1e-4) << M << "x" << N << "x" << K << " " << ta << tb;
        for (int64_t i = 0; i < M; ++i)  // the padding is not written
          for (int64_t j = N; j < ldc; ++j) EXPECT_EQ(C[i * ldc + j], C0[i * ldc + j]);
      }
    }
  }
}

// One row of a transposed A is a column, contiguous when lda is 1: sgemm
// gives it to gemm_few_rows() as a row, with the same result.
TEST(Nn, Sgemm_OneColumnOfTransposedA_IsTheRow) {
  const int64_t N = 300, K = 1000;
  std::vector<float> a(K), B(static_cast<size_t>(K * N)), by_row(N), by_column(N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int64_t>(i * 7 % 13) - 6) / 8;
  for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>(static_cast<int64_t>(i * 5 % 11) - 5) / 4;
  ASSERT_TRUE(nn::sgemm('N', 'N', 1, N, K, 1.f, a.data(), K, B.data(), N, 0.f, by_row.data(), N).ok());
  ASSERT_TRUE(nn::sgemm('T', 'N', 1, N, K, 1.f, a.data(), 1, B.data(), N, 0.f, by_column.data(), N).ok());
  EXPECT_EQ(by_column, by_row);
}

TEST(Nn, MatMul_InnerDimMismatchIsError) {
  auto r = run_kernel("MatMul", {make_tensor<float>({2, 3}, std::vector<float>(6)), make_tensor<float>({2, 2}, std::vector<float>(4))}, 1);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  auto b = run_kernel("MatMul", {make_tensor<float>({2, 1, 1}, {1, 2}), make_tensor<float>({3, 1, 1}, {1, 2, 3})}, 1);
  EXPECT_EQ(b.status.code(), StatusCode::kInvalidArgument);
}

TEST(Nn, Gemm_TransposeAlphaBetaBroadcastC) {
  // A^T: A stored [3,2]; B^T: B stored [2,3]. C is a row vector [2].
  auto A = make_tensor<float>({3, 2}, {1, 4, 2, 5, 3, 6});  // A^T = [[1,2,3],[4,5,6]]
  auto B = make_tensor<float>({2, 3}, {1, 3, 5, 2, 4, 6});  // B^T = [[1,2],[3,4],[5,6]]
  auto C = make_tensor<float>({2}, {1, 2});
  auto r = run_kernel("Gemm", {A, B, C}, 1,
                      {attr_int("transA", 1), attr_int("transB", 1), attr_float("alpha", 2.f), attr_float("beta", 3.f)});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {47, 62, 101, 134});
  auto d = run_kernel("Gemm", {make_tensor<double>({1, 2}, {1, 2}), make_tensor<double>({2, 1}, {3, 4}),
                               make_tensor<double>({1, 1}, {10})},
                      1, {attr_float("beta", 0.5f)});
  ASSERT_TRUE(d.status.ok());
  EXPECT_DOUBLE_EQ(d.outputs[0].tensor().data<double>()[0], 16.0);
}

// int64 past 2^53 stays exact with integer alpha and beta (a double sum
// gave ...992 for 2^53 + 1); a fractional alpha still goes through double.
TEST(Nn, Gemm_Int64_IntegerAlphaBetaAreExact) {
  const int64_t big = (int64_t{1} << 53) + 1;
  auto r = run_kernel(
      "Gemm", {make_tensor<int64_t>({1, 1}, {1}), make_tensor<int64_t>({1, 1}, {big}), make_tensor<int64_t>({1}, {2})},
      1, {attr_float("beta", 3.f)});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(to_vector<int64_t>(r.outputs[0].tensor()), (std::vector<int64_t>{big + 6}));
  auto half = run_kernel("Gemm", {make_tensor<int32_t>({1, 2}, {3, 4}), make_tensor<int32_t>({2, 1}, {5, -7})}, 1,
                         {attr_float("alpha", 0.5f)});
  ASSERT_TRUE(half.status.ok()) << half.status.to_string();
  EXPECT_EQ(to_vector<int32_t>(half.outputs[0].tensor()), (std::vector<int32_t>{-6}));  // 0.5 * -13 toward 0
}

TEST(Nn, Gemm_BadCIsError) {
  auto r = run_kernel("Gemm", {make_tensor<float>({2, 2}, std::vector<float>(4)), make_tensor<float>({2, 2}, std::vector<float>(4)),
                               make_tensor<float>({3}, std::vector<float>(3))},
                      1);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

TEST(Nn, MatMulInteger_ZeroPoints) {
  auto r = run_kernel("MatMulInteger", {make_tensor<uint8_t>({2, 2}, {10, 12, 14, 16}), make_tensor<int8_t>({2, 1}, {1, -1}),
                                        make_tensor<uint8_t>({}, {10}), make_tensor<int8_t>({}, {1})},
                      1);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  // (A-10) = [[0,2],[4,6]], (B-1) = [[0],[-2]]
  EXPECT_EQ(to_vector<int32_t>(r.outputs[0].tensor()), (std::vector<int32_t>{-4, -12}));
}

TEST(Nn, QLinearMatMul_Scalar) {
  auto r = run_kernel("QLinearMatMul",
                      {make_tensor<uint8_t>({1, 2}, {2, 4}), make_tensor<float>({}, {0.5f}), make_tensor<uint8_t>({}, {0}),
                       make_tensor<uint8_t>({2, 1}, {3, 5}), make_tensor<float>({}, {1.f}), make_tensor<uint8_t>({}, {1}),
                       make_tensor<float>({}, {2.f}), make_tensor<uint8_t>({}, {10})},
                      1);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  // acc = 2*2 + 4*4 = 20; 20 * 0.5 * 1 / 2 = 5; + 10 = 15
  EXPECT_EQ(to_vector<uint8_t>(r.outputs[0].tensor()), (std::vector<uint8_t>{15}));
}

// ------------------------------------------------------------------ Conv

TEST(Nn, Conv_PadsAndStrides) {
  std::vector<float> x(25);
  for (int i = 0; i < 25; ++i) x[i] = static_cast<float>(i);
  auto r = run_kernel("Conv", {make_tensor<float>({1, 1, 5, 5}, x), make_tensor<float>({1, 1, 3, 3}, std::vector<float>(9, 1.f))}, 1,
                      {attr_ints("pads", {1, 1, 1, 1}), attr_ints("strides", {2, 2}), attr_ints("kernel_shape", {3, 3})});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{1, 1, 3, 3}));
  expect_near(to_vector<float>(r.outputs[0].tensor()), {12, 27, 24, 63, 108, 81, 72, 117, 84});
}

TEST(Nn, Conv_AsymmetricPadsGroupBiasDouble) {
  // Two groups, 1 channel each, 1-D, kernel 2, pads (1, 0).
  auto x = make_tensor<double>({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  auto w = make_tensor<double>({2, 1, 2}, {1, 1, 1, -1});
  auto b = make_tensor<double>({2}, {0.5, -0.5});
  auto r = run_kernel("Conv", {x, w, b}, 1, {attr_int("group", 2), attr_ints("pads", {1, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{1, 2, 3}));
  EXPECT_EQ(to_vector<double>(r.outputs[0].tensor()), (std::vector<double>{1.5, 3.5, 5.5, -4.5, -1.5, -1.5}));
  // The float path (oneDNN) gives the same.
  auto rf = run_kernel("Conv", {make_tensor<float>({1, 2, 3}, {1, 2, 3, 4, 5, 6}), make_tensor<float>({2, 1, 2}, {1, 1, 1, -1}),
                                make_tensor<float>({2}, {0.5f, -0.5f})},
                       1, {attr_int("group", 2), attr_ints("pads", {1, 0})});
  ASSERT_TRUE(rf.status.ok());
  expect_near(to_vector<float>(rf.outputs[0].tensor()), {1.5f, 3.5f, 5.5f, -4.5f, -1.5f, -1.5f});
}

// Runs Conv with `attrs` on x and w shaped as given, with a bias, in float
// (within `arena`) and in double, whose generic direct loop is the
// reference, and compares.
void expect_float_conv_matches_double(const Dims& xs, const Dims& ws, const std::vector<Attribute>& attrs,
                                      tbb::task_arena& arena) {
  const int64_t M = ws[0];
  std::vector<double> xd(static_cast<size_t>(xs.numel())), wd(static_cast<size_t>(ws.numel())), bd(M);
  for (size_t i = 0; i < xd.size(); ++i) xd[i] = static_cast<double>(static_cast<int64_t>(i * 37 % 23) - 11) / 8;
  for (size_t i = 0; i < wd.size(); ++i) wd[i] = static_cast<double>(static_cast<int64_t>(i * 11 % 7) - 3) / 4;
  for (size_t i = 0; i < bd.size(); ++i) bd[i] = static_cast<double>(i) / 2 - 1;
  std::vector<float> xf(xd.begin(), xd.end()), wf(wd.begin(), wd.end()), bf(bd.begin(), bd.end());
  auto ref = run_kernel("Conv", {make_tensor<double>(xs, xd), make_tensor<double>(ws, wd), make_tensor<double>({M}, bd)},
                        1, attrs);
  testing::KernelRun got;
  arena.execute([&] {
    got = run_kernel("Conv", {make_tensor<float>(xs, xf), make_tensor<float>(ws, wf), make_tensor<float>({M}, bf)}, 1,
                     attrs);
  });
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  ASSERT_TRUE(got.status.ok()) << got.status.to_string();
  ASSERT_EQ(got.outputs[0].tensor().dims(), ref.outputs[0].tensor().dims()) << xs.to_string();
  const std::vector<double> want = to_vector<double>(ref.outputs[0].tensor());
  expect_near(to_vector<float>(got.outputs[0].tensor()), std::vector<float>(want.begin(), want.end()));
}

// Float depthwise convolutions take paths of their own (depthwise_conv.cc).
// Odd sizes, strides, dilations, pads wider than the window and the input.
TEST(Nn, Conv_Depthwise_MatchesGenericLoop) {
  struct Case {
    Dims x, w;
    std::vector<int64_t> pads, strides, dilations;
  };
  const std::vector<Case> cases = {
      {{2, 3, 9, 11}, {3, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},
      {{1, 4, 13, 10}, {4, 1, 5, 2}, {1, 0, 2, 1}, {2, 3}, {2, 1}},
      {{1, 2, 4, 5}, {2, 1, 3, 3}, {6, 5, 4, 7}, {1, 1}, {1, 1}},
      {{1, 2, 6, 7}, {2, 1, 3, 3}, {0, 0, 0, 0}, {3, 3}, {1, 2}},
      {{3, 5, 17}, {5, 1, 3}, {2, 1}, {3}, {1}},
      // Stride 1 along rows of 8 or more output columns: a zero-padded copy,
      // columns 32, 8 and a last 8 overlapping at a time. Where the CPU has
      // AVX-512, only output rows narrower than the input's come here (the
      // others go to the flattened plane, below).
      {{1, 3, 6, 40}, {3, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},
      {{1, 2, 11, 12}, {2, 1, 3, 3}, {0, 1, 2, 1}, {2, 1}, {1, 1}},
      {{2, 2, 9, 37}, {2, 1, 5, 5}, {2, 3, 1, 0}, {1, 1}, {2, 2}},
      {{1, 2, 5, 21}, {2, 1, 1, 4}, {0, 0, 0, 0}, {1, 1}, {1, 3}},
      {{1, 2, 30}, {2, 1, 3}, {0, 0}, {1}, {1}},
      // After the blocks of 32, three and two whole vectors in one call,
      // with the 3x3 kernel unrolled and with another size.
      {{1, 2, 5, 56}, {2, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},
      {{1, 2, 4, 50}, {2, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},
      {{1, 2, 7, 24}, {2, 1, 5, 5}, {0, 0, 0, 0}, {1, 1}, {1, 1}},
      {{1, 2, 5, 58}, {2, 1, 3, 3}, {1, 0, 1, 0}, {1, 1}, {1, 1}},
      {{1, 2, 4, 52}, {2, 1, 3, 3}, {1, 0, 1, 0}, {1, 1}, {1, 1}},
      // Blocks of 16 channels (strides, or rows under 8 columns): a short
      // last block, rows of whole and partial groups of 16 columns, pixel
      // groups running across rows, two images, bands of one output row.
      {{2, 20, 9, 40}, {20, 1, 3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}},
      {{1, 33, 7, 7}, {33, 1, 3, 3}, {0, 1, 1, 0}, {1, 1}, {1, 1}},
      {{1, 17, 12, 35}, {17, 1, 3, 3}, {2, 0, 1, 3}, {2, 3}, {2, 2}},
      {{1, 17, 6, 1100}, {17, 1, 3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}},
      {{1, 16, 1, 50}, {16, 1, 1, 5}, {0, 2, 0, 2}, {1, 2}, {1, 1}},
      // Planes whose last rows are read column by column (16 floats or
      // fewer past the row's start): 9 and 35 floats, in blocks.
      {{1, 40, 3, 3}, {40, 1, 2, 2}, {0, 0, 0, 0}, {1, 1}, {1, 1}},
      {{2, 30, 5, 7}, {30, 1, 3, 3}, {1, 0, 1, 0}, {1, 1}, {1, 1}},
      // Stride 1, output rows as wide as the input's: masked loads along
      // the flattened plane (with AVX-512). Groups of 8, 4, 2 and 1 planes
      // running across images, a plane under 16 floats, dilations, 5x5,
      // top and bottom pads that change the height, one row, 1-D. Then
      // planes of 8 groups of 16 pixels or more, a plane at a time: runs of
      // 8, 4, 2 and 1 groups.
      {{2, 3, 15, 15}, {3, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},
      {{1, 4, 20, 17}, {4, 1, 5, 5}, {4, 4, 4, 4}, {1, 1}, {2, 2}},
      {{1, 3, 9, 30}, {3, 1, 3, 3}, {0, 1, 2, 1}, {1, 1}, {1, 1}},
      {{2, 3, 300}, {3, 1, 3}, {1, 1}, {1}, {1}},
      {{2, 300, 5, 5}, {300, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},
      {{3, 15, 3, 3}, {15, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},
      {{1, 33, 7, 7}, {33, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},
      {{1, 12, 9, 6}, {12, 1, 3, 3}, {2, 2, 2, 2}, {1, 1}, {2, 2}},
      {{1, 9, 6, 7}, {9, 1, 5, 5}, {0, 2, 3, 2}, {1, 1}, {1, 1}},
      {{1, 9, 1, 5}, {9, 1, 1, 3}, {0, 1, 0, 1}, {1, 1}, {1, 1}},
      {{2, 11, 6}, {11, 1, 3}, {1, 1}, {1}, {1}},
      // Stride 2 along rows of 48 or more output columns: rows split into
      // even and odd columns. Odd padded widths, an odd left pad, dilations,
      // a 5x5 kernel, the columns' tail, stride 1 down the plane, left pads of
      // 0 to 3. (Output rows shorter than half the input's, or strides that
      // differ, keep the flattened phases below out.)
      {{1, 3, 7, 101}, {3, 1, 3, 3}, {1, 0, 1, 1}, {2, 2}, {1, 1}},
      {{2, 2, 9, 100}, {2, 1, 5, 5}, {2, 1, 2, 2}, {2, 2}, {1, 2}},
      {{1, 2, 5, 120}, {2, 1, 3, 3}, {0, 0, 0, 0}, {1, 2}, {1, 1}},
      {{1, 2, 6, 99}, {2, 1, 3, 3}, {0, 2, 1, 3}, {1, 2}, {1, 1}},
      {{1, 2, 6, 104}, {2, 1, 5, 5}, {2, 3, 2, 0}, {1, 2}, {1, 1}},
      // Stride 2 with AVX-512, output rows at least half the input's and 8
      // groups of 16 pixels or more: each plane split into its four phases
      // (even or odd rows by even or odd columns), then summed as at stride
      // 1. Two images, odd heights and widths, 5x5, pads only at the end
      // ("same" as TensorFlow pads), dilations, rows split 16 columns at a
      // time and then a masked tail.
      {{2, 3, 30, 30}, {3, 1, 3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}},
      {{1, 2, 29, 31}, {2, 1, 3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}},
      {{1, 2, 24, 40}, {2, 1, 5, 5}, {2, 2, 2, 2}, {2, 2}, {1, 1}},
      {{1, 2, 32, 34}, {2, 1, 3, 3}, {0, 0, 1, 1}, {2, 2}, {1, 1}},
      {{1, 2, 26, 26}, {2, 1, 3, 3}, {2, 2, 2, 2}, {2, 2}, {2, 2}},
      {{1, 2, 10, 70}, {2, 1, 3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}},
  };
  tbb::task_arena arena;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x.to_string());
    expect_float_conv_matches_double(c.x, c.w,
                                     {attr_int("group", c.x[1]), attr_ints("pads", c.pads), attr_ints("strides", c.strides),
                                      attr_ints("dilations", c.dilations)},
                                     arena);
  }
}

// Float convolutions go to oneDNN split over the cores (by images, or a
// 1x1 one by output channels). Run in a 4-thread arena so that the splits
// happen.
TEST(Nn, Conv_SplitOverCores_MatchesGenericLoop) {
  struct Case {
    Dims x, w;
    int64_t group;
  };
  const std::vector<Case> cases = {
      {{3, 5, 7, 6}, {8, 5, 3, 3}, 1},     // 3 images: by images
      {{1, 24, 5, 6}, {40, 24, 1, 1}, 1},  // 1x1, 40 channels: by channels, uneven
      {{1, 6, 9, 9}, {4, 3, 3, 3}, 2},     // grouped, one image: whole
  };
  tbb::task_arena arena(4);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x.to_string());
    expect_float_conv_matches_double(c.x, c.w, {attr_int("group", c.group), attr_ints("pads", {1, 0, 1, 0})}, arena);
  }
}

// A 1x1 convolution, unstrided and unpadded, of 32 pixels or more runs in
// register tiles where the CPU has AVX-512 (pointwise_conv.cc), unless it
// takes 512 input channels or more to fewer. Otherwise, with fewer than 16
// output channels a core, it runs as tiles of sgemm (channel blocks by
// column chunks); with more, or strided, or padded, it goes to oneDNN by
// channels. All in a 2-thread arena.
TEST(Nn, Conv_PointwiseFewChannels_MatchesGenericLoop) {
  struct Case {
    Dims x, w;
    std::vector<int64_t> pads, strides;
  };
  const std::vector<Case> cases = {
      {{1, 24, 5, 6}, {8, 24, 1, 1}, {0, 0, 0, 0}, {1, 1}},
      {{1, 40, 30, 31}, {31, 40, 1, 1}, {0, 0, 0, 0}, {1, 1}},   // register tiles
      {{2, 64, 40, 70}, {8, 64, 1, 1}, {0, 0, 0, 0}, {1, 1}},    // register tiles, two images
      {{1, 512, 6, 7}, {31, 512, 1, 1}, {0, 0, 0, 0}, {1, 1}},   // sgemm: two channel blocks, 16 and 15
      {{2, 520, 40, 70}, {8, 520, 1, 1}, {0, 0, 0, 0}, {1, 1}},  // sgemm: 12 column chunks of 234 an image
      {{1, 4, 3, 5, 6}, {5, 4, 1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}},
      {{1, 24, 5, 6}, {8, 24, 1, 1}, {1, 0, 0, 1}, {1, 1}},   // padded: oneDNN
      {{1, 24, 9, 8}, {8, 24, 1, 1}, {0, 0, 0, 0}, {2, 1}},   // strided: oneDNN
      {{1, 24, 5, 6}, {40, 24, 1, 1}, {0, 0, 0, 0}, {1, 1}},  // 40 channels: oneDNN
  };
  tbb::task_arena arena(2);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x.to_string() + " to " + c.w.to_string());
    expect_float_conv_matches_double(c.x, c.w, {attr_ints("pads", c.pads), attr_ints("strides", c.strides)}, arena);
  }
}

// One image with a spatial window, cut into at least as many chunks of
// output rows as cores, goes through im2col and sgemm chunk by chunk: an
// uneven last chunk, strides, dilations, asymmetric pads, bias, 3-D.
TEST(Nn, Conv_Im2colChunks_MatchGenericLoop) {
  struct Case {
    Dims x, w;
    std::vector<int64_t> pads, strides, dilations;
    int64_t group = 1;
  };
  const std::vector<Case> cases = {
      {{1, 16, 64, 30}, {8, 16, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},           // 3 chunks of 30, 30, 4 rows
      {{1, 64, 200, 21}, {5, 64, 3, 2}, {1, 0, 2, 1}, {2, 3}, {2, 1}},          // 3 chunks
      {{3, 16, 40, 30}, {6, 16, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},           // 3 images of 2 chunks: 30, 10 rows
      {{2, 12, 40, 30}, {8, 3, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 4},         // 4 groups of 3 to 2 channels
      {{1, 6, 40, 30}, {12, 1, 3, 3}, {0, 1, 2, 1}, {1, 1}, {1, 1}, 6},         // channel multiplier 2
      // 3-D: rows are (depth, row) pairs, chunks cross depths.
      {{1, 4, 7, 20, 30}, {5, 4, 3, 3, 3}, {1, 1, 1, 1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
      {{2, 6, 9, 12, 30}, {4, 3, 2, 3, 1}, {0, 1, 0, 2, 1, 0}, {2, 1, 1}, {3, 2, 1}, 2},  // strides, dilations, groups
  };
  tbb::task_arena arena(2);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x.to_string());
    expect_float_conv_matches_double(c.x, c.w,
                                     {attr_ints("pads", c.pads), attr_ints("strides", c.strides),
                                      attr_ints("dilations", c.dilations), attr_int("group", c.group)},
                                     arena);
  }
}

TEST(Nn, Conv_SameUpperDilations) {
  std::vector<float> x = {1, 2, 3, 4, 5};
  auto r = run_kernel("Conv", {make_tensor<float>({1, 1, 5}, x), make_tensor<float>({1, 1, 2}, {1, 1})}, 1,
                      {attr_string("auto_pad", "SAME_UPPER"), attr_ints("dilations", {2})});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  // dk = 3, total pad 2 -> (1, 1): windows [0,x0,x2]... -> 0+2, 1+3, 2+4, 3+5, 4+0
  expect_near(to_vector<float>(r.outputs[0].tensor()), {2, 4, 6, 8, 4});
}

TEST(Nn, Conv_MismatchesAreErrors) {
  auto x = make_tensor<float>({1, 3, 4, 4}, std::vector<float>(48));
  auto w = make_tensor<float>({2, 2, 3, 3}, std::vector<float>(36));
  EXPECT_EQ(run_kernel("Conv", {x, w}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("Conv", {x, w}, 1, {attr_int("group", 2)}).status.code(), StatusCode::kInvalidArgument);
  auto big = make_tensor<float>({1, 3, 5, 5}, std::vector<float>(75));
  EXPECT_EQ(run_kernel("Conv", {x, big}, 1).status.code(), StatusCode::kInvalidArgument);
  auto w1 = make_tensor<float>({1, 3, 1, 1}, std::vector<float>(3));
  EXPECT_EQ(run_kernel("Conv", {x, w1, make_tensor<float>({2}, {0, 0})}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("Conv", {make_tensor<float>({3, 4}, std::vector<float>(12)), w1}, 1).status.code(),
            StatusCode::kInvalidArgument);
}

// compute() is const and must be safe to call from several runs at once
// (the oneDNN primitive cache is shared by the kernel object).
TEST(Nn, Conv_ConcurrentComputeIsThreadSafe) {
  Node node;
  node.op_type = "Conv";
  node.opset = 17;
  node.attributes = {attr_ints("pads", {1, 1, 1, 1})};
  node.inputs = {0, 1};
  node.outputs = {100};
  const KernelDef* def = KernelRegistry::builtin().find("", "Conv", 17, DeviceKind::kCpu, DataType::kFloat);
  ASSERT_NE(def, nullptr);
  auto kernel = def->factory();
  ASSERT_TRUE(kernel->init(node).ok());
  static CpuDevice device;
  std::vector<float> xv(2 * 3 * 8 * 8), wv(4 * 3 * 3 * 3);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i % 7) - 3.f;
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>(i % 5) * 0.25f - 0.5f;
  RuntimeValue x(make_tensor<float>({2, 3, 8, 8}, xv)), w(make_tensor<float>({4, 3, 3, 3}, wv));
  auto run_once = [&]() {
    std::vector<const RuntimeValue*> in = {&x, &w};
    RuntimeValue out;
    std::vector<RuntimeValue*> outs = {&out};
    KernelContext ctx(node, device, in, outs);
    Status st = kernel->compute(ctx);
    return st.ok() ? to_vector<float>(out.tensor()) : std::vector<float>{};
  };
  const std::vector<float> want = run_once();
  ASSERT_EQ(want.size(), 2u * 4 * 8 * 8);
  std::vector<std::vector<float>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep) got[t] = run_once();
    });
  for (auto& th : threads) th.join();
  for (const auto& g : got) EXPECT_EQ(g, want);
}

TEST(Nn, ConvTranspose_StridesOutputPadding) {
  auto x = make_tensor<float>({1, 1, 2}, {1, 2});
  auto w = make_tensor<float>({1, 2, 2}, {1, 1, 1, 2});
  auto r = run_kernel("ConvTranspose", {x, w}, 1, {attr_ints("strides", {2}), attr_ints("output_padding", {1})});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{1, 2, 5}));
  expect_near(to_vector<float>(r.outputs[0].tensor()), {1, 1, 2, 2, 0, 1, 2, 2, 4, 0});
  auto bad = run_kernel("ConvTranspose", {make_tensor<float>({1, 2, 2}, {1, 2, 3, 4}), w}, 1);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

// output_shape beyond the full result, without auto_pad: the extra rows are
// zeros at the end (ONNX Runtime and the reference agree), however many;
// the rows of the result do not move. An extra of 2 once shifted them by 1.
// Smaller than the full result, the crop splits as the spec's pads do.
TEST(Nn, ConvTranspose_OutputShape_ExtraRowsAtTheEnd) {
  auto x = make_tensor<float>({1, 1, 2}, {1, 2});
  auto w = make_tensor<float>({1, 1, 1}, {1});
  for (int64_t len : {5, 6, 8}) {  // the full result has 4
    auto r = run_kernel("ConvTranspose", {x, w}, 1, {attr_ints("strides", {3}), attr_ints("output_shape", {len})});
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    std::vector<float> want(static_cast<size_t>(len), 0.f);
    want[0] = 1;
    want[3] = 2;
    EXPECT_EQ(to_vector<float>(r.outputs[0].tensor()), want) << len;
  }
  auto w3 = make_tensor<float>({1, 1, 3}, {1, 10, 100});  // full result [1, 12, 120, 200]
  auto crop = run_kernel("ConvTranspose", {x, w3}, 1, {attr_ints("output_shape", {3})});
  ASSERT_TRUE(crop.status.ok()) << crop.status.to_string();
  EXPECT_EQ(to_vector<float>(crop.outputs[0].tensor()), (std::vector<float>{12, 120, 200}));  // from the start
}

// float16 and bfloat16 run the float path on widened copies and round the
// result once: the float result, rounded, bit for bit.
TEST(Nn, ConvTranspose_HalfTypes_AreTheFloatResultRounded) {
  std::vector<float> xs(2 * 3 * 4), ws(3 * 2 * 2), bs = {0.5f, -1.25f};
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>((i * 5) % 11) * 0.25f - 1.f;
  for (size_t i = 0; i < ws.size(); ++i) ws[i] = static_cast<float>((i * 3) % 7) * 0.5f - 1.5f;
  const std::vector<Attribute> attrs = {attr_ints("strides", {2}), attr_ints("pads", {1, 0}), attr_int("group", 1)};
  auto f = run_kernel(
      "ConvTranspose",
      {make_tensor<float>({2, 3, 4}, xs), make_tensor<float>({3, 2, 2}, ws), make_tensor<float>({2}, bs)}, 1, attrs);
  ASSERT_TRUE(f.status.ok()) << f.status.to_string();
  const std::vector<float> want = to_vector<float>(f.outputs[0].tensor());
  auto half = [](const std::vector<float>& v) {
    std::vector<Float16> h;
    for (float e : v) h.push_back(Float16(e));
    return h;
  };
  auto h = run_kernel("ConvTranspose",
                      {make_tensor<Float16>({2, 3, 4}, half(xs)), make_tensor<Float16>({3, 2, 2}, half(ws)),
                       make_tensor<Float16>({2}, half(bs))},
                      1, attrs);
  ASSERT_TRUE(h.status.ok()) << h.status.to_string();
  ASSERT_EQ(h.outputs[0].tensor().dims(), f.outputs[0].tensor().dims());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(h.outputs[0].tensor().data<Float16>()[i].bits, Float16(want[i]).bits) << i;
}

// 2-D ConvTranspose against a direct sum over every input and tap: strides,
// dilations, asymmetric pads that crop taps at both edges, output padding,
// groups and a bias, over 2 images.
TEST(Nn, ConvTranspose_MatchesDirectSum) {
  struct Case {
    int64_t C, M, H, W, K, stride, dil, group;
    std::vector<int64_t> pads, out_pad;
  };
  const std::vector<Case> cases = {
      {4, 3, 5, 7, 3, 2, 1, 1, {1, 1, 1, 1}, {1, 1}},
      {4, 6, 4, 6, 2, 3, 2, 2, {0, 2, 1, 3}, {0, 2}},
      {3, 2, 6, 5, 3, 1, 1, 1, {2, 0, 0, 2}, {0, 0}},
      // 64 * 4 * 4 taps of 72 rows of 64 columns: more than one block of
      // the column buffer.
      {2, 64, 72, 64, 4, 2, 1, 1, {1, 0, 2, 1}, {0, 0}},
  };
  for (const Case& c : cases) {
    const int64_t N = 2, Cg = c.C / c.group, Mg = c.M / c.group;
    std::vector<float> x(static_cast<size_t>(N * c.C * c.H * c.W)), w(static_cast<size_t>(c.C * Mg * c.K * c.K)), b(static_cast<size_t>(c.M));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int64_t>(i * 7 % 11) - 5) / 4;
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int64_t>(i * 5 % 9) - 4) / 2;
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i) - 1;
    auto r = run_kernel("ConvTranspose",
                        {make_tensor<float>({N, c.C, c.H, c.W}, x), make_tensor<float>({c.C, Mg, c.K, c.K}, w),
                         make_tensor<float>({c.M}, b)},
                        1,
                        {attr_ints("strides", {c.stride, c.stride}), attr_ints("dilations", {c.dil, c.dil}),
                         attr_ints("pads", c.pads), attr_ints("output_padding", c.out_pad), attr_int("group", c.group)});
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    const Dims od = r.outputs[0].tensor().dims();
    const int64_t OH = (c.H - 1) * c.stride + c.out_pad[0] + (c.K - 1) * c.dil + 1 - c.pads[0] - c.pads[2];
    const int64_t OW = (c.W - 1) * c.stride + c.out_pad[1] + (c.K - 1) * c.dil + 1 - c.pads[1] - c.pads[3];
    ASSERT_EQ(od, (Dims{N, c.M, OH, OW}));
    std::vector<double> want(static_cast<size_t>(od.numel()));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t m = 0; m < c.M; ++m) {
        const int64_t g = m / Mg;
        for (int64_t i = 0; i < OH * OW; ++i) want[static_cast<size_t>((n * c.M + m) * OH * OW + i)] = b[static_cast<size_t>(m)];
        for (int64_t ci = 0; ci < Cg; ++ci)
          for (int64_t ih = 0; ih < c.H; ++ih)
            for (int64_t iw = 0; iw < c.W; ++iw)
              for (int64_t kh = 0; kh < c.K; ++kh)
                for (int64_t kw = 0; kw < c.K; ++kw) {
                  const int64_t oh = ih * c.stride - c.pads[0] + kh * c.dil, ow = iw * c.stride - c.pads[1] + kw * c.dil;
                  if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                  const int64_t ch = g * Cg + ci;
                  want[static_cast<size_t>(((n * c.M + m) * OH + oh) * OW + ow)] +=
                      double(x[static_cast<size_t>(((n * c.C + ch) * c.H + ih) * c.W + iw)]) *
                      w[static_cast<size_t>(((ch * Mg + m % Mg) * c.K + kh) * c.K + kw)];
                }
      }
    expect_near(to_vector<float>(r.outputs[0].tensor()), std::vector<float>(want.begin(), want.end()));
  }
}

// With no input channels every tap is 0: the output is the bias, however
// many taps the empty W claims (2^40 here, a 4 TB column buffer).
TEST(Nn, ConvTranspose_EmptyInput_IsTheBias) {
  constexpr int64_t kSide = int64_t{1} << 20;
  auto r = run_kernel("ConvTranspose",
                      {make_tensor<float>({1, 0, 1, 1}, {}), make_tensor<float>({0, 2, kSide, kSide}, {}),
                       make_tensor<float>({2}, {1.5f, -2.f})},
                      1, {attr_ints("pads", {kSide / 2, kSide / 2, kSide / 2 - 1, kSide / 2 - 1})});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{1, 2, 1, 1}));
  EXPECT_EQ(to_vector<float>(r.outputs[0].tensor()), (std::vector<float>{1.5f, -2.f}));
  // No images, with rows 2^40 long: an empty output, not a column buffer
  // sized for one such row.
  auto none = run_kernel("ConvTranspose",
                         {make_tensor<float>({0, 1, 1, int64_t{1} << 40}, {}), make_tensor<float>({1, 1, 1, 1}, {2.f})},
                         1);
  ASSERT_TRUE(none.status.ok()) << none.status.to_string();
  EXPECT_EQ(none.outputs[0].tensor().dims(), (Dims{0, 1, 1, int64_t{1} << 40}));
}

TEST(Nn, ConvInteger_ZeroPoint) {
  auto r = run_kernel("ConvInteger", {make_tensor<uint8_t>({1, 1, 3}, {2, 3, 4}), make_tensor<uint8_t>({1, 1, 2}, {1, 2}),
                                      make_tensor<uint8_t>({}, {1})},
                      1);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(to_vector<int32_t>(r.outputs[0].tensor()), (std::vector<int32_t>{5, 8}));
}

// ---------------------------------------------------------------- Window

// Window attributes at the int64 extremes: an error naming the problem, not
// an overflowed size (UBSan, in the sanitizer build, fails on the
// overflow; the fuzzer found ConvTranspose's).
TEST(Nn, Window_ExtremeAttributes_AreErrors) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  auto x = make_tensor<float>({1, 1, 4}, {1, 2, 3, 4});
  auto w = make_tensor<float>({1, 1, 2}, {1, 1});
  auto expect_error = [](const testing::KernelRun& r, const char* what) {
    EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << what << ": " << r.status.to_string();
  };
  expect_error(run_kernel("Conv", {x, w}, 1, {attr_ints("dilations", {kMax})}), "Conv dilations");
  expect_error(run_kernel("Conv", {x, w}, 1, {attr_ints("pads", {kMax, kMax})}), "Conv pads");
  expect_error(run_kernel("Conv", {x, w}, 1, {attr_ints("strides", {kMax}), attr_string("auto_pad", "SAME_UPPER")}),
               "Conv strides, SAME");
  expect_error(run_kernel("MaxPool", {x}, 1, {attr_ints("kernel_shape", {2}), attr_ints("pads", {kMax, 1})}),
               "MaxPool pads");
  expect_error(run_kernel("ConvTranspose", {x, w}, 1, {attr_ints("strides", {kMax})}), "ConvTranspose strides");
  expect_error(run_kernel("ConvTranspose", {x, w}, 1, {attr_ints("output_shape", {kMin})}), "ConvTranspose output_shape");
  expect_error(run_kernel("ConvTranspose", {x, w}, 1, {attr_ints("output_shape", {kMax}), attr_ints("strides", {kMax})}),
               "ConvTranspose output_shape and strides");
  expect_error(run_kernel("ConvTranspose", {x, w}, 1, {attr_ints("strides", {-3})}), "ConvTranspose negative stride");
}

// ------------------------------------------------- ONNX reference cases

constexpr const char* kNodeData = "/usr/share/libonnx-testdata/data/node";

StatusOr<Tensor> read_pb(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return NotFound("cannot open ", path);
  std::stringstream ss;
  ss << f.rdbuf();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(ss.str())) return InvalidArgument("bad TensorProto ", path);
  ASSIGN_OR_RETURN(std::shared_ptr<TensorData> td, tensor_from_proto(proto, ""));
  return Tensor::borrow(td);
}

// Runs the single node of <dir>/model.onnx on test_data_set_0 and compares.
void check_reference_case(const std::string& dir) {
  SCOPED_TRACE(dir);
  LoadOptions opts;
  // Generated cases may use attributes newer than opset 17 (e.g. pooling
  // dilations); the kernels support them, the checker would not.
  opts.run_onnx_checker = std::getenv("SY_NN_NODE_DATA") == nullptr;
  OnnxLoader loader(opts);
  auto model = loader.load_file(dir + "/model.onnx");
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const Graph& g = *(*model)->graph;
  ASSERT_EQ(g.nodes().size(), 1u);
  const Node& node = g.nodes()[0];
  std::vector<RuntimeValue> values(g.num_values());
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    auto t = read_pb(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb");
    if (!t.ok()) continue;
    values[g.inputs()[i]] = RuntimeValue(*t);
  }
  for (ValueId id = 0; id < static_cast<ValueId>(g.num_values()); ++id)
    if (g.value(id).initializer >= 0) values[id] = RuntimeValue(Tensor::borrow(g.initializers()[g.value(id).initializer]));
  std::vector<const RuntimeValue*> in;
  static const RuntimeValue kNone{};
  for (ValueId id : node.inputs) in.push_back(id == kNoValue ? &kNone : &values[id]);
  std::vector<RuntimeValue> outs(node.outputs.size());
  std::vector<RuntimeValue*> out;
  for (size_t i = 0; i < outs.size(); ++i) out.push_back(node.outputs[i] == kNoValue ? nullptr : &outs[i]);
  DataType first = in.empty() || !in[0]->is_tensor() ? DataType::kUndefined : in[0]->tensor().dtype();
  const KernelDef* def = KernelRegistry::builtin().find(node.domain, node.op_type, node.opset, DeviceKind::kCpu, first);
  ASSERT_NE(def, nullptr) << "no kernel for " << node.op_type;
  auto kernel = def->factory();
  Status st = kernel->init(node);
  ASSERT_TRUE(st.ok()) << st.to_string();
  static CpuDevice device;
  KernelContext ctx(node, device, in, out);
  st = kernel->compute(ctx);
  ASSERT_TRUE(st.ok()) << st.to_string();
  for (size_t gi = 0; gi < g.outputs().size(); ++gi) {
    auto want_or = read_pb(dir + "/test_data_set_0/output_" + std::to_string(gi) + ".pb");
    ASSERT_TRUE(want_or.ok());
    const Tensor& want = *want_or;
    size_t k = 0;
    while (k < node.outputs.size() && node.outputs[k] != g.outputs()[gi]) ++k;
    ASSERT_LT(k, node.outputs.size());
    ASSERT_TRUE(outs[k].is_tensor()) << "output " << k;
    const Tensor& got = outs[k].tensor();
    ASSERT_EQ(got.dtype(), want.dtype()) << "output " << k;
    ASSERT_EQ(got.dims(), want.dims()) << "output " << k << " got " << got.describe() << " want " << want.describe();
    int bad = 0;
    for (int64_t e = 0; e < want.numel() && bad < 5; ++e) {
      const double a = got.double_at(e), b = want.double_at(e);
      if (std::isnan(b) && std::isnan(a)) continue;
      if (std::abs(a - b) > 1e-4 + 1e-3 * std::abs(b)) {
        ADD_FAILURE() << "output " << k << " element " << e << ": got " << a << " want " << b;
        ++bad;
      }
    }
  }
}

void check_reference_cases(const std::string& pattern) {
  // SY_NN_NODE_DATA points the runner at another folder of node cases
  // (e.g. freshly generated by onnx.backend.test) for manual checks.
  const char* env = std::getenv("SY_NN_NODE_DATA");
  const std::string root = env && *env ? env : kNodeData;
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "no ONNX reference data at " << root;
  std::regex re(pattern);
  std::vector<std::string> dirs;
  for (const auto& e : std::filesystem::directory_iterator(root))
    if (std::regex_match(e.path().filename().string(), re)) dirs.push_back(e.path().string());
  std::sort(dirs.begin(), dirs.end());
  ASSERT_FALSE(dirs.empty()) << pattern;
  for (const auto& d : dirs) check_reference_case(d);
}

TEST(Nn, Reference_MatMulGemm) { check_reference_cases("test_(matmul|gemm|matmulinteger|qlinearmatmul).*"); }
TEST(Nn, Reference_Conv) { check_reference_cases("test_(conv|convtranspose|convinteger|qlinearconv)(_.*)?"); }
TEST(Nn, Reference_Recurrent) { check_reference_cases("test_(rnn|simple_rnn|gru|lstm)_.*"); }
TEST(Nn, Reference_Detection) { check_reference_cases("test_(roialign|nonmaxsuppression)_.*"); }
TEST(Nn, Reference_Pool) {
  check_reference_cases("test_(maxpool|averagepool|globalaveragepool|globalmaxpool|lppool|maxunpool).*");
}

}  // namespace
}  // namespace sy
