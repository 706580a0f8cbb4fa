// Unit tests for reading and writing tensor files (tensor_io.cc).
#include "cli/tensor_io.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/cli/cli_test_util.h"

namespace sy {
namespace {

using cli_test::npy_bytes;
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

}  // namespace
}  // namespace sy
