#include "ir/tensor_proto.h"

#include <filesystem>
#include <fstream>
#include <limits>

#include "onnx/onnx_pb.h"

namespace sy {
namespace fs = std::filesystem;

namespace {

// Copies `count` typed values from a repeated proto field into `out` after
// checking the count matches, converting element by element.
template <typename Dst, typename Field>
Status copy_field(const Field& field, int64_t numel, bool values, TensorData& out) {
  if (static_cast<int64_t>(field.size()) != numel)
    return InvalidArgument("tensor '", out.name, "' has ", field.size(), " values but its shape ",
                           out.dims.to_string(), " needs ", numel);
  if (!values) return OkStatus();
  out.bytes.resize(static_cast<size_t>(numel) * sizeof(Dst));
  Dst* d = reinterpret_cast<Dst*>(out.bytes.data());
  for (int64_t i = 0; i < numel; ++i) d[i] = static_cast<Dst>(field.Get(static_cast<int>(i)));
  return OkStatus();
}

// int32_data holds 16-bit types as their bit patterns.
template <typename Bits>
Status copy_bits_field(const google::protobuf::RepeatedField<int32_t>& field, int64_t numel, bool values,
                       TensorData& out) {
  return copy_field<Bits>(field, numel, values, out);
}

Status read_external(const onnx::TensorProto& p, const std::string& base_dir, size_t expected, bool values,
                     TensorData& out) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : p.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset = std::atoll(kv.value().c_str());
    else if (kv.key() == "length") length = std::atoll(kv.value().c_str());
  }
  if (location.empty()) return InvalidArgument("tensor '", out.name, "' has external data without a location");
  if (base_dir.empty()) return InvalidArgument("tensor '", out.name, "' uses external data, which is not allowed here");
  fs::path rel(location);
  if (rel.is_absolute()) return InvalidArgument("tensor '", out.name, "': external data path '", location, "' must be relative to the model's folder");
  std::error_code ec;
  fs::path base = fs::weakly_canonical(fs::path(base_dir), ec);
  fs::path full = fs::weakly_canonical(base / rel, ec);
  auto [b, f] = std::mismatch(base.begin(), base.end(), full.begin(), full.end());
  if (ec || b != base.end())
    return InvalidArgument("tensor '", out.name, "': external data path '", location, "' leaves the model's folder");
  if (!fs::is_regular_file(full, ec))
    return NotFound("tensor '", out.name, "': external data file '", full.string(), "' does not exist");
  uintmax_t size = fs::file_size(full, ec);
  if (ec) return NotFound("tensor '", out.name, "': cannot stat external data file '", full.string(), "'");
  if (offset < 0) return InvalidArgument("tensor '", out.name, "': negative external data offset");
  if (length >= 0 && static_cast<size_t>(length) != expected)
    return InvalidArgument("tensor '", out.name, "': external data length ", length, " does not match shape ",
                           out.dims.to_string(), " (", expected, " bytes)");
  if (static_cast<uintmax_t>(offset) + expected > size)
    return InvalidArgument("tensor '", out.name, "': external data file '", full.string(), "' has ", size,
                           " bytes, needs ", offset + static_cast<int64_t>(expected));
  if (!values) return OkStatus();
  std::ifstream in(full, std::ios::binary);
  in.seekg(offset);
  out.bytes.resize(expected);
  in.read(reinterpret_cast<char*>(out.bytes.data()), static_cast<std::streamsize>(expected));
  if (!in) return InvalidArgument("tensor '", out.name, "': failed to read external data from '", full.string(), "'");
  return OkStatus();
}

// The tensor's type, shape and values as stored, checked against each other.
StatusOr<std::shared_ptr<TensorData>> read_tensor_proto(const onnx::TensorProto& p, const std::string& base_dir,
                                                        bool values) {
  auto out = std::make_shared<TensorData>();
  out->name = p.name();
  if (!dtype_is_valid(p.data_type()))
    return InvalidArgument("tensor '", p.name(), "' has invalid data type ", p.data_type());
  out->dtype = static_cast<DataType>(p.data_type());
  if (p.dims_size() > 64) return InvalidArgument("tensor '", p.name(), "' has absurd rank ", p.dims_size());
  int64_t numel = 1;
  for (int64_t d : p.dims()) {
    if (d < 0) return InvalidArgument("tensor '", p.name(), "' has negative dimension ", d);
    if (!checked_mul(numel, d, &numel)) return InvalidArgument("tensor '", p.name(), "' has too many elements");
    out->dims.push_back(d);
  }
  const DataType t = out->dtype;
  if (t == DataType::kComplex64 || t == DataType::kComplex128)
    return Unimplemented("tensor '", p.name(), "': complex tensors are not supported");
  const size_t esize = dtype_size(t);
  if (t != DataType::kString && numel > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(esize))
    return InvalidArgument("tensor '", p.name(), "' is too large");
  const size_t expected = static_cast<size_t>(numel) * esize;

  if (t == DataType::kString) {
    if (p.data_location() == onnx::TensorProto::EXTERNAL)
      return Unimplemented("tensor '", p.name(), "': external string data is not supported");
    if (p.string_data_size() != numel)
      return InvalidArgument("tensor '", p.name(), "' has ", p.string_data_size(), " strings but its shape ",
                             out->dims.to_string(), " needs ", numel);
    if (values) out->strings.assign(p.string_data().begin(), p.string_data().end());
    return out;
  }
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    RETURN_IF_ERROR(read_external(p, base_dir, expected, values, *out));
    return out;
  }
  if (p.has_raw_data()) {
    if (p.raw_data().size() != expected)
      return InvalidArgument("tensor '", p.name(), "' has ", p.raw_data().size(), " bytes of raw data but its shape ",
                             out->dims.to_string(), " of ", dtype_name(t), " needs ", expected);
    if (values) out->bytes.assign(p.raw_data().begin(), p.raw_data().end());
    return out;
  }
  switch (t) {
    case DataType::kFloat: RETURN_IF_ERROR(copy_field<float>(p.float_data(), numel, values, *out)); break;
    case DataType::kDouble: RETURN_IF_ERROR(copy_field<double>(p.double_data(), numel, values, *out)); break;
    case DataType::kInt64: RETURN_IF_ERROR(copy_field<int64_t>(p.int64_data(), numel, values, *out)); break;
    case DataType::kUInt32: RETURN_IF_ERROR(copy_field<uint32_t>(p.uint64_data(), numel, values, *out)); break;
    case DataType::kUInt64: RETURN_IF_ERROR(copy_field<uint64_t>(p.uint64_data(), numel, values, *out)); break;
    case DataType::kInt32: RETURN_IF_ERROR(copy_field<int32_t>(p.int32_data(), numel, values, *out)); break;
    case DataType::kInt16: RETURN_IF_ERROR(copy_field<int16_t>(p.int32_data(), numel, values, *out)); break;
    case DataType::kUInt16: RETURN_IF_ERROR(copy_field<uint16_t>(p.int32_data(), numel, values, *out)); break;
    case DataType::kInt8: RETURN_IF_ERROR(copy_field<int8_t>(p.int32_data(), numel, values, *out)); break;
    case DataType::kUInt8: RETURN_IF_ERROR(copy_field<uint8_t>(p.int32_data(), numel, values, *out)); break;
    case DataType::kBool: RETURN_IF_ERROR(copy_field<bool>(p.int32_data(), numel, values, *out)); break;
    case DataType::kFloat16:
    case DataType::kBFloat16: RETURN_IF_ERROR(copy_bits_field<uint16_t>(p.int32_data(), numel, values, *out)); break;
    default: return Unimplemented("tensor '", p.name(), "' has unsupported type ", dtype_name(t));
  }
  return out;
}

}  // namespace

StatusOr<std::shared_ptr<TensorData>> tensor_from_proto(const onnx::TensorProto& p, const std::string& base_dir,
                                                        bool values) {
  ASSIGN_OR_RETURN(std::shared_ptr<TensorData> out, read_tensor_proto(p, base_dir, values));
  // A bool is the byte 0 or 1 wherever a kernel reads it (as a bool, or as
  // that byte); raw or external data may hold any byte.
  if (out->dtype == DataType::kBool)
    for (uint8_t& b : out->bytes) b = b != 0;
  return out;
}

TypeInfo type_from_proto(const onnx::TypeProto& proto) {
  TypeInfo info;
  if (proto.has_tensor_type()) {
    info.kind = TypeInfo::Kind::kTensor;
    const auto& tt = proto.tensor_type();
    info.elem = dtype_is_valid(tt.elem_type()) ? static_cast<DataType>(tt.elem_type()) : DataType::kUndefined;
    if (tt.has_shape()) {
      info.has_shape = true;
      for (const auto& d : tt.shape().dim()) {
        Dim dim;
        if (d.has_dim_value()) dim.value = d.dim_value();
        else if (d.has_dim_param()) dim.symbol = d.dim_param();
        info.shape.push_back(dim);
      }
    }
  } else if (proto.has_sequence_type()) {
    info.kind = TypeInfo::Kind::kSequence;
    info.inner = std::make_shared<TypeInfo>(type_from_proto(proto.sequence_type().elem_type()));
  } else if (proto.has_optional_type()) {
    info.kind = TypeInfo::Kind::kOptional;
    info.inner = std::make_shared<TypeInfo>(type_from_proto(proto.optional_type().elem_type()));
  }
  return info;
}

}  // namespace sy
