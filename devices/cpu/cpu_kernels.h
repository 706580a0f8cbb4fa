// Registration entry points for the CPU kernel families. Each family lives in
// its own file under devices/cpu/kernels/.
#pragma once

#include "devices/kernel_registry.h"

namespace sy {

void register_cpu_kernels(KernelRegistry& r);

void register_cpu_elementwise_kernels(KernelRegistry& r);  // math, logic, activations, Where, Clip, Cast...
void register_cpu_tensor_kernels(KernelRegistry& r);       // shape/indexing: Reshape, Concat, Gather, Slice...
void register_cpu_reduction_kernels(KernelRegistry& r);    // Reduce*, ArgMax/Min, Softmax, norms, CumSum, TopK...
void register_cpu_nn_kernels(KernelRegistry& r);           // oneDNN: Conv, ConvTranspose, MatMul, Gemm, pooling
void register_cpu_sequence_kernels(KernelRegistry& r);     // Sequence*, Optional*, SplitToSequence...
void register_cpu_image_kernels(KernelRegistry& r);        // GridSample
void register_cpu_image_decoder_kernel(KernelRegistry& r);  // ImageDecoder (called by register_cpu_image_kernels)
// Called by register_cpu_sequence_kernels:
void register_cpu_misc_signal_kernels(KernelRegistry& r);    // windows, MelWeightMatrix, DFT, STFT
void register_cpu_misc_text_kernels(KernelRegistry& r);      // StringNormalizer, TfIdfVectorizer
void register_cpu_misc_training_kernels(KernelRegistry& r);  // Adagrad, Adam, Momentum

}  // namespace sy
