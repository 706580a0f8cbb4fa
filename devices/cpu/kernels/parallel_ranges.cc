#include "devices/cpu/kernels/parallel_ranges.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include "devices/cpu/kernels/tsan_annotations.h"

namespace sy {

void parallel_for_ranges(int64_t n, int64_t grain, RangeBody body) {
  if (n <= 0) return;
  // For ThreadSanitizer: the caller's writes happen before every range, and
  // every range before the return (see tsan_annotations.h).
  char sync = 0;
  tsan_release(&sync);
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, static_cast<size_t>(std::max<int64_t>(grain, 1))),
                    [&](const tbb::blocked_range<int64_t>& r) {
                      tsan_acquire(&sync);
                      body(r.begin(), r.end());
                      tsan_release(&sync);
                    });
  tsan_acquire(&sync);
}

}  // namespace sy
