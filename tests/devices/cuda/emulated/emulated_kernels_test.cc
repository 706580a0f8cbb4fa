// The real CUDA kernels without a GPU: their host code
// (devices/cuda/kernels/*.cc) and the real CudaDevice, over the fake CUDA
// runtime (tests/devices/cuda/fake_gpu), with the device code of every .cu
// file compiled for the host (emu_cuda.h) and cuBLAS and cuDNN emulated
// from their documentation (fake_cublas.cc, fake_cudnn.cc). They run every
// differential case, the bundled models, and issue 4's conformance and
// random-placement checks over the ONNX node cases. This checks what the
// fake GPU's CPU stand-ins cannot: each kernel's launch metadata, index
// arithmetic, block and warp reductions, 16-bit conversions, and how it
// calls the libraries (leading dimensions, strides, descriptors, blend
// factors, workspaces), against the CPU kernel. It cannot show how nvcc's
// device math and FMA contraction round, or what the real libraries
// decline (the GPU run does, CudaKernelDiff.Gpu_*).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "devices/cuda/cuda_backend.h"
#include "tests/devices/cuda/emulated/fake_cudnn.h"
#include "tests/devices/cuda/fake_gpu/fake_cuda.h"
#include "tests/devices/cuda/fake_gpu/node_case_sweep_test_util.h"
#include "tests/devices/cuda/kernel_diff_test_util.h"
#include "tests/executor/model_builder.h"

namespace sy::testing {
namespace {

TEST(EmulatedGpu, Kernels_MatchCpu_OnEveryCase) {
  auto gpu = create_cuda_device(0);
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  const DiffTally t = expect_cuda_cases_match_cpu(**gpu);
  std::printf("%d cases matched the CPU, %d declined\n", t.matched, t.declined);
  EXPECT_GT(t.matched, 400);
}

// Runs each bad case on a CPU and on cuda:0 and expects both to fail with
// its code; InvalidArgument must also carry the CPU's message, since the
// checks are shared. OutOfRange comes from the device (Launch::error_flag),
// so its message is the kernel's.
void expect_refused_alike(const std::vector<std::pair<DiffCase, StatusCode>>& bad) {
  auto gpu = create_cuda_device(0);
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  CpuDevice cpu;
  for (const auto& [c, code] : bad) {
    SCOPED_TRACE(c.name);
    const DiffRun want = run_diff_case(c, cpu, DeviceKind::kCpu, 1);
    const DiffRun got = run_diff_case(c, **gpu, DeviceKind::kCuda, 1);
    EXPECT_EQ(want.status.code(), code) << want.status.message();
    EXPECT_EQ(got.status.code(), code) << got.status.message();
    if (code == StatusCode::kInvalidArgument) {
      EXPECT_EQ(got.status.message(), want.status.message());
    }
  }
}

// RNN, GRU and LSTM share their checks with the CPU kernels
// (rnn_common.h): bad lengths and shapes fail on cuda:0 with the CPU's
// error, before anything is launched, rather than reading out of bounds.
TEST(EmulatedGpu, RecurrentKernels_RefuseWhatTheCpuRefuses) {
  using namespace diff;
  constexpr StatusCode kBad = StatusCode::kInvalidArgument;
  // X has 6 steps of 3 rows; W and R fit an LSTM of 2 hidden units.
  const DiffInput x = f32({6, 3, 4}), w = f32({1, 8, 4}), r = f32({1, 8, 2});
  expect_refused_alike({
      {make("lens_past_the_steps", "RNN", {x, w, f32({1, 8, 8}), omitted(), values(DataType::kInt32, {6, 7, 1})},
            {attr_int("hidden_size", 8)}, 2),
       kBad},
      {make("lens_negative", "GRU",
            {x, f32({1, 24, 4}), f32({1, 24, 8}), omitted(), values(DataType::kInt32, {1, -1, 0})},
            {attr_int("hidden_size", 8)}, 2),
       kBad},
      {make("hidden_size_beyond_w", "LSTM", {x, w, r}, {attr_int("hidden_size", 3)}, 3), kBad},
      {make("r_mismatch", "LSTM", {x, w, f32({1, 8, 3})}, {}, 3), kBad},
  });
}

// The loss kernels check their labels where they are: on the CPU before
// anything is written, on cuda:0 in the kernel. A label outside [0, C), in
// any of the three kernels, fails the node with OutOfRange on both, rather
// than reading outside the input.
TEST(EmulatedGpu, LossKernels_RefuseWhatTheCpuRefuses) {
  using namespace diff;
  const auto loss = [](std::string name, std::string op, std::vector<DiffInput> in) {
    return make(std::move(name), std::move(op), std::move(in), {attr_int("ignore_index", 1)});
  };
  expect_refused_alike({
      {loss("label_past_c_points", "SoftmaxCrossEntropyLoss", {f32({4, 3}), ints({0, 1, 3, 2})}),
       StatusCode::kOutOfRange},
      {loss("label_negative_rows", "SoftmaxCrossEntropyLoss", {f32({3, 100}), ints({5, -1, 99})}),
       StatusCode::kOutOfRange},
      {loss("label_past_c_nll", "NegativeLogLikelihoodLoss",
            {f32({2, 5, 2}), values(DataType::kInt32, {0, 1, 2, 5}, Dims{2, 2})}),
       StatusCode::kOutOfRange},
      {loss("labels_shape", "NegativeLogLikelihoodLoss", {f32({2, 5, 2}), ints({0, 1})}),
       StatusCode::kInvalidArgument},
      {loss("weights_shape", "SoftmaxCrossEntropyLoss", {f32({2, 5}), ints({0, 1}), f32({4})}),
       StatusCode::kInvalidArgument},
  });
}

// MatMulInteger and QLinearMatMul share nn::plan_int_matmul with the CPU,
// ConvInteger and QLinearConv nn::plan_int_conv.
TEST(EmulatedGpu, IntegerProductKernels_RefuseWhatTheCpuRefuses) {
  using namespace diff;
  constexpr StatusCode kBad = StatusCode::kInvalidArgument;
  const DataType u8 = DataType::kUInt8;
  const DiffInput a = in(u8, {4, 6}, 0, 255), b = in(u8, {6, 5}, 0, 255), one = scalar(DataType::kFloat, 1);
  const DiffInput x = in(u8, {1, 3, 6, 6}, 0, 255), w = in(u8, {4, 3, 3, 3}, 0, 255);
  expect_refused_alike({
      {make("inner_dims", "MatMulInteger", {a, in(u8, {5, 5}, 0, 255)}), kBad},
      {make("a_zero_per_column", "MatMulInteger", {a, b, values(u8, {1, 2, 3, 4, 5, 6})}), kBad},
      {make("y_scale_zero", "QLinearMatMul",
            {a, one, scalar(u8, 0), b, one, scalar(u8, 0), scalar(DataType::kFloat, 0), scalar(u8, 0)}),
       kBad},
      {make("y_zero_point_missing", "QLinearMatMul", {a, one, scalar(u8, 0), b, one, scalar(u8, 0), one, omitted()}),
       kBad},
      {make("b_scale_rank_2", "QLinearMatMul",
            {a, one, scalar(u8, 0), b, f32({5, 1}), scalar(u8, 0), one, scalar(u8, 0)}),
       kBad},
      {make("conv_channels", "ConvInteger", {x, in(u8, {4, 2, 3, 3}, 0, 255)}), kBad},
      {make("conv_x_zero_per_channel", "ConvInteger", {x, w, values(u8, {1, 2, 3})}), kBad},
      {make("conv_w_zero_count", "ConvInteger", {x, w, scalar(u8, 1), values(u8, {1, 2, 3})}), kBad},
      {make("qconv_bias_size", "QLinearConv",
            {x, one, scalar(u8, 0), w, one, scalar(u8, 0), one, scalar(u8, 0), values(DataType::kInt32, {1, 2, 3})}),
       kBad},
      {make("qconv_y_scale_zero", "QLinearConv",
            {x, one, scalar(u8, 0), w, one, scalar(u8, 0), scalar(DataType::kFloat, 0), scalar(u8, 0)}),
       kBad},
  });
}

// DFT and STFT share signal::plan_dft and plan_stft with the CPU.
TEST(EmulatedGpu, SignalKernels_RefuseWhatTheCpuRefuses) {
  using namespace diff;
  constexpr StatusCode kBad = StatusCode::kInvalidArgument;
  const DataType i64 = DataType::kInt64;
  expect_refused_alike({
      {make("dft_axis_on_components", "DFT", {f32({2, 8, 2})}, {attr_int("axis", 2)}), kBad},
      {make("dft_length_zero", "DFT", {f32({2, 8, 1}), scalar(i64, 0)}), kBad},
      {make("dft_three_components", "DFT", {f32({2, 8, 3})}), kBad},
      {make("stft_step_zero", "STFT", {f32({1, 64, 1}), scalar(i64, 0)}), kBad},
      {make("stft_frame_length_not_window", "STFT", {f32({1, 64, 1}), scalar(i64, 8), f32({16}), scalar(i64, 12)}),
       kBad},
      {make("stft_frame_past_signal", "STFT", {f32({1, 64, 1}), scalar(i64, 8), omitted(), scalar(i64, 65)}), kBad},
      {make("window_negative_size", "HannWindow", {scalar(i64, -1)}), kBad},
      {make("window_bool_output", "HammingWindow", {scalar(i64, 4)}, {attr_int("output_datatype", 9)}), kBad},
      {make("window_size_not_scalar", "BlackmanWindow", {ints({4, 4})}), kBad},
      {make("mel_upper_past_nyquist", "MelWeightMatrix",
            {scalar(i64, 8), scalar(i64, 16), scalar(i64, 8000), scalar(DataType::kFloat, 0),
             scalar(DataType::kFloat, 8000)}),
       kBad},
      // An output no memory holds fails to allocate, before any edge is made.
      {make("mel_trillion_bins", "MelWeightMatrix",
            {scalar(i64, 1e12), scalar(i64, 16), scalar(i64, 8000), scalar(DataType::kFloat, 0),
             scalar(DataType::kFloat, 100)}),
       StatusCode::kResourceExhausted},
      {make("mel_zero_dft_length", "MelWeightMatrix",
            {scalar(i64, 8), scalar(i64, 0), scalar(i64, 8000), scalar(DataType::kFloat, 0),
             scalar(DataType::kFloat, 100)}),
       kBad},
  });
}

// Compress and ReverseSequence read their host inputs with the CPU's checks.
TEST(EmulatedGpu, HostIndexedGathers_RefuseWhatTheCpuRefuses) {
  using namespace diff;
  const auto compress = [](std::string name, std::vector<DiffInput> in, std::vector<Attribute> attrs = {}) {
    return opset(make(std::move(name), "Compress", std::move(in), std::move(attrs)), 11);
  };
  expect_refused_alike({
      {compress("compress_selects_past_axis", {f32({3, 4}), values(DataType::kBool, {0, 0, 0, 1})},
                {attr_int("axis", 0)}),
       StatusCode::kOutOfRange},
      {compress("compress_int_condition", {f32({3, 4}), ints({1, 0, 1})}, {attr_int("axis", 0)}),
       StatusCode::kInvalidArgument},
      {compress("compress_axis_past_rank", {f32({3, 4}), boolean({3})}, {attr_int("axis", 2)}),
       StatusCode::kInvalidArgument},
      {opset(make("reverse_length_past_time", "ReverseSequence", {f32({4, 2, 3}), ints({5, 1})}), 10),
       StatusCode::kOutOfRange},
      {opset(make("reverse_lengths_count", "ReverseSequence", {f32({4, 2, 3}), ints({1, 1, 1})}), 10),
       StatusCode::kInvalidArgument},
      {opset(make("reverse_axes_equal", "ReverseSequence", {f32({4, 2, 3}), ints({1, 1})},
                  {attr_int("batch_axis", 0), attr_int("time_axis", 0)}),
             10),
       StatusCode::kInvalidArgument},
  });
}

TEST(EmulatedGpu, DetectionKernels_RefuseWhatTheCpuRefuses) {
  using namespace diff;
  constexpr StatusCode kBad = StatusCode::kInvalidArgument;
  const auto roi = [](std::string name, std::vector<DiffInput> in, std::vector<Attribute> attrs = {}) {
    return opset(make(std::move(name), "RoiAlign", std::move(in), std::move(attrs)), 16);
  };
  const auto nms = [](std::string name, std::vector<DiffInput> in, std::vector<Attribute> attrs = {}) {
    return opset(make(std::move(name), "NonMaxSuppression", std::move(in), std::move(attrs)), 11);
  };
  constexpr DataType F = DataType::kFloat;
  expect_refused_alike({
      {roi("roi_batch_index_past_n", {f32({2, 1, 4, 4}), f32({1, 4}, 0, 3), ints({2})}), kBad},
      {roi("roi_three_coordinates", {f32({1, 1, 4, 4}), f32({1, 3}, 0, 3), ints({0})}), kBad},
      {roi("roi_type_not_x", {f32({1, 1, 4, 4}), f64({1, 4}, 0, 3), ints({0})}), kBad},
      {roi("roi_indices_count", {f32({1, 1, 4, 4}), f32({2, 4}, 0, 3), ints({0})}), kBad},
      {roi("roi_infinite", {f32({1, 1, 4, 4}), values(DataType::kFloat, {0, 0, kInf, 2}, Dims{1, 4}), ints({0})}),
       kBad},
      {roi("roi_too_large_to_sample",
           {f32({1, 1, 4, 4}), values(DataType::kFloat, {0, 0, 1e5, 1e5}, Dims{1, 4}), ints({0})}),
       kBad},
      {roi("roi_unknown_mode", {f32({1, 1, 4, 4}), f32({1, 4}, 0, 3), ints({0})}, {attr_string("mode", "min")}), kBad},
      {nms("nms_iou_past_one", {f32({1, 5, 4}), f32({1, 1, 5}), scalar(DataType::kInt64, 3), scalar(F, 1.5)}), kBad},
      {nms("nms_iou_nan", {f32({1, 5, 4}), f32({1, 1, 5}), scalar(DataType::kInt64, 3), scalar(F, kNaN)}), kBad},
      {nms("nms_three_coordinates", {f32({1, 5, 3}), f32({1, 1, 5}), scalar(DataType::kInt64, 3)}), kBad},
      {nms("nms_scores_count", {f32({1, 5, 4}), f32({1, 1, 6}), scalar(DataType::kInt64, 3)}), kBad},
      {nms("nms_center_two", {f32({1, 5, 4}), f32({1, 1, 5}), scalar(DataType::kInt64, 3)},
           {attr_int("center_point_box", 2)}),
       kBad},
  });
}

TEST(EmulatedGpu, DeformConv_RefusesWhatTheCpuRefuses) {
  using namespace diff;
  constexpr StatusCode kBad = StatusCode::kInvalidArgument;
  const auto deform = [](std::string name, std::vector<DiffInput> in, std::vector<Attribute> attrs = {}) {
    return opset(make(std::move(name), "DeformConv", std::move(in), std::move(attrs)), 19);
  };
  const DiffInput x = f32({1, 4, 5, 5}), w = f32({2, 4, 3, 3}), offset = f32({1, 18, 3, 3});
  expect_refused_alike({
      {deform("deform_offset_missing", {x, w}), kBad},
      {deform("deform_offset_shape", {x, w, f32({1, 18, 3, 4})}), kBad},
      {deform("deform_offset_type", {x, w, f64({1, 18, 3, 3})}), kBad},
      {deform("deform_offset_groups_do_not_divide", {x, w, f32({1, 54, 3, 3})}, {attr_int("offset_group", 3)}), kBad},
      {deform("deform_offset_group_zero", {x, w, offset}, {attr_int("offset_group", 0)}), kBad},
      {deform("deform_bias_count", {x, w, offset, f32({3})}), kBad},
      {deform("deform_mask_shape", {x, w, offset, omitted(), f32({1, 18, 3, 3})}), kBad},
      {deform("deform_w_channels", {x, f32({2, 3, 3, 3}), offset}), kBad},
  });
}

TEST(EmulatedGpu, Unique_RefusesWhatTheCpuRefuses) {
  using namespace diff;
  const auto unique = [](std::string name, DiffInput x, int64_t axis) {
    return opset(make(std::move(name), "Unique", {std::move(x)}, {attr_int("axis", axis)}, 4), 11);
  };
  expect_refused_alike({
      {unique("unique_axis_on_scalar", scalar(DataType::kInt64, 3), 0), StatusCode::kInvalidArgument},
      {unique("unique_axis_past_rank", i64({4, 3}, 0, 2), 2), StatusCode::kInvalidArgument},
      {unique("unique_axis_below_rank", i64({4, 3}, 0, 2), -3), StatusCode::kInvalidArgument},
  });
}

TEST(EmulatedGpu, Det_RefusesWhatTheCpuRefuses) {
  using namespace diff;
  expect_refused_alike({
      {make("det_not_square", "Det", {f32({2, 3, 4})}), StatusCode::kInvalidArgument},
      {make("det_vector", "Det", {f32({3})}), StatusCode::kInvalidArgument},
  });
}

TEST(EmulatedGpu, BatchNormalization_RefusesWhatTheCpuRefuses) {
  using namespace diff;
  const auto bn = [](std::string name, std::vector<DiffInput> in) {
    return opset(make(std::move(name), "BatchNormalization", std::move(in), {attr_int("training_mode", 1)}, 3), 15);
  };
  expect_refused_alike({
      {bn("bn_scale_count", {f32({2, 3, 4}), f32({4}), f32({3}), f32({3}), f32({3})}), StatusCode::kInvalidArgument},
      {bn("bn_rank1", {f32({3}), f32({3}), f32({3}), f32({3}), f32({3})}), StatusCode::kInvalidArgument},
      {bn("bn_int_mean", {f32({2, 3, 4}), f32({3}), f32({3}), i64({3}, 0, 1), f32({3})}), StatusCode::kInvalidArgument},
  });
}

// Host-side tables that grow with dims the inputs can make huge, without
// holding the data (check_host_table_bytes): broadcast batches of MatMul,
// an empty X's batch rows in RNN, Resize's sampling tables. Each fails with
// ResourceExhausted on cuda:0 as on the CPU, before the table is made:
// before, a std::vector of terabytes threw (a crash) or one of tens of
// gigabytes took a minute to fill (the emulated GPU's fuzzing, seeds 2201
// and 2202, found Resize's). For Resize the kernel also allocates its
// output first, as the CPU's does: not_smaller's one scale for both axes
// turns a width of 2^31 - 1 into an output of 2^61 elements.
TEST(EmulatedGpu, HostTables_RefuseWhatTheCpuRefuses) {
  using namespace diff;
  constexpr StatusCode kTooLarge = StatusCode::kResourceExhausted;
  constexpr int64_t kMillion = int64_t{1} << 20;
  const DataType u8 = DataType::kUInt8;
  const auto not_smaller = [](std::string name, double width) {
    return opset(make(std::move(name), "Resize", {f32({1, 1, 2, 4}), omitted(), omitted(), ints({1, width})},
                      {attr_ints("axes", {2, 3}), attr_string("keep_aspect_ratio_policy", "not_smaller")}),
                 19);
  };
  expect_refused_alike({
      {make("matmul_2_pow_40_broadcast_batches", "MatMul", {f32({kMillion, 1, 1, 1}), f32({1, kMillion, 1, 1})}),
       kTooLarge},
      {make("matmul_integer_2_pow_40_broadcast_batches", "MatMulInteger",
            {in(u8, {kMillion, 1, 1, 1}, 0, 255), in(u8, {1, kMillion, 1, 1}, 0, 255)}),
       kTooLarge},
      {make("rnn_empty_x_of_2_pow_40_rows", "RNN", {f32({0, kMillion * kMillion, 1}), f32({1, 1, 1}), f32({1, 1, 1})},
            {attr_int("hidden_size", 1)}),
       kTooLarge},
      {not_smaller("resize_not_smaller_int32_max", 2147483647.0), kTooLarge},
      {not_smaller("resize_not_smaller_2_pow_40", 1099511627776.0), kTooLarge},
  });
}

TEST(EmulatedGpu, FoldKernels_RefuseWhatTheCpuRefuses) {
  using namespace diff;
  constexpr StatusCode kBad = StatusCode::kInvalidArgument;
  const auto col2im = [](std::string name, std::vector<DiffInput> in, std::vector<Attribute> attrs = {}) {
    return opset(make(std::move(name), "Col2Im", std::move(in), std::move(attrs)), 18);
  };
  const auto unpool = [](std::string name, std::vector<DiffInput> in) {
    return opset(make(std::move(name), "MaxUnpool", std::move(in), {attr_ints("kernel_shape", {2})}), 11);
  };
  expect_refused_alike({
      {col2im("col2im_wrong_block_count", {f32({1, 4, 15}), ints({5, 5}), ints({2, 2})}), kBad},
      {col2im("col2im_channels_not_multiple", {f32({1, 5, 16}), ints({5, 5}), ints({2, 2})}), kBad},
      {col2im("col2im_block_past_image", {f32({1, 4, 1}), ints({2, 2}), ints({3, 3})}), kBad},
      {col2im("col2im_huge_shapes", {f32({1, 4, 1}), ints({4e18, 4e18}), ints({2, 2})},
              {attr_ints("pads", {int64_t{4000000000000000000}, 0, 0, 0})}),
       kBad},
      {unpool("unpool_index_past_output", {f32({1, 1, 3}), values(DataType::kInt64, {0, 1, 4}, Dims{1, 1, 3})}),
       StatusCode::kOutOfRange},
      {unpool("unpool_negative_index", {f32({1, 1, 3}), values(DataType::kInt64, {0, -1, 2}, Dims{1, 1, 3})}),
       StatusCode::kOutOfRange},
      {unpool("unpool_output_shape_too_small",
              {f32({1, 1, 3}), values(DataType::kInt64, {0, 1, 2}, Dims{1, 1, 3}), ints({1, 1, 3})}),
       kBad},
  });
}

// Issue 4's conformance check with the real CUDA kernels: the ONNX node
// cases under `--devices cuda:0,cpu --policy gpu` pass as on the CPU, with
// at least `min_share` of the kernel nodes on cuda:0. Issue 4 asks for 60%;
// the bars here sit just under today's 83.4% and 85.8%, so that kernels
// which start to decline (a library call refused, say) fail the test.
void expect_node_cases_pass_as_on_cpu(const std::string& root, bool newer, double min_share) {
  SessionOptions cpu_only, gpu;
  cpu_only.devices = "cpu";
  cpu_only.policy = "cpu";
  gpu.devices = "cuda:0,cpu";
  gpu.policy = "gpu";
  (void)expect_pass_set_of_cpu(case_dirs(root, newer), cpu_only, gpu, min_share);
}

TEST(EmulatedGpu, NodeCases_PassAsOnCpu_UnderGpuPolicy) {
  if (!std::filesystem::exists(kNodeCases))
    GTEST_SKIP() << kNodeCases << " is missing (Debian package libonnx-testdata)";
  expect_node_cases_pass_as_on_cpu(kNodeCases, /*newer=*/false, 0.82);
}

// Issue 4's random-placement check: each node a coin toss between the CPU
// and cuda:0, so values cross between them in both directions.
TEST(EmulatedGpu, NodeCases_PassAsOnCpu_UnderRandomOverCpuAndGpu) {
  if (!std::filesystem::exists(kNodeCases))
    GTEST_SKIP() << kNodeCases << " is missing (Debian package libonnx-testdata)";
  SessionOptions random;
  random.devices = "cpu,cuda:0";
  random.policy = "random";
  random.policy_options.seed = 3;
  const Sweep s = sweep(case_dirs(kNodeCases), random);
  EXPECT_TRUE(s.failed.empty()) << s.failed.size() << " of " << s.cases << " cases failed:\n" << first_lines(s.failed);
  EXPECT_GT(share(s, "cuda:0"), 0.2);
  EXPECT_GT(share(s, "cpu:0"), 0.2);
  std::printf("%d of %d cases passed; kernel nodes on cuda:0: %.1f%%\n", s.passed, s.cases, 100 * share(s, "cuda:0"));
}

// Whole models with the real kernels: the workloads (random inputs) and
// the control-flow models (their own inputs) under `gpu`, so loop bodies,
// branches and scans run their nodes on cuda:0 and values cross back and
// forth as on a GPU. The libraries sum in another order than the CPU
// kernels, so outputs match within a tolerance. The streams sleep at
// random, so that independent nodes' kernels, library calls and
// stream-ordered frees interleave in many orders.
TEST(EmulatedGpu, Models_MatchCpu_UnderGpuPolicy) {
  namespace fs = std::filesystem;
  struct Jitter {
    Jitter() { fake_cuda::set_jitter(7, 20); }
    ~Jitter() { fake_cuda::set_jitter(0, 0); }
  } jitter;
  SessionOptions gpu;
  gpu.devices = "cuda:0,cpu";
  gpu.policy = "gpu";
  const fs::path models = fs::path(SY_SOURCE_DIR) / "models";
  std::vector<std::pair<std::string, std::vector<std::map<std::string, RuntimeValue>>>> runs;
  for (const auto& e : fs::directory_iterator(models / "workloads")) {
    if (e.path().extension() != ".onnx") continue;
    std::shared_ptr<const Model> model = load_model_file(e.path().string());
    ASSERT_TRUE(model);
    runs.push_back({e.path().string(), {random_input_set(*model, 1)}});
  }
  for (const std::string& dir : case_dirs((models / "control_flow").string()))
    runs.push_back({dir + "/model.onnx", bundled_input_sets(dir)});
  ASSERT_GE(runs.size(), 13u);
  int64_t on_gpu = 0, on_cpu = 0;
  for (const auto& [path, inputs] : runs) {
    SCOPED_TRACE(path);
    std::shared_ptr<const Model> model = load_model_file(path);
    ASSERT_TRUE(model);
    auto s = Session::create(model, gpu);
    ASSERT_TRUE(s.ok()) << s.status().message();
    const std::vector<int64_t> placed = expect_same_as_cpu(model, **s, inputs, Tolerance{1e-4, 1e-5});
    on_gpu += placed[0];
    on_cpu += placed[1];
  }
  std::printf("%zu models; kernel nodes on cuda:0: %lld, on the CPU: %lld\n", runs.size(),
              static_cast<long long>(on_gpu), static_cast<long long>(on_cpu));
  EXPECT_GT(on_gpu, 2 * on_cpu);
}

// A Conv and a ConvTranspose of `side` x `side` images, under `gpu`.
std::shared_ptr<const Model> conv_pair(int64_t side) {
  constexpr int kF32 = onnx::TensorProto::FLOAT;
  auto m = new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF32, {1, 3, side, side}).input("w", kF32, {4, 3, 3, 3}).input("wt", kF32, {4, 2, 3, 3});
  g.output("y", kF32, {1, 4, side - 2, side - 2}).output("t", kF32, {1, 2, side, side});
  g.node("Conv", {"x", "w"}, {"y"});
  g.node("ConvTranspose", {"y", "wt"}, {"t"});
  auto loaded = load_model(m);
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  return loaded.ok() ? std::shared_ptr<const Model>(std::move(*loaded)) : nullptr;
}

// cuDNN's algorithm heuristics are asked once per geometry and GPU: later
// runs, and other sessions on the GPU, reuse the choice (GeometryCache),
// and results stay those of the CPU.
TEST(EmulatedGpu, ConvAlgorithms_AreQueriedOncePerGeometry) {
  SessionOptions gpu;
  gpu.devices = "cuda:0,cpu";
  gpu.policy = "gpu";
  const int64_t before = fake_cudnn::algorithm_queries();
  for (int64_t side : {17, 19}) {
    SCOPED_TRACE(side);
    std::shared_ptr<const Model> model = conv_pair(side);
    ASSERT_TRUE(model);
    auto s = Session::create(model, gpu);
    ASSERT_TRUE(s.ok()) << s.status().message();
    const std::vector<int64_t> placed = expect_same_as_cpu(
        model, **s, {random_input_set(*model, 1), random_input_set(*model, 2)}, Tolerance{1e-4, 1e-5});
    EXPECT_EQ(placed[0], 4) << "kernel nodes on cuda:0";
  }
  // Each size is a new geometry for both ops; the second run of each and
  // the CPU reference asked nothing.
  EXPECT_EQ(fake_cudnn::algorithm_queries() - before, 4);
  auto again = Session::create(conv_pair(17), gpu);
  ASSERT_TRUE(again.ok()) << again.status().message();
  ASSERT_TRUE((*again)->run(random_input_set(*conv_pair(17), 3)).ok());
  EXPECT_EQ(fake_cudnn::algorithm_queries() - before, 4) << "a new session asked again";
  // Another GPU may be another model, with other answers: it asks.
  gpu.devices = "cuda:1,cpu";
  auto other = Session::create(conv_pair(17), gpu);
  ASSERT_TRUE(other.ok()) << other.status().message();
  ASSERT_TRUE((*other)->run(random_input_set(*conv_pair(17), 3)).ok());
  EXPECT_EQ(fake_cudnn::algorithm_queries() - before, 6);
}

TEST(EmulatedGpu, NewerNodeCases_PassAsOnCpu_UnderGpuPolicy) {
  const std::string root = newer_node_cases();
  if (!std::filesystem::exists(root)) GTEST_SKIP() << root << " is missing (unpacked at configure time)";
  expect_node_cases_pass_as_on_cpu(root, /*newer=*/true, 0.85);
}

}  // namespace
}  // namespace sy::testing
