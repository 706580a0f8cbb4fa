// Element types. Values match onnx::TensorProto_DataType so conversion is a cast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace sy {

enum class DataType : uint8_t {
  kUndefined = 0,
  kFloat = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};
constexpr int kMaxDataType = 16;

// Size in bytes of one element; 0 for undefined. Strings are stored as
// std::string objects, so their "size" is sizeof(std::string).
size_t dtype_size(DataType t);
const char* dtype_name(DataType t);
bool dtype_is_valid(int onnx_enum);
bool dtype_is_float(DataType t);    // float, double, float16, bfloat16
bool dtype_is_integer(DataType t);  // signed or unsigned integer (not bool)
bool dtype_is_signed(DataType t);

// IEEE half and bfloat16 as plain bit containers with conversions.
struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float f);
  operator float() const;
};
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f);
  operator float() const;
};

template <typename T> struct DataTypeOf;
template <> struct DataTypeOf<float> { static constexpr DataType value = DataType::kFloat; };
template <> struct DataTypeOf<double> { static constexpr DataType value = DataType::kDouble; };
template <> struct DataTypeOf<uint8_t> { static constexpr DataType value = DataType::kUInt8; };
template <> struct DataTypeOf<int8_t> { static constexpr DataType value = DataType::kInt8; };
template <> struct DataTypeOf<uint16_t> { static constexpr DataType value = DataType::kUInt16; };
template <> struct DataTypeOf<int16_t> { static constexpr DataType value = DataType::kInt16; };
template <> struct DataTypeOf<int32_t> { static constexpr DataType value = DataType::kInt32; };
template <> struct DataTypeOf<int64_t> { static constexpr DataType value = DataType::kInt64; };
template <> struct DataTypeOf<uint32_t> { static constexpr DataType value = DataType::kUInt32; };
template <> struct DataTypeOf<uint64_t> { static constexpr DataType value = DataType::kUInt64; };
template <> struct DataTypeOf<bool> { static constexpr DataType value = DataType::kBool; };
template <> struct DataTypeOf<std::string> { static constexpr DataType value = DataType::kString; };
template <> struct DataTypeOf<Float16> { static constexpr DataType value = DataType::kFloat16; };
template <> struct DataTypeOf<BFloat16> { static constexpr DataType value = DataType::kBFloat16; };

// Calls f(T{}) with the C++ type for `t`. Returns false if t is not one of
// the listed numeric types (string/complex/undefined are excluded).
template <typename F>
bool visit_numeric(DataType t, F&& f) {
  switch (t) {
    case DataType::kFloat: f(float{}); return true;
    case DataType::kDouble: f(double{}); return true;
    case DataType::kUInt8: f(uint8_t{}); return true;
    case DataType::kInt8: f(int8_t{}); return true;
    case DataType::kUInt16: f(uint16_t{}); return true;
    case DataType::kInt16: f(int16_t{}); return true;
    case DataType::kInt32: f(int32_t{}); return true;
    case DataType::kInt64: f(int64_t{}); return true;
    case DataType::kUInt32: f(uint32_t{}); return true;
    case DataType::kUInt64: f(uint64_t{}); return true;
    case DataType::kBool: f(bool{}); return true;
    case DataType::kFloat16: f(Float16{}); return true;
    case DataType::kBFloat16: f(BFloat16{}); return true;
    default: return false;
  }
}

}  // namespace sy
