// Runs one ONNX backend test case folder (model.onnx + test_data_set_*/).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "devices/value_compare.h"
#include "executor/session.h"

namespace sy {

struct CaseResult {
  enum class Outcome { kPass, kFail, kError } outcome = Outcome::kError;
  std::string reason;
  std::vector<std::string> ops;  // distinct op types of the main graph
  // Kernel nodes run per device name, over all of the case's data sets.
  std::vector<std::pair<std::string, int64_t>> placed;
};

CaseResult run_test_case(const std::string& dir, const SessionOptions& options, const Tolerance& tol);

// The files in `dir` whose names start with `prefix`, in the order of their
// numeric suffix (input_9 before input_10), as the test data numbers them.
std::vector<std::filesystem::path> numbered_files(const std::filesystem::path& dir, const std::string& prefix);

// The cases a run skips, from a file of "case_name  reason" lines ('#'
// starts a comment line): case name -> reason. A file that cannot be read
// gives none, and sets *err when `required`.
std::map<std::string, std::string> load_exclusions(const std::string& path, bool required, std::string* err);

}  // namespace sy
