#include "devices/cpu/kernels/tensor_common.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <type_traits>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/target_clones.h"

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

// The source offset of plane `plane` of a copy: its index over all axes
// but the last two, row-major, times their strides.
int64_t plane_offset(const Dims& dims, const Dims& strides, int64_t plane) {
  int64_t base = 0;
  for (size_t k = dims.size() - 2, rem = static_cast<size_t>(plane); k-- > 0;) {
    base += static_cast<int64_t>(rem % static_cast<size_t>(dims[k])) * strides[k];
    rem /= static_cast<size_t>(dims[k]);
  }
  return base;
}

// A copy whose output rows run across the source's faster axis (a
// transpose), tile by tile. Row by row, each output row walks a source
// column; with a stride like 192 floats its lines fall into a few cache sets
// and evict each other, so every element missed L1 (192x192: 38 us). A
// 16x16 tile reads 16 lines and uses all of them.
template <typename T>
void strided_copy_tiled(T* dst, const T* src, const Dims& dims, const Dims& strides) {
  constexpr int64_t kTile = 16;
  const size_t r = dims.size();
  const int64_t inner = dims[r - 1], istride = strides[r - 1];
  const int64_t rows = dims[r - 2], rstride = strides[r - 2];
  int64_t planes = 1;
  for (size_t k = 0; k + 2 < r; ++k) planes *= dims[k];
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  // How many of L1's 64 sets (of 8 64-byte lines) the lines of successive
  // rows `stride` elements apart fall in: 1 for a stride of 4 KiB.
  auto sets_spanned = [](int64_t stride) {
    return std::min<int64_t>(64, 4096 / std::gcd<int64_t>(std::abs(stride) * int64_t{sizeof(T)}, 4096));
  };
  // Output rows in at most 2 sets: the SSE path below goes in bands (see
  // there), as many columns long as L1 holds the band's source lines at
  // half its ways; source rows 3 KiB apart (768x768) fall in only 4 sets.
  const bool rows_share_sets = sets_spanned(inner) <= 2;
  const int64_t band = std::clamp<int64_t>(4 * sets_spanned(istride), kTile, 256) / kTile * kTile;
  auto run_tiles = [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t plane = t / row_tiles, r0 = t % row_tiles * kTile, r1 = std::min(rows, r0 + kTile);
      const int64_t base = plane_offset(dims, strides, plane);
      T* out = dst + plane * rows * inner;
      int64_t c0 = 0;
#if defined(__x86_64__)
      if constexpr (sizeof(T) == 4 && std::is_trivially_copyable_v<T>) {
        if (r1 - r0 == kTile && rstride == 1 && inner >= kTile) {
          // 4-byte elements, 16 whole rows: 4x4 blocks transposed in SSE
          // registers, straight from source to output (the compiler moved a
          // tile's columns one element at a time). Output rows `row` to
          // `row` + 3, columns `c` to `c` + 3:
          auto block4 = [&](int64_t row, int64_t c) {
            const float* s = reinterpret_cast<const float*>(src + base + c * istride + row);
            __m128 q0 = _mm_loadu_ps(s), q1 = _mm_loadu_ps(s + istride);
            __m128 q2 = _mm_loadu_ps(s + 2 * istride), q3 = _mm_loadu_ps(s + 3 * istride);
            _MM_TRANSPOSE4_PS(q0, q1, q2, q3);
            float* d = reinterpret_cast<float*>(out + row * inner + c);
            _mm_storeu_ps(d, q0);
            _mm_storeu_ps(d + inner, q1);
            _mm_storeu_ps(d + 2 * inner, q2);
            _mm_storeu_ps(d + 3 * inner, q3);
          };
          const int64_t whole = inner / kTile * kTile;
          if (rows_share_sets) {
            // Four output rows at a time, along `band` columns: each gets up
            // to 1 KiB in sequence while the band's source lines stay in L1.
            // Tile by tile, the 16 rows advanced 64 bytes at a time and
            // evicted each other's lines from their shared set: a 5-D
            // [2,16,16,32,32] 04123 took 3.3x as long, a 1024x1024 1.6x.
            for (int64_t cb = 0; cb < whole; cb += band)
              for (int64_t bk = 0; bk < kTile; bk += 4)
                for (int64_t c = cb; c < std::min(whole, cb + band); c += 4) block4(r0 + bk, c);
          } else {
            // Tile by tile, each source line read whole at once: 5-8%
            // faster than the bands where the rows spread over the sets.
            for (int64_t ct = 0; ct < whole; ct += kTile)
              for (int64_t bi = 0; bi < kTile; bi += 4)
                for (int64_t bk = 0; bk < kTile; bk += 4) block4(r0 + bk, ct + bi);
          }
          c0 = whole;
        }
      }
#endif
      for (; c0 < inner; c0 += kTile) {
        const int64_t c1 = std::min(inner, c0 + kTile);
        if constexpr (std::is_trivially_copyable_v<T>) {
          // Through a local tile: the loads run along the source's rows and
          // the stores along the output's, each contiguous (a 768x768
          // transpose: 0.24 ms to 0.17).
          T tile[kTile][kTile];
          if (r1 - r0 == kTile && c1 - c0 == kTile && rstride == 1) {
            // A whole tile of contiguous source rows: constant trip counts,
            // so the compiler unrolls the moves instead of calling memcpy
            // for every 16 elements.
            for (int64_t i = 0; i < kTile; ++i) {
              const T* s = src + base + (c0 + i) * istride + r0;
              for (int64_t k = 0; k < kTile; ++k) tile[i][k] = s[k];
            }
            for (int64_t k = 0; k < kTile; ++k) {
              T* d = out + (r0 + k) * inner + c0;
              for (int64_t i = 0; i < kTile; ++i) d[i] = tile[i][k];
            }
            continue;
          }
          for (int64_t i = c0; i < c1; ++i) {
            const T* s = src + base + i * istride;
            for (int64_t row = r0; row < r1; ++row) tile[i - c0][row - r0] = s[row * rstride];
          }
          for (int64_t row = r0; row < r1; ++row) {
            T* d = out + row * inner;
            for (int64_t i = c0; i < c1; ++i) d[i] = tile[i - c0][row - r0];
          }
        } else {
          for (int64_t row = r0; row < r1; ++row) {
            const T* s = src + base + row * rstride;
            T* d = out + row * inner;
            for (int64_t i = c0; i < c1; ++i) d[i] = s[i * istride];
          }
        }
      }
    }
  };
  const int64_t tiles = planes * row_tiles;
  if (tiles > 1 && planes * rows * inner >= kParallelElements) {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, tiles),
                      [&](const tbb::blocked_range<int64_t>& br) { run_tiles(br.begin(), br.end()); });
  } else {
    run_tiles(0, tiles);
  }
}

// d[p * C + c] = s[c * cstride + p] for p < n, c < C: a few planes
// interleaved, as a small NCHW image goes to NHWC ([1, 3, 224, 224]: 60-80
// us by tiles, whose 4x4 blocks want 16 columns, 10-20 so). Functions per
// C, as target_clones takes no templates.
#define SY_INTERLEAVE(C)                                                                  \
  SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")                         \
  void interleave##C(float* d, const float* s, int64_t cstride, int64_t n) {              \
    for (int64_t p = 0; p < n; ++p)                                                       \
      for (int64_t c = 0; c < C; ++c) d[p * C + c] = s[c * cstride + p];                  \
  }
SY_INTERLEAVE(2)
SY_INTERLEAVE(3)
SY_INTERLEAVE(4)
#undef SY_INTERLEAVE

// The copy as interleaved planes, if its last two axes are a few channels
// (2 to 4) over rows contiguous in the source (4-byte elements): each
// output row is one pixel's channels. False otherwise.
template <typename T>
bool interleave_planes(T* dst, const T* src, const Dims& dims, const Dims& strides) {
  const size_t r = dims.size();
  if constexpr (sizeof(T) != 4 || !std::is_trivially_copyable_v<T>) {
    return false;
  } else {
    if (r < 2 || strides[r - 2] != 1 || dims[r - 1] < 2 || dims[r - 1] > 4) return false;
    auto* run = dims[r - 1] == 2 ? interleave2 : dims[r - 1] == 3 ? interleave3 : interleave4;
    const int64_t inner = dims[r - 1], rows = dims[r - 2], cstride = strides[r - 1];
    int64_t planes = 1;
    for (size_t k = 0; k + 2 < r; ++k) planes *= dims[k];
    constexpr int64_t kChunk = 4096;  // rows per task
    const int64_t chunks = (rows + kChunk - 1) / kChunk;
    auto run_chunks = [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t plane = t / chunks, p0 = t % chunks * kChunk, n = std::min(kChunk, rows - p0);
        const int64_t base = plane_offset(dims, strides, plane);
        run(reinterpret_cast<float*>(dst + (plane * rows + p0) * inner), reinterpret_cast<const float*>(src + base + p0),
            cstride, n);
      }
    };
    if (planes * chunks > 1 && planes * rows * inner >= kParallelElements) {
      tbb::parallel_for(tbb::blocked_range<int64_t>(0, planes * chunks),
                        [&](const tbb::blocked_range<int64_t>& br) { run_chunks(br.begin(), br.end()); });
    } else {
      run_chunks(0, planes * chunks);
    }
    return true;
  }
}

template <typename T>
void strided_copy_t(T* dst, const T* src, const Dims& dims, const Dims& strides) {
  const size_t r = dims.size();
  if (r == 0) {
    dst[0] = src[0];
    return;
  }
  const int64_t inner = dims[r - 1];
  const int64_t istride = strides[r - 1];
  // Tiles pay only when source rows are strided and the next axis runs
  // faster in the source; not for contiguous or broadcast rows (Expand).
  if (r >= 2 && std::abs(istride) > 1 && strides[r - 2] != 0 && std::abs(strides[r - 2]) < std::abs(istride)) {
    if (interleave_planes(dst, src, dims, strides)) return;
    return strided_copy_tiled(dst, src, dims, strides);
  }
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
        std::copy(s, s + inner, d);  // memmove for plain types; the loop stayed scalar
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
  for_row_ranges(rows, inner, run_rows);
}

}  // namespace

void merge_strided_dims(const Dims& out_dims, const Dims& src_strides, Dims* dims, Dims* strides) {
  dims->clear();
  strides->clear();
  for (size_t k = 0; k < out_dims.size(); ++k) {
    if (out_dims[k] == 1) continue;
    if (!dims->empty() && strides->back() == src_strides[k] * out_dims[k]) {
      (*dims)[dims->size() - 1] *= out_dims[k];
      (*strides)[strides->size() - 1] = src_strides[k];
      continue;
    }
    dims->push_back(out_dims[k]);
    strides->push_back(src_strides[k]);
  }
}

Status check_index_tensor(const Tensor& t, const char* op) {
  if (!t.defined()) return InvalidArgument(op, ": indices are missing");
  if (t.dtype() != DataType::kInt32 && t.dtype() != DataType::kInt64)
    return InvalidArgument(op, ": indices must be int32 or int64, got ", t.describe());
  return OkStatus();
}

void strided_copy(DataType t, void* dst, const void* src, const Dims& out_dims, const Dims& src_strides) {
  if (out_dims.numel() == 0) return;
  Dims dims, strides;
  merge_strided_dims(out_dims, src_strides, &dims, &strides);
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

StatusOr<std::vector<size_t>> normalize_axes(const std::vector<int64_t>& axes, size_t rank, const char* what) {
  std::vector<size_t> out;
  std::vector<bool> seen(rank, false);
  for (int64_t a : axes) {
    ASSIGN_OR_RETURN(int64_t k, normalize_axis(a, static_cast<int64_t>(rank), what));
    if (seen[static_cast<size_t>(k)]) return InvalidArgument(what, " ", a, " appears twice");
    seen[static_cast<size_t>(k)] = true;
    out.push_back(static_cast<size_t>(k));
  }
  return out;
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

StatusOr<Dims> transpose_perm(const Dims& perm_attr, bool has_perm, size_t r) {
  Dims perm = Dims::of_rank(r);
  if (!has_perm) {
    for (size_t i = 0; i < r; ++i) perm[i] = static_cast<int64_t>(r - 1 - i);
    return perm;
  }
  if (perm_attr.size() != r)
    return InvalidArgument("Transpose: perm ", perm_attr.to_string(), " does not match input rank ", r);
  Dims seen = Dims::of_rank(r, 0);
  for (size_t i = 0; i < r; ++i) {
    int64_t p = perm_attr[i];
    if (p < 0) p += static_cast<int64_t>(r);
    if (p < 0 || p >= static_cast<int64_t>(r) || seen[p])
      return InvalidArgument("Transpose: perm ", perm_attr.to_string(), " is not a permutation of 0..", r - 1);
    seen[p] = 1;
    perm[i] = p;
  }
  return perm;
}

StatusOr<SliceView> slice_view(const Dims& in, const Dims& starts, const Dims& ends, const Dims* axes,
                               const Dims* steps) {
  size_t n = starts.size();
  if (ends.size() != n || (axes && axes->size() != n) || (steps && steps->size() != n))
    return InvalidArgument("Slice: starts, ends, axes and steps must have the same length");
  int64_t r = static_cast<int64_t>(in.size());
  SliceView v;
  v.out_dims = in;
  Dims in_strides = contiguous_strides(in);
  v.strides = in_strides;
  Dims begin = Dims::of_rank(static_cast<size_t>(r), 0);
  Dims seen = Dims::of_rank(static_cast<size_t>(r), 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t a = axes ? (*axes)[i] : static_cast<int64_t>(i);
    ASSIGN_OR_RETURN(a, normalize_axis(a, r, "Slice axis"));
    if (seen[a]) return InvalidArgument("Slice: axis ", a, " is repeated");
    seen[a] = 1;
    int64_t step = steps ? (*steps)[i] : 1;
    if (step == 0) return InvalidArgument("Slice: step must not be zero");
    int64_t dim = in[a];
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s = s < -dim ? -1 : s + dim;  // clamps below, avoiding overflow
    if (e < 0) e = e < -dim ? -1 : e + dim;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      s = std::max<int64_t>(0, std::min(s, dim - 1));
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    int64_t count = 0;
    if (dim == 0) {
    } else if (step > 0 && e > s) count = (e - s - 1) / step + 1;
    else if (step < 0 && s > e) count = (s - e - 1) / (step == std::numeric_limits<int64_t>::min() ? s - e : -step) + 1;
    v.out_dims[a] = count;
    begin[a] = count > 0 ? s : 0;
    // |step| may be huge when count <= 1; the stride is never applied then.
    v.strides[a] = count > 1 ? in_strides[a] * step : in_strides[a];
  }
  for (int64_t k = 0; k < r; ++k) v.offset += begin[k] * in_strides[k];
  return v;
}

StatusOr<Dims> split_sizes(Dims split, int64_t dim, int64_t n_out, bool num_outputs_attr) {
  if (split.empty()) {
    if (n_out == 0) return InvalidArgument("Split: no outputs");
    split = Dims::of_rank(static_cast<size_t>(n_out));
    if (num_outputs_attr) {
      // Opset 18: the last chunk may be smaller.
      int64_t chunk = (dim + n_out - 1) / n_out;
      for (int64_t i = 0; i < n_out; ++i) split[i] = std::max<int64_t>(0, std::min(chunk, dim - i * chunk));
    } else {
      if (dim % n_out != 0)
        return InvalidArgument("Split: axis dimension ", dim, " is not divisible into ", n_out, " equal parts");
      for (int64_t i = 0; i < n_out; ++i) split[i] = dim / n_out;
    }
  }
  if (static_cast<int64_t>(split.size()) != n_out)
    return InvalidArgument("Split: split ", split.to_string(), " has ", split.size(), " entries but the node has ",
                           n_out, " outputs");
  const auto bad_sum = [&] {
    return InvalidArgument("Split: split ", split.to_string(), " does not sum to axis dimension ", dim);
  };
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0) return InvalidArgument("Split: negative size in split ", split.to_string());
    if (s > dim - total) return bad_sum();  // compared before adding, which could overflow
    total += s;
  }
  if (total != dim) return bad_sum();
  return split;
}

StatusOr<Dims> concat_dims(const KernelContext& ctx, int64_t axis_attr, int64_t* axis_out) {
  size_t n = ctx.num_inputs();
  if (n == 0 || !ctx.input(0).defined()) return InvalidArgument("Concat: needs at least one input");
  const Tensor& first = ctx.input(0);
  int64_t r = static_cast<int64_t>(first.rank());
  if (r == 0) return InvalidArgument("Concat: cannot concatenate scalars");
  ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_attr, r, "Concat axis"));
  Dims out_dims = first.dims();
  out_dims[axis] = 0;
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t = ctx.input(i);
    if (!t.defined()) return InvalidArgument("Concat: input ", i, " is missing");
    if (t.dtype() != first.dtype())
      return InvalidArgument("Concat: input ", i, " is ", t.describe(), " but input 0 is ", first.describe());
    if (static_cast<int64_t>(t.rank()) != r)
      return InvalidArgument("Concat: input ", i, " ", t.describe(), " has a different rank than ", first.describe());
    for (int64_t k = 0; k < r; ++k)
      if (k != axis && t.dim(k) != first.dim(k))
        return InvalidArgument("Concat: input ", i, " shape ", t.dims().to_string(), " does not match input 0 shape ",
                               first.dims().to_string(), " outside axis ", axis);
    out_dims[axis] += t.dim(axis);
  }
  *axis_out = axis;
  return out_dims;
}

StatusOr<TileView> tile_view(const Dims& in, const Dims& reps) {
  size_t r = in.size();
  if (reps.size() != r)
    return InvalidArgument("Tile: repeats ", reps.to_string(), " must have one entry per input dimension (", r, ")");
  TileView v;
  v.out_dims = Dims::of_rank(r);
  for (size_t i = 0; i < r; ++i) {
    if (reps[i] < 0) return InvalidArgument("Tile: negative repeat in ", reps.to_string());
    if (!checked_mul(in[i], reps[i], &v.out_dims[i]))
      return ResourceExhausted("Tile: output dimension ", i, " overflows (", in[i], " x ", reps[i], ")");
  }
  Dims in_strides = contiguous_strides(in);
  v.view = Dims::of_rank(2 * r);
  v.strides = Dims::of_rank(2 * r);
  for (size_t i = 0; i < r; ++i) {
    v.view[2 * i] = reps[i];
    v.strides[2 * i] = 0;
    v.view[2 * i + 1] = in[i];
    v.strides[2 * i + 1] = in_strides[i];
  }
  return v;
}

Status read_pad_inputs(const KernelContext& ctx, const Tensor& x, Dims* pads, ScalarValue* cval) {
  size_t r = x.rank();
  ASSIGN_OR_RETURN(Dims p, read_int_list(ctx.input(1), "Pad pads"));
  if (ctx.has_input(3)) {
    // Opset 18 axes: pads cover only the listed axes.
    ASSIGN_OR_RETURN(Dims axes, read_int_list(ctx.input(3), "Pad axes"));
    if (p.size() != 2 * axes.size()) return InvalidArgument("Pad: pads must have 2 entries per axis");
    *pads = Dims::of_rank(2 * r, 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      ASSIGN_OR_RETURN(int64_t a, normalize_axis(axes[i], static_cast<int64_t>(r), "Pad axis"));
      (*pads)[a] = p[i];
      (*pads)[a + r] = p[i + axes.size()];
    }
  } else {
    *pads = std::move(p);
  }
  if (ctx.has_input(2)) {
    const Tensor& c = ctx.input(2);
    if (c.dtype() != x.dtype()) return InvalidArgument("Pad: constant_value type differs from data type");
    RETURN_IF_ERROR(check_host(c, "Pad constant_value"));
    if (c.numel() >= 1) *cval = scalar_from_tensor(c, 0);
  } else if (x.dtype() != DataType::kString) {
    *cval = scalar_from_double(x.dtype(), 0.0);
  }
  return OkStatus();
}

StatusOr<Dims> pad_output_dims(const Dims& in, const Dims& pads, PadMode mode) {
  size_t r = in.size();
  if (pads.size() != 2 * r)
    return InvalidArgument("Pad: pads ", pads.to_string(), " must have 2 * rank (", 2 * r, ") entries");
  Dims out_dims = Dims::of_rank(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t b = pads[i], e = pads[i + r];
    const int64_t lim = std::numeric_limits<int64_t>::max() / 4;
    if (b > lim || e > lim || b < -lim || e < -lim)
      return ResourceExhausted("Pad: pads ", pads.to_string(), " are too large");
    out_dims[i] = in[i] + b + e;
    if (out_dims[i] < 0)
      return InvalidArgument("Pad: pads ", pads.to_string(), " remove more than input ", in.to_string());
    if (mode != PadMode::kConstant && in[i] == 0 && out_dims[i] > 0)
      return InvalidArgument("Pad: cannot pad an empty axis in non-constant mode");
  }
  return out_dims;
}

StatusOr<Dims> center_crop_pads(const KernelContext& ctx, bool has_axes, const std::vector<int64_t>& axes_attr) {
  const Node& node = ctx.node();
  const Tensor& x = ctx.input(0);
  if (!x.defined()) return InvalidArgument(node.describe(), ": input_data is missing");
  ASSIGN_OR_RETURN(Dims shape, read_int_list(ctx.input(1), "CenterCropPad shape"));
  const size_t r = x.rank();
  ASSIGN_OR_RETURN(std::vector<size_t> axes, normalize_axes(axes_attr, r, "CenterCropPad axis"));
  for (size_t k = 0; k < r && !has_axes; ++k) axes.push_back(k);
  if (shape.size() != axes.size())
    return InvalidArgument(node.describe(), ": shape has ", shape.size(), " entries for ", axes.size(), " axes");
  Dims pads = Dims::of_rank(2 * r, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a = axes[i];
    const int64_t want = shape[i], have = x.dim(a);
    if (want < 0) return InvalidArgument(node.describe(), ": negative size ", want, " for axis ", a);
    pads[a] = want < have ? -((have - want) / 2) : (want - have) / 2;
    pads[a + r] = want - have - pads[a];
  }
  return pads;
}

StatusOr<CompressPlan> plan_compress(const Tensor& x, const Tensor& cond, bool has_axis, int64_t axis_attr) {
  if (!x.defined() || !cond.defined()) return InvalidArgument("Compress: input and condition are required");
  if (cond.dtype() != DataType::kBool || cond.rank() != 1)
    return InvalidArgument("Compress: condition must be a 1-D bool tensor, got ", cond.describe());
  CompressPlan p;
  p.dim = x.numel();
  int64_t axis = 0;
  if (has_axis) {
    if (x.rank() == 0) return InvalidArgument("Compress: cannot use axis on a scalar");
    ASSIGN_OR_RETURN(axis, normalize_axis(axis_attr, static_cast<int64_t>(x.rank()), "Compress axis"));
    p.dim = x.dim(axis);
    for (int64_t k = 0; k < axis; ++k) p.outer *= x.dim(k);
    for (size_t k = static_cast<size_t>(axis) + 1; k < x.rank(); ++k) p.inner *= x.dim(k);
  }
  const bool* c = cond.data<bool>();
  for (int64_t i = 0; i < cond.numel(); ++i) {
    if (!c[i]) continue;
    if (i >= p.dim) return OutOfRange("Compress: condition selects index ", i, " but the axis has size ", p.dim);
    p.keep.push_back(i);
  }
  const int64_t m = static_cast<int64_t>(p.keep.size());
  if (has_axis) {
    p.out = x.dims();
    p.out[static_cast<size_t>(axis)] = m;
  } else {
    p.out = Dims{m};
  }
  return p;
}

StatusOr<SequenceAxes> reverse_sequence_axes(const Node& node) {
  SequenceAxes a;
  a.batch = node.attr_int("batch_axis", 1);
  a.time = node.attr_int("time_axis", 0);
  if (!((a.batch == 0 && a.time == 1) || (a.batch == 1 && a.time == 0)))
    return InvalidArgument(node.describe(), ": batch_axis and time_axis must be 0 and 1 in some order");
  return a;
}

StatusOr<ReverseSequencePlan> plan_reverse_sequence(const KernelContext& ctx, const SequenceAxes& axes) {
  const Tensor& x = ctx.input(0);
  if (!x.defined() || x.rank() < 2) return InvalidArgument("ReverseSequence: input must have rank >= 2");
  ASSIGN_OR_RETURN(Dims lens, read_int_list(ctx.input(1), "ReverseSequence sequence_lens"));
  const int64_t batch = x.dim(static_cast<size_t>(axes.batch)), time = x.dim(static_cast<size_t>(axes.time));
  if (static_cast<int64_t>(lens.size()) != batch)
    return InvalidArgument("ReverseSequence: sequence_lens has ", lens.size(), " entries for batch size ", batch);
  for (int64_t b = 0; b < batch; ++b)
    if (lens[b] < 0 || lens[b] > time)
      return OutOfRange("ReverseSequence: sequence_lens[", b, "] = ", lens[b], " is outside [0, ", time, "]");
  ReverseSequencePlan p;
  for (size_t k = 2; k < x.rank(); ++k) p.inner *= x.dim(k);
  // No rows to move; an empty x may still claim a huge batch * time.
  if (x.numel() == 0) return p;
  // Row strides of the batch and time axes.
  const int64_t bstride = axes.batch == 0 ? time : 1, tstride = axes.time == 0 ? batch : 1;
  p.rows.resize(static_cast<size_t>(batch * time));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < time; ++t) {
      const int64_t src_t = t < lens[b] ? lens[b] - 1 - t : t;
      p.rows[static_cast<size_t>(b * bstride + t * tstride)] = b * bstride + src_t * tstride;
    }
  return p;
}

}  // namespace sy::tensor_ops
