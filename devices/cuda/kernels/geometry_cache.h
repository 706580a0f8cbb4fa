// A bounded, thread-safe map from an operation's geometry (a flat list of
// integers: device, type, dims, pads, ...) to a choice made for it once.
//
// The CUDA convolutions keep cuDNN's algorithm choice here. Asking cuDNN's
// heuristics (cudnnGetConvolution*Algorithm_v7) and then the workspace size
// costs host time on every call (tens of microseconds to a millisecond,
// PyTorch and PaddlePaddle measured), during which the run loop issues
// nothing else, while a node usually sees the same shapes run after run.
// The choice depends only on the geometry and the GPU, so the answer for
// one call holds for the next.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace sy::cuda {

template <typename Choice>
class GeometryCache {
 public:
  explicit GeometryCache(size_t capacity = 4096) : capacity_(capacity) {}

  std::optional<Choice> find(const std::vector<int64_t>& key) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }

  void put(const std::vector<int64_t>& key, const Choice& choice) {
    std::lock_guard<std::mutex> lock(mu_);
    // A model fed ever-new shapes would grow the map without bound; starting
    // over costs each geometry one more query.
    if (entries_.size() >= capacity_ && !entries_.count(key)) entries_.clear();
    entries_[key] = choice;
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.size();
  }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::map<std::vector<int64_t>, Choice> entries_;
};

}  // namespace sy::cuda
