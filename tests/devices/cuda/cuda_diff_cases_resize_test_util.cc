// Differential cases for the CUDA resize kernels (see kernel_diff_test_util.h).
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {

using namespace diff;

void add_resize_cases(std::vector<DiffCase>& cs) { (void)cs; }

}  // namespace sy::testing
