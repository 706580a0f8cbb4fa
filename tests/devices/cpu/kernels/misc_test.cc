// Unit tests for the miscellaneous CPU kernels: windows, MelWeightMatrix,
// DFT, STFT, StringNormalizer, TfIdfVectorizer and the training optimisers.
// Expected values come from hand calculation or onnx.reference / numpy.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_float;
using testing::attr_floats;
using testing::attr_int;
using testing::attr_ints;
using testing::attr_string;
using testing::attr_strings;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

constexpr const char* kTraining = "ai.onnx.preview.training";

Tensor i64(int64_t v) { return make_tensor<int64_t>(Dims{}, {v}); }
Tensor f32s(float v) { return make_tensor<float>(Dims{}, {v}); }

void expect_near(const std::vector<float>& got, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// ---------------------------------------------------------------- windows

TEST(Misc, HannWindow_PeriodicAndSymmetric) {
  auto p = run_kernel("HannWindow", {i64(4)}, 1);
  ASSERT_TRUE(p.status.ok()) << p.status.to_string();
  expect_near(to_vector<float>(p.outputs[0].tensor()), {0, 0.5, 1, 0.5});
  auto s = run_kernel("HannWindow", {make_tensor<int32_t>(Dims{}, {4})}, 1, {attr_int("periodic", 0)});
  ASSERT_TRUE(s.status.ok()) << s.status.to_string();
  expect_near(to_vector<float>(s.outputs[0].tensor()), {0, 0.75, 0.75, 0});
}

TEST(Misc, HammingWindow_Periodic) {
  auto run = run_kernel("HammingWindow", {i64(4)}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  expect_near(to_vector<float>(run.outputs[0].tensor()), {0.0869565, 0.5434783, 1.0, 0.5434783});
}

TEST(Misc, BlackmanWindow_SymmetricDoubleOutput) {
  auto run = run_kernel("BlackmanWindow", {i64(5)}, 1, {attr_int("periodic", 0), attr_int("output_datatype", 11)});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  ASSERT_EQ(run.outputs[0].tensor().dtype(), DataType::kDouble);
  std::vector<double> got = to_vector<double>(run.outputs[0].tensor());
  std::vector<double> want = {0, 0.34, 1, 0.34, 0};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
}

TEST(Misc, Window_BadInputs) {
  EXPECT_EQ(run_kernel("HannWindow", {i64(-1)}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("HannWindow", {f32s(4)}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("HannWindow", {make_tensor<int64_t>({2}, {1, 2})}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("HannWindow", {i64(4)}, 1, {attr_int("output_datatype", 8)}).status.code(),
            StatusCode::kInvalidArgument);
  auto empty = run_kernel("HammingWindow", {i64(0)}, 1);
  ASSERT_TRUE(empty.status.ok());
  EXPECT_EQ(empty.outputs[0].tensor().numel(), 0);
}

// ---------------------------------------------------------------- MelWeightMatrix

TEST(Misc, MelWeightMatrix_MatchesReference) {
  auto run = run_kernel("MelWeightMatrix", {i64(3), i64(16), i64(8000), f32s(0), f32s(4000)}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(run.outputs[0].tensor().dims(), Dims({9, 3}));
  std::vector<double> want(27, 0.0);
  want[0 * 3 + 0] = 1;
  want[1 * 3 + 1] = 1;
  want[2 * 3 + 1] = 0.5;
  want[2 * 3 + 2] = 0.5;
  want[3 * 3 + 2] = 1;
  want[4 * 3 + 2] = 0.5;
  expect_near(to_vector<float>(run.outputs[0].tensor()), want);
}

TEST(Misc, MelWeightMatrix_BadInputs) {
  EXPECT_EQ(run_kernel("MelWeightMatrix", {i64(3), i64(0), i64(8000), f32s(0), f32s(4000)}, 1).status.code(),
            StatusCode::kInvalidArgument);
  // Edges above the Nyquist frequency would index past the spectrogram.
  EXPECT_EQ(run_kernel("MelWeightMatrix", {i64(3), i64(16), i64(8000), f32s(0), f32s(40000)}, 1).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("MelWeightMatrix", {i64(3), i64(16), i64(8000), f32s(100), f32s(50)}, 1).status.code(),
            StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------- DFT

TEST(Misc, Dft_RealInput) {
  auto run = run_kernel("DFT", {make_tensor<float>({1, 4, 1}, {1, 2, 3, 4})}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(run.outputs[0].tensor().dims(), Dims({1, 4, 2}));
  expect_near(to_vector<float>(run.outputs[0].tensor()), {10, 0, -2, 2, -2, 0, -2, -2});
}

TEST(Misc, Dft_OnesidedAndInverse) {
  auto one = run_kernel("DFT", {make_tensor<float>({1, 4, 1}, {1, 2, 3, 4})}, 1, {attr_int("onesided", 1)});
  ASSERT_TRUE(one.status.ok()) << one.status.to_string();
  EXPECT_EQ(one.outputs[0].tensor().dims(), Dims({1, 3, 2}));
  expect_near(to_vector<float>(one.outputs[0].tensor()), {10, 0, -2, 2, -2, 0});

  Tensor spectrum = make_tensor<float>({1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2});
  auto inv = run_kernel("DFT", {spectrum}, 1, {attr_int("inverse", 1)});
  ASSERT_TRUE(inv.status.ok()) << inv.status.to_string();
  expect_near(to_vector<float>(inv.outputs[0].tensor()), {1, 0, 2, 0, 3, 0, 4, 0});

  // Inverse of a one-sided spectrum is a real signal of length 2 * (3 - 1).
  auto irfft = run_kernel("DFT", {one.outputs[0].tensor()}, 1, {attr_int("inverse", 1), attr_int("onesided", 1)});
  ASSERT_TRUE(irfft.status.ok()) << irfft.status.to_string();
  EXPECT_EQ(irfft.outputs[0].tensor().dims(), Dims({1, 4, 1}));
  expect_near(to_vector<float>(irfft.outputs[0].tensor()), {1, 2, 3, 4});
}

TEST(Misc, Dft_LengthFivePadded) {
  // Length 5 takes the direct path; values from np.fft.fft([1, 2, 0, -1, 3]).
  auto run = run_kernel("DFT", {make_tensor<double>({1, 5, 1}, {1, 2, 0, -1, 3})}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  std::vector<double> got = to_vector<double>(run.outputs[0].tensor());
  std::vector<double> want = {5, 0, 3.3541019662496847, 0.3632712640026804, -3.3541019662496847, 1.5388417685876266,
                              -3.3541019662496847, -1.5388417685876266, 3.3541019662496847, -0.3632712640026804};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);

  auto padded = run_kernel("DFT", {make_tensor<float>({1, 2, 1}, {1, 2}), i64(4)}, 1);
  ASSERT_TRUE(padded.status.ok()) << padded.status.to_string();
  // fft([1, 2, 0, 0]) = [3, 1-2i, -1, 1+2i]
  expect_near(to_vector<float>(padded.outputs[0].tensor()), {3, 0, 1, -2, -1, 0, 1, 2});
}

// Checks the fast paths (radix-2, Bluestein) against a direct DFT.
void check_against_direct(int64_t n) {
  std::vector<float> in(static_cast<size_t>(2 * n));
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i * i) + 1.0));
  auto run = run_kernel("DFT", {make_tensor<float>({1, n, 2}, in)}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  std::vector<float> got = to_vector<float>(run.outputs[0].tensor());
  for (int64_t k = 0; k < n; ++k) {
    std::complex<double> s(0, 0);
    for (int64_t j = 0; j < n; ++j) {
      std::complex<double> x(in[static_cast<size_t>(2 * j)], in[static_cast<size_t>(2 * j + 1)]);
      s += x * std::polar(1.0, -2 * M_PI * static_cast<double>((j * k) % n) / static_cast<double>(n));
    }
    EXPECT_NEAR(got[static_cast<size_t>(2 * k)], s.real(), 1e-3) << "n=" << n << " k=" << k;
    EXPECT_NEAR(got[static_cast<size_t>(2 * k + 1)], s.imag(), 1e-3) << "n=" << n << " k=" << k;
  }
}

TEST(Misc, Dft_FastPathsMatchDirect) {
  check_against_direct(64);   // radix-2
  check_against_direct(12);   // direct
  check_against_direct(37);   // Bluestein (prime)
  check_against_direct(100);  // Bluestein (composite)
}

TEST(Misc, Dft_AxisAttributeAndOpset20Input) {
  // [2, 2, 1] input, transform over axis 0: columns [1,3] and [2,4].
  Tensor x = make_tensor<float>({2, 2, 1}, {1, 2, 3, 4});
  auto a17 = run_kernel("DFT", {x}, 1, {attr_int("axis", 0)});
  ASSERT_TRUE(a17.status.ok()) << a17.status.to_string();
  expect_near(to_vector<float>(a17.outputs[0].tensor()), {4, 0, 6, 0, -2, 0, -2, 0});
  auto a20 = run_kernel("DFT", {x, RuntimeValue(), i64(-3)}, 1, {}, 20);
  ASSERT_TRUE(a20.status.ok()) << a20.status.to_string();
  expect_near(to_vector<float>(a20.outputs[0].tensor()), {4, 0, 6, 0, -2, 0, -2, 0});
  // Opset 20 defaults to axis -2.
  auto d20 = run_kernel("DFT", {x}, 1, {}, 20);
  ASSERT_TRUE(d20.status.ok()) << d20.status.to_string();
  expect_near(to_vector<float>(d20.outputs[0].tensor()), {3, 0, -1, 0, 7, 0, -1, 0});
}

TEST(Misc, Dft_BadInputs) {
  Tensor x = make_tensor<float>({1, 4, 1}, {1, 2, 3, 4});
  EXPECT_EQ(run_kernel("DFT", {make_tensor<float>({1, 4, 3}, std::vector<float>(12, 0))}, 1).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("DFT", {x, i64(0)}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("DFT", {x}, 1, {attr_int("axis", 2)}).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("DFT", {x}, 1, {attr_int("axis", 7)}).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("DFT", {make_tensor<int32_t>({1, 2, 1}, {1, 2})}, 1).status.code(), StatusCode::kInvalidArgument);
  // An empty batch with an absurd dft_length must not size an FFT plan.
  auto empty = run_kernel("DFT", {make_tensor<float>({0, 4, 1}, {}), i64(int64_t{1} << 40)}, 1);
  ASSERT_TRUE(empty.status.ok()) << empty.status.to_string();
  EXPECT_EQ(empty.outputs[0].tensor().dims(), Dims({0, int64_t{1} << 40, 2}));
  // A huge dft_length on real data fails cleanly instead of allocating.
  EXPECT_FALSE(run_kernel("DFT", {x, i64(int64_t{1} << 60)}, 1).status.ok());
}

// ---------------------------------------------------------------- STFT

TEST(Misc, Stft_NoWindow) {
  Tensor sig = make_tensor<float>({1, 8, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto run = run_kernel("STFT", {sig, i64(4), RuntimeValue(), i64(4)}, 1);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(run.outputs[0].tensor().dims(), Dims({1, 2, 3, 2}));
  expect_near(to_vector<float>(run.outputs[0].tensor()), {6, 0, -2, 2, -2, 0, 22, 0, -2, 2, -2, 0});
}

TEST(Misc, Stft_WithWindowAndOverlap) {
  Tensor sig = make_tensor<float>({1, 6, 1}, {0, 1, 4, 3, 0, 0});
  Tensor hann = make_tensor<float>({4}, {0, 0.5, 1, 0.5});
  auto run = run_kernel("STFT", {sig, i64(2), hann}, 1, {attr_int("onesided", 0)});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  // Frames [0,1,4,3] and [4,3,0,0], weighted: [0,0.5,4,1.5] and [0,1.5,0,0].
  // fft([0,.5,4,1.5]) = [6, -4+1i, 2, -4-1i]; fft([0,1.5,0,0]) = [1.5, -1.5i, -1.5, 1.5i].
  EXPECT_EQ(run.outputs[0].tensor().dims(), Dims({1, 2, 4, 2}));
  expect_near(to_vector<float>(run.outputs[0].tensor()), {6, 0, -4, 1, 2, 0, -4, -1, 1.5, 0, 0, -1.5, -1.5, 0, 0, 1.5});
}

TEST(Misc, Stft_BadInputs) {
  Tensor sig = make_tensor<float>({1, 8, 1}, std::vector<float>(8, 1));
  EXPECT_EQ(run_kernel("STFT", {sig, i64(0)}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("STFT", {sig, i64(1), RuntimeValue(), i64(9)}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("STFT", {sig, i64(1), make_tensor<float>({3}, {1, 1, 1}), i64(4)}, 1).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("STFT", {make_tensor<float>({8}, std::vector<float>(8, 1)), i64(1)}, 1).status.code(),
            StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------- StringNormalizer

std::vector<std::string> strings_of(const RuntimeValue& v) { return to_vector<std::string>(v.tensor()); }

TEST(Misc, StringNormalizer_CaseSensitiveStopwordsUpper) {
  Tensor x = make_tensor<std::string>({4}, {"monday", "tuesday", "Monday", "thursday"});
  auto run = run_kernel("StringNormalizer", {x}, 1,
                        {attr_string("case_change_action", "UPPER"), attr_int("is_case_sensitive", 1),
                         attr_strings("stopwords", {"monday"})});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(strings_of(run.outputs[0]), (std::vector<std::string>{"TUESDAY", "MONDAY", "THURSDAY"}));
}

TEST(Misc, StringNormalizer_CaseInsensitiveTwoDim) {
  Tensor x = make_tensor<std::string>({1, 4}, {"Monday", "tuesday", "MONDAY", "Wednesday"});
  auto run = run_kernel("StringNormalizer", {x}, 1,
                        {attr_string("case_change_action", "LOWER"), attr_strings("stopwords", {"monday"})});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(run.outputs[0].tensor().dims(), Dims({1, 2}));
  EXPECT_EQ(strings_of(run.outputs[0]), (std::vector<std::string>{"tuesday", "wednesday"}));
}

TEST(Misc, StringNormalizer_AllRemovedGivesEmptyString) {
  Tensor x = make_tensor<std::string>({2}, {"monday", "monday"});
  auto run = run_kernel("StringNormalizer", {x}, 1, {attr_int("is_case_sensitive", 1), attr_strings("stopwords", {"monday"})});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(run.outputs[0].tensor().dims(), Dims({1}));
  EXPECT_EQ(strings_of(run.outputs[0]), (std::vector<std::string>{""}));
}

TEST(Misc, StringNormalizer_Utf8Case) {
  Tensor x = make_tensor<std::string>({2}, {"caf\xC3\xA9", "\xD0\xBF\xD1\x80\xD0\xB8"});  // "café", "при"
  auto run = run_kernel("StringNormalizer", {x}, 1, {attr_string("case_change_action", "UPPER")});
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(strings_of(run.outputs[0]),
            (std::vector<std::string>{"CAF\xC3\x89", "\xD0\x9F\xD0\xA0\xD0\x98"}));  // "CAFÉ", "ПРИ"
}

// Unicode's simple mappings beyond the first blocks, as Python and ONNX
// Runtime give them: dotted capital I lowers to i and dotless i uppers to I
// (a hand table once paired the two), y-diaeresis with its capital
// (U+0178), fullwidth letters, Deseret (4-byte UTF-8). Malformed bytes
// (a stray continuation, a truncated sequence) are copied as they are.
TEST(Misc, StringNormalizer_UnicodeSimpleMappings_AndMalformedBytesKept) {
  const std::vector<std::string> in = {"\xC4\xB0",
                                       "\xC4\xB1",
                                       "\xC3\xBF",
                                       "\xEF\xBC\xA1",
                                       "\xF0\x90\x90\x80",
                                       "a\x80"
                                       "b\xE2\x82"};
  auto lower = run_kernel("StringNormalizer", {make_tensor<std::string>({6}, in)}, 1,
                          {attr_string("case_change_action", "LOWER")});
  ASSERT_TRUE(lower.status.ok()) << lower.status.to_string();
  EXPECT_EQ(strings_of(lower.outputs[0]),
            (std::vector<std::string>{"i", "\xC4\xB1", "\xC3\xBF", "\xEF\xBD\x81", "\xF0\x90\x90\xA8",
                                      "a\x80"
                                      "b\xE2\x82"}));
  auto upper = run_kernel("StringNormalizer", {make_tensor<std::string>({6}, in)}, 1,
                          {attr_string("case_change_action", "UPPER")});
  ASSERT_TRUE(upper.status.ok()) << upper.status.to_string();
  EXPECT_EQ(strings_of(upper.outputs[0]),
            (std::vector<std::string>{"\xC4\xB0", "I", "\xC5\xB8", "\xEF\xBC\xA1", "\xF0\x90\x90\x80",
                                      "A\x80"
                                      "B\xE2\x82"}));
}

TEST(Misc, StringNormalizer_BadInputs) {
  EXPECT_EQ(run_kernel("StringNormalizer", {make_tensor<std::string>({2, 2}, {"a", "b", "c", "d"})}, 1).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("StringNormalizer", {i64(1)}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("StringNormalizer", {make_tensor<std::string>({1}, {"a"})}, 1,
                       {attr_string("case_change_action", "TITLE")})
                .status.code(),
            StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------- TfIdfVectorizer

std::vector<Attribute> tfidf_int_attrs(int64_t min_gram, int64_t max_skip) {
  return {attr_string("mode", "TF"),         attr_int("min_gram_length", min_gram), attr_int("max_gram_length", 2),
          attr_int("max_skip_count", max_skip), attr_ints("ngram_counts", {0, 4}),
          attr_ints("ngram_indexes", {0, 1, 2, 3, 4, 5, 6}),
          attr_ints("pool_int64s", {2, 3, 5, 4, 5, 6, 7, 8, 6, 7})};
}

TEST(Misc, TfIdfVectorizer_BatchBigramsSkip5) {
  Tensor x = make_tensor<int32_t>({2, 6}, {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8});
  auto run = run_kernel("TfIdfVectorizer", {x}, 1, tfidf_int_attrs(2, 5), 9);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  EXPECT_EQ(run.outputs[0].tensor().dims(), Dims({2, 7}));
  expect_near(to_vector<float>(run.outputs[0].tensor()), {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1});
}

TEST(Misc, TfIdfVectorizer_UniAndBigramsSkip5) {
  Tensor x = make_tensor<int64_t>({2, 6}, {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8});
  auto run = run_kernel("TfIdfVectorizer", {x}, 1, tfidf_int_attrs(1, 5), 9);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  expect_near(to_vector<float>(run.outputs[0].tensor()), {0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1});
}

std::vector<Attribute> tfidf_string_attrs(const std::string& mode) {
  return {attr_string("mode", mode),         attr_int("min_gram_length", 1),
          attr_int("max_gram_length", 2),    attr_int("max_skip_count", 0),
          attr_ints("ngram_counts", {0, 2}), attr_ints("ngram_indexes", {0, 1, 2, 3}),
          attr_strings("pool_strings", {"a", "b", "a", "c", "b", "a"}),
          attr_floats("weights", {1, 2, 3, 4})};
}

TEST(Misc, TfIdfVectorizer_StringsTfIdfAndIdf) {
  // Unigrams a, b; bigrams "a c", "b a". Counts in [a c b a c a b]: a=3, b=2, "a c"=2, "b a"=1.
  Tensor x = make_tensor<std::string>({7}, {"a", "c", "b", "a", "c", "a", "b"});
  auto tfidf = run_kernel("TfIdfVectorizer", {x}, 1, tfidf_string_attrs("TFIDF"), 9);
  ASSERT_TRUE(tfidf.status.ok()) << tfidf.status.to_string();
  EXPECT_EQ(tfidf.outputs[0].tensor().dims(), Dims({4}));
  expect_near(to_vector<float>(tfidf.outputs[0].tensor()), {3, 4, 6, 4});
  auto idf = run_kernel("TfIdfVectorizer", {x}, 1, tfidf_string_attrs("IDF"), 9);
  ASSERT_TRUE(idf.status.ok()) << idf.status.to_string();
  expect_near(to_vector<float>(idf.outputs[0].tensor()), {1, 2, 3, 4});
}

// weights[i] belongs to the pool's i-th n-gram, wherever ngram_indexes
// sends it: with indexes [2, 0, 3, 1], "a" (weight 1) counts into column 2,
// "b" (2) into 0, "a c" (3) into 3 and "b a" (4) into 1. The weights were
// once taken by column.
TEST(Misc, TfIdfVectorizer_WeightsFollowTheNgramNotTheColumn) {
  Tensor x = make_tensor<std::string>({7}, {"a", "c", "b", "a", "c", "a", "b"});
  auto attrs = tfidf_string_attrs("TFIDF");
  attrs[5] = attr_ints("ngram_indexes", {2, 0, 3, 1});
  auto tfidf = run_kernel("TfIdfVectorizer", {x}, 1, attrs, 9);
  ASSERT_TRUE(tfidf.status.ok()) << tfidf.status.to_string();
  expect_near(to_vector<float>(tfidf.outputs[0].tensor()), {4, 4, 3, 6});  // b 2x2, "b a" 1x4, a 3x1, "a c" 2x3
  attrs[0] = attr_string("mode", "IDF");
  auto idf = run_kernel("TfIdfVectorizer", {x}, 1, attrs, 9);
  ASSERT_TRUE(idf.status.ok()) << idf.status.to_string();
  expect_near(to_vector<float>(idf.outputs[0].tensor()), {2, 4, 1, 3});
}

TEST(Misc, TfIdfVectorizer_BadInputs) {
  // Type mismatch between the input and the pool.
  Tensor ints = make_tensor<int64_t>({2}, {1, 2});
  EXPECT_EQ(run_kernel("TfIdfVectorizer", {ints}, 1, tfidf_string_attrs("TF"), 9).status.code(),
            StatusCode::kInvalidArgument);
  // Bad mode and inconsistent ngram_counts are rejected at init.
  auto attrs = tfidf_int_attrs(1, 0);
  attrs[0] = attr_string("mode", "BM25");
  EXPECT_EQ(run_kernel("TfIdfVectorizer", {ints}, 1, attrs, 9).status.code(), StatusCode::kInvalidArgument);
  attrs = tfidf_int_attrs(1, 0);
  attrs[4] = attr_ints("ngram_counts", {0, 40});
  EXPECT_EQ(run_kernel("TfIdfVectorizer", {ints}, 1, attrs, 9).status.code(), StatusCode::kInvalidArgument);
  attrs = tfidf_int_attrs(1, 0);
  attrs[5] = attr_ints("ngram_indexes", {0, 1});
  EXPECT_EQ(run_kernel("TfIdfVectorizer", {ints}, 1, attrs, 9).status.code(), StatusCode::kInvalidArgument);
  attrs = tfidf_int_attrs(1, 0);  // max + 1 columns would overflow
  attrs[5] = attr_ints("ngram_indexes", {0, 1, 2, 3, 4, 5, std::numeric_limits<int64_t>::max()});
  EXPECT_EQ(run_kernel("TfIdfVectorizer", {ints}, 1, attrs, 9).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("TfIdfVectorizer", {make_tensor<int64_t>({1, 1, 2}, {1, 2})}, 1, tfidf_int_attrs(1, 0), 9)
                .status.code(),
            StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------- training

TEST(Misc, Adagrad_MatchesReference) {
  auto run = run_kernel("Adagrad",
                        {f32s(0.1f), i64(1), make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {-1, 0.5}),
                         make_tensor<float>({2}, {2, 0})},
                        2, {attr_float("decay_factor", 0.1f), attr_float("epsilon", 1e-5f), attr_float("norm_coefficient", 0.01f)},
                        1, kTraining);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  expect_near(to_vector<float>(run.outputs[0].tensor()), {1.0521344, 1.9090927});
  expect_near(to_vector<float>(run.outputs[1].tensor()), {2.9801002, 0.2704});
}

TEST(Misc, Adam_MatchesReference) {
  auto run = run_kernel("Adam",
                        {f32s(0.1f), i64(2), make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {-1, 0.5}),
                         make_tensor<float>({2}, {0.5, -0.5}), make_tensor<float>({2}, {2, 0})},
                        3,
                        {attr_float("alpha", 0.9f), attr_float("beta", 0.99f), attr_float("epsilon", 1e-5f),
                         attr_float("norm_coefficient", 0.01f), attr_float("norm_coefficient_post", 0.02f)},
                        1, kTraining);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  expect_near(to_vector<float>(run.outputs[0].tensor()), {0.9618950, 2.5167948}, 1e-4);
  expect_near(to_vector<float>(run.outputs[1].tensor()), {0.351, -0.398});
  expect_near(to_vector<float>(run.outputs[2].tensor()), {1.9898010, 0.002704});
}

std::vector<Attribute> momentum_attrs(const std::string& mode) {
  return {attr_float("alpha", 0.9f), attr_float("beta", 0.5f), attr_string("mode", mode),
          attr_float("norm_coefficient", 0.01f)};
}

TEST(Misc, Momentum_StandardAndNesterov) {
  auto inputs = [](int64_t t) {
    return std::vector<RuntimeValue>{f32s(0.1f), i64(t), make_tensor<float>({2}, {1, 2}),
                                     make_tensor<float>({2}, {-1, 0.5}), make_tensor<float>({2}, {0.5, -0.5})};
  };
  auto std_run = run_kernel("Momentum", inputs(1), 2, momentum_attrs("standard"), 1, kTraining);
  ASSERT_TRUE(std_run.status.ok()) << std_run.status.to_string();
  expect_near(to_vector<float>(std_run.outputs[0].tensor()), {1.0045, 2.019});
  expect_near(to_vector<float>(std_run.outputs[1].tensor()), {-0.045, -0.19});
  auto nest = run_kernel("Momentum", inputs(0), 2, momentum_attrs("nesterov"), 1, kTraining);
  ASSERT_TRUE(nest.status.ok()) << nest.status.to_string();
  expect_near(to_vector<float>(nest.outputs[0].tensor()), {1.1476, 1.9417});
  expect_near(to_vector<float>(nest.outputs[1].tensor()), {-0.54, 0.07});
}

TEST(Misc, Training_MultipleTensors) {
  // Two tensors: inputs R, T, X1, X2, G1, G2, H1, H2; outputs X1', X2', H1', H2'.
  auto run = run_kernel("Adagrad",
                        {f32s(1.0f), i64(0), f32s(1), f32s(2), f32s(3), f32s(4), f32s(0), f32s(0)}, 4,
                        {attr_float("epsilon", 0.0f)}, 1, kTraining);
  ASSERT_TRUE(run.status.ok()) << run.status.to_string();
  // x - g / sqrt(g^2) = x - 1
  expect_near(to_vector<float>(run.outputs[0].tensor()), {0});
  expect_near(to_vector<float>(run.outputs[1].tensor()), {1});
  expect_near(to_vector<float>(run.outputs[2].tensor()), {9});
  expect_near(to_vector<float>(run.outputs[3].tensor()), {16});
}

TEST(Misc, Training_BadInputs) {
  // Wrong number of variadic inputs.
  EXPECT_EQ(run_kernel("Adagrad", {f32s(1), i64(0), f32s(1), f32s(1)}, 2, {}, 1, kTraining).status.code(),
            StatusCode::kInvalidArgument);
  // Shape mismatch between X and G.
  EXPECT_EQ(run_kernel("Adagrad", {f32s(1), i64(0), make_tensor<float>({2}, {1, 2}), f32s(1), make_tensor<float>({2}, {1, 2})},
                       2, {}, 1, kTraining)
                .status.code(),
            StatusCode::kInvalidArgument);
  // T must be int64.
  EXPECT_EQ(run_kernel("Adagrad", {f32s(1), f32s(0), f32s(1), f32s(1), f32s(1)}, 2, {}, 1, kTraining).status.code(),
            StatusCode::kInvalidArgument);
  // Momentum attributes are required.
  EXPECT_EQ(run_kernel("Momentum", {f32s(1), i64(0), f32s(1), f32s(1), f32s(1)}, 2, {}, 1, kTraining).status.code(),
            StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------- opset-20 string ops

// Like Python's str.split: a delimiter keeps empty parts; without one, runs
// of whitespace separate them and none is empty; maxsplit leaves the rest
// (leading whitespace dropped) as the last part. Y is padded with "".
TEST(Misc, StringSplit_AsPythonSplits) {
  Tensor x = make_tensor<std::string>({3}, {"a..b", "", "x"});
  auto r = run_kernel("StringSplit", {x}, 2, {attr_string("delimiter", ".")}, 20);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{3, 3}));
  EXPECT_EQ(strings_of(r.outputs[0]), (std::vector<std::string>{"a", "", "b", "", "", "", "x", "", ""}));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[1].tensor()), (std::vector<int64_t>{3, 1, 1}));
  Tensor w = make_tensor<std::string>({2}, {"  one \t two  three ", " "});
  auto ws = run_kernel("StringSplit", {w}, 2, {attr_int("maxsplit", 1)}, 20);
  ASSERT_TRUE(ws.status.ok()) << ws.status.to_string();
  EXPECT_EQ(strings_of(ws.outputs[0]), (std::vector<std::string>{"one", "two  three ", "", ""}));
  EXPECT_EQ(to_vector<int64_t>(ws.outputs[1].tensor()), (std::vector<int64_t>{2, 0}));
  EXPECT_FALSE(run_kernel("StringSplit", {make_tensor<float>({1}, {1})}, 2, {}, 20).status.ok());
}

TEST(Misc, StringConcat_Broadcasts) {
  auto r = run_kernel("StringConcat",
                      {make_tensor<std::string>({2, 1}, {"a", "b"}), make_tensor<std::string>({2}, {"1", "2"})}, 1, {},
                      20);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(strings_of(r.outputs[0]), (std::vector<std::string>{"a1", "a2", "b1", "b2"}));
}

TEST(Misc, RegexFullMatch_WholeStringsOnly_AndBadPatternsFail) {
  Tensor x = make_tensor<std::string>({3}, {"www.example.com", "see www.example.com", "www.com"});
  auto r = run_kernel("RegexFullMatch", {x}, 1, {attr_string("pattern", R"(www\.[\w.-]+\.\bcom\b)")}, 20);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(to_vector<bool>(r.outputs[0].tensor()), (std::vector<bool>{true, false, false}));
  auto bad = run_kernel("RegexFullMatch", {x}, 1, {attr_string("pattern", "(unclosed")}, 20);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status.message().find("(unclosed"), std::string::npos) << bad.status.message();
}

}  // namespace
}  // namespace sy
