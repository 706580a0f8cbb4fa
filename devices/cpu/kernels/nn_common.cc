#include "devices/cpu/kernels/nn_common.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <oneapi/dnnl/dnnl.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/few_rows_gemm.h"
#include "devices/host_allocator.h"

namespace sy::nn {

void add_kernel(KernelRegistry& r, const char* op, int since, KernelFactory f, std::vector<DataType> types,
                bool data_dependent_shape) {
  KernelDef d;
  d.domain = "";
  d.op = op;
  d.since_version = since;
  d.device = DeviceKind::kCpu;
  d.types = std::move(types);
  d.data_dependent_shape = data_dependent_shape;
  d.factory = f;
  r.add(std::move(d));
}

dnnl::engine& cpu_engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

Status WindowAttrs::parse_pool(const Node& node) {
  RETURN_IF_ERROR(parse(node));
  if (kernel_shape.empty()) return InvalidArgument(node.describe(), ": kernel_shape is required");
  return OkStatus();
}

Status WindowAttrs::parse(const Node& node) {
  auto_pad = node.attr_string("auto_pad", "NOTSET");
  if (auto_pad.empty()) auto_pad = "NOTSET";
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    return InvalidArgument(node.describe(), ": unknown auto_pad '", auto_pad, "'");
  kernel_shape = node.attr_ints("kernel_shape");
  pads = node.attr_ints("pads");
  strides = node.attr_ints("strides");
  dilations = node.attr_ints("dilations");
  ceil_mode = node.attr_int("ceil_mode", 0) != 0;
  // Bounded so that window arithmetic ((k - 1) * d + 1, in + pads, ...)
  // cannot overflow; no real window comes near.
  constexpr int64_t kLimit = int64_t{1} << 31;
  auto check = [&](const std::vector<int64_t>& values, const char* name, int64_t min) -> Status {
    for (int64_t v : values)
      if (v < min || v >= kLimit)
        return InvalidArgument(node.describe(), ": ", name, " value ", v, " is outside [", min, ", 2^31)");
    return OkStatus();
  };
  RETURN_IF_ERROR(check(kernel_shape, "kernel_shape", 1));
  RETURN_IF_ERROR(check(strides, "strides", 1));
  RETURN_IF_ERROR(check(dilations, "dilations", 1));
  return check(pads, "pads", 0);
}

namespace {

// Window arithmetic runs in 128 bits: strides, dilations, pads and output
// shapes are whatever the model says, and a product of two of them (or of
// one and an input size) may not fit in 64. A result that does not fit is
// an error, not a wrapped size.
using Wide = __int128;
bool fits(Wide v) { return v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max(); }
int64_t narrow(Wide v) { return fits(v) ? static_cast<int64_t>(v) : v < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max(); }
Status too_large(const std::string& op) {
  return InvalidArgument(op, ": strides, dilations, pads or output shape too large: the window size overflows");
}

}  // namespace

StatusOr<Window> resolve_window(const WindowAttrs& a, const Dims& x_dims, std::span<const int64_t> kernel,
                                const std::string& op) {
  Window w;
  if (x_dims.rank() < 3 || x_dims.rank() > 2 + kMaxSpatial)
    return InvalidArgument(op, ": input must have rank 3 to 5 (N, C, spatial...), got ", x_dims.to_string());
  const int nsp = static_cast<int>(x_dims.rank()) - 2;
  w.nsp = nsp;
  if (static_cast<int>(kernel.size()) != nsp)
    return InvalidArgument(op, ": kernel has ", kernel.size(), " spatial dims but input ", x_dims.to_string(), " has ",
                           nsp);
  if (!a.strides.empty() && static_cast<int>(a.strides.size()) != nsp)
    return InvalidArgument(op, ": strides has ", a.strides.size(), " values, expected ", nsp);
  if (!a.dilations.empty() && static_cast<int>(a.dilations.size()) != nsp)
    return InvalidArgument(op, ": dilations has ", a.dilations.size(), " values, expected ", nsp);
  if (!a.pads.empty() && static_cast<int>(a.pads.size()) != 2 * nsp)
    return InvalidArgument(op, ": pads has ", a.pads.size(), " values, expected ", 2 * nsp);
  for (int i = 0; i < nsp; ++i) {
    const int o = kMaxSpatial - nsp + i;
    const int64_t in = x_dims[2 + i];
    const int64_t k = kernel[i];
    const int64_t s = a.strides.empty() ? 1 : a.strides[i];
    const int64_t d = a.dilations.empty() ? 1 : a.dilations[i];
    if (k <= 0) return InvalidArgument(op, ": kernel spatial dims must be positive");
    if (s <= 0 || d <= 0) return InvalidArgument(op, ": strides and dilations must be positive");
    const Wide dk = Wide{k - 1} * d + 1;
    Wide pb = 0, pe = 0, out = 0;
    if (a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER") {
      out = (Wide{in} + s - 1) / s;
      const Wide total = std::max<Wide>(0, (out - 1) * s + dk - in);
      pb = a.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else {
      if (a.auto_pad == "NOTSET" && !a.pads.empty()) {
        pb = a.pads[i];
        pe = a.pads[nsp + i];
        if (pb < 0 || pe < 0) return InvalidArgument(op, ": pads must be non-negative");
      }
      const Wide padded = in + pb + pe;
      if (padded < dk)
        return InvalidArgument(op, ": kernel extent ", narrow(dk), " is larger than the padded input size ",
                               narrow(padded), " (input ", x_dims.to_string(), ")");
      if (a.ceil_mode) {
        out = (padded - dk + s - 1) / s + 1;
        if ((out - 1) * s >= in + pb) --out;  // last window must start inside the input
      } else {
        out = (padded - dk) / s + 1;
      }
    }
    if (in <= 0 || out <= 0) return InvalidArgument(op, ": empty spatial dimension in input ", x_dims.to_string());
    // The pooling loops index up to the padded size.
    if (!fits(dk) || !fits(out) || !fits(pb) || !fits(pe) || !fits(in + pb + pe)) return too_large(op);
    w.in[o] = in;
    w.k[o] = k;
    w.out[o] = narrow(out);
    w.stride[o] = s;
    w.dil[o] = d;
    w.pad_b[o] = narrow(pb);
    w.pad_e[o] = narrow(pe);
  }
  return w;
}

StatusOr<ConvShape> conv_shape(const WindowAttrs& a, int64_t group, const Tensor& x, const Tensor& wt,
                               const std::string& op) {
  if (!x.defined() || !wt.defined()) return InvalidArgument(op, ": X and W are required");
  return conv_shape(a, group, x.dims(), wt.dims(), op);
}

StatusOr<ConvShape> conv_shape(const WindowAttrs& a, int64_t group, const Dims& x, const Dims& wt,
                               const std::string& op) {
  if (x.size() != wt.size())
    return InvalidArgument(op, ": X ", x.to_string(), " and W ", wt.to_string(), " must have the same rank");
  if (x.size() < 3) return InvalidArgument(op, ": X must have rank >= 3, got ", x.to_string());
  ConvShape s;
  s.N = x[0];
  s.C = x[1];
  s.M = wt[0];
  if (group <= 0 || s.C % group != 0 || s.M % group != 0 || wt[1] * group != s.C)
    return InvalidArgument(op, ": channel mismatch: X ", x.to_string(), ", W ", wt.to_string(), ", group ", group);
  std::vector<int64_t> kernel(wt.begin() + 2, wt.end());
  if (!a.kernel_shape.empty() && a.kernel_shape != kernel)
    return InvalidArgument(op, ": kernel_shape attribute does not match W ", wt.to_string());
  ASSIGN_OR_RETURN(s.w, resolve_window(a, x, kernel, op));
  s.out = Dims{s.N, s.M};
  for (int i = 0; i < s.w.nsp; ++i) s.out.push_back(s.w.out[kMaxSpatial - s.w.nsp + i]);
  return s;
}

StatusOr<ConvTransposeShape> conv_transpose_shape(const WindowAttrs& a, int64_t group,
                                                  const std::vector<int64_t>& output_padding,
                                                  const std::vector<int64_t>& output_shape, const Tensor& x,
                                                  const Tensor& wt) {
  if (x.rank() != wt.rank() || x.rank() < 3 || x.rank() > 5)
    return InvalidArgument("ConvTranspose: X ", x.describe(), " and W ", wt.describe(),
                           " must have the same rank, 3 to 5");
  const int nsp = static_cast<int>(x.rank()) - 2;
  ConvTransposeShape r;
  r.N = x.dim(0);
  r.C = x.dim(1);
  if (group <= 0 || wt.dim(0) != r.C || r.C % group != 0)
    return InvalidArgument("ConvTranspose: channel mismatch: X ", x.describe(), ", W ", wt.describe(), ", group ",
                           group);
  r.Mg = wt.dim(1);
  r.M = r.Mg * group;
  r.Cg = r.C / group;
  auto spatial = [&](const std::vector<int64_t>& v, size_t n, int i, int64_t dflt) {
    return v.size() == n ? v[i] : v.size() > n ? v[v.size() - n + i] : dflt;
  };
  if (!a.kernel_shape.empty() && static_cast<int>(a.kernel_shape.size()) != nsp)
    return InvalidArgument("ConvTranspose: kernel_shape has wrong length");
  if ((!a.strides.empty() && static_cast<int>(a.strides.size()) != nsp) ||
      (!a.dilations.empty() && static_cast<int>(a.dilations.size()) != nsp) ||
      (!a.pads.empty() && static_cast<int>(a.pads.size()) != 2 * nsp) ||
      (!output_padding.empty() && static_cast<int>(output_padding.size()) != nsp) ||
      (!output_shape.empty() && static_cast<int>(output_shape.size()) < nsp))
    return InvalidArgument("ConvTranspose: attribute lengths do not match spatial rank ", nsp);
  Window& w = r.w;
  w.nsp = nsp;
  r.out = Dims{r.N, r.M};
  const bool same = a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER";
  for (int i = 0; i < nsp; ++i) {
    const int o = kMaxSpatial - nsp + i;
    const int64_t in = x.dim(2 + i), k = wt.dim(2 + i);
    if (!a.kernel_shape.empty() && a.kernel_shape[i] != k)
      return InvalidArgument("ConvTranspose: kernel_shape does not match W ", wt.describe());
    const int64_t s = spatial(a.strides, nsp, i, 1), d = spatial(a.dilations, nsp, i, 1);
    const int64_t op = output_padding.empty() ? 0 : output_padding[i];
    // (WindowAttrs::parse() already holds strides and dilations to 1 and up.)
    if (op < 0) return InvalidArgument("ConvTranspose: output_padding must be non-negative");
    const Wide dk = Wide{k - 1} * d + 1;
    Wide pb = 0, pe = 0, out = 0;
    const bool explicit_pads = a.auto_pad == "NOTSET" && !a.pads.empty();
    if (explicit_pads) {
      pb = a.pads[i];
      pe = a.pads[nsp + i];
    }
    if (!output_shape.empty() || same) {
      out = !output_shape.empty() ? output_shape[output_shape.size() - nsp + i] : in * s;
      if (!explicit_pads) {
        const Wide total = Wide{s} * (in - 1) + op + dk - out;
        // Floor division, as the ONNX reference pads SAME_*. Without
        // auto_pad, an output larger than the full result (a negative
        // total) has all its extra rows at the end, as in ONNX Runtime and
        // the reference; split, an extra of 2 or more shifted every row.
        const Wide half = total >= 0 ? total / 2 : -((-total + 1) / 2);
        pb = a.auto_pad == "SAME_UPPER" ? half : !same && total < 0 ? 0 : total - half;
        pe = total - pb;
      }
    } else {
      out = Wide{s} * (in - 1) + op + dk - pb - pe;
    }
    if (k <= 0 || in <= 0 || out <= 0)
      return InvalidArgument("ConvTranspose: empty or negative output size for X ", x.describe(), " W ",
                             wt.describe());
    if (!fits(dk) || !fits(out) || !fits(pb) || !fits(pe)) return too_large("ConvTranspose");
    w.in[o] = in;
    w.k[o] = k;
    w.out[o] = narrow(out);
    w.stride[o] = s;
    w.dil[o] = d;
    w.pad_b[o] = narrow(pb);
    w.pad_e[o] = narrow(pe);
    r.out.push_back(narrow(out));
  }
  return r;
}

StatusOr<GemmPlan> plan_gemm(const Tensor& a, const Tensor& b, const Tensor* c, bool trans_a, bool trans_b) {
  if (!a.defined() || !b.defined()) return InvalidArgument("Gemm: missing input");
  if (a.rank() != 2 || b.rank() != 2)
    return InvalidArgument("Gemm: A and B must be 2-D, got ", a.describe(), " and ", b.describe());
  if (a.dtype() != b.dtype()) return InvalidArgument("Gemm: input types differ");
  GemmPlan p;
  p.M = trans_a ? a.dim(1) : a.dim(0);
  p.K = trans_a ? a.dim(0) : a.dim(1);
  const int64_t k2 = trans_b ? b.dim(1) : b.dim(0);
  p.N = trans_b ? b.dim(0) : b.dim(1);
  if (p.K != k2) return InvalidArgument("Gemm: inner dimensions differ: ", a.describe(), " x ", b.describe());
  if (c) {
    if (c->dtype() != a.dtype()) return InvalidArgument("Gemm: C type differs from A");
    if (c->rank() > 2) return InvalidArgument("Gemm: C must have rank <= 2, got ", c->describe());
    const int64_t cm = c->rank() == 2 ? c->dim(0) : 1;
    const int64_t cn = c->rank() >= 1 ? c->dim(c->rank() - 1) : 1;
    if ((cm != 1 && cm != p.M) || (cn != 1 && cn != p.N))
      return InvalidArgument("Gemm: C ", c->describe(), " does not broadcast to [", p.M, ",", p.N, "]");
    p.cs_n = cn == 1 ? 0 : 1;
    p.cs_m = cm == 1 ? 0 : cn;
  }
  return p;
}

StatusOr<MatMulPlan> plan_matmul(const Dims& ad, const Dims& bd, const std::string& op) {
  if (ad.rank() == 0 || bd.rank() == 0)
    return InvalidArgument(op, ": inputs must have rank >= 1, got ", ad.to_string(), " and ", bd.to_string());
  Dims a = ad, b = bd;
  const bool pa = ad.rank() == 1, pb = bd.rank() == 1;
  if (pa) a = Dims{1, ad[0]};
  if (pb) b = Dims{bd[0], 1};
  MatMulPlan p;
  p.M = a[a.rank() - 2];
  p.K = a[a.rank() - 1];
  p.N = b[b.rank() - 1];
  if (b[b.rank() - 2] != p.K)
    return InvalidArgument(op, ": inner dimensions differ: ", ad.to_string(), " x ", bd.to_string());
  Dims ab, bb;
  for (size_t i = 0; i + 2 < a.rank(); ++i) ab.push_back(a[i]);
  for (size_t i = 0; i + 2 < b.rank(); ++i) bb.push_back(b[i]);
  auto batch_or = broadcast_dims(ab, bb);
  if (!batch_or.ok())
    return InvalidArgument(op, ": batch dimensions do not broadcast: ", ad.to_string(), " x ", bd.to_string());
  Dims batch = *batch_or;
  p.out = batch;
  if (!pa) p.out.push_back(p.M);
  if (!pb) p.out.push_back(p.N);
  int64_t nb = 1;
  for (int64_t d : batch) {
    if (!checked_mul(nb, d, &nb)) return ResourceExhausted(op, ": ", batch.to_string(), " batches are too many");
  }
  // The kernels read a batch's offsets from these tables. An empty output
  // needs none, however many batches an empty operand claims. Otherwise
  // broadcasting (A [65536,1,1,1] x B [1,65536,1,1]) can make far more
  // batches than either input holds elements: 16 bytes each, sized up
  // before the output, which the kernels allocate after this plan.
  if (nb == 0 || p.M == 0 || p.N == 0) return p;
  RETURN_IF_ERROR(check_host_table_bytes(static_cast<double>(nb) * 2 * sizeof(int64_t),
                                         op + ": the offsets of " + std::to_string(nb) + " batches"));
  Dims as = broadcast_strides(ab, batch), bs = broadcast_strides(bb, batch);
  p.a_off.resize(static_cast<size_t>(nb));
  p.b_off.resize(static_cast<size_t>(nb));
  std::vector<int64_t> idx(batch.rank(), 0);
  for (int64_t n = 0; n < nb; ++n) {
    int64_t ao = 0, bo = 0;
    for (size_t d = 0; d < batch.rank(); ++d) {
      ao += idx[d] * as[d];
      bo += idx[d] * bs[d];
    }
    p.a_off[n] = ao * p.M * p.K;
    p.b_off[n] = bo * p.K * p.N;
    for (size_t d = batch.rank(); d-- > 0;) {
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
  return p;
}

Status sgemm(char ta, char tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
             const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M <= 0 || N <= 0) return OkStatus();
  if (K <= 0) {  // an empty sum: C = beta * C
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        float& c = C[i * ldc + j];
        c = beta == 0.f ? 0.f : beta * c;
      }
    return OkStatus();
  }
  // A few rows of A stream B once; gemm_few_rows() reads B at the memory's
  // speed. It takes A untransposed, or one column of a transposed A that is
  // contiguous (lda 1), which is a row whose stride is never used.
  if (M <= kFewRowsMax && (ta == 'N' || (M == 1 && lda == 1)) &&
      gemm_few_rows(tb == 'T', M, N, K, alpha, A, lda, B, ldb, beta, C, ldc))
    return OkStatus();
  // oneDNN computes each block single-threaded; oneTBB spreads the blocks
  // over the cores of the calling device's arena: blocks of rows, or of
  // columns when there are too few rows to give every core some (an RNN
  // step's or a decoder's few rows against a wide weight), where rows
  // alone left a core idle (8x576x192: 31 us on one core, 15 on two).
  // Every block packs the whole of the other operand, so row blocks are a
  // core's share rather than a fixed 32 rows (512x1024x1024 with A
  // transposed: 2.8 ms in 32-row blocks, 2.2 in two), and a transposed B,
  // the costlier to pack, is split by columns (64x768x768: 0.205 ms by
  // rows, 0.176 by columns; 512x1024x1024: 4.3 and 2.3).
  constexpr int64_t kMinColumns = 64;  // per column block, a multiple of 16
  const int64_t cores = tbb::this_task_arena::max_concurrency();
  const int64_t rows_per_block = std::max<int64_t>(32, (M + cores - 1) / cores);
  const int64_t row_blocks = (M + rows_per_block - 1) / rows_per_block;
  const bool by_columns = (row_blocks < cores || tb == 'T') && N >= 2 * kMinColumns && M * N * K >= (1 << 18);
  const int64_t col_width = by_columns ? std::max(kMinColumns, (N / cores + 15) / 16 * 16) : N;
  const int64_t blocks = by_columns ? (N + col_width - 1) / col_width : row_blocks;
  std::atomic<int> failed{dnnl_success};
  auto run = [&](int64_t b0, int64_t b1) {
    use_single_threaded_omp();
    for (int64_t b = b0; b < b1; ++b) {
      dnnl_status_t st;
      if (by_columns) {
        // Column block of op(B): columns of B, or rows when B is transposed.
        const int64_t c0 = b * col_width, c1 = std::min(N, c0 + col_width);
        const float* bb = tb == 'T' ? B + c0 * ldb : B + c0;
        st = dnnl_sgemm(ta, tb, M, c1 - c0, K, alpha, A, lda, bb, ldb, beta, C + c0, ldc);
      } else {
        // Row block of op(A): rows of A, or columns when A is transposed.
        const int64_t r0 = b * rows_per_block, r1 = std::min(M, r0 + rows_per_block);
        const float* a = ta == 'T' ? A + r0 : A + r0 * lda;
        st = dnnl_sgemm(ta, tb, r1 - r0, N, K, alpha, a, lda, B, ldb, beta, C + r0 * ldc, ldc);
      }
      if (st != dnnl_success) failed.store(st);
    }
  };
  if (blocks == 1 || (!by_columns && M * N * K < (1 << 20))) {
    run(0, blocks);
  } else {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, blocks),
                      [&](const tbb::blocked_range<int64_t>& r) { run(r.begin(), r.end()); });
  }
  if (failed.load() != dnnl_success) return RuntimeError("oneDNN sgemm failed with status ", failed.load());
  return OkStatus();
}

Status dgemm(char ta, char tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
             const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  tbb::parallel_for(int64_t{0}, std::max<int64_t>(M, 0), [&](int64_t m) {
    double* c = C + m * ldc;
    for (int64_t n = 0; n < N; ++n) c[n] = beta == 0.0 ? 0.0 : beta * c[n];
    for (int64_t k = 0; k < K; ++k) {
      const double a = alpha * (ta == 'T' ? A[k * lda + m] : A[m * lda + k]);
      if (tb == 'T')
        for (int64_t n = 0; n < N; ++n) c[n] += a * B[n * ldb + k];
      else
        for (int64_t n = 0; n < N; ++n) c[n] += a * B[k * ldb + n];
    }
  });
  return OkStatus();
}

Status for_batches(int64_t nb, int64_t mnk, const std::function<Status(int64_t)>& f) {
  constexpr int64_t kMinWork = int64_t{1} << 18;  // below this a task costs more than it saves
  if (nb < 2 || nb * mnk < 2 * kMinWork) {
    for (int64_t i = 0; i < nb; ++i) RETURN_IF_ERROR(f(i));
    return OkStatus();
  }
  std::vector<Status> st(static_cast<size_t>(nb));
  const int64_t grain = std::max<int64_t>(1, kMinWork / std::max<int64_t>(mnk, 1));
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, nb, static_cast<size_t>(grain)),
                    [&](const tbb::blocked_range<int64_t>& r) {
                      for (int64_t i = r.begin(); i < r.end(); ++i) st[static_cast<size_t>(i)] = f(i);
                    });
  for (Status& s : st) RETURN_IF_ERROR(s);
  return OkStatus();
}

void use_single_threaded_omp() {
  // Debian's oneDNN runs on OpenMP, whose idle threads spin: on a loaded
  // machine, or next to a second CPU device, every call then pays for
  // spinning teams. Switchyard parallelises with oneTBB instead (device
  // arenas), so each thread asks OpenMP for no team of its own.
  static thread_local bool done = [] {
    omp_set_num_threads(1);
    return true;
  }();
  (void)done;
}

Status ConvActivation::parse(const Node& node) {
  const std::string name = node.attr_string("activation", "");
  on = !name.empty();
  lo = -std::numeric_limits<float>::infinity();
  hi = std::numeric_limits<float>::infinity();
  if (name.empty()) return OkStatus();
  if (name == "Relu") {
    lo = 0;
    return OkStatus();
  }
  const std::vector<float> params = node.attr_floats("activation_params");
  if (name != "Clip" || params.size() != 2)
    return InvalidArgument(node.describe(), ": activation must be Relu, or Clip with activation_params (min, max); got '",
                           name, "' with ", params.size(), " params");
  lo = params[0];
  hi = params[1];
  return OkStatus();
}

namespace {

// Floor and ceiling of a / b for b > 0 and any sign of a.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -(-a / b); }

}  // namespace

DnnlWindow dnnl_window(const Window& w) {
  DnnlWindow d;
  for (int i = 0; i < w.nsp; ++i) {
    const int o = kMaxSpatial - w.nsp + i;
    d.in.push_back(w.in[o]);
    d.out.push_back(w.out[o]);
    d.k.push_back(w.k[o]);
    d.strides.push_back(w.stride[o]);
    d.dil.push_back(w.dil[o] - 1);
    d.pad_b.push_back(w.pad_b[o]);
    d.pad_e.push_back(w.pad_e[o]);
  }
  return d;
}

std::pair<int64_t, int64_t> index_span(int64_t off, int64_t s, int64_t count, int64_t limit) {
  const int64_t lo = std::clamp<int64_t>(ceil_div(-off, s), 0, count);
  return {lo, std::clamp<int64_t>(floor_div(limit - 1 - off, s) + 1, lo, count)};
}

ColumnSpan column_span(const Window& w, int64_t kw) {
  const int64_t off = kw * w.dil[2] - w.pad_b[2];
  const auto [lo, hi] = index_span(off, w.stride[2], w.out[2], w.in[2]);
  return {off, lo, hi};
}

StatusOr<BufferRef> dnnl_scratchpad(size_t bytes) {
  return HostAllocator::host().allocate(std::max<size_t>(bytes, 1));
}

std::vector<BatchRun> batch_runs(const MatMulPlan& p) {
  std::vector<BatchRun> runs;
  const int64_t nb = static_cast<int64_t>(p.a_off.size());
  for (int64_t i = 0; i < nb;) {
    BatchRun r;
    r.first = i;
    int64_t j = i + 1;
    if (j < nb) {
      r.a_stride = p.a_off[j] - p.a_off[i];
      r.b_stride = p.b_off[j] - p.b_off[i];
      if (r.a_stride >= 0 && r.b_stride >= 0) {
        ++j;
        while (j < nb && p.a_off[j] - p.a_off[j - 1] == r.a_stride && p.b_off[j] - p.b_off[j - 1] == r.b_stride) ++j;
      }
    }
    r.count = j - i;
    if (r.count == 1) r.a_stride = r.b_stride = 0;
    runs.push_back(r);
    i = j;
  }
  return runs;
}

namespace {

bool is_int8(DataType t) { return t == DataType::kUInt8 || t == DataType::kInt8; }

// A zero point or scale: absent, a scalar, or 1-D of `len` values.
Status check_per_axis(const Tensor* t, const char* op, const char* name, int64_t len) {
  if (!t) return OkStatus();
  const int64_t n = t->numel();
  if (t->rank() > 1 && n != 1) return InvalidArgument(op, ": ", name, " must be a scalar or 1-D, got ", t->describe());
  if (n != 1 && n != len) return InvalidArgument(op, ": ", name, " has ", n, " elements, expected 1 or ", len);
  return OkStatus();
}

}  // namespace

StatusOr<IntMatMulPlan> plan_int_matmul(const KernelContext& ctx, bool qlinear) {
  const char* op = qlinear ? "QLinearMatMul" : "MatMulInteger";
  const auto in = [&](size_t i) { return ctx.has_input(i) ? &ctx.input(i) : nullptr; };
  if (qlinear) {
    for (size_t i = 0; i < 8; ++i)
      if (!in(i)) return InvalidArgument("QLinearMatMul: all 8 inputs are required");
  } else if (!in(0) || !in(1)) {
    return InvalidArgument("MatMulInteger: missing input");
  }
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(qlinear ? 3 : 1);
  if (!is_int8(a.dtype()) || !is_int8(b.dtype()))
    return InvalidArgument(op, ": inputs must be int8/uint8, got ", a.describe(), ", ", b.describe());
  IntMatMulPlan p;
  ASSIGN_OR_RETURN(p.mm, plan_matmul(a.dims(), b.dims(), op));
  p.a_zero = in(2);
  p.b_zero = in(qlinear ? 5 : 3);
  RETURN_IF_ERROR(check_per_axis(p.a_zero, op, "a_zero_point", p.mm.M));
  RETURN_IF_ERROR(check_per_axis(p.b_zero, op, "b_zero_point", p.mm.N));
  if (!qlinear) return p;
  p.a_scale = in(1);
  p.b_scale = in(4);
  RETURN_IF_ERROR(check_per_axis(p.a_scale, op, "a_scale", p.mm.M));
  RETURN_IF_ERROR(check_per_axis(p.b_scale, op, "b_scale", p.mm.N));
  const Tensor& ys = ctx.input(6);
  const Tensor& yz = ctx.input(7);
  RETURN_IF_ERROR(check_per_axis(&ys, op, "y_scale", 1));
  RETURN_IF_ERROR(check_per_axis(&yz, op, "y_zero_point", 1));
  if (!is_int8(yz.dtype())) return InvalidArgument("QLinearMatMul: y_zero_point must be int8/uint8");
  p.y_type = yz.dtype();
  p.y_scale = float_at(ys, 0);
  p.y_zero = static_cast<int32_t>(yz.int_at(0));
  if (p.y_scale == 0.f) return InvalidArgument("QLinearMatMul: y_scale is zero");
  return p;
}

StatusOr<IntConvPlan> plan_int_conv(const KernelContext& ctx, const WindowAttrs& a, int64_t group, bool qlinear) {
  const char* op = qlinear ? "QLinearConv" : "ConvInteger";
  const auto in = [&](size_t i) { return ctx.has_input(i) ? &ctx.input(i) : nullptr; };
  if (qlinear) {
    for (size_t i = 0; i < 8; ++i)
      if (!in(i)) return InvalidArgument(op, ": inputs 0-7 are required");
  }
  const Tensor& x = ctx.input(0);
  const Tensor& wt = ctx.input(qlinear ? 3 : 1);
  IntConvPlan p;
  ASSIGN_OR_RETURN(p.s, conv_shape(a, group, x, wt, op));
  if (!is_int8(x.dtype()) || !is_int8(wt.dtype()))
    return InvalidArgument(op, ": X and W must be int8/uint8, got ", x.describe(), ", ", wt.describe());
  const int64_t M = p.s.M;
  const auto per_channel = [&](const Tensor* t, const char* name) -> Status {
    if (t && t->numel() != 1 && t->numel() != M)
      return InvalidArgument(op, ": ", name, " must have 1 or ", M, " elements, got ", t->describe());
    return OkStatus();
  };
  p.x_zero = in(2);
  p.w_zero = in(qlinear ? 5 : 3);
  if (p.x_zero && p.x_zero->numel() != 1) return InvalidArgument(op, ": x_zero_point must be a scalar");
  RETURN_IF_ERROR(per_channel(p.w_zero, "w_zero_point"));
  if (!qlinear) return p;
  p.x_scale = in(1);
  p.w_scale = in(4);
  const Tensor& ys = ctx.input(6);
  const Tensor& yz = ctx.input(7);
  if (p.x_scale->numel() != 1 || ys.numel() != 1 || yz.numel() != 1)
    return InvalidArgument(op, ": x_scale, y_scale and y_zero_point must be scalars");
  RETURN_IF_ERROR(per_channel(p.w_scale, "w_scale"));
  p.y_scale = float_at(ys, 0);
  if (p.y_scale == 0.f) return InvalidArgument(op, ": y_scale is zero");
  p.y_zero = static_cast<int32_t>(yz.int_at(0));
  p.y_type = yz.dtype();
  if (!is_int8(p.y_type)) return InvalidArgument(op, ": y_zero_point must be 8-bit");
  p.bias = in(8);
  if (p.bias && (p.bias->dtype() != DataType::kInt32 || p.bias->numel() != M))
    return InvalidArgument(op, ": bias must be int32 of size ", M);
  return p;
}

float float_at(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return t.data<float>()[i];
    case DataType::kDouble: return static_cast<float>(t.data<double>()[i]);
    case DataType::kFloat16: return static_cast<float>(t.data<Float16>()[i]);
    case DataType::kBFloat16: return static_cast<float>(t.data<BFloat16>()[i]);
    default: return static_cast<float>(t.double_at(i));
  }
}

}  // namespace sy::nn
