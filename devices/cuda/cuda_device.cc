#include "devices/cuda/cuda_device.h"

#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "devices/cpu/kernels/parallel_ranges.h"
#include "devices/cuda/pinned_pool.h"

namespace sy::cuda {

cudaError_t launch_zero_int(int* p, cudaStream_t s);  // probe_kernels.cu

// Per-GPU state that buffers need after any CudaDevice is gone: a session's
// constants or a caller's tensors may outlive it. Process-wide, never
// destroyed.
struct DeviceMemory {
  int ordinal = 0;
  cudaStream_t free_stream = nullptr;  // frees outside any task
  std::atomic<uint64_t> in_use{0};
  uint64_t total = 0;
  Status init_status;
};

namespace {

constexpr int kMaxGpus = 64;
constexpr int kFlagsPerPage = 1024;
// Up to these sizes a copy from ordinary host memory goes straight to
// cudaMemcpyAsync, which stages the bytes itself and returns; above, it is
// staged through pinned blocks of kStageChunk so the DMA of one chunk
// overlaps the memcpy of the next. On the H200 machine the driver's path
// was the faster up to 8 MiB (13.4 against 8.1 GB/s at 1 MiB, 17.1 against
// 10.0 at 8 MiB), the staged one from 64 MiB (22.7 against 16.7). But the
// driver first waits for the stream's earlier work: a copy or synchronous
// stream holds only copies, a kernel task's stream may hold a long kernel,
// so there the driver takes only small copies.
constexpr size_t kDirectBytes = size_t{64} << 10;
constexpr size_t kDirectBytesOnCopyStreams = size_t{8} << 20;
constexpr size_t kStageChunk = size_t{4} << 20;

// Copies a chunk into its pinned block on several of oneTBB's threads. A
// staged copy runs at the speed of this memcpy, which one thread did at a
// sixth of the link's speed on the H100 machine (8.98 GB/s against 54.88
// GB/s for device-to-host, which needs no staging): one core alone cannot
// use the host's memory bandwidth. Isolated, so that while this thread
// waits for the pieces it does not pick up a CPU kernel's work and hold
// the copy (and this GPU's launch lock) behind it.
void staging_memcpy(void* dst, const void* src, size_t len) {
  constexpr size_t kPiece = size_t{512} << 10;
  const auto pieces = static_cast<int64_t>((len + kPiece - 1) / kPiece);
  tbb::this_task_arena::isolate([&] {
    parallel_for_ranges(pieces, 1, [&](int64_t first, int64_t last) {
      const size_t from = static_cast<size_t>(first) * kPiece;
      const size_t to = std::min(len, static_cast<size_t>(last) * kPiece);
      std::memcpy(static_cast<char*>(dst) + from, static_cast<const char*>(src) + from, to - from);
    });
  });
}

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

DeviceMemory* memory_of(int ordinal) {
  static std::array<std::once_flag, kMaxGpus> once;
  static std::array<DeviceMemory*, kMaxGpus> mem{};
  std::call_once(once[static_cast<size_t>(ordinal)], [&] {
    auto* m = new DeviceMemory();
    m->ordinal = ordinal;
    m->init_status = [&]() -> Status {
      CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
      size_t free_b = 0, total_b = 0;
      CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_b, &total_b));
      m->total = total_b;
      // Keep freed memory in the pool instead of returning it to the
      // driver at every synchronisation: runs reuse it.
      cudaMemPool_t pool = nullptr;
      CUDA_RETURN_IF_ERROR(cudaDeviceGetDefaultMemPool(&pool, ordinal));
      uint64_t threshold = UINT64_MAX;
      CUDA_RETURN_IF_ERROR(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
      CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&m->free_stream, cudaStreamNonBlocking));
      return OkStatus();
    }();
    mem[static_cast<size_t>(ordinal)] = m;
  });
  return mem[static_cast<size_t>(ordinal)];
}

struct Staged {
  void* block;
  int size_class;
};

void CUDART_CB give_back_staging(void* p) {
  auto* s = static_cast<Staged*>(p);
  PinnedPool::instance().give_back(s->block, s->size_class);
  delete s;
}

}  // namespace

// What this thread is launching: set by enqueue() around task->execute().
struct CudaDevice::Scope {
  CudaDevice* device;
  StreamSlot* compute;  // null for copy tasks
  uint32_t used;        // bit i: slots_[i] got work
  Scope* prev;
  const char* error_what = nullptr;  // armed error flag (on `compute`)
  Flag flag;                         // taken by arm_error_flag
  // Where buffers of this GPU dropped during the task are freed: the
  // stream the task queues its work on (compute, else the copy stream it
  // last used), so a free is ordered after the task's own queued uses of
  // the buffer, e.g. a result dropped on a failure after its copy was
  // queued. Null until a copy task queues anything.
  StreamSlot* order = nullptr;
};

struct CudaDevice::Pending {
  DeviceTask* task;
  CompletionSink* sink;
  StreamSlot* slot;
  int ordinal;
  const char* error_what;  // non-null: fail if flag is set
  Flag flag;               // given back to `device` on success
  CudaDevice* device;
  PinnedPool::Held held;   // pinned blocks dropped by the task, see enqueue()
};

StatusOr<Completion> completion_from_env() {
  const char* v = std::getenv("SWITCHYARD_CUDA_COMPLETION");
  const std::string_view mode = v ? v : "";
  if (mode.empty() || mode == "poll") return Completion::kPoll;
  if (mode == "callback") return Completion::kCallback;
  return InvalidArgument("SWITCHYARD_CUDA_COMPLETION is '", mode, "'; use 'poll' (the default) or 'callback'");
}

thread_local CudaDevice::Scope* CudaDevice::t_scope_ = nullptr;

StatusOr<std::unique_ptr<CudaDevice>> CudaDevice::create(int ordinal, int compute_streams, Completion completion) {
  if (ordinal < 0 || ordinal >= kMaxGpus) return InvalidArgument("cuda ordinal ", ordinal, " out of range");
  DeviceMemory* m = memory_of(ordinal);
  if (!m->init_status.ok()) return m->init_status.with_context("cuda:" + std::to_string(ordinal));
  std::unique_ptr<CudaDevice> d(new CudaDevice(ordinal, m));
  // Scope::used has one bit per slot: the compute streams plus three.
  RETURN_IF_ERROR(d->init(std::clamp(compute_streams, 1, 32 - 3), completion));
  return d;
}

StatusOr<CudaDevice*> CudaDevice::shared(int ordinal) {
  if (ordinal < 0 || ordinal >= kMaxGpus) return InvalidArgument("cuda ordinal ", ordinal, " out of range");
  struct Opened {
    std::once_flag once;
    CudaDevice* device = nullptr;
    Status status;
  };
  static std::array<Opened, kMaxGpus> opened;
  Opened& o = opened[static_cast<size_t>(ordinal)];
  std::call_once(o.once, [&] {
    auto completion = completion_from_env();
    auto d = completion.ok() ? create(ordinal, kDefaultComputeStreams, *completion) : completion.status();
    if (d.ok())
      o.device = d->release();
    else
      o.status = d.status();
  });
  if (!o.device) return o.status;
  return o.device;
}

Status CudaDevice::init(int compute_streams, Completion completion) {
  CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
  cudaDeviceProp prop{};
  CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, ordinal_));
  compute_ = compute_streams;
  for (int i = 0; i < compute_ + 3; ++i) {
    auto slot = std::make_unique<StreamSlot>();
    slot->index = i;
    CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&slot->stream, cudaStreamNonBlocking));
    CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&slot->join, cudaEventDisableTiming));
    slots_.push_back(std::move(slot));
  }
  if (completion == Completion::kPoll)
    poller_ = std::make_unique<EventPoller>(ordinal_, static_cast<int>(slots_.size()));
  // cuBLAS and cuDNN are loaded now rather than inside the first MatMul or
  // Conv, whose measured time would otherwise carry the load. One that
  // cannot be loaded makes the kernels that need it decline, with the
  // reason, and their nodes run on a CPU; the device still works.
  (void)CublasApi::get();
  (void)CudnnApi::get();
  // Direct GPU-to-GPU copies where the hardware allows them.
  int count = 0;
  CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(&count));
  int peers = 0;
  for (int other = 0; other < count; ++other) {
    if (other == ordinal_) continue;
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, ordinal_, other) != cudaSuccess) {
      (void)cudaGetLastError();  // not left behind for the next launch check
      continue;
    }
    if (!can) continue;
    // Peer access is an optimisation: without it cudaMemcpyPeerAsync stages
    // through the host. So a refusal (already enabled by another CudaDevice
    // on this GPU, or too many peers on a large machine) is not fatal; the
    // error is cleared so a kernel's cudaGetLastError() does not see it.
    cudaError_t e = cudaDeviceEnablePeerAccess(other, 0);
    if (e != cudaSuccess) (void)cudaGetLastError();
    if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) continue;
    // Peer access covers cudaMalloc memory only; tensors live in the peer's
    // stream-ordered pool, which maps to this GPU only when asked.
    cudaMemPool_t other_pool = nullptr;
    cudaMemAccessDesc access{};
    access.location.type = cudaMemLocationTypeDevice;
    access.location.id = ordinal_;
    access.flags = cudaMemAccessFlagsProtReadWrite;
    if (cudaDeviceGetDefaultMemPool(&other_pool, other) != cudaSuccess ||
        cudaMemPoolSetAccess(other_pool, &access, 1) != cudaSuccess)
      (void)cudaGetLastError();
    ++peers;
  }
  info_.name = id().to_string();
  info_.memory_bytes = memory_->total;
  info_.kernel_kind = DeviceKind::kCuda;
  info_.threads = prop.multiProcessorCount;
  info_.description = std::string(prop.name) + ", " + std::to_string(prop.multiProcessorCount) + " SMs, sm_" +
                      std::to_string(prop.major) + std::to_string(prop.minor) + ", " + std::to_string(compute_) +
                      " compute streams" + (peers ? ", peer access to " + std::to_string(peers) + " GPUs" : "") +
                      (poller_ ? "" : ", completions by stream callback");
  return OkStatus();
}

CudaDevice::~CudaDevice() {
  (void)cudaSetDevice(ordinal_);
  for (auto& s : slots_)
    if (s->stream) (void)cudaStreamSynchronize(s->stream);
  poller_.reset();  // reports what it still watched: the streams are done
  for (auto& s : slots_) {
    if (!s->stream) continue;
    if (s->cublas) (void)cublas_api().Destroy(s->cublas);
    if (s->cudnn) (void)cudnn_api().Destroy(s->cudnn);
    if (s->join) (void)cudaEventDestroy(s->join);
    (void)cudaStreamDestroy(s->stream);
  }
  for (void* page : flag_pages_) (void)cudaFreeHost(page);
}

StatusOr<CudaDevice::Flag> CudaDevice::take_flag() {
  std::lock_guard<std::mutex> lock(flags_mu_);
  if (free_flags_.empty()) {
    // Mapped, so kernels write it directly and the completion reads it
    // without a CUDA call.
    int* host = nullptr;
    int* dev = nullptr;
    CUDA_RETURN_IF_ERROR(
        cudaHostAlloc(reinterpret_cast<void**>(&host), kFlagsPerPage * sizeof(int), cudaHostAllocMapped));
    flag_pages_.push_back(host);
    CUDA_RETURN_IF_ERROR(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0));
    for (int i = kFlagsPerPage - 1; i >= 0; --i) free_flags_.push_back({host + i, dev + i});
  }
  Flag f = free_flags_.back();
  free_flags_.pop_back();
  return f;
}

void CudaDevice::give_back_flag(Flag f) {
  if (!f.host) return;
  std::lock_guard<std::mutex> lock(flags_mu_);
  free_flags_.push_back(f);
}

int64_t CudaDevice::now_ns() const { return steady_ns(); }
uint64_t CudaDevice::bytes_in_use() const { return memory_->in_use.load(std::memory_order_relaxed); }
bool CudaDevice::in_task() const { return t_scope_ && t_scope_->device == this; }

void CudaDevice::mark_used(StreamSlot& slot) {
  if (!in_task()) return;
  t_scope_->used |= uint32_t{1} << slot.index;
  if (!t_scope_->compute) t_scope_->order = &slot;
}

StreamSlot* CudaDevice::launch_slot() {
  if (!in_task() || !t_scope_->compute) return nullptr;
  mark_used(*t_scope_->compute);
  return t_scope_->compute;
}

StatusOr<int*> CudaDevice::arm_error_flag(StreamSlot& slot, const char* what) {
  if (!in_task() || t_scope_->compute != &slot) return FailedPrecondition("error flag requested outside a CUDA task");
  if (!t_scope_->flag.host) {
    ASSIGN_OR_RETURN(t_scope_->flag, take_flag());
    // In stream order, so no earlier kernel can still be writing it.
    CUDA_RETURN_IF_ERROR(launch_zero_int(t_scope_->flag.dev, slot.stream));
    mark_used(slot);
  }
  t_scope_->error_what = what;
  return t_scope_->flag.dev;
}

StreamSlot& CudaDevice::least_busy_compute() {
  // Rotate the starting point so equally idle streams share the work.
  const int start = static_cast<int>(next_compute_.fetch_add(1, std::memory_order_relaxed) % static_cast<uint32_t>(compute_));
  StreamSlot* best = nullptr;
  for (int k = 0; k < compute_; ++k) {
    StreamSlot* s = slots_[static_cast<size_t>((start + k) % compute_)].get();
    if (!best || s->in_flight.load(std::memory_order_relaxed) < best->in_flight.load(std::memory_order_relaxed))
      best = s;
  }
  return *best;
}

StatusOr<Tensor> CudaDevice::allocate(DataType dtype, const Dims& dims) {
  if (!in_task()) {
    CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
    ASSIGN_OR_RETURN(Tensor t, allocate_on(sync(), dtype, dims));
    CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(sync().stream));
    return t;
  }
  // A copy task allocates on its copy stream (see copy()); kernels on theirs.
  StreamSlot& s = t_scope_->compute ? *t_scope_->compute : h2d();
  mark_used(s);
  return allocate_on(s, dtype, dims);
}

StatusOr<Tensor> CudaDevice::allocate_on(StreamSlot& slot, DataType dtype, const Dims& dims) {
  if (dtype == DataType::kString) return Unimplemented("string tensors cannot live on ", info_.name);
  ASSIGN_OR_RETURN(size_t bytes, checked_nbytes(dtype, dims));
  if (bytes > memory_->total)
    return ResourceExhausted("cannot allocate ", bytes, " bytes on ", info_.name, " (", memory_->total, " bytes in all)");
  void* p = nullptr;
  if (bytes > 0) CUDA_RETURN_IF_ERROR(cudaMallocAsync(&p, bytes, slot.stream));
  auto* b = new Buffer();
  b->data = p;
  b->bytes = bytes;
  b->space = memory_space();
  b->release = &CudaDevice::release_device;
  b->owner = memory_;
  memory_->in_use.fetch_add(bytes, std::memory_order_relaxed);
  return Tensor(dtype, dims, BufferRef(b));
}

void CudaDevice::release_device(Buffer* b) {
  auto* m = static_cast<DeviceMemory*>(b->owner);
  // Inside a task, free in that task's stream order: a kernel's scratch
  // may still be in use by the work it just launched, a copy's result by
  // the copy queued before a failure. Otherwise every user of the buffer
  // has completed (the run loop drops values after their consumers'
  // completion callbacks) and any stream of the GPU will do.
  cudaStream_t s = m->free_stream;
  if (t_scope_ && t_scope_->device->ordinal_ == m->ordinal && t_scope_->order) s = t_scope_->order->stream;
  if (b->data) {
    // Any thread may drop the last reference (the run loop, a caller's
    // thread, a task on another GPU): make the buffer's GPU current for the
    // free, as the runtime expects, and restore the caller's device, which
    // a task in progress relies on.
    int current = -1;
    const cudaError_t got = cudaGetDevice(&current);
    if (got != cudaSuccess) (void)cudaGetLastError();
    const bool other = got == cudaSuccess && current != m->ordinal;
    if (other) (void)cudaSetDevice(m->ordinal);
    // Nowhere to report a failure (the pool outlives it); clear it so that
    // the next kernel launch check on this thread does not report it.
    if (cudaFreeAsync(b->data, s) != cudaSuccess) (void)cudaGetLastError();
    if (other) (void)cudaSetDevice(current);
  }
  m->in_use.fetch_sub(b->bytes, std::memory_order_relaxed);
  delete b;
}

Status CudaDevice::copy_h2d(void* dst, const Tensor& src, const StreamSlot& slot) {
  const size_t n = src.nbytes();
  const cudaStream_t s = slot.stream;
  const size_t direct = slot.index >= compute_ ? kDirectBytesOnCopyStreams : kDirectBytes;
  if (n <= direct || PinnedPool::owns(src.buffer().get())) {
    CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src.raw(), n, cudaMemcpyHostToDevice, s));
    return OkStatus();
  }
  PinnedPool& pool = PinnedPool::instance();
  for (size_t off = 0; off < n; off += kStageChunk) {
    const size_t len = std::min(kStageChunk, n - off);
    int cls = 0;
    ASSIGN_OR_RETURN(void* block, pool.take(len, &cls));
    staging_memcpy(block, static_cast<const char*>(src.raw()) + off, len);
    auto* staged = new Staged{block, cls};
    cudaError_t e = cudaMemcpyAsync(static_cast<char*>(dst) + off, block, len, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaLaunchHostFunc(s, &give_back_staging, staged);
    if (e != cudaSuccess) {
      // The block may still be read by the copy just queued: it goes back
      // with the blocks held for the caller (enqueue() or copy()), once the
      // work queued so far is done. Only if none is held is it kept out.
      delete staged;
      (void)PinnedPool::hold(block, cls);
      return to_status(e, "staged host-to-device copy", __FILE__, __LINE__);
    }
  }
  return OkStatus();
}

StatusOr<Tensor> CudaDevice::copy(const Tensor& src, MemorySpace dst_space) {
  if (src.dtype() == DataType::kString) return Unimplemented("string tensors cannot be copied to or from ", info_.name);
  const MemorySpace me = memory_space();
  const MemorySpace from = src.space();
  const bool into_me = dst_space == me && (from.is_host_accessible() || from.kind == DeviceKind::kCuda);
  if (!into_me && !(from == me && dst_space.is_host_accessible()))
    return Unimplemented(info_.name, " cannot copy ", from.to_string(), " -> ", dst_space.to_string());
  Tensor out;
  if (in_task()) {
    // A kernel task copies on its compute stream: its launches read or
    // write the copy in that stream's order, and the frees of its scratch
    // are ordered there too (a copy stream would race both until the join
    // at the end of the task). A copy task uses the copy stream of its
    // direction. On a failure `out` is freed in the same stream's order
    // (Scope::order), after whatever was queued into it.
    StreamSlot& slot = t_scope_->compute ? *t_scope_->compute : into_me ? h2d() : d2h();
    RETURN_IF_ERROR(copy_on(slot, src, dst_space, out));
    return out;
  }
  CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
  PinnedPool::Held held;
  PinnedPool::Held* outer = PinnedPool::hold_releases(&held);
  Status st = copy_on(sync(), src, dst_space, out);
  PinnedPool::hold_releases(outer);
  // Wait even after a failure: work queued before it may still write `out`
  // or read a staging block, and `out` is freed (from any stream) once this
  // returns.
  Status waited = to_status(cudaStreamSynchronize(sync().stream), "cudaStreamSynchronize", __FILE__, __LINE__);
  // A faulted stream may not have finished with them: they stay out.
  if (waited.ok()) PinnedPool::instance().give_back_all(held);
  RETURN_IF_ERROR(st);
  RETURN_IF_ERROR(waited);
  return out;
}

Status CudaDevice::copy_on(StreamSlot& slot, const Tensor& src, MemorySpace dst_space, Tensor& out) {
  const MemorySpace me = memory_space();
  const MemorySpace from = src.space();
  const size_t n = src.nbytes();
  mark_used(slot);
  if (dst_space == me) {
    // Into this GPU: from the host, from itself, or pulled from a peer.
    ASSIGN_OR_RETURN(out, allocate_on(slot, src.dtype(), src.dims()));
    if (n == 0) return OkStatus();
    if (from == me) {
      CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out.raw(), src.raw(), n, cudaMemcpyDeviceToDevice, slot.stream));
    } else if (from.kind == DeviceKind::kCuda) {
      CUDA_RETURN_IF_ERROR(cudaMemcpyPeerAsync(out.raw(), ordinal_, src.raw(), from.index, n, slot.stream));
    } else {
      RETURN_IF_ERROR(copy_h2d(out.raw(), src, slot));
    }
    return OkStatus();
  }
  // Back to the host, into pinned memory so the copy is truly async.
  ASSIGN_OR_RETURN(BufferRef b, PinnedPool::instance().allocate(n, dst_space));
  out = Tensor(src.dtype(), src.dims(), std::move(b));
  if (n > 0) CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out.raw(), src.raw(), n, cudaMemcpyDeviceToHost, slot.stream));
  return OkStatus();
}

void CudaDevice::enqueue(DeviceTask* task, CompletionSink* sink) {
  std::unique_lock<std::mutex> lock(launch_mu_);
  StreamSlot* compute = task->queue == DeviceTask::Queue::kCompute ? &least_busy_compute() : nullptr;
  Scope scope{this, compute, 0, t_scope_, nullptr, Flag{}, compute};
  t_scope_ = &scope;
  const int64_t begin = now_ns();
  // Pinned buffers the task drops may be the target or source of a copy it
  // queued: they return to the pool when its work is done, not at once.
  PinnedPool::Held held;
  PinnedPool::Held* outer_held = PinnedPool::hold_releases(&held);
  Status st = to_status(cudaSetDevice(ordinal_), "cudaSetDevice", __FILE__, __LINE__);
  // Kernels check their launches with cudaGetLastError(), which also
  // returns any earlier failure on this thread that was already reported
  // or tolerated (an allocation that failed, a refused peer mapping): start
  // each task from a clean slate so it is not blamed for them. A sticky
  // device fault stays and is still reported.
  if (st.ok()) (void)cudaGetLastError();
  if (st.ok()) st = task->execute(*this);
  t_scope_ = scope.prev;
  PinnedPool::hold_releases(outer_held);
  task->status = std::move(st);
  // GPU work is timed from the end of its launch: the host time launching
  // took is the run loop's to measure (its issue cost), not the kernel's.
  task->start_ns = scope.used != 0 ? now_ns() : begin;
  if (scope.used != 0) {
    StreamSlot& main = scope.compute && (scope.used >> scope.compute->index & 1)
                           ? *scope.compute
                           : *slots_[static_cast<size_t>(std::countr_zero(scope.used))];
    Status f =
        finish(task, sink, main, scope.used, &main == scope.compute ? scope.error_what : nullptr, scope.flag, held);
    if (f.ok()) return;  // the completion completes it
    // No callback: wait here, so nothing the work reads is freed under it.
    bool drained = true;
    for (auto& s : slots_)
      if (scope.used >> s->index & 1) drained = cudaStreamSynchronize(s->stream) == cudaSuccess && drained;
    // A faulted stream may not be done with them: they stay out.
    if (!drained) held.clear();
    if (drained) give_back_flag(scope.flag);
    if (task->status.ok()) task->status = f;
  } else {
    give_back_flag(scope.flag);  // taken, but its zeroing was never queued
  }
  PinnedPool::instance().give_back_all(held);
  lock.unlock();
  task->end_ns = now_ns();
  sink->on_complete(task);  // nothing reached the GPU (a view, an empty tensor, an error)
}

Status CudaDevice::finish(DeviceTask* task, CompletionSink* sink, StreamSlot& main, uint32_t used,
                          const char* error_what, Flag flag, PinnedPool::Held& held) {
  for (auto& s : slots_) {
    if (s.get() == &main || !(used >> s->index & 1)) continue;
    CUDA_RETURN_IF_ERROR(cudaEventRecord(s->join, s->stream));
    CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(main.stream, s->join, 0));
  }
  // The completion owns `held` and `flag` from here: it may run before
  // this returns.
  auto* p = new Pending{task, sink, &main, ordinal_, error_what, flag, this, std::move(held)};
  main.in_flight.fetch_add(1, std::memory_order_relaxed);
  // A polled event, or cudaStreamAddCallback rather than cudaLaunchHostFunc:
  // either reports a device fault, so a run fails instead of hanging.
  Status st = poller_ ? poller_->watch(main.stream, main.index, &CudaDevice::on_stream_done, p)
                      : to_status(cudaStreamAddCallback(main.stream, &CudaDevice::on_stream_done, p, 0),
                                  "cudaStreamAddCallback", __FILE__, __LINE__);
  if (!st.ok()) {
    main.in_flight.fetch_sub(1, std::memory_order_relaxed);
    held = std::move(p->held);
    delete p;
  }
  return st;
}

void CUDART_CB CudaDevice::on_stream_done(cudaStream_t, cudaError_t status, void* pending) {
  // Runs on a CUDA driver thread or the poller's: no CUDA calls here.
  auto* p = static_cast<Pending*>(pending);
  DeviceTask* t = p->task;
  const int64_t end = steady_ns();
  // The task started when it was launched or when the stream finished the
  // task before it, whichever came later (callbacks run in stream order).
  t->start_ns = std::max(t->start_ns, p->slot->last_end_ns);
  t->end_ns = end;
  p->slot->last_end_ns = end;
  if (status != cudaSuccess && t->status.ok())
    t->status = RuntimeError("cuda:", p->ordinal, ": the GPU reported error ", static_cast<int>(status),
                             " while running this task");
  const int flagged = p->error_what ? *static_cast<volatile int*>(p->flag.host) : 0;
  if (flagged && t->status.ok()) t->status = OutOfRange(p->error_what);
  p->slot->in_flight.fetch_sub(1, std::memory_order_relaxed);
  // The task's work is done: the pinned blocks it dropped may be handed out
  // again (no CUDA call). After a fault they stay out: nothing says whether
  // a copy of the task still uses them.
  if (status == cudaSuccess) {
    PinnedPool::instance().give_back_all(p->held);
    p->device->give_back_flag(p->flag);
  }
  CompletionSink* sink = p->sink;
  delete p;
  sink->on_complete(t);
}

}  // namespace sy::cuda
