// Executor overhead: per node (slope of run time over the length of a chain
// of 1-element Adds) and per Loop iteration (slope over the trip count of a
// Loop whose body is one Add). Both are the costs of the run loop itself,
// since the kernels do almost nothing.
//
//   build/bench/executor_overhead_bench [--policy NAME] [--devices LIST] [--write-models DIR]
//
// --write-models writes the same models as .onnx files for
// bench/ort_overhead.py, so ONNX Runtime runs exactly the same graphs.
#include <benchmark/benchmark.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "bench/overhead_models.h"
#include "executor/session.h"

namespace {

std::string g_policy = "single";
std::string g_devices = "cpu";
constexpr int kChainLengths[] = {100, 1000};
constexpr int kTripCounts[] = {1000, 10000};

sy::Tensor scalar_float(float v) {
  auto t = sy::Tensor::host(sy::DataType::kFloat, sy::Dims{1});
  *t->data<float>() = v;
  return std::move(t).value();
}

std::unique_ptr<sy::Session> make_session(sy::StatusOr<std::unique_ptr<sy::Model>> model) {
  if (!model.ok()) {
    std::cerr << "error: " << model.status().message() << "\n";
    std::exit(2);
  }
  sy::SessionOptions opt;
  opt.policy = g_policy;
  opt.devices = g_devices;
  auto s = sy::Session::create(std::shared_ptr<const sy::Model>(std::move(model).value()), opt);
  if (!s.ok()) {
    std::cerr << "error: " << s.status().message() << "\n";
    std::exit(2);
  }
  return std::move(s).value();
}

void BM_AddChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto session = make_session(sy::bench::make_add_chain(n));
  std::map<std::string, sy::RuntimeValue> in{{"x", sy::RuntimeValue(scalar_float(0))}};
  for (auto _ : state) {
    auto r = session->run(in);
    if (!r.ok()) state.SkipWithError(r.status().message().c_str());
    benchmark::DoNotOptimize(r);
  }
  state.counters["nodes"] = n;
}

void BM_AddLoop(benchmark::State& state) {
  const int64_t trips = state.range(0);
  auto session = make_session(sy::bench::make_add_loop());
  auto m = sy::Tensor::host(sy::DataType::kInt64, sy::Dims{});
  *m->data<int64_t>() = trips;
  std::map<std::string, sy::RuntimeValue> in{{"M", sy::RuntimeValue(*m)}, {"x", sy::RuntimeValue(scalar_float(0))}};
  for (auto _ : state) {
    auto r = session->run(in);
    if (!r.ok()) state.SkipWithError(r.status().message().c_str());
    benchmark::DoNotOptimize(r);
  }
  state.counters["iterations"] = static_cast<double>(trips);
}

// Collects mean real time per benchmark name so main() can print slopes.
class SlopeReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred)
        ns_[r.benchmark_name()] = r.GetAdjustedRealTime() * 1e9 / benchmark::GetTimeUnitMultiplier(r.time_unit) ;
    ConsoleReporter::ReportRuns(runs);
  }
  double ns(const std::string& name) const {
    auto it = ns_.find(name);
    return it == ns_.end() ? -1 : it->second;
  }

 private:
  std::map<std::string, double> ns_;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (i + 1 < argc && !std::strcmp(argv[i], "--policy")) g_policy = argv[++i];
    else if (i + 1 < argc && !std::strcmp(argv[i], "--devices")) g_devices = argv[++i];
    else if (i + 1 < argc && !std::strcmp(argv[i], "--write-models")) {
      std::filesystem::path dir = argv[++i];
      std::filesystem::create_directories(dir);
      for (int n : kChainLengths) std::ofstream(dir / ("add_chain_" + std::to_string(n) + ".onnx"), std::ios::binary) << sy::bench::add_chain_bytes(n);
      std::ofstream(dir / "add_loop.onnx", std::ios::binary) << sy::bench::add_loop_bytes();
      std::cout << "wrote models to " << dir << "\n";
      return 0;
    } else rest.push_back(argv[i]);
  }
  for (int n : kChainLengths) benchmark::RegisterBenchmark("BM_AddChain", BM_AddChain)->Arg(n)->Unit(benchmark::kMicrosecond);
  for (int t : kTripCounts) benchmark::RegisterBenchmark("BM_AddLoop", BM_AddLoop)->Arg(t)->Unit(benchmark::kMicrosecond);
  int rargc = static_cast<int>(rest.size());
  benchmark::Initialize(&rargc, rest.data());
  SlopeReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  auto slope = [&](const char* name, int a, int b) {
    double ta = reporter.ns(std::string(name) + "/" + std::to_string(a));
    double tb = reporter.ns(std::string(name) + "/" + std::to_string(b));
    return ta < 0 || tb < 0 ? -1.0 : (tb - ta) / (b - a) / 1000.0;
  };
  std::printf("\nswitchyard (policy %s, devices %s):\n", g_policy.c_str(), g_devices.c_str());
  std::printf("  per-node overhead:      %.3f us/node  (slope over chain length %d..%d)\n",
              slope("BM_AddChain", kChainLengths[0], kChainLengths[1]), kChainLengths[0], kChainLengths[1]);
  std::printf("  per-iteration overhead: %.3f us/iter  (slope over trip count %d..%d)\n",
              slope("BM_AddLoop", kTripCounts[0], kTripCounts[1]), kTripCounts[0], kTripCounts[1]);
  return 0;
}
