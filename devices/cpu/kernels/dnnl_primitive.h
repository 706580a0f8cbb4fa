// DnnlPrimitive: a oneDNN primitive run on the calling thread through
// memory objects that each thread keeps per primitive and only repoints
// on later calls. Making the four or five dnnl::memory of a convolution,
// its argument map and a stream cost about 1.5 us a call, as much as a
// small depthwise convolution's band takes to compute; repointing one
// costs about 10 ns.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <oneapi/dnnl/dnnl.hpp>
#include <utility>

namespace sy::nn {

class DnnlPrimitive {
 public:
  DnnlPrimitive() = default;
  // Makes the primitive `pd` describes (dnnl::error if oneDNN cannot).
  explicit DnnlPrimitive(const dnnl::primitive_desc& pd);

  // Runs it on this thread and waits for it. `args` pairs DNNL_ARG_* slots
  // with their data, in the layouts the descriptor gives them; a null
  // pointer leaves its slot out (no bias). Thread-safe; throws dnnl::error
  // as oneDNN does.
  void execute(std::initializer_list<std::pair<int, const void*>> args) const;

 private:
  dnnl::primitive_desc pd_;
  dnnl::primitive prim_;
  uint64_t key_ = 0;  // names this primitive in the threads' caches (never reused, unlike its address)
};

}  // namespace sy::nn
