#include "devices/cpu/kernels/dnnl_primitive.h"

#include <atomic>
#include <unordered_map>

#include "devices/cpu/kernels/nn_common.h"

namespace sy::nn {
namespace {

using ArgMap = std::unordered_map<int, dnnl::memory>;

// Per thread: each primitive's memory objects, by key. Bounded: past
// kMaxBound primitives the cache starts over (a session's kernels drop
// theirs when shapes change, and their keys never come back).
constexpr size_t kMaxBound = 1024;
thread_local std::unordered_map<uint64_t, ArgMap> t_bound;

dnnl::stream& thread_stream() {
  thread_local dnnl::stream s(cpu_engine());
  return s;
}

}  // namespace

DnnlPrimitive::DnnlPrimitive(const dnnl::primitive_desc& pd) : pd_(pd), prim_(pd) {
  static std::atomic<uint64_t> next{1};
  key_ = next.fetch_add(1, std::memory_order_relaxed);
}

void DnnlPrimitive::execute(std::initializer_list<std::pair<int, const void*>> args) const {
  auto it = t_bound.find(key_);
  if (it == t_bound.end()) {
    if (t_bound.size() >= kMaxBound) t_bound.clear();
    it = t_bound.emplace(key_, ArgMap{}).first;
  }
  ArgMap& bound = it->second;
  size_t given = 0;
  bool same_slots = true;
  for (const auto& [slot, data] : args)
    if (data) ++given, same_slots = same_slots && bound.count(slot) != 0;
  if (!same_slots || given != bound.size()) {
    bound.clear();
    for (const auto& [slot, data] : args)  // oneDNN takes every handle as void*, inputs included
      if (data)
        bound.emplace(
            slot, dnnl::memory(pd_.query_md(dnnl::query::exec_arg_md, slot), cpu_engine(), const_cast<void*>(data)));
  } else {
    for (const auto& [slot, data] : args) {
      if (!data) continue;
      dnnl::memory& m = bound.find(slot)->second;
      // Only when it moved: repointing a padded layout (blocked weights)
      // writes zeros into its padding, which constant weights shared by
      // several threads need not have written again.
      if (m.get_data_handle() != data) m.set_data_handle(const_cast<void*>(data));
    }
  }
  use_single_threaded_omp();
  prim_.execute(thread_stream(), bound);
  thread_stream().wait();
}

}  // namespace sy::nn
