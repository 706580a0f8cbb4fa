// Det's elimination, shared by the CPU kernel (reduction_einsum.cc) and the
// CUDA one (devices/cuda/kernels/einsum_launch.cu): Gaussian elimination
// with partial pivoting in double. Plain C++ with no project types, so
// nvcc compiles it into the device kernel and both backends take the same
// pivots and give the same determinant.
#pragma once

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace sy {

// The determinant of the m x m row-major matrix `a`, which it overwrites.
SY_HOST_DEVICE inline double det_lu(double* a, int64_t m) {
  double det = 1;
  // Stops once the product underflows to 0, which later infinities must
  // not turn into NaN.
  for (int64_t c = 0; c < m && det != 0; ++c) {
    int64_t piv = c;
    for (int64_t r = c + 1; r < m; ++r)
      if (fabs(a[r * m + c]) > fabs(a[piv * m + c])) piv = r;
    const double pv = a[piv * m + c];
    if (pv == 0) return 0;
    if (piv != c) {
      for (int64_t k = 0; k < m; ++k) {
        const double t = a[piv * m + k];
        a[piv * m + k] = a[c * m + k];
        a[c * m + k] = t;
      }
      det = -det;
    }
    det *= pv;
    for (int64_t r = c + 1; r < m; ++r) {
      const double f = a[r * m + c] / pv;
      if (f == 0) continue;
      for (int64_t k = c; k < m; ++k) a[r * m + k] -= f * a[c * m + k];
    }
  }
  return det;
}

}  // namespace sy
