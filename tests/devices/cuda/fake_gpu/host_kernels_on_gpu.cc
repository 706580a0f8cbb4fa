#include "tests/devices/cuda/fake_gpu/host_kernels_on_gpu.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "devices/cpu/cpu_kernels.h"
#include "devices/cuda/cuda_launch.h"
#include "tests/devices/cuda/fake_gpu/fake_cuda.h"

namespace sy::fake_cuda {
namespace {

// KernelDef::factory is a plain function pointer, so each mirrored CUDA
// kernel gets a factory of its own from this table (one per index).
constexpr size_t kMaxKernels = 512;

struct Mirror {
  std::vector<const KernelDef*> defs;  // the real CUDA kernels, by factory index
  std::unique_ptr<Device> host;        // where the wrapped CPU kernels compute
  KernelRegistry all;                  // the CPU kernels, which compute, and the wrapped ones
};

const Mirror& mirror();

// What a launched kernel does when its stream reaches it.
struct Work {
  std::string node;
  std::vector<std::pair<const void*, size_t>> reads;
  std::vector<std::pair<void*, std::vector<unsigned char>>> writes;
};

void CUDART_CB run_work(void* p) {
  std::unique_ptr<Work> w(static_cast<Work*>(p));
  for (const auto& [ptr, n] : w->reads) check_device_range(ptr, n, (w->node + ": input").c_str());
  for (auto& [ptr, bytes] : w->writes) {
    check_device_range(ptr, bytes.size(), (w->node + ": output").c_str());
    std::memcpy(host_view(ptr), bytes.data(), bytes.size());
  }
}

void release_alias(Buffer* b) { delete b; }

// The tensor's memory seen as host memory (the fake GPU's memory is, behind
// its device address), not owning it: it lives only while the kernel
// computes.
Tensor host_alias(const Tensor& t) {
  auto* b = new Buffer();
  b->data = host_view(t.raw());
  b->bytes = t.nbytes();
  b->space = kHostSpace;
  b->release = &release_alias;
  return Tensor(t.dtype(), t.dims(), BufferRef(b));
}

class OnFakeGpu final : public Kernel {
 public:
  explicit OnFakeGpu(const KernelDef& real) : real_(real) {}
  Status init(const Node& node) override {
    // The real GPU kernel declines what it does not implement, and the node
    // is then placed as it would be with the real backend.
    RETURN_IF_ERROR(real_.factory()->init(node));
    const KernelDef* cpu = mirror().all.find(node.domain, node.op_type, node.opset, DeviceKind::kCpu);
    if (!cpu) return Unimplemented(node.describe(), ": no CPU kernel to stand in for the GPU's");
    inner_ = cpu->factory();
    return inner_->init(node);
  }
  Status compute(KernelContext& ctx) const override;

 private:
  const KernelDef& real_;
  std::unique_ptr<Kernel> inner_;
};

Status OnFakeGpu::compute(KernelContext& ctx) const {
  ASSIGN_OR_RETURN(cuda::Launch launch, cuda::current_launch(ctx));
  auto work = std::make_unique<Work>();
  work->node = ctx.node().describe();
  const MemorySpace gpu = ctx.device().memory_space();
  std::vector<RuntimeValue> in(ctx.num_inputs());
  std::vector<const RuntimeValue*> in_ptrs(ctx.num_inputs(), nullptr);
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    const RuntimeValue& v = ctx.input_value(i);
    // What the real kernel declines at run time, when the plan did not know
    // the type: the node then runs on a CPU.
    if (!v.is_tensor()) return Unimplemented(work->node, ": input ", i, " is not a tensor");
    const Tensor& t = v.tensor();
    if (i == 0 && !real_.types.empty() &&
        std::find(real_.types.begin(), real_.types.end(), t.dtype()) == real_.types.end())
      return Unimplemented(work->node, ": ", dtype_name(t.dtype()), " is not a type of the GPU kernel");
    in[i] = v;
    if (t.space().kind == DeviceKind::kCuda) {
      // Only shape-only inputs may live on another GPU; their data is not read.
      if (t.space() == gpu) {
        check_device_range(t.raw(), t.nbytes(), (work->node + ": input at launch").c_str());
        work->reads.emplace_back(t.raw(), t.nbytes());
      }
      in[i] = host_alias(t);
    }
    in_ptrs[i] = &in[i];
  }
  std::vector<RuntimeValue> out(ctx.num_outputs());
  std::vector<RuntimeValue*> out_ptrs(ctx.num_outputs(), nullptr);
  for (size_t i = 0; i < ctx.num_outputs(); ++i)
    if (ctx.output_wanted(i)) out_ptrs[i] = &out[i];
  KernelContext host_ctx(ctx.node(), *mirror().host, in_ptrs, out_ptrs);
  RETURN_IF_ERROR(inner_->compute(host_ctx));
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    if (!out_ptrs[i] || out[i].is_none()) continue;
    if (!out[i].is_tensor()) return Unimplemented(work->node, ": output ", i, " is not a tensor");
    const Tensor& r = out[i].tensor();
    if (r.dtype() == DataType::kString) return Internal(work->node, ": a string tensor reached the GPU");
    ASSIGN_OR_RETURN(Tensor * dst, ctx.allocate_output(i, r.dtype(), r.dims()));
    if (r.nbytes() == 0) continue;
    const auto* bytes = static_cast<const unsigned char*>(r.raw());
    work->writes.emplace_back(dst->raw(), std::vector<unsigned char>(bytes, bytes + r.nbytes()));
  }
  CUDA_RETURN_IF_ERROR(cudaLaunchHostFunc(launch.stream, &run_work, work.get()));
  (void)work.release();  // run_work owns it
  return OkStatus();
}

template <size_t I>
std::unique_ptr<Kernel> make_on_fake_gpu() {
  return std::make_unique<OnFakeGpu>(*mirror().defs[I]);
}

template <size_t... I>
constexpr std::array<KernelFactory, sizeof...(I)> factories(std::index_sequence<I...>) {
  return {&make_on_fake_gpu<I>...};
}

const Mirror& mirror() {
  static const Mirror* m = [] {
    auto* m = new Mirror();
    register_cpu_kernels(m->all);
    m->host = std::make_unique<CpuDevice>();
    static constexpr auto kFactories = factories(std::make_index_sequence<kMaxKernels>());
    for (const KernelDef* d : KernelRegistry::builtin().defs(DeviceKind::kCuda)) {
      if (m->defs.size() == kMaxKernels) {
        std::fprintf(stderr, "fake GPU: more than %zu CUDA kernels; raise kMaxKernels\n", kMaxKernels);
        std::abort();
      }
      KernelDef gpu = *d;
      gpu.factory = kFactories[m->defs.size()];
      m->defs.push_back(d);
      m->all.add(std::move(gpu));
    }
    return m;
  }();
  return *m;
}

}  // namespace

const KernelRegistry& registry_with_host_kernels_on_gpu() { return mirror().all; }

}  // namespace sy::fake_cuda
