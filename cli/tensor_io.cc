#include "cli/tensor_io.h"

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "ir/tensor_proto.h"
#include "onnx/onnx_pb.h"
#include "onnx/onnx-data_pb.h"

namespace sy {
namespace fs = std::filesystem;

namespace {

StatusOr<std::string> read_file(const std::string& path, uint64_t limit = 4ull << 30) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return NotFound(path, ": no such file");
  if (!fs::is_regular_file(path, ec)) return InvalidArgument(path, ": not a regular file");
  uintmax_t size = fs::file_size(path, ec);
  if (ec) return NotFound(path, ": cannot read");
  if (size > limit) return InvalidArgument(path, ": file too large");
  std::ifstream in(path, std::ios::binary);
  std::string s(size, '\0');
  in.read(s.data(), static_cast<std::streamsize>(size));
  if (!in) return InvalidArgument(path, ": read failed");
  return s;
}

struct NpyType {
  const char* descr;
  DataType dtype;
};
constexpr NpyType kNpyTypes[] = {
    {"<f4", DataType::kFloat},  {"<f8", DataType::kDouble}, {"<f2", DataType::kFloat16}, {"|i1", DataType::kInt8},
    {"|u1", DataType::kUInt8},  {"<i2", DataType::kInt16},  {"<u2", DataType::kUInt16},  {"<i4", DataType::kInt32},
    {"<u4", DataType::kUInt32}, {"<i8", DataType::kInt64},  {"<u8", DataType::kUInt64},  {"|b1", DataType::kBool},
};

StatusOr<Tensor> tensor_from_data(const TensorData& d) {
  ASSIGN_OR_RETURN(Tensor t, Tensor::host(d.dtype, d.dims));
  if (d.dtype == DataType::kString) {
    for (size_t i = 0; i < d.strings.size(); ++i) t.data<std::string>()[i] = d.strings[i];
  } else if (!d.bytes.empty()) {
    std::memcpy(t.raw(), d.bytes.data(), d.bytes.size());
  }
  return t;
}

StatusOr<RuntimeValue> from_sequence(const onnx::SequenceProto& sp, const std::string& path);

StatusOr<RuntimeValue> from_optional(const onnx::OptionalProto& op, const std::string& path) {
  RuntimeValue v;
  if (op.has_tensor_value()) {
    ASSIGN_OR_RETURN(auto d, tensor_from_proto(op.tensor_value(), ""));
    ASSIGN_OR_RETURN(Tensor t, tensor_from_data(*d));
    v = RuntimeValue(std::move(t));
  } else if (op.has_sequence_value()) {
    ASSIGN_OR_RETURN(v, from_sequence(op.sequence_value(), path));
  }
  v.set_optional(true);
  return v;
}

StatusOr<RuntimeValue> from_sequence(const onnx::SequenceProto& sp, const std::string& path) {
  auto seq = std::make_shared<Sequence>();
  for (const auto& tp : sp.tensor_values()) {
    ASSIGN_OR_RETURN(auto d, tensor_from_proto(tp, ""));
    ASSIGN_OR_RETURN(Tensor t, tensor_from_data(*d));
    seq->elem = t.dtype();
    seq->items.push_back(std::move(t));
  }
  if (sp.elem_type() != onnx::SequenceProto::TENSOR && sp.elem_type() != onnx::SequenceProto::UNDEFINED)
    return Unimplemented(path, ": only sequences of tensors are supported");
  return RuntimeValue(std::shared_ptr<const Sequence>(std::move(seq)));
}

// The entries of a .npy shape tuple ("", "3,", "2, 3"): non-negative
// integers, comma-separated, a trailing comma allowed. Anything else is an
// error: picking the digits out turned "-1, 3" into [1, 3] and "2.5" into
// [2, 5].
StatusOr<Dims> parse_npy_shape(const std::string& s, const std::string& path) {
  Dims dims;
  size_t i = 0;
  auto skip_spaces = [&] {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  };
  skip_spaces();
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j == i) return InvalidArgument(path, ": bad .npy shape (", s, "): dims must be non-negative integers");
    if (j - i > 18) return InvalidArgument(path, ": absurd dimension in .npy shape");
    dims.push_back(std::stoll(s.substr(i, j - i)));
    i = j;
    skip_spaces();
    if (i == s.size()) break;
    if (s[i] != ',') return InvalidArgument(path, ": bad .npy shape (", s, "): dims must be non-negative integers");
    ++i;
    skip_spaces();
  }
  return dims;
}

}  // namespace

StatusOr<Tensor> read_npy(const std::string& path) {
  ASSIGN_OR_RETURN(std::string s, read_file(path));
  if (s.size() < 10 || std::memcmp(s.data(), "\x93NUMPY", 6) != 0) return InvalidArgument(path, ": not a .npy file");
  const uint8_t major = static_cast<uint8_t>(s[6]);
  size_t header_len, offset;
  if (major == 1) {
    header_len = static_cast<uint8_t>(s[8]) | (static_cast<size_t>(static_cast<uint8_t>(s[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (s.size() < 12) return InvalidArgument(path, ": truncated .npy header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<uint8_t>(s[8 + i])) << (8 * i);
    offset = 12;
  } else {
    return InvalidArgument(path, ": unsupported .npy version ", int(major));
  }
  if (offset + header_len > s.size()) return InvalidArgument(path, ": truncated .npy header");
  std::string header = s.substr(offset, header_len);
  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([^']+)')")))
    return InvalidArgument(path, ": .npy header has no descr");
  std::string descr = m[1];
  if (descr == "<b1") descr = "|b1";
  if (descr == "<i1") descr = "|i1";
  if (descr == "<u1") descr = "|u1";
  DataType dt = DataType::kUndefined;
  for (const auto& t : kNpyTypes)
    if (descr == t.descr) dt = t.dtype;
  if (dt == DataType::kUndefined) return Unimplemented(path, ": unsupported .npy dtype '", descr, "' (need little-endian numeric or bool)");
  if (std::regex_search(header, m, std::regex(R"('fortran_order'\s*:\s*True)")))
    return Unimplemented(path, ": Fortran-ordered arrays are not supported; save with np.ascontiguousarray");
  if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))")))
    return InvalidArgument(path, ": .npy header has no shape");
  ASSIGN_OR_RETURN(Dims dims, parse_npy_shape(m[1], path));
  ASSIGN_OR_RETURN(size_t bytes, checked_nbytes(dt, dims));
  const size_t data_off = offset + header_len;
  if (s.size() - data_off != bytes)
    return InvalidArgument(path, ": .npy data is ", s.size() - data_off, " bytes but shape ", dims.to_string(), " of ",
                           dtype_name(dt), " needs ", bytes);
  ASSIGN_OR_RETURN(Tensor t, Tensor::host(dt, dims));
  if (bytes) std::memcpy(t.raw(), s.data() + data_off, bytes);
  // Bools as the bytes 0 and 1 that the kernels assume; a file may hold any byte.
  if (dt == DataType::kBool)
    for (uint8_t* b = static_cast<uint8_t*>(t.raw()); b != static_cast<uint8_t*>(t.raw()) + bytes; ++b) *b = *b != 0;
  return t;
}

Status write_npy(const std::string& path, const Tensor& t) {
  const char* descr = nullptr;
  for (const auto& k : kNpyTypes)
    if (k.dtype == t.dtype()) descr = k.descr;
  if (!descr) return Unimplemented("cannot write ", dtype_name(t.dtype()), " tensors to .npy");
  std::string shape = "(";
  for (size_t i = 0; i < t.rank(); ++i) shape += std::to_string(t.dim(i)) + (t.rank() == 1 ? "," : (i + 1 < t.rank() ? ", " : ""));
  shape += ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) return InvalidArgument(path, ": cannot open for writing");
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  out.put(static_cast<char>(len & 0xff));
  out.put(static_cast<char>(len >> 8));
  out << header;
  out.write(static_cast<const char*>(t.raw()), static_cast<std::streamsize>(t.nbytes()));
  if (!out) return InvalidArgument(path, ": write failed");
  return OkStatus();
}

StatusOr<RuntimeValue> read_value_file(const std::string& path, const TypeInfo* expected, std::string* proto_name) {
  if (fs::path(path).extension() == ".npy") {
    ASSIGN_OR_RETURN(Tensor t, read_npy(path));
    return RuntimeValue(std::move(t));
  }
  ASSIGN_OR_RETURN(std::string bytes, read_file(path));
  const TypeInfo::Kind kind = expected ? expected->kind : TypeInfo::Kind::kTensor;
  if (kind == TypeInfo::Kind::kSequence) {
    onnx::SequenceProto sp;
    if (!sp.ParseFromString(bytes)) return InvalidArgument(path, ": not an ONNX SequenceProto");
    if (proto_name) *proto_name = sp.name();
    return from_sequence(sp, path);
  }
  if (kind == TypeInfo::Kind::kOptional) {
    onnx::OptionalProto op;
    if (!op.ParseFromString(bytes)) return InvalidArgument(path, ": not an ONNX OptionalProto");
    if (proto_name) *proto_name = op.name();
    return from_optional(op, path);
  }
  onnx::TensorProto tp;
  if (!tp.ParseFromString(bytes) || !tp.has_data_type())
    return InvalidArgument(path, ": not a .npy file or an ONNX TensorProto");
  if (proto_name) *proto_name = tp.name();
  auto d = tensor_from_proto(tp, "");
  if (!d.ok()) return d.status().with_context(path);
  ASSIGN_OR_RETURN(Tensor t, tensor_from_data(**d));
  return RuntimeValue(std::move(t));
}

}  // namespace sy
