// CUDA kernels whose output size depends on the data: NonZero. Only the
// device knows how many elements are non-zero, and the run loop never
// waits for a device, so the kernel runs in two launches
// (KernelContext::resume_after): the first counts and copies the count to
// pinned host memory, and the loop goes on with other nodes; once the copy
// has landed, the second allocates [rank, count] and writes the
// coordinates. Only the count (8 bytes) crosses to the host, where a CPU
// NonZero would need the whole input.
//
// Thread-safety: compute() is const and keeps no state; what passes from
// one launch to the other is in the context's carried tensors.
#include <algorithm>

#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/select_launch.h"

namespace sy::cuda {
namespace {

// The bits that make an element of `t` non-zero: all of them but a float's
// sign, so that -0 is zero and NaN is not, as `v != 0` has it on the CPU.
uint64_t nonzero_mask(DataType t) {
  switch (t) {
    case DataType::kFloat:
      return 0x7fffffffu;
    case DataType::kDouble:
      return 0x7fffffffffffffffu;
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return 0x7fffu;
    default:
      return ~uint64_t{0};
  }
}

class NonZeroKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("NonZero: input is missing");
    // A scalar reports one coordinate row, like the CPU kernel.
    const int64_t rows = std::max<int64_t>(static_cast<int64_t>(x.rank()), 1);
    if (x.numel() == 0) return ctx.allocate_output(0, DataType::kInt64, Dims{rows, 0}).status();
    if (rows > kNonZeroMaxRank) return Unimplemented("CUDA NonZero: rank ", rows, " > ", kNonZeroMaxRank);
    NonZeroMeta m;
    m.unit = static_cast<int>(dtype_size(x.dtype()));
    m.mask = nonzero_mask(x.dtype());
    m.n = x.numel();
    m.chunks = (m.n + kNonZeroChunk - 1) / kNonZeroChunk;
    m.rank = static_cast<int>(rows);
    for (int d = 0; d < m.rank; ++d) m.dims[d] = x.rank() == 0 ? 1 : x.dim(static_cast<size_t>(d));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    if (!ctx.resumed()) {
      ASSIGN_OR_RETURN(Tensor offsets, ctx.device().allocate(DataType::kInt64, Dims{m.chunks}));
      ASSIGN_OR_RETURN(Tensor total, ctx.device().allocate(DataType::kInt64, Dims{1}));
      CUDA_RETURN_IF_ERROR(launch_nonzero_count(m, x.raw(), offsets.data<int64_t>(), total.data<int64_t>(), l.stream));
      ASSIGN_OR_RETURN(Tensor count, ctx.device().copy(total, kHostSpace));
      return ctx.resume_after({std::move(offsets), std::move(count)});
    }
    const std::vector<Tensor>& carried = ctx.carried();
    if (carried.size() != 2) return Internal("CUDA NonZero resumed without its first launch's results");
    const int64_t nnz = carried[1].data<int64_t>()[0];
    if (nnz < 0 || nnz > m.n) return Internal("CUDA NonZero counted ", nnz, " non-zero elements of ", m.n);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kInt64, Dims{rows, nnz}));
    CUDA_RETURN_IF_ERROR(
        launch_nonzero_write(m, x.raw(), carried[0].data<int64_t>(), nnz, y->data<int64_t>(), l.stream));
    return OkStatus();
  }
};

}  // namespace

void register_cuda_select_kernels(KernelRegistry& r) {
  KernelDef d;
  d.op = "NonZero";
  d.since_version = 9;
  d.device = DeviceKind::kCuda;
  d.types = {DataType::kFloat,  DataType::kDouble, DataType::kFloat16, DataType::kBFloat16, DataType::kBool,
             DataType::kInt8,   DataType::kInt16,  DataType::kInt32,   DataType::kInt64,    DataType::kUInt8,
             DataType::kUInt16, DataType::kUInt32, DataType::kUInt64};
  d.data_dependent_shape = true;
  d.factory = &make_kernel<NonZeroKernel>;
  r.add(std::move(d));
}

}  // namespace sy::cuda
