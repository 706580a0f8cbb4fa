// Control flow end to end through `switchyard run`: each case under
// models/control_flow/<case>/ has a model, .npy inputs and .npy outputs that
// models/control_flow/generate.py computed with hand-written numpy loops (not
// with an ONNX runtime). The test runs the real CLI binary and compares the
// .npy files it writes: exact for integers and bools, 1e-5 relative for floats.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "cli/tensor_io.h"
#include "devices/cuda/cuda_backend.h"
#include "tests/cli/cli_test_util.h"

namespace sy {
namespace {

using cli_test::CommandResult;
using cli_test::TempDir;
namespace fs = std::filesystem;

fs::path case_dir(const std::string& name) { return cli_test::source_dir() / "models" / "control_flow" / name; }

std::vector<fs::path> npy_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".npy") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Compares one output with its reference; returns "" when they agree.
std::string compare_tensors(const std::string& name, const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype())
    return name + ": dtype " + dtype_name(got.dtype()) + ", expected " + dtype_name(want.dtype());
  if (got.dims() != want.dims()) return name + ": shape " + got.dims().to_string() + ", expected " + want.dims().to_string();
  const int64_t n = want.numel();
  const bool is_float = dtype_is_float(want.dtype());
  int bad = 0;
  std::ostringstream msg;
  for (int64_t i = 0; i < n; ++i) {
    bool ok;
    if (is_float) {
      const double g = got.double_at(i), w = want.double_at(i);
      ok = (std::isnan(w) && std::isnan(g)) || std::fabs(g - w) <= 1e-5 * std::fabs(w) + 1e-6;
      if (!ok && bad < 5) msg << "\n  [" << i << "] got " << g << ", expected " << w;
    } else {
      const int64_t g = got.int_at(i), w = want.int_at(i);
      ok = g == w;
      if (!ok && bad < 5) msg << "\n  [" << i << "] got " << g << ", expected " << w;
    }
    if (!ok) ++bad;
  }
  if (bad) return name + ": " + std::to_string(bad) + " of " + std::to_string(n) + " elements differ" + msg.str();
  return "";
}

// Runs model.onnx of `name` with inputs<suffix>/ and checks the outputs
// against expected<suffix>/.
void run_and_compare(const std::string& name, const std::string& suffix = "",
                     const std::vector<std::string>& extra = {}) {
  const fs::path dir = case_dir(name);
  const fs::path model = dir / "model.onnx";
  const fs::path in_dir = dir / ("inputs" + suffix);
  const fs::path exp_dir = dir / ("expected" + suffix);
  ASSERT_TRUE(fs::is_regular_file(model)) << model << " is missing; run models/control_flow/generate.py";
  const auto inputs = npy_files(in_dir);
  const auto expected = npy_files(exp_dir);
  ASSERT_FALSE(inputs.empty()) << "no inputs in " << in_dir;
  ASSERT_FALSE(expected.empty()) << "no expected outputs in " << exp_dir;

  TempDir out("sy_cf_e2e");
  const fs::path out_dir = out.path() / "outputs";
  std::vector<std::string> args{"run", model.string()};
  for (const auto& f : inputs) {
    args.push_back("--input");
    args.push_back(f.stem().string() + "=" + f.string());
  }
  args.push_back("--output-dir");
  args.push_back(out_dir.string());
  args.insert(args.end(), extra.begin(), extra.end());
  const CommandResult r = cli_test::run_switchyard(args);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();

  std::set<std::string> want_names;
  for (const auto& f : expected) {
    want_names.insert(f.filename().string());
    const fs::path got_file = out_dir / f.filename();
    SCOPED_TRACE("output " + f.stem().string());
    ASSERT_TRUE(fs::is_regular_file(got_file)) << "switchyard did not write " << got_file << "\n" << r.describe();
    auto got = read_npy(got_file.string());
    ASSERT_TRUE(got.ok()) << got.status().message();
    auto want = read_npy(f.string());
    ASSERT_TRUE(want.ok()) << want.status().message();
    const std::string diff = compare_tensors(f.stem().string(), *got, *want);
    EXPECT_EQ(diff, "") << r.describe();
  }
  // No surprise extra outputs.
  for (const auto& f : npy_files(out_dir)) EXPECT_TRUE(want_names.count(f.filename().string())) << "unexpected output " << f;
}

// a) Loop with the trip count from an input and a data-dependent exit: the
//    running sum passes the threshold after 4 of at most 10 iterations.
TEST(ControlFlowE2E, LoopWithDataDependentExit_MatchesNumpy) { run_and_compare("loop_early_exit"); }

// a') Same model; the threshold is never reached, so M = 3 ends the loop.
TEST(ControlFlowE2E, LoopWithDataDependentExit_TripCountLimited_MatchesNumpy) {
  run_and_compare("loop_early_exit", "_m_limited");
}

// b) If inside a Loop body whose branches read main-graph initializers and
//    values of the enclosing loop body.
TEST(ControlFlowE2E, IfInLoopReadingOuterScope_MatchesNumpy) { run_and_compare("if_in_loop"); }

// c) Scan with a reversed input, a forward input scanned along axis 1, and a
//    reversed scan output.
TEST(ControlFlowE2E, ScanReversedWithNonZeroAxis_MatchesNumpy) { run_and_compare("scan_reverse"); }

// d) If whose branches produce [2,3] and [3]; both branches are exercised.
TEST(ControlFlowE2E, IfBranchesWithDifferentShapes_CondTrue_MatchesNumpy) { run_and_compare("if_shapes"); }
TEST(ControlFlowE2E, IfBranchesWithDifferentShapes_CondFalse_MatchesNumpy) { run_and_compare("if_shapes", "_false"); }

// e) Loop inside a Loop body; inner trip count = outer iteration + 1, and the
//    inner body reads the outer iteration number from the enclosing scope.
TEST(ControlFlowE2E, NestedLoopsWithIterationDependentTripCount_MatchesNumpy) { run_and_compare("nested_loops"); }

// f) M = 0: the carried value comes back unchanged and the scan output is
//    empty with the body's declared element shape, [0, 2, 2].
TEST(ControlFlowE2E, ZeroTripLoop_ReturnsInitialValueAndEmptyScan) { run_and_compare("zero_trip_loop"); }

// Every case again with bodies and branches on the GPU (only the
// conditions cross to the host), and with nodes spread at random over the
// CPU and the GPU.
const std::vector<std::pair<std::string, std::string>> kAllCases = {
    {"loop_early_exit", ""}, {"loop_early_exit", "_m_limited"}, {"if_in_loop", ""},   {"scan_reverse", ""},
    {"if_shapes", ""},       {"if_shapes", "_false"},           {"nested_loops", ""}, {"zero_trip_loop", ""}};

TEST(ControlFlowE2E, OnGpu_EveryCaseMatchesNumpy) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason();
  for (const auto& [name, suffix] : kAllCases) {
    SCOPED_TRACE(name + suffix);
    run_and_compare(name, suffix, {"--devices", "cuda:0,cpu", "--policy", "gpu"});
  }
}

TEST(ControlFlowE2E, RandomOverCpuAndGpu_EveryCaseMatchesNumpy) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason();
  for (const auto& [name, suffix] : kAllCases) {
    for (const char* seed : {"1", "2", "3"}) {
      SCOPED_TRACE(name + suffix + " seed " + seed);
      run_and_compare(name, suffix, {"--devices", "cpu,cuda:0", "--policy", "random", "--seed", seed});
    }
  }
}

}  // namespace
}  // namespace sy
