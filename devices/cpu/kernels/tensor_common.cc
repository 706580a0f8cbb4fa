#include "devices/cpu/kernels/tensor_common.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cmath>
#include <limits>

namespace sy::tensor_ops {

void fill_elements(DataType t, void* dst, int64_t n, const void* value) {
  visit_storage(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = *static_cast<const T*>(value);
    T* d = static_cast<T*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = v;
  });
}

namespace {

template <typename T>
void strided_copy_t(T* dst, const T* src, const Dims& dims, const Dims& strides) {
  const size_t r = dims.size();
  if (r == 0) {
    dst[0] = src[0];
    return;
  }
  const int64_t inner = dims[r - 1];
  const int64_t istride = strides[r - 1];
  int64_t rows = 1;
  for (size_t k = 0; k + 1 < r; ++k) rows *= dims[k];

  auto run_rows = [&](int64_t begin, int64_t end) {
    Dims idx = Dims::of_rank(r > 0 ? r - 1 : 0);
    int64_t off = 0;
    int64_t rem = begin;
    for (size_t k = r - 1; k-- > 0;) {
      idx[k] = rem % dims[k];
      rem /= dims[k];
      off += idx[k] * strides[k];
    }
    for (int64_t row = begin; row < end; ++row) {
      const T* s = src + off;
      T* d = dst + row * inner;
      if (istride == 1) {
        for (int64_t i = 0; i < inner; ++i) d[i] = s[i];
      } else {
        for (int64_t i = 0; i < inner; ++i) d[i] = s[i * istride];
      }
      for (size_t k = r - 1; k-- > 0;) {
        off += strides[k];
        if (++idx[k] < dims[k]) break;
        off -= idx[k] * strides[k];
        idx[k] = 0;
      }
    }
  };
  if (rows > 1 && rows * inner >= kParallelElements) {
    int64_t grain = std::max<int64_t>(1, kParallelElements / std::max<int64_t>(inner, 1) / 4);
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, rows, grain),
                      [&](const tbb::blocked_range<int64_t>& br) { run_rows(br.begin(), br.end()); });
  } else {
    run_rows(0, rows);
  }
}

}  // namespace

void strided_copy(DataType t, void* dst, const void* src, const Dims& out_dims, const Dims& src_strides) {
  if (out_dims.numel() == 0) return;
  // Drop unit dims and merge dims that are contiguous with their inner
  // neighbour: most transposes and slices collapse to a few long rows.
  Dims dims, strides;
  for (size_t k = 0; k < out_dims.size(); ++k) {
    if (out_dims[k] == 1) continue;
    if (!dims.empty() && strides.back() == src_strides[k] * out_dims[k]) {
      dims[dims.size() - 1] *= out_dims[k];
      strides[strides.size() - 1] = src_strides[k];
      continue;
    }
    dims.push_back(out_dims[k]);
    strides.push_back(src_strides[k]);
  }
  if (dims.size() == 1 && strides[0] == 1) {
    copy_elements(t, dst, 0, src, 0, dims[0]);
    return;
  }
  visit_storage(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    strided_copy_t<T>(static_cast<T*>(dst), static_cast<const T*>(src), dims, strides);
  });
}

StatusOr<int64_t> normalize_axis(int64_t axis, int64_t rank, const char* what, bool inclusive_end) {
  int64_t hi = inclusive_end ? rank : rank - 1;
  int64_t lo = inclusive_end ? -rank - 1 : -rank;
  if (axis < lo || axis > hi)
    return InvalidArgument(what, " ", axis, " is out of range [", lo, ", ", hi, "] for rank ", rank);
  return axis < 0 ? axis + (inclusive_end ? rank + 1 : rank) : axis;
}

StatusOr<Dims> read_int_list(const Tensor& t, const char* what) {
  if (!t.defined()) return InvalidArgument(what, " is missing");
  if (t.dtype() != DataType::kInt64 && t.dtype() != DataType::kInt32)
    return InvalidArgument(what, " must be int32 or int64, got ", t.describe());
  if (t.rank() > 1) return InvalidArgument(what, " must be a 1-D tensor, got ", t.describe());
  RETURN_IF_ERROR(check_host(t, what));
  Dims out = Dims::of_rank(static_cast<size_t>(t.numel()));
  if (t.dtype() == DataType::kInt64) {
    const int64_t* p = t.data<int64_t>();
    for (int64_t i = 0; i < t.numel(); ++i) out[i] = p[i];
  } else {
    const int32_t* p = t.data<int32_t>();
    for (int64_t i = 0; i < t.numel(); ++i) out[i] = p[i];
  }
  return out;
}

StatusOr<int64_t> read_int_scalar(const Tensor& t, const char* what) {
  if (!t.defined()) return InvalidArgument(what, " is missing");
  if (!dtype_is_integer(t.dtype())) return InvalidArgument(what, " must be an integer, got ", t.describe());
  if (t.numel() != 1) return InvalidArgument(what, " must have exactly one element, got ", t.describe());
  RETURN_IF_ERROR(check_host(t, what));
  return t.int_at(0);
}

ScalarValue scalar_from_double(DataType t, double v) {
  ScalarValue s;
  if (t == DataType::kString) return s;
  visit_numeric(t, [&](auto tag) {
    using T = decltype(tag);
    T x;
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      x = T(static_cast<float>(v));
    } else if constexpr (std::is_same_v<T, bool>) {
      x = v != 0;
    } else if constexpr (std::is_integral_v<T>) {
      // Saturate instead of invoking UB on out-of-range float->int casts.
      if (std::isnan(v)) v = 0;
      double lo = static_cast<double>(std::numeric_limits<T>::lowest());
      double hi = static_cast<double>(std::numeric_limits<T>::max());
      x = v <= lo ? std::numeric_limits<T>::lowest() : v >= hi ? std::numeric_limits<T>::max() : static_cast<T>(v);
    } else {
      x = static_cast<T>(v);
    }
    std::memcpy(s.bytes, &x, sizeof(T));
  });
  return s;
}

ScalarValue scalar_from_tensor(const Tensor& src, int64_t i) {
  ScalarValue s;
  if (src.dtype() == DataType::kString) {
    s.str = src.data<std::string>()[i];
  } else {
    size_t es = dtype_size(src.dtype());
    std::memcpy(s.bytes, static_cast<const char*>(src.raw()) + i * es, es);
  }
  return s;
}

}  // namespace sy::tensor_ops
