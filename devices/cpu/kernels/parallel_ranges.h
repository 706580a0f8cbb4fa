// One non-template entry into oneTBB for the CPU kernels' range splits.
//
// The kernels are templates instantiated per op and element type, and a
// tbb::parallel_for written inside one instantiates oneTBB's task classes
// (start_for, its partitioner and finish nodes) once per instantiation. In
// the elementwise kernels that scaffolding was most of the generated code:
// under AddressSanitizer their object file shrank from 104 MB to 39 MB and
// its compile time halved once the split went through here. The body runs
// once a range (thousands of elements), so one indirect call a range costs
// nothing measurable.
#pragma once

#include <cstdint>
#include <type_traits>

namespace sy {

// A non-owning reference to a callable body(begin, end): valid only while
// the callable it was made from lives, i.e. for the call it is passed to.
class RangeBody {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, RangeBody>>>
  RangeBody(const F& f)  // NOLINT(google-explicit-constructor): passed as a plain lambda
      : callable_(&f), call_([](const void* c, int64_t b, int64_t e) { (*static_cast<const F*>(c))(b, e); }) {}

  void operator()(int64_t begin, int64_t end) const { call_(callable_, begin, end); }

 private:
  const void* callable_;
  void (*call_)(const void*, int64_t, int64_t);
};

// Runs body(begin, end) over disjoint ranges covering [0, n), on oneTBB
// workers; a range is split only while it holds more than `grain` indices
// (taken as 1 if smaller). Returns when every range is done.
void parallel_for_ranges(int64_t n, int64_t grain, RangeBody body);

}  // namespace sy
