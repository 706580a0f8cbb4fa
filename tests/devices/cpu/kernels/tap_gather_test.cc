// Unit tests for the weighted gathers (devices/cpu/kernels/tap_gather.h):
// the vector loop and the scalar one against a plain loop, bit for bit.
#include "devices/cpu/kernels/tap_gather.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace sy::tap_gather {
namespace {

struct Table {
  std::vector<int32_t> off;
  std::vector<float> w;
};

// Point p's taps: mostly runs of consecutive elements (as linear and cubic
// taps are), some broken by a skipped tap or a jump, some at the ends of
// src.
Table random_table(int64_t n, int64_t taps, int64_t size, std::mt19937& rng) {
  Table t{std::vector<int32_t>(static_cast<size_t>(table_size(n, taps)), -1),
          std::vector<float>(static_cast<size_t>(table_size(n, taps)), 0.0f)};
  std::uniform_int_distribution<int32_t> start(0, static_cast<int32_t>(size - 1));
  std::uniform_int_distribution<int> kind(0, 9);
  std::uniform_real_distribution<float> weight(-1.0f, 1.0f);
  for (int64_t p = 0; p < n; ++p) {
    int32_t o = kind(rng) == 0 ? static_cast<int32_t>(size - 1) : start(rng);  // often the last element
    for (int64_t k = 0; k < taps; ++k, ++o) {
      const int c = kind(rng);
      if (c == 0) o = start(rng);
      const auto i = static_cast<size_t>(slot(p, k, taps));
      t.off[i] = c == 1 || o >= size ? -1 : o;
      t.w[i] = weight(rng);
    }
  }
  return t;
}

// The loop tap_gather.h specifies, written out.
std::vector<float> reference(const std::vector<float>& src, const Table& t, int64_t taps, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t p = 0; p < n; ++p) {
    float v = 0.0f;
    for (int64_t k = 0; k < taps; ++k) {
      const auto i = static_cast<size_t>(slot(p, k, taps));
      if (t.off[i] >= 0) v += t.w[i] * src[static_cast<size_t>(t.off[i])];
    }
    out[static_cast<size_t>(p)] = v;
  }
  return out;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(TapGather, VectorAndScalarMatchPlainLoopBitForBit) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-100.0f, 100.0f);
  for (int64_t taps : {1, 2, 3, 4, 8, 9, 16, 64}) {
    for (int64_t n : {1, 15, 16, 17, 100, 1000}) {
      const int64_t size = 1 + static_cast<int64_t>(rng() % 300);
      std::vector<float> src(static_cast<size_t>(size));
      for (float& v : src) v = value(rng);
      const Table t = random_table(n, taps, size, rng);
      const std::vector<float> want = reference(src, t, taps, n);
      for (bool vector : {true, false}) {
        // One guard element past n: neither loop writes a last group's
        // unused lanes.
        std::vector<float> got(static_cast<size_t>(n) + 1, -7.0f);
        sum(src.data(), t.off.data(), t.w.data(), taps, n, got.data(), vector);
        for (int64_t p = 0; p < n; ++p)
          ASSERT_TRUE(same_bits(got[static_cast<size_t>(p)], want[static_cast<size_t>(p)]))
              << "taps " << taps << " n " << n << " vector " << vector << " point " << p << ": "
              << got[static_cast<size_t>(p)] << " != " << want[static_cast<size_t>(p)];
        EXPECT_EQ(got[static_cast<size_t>(n)], -7.0f) << "taps " << taps << " n " << n;
      }
    }
  }
}

TEST(TapGather, SkippedTapsNeverMultiplyAnInfinity) {
  // Tap 1 of each point is skipped; tap 0 reads a finite element next to
  // an infinite one, as a zero-padded border tap sits next to the data.
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> src = {2.0f, inf, 3.0f};
  const int64_t n = 20, taps = 2;
  Table t{std::vector<int32_t>(static_cast<size_t>(table_size(n, taps)), -1),
          std::vector<float>(static_cast<size_t>(table_size(n, taps)), 0.0f)};
  for (int64_t p = 0; p < n; ++p) {
    t.off[static_cast<size_t>(slot(p, 0, taps))] = p % 2 == 0 ? 0 : 2;
    t.w[static_cast<size_t>(slot(p, 0, taps))] = 0.5f;
  }
  for (bool vector : {true, false}) {
    std::vector<float> got(static_cast<size_t>(n));
    sum(src.data(), t.off.data(), t.w.data(), taps, n, got.data(), vector);
    for (int64_t p = 0; p < n; ++p) EXPECT_EQ(got[static_cast<size_t>(p)], p % 2 == 0 ? 1.0f : 1.5f) << p;
  }
}

TEST(TapGather, SlotGroupsSixteenPoints) {
  EXPECT_EQ(slot(0, 0, 4), 0);
  EXPECT_EQ(slot(15, 0, 4), 15);
  EXPECT_EQ(slot(0, 1, 4), 16);
  EXPECT_EQ(slot(16, 0, 4), 64);
  EXPECT_EQ(slot(17, 3, 4), 64 + 48 + 1);
  EXPECT_EQ(table_size(17, 4), 128);
  EXPECT_EQ(table_size(16, 4), 64);
}

}  // namespace
}  // namespace sy::tap_gather
