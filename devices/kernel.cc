#include "devices/kernel.h"

namespace sy {

const Tensor& KernelContext::input(size_t i) const {
  static const Tensor kEmpty{};
  if (!has_input(i) || !inputs_[i]->is_tensor()) return kEmpty;
  return inputs_[i]->tensor();
}

const RuntimeValue& KernelContext::input_value(size_t i) const {
  static const RuntimeValue kNone{};
  if (i >= inputs_.size() || !inputs_[i]) return kNone;
  return *inputs_[i];
}

StatusOr<Tensor*> KernelContext::allocate_output(size_t i, DataType dtype, const Dims& dims) {
  ASSIGN_OR_RETURN(Tensor t, device_.allocate(dtype, dims));
  if (!output_wanted(i)) {
    if (scratch_.size() <= i) scratch_.resize(i + 1);
    scratch_[i] = std::move(t);
    return &scratch_[i];
  }
  *outputs_[i] = RuntimeValue(std::move(t));
  return &outputs_[i]->mutable_tensor();
}

StatusOr<Tensor*> KernelContext::allocate_output_over(size_t i, size_t from, DataType dtype, const Dims& dims) {
  if (input_donated(from) && output_wanted(i) && inputs_[from]->is_tensor()) {
    const Tensor& in = inputs_[from]->tensor();
    const BufferRef& buf = in.buffer();
    const int64_t numel = dims.numel();
    const size_t size = dtype_size(dtype);
    if (buf && buf->num_strings == 0 && dtype != DataType::kString && size > 0 &&
        buf->space == device_.memory_space() && numel >= 0 && in.byte_offset() <= buf->bytes &&
        static_cast<uint64_t>(numel) <= (buf->bytes - in.byte_offset()) / size) {
      *outputs_[i] = RuntimeValue(Tensor(dtype, dims, buf, in.byte_offset()));
      return &outputs_[i]->mutable_tensor();
    }
  }
  return allocate_output(i, dtype, dims);
}

void KernelContext::set_output(size_t i, RuntimeValue v) {
  if (output_wanted(i)) *outputs_[i] = std::move(v);
}

Status KernelContext::resume_after(std::vector<Tensor> carry) {
  if (!resume_) return FailedPrecondition(node_.describe(), ": this caller cannot resume a kernel");
  if (resume_->resumed) return FailedPrecondition(node_.describe(), ": a resumed kernel asked to resume again");
  resume_->requested = true;
  resume_->carry = std::move(carry);
  return OkStatus();
}

const std::vector<Tensor>& KernelContext::carried() const {
  static const std::vector<Tensor> kNone;
  return resume_ ? resume_->carry : kNone;
}

}  // namespace sy
