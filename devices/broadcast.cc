#include "devices/broadcast.h"

#include <algorithm>

namespace sy {

StatusOr<Dims> broadcast_dims(const Dims& a, const Dims& b) {
  size_t r = std::max(a.size(), b.size());
  Dims out = Dims::of_rank(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return InvalidArgument("shapes ", a.to_string(), " and ", b.to_string(), " cannot be broadcast together");
    }
  }
  return out;
}

Dims broadcast_strides(const Dims& in, const Dims& out) {
  Dims s = Dims::of_rank(out.size());
  int64_t stride = 1;
  size_t off = out.size() - in.size();
  for (size_t i = in.size(); i-- > 0;) {
    s[i + off] = in[i] == 1 ? 0 : stride;
    stride *= in[i];
  }
  return s;
}

Dims contiguous_strides(const Dims& d) {
  Dims s = Dims::of_rank(d.size());
  int64_t stride = 1;
  for (size_t i = d.size(); i-- > 0;) {
    s[i] = stride;
    stride *= d[i];
  }
  return s;
}

}  // namespace sy
