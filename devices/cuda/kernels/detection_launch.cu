// CUDA RoiAlign: one thread per output bin of one channel, which takes the
// bin's samples by the CPU kernel's own rule (roi_align_sample.h) in
// double, so both backends give the same values. Each ROI's geometry was
// worked out once on the host and uploaded (detection_kernels.cc).
#include "devices/cuda/kernels/detection_launch.h"
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

}  // namespace

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
