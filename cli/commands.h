// The switchyard subcommands. Each returns the process exit code:
// 0 success, 1 failed check / mismatch / runtime fault, 2 bad input or usage.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace sy {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;

struct RunArgs {
  std::string model;
  std::vector<std::string> inputs;  // NAME=FILE
  std::vector<std::string> dims;    // NAME=VALUE
  std::string output_dir;
  std::string report;
  std::string trace;      // Chrome/Perfetto trace of the last run
  std::string decisions;  // placement decisions of the last run, JSON lines
  std::string profile;    // cost profile to load and save
  std::string policy = "dynamic";
  std::string devices = "cpu";
  std::string simulate;   // simulation profile: run on that machine in virtual time
  int runs = 1;
  double timeout_s = 0;   // per run; 0: none
  bool random_inputs = false;
  uint64_t seed = 0;
  bool quiet = false;
  bool fuse = true;           // the loader's OpFusion
  bool channels_last = true;  // and its ChannelsLast, where every device is a CPU
};

struct ConformanceArgs {
  std::string root;
  std::string json;
  std::string filter;
  std::vector<std::string> exclusions;  // files of "case_name  reason" lines; none: the repo's list
  std::string same_as;     // baseline --json file whose pass set must match
  std::string min_share;   // "DEVICE=FRACTION": fail unless that share of nodes ran there
  std::string policy = "dynamic";
  std::string devices = "cpu";
  std::string simulate;
  uint64_t seed = 0;
  int jobs = 0;
  int timeout_s = 120;
  bool verbose = false;
  bool isolated = false;  // every case in a process of its own, not in long-lived workers
};

struct DevicesArgs {
  std::string devices = "cpu:0,cpu:1";
  std::string json;
  uint64_t link_bytes = 8u << 20;  // copy size for link bandwidth
};

struct CalibrateArgs {
  std::string out;
  std::string sim;  // also write a simulation profile of these devices
  std::vector<std::string> models;  // also time these models' kernels for it
  std::string devices = "cpu:0,cpu:1";
  bool quick = false;
  int reps = 0;  // timed runs per device; 0 = 10, or 3 with --quick
  bool quiet = false;
};

struct BenchArgs {
  std::vector<std::string> models;  // files or folders of *.onnx
  std::string policies = "dynamic,ort,static-heft,cpu";
  std::string devices = "cpu:0,cpu:1";
  std::string simulate;
  std::vector<std::string> dims;  // NAME=VALUE
  std::string json;
  std::string profile;
  int runs = 20;
  int warmup = 3;
  int concurrency = 1;
  uint64_t seed = 0;
  bool check = true;          // compare every policy's outputs with the first policy's
  bool fuse = true;           // the loader's OpFusion
  bool channels_last = true;  // and its ChannelsLast, where every device is a CPU
};

int cmd_run(const RunArgs& args);
int cmd_info(const std::string& model, bool fuse);
struct TestArgs {
  std::string case_dir;
  std::string policy = "dynamic";
  std::string devices = "cpu";
  std::string simulate;
  uint64_t seed = 0;
  bool machine = false;
  bool batch = false;  // case folders from stdin, a result line each
};

int cmd_test(const TestArgs& args);
int cmd_conformance(const ConformanceArgs& args, const std::string& self_exe);
int cmd_devices(const DevicesArgs& args);
int cmd_calibrate(const CalibrateArgs& args);
int cmd_bench(const BenchArgs& args);

// Prints "error: <msg>" to stderr and returns `code`.
int report_error(const std::string& msg, int code);

}  // namespace sy
