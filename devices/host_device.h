// SY_HOST_DEVICE marks a function that both the host compiler and nvcc's
// device pass compile: plain C++ shared by a CPU kernel and its CUDA twin
// (an attention tile's rows, a recurrent cell's activations), so the two
// backends run one definition instead of two copies that can drift apart.
#pragma once

#ifdef __CUDACC__
#define SY_HOST_DEVICE __host__ __device__
#else
#define SY_HOST_DEVICE
#endif

namespace sy {

// std::clamp for code compiled for both: a NaN v stays NaN.
template <typename T>
SY_HOST_DEVICE T hd_clamp(T v, T lo, T hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}

}  // namespace sy
