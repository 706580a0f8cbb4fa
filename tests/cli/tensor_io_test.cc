// Unit tests for reading and writing tensor files (tensor_io.cc).
#include "cli/tensor_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/cli_test_util.h"

namespace sy {
namespace {

using cli_test::npy_bytes;
using cli_test::npy_bytes_with_shape;
using cli_test::TempDir;
using cli_test::write_bytes;

// A .npy may hold any byte for a bool; the kernels read them as bool or as
// the bytes 0 and 1, so every nonzero byte must arrive as 1.
TEST(TensorIo, NpyBools_AreZeroOrOne) {
  TempDir d;
  const std::vector<uint8_t> raw = {0, 2, 255, 1};
  write_bytes(d.file("b.npy"), npy_bytes("|b1", {4}, raw.data(), raw.size()));
  auto t = read_npy(d.file("b.npy"));
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  ASSERT_EQ(t->dtype(), DataType::kBool);
  const uint8_t* b = static_cast<const uint8_t*>(t->raw());
  EXPECT_EQ(std::vector<uint8_t>(b, b + 4), (std::vector<uint8_t>{0, 1, 1, 1}));
}

// The shape tuple as np.save writes it, and what it never writes: a
// negative, fractional or named dim is an error, not the digits picked out
// of it (which read "-2, 3" over 24 bytes as a [2, 3] tensor).
TEST(TensorIo, NpyShape_IsReadStrictly) {
  TempDir d;
  auto with_shape = [&](const std::string& shape, size_t nbytes) {
    const std::vector<char> zeros(nbytes);
    write_bytes(d.file("x.npy"), npy_bytes_with_shape("<f4", shape, zeros.data(), nbytes));
    return read_npy(d.file("x.npy"));
  };
  for (const auto& [shape, want] : std::vector<std::pair<std::string, Dims>>{
           {"", Dims{}}, {"3,", Dims{3}}, {"2, 3", Dims{2, 3}}, {" 2 ,3 , ", Dims{2, 3}}, {"0, 4", Dims{0, 4}}}) {
    auto t = with_shape(shape, static_cast<size_t>(std::max<int64_t>(0, want.numel())) * 4);
    ASSERT_TRUE(t.ok()) << "(" << shape << "): " << t.status().to_string();
    EXPECT_EQ(t->dims(), want) << "(" << shape << ")";
  }
  for (const char* shape : {"-2, 3", "-1, 3", "2.5, 3", "2, n", "2,, 3", ",", "2 3"}) {
    auto t = with_shape(shape, 24);
    ASSERT_FALSE(t.ok()) << "(" << shape << ") was read as " << t->dims().to_string();
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument) << t.status().to_string();
    EXPECT_NE(t.status().message().find("shape"), std::string::npos) << t.status().to_string();
  }
}

}  // namespace
}  // namespace sy
