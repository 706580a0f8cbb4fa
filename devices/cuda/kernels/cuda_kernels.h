// Registration of the built-in CUDA kernels, one function per file group.
// register_cuda_kernels() (cuda_backend.cc) calls them all.
#pragma once

#include <climits>
#include <cstdint>
#include <vector>

#include "devices/kernel_registry.h"

namespace sy::cuda {

// A CUDA KernelDef for ai.onnx `op`, opsets [since, end]. `types`
// restricts the first input's element type (empty: any); `host_inputs` has
// bit i set when input i must be in host memory (shape tensors, axes, K).
template <typename K>
KernelDef cuda_kernel_def(const char* op, int since, std::vector<DataType> types, uint64_t host_inputs = 0,
                          int end = INT_MAX) {
  KernelDef d;
  d.domain = "";
  d.op = op;
  d.since_version = since;
  d.end_version = end;
  d.device = DeviceKind::kCuda;
  d.types = std::move(types);
  d.host_inputs = host_inputs;
  d.factory = &make_kernel<K>;
  return d;
}

// Adds cuda_kernel_def(...) to `r`.
template <typename K>
void add_cuda_kernel(KernelRegistry& r, const char* op, int since, std::vector<DataType> types,
                     uint64_t host_inputs = 0, int end = INT_MAX) {
  r.add(cuda_kernel_def<K>(op, since, std::move(types), host_inputs, end));
}

// Adds a kernel whose output size it finds on the device, so it runs in two
// launches (KernelDef::data_dependent_shape, KernelContext::resume_after).
template <typename K>
void add_cuda_data_dependent_kernel(KernelRegistry& r, const char* op, int since, std::vector<DataType> types,
                                    uint64_t host_inputs = 0) {
  KernelDef d = cuda_kernel_def<K>(op, since, std::move(types), host_inputs);
  d.data_dependent_shape = true;
  r.add(std::move(d));
}

// Float16 or bfloat16: the types the kernels with separate 16-bit launchers
// (reductions, norms, softmax) hand to them, computing in float.
inline bool is_16bit_float(DataType t) { return t == DataType::kFloat16 || t == DataType::kBFloat16; }

void register_cuda_elementwise_kernels(KernelRegistry& r);  // elementwise_kernels.cc
void register_cuda_movement_kernels(KernelRegistry& r);     // movement_kernels.cc
void register_cuda_blas_dnn_kernels(KernelRegistry& r);     // blas_dnn_kernels.cc
void register_cuda_reduction_kernels(KernelRegistry& r);    // reduction_kernels.cc
void register_cuda_index_kernels(KernelRegistry& r);        // index_kernels.cc
void register_cuda_resize_kernels(KernelRegistry& r);       // resize_kernels.cc
void register_cuda_attention_kernels(KernelRegistry& r);    // attention_kernels.cc
void register_cuda_quant_kernels(KernelRegistry& r);        // quant_kernels.cc
void register_cuda_rnn_kernels(KernelRegistry& r);          // rnn_kernels.cc
void register_cuda_einsum_kernels(KernelRegistry& r);       // einsum_kernels.cc
void register_cuda_grid_sample_kernels(KernelRegistry& r);  // grid_sample_kernels.cc
void register_cuda_loss_kernels(KernelRegistry& r);         // loss_kernels.cc
void register_cuda_int_matmul_kernels(KernelRegistry& r);   // int_matmul_kernels.cc (and the integer convolutions)
void register_cuda_signal_kernels(KernelRegistry& r);       // signal_kernels.cc
void register_cuda_detection_kernels(KernelRegistry& r);    // detection_kernels.cc
void register_cuda_fold_kernels(KernelRegistry& r);         // fold_kernels.cc (Col2Im, MaxUnpool)
void register_cuda_select_kernels(KernelRegistry& r);       // select_kernels.cc (NonZero, Unique)
void register_cuda_deform_conv_kernels(KernelRegistry& r);  // deform_conv_kernels.cc

}  // namespace sy::cuda
