// Runs one ONNX backend test case folder (model.onnx + test_data_set_*/).
#pragma once

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

}  // namespace sy
