// The part of cuBLAS the CUDA kernels call (SY_CUBLAS_FUNCTIONS in
// devices/cuda/cuda_libraries.h), emulated on the host for
// sy_emulated_gpu_tests, as the cuBLAS documentation defines it:
// column-major operands, op(A) of m x k, op(B) of k x n and C of m x n, with
// leading dimensions and batch strides in elements. The calls check their
// arguments synchronously, as cuBLAS does, and queue the product on the
// handle's stream; the queued work checks that every element it touches is
// live device memory. Products accumulate in double and round once into C's
// type, inside the tolerance that separates the CPU kernels from cuBLAS.
#include <cublas_v2.h>

#include <cstdint>
#include <optional>

#include "tests/devices/cuda/emulated/fake_library_util.h"

using sy::fake_libs::Elem;

struct cublasContext {
  cudaStream_t stream = nullptr;  // the default stream until SetStream
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
};

namespace {

std::optional<Elem> elem_of(cudaDataType t) {
  switch (t) {
    case CUDA_R_32F:
      return Elem::kFloat;
    case CUDA_R_64F:
      return Elem::kDouble;
    case CUDA_R_16F:
      return Elem::kHalf;
    case CUDA_R_16BF:
      return Elem::kBFloat16;
    default:
      return std::nullopt;
  }
}

// The real-valued rows of cublasGemmEx's table of supported types: A and B
// share a type; COMPUTE_32F takes 16-bit or float inputs with C of the
// inputs' type or float, and float scalars; COMPUTE_64F is double
// throughout, with double scalars. (The int8 and complex rows are not used.)
bool supported(cudaDataType a, cudaDataType b, cudaDataType c, cublasComputeType_t compute) {
  if (a != b) return false;
  switch (compute) {
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
      if (a == CUDA_R_32F) return c == CUDA_R_32F;
      return (a == CUDA_R_16F || a == CUDA_R_16BF) && (c == a || c == CUDA_R_32F);
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
      return a == CUDA_R_64F && c == CUDA_R_64F;
    default:
      return false;
  }
}

bool valid_op(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }

// Elements spanned by a column-major rows x cols matrix with leading
// dimension ld (0 when it is empty).
int64_t span(int64_t rows, int64_t cols, int64_t ld) { return rows == 0 || cols == 0 ? 0 : (cols - 1) * ld + rows; }

struct Operand {
  const void* p;
  Elem e;
  int64_t ld, stride;
  bool trans;  // for A and B: element (i, j) of op(X) is X(j, i)
};

double at(const Operand& x, int64_t batch, int64_t i, int64_t j) {
  const int64_t base = batch * x.stride;
  return x.trans ? sy::fake_libs::load(x.e, x.p, base + j + i * x.ld)
                 : sy::fake_libs::load(x.e, x.p, base + i + j * x.ld);
}

// Everything cublasGemmEx and cublasGemmStridedBatchedEx share.
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k,
                    const void* alpha, const void* A, cudaDataType atype, int64_t lda, int64_t sa, const void* B,
                    cudaDataType bt, int64_t ldb, int64_t sb, const void* beta, void* C, cudaDataType ct, int64_t ldc,
                    int64_t sc, int64_t batches, cublasComputeType_t compute, const char* fn) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_op(ta) || !valid_op(tb) || m < 0 || n < 0 || k < 0 || batches < 0) return CUBLAS_STATUS_INVALID_VALUE;
  const bool trans_a = ta != CUBLAS_OP_N, trans_b = tb != CUBLAS_OP_N;
  // lda is at least the rows of A as stored: m for op N, k for op T.
  if (lda < std::max<int64_t>(1, trans_a ? k : m) || ldb < std::max<int64_t>(1, trans_b ? n : k) ||
      ldc < std::max<int64_t>(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!supported(atype, bt, ct, compute)) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (h->pointer_mode != CUBLAS_POINTER_MODE_HOST) return CUBLAS_STATUS_NOT_SUPPORTED;  // not emulated
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0 || batches == 0) return CUBLAS_STATUS_SUCCESS;
  // Host scalars are read before the call returns; their type is the
  // compute type's scale type.
  const bool dbl = compute == CUBLAS_COMPUTE_64F || compute == CUBLAS_COMPUTE_64F_PEDANTIC;
  const double al = dbl ? *static_cast<const double*>(alpha) : *static_cast<const float*>(alpha);
  const double be = dbl ? *static_cast<const double*>(beta) : *static_cast<const float*>(beta);
  const Operand a{A, *elem_of(atype), lda, sa, trans_a}, b{B, *elem_of(bt), ldb, sb, trans_b};
  const Elem ce = *elem_of(ct);
  const auto work = [=] {
    // The last batch's operands end furthest when strides are not
    // negative; a zero stride reuses one matrix.
    const int64_t last = batches - 1;
    if (k > 0 && al != 0) {
      sy::fake_libs::check_range(a.p, a.e, last * sa + span(trans_a ? k : m, trans_a ? m : k, lda), fn);
      sy::fake_libs::check_range(b.p, b.e, last * sb + span(trans_b ? n : k, trans_b ? k : n, ldb), fn);
    }
    sy::fake_libs::check_range(C, ce, last * sc + span(m, n, ldc), fn);
    for (int64_t t = 0; t < batches; ++t)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
          double acc = 0;
          if (al != 0)
            for (int64_t p = 0; p < k; ++p) acc += at(a, t, i, p) * at(b, t, p, j);
          const int64_t ci = t * sc + i + j * ldc;
          // With beta 0, C is output only: cuBLAS does not read it, so a
          // NaN left there does not propagate.
          const double c0 = be == 0 ? 0 : be * sy::fake_libs::load(ce, C, ci);
          sy::fake_libs::store(ce, C, ci, al * acc + c0);
        }
  };
  return sy::fake_libs::enqueue(h->stream, work) == cudaSuccess ? CUBLAS_STATUS_SUCCESS
                                                                : CUBLAS_STATUS_EXECUTION_FAILED;
}

}  // namespace

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
  handle->pointer_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m,
                               int64_t n, int64_t k, const void* alpha, const void* A, cudaDataType Atype, int64_t lda,
                               const void* B, cudaDataType Btype, int64_t ldb, const void* beta, void* C,
                               cudaDataType Ctype, int64_t ldc, cublasComputeType_t computeType, cublasGemmAlgo_t) {
  return gemm(handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1,
              computeType, "cublasGemmEx_64");
}

cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                             int64_t m, int64_t n, int64_t k, const void* alpha, const void* A,
                                             cudaDataType Atype, int64_t lda, long long int strideA, const void* B,
                                             cudaDataType Btype, int64_t ldb, long long int strideB, const void* beta,
                                             void* C, cudaDataType Ctype, int64_t ldc, long long int strideC,
                                             int64_t batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t) {
  // Negative strides would walk below the first matrix; the kernels never
  // pass them, and this emulation does not check their ranges.
  if (strideA < 0 || strideB < 0 || strideC < 0) return CUBLAS_STATUS_NOT_SUPPORTED;
  return gemm(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype,
              ldc, strideC, batchCount, computeType, "cublasGemmStridedBatchedEx_64");
}

const char* cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return "the operation completed successfully";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR:
      return "license error";
  }
  return "unknown cuBLAS status";
}
