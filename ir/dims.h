// Dims: a concrete tensor shape. Inline storage for up to kInline dims keeps
// shape handling on the per-node hot path free of heap allocation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sy {

class Dims {
 public:
  static constexpr size_t kInline = 8;

  Dims() = default;
  Dims(std::initializer_list<int64_t> d) { assign(d.begin(), d.size()); }
  explicit Dims(std::span<const int64_t> d) { assign(d.data(), d.size()); }
  explicit Dims(const std::vector<int64_t>& d) { assign(d.data(), d.size()); }
  Dims(const Dims& o) { assign(o.data(), o.size()); }
  Dims& operator=(const Dims& o) {
    if (this != &o) assign(o.data(), o.size());
    return *this;
  }
  Dims(Dims&& o) noexcept { *this = std::move(o); }
  Dims& operator=(Dims&& o) noexcept {
    if (this == &o) return *this;
    if (o.heap_) {
      heap_ = std::move(o.heap_);
      cap_ = o.cap_;
    } else {
      std::memcpy(inline_, o.inline_, o.size_ * sizeof(int64_t));
    }
    size_ = o.size_;
    o.size_ = 0;
    o.cap_ = kInline;
    return *this;
  }

  static Dims of_rank(size_t rank, int64_t fill = 0) {
    Dims d;
    d.resize(rank, fill);
    return d;
  }

  size_t size() const { return size_; }
  size_t rank() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return heap_ ? heap_.get() : inline_; }
  const int64_t* data() const { return heap_ ? heap_.get() : inline_; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t back() const { return data()[size_ - 1]; }
  std::span<const int64_t> span() const { return {data(), size_}; }
  std::vector<int64_t> to_vector() const { return {begin(), end()}; }

  void resize(size_t n, int64_t fill = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data()[i] = fill;
    size_ = n;
  }
  void push_back(int64_t v) {
    reserve(size_ + 1);
    data()[size_++] = v;
  }
  void insert(size_t pos, int64_t v) {
    reserve(size_ + 1);
    int64_t* d = data();
    std::memmove(d + pos + 1, d + pos, (size_ - pos) * sizeof(int64_t));
    d[pos] = v;
    ++size_;
  }
  void erase(size_t pos) {
    int64_t* d = data();
    std::memmove(d + pos, d + pos + 1, (size_ - pos - 1) * sizeof(int64_t));
    --size_;
  }
  void clear() { size_ = 0; }

  // Number of elements; 1 for a scalar. Saturates to INT64_MAX on overflow so
  // callers can reject absurd shapes instead of wrapping around.
  int64_t numel() const;

  bool operator==(const Dims& o) const {
    return size_ == o.size_ && std::equal(begin(), end(), o.begin());
  }
  bool operator!=(const Dims& o) const { return !(*this == o); }

  std::string to_string() const;

 private:
  void assign(const int64_t* d, size_t n) {
    size_ = 0;
    reserve(n);
    if (n) std::memcpy(data(), d, n * sizeof(int64_t));  // d may be null when n == 0
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    size_t cap = std::max(n, cap_ * 2);
    std::unique_ptr<int64_t[]> h(new int64_t[cap]);
    std::memcpy(h.get(), data(), size_ * sizeof(int64_t));
    heap_ = std::move(h);
    cap_ = cap;
  }

  int64_t inline_[kInline];
  std::unique_ptr<int64_t[]> heap_;
  size_t size_ = 0;
  size_t cap_ = kInline;
};

// Multiplies with overflow detection. Returns false on overflow or negative.
bool checked_mul(int64_t a, int64_t b, int64_t* out);

}  // namespace sy
