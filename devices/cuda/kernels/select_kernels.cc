// CUDA kernels whose output size depends on the data: NonZero and Unique.
// Only the device knows how many elements are non-zero, or distinct, and
// the run loop never waits for a device, so each kernel runs in two
// launches (KernelContext::resume_after). NonZero's first launch counts
// and copies the count to pinned host memory, and the loop goes on with
// other nodes; once the copy has landed, the second allocates
// [rank, count] and writes the coordinates. Only the count (8 bytes)
// crosses to the host, where a CPU NonZero would need the whole input.
// Unique likewise: the first launch sorts and counts the groups of equal
// elements (or slices, with an axis), the second writes them.
//
// Thread-safety: compute() is const and keeps no state; what passes from
// one launch to the other is in the context's carried tensors.
#include <algorithm>
#include <cstdint>

#include "devices/cpu/kernels/index_checks.h"
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

// The element types both kernels take: every numeric one of 1 to 8 bytes
// and bool (not complex, not strings).
const std::vector<DataType>& select_types() {
  static const std::vector<DataType> kTypes = {
      DataType::kFloat,  DataType::kDouble, DataType::kFloat16, DataType::kBFloat16, DataType::kBool,
      DataType::kInt8,   DataType::kInt16,  DataType::kInt32,   DataType::kInt64,    DataType::kUInt8,
      DataType::kUInt16, DataType::kUInt32, DataType::kUInt64};
  return kTypes;
}

// Unimplemented (so the node runs on the CPU) for a type reaching the
// kernel untyped that it does not take.
Status check_type(const char* op, DataType t) {
  const auto& types = select_types();
  if (std::find(types.begin(), types.end(), t) == types.end())
    return Unimplemented("CUDA ", op, ": no kernel for ", dtype_name(t));
  return OkStatus();
}

class NonZeroKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("NonZero: input is missing");
    RETURN_IF_ERROR(check_type("NonZero", x.dtype()));
    // A scalar is counted as a [1] tensor, and its output has no rows (the
    // CPU kernel's [0, nnz]).
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
    ASSIGN_OR_RETURN(const int64_t nnz, carried_size(ctx, 2, 0, m.n, "NonZero"));
    const std::vector<Tensor>& carried = ctx.carried();
    if (x.rank() == 0) return ctx.allocate_output(0, DataType::kInt64, Dims{0, nnz}).status();
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kInt64, Dims{rows, nnz}));
    CUDA_RETURN_IF_ERROR(
        launch_nonzero_write(m, x.raw(), carried[0].data<int64_t>(), nnz, y->data<int64_t>(), l.stream));
    return OkStatus();
  }
};

// Unique of elements, or with an axis of slices of up to kUniqueMaxSlice
// elements; longer slices run on the CPU.
class UniqueKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    attrs_ = tensor_ops::UniqueAttrs::parse(node);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Unique: input is missing");
    RETURN_IF_ERROR(check_type("Unique", x.dtype()));
    ASSIGN_OR_RETURN(const tensor_ops::UniqueShape shape, tensor_ops::unique_shape(x, attrs_));
    const int64_t n = shape.items;
    if (n == 0) return allocate_outputs(ctx, x, shape, 0).status();
    if (n > INT32_MAX) return Unimplemented("CUDA Unique: ", n, " items, past CUB's sort");
    if (shape.outer * shape.inner > kUniqueMaxSlice)
      return Unimplemented("CUDA Unique: slices of ", shape.outer * shape.inner, " elements (more than ",
                           kUniqueMaxSlice, ") run on the CPU");
    UniqueMeta m;
    m.unit = static_cast<int>(dtype_size(x.dtype()));
    m.kind = dtype_is_float(x.dtype()) ? 2 : dtype_is_signed(x.dtype()) ? 1 : 0;
    m.inf = x.dtype() == DataType::kFloat     ? 0x7f800000u
            : x.dtype() == DataType::kDouble  ? 0x7ff0000000000000u
            : x.dtype() == DataType::kFloat16 ? 0x7c00u
                                              : 0x7f80u;  // bfloat16
    m.n = n;
    m.chunks = (n + kNonZeroChunk - 1) / kNonZeroChunk;
    m.outer = shape.outer;
    m.inner = shape.inner;
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    Device& d = ctx.device();
    if (!ctx.resumed()) {
      size_t bytes = 0;
      CUDA_RETURN_IF_ERROR(unique_group_workspace_bytes(m, &bytes));
      ASSIGN_OR_RETURN(Tensor work, d.allocate(DataType::kUInt8, Dims{static_cast<int64_t>(bytes)}));
      ASSIGN_OR_RETURN(Tensor sorted_pos, d.allocate(DataType::kInt64, Dims{n}));
      ASSIGN_OR_RETURN(Tensor heads, d.allocate(DataType::kUInt8, Dims{n}));
      ASSIGN_OR_RETURN(Tensor offsets, d.allocate(DataType::kInt64, Dims{m.chunks}));
      ASSIGN_OR_RETURN(Tensor total, d.allocate(DataType::kInt64, Dims{1}));
      CUDA_RETURN_IF_ERROR(launch_unique_group(m, x.raw(), work.raw(), bytes, sorted_pos.data<int64_t>(),
                                               heads.data<uint8_t>(), offsets.data<int64_t>(), total.data<int64_t>(),
                                               l.stream));
      ASSIGN_OR_RETURN(Tensor count, d.copy(total, kHostSpace));
      return ctx.resume_after({std::move(sorted_pos), std::move(heads), std::move(offsets), std::move(count)});
    }
    ASSIGN_OR_RETURN(const int64_t u, carried_size(ctx, 4, 1, n, "Unique"));
    const std::vector<Tensor>& carried = ctx.carried();
    ASSIGN_OR_RETURN(Outputs o, allocate_outputs(ctx, x, shape, u));
    size_t bytes = 0;
    CUDA_RETURN_IF_ERROR(unique_write_workspace_bytes(u, attrs_.sorted, &bytes));
    ASSIGN_OR_RETURN(Tensor work, d.allocate(DataType::kUInt8, Dims{static_cast<int64_t>(bytes)}));
    CUDA_RETURN_IF_ERROR(launch_unique_write(m, x.raw(), carried[0].data<int64_t>(), carried[1].data<uint8_t>(),
                                             carried[2].data<int64_t>(), u, attrs_.sorted, work.raw(), bytes,
                                             o.y->raw(), o.indices, o.inverse, o.counts, l.stream));
    return OkStatus();
  }

 private:
  struct Outputs {
    Tensor* y = nullptr;
    int64_t *indices = nullptr, *inverse = nullptr, *counts = nullptr;
  };
  // y (x's dims with u along the axis, or [u]), and as the node names them
  // indices [u], inverse [items], counts [u].
  static StatusOr<Outputs> allocate_outputs(KernelContext& ctx, const Tensor& x, const tensor_ops::UniqueShape& s,
                                            int64_t u) {
    Outputs o;
    Dims y_dims{u};
    if (s.axis >= 0) {
      y_dims = x.dims();
      y_dims[static_cast<size_t>(s.axis)] = u;
    }
    ASSIGN_OR_RETURN(o.y, ctx.allocate_output(0, x.dtype(), y_dims));
    int64_t** rest[] = {&o.indices, &o.inverse, &o.counts};
    for (size_t i = 1; i < 4 && i < ctx.num_outputs(); ++i) {
      if (!ctx.output_wanted(i)) continue;
      ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output(i, DataType::kInt64, Dims{i == 2 ? s.items : u}));
      *rest[i - 1] = t->data<int64_t>();
    }
    return o;
  }

  tensor_ops::UniqueAttrs attrs_;
};

}  // namespace

void register_cuda_select_kernels(KernelRegistry& r) {
  add_cuda_data_dependent_kernel<NonZeroKernel>(r, "NonZero", 9, select_types());
  add_cuda_data_dependent_kernel<UniqueKernel>(r, "Unique", 11, select_types());
}

}  // namespace sy::cuda
