// Small string helpers used for error messages.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace sy {

template <typename... Args>
std::string str_cat(Args&&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

template <typename Container>
std::string str_join(const Container& c, const char* sep = ",") {
  std::ostringstream os;
  bool first = true;
  for (const auto& x : c) {
    if (!first) os << sep;
    os << x;
    first = false;
  }
  return os.str();
}

}  // namespace sy
