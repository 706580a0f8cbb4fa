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
  std::string policy = "single";
  std::string devices = "cpu";
  int runs = 1;
  bool random_inputs = false;
  uint64_t seed = 0;
  bool quiet = false;
};

struct ConformanceArgs {
  std::string root;
  std::string json;
  std::string filter;
  std::string exclusions;  // file of "case_name  reason" lines
  std::string policy = "single";
  std::string devices = "cpu";
  int jobs = 0;
  int timeout_s = 120;
  bool verbose = false;
};

int cmd_run(const RunArgs& args);
int cmd_info(const std::string& model);
int cmd_test(const std::string& case_dir, const std::string& policy, const std::string& devices, bool machine);
int cmd_conformance(const ConformanceArgs& args, const std::string& self_exe);

// Prints "error: <msg>" to stderr and returns `code`.
int report_error(const std::string& msg, int code);

}  // namespace sy
