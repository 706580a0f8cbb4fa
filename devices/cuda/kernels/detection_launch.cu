// CUDA RoiAlign: one thread per output bin of one channel, which takes the
// bin's samples by the CPU kernel's own rule (roi_align_sample.h) in
// double, so both backends give the same values. Each ROI's geometry was
// worked out once on the host and uploaded (detection_kernels.cc).
//
// CUDA NonMaxSuppression: each class's scores are sorted (CUB's segmented
// radix sort, stable, so equal scores keep the lower box first, as the
// CPU's stable sort does), then one block per class walks its boxes best
// first, its threads testing the candidate against the kept boxes in
// parallel by the CPU's overlap rule (nms_overlap.h). The walk is greedy,
// hence sequential per class; classes run in parallel.
#include <cub/cub.cuh>

#include "devices/cuda/kernels/detection_launch.h"
#include "devices/cuda/kernels/select_launch.h"
#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/elementwise_launch.h"

namespace sy::cuda {
namespace {

using namespace ew;

template <typename T>
__global__ void roi_align_kernel(RoiAlignMeta m, const T* __restrict__ x, const nn::RoiGeometry* __restrict__ rois,
                                 T* __restrict__ y) {
  const int64_t bins = m.out_h * m.out_w;
  const int64_t total = m.rois * m.c * bins;
  for (int64_t q = first_index(); q < total; q += grid_stride()) {
    const int64_t b = q % bins, c = (q / bins) % m.c, r = q / (bins * m.c);
    const nn::RoiGeometry g = rois[r];
    const T* xp = x + (g.n * m.c + c) * m.h * m.w;
    y[q] = static_cast<T>(nn::roi_bin(g, xp, b / m.out_w, b % m.out_w, m.h, m.w, m.max_mode));
  }
}

constexpr unsigned kNmsBlock = 128;

// Boxes in double; each class's scores as sort keys (-0 as +0, every NaN
// one +NaN) with their box numbers; the sort's segments, one per class.
template <typename T>
__global__ void nms_prepare_kernel(NmsMeta m, const T* __restrict__ boxes, const T* __restrict__ scores,
                                   double* __restrict__ bx, double* __restrict__ keys, int64_t* __restrict__ ids,
                                   int* __restrict__ segments) {
  const int64_t segs = m.batches * m.classes, nb = m.batches * m.boxes * 4, ns = segs * m.boxes;
  const int64_t total = s_max(s_max(nb, ns), segs + 1);
  for (int64_t e = first_index(); e < total; e += grid_stride()) {
    if (e < nb) bx[e] = static_cast<double>(boxes[e]);
    if (e < ns) {
      const double v = static_cast<double>(scores[e]);
      keys[e] = v != v ? __longlong_as_double(0x7ff8000000000000LL) : v == 0.0 ? 0.0 : v;
      ids[e] = e % m.boxes;
    }
    if (e <= segs) segments[e] = static_cast<int>(e * m.boxes);
  }
}

__global__ void __launch_bounds__(kNmsBlock)
    nms_greedy_kernel(NmsMeta m, const double* __restrict__ bx, const double* __restrict__ keys,
                      const int64_t* __restrict__ ids, int64_t* __restrict__ picked, int64_t* __restrict__ counts) {
  __shared__ int64_t kept;
  __shared__ int hits;
  const int64_t segs = m.batches * m.classes;
  for (int64_t s = blockIdx.x; s < segs; s += gridDim.x) {
    const double* boxes = bx + (s / m.classes) * m.boxes * 4;
    int64_t* mine = picked + s * m.cap;
    if (threadIdx.x == 0) kept = 0;
    __syncthreads();
    // Every thread takes the same branches: kept and the keys are shared.
    for (int64_t k = 0; k < m.boxes && kept < m.cap; ++k) {
      if (m.has_score_th && !(keys[s * m.boxes + k] > m.score_th)) continue;
      const int64_t i = ids[s * m.boxes + k];
      if (threadIdx.x == 0) hits = 0;
      __syncthreads();
      for (int64_t j = threadIdx.x; j < kept; j += blockDim.x)
        if (nn::nms_suppresses(boxes + i * 4, boxes + mine[j] * 4, m.iou_th, m.center)) atomicAdd(&hits, 1);
      __syncthreads();
      if (threadIdx.x == 0 && hits == 0) mine[kept++] = i;
      __syncthreads();
    }
    if (threadIdx.x == 0) counts[s] = kept;
    __syncthreads();  // kept is reset for the next class
  }
}

__global__ void nms_write_kernel(NmsMeta m, const int64_t* __restrict__ picked, const int64_t* __restrict__ offsets,
                                 int64_t total, int64_t* __restrict__ y) {
  const int64_t segs = m.batches * m.classes;
  for (int64_t q = first_index(); q < segs * m.cap; q += grid_stride()) {
    const int64_t s = q / m.cap, row = offsets[s] + q % m.cap;
    if (row >= (s + 1 < segs ? offsets[s + 1] : total)) continue;
    y[row * 3] = s / m.classes;
    y[row * 3 + 1] = s % m.classes;
    y[row * 3 + 2] = picked[q];
  }
}

// The first launch's workspace: boxes in double, keys and box numbers in
// and out of the sort, its segments and CUB's storage.
struct NmsLayout {
  size_t keys = 0, sorted_keys = 0, ids = 0, sorted_ids = 0, segments = 0, temp = 0, temp_bytes = 0, total = 0;
};

cudaError_t nms_layout(const NmsMeta& m, NmsLayout* L) {
  const int64_t n = m.batches * m.classes * m.boxes;
  if (n < 1 || n > 0x7fffffff || m.cap < 1) return cudaErrorInvalidValue;
  const size_t scores = align_up(static_cast<size_t>(n) * sizeof(double));
  L->keys = align_up(static_cast<size_t>(m.batches * m.boxes * 4) * sizeof(double));
  L->sorted_keys = L->keys + scores;
  L->ids = L->sorted_keys + scores;
  L->sorted_ids = L->ids + scores;
  L->segments = L->sorted_ids + scores;
  L->temp = L->segments + align_up(static_cast<size_t>(m.batches * m.classes + 1) * sizeof(int));
  const int segs = static_cast<int>(m.batches * m.classes);
  cudaError_t e = cub::DeviceSegmentedRadixSort::SortPairsDescending(
      nullptr, L->temp_bytes, static_cast<const double*>(nullptr), static_cast<double*>(nullptr),
      static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr), static_cast<int>(n), segs,
      static_cast<const int*>(nullptr), static_cast<const int*>(nullptr), 0, 64, nullptr);
  L->total = L->temp + align_up(L->temp_bytes);
  return e;
}

}  // namespace

cudaError_t nms_workspace_bytes(int type, const NmsMeta& m, size_t* bytes) {
  if (type != ew_type::kFloat && type != ew_type::kDouble) return cudaErrorInvalidValue;
  NmsLayout L;
  const cudaError_t e = nms_layout(m, &L);
  *bytes = L.total;
  return e;
}

cudaError_t launch_nms_select(int type, const NmsMeta& m, const void* boxes, const void* scores, void* workspace,
                              size_t workspace_bytes, int64_t* picked, int64_t* counts, int64_t* total,
                              cudaStream_t stream) {
  NmsLayout L;
  cudaError_t e = nms_layout(m, &L);
  if (e != cudaSuccess) return e;
  if (workspace_bytes < L.total) return cudaErrorInvalidValue;
  const int64_t segs = m.batches * m.classes, n = segs * m.boxes;
  double* bx = at<double>(workspace, 0);
  double* keys = at<double>(workspace, L.keys);
  double* sorted_keys = at<double>(workspace, L.sorted_keys);
  int64_t* ids = at<int64_t>(workspace, L.ids);
  int64_t* sorted_ids = at<int64_t>(workspace, L.sorted_ids);
  int* segments = at<int>(workspace, L.segments);
  const int64_t items = n > m.batches * m.boxes * 4 ? n : m.batches * m.boxes * 4;
  if (type == ew_type::kFloat)
    nms_prepare_kernel<float><<<grid_for(items + 1), kBlock, 0, stream>>>(
        m, static_cast<const float*>(boxes), static_cast<const float*>(scores), bx, keys, ids, segments);
  else if (type == ew_type::kDouble)
    nms_prepare_kernel<double><<<grid_for(items + 1), kBlock, 0, stream>>>(
        m, static_cast<const double*>(boxes), static_cast<const double*>(scores), bx, keys, ids, segments);
  else
    return cudaErrorInvalidValue;
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  e = cub::DeviceSegmentedRadixSort::SortPairsDescending(at<void>(workspace, L.temp), L.temp_bytes, keys, sorted_keys,
                                                         ids, sorted_ids, static_cast<int>(n), static_cast<int>(segs),
                                                         segments, segments + 1, 0, 64, stream);
  if (e != cudaSuccess) return e;
  const unsigned grid = static_cast<unsigned>(segs < 65535 ? segs : 65535);
  nms_greedy_kernel<<<grid, kNmsBlock, 0, stream>>>(m, bx, sorted_keys, sorted_ids, picked, counts);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  return launch_count_scan(counts, segs, total, stream);
}

cudaError_t launch_nms_write(const NmsMeta& m, const int64_t* picked, const int64_t* offsets, int64_t total,
                             int64_t* y, cudaStream_t stream) {
  if (total <= 0) return cudaSuccess;
  nms_write_kernel<<<grid_for(m.batches * m.classes * m.cap), kBlock, 0, stream>>>(m, picked, offsets, total, y);
  return cudaGetLastError();
}

cudaError_t launch_roi_align(int type, const RoiAlignMeta& m, const void* x, const nn::RoiGeometry* rois, void* y,
                             cudaStream_t stream) {
  const int64_t total = m.rois * m.c * m.out_h * m.out_w;
  if (total <= 0) return cudaSuccess;
  return visit<ew_bit(ew_type::kFloat) | ew_bit(ew_type::kDouble)>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    roi_align_kernel<T><<<grid_for(total), kBlock, 0, stream>>>(m, static_cast<const T*>(x), rois, static_cast<T*>(y));
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda
