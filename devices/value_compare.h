// Compares computed values with reference values at ONNX backend-test
// tolerances (|a-b| <= atol + rtol*|b|; NaN equals NaN).
#pragma once

#include <string>

#include "devices/runtime_value.h"

namespace sy {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

// Empty string if equal, else a human-readable reason.
std::string compare_values(const RuntimeValue& got, const RuntimeValue& want, const Tolerance& tol);

}  // namespace sy
