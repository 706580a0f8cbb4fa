// Unit tests for reading ONNX TensorProtos (tensor_proto.cc).
#include "ir/tensor_proto.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace sy {
namespace {

onnx::TensorProto bool_tensor(int64_t n) {
  onnx::TensorProto p;
  p.set_name("b");
  p.set_data_type(onnx::TensorProto::BOOL);
  p.add_dims(n);
  return p;
}

// A file may hold any byte for a bool; the kernels read them as bool or as
// the bytes 0 and 1, so every nonzero byte must arrive as 1.
TEST(TensorProto, BoolRawBytes_AreZeroOrOne) {
  onnx::TensorProto p = bool_tensor(5);
  p.set_raw_data(std::string("\x00\x02\xff\x01\x80", 5));
  auto t = tensor_from_proto(p, "");
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ((*t)->bytes, (AlignedBytes{0, 1, 1, 1, 1}));
}

// Constants start on a cache line, whatever the allocator would give, so
// that the kernels' 64-byte loads of a weight do not straddle two lines.
TEST(TensorProto, ValuesStartOnACacheLine) {
  for (int n : {1, 3, 1000, 300000}) {
    onnx::TensorProto p;
    p.set_name("w");
    p.set_data_type(onnx::TensorProto::FLOAT);
    p.add_dims(n);
    p.set_raw_data(std::string(static_cast<size_t>(n) * 4, '\x01'));
    auto t = tensor_from_proto(p, "");
    ASSERT_TRUE(t.ok()) << t.status().to_string();
    EXPECT_EQ(reinterpret_cast<uintptr_t>((*t)->bytes.data()) % 64, 0u) << n << " floats";
  }
}

// int32_data holds a bool as an int: 256 is true, not its low byte 0.
TEST(TensorProto, BoolInt32Data_NonzeroIsTrue) {
  onnx::TensorProto p = bool_tensor(4);
  for (int32_t v : {0, 256, -1, 1}) p.add_int32_data(v);
  auto t = tensor_from_proto(p, "");
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ((*t)->bytes, (AlignedBytes{0, 1, 1, 1}));
}

TEST(TensorProto, RawDataOfTheWrongSize_NamesTheTensor) {
  onnx::TensorProto p = bool_tensor(5);
  p.set_raw_data(std::string("\x01\x00", 2));
  auto t = tensor_from_proto(p, "");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().to_string().find("'b'"), std::string::npos) << t.status().to_string();
}


// Without values, the loader's first pass checks a tensor as fully as the
// read that follows, but copies nothing.
TEST(TensorProto, WithoutValues_ChecksEverything_CopiesNothing) {
  onnx::TensorProto p = bool_tensor(3);
  for (int32_t v : {0, 1, 1}) p.add_int32_data(v);
  auto t = tensor_from_proto(p, "", /*values=*/false);
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ((*t)->dtype, DataType::kBool);
  EXPECT_EQ((*t)->dims, Dims{3});
  EXPECT_TRUE((*t)->bytes.empty());
  p.add_int32_data(1);  // one value too many
  EXPECT_FALSE(tensor_from_proto(p, "", /*values=*/false).ok());
  onnx::TensorProto raw = bool_tensor(5);
  raw.set_raw_data(std::string("\x01\x00", 2));
  EXPECT_FALSE(tensor_from_proto(raw, "", /*values=*/false).ok());
  onnx::TensorProto external = bool_tensor(2);
  external.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = external.add_external_data();
  kv->set_key("location");
  kv->set_value("missing.bin");
  const auto missing = tensor_from_proto(external, "/nonexistent_dir", /*values=*/false);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("does not exist"), std::string::npos) << missing.status().message();
}

}  // namespace
}  // namespace sy
