#include "devices/cpu/kernels/parallel_ranges.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>

namespace sy {

void parallel_for_ranges(int64_t n, int64_t grain, RangeBody body) {
  if (n <= 0) return;
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, static_cast<size_t>(std::max<int64_t>(grain, 1))),
                    [&body](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
}

}  // namespace sy
