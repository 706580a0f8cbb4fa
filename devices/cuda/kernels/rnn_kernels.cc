// CUDA RNN, GRU and LSTM. The attributes and input checks are the CPU
// kernels' (rnn_common.h), so both backends accept and refuse the same
// nodes. Per direction: one cuBLAS GEMM projects every time step's input
// (X W^T), then each step is one GEMM of the hidden state against R (GRU
// without linear_before_reset: two, with the reset gate between them) and
// one gate kernel (rnn_launch.cu) that updates the state in place.
//
// The state lives in its output's layout (Y_h / Y_c when wanted, scratch
// otherwise), so nothing is copied at the end, and a step's GEMM reads its
// rows with a leading dimension of the state's row stride. Steps after the
// longest sequence_lens are not launched. Before, every recurrent node sent
// its input to the CPU and its outputs back.
//
// Thread-safety: compute() is const and keeps no state beyond attributes
// parsed in init().
#include <cstdint>

#include "devices/cpu/kernels/rnn_common.h"
#include "devices/cuda/kernels/blas_dnn_common.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/rnn_launch.h"

namespace sy::cuda {
namespace {

using nn::RnnAttrs;
using nn::RnnCell;
using nn::RnnPlan;

const char* offset(const void* base, int64_t elems, size_t elem) {
  return static_cast<const char*>(base) + elems * static_cast<int64_t>(elem);
}
char* offset(void* base, int64_t elems, size_t elem) {
  return static_cast<char*>(base) + elems * static_cast<int64_t>(elem);
}

// Row-major C[m, n] (row stride ldc) = A[m, k] (row stride lda) times
// B[n, k]^T (row stride ldb): the column-major C^T = B A^T that cuBLAS
// computes. k > 0.
Status gemm_nt(cublasHandle_t h, DataType t, const dnn::GemmTypes& gt, int64_t m, int64_t n, int64_t k, const void* a,
               int64_t lda, const void* b, int64_t ldb, void* c, int64_t ldc) {
  const dnn::Scalars sc(1.0, 0.0);
  CUDA_RETURN_IF_ERROR(cublas_api().GemmEx_64(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, sc.alpha(t), b, gt.data, ldb, a,
                                              gt.data, lda, sc.beta(t), c, gt.data, ldc, gt.compute,
                                              CUBLAS_GEMM_DEFAULT));
  return OkStatus();
}

// A state buffer laid out as `dims`: the output when wanted, scratch
// otherwise, starting as `init` (or zeros).
StatusOr<Tensor> state_buffer(KernelContext& ctx, const Launch& l, Tensor* out, const Tensor* init, DataType t,
                              const Dims& dims) {
  Tensor s;
  if (out) {
    s = *out;
  } else {
    ASSIGN_OR_RETURN(s, dnn::scratch(ctx, t, dims));
  }
  if (s.nbytes() == 0) return s;
  if (init) {
    CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(s.raw(), init->raw(), s.nbytes(), cudaMemcpyDeviceToDevice, l.stream));
  } else {
    CUDA_RETURN_IF_ERROR(cudaMemsetAsync(s.raw(), 0, s.nbytes(), l.stream));
  }
  return s;
}

class CudaRecurrentKernel : public Kernel {
 public:
  explicit CudaRecurrentKernel(RnnCell cell) : cell_(cell) {}

  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(a_, nn::rnn_attrs(node, cell_));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const RnnPlan p, nn::plan_rnn(ctx, a_));
    const DataType dt = ctx.input(0).dtype();
    ASSIGN_OR_RETURN(const dnn::GemmTypes gt, dnn::gemm_types(dt, nn::rnn_op_name(cell_)));
    ASSIGN_OR_RETURN(const nn::RnnOutputs o, nn::allocate_rnn_outputs(ctx, a_, p));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    if (o.y && o.y->nbytes() > 0) CUDA_RETURN_IF_ERROR(cudaMemsetAsync(o.y->raw(), 0, o.y->nbytes(), l.stream));
    if (p.B == 0 || p.H == 0) return OkStatus();  // every output is empty

    const bool lstm = cell_ == RnnCell::kLstm;
    const Tensor* h0 = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    const Tensor* c0 = lstm && ctx.has_input(6) ? &ctx.input(6) : nullptr;
    ASSIGN_OR_RETURN(Tensor h, state_buffer(ctx, l, o.yh, h0, dt, p.state));
    Tensor c;
    if (lstm) {
      ASSIGN_OR_RETURN(c, state_buffer(ctx, l, o.yc, c0, dt, p.state));
    }
    if (p.max_len == 0) return OkStatus();  // the states stay as given

    // sequence_lens was checked on the host (a host input); the gate
    // kernels read it from the device.
    Tensor lens;
    if (ctx.has_input(4)) {
      ASSIGN_OR_RETURN(lens, ctx.device().copy(ctx.input(4), ctx.device().memory_space()));
    }
    const int64_t S = p.S, B = p.B, I = p.I, H = p.H, GH = p.G * H;
    const bool gru_split = cell_ == RnnCell::kGru && !a_.linear_before_reset;
    ASSIGN_OR_RETURN(Tensor xw, dnn::scratch(ctx, dt, Dims{S * B, GH}));
    ASSIGN_OR_RETURN(Tensor hr, dnn::scratch(ctx, dt, Dims{B, GH}));
    Tensor rh;
    if (gru_split) {
      ASSIGN_OR_RETURN(rh, dnn::scratch(ctx, dt, Dims{B, H}));
    }
    ASSIGN_OR_RETURN(cublasHandle_t handle, l.cublas());
    CUDA_RETURN_IF_ERROR(cublas_api().SetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));

    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor& r = ctx.input(2);
    const size_t es = gt.elem;
    const int64_t ld_state = p.layout.state_stride();
    RnnStep s;
    s.cell = cell_ == RnnCell::kRnn   ? RnnCellKind::kRnn
             : cell_ == RnnCell::kGru ? RnnCellKind::kGru
                                      : RnnCellKind::kLstm;
    s.layout = p.layout;
    s.linear_before_reset = a_.linear_before_reset;
    s.input_forget = a_.input_forget;
    s.clip = a_.clip;
    s.lens = lens.defined() ? lens.data<int32_t>() : nullptr;
    RnnBuffers bufs;
    bufs.xw = xw.raw();
    bufs.hr = hr.raw();
    bufs.h = h.raw();
    bufs.c = lstm ? c.raw() : nullptr;
    bufs.rh = gru_split ? rh.raw() : nullptr;
    bufs.y = o.y ? o.y->raw() : nullptr;
    for (int64_t d = 0; d < a_.dirs; ++d) {
      s.dir = static_cast<int32_t>(d);
      s.reverse = a_.reverse_only || d == 1;
      for (int k = 0; k < a_.nact; ++k) s.act[k] = a_.acts[static_cast<size_t>(d * a_.nact + k)];
      bufs.wb = ctx.has_input(3) ? offset(ctx.input(3).raw(), d * 2 * GH, es) : nullptr;
      bufs.rb = ctx.has_input(3) ? offset(ctx.input(3).raw(), d * 2 * GH + GH, es) : nullptr;
      bufs.p = lstm && ctx.has_input(7) ? offset(ctx.input(7).raw(), d * 3 * H, es) : nullptr;
      const void* wd = offset(w.raw(), d * GH * I, es);
      const void* rd = offset(r.raw(), d * GH * H, es);
      void* hd = offset(h.raw(), p.layout.state_at(d, 0), es);
      if (I > 0) {
        RETURN_IF_ERROR(gemm_nt(handle, dt, gt, S * B, GH, I, x.raw(), I, wd, I, xw.raw(), GH));
      } else {
        CUDA_RETURN_IF_ERROR(cudaMemsetAsync(xw.raw(), 0, xw.nbytes(), l.stream));
      }
      for (int64_t step = 0; step < p.max_len; ++step) {
        s.step = step;
        if (gru_split) {
          // z and r products first; r gates h into the candidate's product.
          RETURN_IF_ERROR(gemm_nt(handle, dt, gt, B, 2 * H, H, hd, ld_state, rd, H, hr.raw(), GH));
          CUDA_RETURN_IF_ERROR(launch_rnn_reset_gate(dt == DataType::kDouble, s, bufs, l.stream));
          RETURN_IF_ERROR(gemm_nt(handle, dt, gt, B, H, H, rh.raw(), H, offset(rd, 2 * H * H, es), H,
                                  offset(hr.raw(), 2 * H, es), GH));
        } else {
          RETURN_IF_ERROR(gemm_nt(handle, dt, gt, B, GH, H, hd, ld_state, rd, H, hr.raw(), GH));
        }
        CUDA_RETURN_IF_ERROR(launch_rnn_gates(dt == DataType::kDouble, s, bufs, l.stream));
      }
    }
    return OkStatus();
  }

 private:
  RnnCell cell_;
  RnnAttrs a_;
};

struct RnnKernel final : CudaRecurrentKernel {
  RnnKernel() : CudaRecurrentKernel(RnnCell::kRnn) {}
};
struct GruKernel final : CudaRecurrentKernel {
  GruKernel() : CudaRecurrentKernel(RnnCell::kGru) {}
};
struct LstmKernel final : CudaRecurrentKernel {
  LstmKernel() : CudaRecurrentKernel(RnnCell::kLstm) {}
};

}  // namespace

void register_cuda_rnn_kernels(KernelRegistry& r) {
  // sequence_lens (input 4) is read on the host, to check it as the CPU does.
  const std::vector<DataType> types = {DataType::kFloat, DataType::kDouble};
  constexpr uint64_t kHostLens = 1u << 4;
  add_cuda_kernel<RnnKernel>(r, "RNN", 1, types, kHostLens);
  add_cuda_kernel<GruKernel>(r, "GRU", 1, types, kHostLens);
  add_cuda_kernel<LstmKernel>(r, "LSTM", 1, types, kHostLens);
}

}  // namespace sy::cuda
