// Differential cases for the CUDA DFT and STFT kernels (see
// kernel_diff_test_util.h): real and complex input, forward and inverse,
// one-sided spectra and the inverse real transform, dft_length padding and
// cutting, lengths that are powers of two, small and large others (each a
// different FFT path on the CPU), the axis as an attribute and as an input,
// 16-bit and double types, windows of another type than the signal, and
// lengths the kernel leaves to the CPU's FFT; the three window generators,
// periodic and symmetric, in several output types, and MelWeightMatrix,
// including filters narrower than a DFT bin.
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {

using namespace diff;

namespace {

constexpr DataType kI64 = DataType::kInt64;

DiffCase dft(std::string name, std::vector<DiffInput> inputs, int64_t axis, int inverse, int onesided) {
  return make(std::move(name), "DFT", std::move(inputs),
              {attr_int("axis", axis), attr_int("inverse", inverse), attr_int("onesided", onesided)});
}

DiffCase stft(std::string name, std::vector<DiffInput> inputs, int onesided) {
  return make(std::move(name), "STFT", std::move(inputs), {attr_int("onesided", onesided)});
}

}  // namespace

void add_signal_cases(std::vector<DiffCase>& cs) {
  cs.push_back(dft("DFT_real_pow2", {f32({3, 64, 1})}, 1, 0, 0));
  cs.push_back(dft("DFT_complex_inverse_48", {f32({2, 48, 2})}, 1, 1, 0));
  cs.push_back(dft("DFT_onesided_padded", {f32({4, 30, 1}), scalar(kI64, 40)}, 1, 0, 1));
  cs.push_back(dft("DFT_irfft", {f32({2, 17, 2})}, 1, 1, 1));
  cs.push_back(dft("DFT_cut_bluestein_length", {f32({2, 50, 1}), scalar(kI64, 33)}, 1, 0, 0));
  cs.push_back(dft("DFT_small_odd_length_inner_axis", {f32({3, 7, 5, 2})}, 1, 0, 0));
  cs.push_back(tol(dft("DFT_f16", {in(kF16, {2, 16, 2})}, 1, 0, 0), 1e-2, 2e-2));
  cs.push_back(tol(dft("DFT_f64_1000", {f64({1, 1000, 2})}, 1, 0, 0), 1e-9, 1e-9));
  // Opset 20: the axis is input 2 (here -3 of a rank-4 tensor).
  cs.push_back(opset(make("DFT_axis_input", "DFT", {f32({2, 5, 24, 2}), omitted(), scalar(kI64, -3)}), 20));
  cs.push_back(declined(dft("DFT_past_direct_length", {f32({1, 5000, 1})}, 1, 0, 0)));
  cs.push_back(stft("STFT_windowed_onesided", {f32({2, 1000, 1}), scalar(kI64, 128), f32({256}, 0, 1)}, 1));
  cs.push_back(stft("STFT_complex_frame_length_no_window",
                    {f32({1, 300, 2}), scalar(kI64, 50), omitted(), scalar(kI64, 100)}, 0));
  cs.push_back(
      tol(stft("STFT_f64_by_f32_window", {f64({1, 500, 1}), scalar(kI64, 100), f32({160}, 0, 1)}, 1), 1e-6, 1e-6));
  cs.push_back(declined(
      stft("STFT_past_direct_length", {f32({1, 6000, 1}), scalar(kI64, 100), omitted(), scalar(kI64, 5000)}, 1)));
}

void add_signal_generator_cases(std::vector<DiffCase>& cs) {
  const auto window = [](std::string name, const char* op, double size, std::vector<Attribute> attrs) {
    return make(std::move(name), op, {scalar(kI64, size)}, std::move(attrs));
  };
  const auto type = [](DataType t) { return attr_int("output_datatype", static_cast<int64_t>(t)); };
  cs.push_back(window("HannWindow_periodic_1000", "HannWindow", 1000, {}));
  cs.push_back(
      window("HannWindow_symmetric_f64", "HannWindow", 257, {attr_int("periodic", 0), type(DataType::kDouble)}));
  cs.push_back(tol(window("HammingWindow_f16", "HammingWindow", 400, {type(kF16)}), 1e-3, 1e-3));
  cs.push_back(window("HammingWindow_symmetric", "HammingWindow", 31, {attr_int("periodic", 0)}));
  cs.push_back(window("BlackmanWindow_periodic_f64", "BlackmanWindow", 1024, {type(DataType::kDouble)}));
  cs.push_back(window("BlackmanWindow_int32_empty", "BlackmanWindow", 0, {type(DataType::kInt32)}));
  cs.push_back(window("HannWindow_int64", "HannWindow", 9, {attr_int("periodic", 0), type(kI64)}));
  const auto mel = [](std::string name, double bins, double dft, double rate, double lo, double hi,
                      std::vector<Attribute> attrs = {}) {
    return make(std::move(name), "MelWeightMatrix",
                {scalar(kI64, bins), scalar(kI64, dft), scalar(kI64, rate), scalar(DataType::kFloat, lo),
                 scalar(DataType::kFloat, hi)},
                std::move(attrs));
  };
  cs.push_back(mel("MelWeightMatrix_80_bins_512", 80, 512, 16000, 0, 8000));
  cs.push_back(mel("MelWeightMatrix_narrow_filters_f64", 40, 64, 16000, 100, 4000, {type(DataType::kDouble)}));
  cs.push_back(mel("MelWeightMatrix_int32_no_bins", 0, 32, 8000, 0, 4000, {type(DataType::kInt32)}));
}

}  // namespace sy::testing
