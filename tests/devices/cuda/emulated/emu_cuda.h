// The CUDA kernels' device code, run on the host: each .cu file of
// devices/cuda is compiled as plain C++ (emulate_cu.py rewrites its launches)
// with this header forced in first. It supplies what the kernels use of
// CUDA: thread and block indices, block barriers, shared memory, warp
// shuffles, atomics, a few bit casts, and stand-ins for the CUB block
// primitives and segmented radix sort.
//
// A launch becomes a host function on its stream of the fake CUDA runtime
// (tests/devices/cuda/fake_gpu), so it runs in stream order after the
// copies and kernels queued before it. Each block runs as one fiber a CUDA
// thread (emu_fibers.h), so barriers and shuffles synchronise as on a GPU,
// and a barrier some threads never reach is reported. Grids are
// capped at kMaxBlocks blocks: every kernel loops over its work with a
// grid stride, so each loop takes many passes. Launches run one at a time
// (shared memory is a function-local static, so two at once would share
// it).
#pragma once

#define SY_EMULATED_CUDA 1

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <type_traits>
#include <vector>

#include "tests/devices/cuda/emulated/emu_fibers.h"

namespace sy::emu {

inline constexpr unsigned kMaxBlocks = 3;

struct Warp {
  explicit Warp(unsigned lanes) : bar(lanes) {}
  FiberBarrier bar;
  uint64_t slot[32] = {};
};

// Of the block running (one at a time, on the thread running its fibers).
inline thread_local dim3 t_block;
inline thread_local std::vector<std::unique_ptr<Warp>>* t_warps = nullptr;
inline thread_local FiberBarrier* t_block_bar = nullptr;
inline dim3 g_block_dim, g_grid_dim;  // of the launch running (one at a time)

// threadIdx: of the fiber running.
inline dim3 thread_idx() {
  const unsigned t = current_fiber();
  return dim3(t % g_block_dim.x, (t / g_block_dim.x) % g_block_dim.y, t / (g_block_dim.x * g_block_dim.y));
}

inline std::mutex& launch_mutex() {
  static std::mutex m;
  return m;
}

// Runs `kernel` over the grid, a block at a time.
inline void run_grid(dim3 grid, dim3 block, const std::function<void()>& kernel) {
  std::lock_guard<std::mutex> lock(launch_mutex());
  const unsigned blocks = grid.x * grid.y * grid.z;
  grid = blocks > kMaxBlocks && grid.y == 1 && grid.z == 1 ? dim3(kMaxBlocks) : grid;
  g_grid_dim = grid;
  g_block_dim = block;
  const unsigned threads = block.x * block.y * block.z;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        FiberBarrier bar(threads);
        std::vector<std::unique_ptr<Warp>> warps;
        for (unsigned w = 0; w * 32 < threads; ++w)
          warps.push_back(std::make_unique<Warp>(std::min(32u, threads - w * 32)));
        t_block = dim3(bx, by, bz);
        t_warps = &warps;
        t_block_bar = &bar;
        // Every other block in reverse order: see run_fibers().
        run_fibers(threads, [&](unsigned) { kernel(); }, (bx + by + bz) % 2 == 1);
      }
}

inline void host_fn(void* data) {
  std::unique_ptr<std::function<void()>> f(static_cast<std::function<void()>*>(data));
  (*f)();
}

// Queues `work` on `stream` (the fake runtime runs it in stream order).
inline cudaError_t enqueue(cudaStream_t stream, std::function<void()> work) {
  auto* f = new std::function<void()>(std::move(work));
  const cudaError_t e = cudaLaunchHostFunc(stream, &host_fn, f);
  if (e != cudaSuccess) delete f;
  return e;
}

// Only a faulted fake GPU refuses the host function, and this binary
// injects no faults; a kernel launch reports nothing either.
template <typename F>
void launch(cudaStream_t stream, dim3 grid, dim3 block, F kernel) {
  (void)enqueue(stream, [grid, block, kernel] { run_grid(grid, block, kernel); });
}

inline void sync_block() { t_block_bar->arrive_and_wait(); }

// The thread's lane: its linear index in the block, modulo the warp size.
inline unsigned lane() { return current_fiber() % 32; }

// A shuffle: every lane of the warp posts its value, then reads another's.
template <typename T>
T shuffle(T v, unsigned from_lane) {
  static_assert(sizeof(T) <= sizeof(uint64_t));
  Warp& w = *(*t_warps)[current_fiber() / 32];
  const unsigned me = lane();
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  w.slot[me] = bits;
  w.bar.arrive_and_wait();
  T r = v;
  if (from_lane < 32) std::memcpy(&r, &w.slot[from_lane], sizeof(T));
  w.bar.arrive_and_wait();
  return r;
}

inline std::mutex& atomic_mutex() {
  static std::mutex m;
  return m;
}

template <typename T>
T add(T a, T b) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(__half2float(a) + __half2float(b));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(__bfloat162float(a) + __bfloat162float(b));
  } else {
    return a + b;
  }
}

}  // namespace sy::emu

template <typename T>
T emu_shfl_xor_sync(unsigned, T v, int mask) {
  return sy::emu::shuffle(v, sy::emu::lane() ^ static_cast<unsigned>(mask));
}
template <typename T>
T emu_shfl_down_sync(unsigned, T v, unsigned delta) {
  const unsigned from = sy::emu::lane() + delta;
  return sy::emu::shuffle(v, from < 32 ? from : sy::emu::lane());
}
template <typename T>
T emu_shfl_sync(unsigned, T v, int src) {
  return sy::emu::shuffle(v, static_cast<unsigned>(src));
}

template <typename T>
T emu_atomic_add(T* p, T v) {
  std::lock_guard<std::mutex> lock(sy::emu::atomic_mutex());
  const T old = *p;
  *p = sy::emu::add(old, v);
  return old;
}
template <typename T>
T emu_atomic_max(T* p, T v) {
  std::lock_guard<std::mutex> lock(sy::emu::atomic_mutex());
  const T old = *p;
  if (old < v) *p = v;
  return old;
}
template <typename T>
T emu_atomic_cas(T* p, T compare, T value) {
  std::lock_guard<std::mutex> lock(sy::emu::atomic_mutex());
  const T old = *p;
  if (old == compare) *p = value;
  return old;
}

// Device math the host lacks under these names: round-to-nearest is the
// host's default mode, so these are the plain operations.
using std::isinf;
using std::isnan;
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline float __double2float_rn(double v) { return static_cast<float>(v); }

inline float emu_int_as_float(int v) { return std::bit_cast<float>(v); }
inline double emu_longlong_as_double(long long v) { return std::bit_cast<double>(v); }

namespace cub {

// Only thread 0's result is defined, as in CUB; the others get their own
// input back, so code that used theirs would show.
template <typename T, int N>
class BlockReduce {
 public:
  struct TempStorage {
    T slot[N];
  };
  explicit BlockReduce(TempStorage& s) : s_(s) {}
  template <typename Op>
  T Reduce(T v, Op op) {
    s_.slot[index()] = v;
    sy::emu::sync_block();
    if (index() != 0) return v;
    T r = s_.slot[0];
    for (int i = 1; i < N; ++i) r = op(r, s_.slot[i]);
    return r;
  }
  T Sum(T v) {
    return Reduce(v, [](const T& a, const T& b) { return a + b; });
  }

 private:
  static unsigned index() {
    const dim3 t = sy::emu::thread_idx();
    return t.x + t.y * sy::emu::g_block_dim.x;
  }
  TempStorage& s_;
};

// Blocked arrangement: thread t holds items [t * K, t * K + K) of the scan.
// The prefix callback is called once, with the block's total, and its
// result offsets every item.
template <typename T, int N>
class BlockScan {
 public:
  struct TempStorage {
    T items[N * 64];
    T prefix;
  };
  explicit BlockScan(TempStorage& s) : s_(s) {}
  template <int K, typename Prefix>
  void ExclusiveSum(T (&in)[K], T (&out)[K], Prefix& prefix) {
    scan(in, out, prefix, false);
  }
  template <int K, typename Prefix>
  void InclusiveSum(T (&in)[K], T (&out)[K], Prefix& prefix) {
    scan(in, out, prefix, true);
  }

 private:
  template <int K, typename Prefix>
  void scan(T (&in)[K], T (&out)[K], Prefix& prefix, bool inclusive) {
    static_assert(K <= 64, "BlockScan stand-in holds 64 items a thread");
    const unsigned me = sy::emu::thread_idx().x;
    for (int j = 0; j < K; ++j) s_.items[me * K + j] = in[j];
    sy::emu::sync_block();
    if (me == 0) {
      T total = T(0);
      for (int i = 0; i < N * K; ++i) total = total + s_.items[i];
      s_.prefix = prefix(total);
    }
    sy::emu::sync_block();
    T acc = s_.prefix;
    for (unsigned i = 0; i < me * K; ++i) acc = acc + s_.items[i];
    for (int j = 0; j < K; ++j) {
      const T v = s_.items[me * K + j];
      if (inclusive) acc = acc + v;
      out[j] = acc;
      if (!inclusive) acc = acc + v;
    }
    sy::emu::sync_block();
  }
  TempStorage& s_;
};

// Stable sort of each segment by key, NaN above everything (the callers
// make every NaN positive, as CUB's bit order puts +NaN last).
struct DeviceSegmentedRadixSort {
  template <typename K, typename V>
  static cudaError_t SortPairs(void* temp, size_t& temp_bytes, const K* keys_in, K* keys_out, const V* vals_in,
                               V* vals_out, int n, int segments, const int* begin, const int* end, int, int,
                               cudaStream_t stream) {
    return sort(temp, temp_bytes, keys_in, keys_out, vals_in, vals_out, n, segments, begin, end, false, stream);
  }
  template <typename K, typename V>
  static cudaError_t SortPairsDescending(void* temp, size_t& temp_bytes, const K* keys_in, K* keys_out,
                                         const V* vals_in, V* vals_out, int n, int segments, const int* begin,
                                         const int* end, int, int, cudaStream_t stream) {
    return sort(temp, temp_bytes, keys_in, keys_out, vals_in, vals_out, n, segments, begin, end, true, stream);
  }

 private:
  template <typename K>
  static bool less(K a, K b) {
    if constexpr (std::is_floating_point_v<K>) {
      if (std::isnan(a)) return false;
      if (std::isnan(b)) return true;
    }
    return a < b;
  }
  template <typename K, typename V>
  static cudaError_t sort(void* temp, size_t& temp_bytes, const K* keys_in, K* keys_out, const V* vals_in,
                          V* vals_out, int n, int segments, const int* begin, const int* end, bool descending,
                          cudaStream_t stream) {
    if (temp == nullptr) {
      temp_bytes = 1;
      return cudaSuccess;
    }
    (void)n;
    return sy::emu::enqueue(stream, [=] {
      for (int s = 0; s < segments; ++s) {
        std::vector<int> order(static_cast<size_t>(end[s] - begin[s]));
        std::iota(order.begin(), order.end(), begin[s]);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
          return descending ? less(keys_in[b], keys_in[a]) : less(keys_in[a], keys_in[b]);
        });
        for (size_t i = 0; i < order.size(); ++i) {
          keys_out[begin[s] + i] = keys_in[order[i]];
          vals_out[begin[s] + i] = vals_in[order[i]];
        }
      }
    });
  }
};

}  // namespace cub

#define threadIdx (::sy::emu::thread_idx())
#define blockIdx (::sy::emu::t_block)
#define blockDim (::sy::emu::g_block_dim)
#define gridDim (::sy::emu::g_grid_dim)
#undef __shared__
#define __shared__ static
#undef __launch_bounds__
#define __launch_bounds__(...)
#undef __grid_constant__
#define __grid_constant__
#define __syncthreads() ::sy::emu::sync_block()
#define __shfl_xor_sync emu_shfl_xor_sync
#define __shfl_down_sync emu_shfl_down_sync
#define __shfl_sync emu_shfl_sync
#define atomicAdd emu_atomic_add
#define atomicCAS emu_atomic_cas
#define atomicMax emu_atomic_max
#define __int_as_float emu_int_as_float
#define __longlong_as_double emu_longlong_as_double
