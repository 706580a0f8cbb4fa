#include "devices/tensor.h"

#include <cstring>
#include <limits>

#include "devices/host_allocator.h"

namespace sy {

StatusOr<size_t> checked_nbytes(DataType dtype, const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("negative dimension in shape ", dims.to_string());
    if (!checked_mul(n, d, &n)) return ResourceExhausted("shape ", dims.to_string(), " has too many elements");
  }
  int64_t bytes;
  if (!checked_mul(n, static_cast<int64_t>(dtype_size(dtype)), &bytes))
    return ResourceExhausted("shape ", dims.to_string(), " is too large");
  return static_cast<size_t>(bytes);
}

StatusOr<Tensor> Tensor::host(DataType dtype, const Dims& dims) {
  ASSIGN_OR_RETURN(size_t bytes, checked_nbytes(dtype, dims));
  ASSIGN_OR_RETURN(BufferRef buf, HostAllocator::host().allocate(bytes, dtype, dims.numel()));
  return Tensor(dtype, dims, std::move(buf));
}

namespace {
struct Borrowed {
  Buffer header;
  std::shared_ptr<const TensorData> keep;
};
void release_borrowed(Buffer* b) { delete static_cast<Borrowed*>(b->owner); }
}  // namespace

Tensor Tensor::borrow(std::shared_ptr<const TensorData> data) {
  auto* holder = new Borrowed();
  Buffer& b = holder->header;
  const TensorData& d = *data;
  b.data = d.dtype == DataType::kString ? const_cast<std::string*>(d.strings.data())
                                          : static_cast<void*>(const_cast<uint8_t*>(d.bytes.data()));
  b.bytes = d.dtype == DataType::kString ? d.strings.size() * sizeof(std::string) : d.bytes.size();
  b.space = kHostSpace;
  b.release = &release_borrowed;
  b.owner = holder;
  DataType dt = d.dtype;
  Dims dims = d.dims;
  holder->keep = std::move(data);
  return Tensor(dt, std::move(dims), BufferRef(&b));
}

StatusOr<Tensor> Tensor::clone_to_host() const {
  ASSIGN_OR_RETURN(Tensor t, Tensor::host(dtype_, dims_));
  t.copy_elements_from(*this);
  return t;
}

void Tensor::copy_elements_from(const Tensor& src) {
  if (dtype_ == DataType::kString) {
    const auto* s = src.data<std::string>();
    auto* d = data<std::string>();
    for (int64_t i = 0; i < numel(); ++i) d[i] = s[i];
  } else if (nbytes()) {
    std::memcpy(raw(), src.raw(), nbytes());
  }
}

int64_t Tensor::int_at(int64_t i) const {
  int64_t out = 0;
  const void* p = raw();
  visit_numeric(dtype_, [&](auto tag) {
    using T = decltype(tag);
    out = static_cast<int64_t>(static_cast<const T*>(p)[i]);
  });
  return out;
}

double Tensor::double_at(int64_t i) const {
  double out = 0;
  const void* p = raw();
  visit_numeric(dtype_, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
      out = static_cast<float>(static_cast<const T*>(p)[i]);
    else
      out = static_cast<double>(static_cast<const T*>(p)[i]);
  });
  return out;
}

std::string Tensor::describe() const { return std::string(dtype_name(dtype_)) + dims_.to_string(); }

}  // namespace sy
