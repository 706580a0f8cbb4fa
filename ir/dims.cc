#include "ir/dims.h"

#include <limits>

namespace sy {

bool checked_mul(int64_t a, int64_t b, int64_t* out) {
  if (a < 0 || b < 0) return false;
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) return false;
  *out = a * b;
  return true;
}

int64_t Dims::numel() const {
  int64_t n = 1;
  for (int64_t d : *this) {
    if (!checked_mul(n, d, &n)) return std::numeric_limits<int64_t>::max();
  }
  return n;
}

std::string Dims::to_string() const {
  std::string s = "[";
  for (size_t i = 0; i < size_; ++i) {
    if (i) s += ",";
    s += std::to_string((*this)[i]);
  }
  return s + "]";
}

}  // namespace sy
