// Launchers of the CUDA elementwise kernels (elementwise_*.cu). Element types
// are passed as their ONNX TensorProto codes (the values of sy::DataType) so
// that this header, which nvcc also reads, needs no project header. Every
// launcher only enqueues on `stream` and returns the launch error; it never
// synchronises. Thread-safety: all launchers are reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda {

// ---- element types ------------------------------------------------------------

namespace ew_type {
constexpr int kFloat = 1, kUInt8 = 2, kInt8 = 3, kUInt16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7, kBool = 9,
              kFloat16 = 10, kDouble = 11, kUInt32 = 12, kUInt64 = 13, kBFloat16 = 16;
}  // namespace ew_type

// Type sets as bit masks (bit = ONNX code), the same encoding as the CPU
// family's masks in devices/cpu/kernels/elementwise_common.h.
constexpr uint32_t ew_bit(int t) { return 1u << t; }
constexpr uint32_t kEwFloats =
    ew_bit(ew_type::kFloat) | ew_bit(ew_type::kDouble) | ew_bit(ew_type::kFloat16) | ew_bit(ew_type::kBFloat16);
constexpr uint32_t kEwHalfFloats = ew_bit(ew_type::kFloat16) | ew_bit(ew_type::kBFloat16);
constexpr uint32_t kEwSignedInts =
    ew_bit(ew_type::kInt8) | ew_bit(ew_type::kInt16) | ew_bit(ew_type::kInt32) | ew_bit(ew_type::kInt64);
constexpr uint32_t kEwUnsignedInts =
    ew_bit(ew_type::kUInt8) | ew_bit(ew_type::kUInt16) | ew_bit(ew_type::kUInt32) | ew_bit(ew_type::kUInt64);
constexpr uint32_t kEwInts = kEwSignedInts | kEwUnsignedInts;
constexpr uint32_t kEwNumeric = kEwFloats | kEwInts;
constexpr uint32_t kEwBool = ew_bit(ew_type::kBool);
constexpr uint32_t kEwNumericBool = kEwNumeric | kEwBool;

// ---- broadcasting metadata ----------------------------------------------------

constexpr int kEwMaxRank = 8;
constexpr int kEwMaxOperands = 3;

// Up to three operands broadcast to one output, already collapsed on the host
// (size-1 dims dropped, contiguous dims merged), passed to kernels by value.
// rank == 1 is the fast path (equal shapes, scalar operands): offsets are
// i * stride with no division.
struct EwBroadcast {
  int64_t numel = 0;
  int rank = 1;
  bool small = false;  // numel < 2^31: index arithmetic in 32 bits
  int64_t dims[kEwMaxRank] = {};
  int64_t strides[kEwMaxOperands][kEwMaxRank] = {};  // element strides, 0 = broadcast
};

// ---- binary ops ---------------------------------------------------------------

enum class EwBinary : int {
  kAdd, kSub, kMul, kDiv, kMod, kFmod, kPRelu, kMax, kMin,
  kAnd, kOr, kXor,
  kEqual, kLess, kLessOrEqual, kGreater, kGreaterOrEqual,
  kBitAnd, kBitOr, kBitXor, kShiftLeft, kShiftRight,
};

// Input types each op accepts (both inputs have the same type).
constexpr uint32_t ew_binary_types(EwBinary op) {
  switch (op) {
    case EwBinary::kAnd: case EwBinary::kOr: case EwBinary::kXor: return kEwBool;
    case EwBinary::kEqual: case EwBinary::kLess: case EwBinary::kLessOrEqual: case EwBinary::kGreater:
    case EwBinary::kGreaterOrEqual: return kEwNumericBool;
    case EwBinary::kBitAnd: case EwBinary::kBitOr: case EwBinary::kBitXor: return kEwInts;
    case EwBinary::kShiftLeft: case EwBinary::kShiftRight: return kEwUnsignedInts;
    default: return kEwNumeric;
  }
}
constexpr bool ew_binary_bool_out(EwBinary op) {
  return op == EwBinary::kAnd || op == EwBinary::kOr || op == EwBinary::kXor || op == EwBinary::kEqual ||
         op == EwBinary::kLess || op == EwBinary::kLessOrEqual || op == EwBinary::kGreater ||
         op == EwBinary::kGreaterOrEqual;
}

// out = op(a, b) over m (operands 0 and 1). `out` is bool for comparisons and
// logic ops, else `type`. In place (out == a) is allowed when a has the
// output's shape.
cudaError_t launch_binary(EwBinary op, int type, const void* a, const void* b, void* out, const EwBroadcast& m,
                          cudaStream_t stream);

// out = pow(x, y); `exp_type` is `base_type`, kInt64 or kDouble (the caller
// widens other exponent types first, as the CPU kernel does).
constexpr uint32_t kEwPowTypes = kEwNumeric;
cudaError_t launch_pow(int base_type, int exp_type, const void* x, const void* y, void* out, const EwBroadcast& m,
                       cudaStream_t stream);

// data[i] = data[i] / count in the type's compute type (Mean's last step).
cudaError_t launch_div_count(int type, void* data, int64_t n, int64_t count, cudaStream_t stream);

// out = cond ? x : y over m (operands cond, x, y); only the element size of
// x/y matters (1, 2, 4 or 8 bytes).
cudaError_t launch_where(int elem_size, const bool* cond, const void* x, const void* y, void* out,
                         const EwBroadcast& m, cudaStream_t stream);

// ---- unary ops ----------------------------------------------------------------

enum class EwUnary : int {
  kAbs, kNeg, kReciprocal, kSqrt, kExp, kLog, kFloor, kCeil, kRound,
  kSin, kCos, kTan, kAsin, kAcos, kAtan, kSinh, kCosh, kAsinh, kAcosh, kAtanh, kTanh,
  kSigmoid, kSoftsign, kSoftplus, kMish, kGeluErf, kGeluTanh, kHardSwish, kErf, kSign,
  kNot, kBitNot, kIsNaN, kIsInf,
  kRelu, kLeakyRelu, kElu, kSelu, kCelu, kHardSigmoid, kThresholdedRelu, kShrink,
};

constexpr uint32_t ew_unary_types(EwUnary op) {
  switch (op) {
    case EwUnary::kAbs: case EwUnary::kErf: case EwUnary::kSign: case EwUnary::kShrink: return kEwNumeric;
    case EwUnary::kNeg: case EwUnary::kRelu: return kEwFloats | kEwSignedInts;
    case EwUnary::kNot: return kEwBool;
    case EwUnary::kBitNot: return kEwInts;
    default: return kEwFloats;
  }
}
constexpr bool ew_unary_bool_out(EwUnary op) { return op == EwUnary::kIsNaN || op == EwUnary::kIsInf; }

// Attribute values (the meaning depends on the op: LeakyRelu/Elu/Celu/
// ThresholdedRelu alpha; Selu alpha, gamma; HardSigmoid alpha, beta; Shrink
// alpha = lambd, beta = bias; IsInf the detect flags).
struct EwUnaryParams {
  float alpha = 0, beta = 0, gamma = 0;
  bool detect_negative = true, detect_positive = true;
};

cudaError_t launch_unary(EwUnary op, int type, const void* in, void* out, int64_t n, const EwUnaryParams& p,
                         cudaStream_t stream);

// A scalar in the compute type of an element type (float for float16 and
// bfloat16, the type itself otherwise), as raw bytes.
struct EwScalar {
  alignas(8) unsigned char bytes[8] = {};
};

// out = min(max(in, lo), hi) with NaN passing through; lo/hi in the compute
// type of `type`.
cudaError_t launch_clip(int type, const void* in, void* out, int64_t n, EwScalar lo, EwScalar hi,
                        cudaStream_t stream);

// ---- Cast ---------------------------------------------------------------------

constexpr uint32_t kEwCastTypes = kEwNumericBool;
// Converts n elements between any two types of kEwCastTypes with the CPU
// kernel's semantics (float to int truncates, NaN gives 0, out of range goes
// through int64; to bool is != 0; to float16/bfloat16 goes through float).
cudaError_t launch_cast(int from, int to, const void* in, void* out, int64_t n, cudaStream_t stream);

}  // namespace sy::cuda
