// Differential cases for the CUDA index kernels (see kernel_diff_test_util.h).
#include "tests/devices/cuda/kernel_diff_test_util.h"

namespace sy::testing {

using namespace diff;

void add_index_cases(std::vector<DiffCase>& cs) { (void)cs; }

}  // namespace sy::testing
