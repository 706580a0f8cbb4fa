#include "placer/cost_model.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

#include "placer/line_fit.h"
#include "placer/link_model.h"

namespace sy {
namespace {

using json = nlohmann::json;

constexpr int kNumBuckets = 64;
// Guess for an (op, device) pair nothing is known about: a fixed launch cost
// plus 0.5 ns per unit of work.
constexpr double kDefaultBaseUs = 1.0;
constexpr double kDefaultUsPerWork = 0.5e-3;
// A bucket is a plain running mean for its first 1/kEwmaAlpha samples and an
// exponentially weighted mean after that, so it follows drift (thermal
// throttling, contention) without being dominated by its first sample.
constexpr double kEwmaAlpha = 0.2;
constexpr uint64_t kColdSamples = 3;  // early samples that may replace a cold first one
constexpr int kErrorRing = 128;  // recent relative errors kept for the median
// Slots live in fixed chunks that never move, so lock-free readers can index
// them while slot() appends.
constexpr int kChunkSize = 256;
constexpr int kMaxChunks = 1024;
constexpr int kMaxSlots = kChunkSize * kMaxChunks;
constexpr int kMaxDevices = 256;
constexpr int kMaxSiblingHops = 16;
constexpr size_t kMaxNameLength = 1024;

enum class OpClass : uint8_t { kGeneric, kMatMul, kGemm, kConv, kConvNhwc };

OpClass classify(std::string_view op_key) {
  // The key is "domain::op" or "op"; the class depends on the op name only,
  // so contrib variants with the same input layout share the formulas.
  size_t sep = op_key.rfind("::");
  std::string_view op = sep == std::string_view::npos ? op_key : op_key.substr(sep + 2);
  if (op == "MatMul" || op == "MatMulInteger" || op == "FusedMatMul") return OpClass::kMatMul;
  if (op == "Gemm") return OpClass::kGemm;
  if (op == "Conv" || op == "ConvTranspose" || op == "ConvInteger" || op == "FusedConv") return OpClass::kConv;
  if (op == "NhwcConv") return OpClass::kConvNhwc;
  return OpClass::kGeneric;
}

int shape_class(double work) {
  if (!(work > 0)) return 0;  // also catches NaN
  if (work >= 0x1p62) return kNumBuckets - 1;
  return std::clamp(std::ilogb(work + 1.0), 0, kNumBuckets - 1);
}

// Work beyond 1e30 is not a real kernel; capping it keeps the line sums finite.
double sanitize_work(double work) { return work > 0 ? std::min(work, 1e30) : 0; }

double default_guess(double work) { return kDefaultBaseUs + work * kDefaultUsPerWork; }

struct Bucket {
  std::atomic<double> mean{0};
  std::atomic<uint64_t> count{0};
};

struct Slot {
  std::string op;      // "domain::op" or "op"; immutable after creation
  std::string device;  // DeviceId::to_string(); immutable after creation
  OpClass op_class = OpClass::kGeneric;
  int device_index = 0;  // into Impl::devices
  // Circular list of the slots of the same op on other devices.
  std::atomic<int> next_sibling{-1};
  // Bit c is set (release) once bucket c holds a sample; readers test it
  // before trusting the bucket's mean.
  std::atomic<uint64_t> seen{0};
  std::array<Bucket, kNumBuckets> buckets;
  SpinLock lock;
  LineFit line;  // guarded by lock
  PublishedLine fit;
};

// All ops on one device, for (op, device) pairs never measured.
struct DeviceStats {
  std::string name;
  SpinLock lock;
  LineFit line;  // guarded by lock
  PublishedLine fit;
};

struct PendingLink {
  std::string from, to;
  Link link;
};

// One (op, device) entry parsed from a profile, validated before anything is
// merged so that a malformed file changes nothing.
struct ParsedOp {
  std::string op, device;
  std::vector<std::array<double, 3>> buckets;  // class, mean_us, count
  LineFit line;
};

bool parse_device(const std::string& s) {
  size_t colon = s.find(':');
  if (colon == std::string::npos || colon + 1 >= s.size() || s.size() - colon > 6) return false;
  std::string kind = s.substr(0, colon);
  if (kind != "cpu" && kind != "cuda" && kind != "sim") return false;
  long v = 0;
  for (size_t i = colon + 1; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  return v <= std::numeric_limits<int16_t>::max();
}

Status bad(const std::string& path, const std::string& where, const std::string& what) {
  return InvalidArgument("cost profile '", path, "': ", where, ": ", what);
}

// Reads a finite, non-negative number.
StatusOr<double> get_number(const json& obj, const char* key, const std::string& path, const std::string& where,
                            bool allow_negative = false) {
  auto it = obj.find(key);
  if (it == obj.end()) return bad(path, where, str_cat("missing '", key, "'"));
  if (!it->is_number()) return bad(path, where, str_cat("'", key, "' must be a number"));
  double v = it->get<double>();
  if (!std::isfinite(v) || (!allow_negative && v < 0))
    return bad(path, where, str_cat("'", key, "' must be a finite", allow_negative ? "" : " non-negative", " number"));
  return v;
}

StatusOr<std::string> get_name(const json& obj, const char* key, const std::string& path, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return bad(path, where, str_cat("'", key, "' must be a string"));
  std::string s = it->get<std::string>();
  if (s.empty() || s.size() > kMaxNameLength) return bad(path, where, str_cat("'", key, "' has a bad length"));
  return s;
}

StatusOr<ParsedOp> parse_op(const json& e, size_t i, const std::string& path) {
  std::string where = str_cat("ops[", i, "]");
  if (!e.is_object()) return bad(path, where, "must be an object");
  ParsedOp p;
  ASSIGN_OR_RETURN(p.op, get_name(e, "op", path, where));
  ASSIGN_OR_RETURN(p.device, get_name(e, "device", path, where));
  if (!parse_device(p.device)) return bad(path, where, str_cat("bad device '", p.device, "' (expected e.g. cpu:0)"));
  if (auto it = e.find("buckets"); it != e.end()) {
    if (!it->is_array()) return bad(path, where, "'buckets' must be an array");
    if (it->size() > static_cast<size_t>(kNumBuckets)) return bad(path, where, "more than 64 buckets");
    for (size_t j = 0; j < it->size(); ++j) {
      const json& b = (*it)[j];
      std::string bw = str_cat(where, ".buckets[", j, "]");
      if (!b.is_array() || b.size() != 3 || !b[0].is_number_integer() || !b[1].is_number() || !b[2].is_number_integer())
        return bad(path, bw, "must be [class, mean_us, count] with integer class and count");
      double cls = b[0].get<double>(), mean = b[1].get<double>(), count = b[2].get<double>();
      if (cls < 0 || cls >= kNumBuckets) return bad(path, bw, "class must be in [0, 63]");
      if (!std::isfinite(mean) || mean < 0) return bad(path, bw, "mean_us must be a finite non-negative number");
      if (count < 1 || count > 1e15) return bad(path, bw, "count must be in [1, 1e15]");
      p.buckets.push_back({cls, mean, count});
    }
  }
  if (auto it = e.find("line"); it != e.end()) {
    std::string lw = where + ".line";
    if (!it->is_object()) return bad(path, lw, "must be an object");
    const json& l = *it;
    ASSIGN_OR_RETURN(p.line.n, get_number(l, "n", path, lw));
    if (p.line.n > 1e15) return bad(path, lw, "'n' must be at most 1e15");
    if (p.line.n > 0) {
      ASSIGN_OR_RETURN(p.line.mean_x, get_number(l, "mean_work", path, lw));
      ASSIGN_OR_RETURN(p.line.mean_y, get_number(l, "mean_us", path, lw));
      ASSIGN_OR_RETURN(p.line.m2x, get_number(l, "m2_work", path, lw));
      ASSIGN_OR_RETURN(p.line.cxy, get_number(l, "cov_work_us", path, lw, /*allow_negative=*/true));
      ASSIGN_OR_RETURN(p.line.min_x, get_number(l, "min_work", path, lw));
      ASSIGN_OR_RETURN(p.line.max_x, get_number(l, "max_work", path, lw));
      if (p.line.min_x > p.line.max_x) return bad(path, lw, "min_work exceeds max_work");
      if (p.line.mean_x < p.line.min_x || p.line.mean_x > p.line.max_x)
        return bad(path, lw, "mean_work lies outside [min_work, max_work]");
    }
  }
  return p;
}

}  // namespace

struct CostModel::Impl {
  std::mutex mu;  // guards the maps, slot/device creation, topology and pending links
  std::unordered_map<std::string, int> slot_by_key;     // op + '@' + device
  std::unordered_map<std::string, int> first_slot_of_op;
  std::unordered_map<std::string, int> device_by_name;
  std::array<std::unique_ptr<std::unique_ptr<Slot>[]>, kMaxChunks> chunks;
  std::atomic<int> num_slots{0};  // published with release after a slot is complete
  std::array<std::unique_ptr<DeviceStats>, kMaxDevices> devices;
  int num_devices = 0;
  Topology topology;
  std::vector<PendingLink> pending_links;
  Prior prior;  // set before predictions; read-only after

  // Per device: issue_us(); negative until the first sample.
  std::array<std::atomic<double>, kMaxDevices> issue;
  LinkModel links;

  std::atomic<int64_t> err_samples{0};
  std::atomic<double> err_sum{0};
  std::array<std::atomic<float>, kErrorRing> err_ring{};

  Slot* get(int s) const {
    if (s < 0 || s >= num_slots.load(std::memory_order_acquire)) return nullptr;
    return chunks[static_cast<size_t>(s / kChunkSize)][static_cast<size_t>(s % kChunkSize)].get();
  }

  // Requires mu. Returns -1 when the fixed capacity is exhausted.
  int find_or_create(const std::string& op, const std::string& device) {
    std::string key = op + '@' + device;
    if (auto it = slot_by_key.find(key); it != slot_by_key.end()) return it->second;
    int id = num_slots.load(std::memory_order_relaxed);
    if (id >= kMaxSlots) return -1;
    int dev;
    if (auto it = device_by_name.find(device); it != device_by_name.end()) {
      dev = it->second;
    } else {
      if (num_devices >= kMaxDevices) return -1;
      dev = num_devices++;
      devices[static_cast<size_t>(dev)] = std::make_unique<DeviceStats>();
      devices[static_cast<size_t>(dev)]->name = device;
      device_by_name.emplace(device, dev);
    }
    auto& chunk = chunks[static_cast<size_t>(id / kChunkSize)];
    if (!chunk) chunk = std::make_unique<std::unique_ptr<Slot>[]>(kChunkSize);
    auto s = std::make_unique<Slot>();
    s->op = op;
    s->device = device;
    s->op_class = classify(op);
    s->device_index = dev;
    Slot* raw = s.get();
    chunk[static_cast<size_t>(id % kChunkSize)] = std::move(s);
    if (auto it = first_slot_of_op.find(op); it != first_slot_of_op.end()) {
      // Splice into the ring after the first slot of this op.
      Slot* first = get(it->second);
      raw->next_sibling.store(first->next_sibling.load(std::memory_order_relaxed), std::memory_order_relaxed);
      num_slots.store(id + 1, std::memory_order_release);
      first->next_sibling.store(id, std::memory_order_release);
    } else {
      raw->next_sibling.store(id, std::memory_order_relaxed);
      first_slot_of_op.emplace(op, id);
      num_slots.store(id + 1, std::memory_order_release);
    }
    slot_by_key.emplace(std::move(key), id);
    return id;
  }

  // Bucket mean, else the slot's line kept between its nearest measured
  // buckets. Returns a negative value when the slot knows nothing at `cls`.
  double own_prediction(const Slot& s, int cls, double work) const {
    uint64_t seen = s.seen.load(std::memory_order_acquire);
    if (seen & (1ull << cls)) return s.buckets[static_cast<size_t>(cls)].mean.load(std::memory_order_relaxed);
    double a, b;
    if (!s.fit.read(&a, &b)) return -1;
    double p = s.fit.at(a, b, work);
    // A straight line fitted over many decades of work can be far off at
    // either end; measured neighbours bound it because time grows with
    // work: not faster than the nearest smaller class, not slower than the
    // nearest larger one.
    uint64_t below = seen & ((1ull << cls) - 1);
    uint64_t above = cls + 1 < kNumBuckets ? seen & ~((2ull << cls) - 1) : 0;
    double lo = below ? s.buckets[static_cast<size_t>(63 - std::countl_zero(below))].mean.load(std::memory_order_relaxed) : 0;
    double hi = above ? s.buckets[static_cast<size_t>(std::countr_zero(above))].mean.load(std::memory_order_relaxed)
                      : std::numeric_limits<double>::infinity();
    if (lo > hi) std::swap(lo, hi);  // noisy neighbours: still bound by both
    return std::clamp(p, lo, hi);
  }

  double pooled(int device, double work) const {
    double a, b;
    if (!devices[static_cast<size_t>(device)]->fit.read(&a, &b)) return -1;
    return devices[static_cast<size_t>(device)]->fit.at(a, b, work);
  }

  // The prediction chain, most specific first:
  //  1. the bucket of this shape class, if it has a sample: a direct
  //     measurement of nearly this shape beats any model;
  //  2. the slot's own line (>= 2 distinct work sizes), bounded by the
  //     nearest measured classes on either side;
  //  3. the same op measured on a sibling device, scaled by the ratio of
  //     the two devices' pooled lines at this work;
  //  4. this device's pooled line over all its ops;
  //  5. a fixed guess, 1 us + 0.5 ns per unit of work.
  // Lock-free: reads only atomics and immutable slot fields.
  double predict(const Slot& s, double work) const {
    int cls = shape_class(work);
    double own = own_prediction(s, cls, work);
    if (own >= 0) return own;
    if (prior) {
      const double p = prior(s.op, s.device, work);
      if (p >= 0) return std::max(p, kMinPredictUs);
    }
    // The same op measured on another device says more about this op's
    // scaling than the pooled line of unrelated ops does; the pooled lines
    // of the two devices, evaluated at this work, give their speed ratio.
    double here = pooled(s.device_index, work);
    if (here > 0) {
      int hop = s.next_sibling.load(std::memory_order_acquire);
      for (int i = 0; i < kMaxSiblingHops && hop >= 0; ++i) {
        const Slot* t = get(hop);
        if (!t || t == &s) break;
        double theirs = own_prediction(*t, cls, work);
        double there = pooled(t->device_index, work);
        if (theirs >= 0 && there > 0) return std::max(theirs * std::clamp(here / there, 1e-3, 1e3), kMinPredictUs);
        hop = t->next_sibling.load(std::memory_order_acquire);
      }
      return here;
    }
    return default_guess(work);
  }
};

CostModel::CostModel() : impl_(std::make_unique<Impl>()) {
  for (auto& x : impl_->issue) x.store(-1, std::memory_order_relaxed);
}
CostModel::~CostModel() = default;

double CostModel::issue_us(int device) const {
  if (device < 0 || device >= kMaxDevices) return 0;
  return std::max(impl_->issue[static_cast<size_t>(device)].load(std::memory_order_relaxed), 0.0);
}

void CostModel::record_issue(int device, double measured_us) {
  if (device < 0 || device >= kMaxDevices || !(measured_us >= 0) || !std::isfinite(measured_us)) return;
  follow_average(impl_->issue[static_cast<size_t>(device)], measured_us);
}

void CostModel::set_topology(const Topology& topology) {
  std::lock_guard<std::mutex> l(impl_->mu);
  impl_->topology = topology;
  // Links loaded from a profile before the topology was known apply now.
  Topology& t = impl_->topology;
  for (const PendingLink& p : impl_->pending_links) {
    for (size_t i = 0; i < t.num_spaces(); ++i)
      for (size_t j = 0; j < t.num_spaces(); ++j)
        if (i != j && t.space(static_cast<int>(i)).to_string() == p.from && t.space(static_cast<int>(j)).to_string() == p.to)
          t.set_link(static_cast<int>(i), static_cast<int>(j), p.link);
  }
}

const Topology& CostModel::topology() const { return impl_->topology; }

double CostModel::transfer_us(int from_space, int to_space, uint64_t bytes) const {
  if (from_space == to_space) return 0;
  const double learned = impl_->links.transfer_us(from_space, to_space, bytes);
  return learned >= 0 ? learned : impl_->topology.transfer_us(from_space, to_space, bytes);
}

void CostModel::record_copy(int from_space, int to_space, uint64_t bytes, double measured_us) {
  const Topology& t = impl_->topology;
  const int n = static_cast<int>(t.num_spaces());
  if (from_space < 0 || to_space < 0 || from_space >= n || to_space >= n) return;
  impl_->links.record(from_space, to_space, bytes, measured_us, t.link(from_space, to_space).latency_us);
}

double CostModel::copy_issue_us(int from_space, int to_space) const {
  return impl_->links.issue_us(from_space, to_space);
}

void CostModel::record_copy_issue(int from_space, int to_space, double measured_us) {
  impl_->links.record_issue(from_space, to_space, measured_us);
}

void CostModel::set_prior(Prior prior) { impl_->prior = std::move(prior); }

int CostModel::slot(const Node& node, DeviceId device) {
  std::string op = node.op_key();
  std::lock_guard<std::mutex> l(impl_->mu);
  return impl_->find_or_create(op, device.to_string());
}

double CostModel::work(int slot, std::span<const Dims* const> in) const {
  const Slot* s = impl_->get(slot);
  OpClass cls = s ? s->op_class : OpClass::kGeneric;
  // Products in double: no overflow, and precision beyond 2^53 is moot.
  auto prod = [](const Dims& d, size_t from, size_t to) {
    double p = 1;
    for (size_t i = from; i < to && i < d.size(); ++i) p *= static_cast<double>(std::max<int64_t>(d[i], 0));
    return p;
  };
  const Dims* a = in.size() > 0 ? in[0] : nullptr;
  const Dims* b = in.size() > 1 ? in[1] : nullptr;
  double w = -1;
  if (a && b && !a->empty() && !b->empty()) {
    switch (cls) {
      case OpClass::kMatMul: {
        // [..., M, K] x [..., K, N]; a rank-1 operand is a vector. Batch
        // dims broadcast, so the larger batch product is the work's.
        size_t ra = a->size(), rb = b->size();
        double m = ra >= 2 ? static_cast<double>((*a)[ra - 2]) : 1;
        double k = static_cast<double>(a->back());
        double n = rb >= 2 ? static_cast<double>(b->back()) : 1;
        double batch = std::max(ra > 2 ? prod(*a, 0, ra - 2) : 1.0, rb > 2 ? prod(*b, 0, rb - 2) : 1.0);
        w = batch * std::max(m, 0.0) * std::max(k, 0.0) * std::max(n, 0.0);
        break;
      }
      case OpClass::kGemm: {
        if (a->size() != 2 || b->size() != 2) break;
        // numel(A) * numel(B) / K = M*K*N whatever transA/transB are; K is
        // the extent the two operands share (the usual, untransposed pairing
        // first).
        double a0 = static_cast<double>((*a)[0]), a1 = static_cast<double>((*a)[1]);
        double b0 = static_cast<double>((*b)[0]), b1 = static_cast<double>((*b)[1]);
        double k = a1 == b0 ? a1 : a1 == b1 ? a1 : a0 == b0 ? a0 : a0 == b1 ? a0 : a1;
        w = k > 0 ? prod(*a, 0, 2) * prod(*b, 0, 2) / k : 0;
        break;
      }
      case OpClass::kConv: {
        // X [N, C, spatial...], W [Cout, Cin/g, k...] (ConvTranspose:
        // [Cin, Cout/g, k...]). Either way N * prod(W) * spatial(X) counts
        // the multiply-adds, taking output spatial ~ input spatial.
        if (a->size() < 2 || b->size() < 2) break;
        w = static_cast<double>(std::max<int64_t>((*a)[0], 0)) * prod(*b, 0, b->size()) * prod(*a, 2, a->size());
        break;
      }
      case OpClass::kConvNhwc: {
        // The same count with X [N, H, W, C] (ir/channels_last.h).
        if (a->size() < 2 || b->size() < 2) break;
        w = static_cast<double>(std::max<int64_t>((*a)[0], 0)) * prod(*b, 0, b->size()) * prod(*a, 1, a->size() - 1);
        break;
      }
      case OpClass::kGeneric: break;
    }
  }
  if (w < 0) {
    w = 0;
    for (const Dims* d : in)
      if (d) w += prod(*d, 0, d->size());
  }
  return std::max(w, 1.0);
}

double CostModel::predict_us(int slot, double work) const {
  work = sanitize_work(work);
  const Slot* s = impl_->get(slot);
  return s ? impl_->predict(*s, work) : default_guess(work);
}

int64_t CostModel::samples(int slot, double work) const {
  const Slot* s = impl_->get(slot);
  if (!s) return 0;
  work = sanitize_work(work);
  const auto n = static_cast<int64_t>(s->buckets[static_cast<size_t>(shape_class(work))].count.load(std::memory_order_relaxed));
  if (n == 0 && impl_->prior && impl_->prior(s->op, s->device, work) >= 0) return kPriorSamples;
  return n;
}

void CostModel::record(int slot, double work, double measured_us) {
  Slot* s = impl_->get(slot);
  if (!s || !std::isfinite(measured_us) || measured_us < 0) return;
  work = sanitize_work(work);
  Impl& m = *impl_;

  if (measured_us > 0) {
    double rel = std::abs(m.predict(*s, work) - measured_us) / measured_us;
    int64_t i = m.err_samples.fetch_add(1, std::memory_order_relaxed);
    m.err_sum.fetch_add(rel, std::memory_order_relaxed);
    m.err_ring[static_cast<size_t>(i % kErrorRing)].store(static_cast<float>(rel), std::memory_order_relaxed);
  }

  int cls = shape_class(work);
  Bucket& b = s->buckets[static_cast<size_t>(cls)];
  uint64_t n = b.count.fetch_add(1, std::memory_order_relaxed) + 1;
  // Concurrent records of one bucket may lose an update; acceptable for a
  // running estimate, and it keeps record() free of locks here.
  double old = b.mean.load(std::memory_order_relaxed);
  double alpha = std::max(1.0 / static_cast<double>(n), kEwmaAlpha);
  // A first execution is often cold (page faults, JIT, thread start-up) and
  // can be 10-100x the steady time; if an early sample says so, drop the
  // cold one instead of averaging it in, or the device may look slow for
  // good and never be tried again.
  const bool cold_before = n > 1 && n <= kColdSamples && measured_us < 0.5 * old;
  b.mean.store(n == 1 || cold_before ? measured_us : old + alpha * (measured_us - old), std::memory_order_relaxed);
  s->seen.fetch_or(1ull << cls, std::memory_order_release);

  {
    std::lock_guard<SpinLock> l(s->lock);
    s->line.add(work, measured_us);
    s->fit.publish(s->line);
  }
  DeviceStats& d = *m.devices[static_cast<size_t>(s->device_index)];
  std::lock_guard<SpinLock> l(d.lock);
  d.line.add(work, measured_us);
  d.fit.publish(d.line);
}

PredictionError CostModel::error() const {
  PredictionError e;
  e.samples = impl_->err_samples.load(std::memory_order_relaxed);
  if (e.samples == 0) return e;
  e.mean_abs_rel = impl_->err_sum.load(std::memory_order_relaxed) / static_cast<double>(e.samples);
  size_t k = static_cast<size_t>(std::min<int64_t>(e.samples, kErrorRing));
  std::array<float, kErrorRing> v;
  for (size_t i = 0; i < k; ++i) v[i] = impl_->err_ring[i].load(std::memory_order_relaxed);
  std::nth_element(v.begin(), v.begin() + k / 2, v.begin() + k);
  e.median_abs_rel = v[k / 2];
  return e;
}

Status CostModel::load(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound("cost profile '", path, "' not found");
  // A folder opens as a stream, and reading it throws out of the parser.
  if (!std::filesystem::is_regular_file(path, ec))
    return InvalidArgument("cost profile '", path, "' is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("cost profile '", path, "': cannot be read");
  json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgument("cost profile '", path, "': not valid JSON");
  if (!doc.is_object()) return bad(path, "top level", "must be an object");
  auto ver = doc.find("version");
  if (ver == doc.end() || !ver->is_number_integer() || ver->get<int64_t>() != 1)
    return bad(path, "version", "must be 1");

  std::vector<ParsedOp> ops;
  if (auto it = doc.find("ops"); it != doc.end()) {
    if (!it->is_array()) return bad(path, "ops", "must be an array");
    if (it->size() > static_cast<size_t>(kMaxSlots)) return bad(path, "ops", "too many entries");
    for (size_t i = 0; i < it->size(); ++i) {
      ASSIGN_OR_RETURN(ParsedOp p, parse_op((*it)[i], i, path));
      ops.push_back(std::move(p));
    }
  }
  std::vector<PendingLink> links;
  if (auto it = doc.find("links"); it != doc.end()) {
    if (!it->is_array()) return bad(path, "links", "must be an array");
    for (size_t i = 0; i < it->size(); ++i) {
      const json& e = (*it)[i];
      std::string where = str_cat("links[", i, "]");
      if (!e.is_object()) return bad(path, where, "must be an object");
      PendingLink p;
      ASSIGN_OR_RETURN(p.from, get_name(e, "from", path, where));
      ASSIGN_OR_RETURN(p.to, get_name(e, "to", path, where));
      ASSIGN_OR_RETURN(p.link.latency_us, get_number(e, "latency_us", path, where));
      ASSIGN_OR_RETURN(p.link.bandwidth_gbps, get_number(e, "bandwidth_gbps", path, where));
      links.push_back(std::move(p));
    }
  }

  // Everything validated: merge.
  Impl& m = *impl_;
  std::lock_guard<std::mutex> l(m.mu);
  for (const ParsedOp& p : ops) {
    int id = m.find_or_create(p.op, p.device);
    if (id < 0) return ResourceExhausted("cost profile '", path, "': too many (op, device) entries");
    Slot& s = *m.get(id);
    for (const auto& [cls_d, mean, count] : p.buckets) {
      int cls = static_cast<int>(cls_d);
      Bucket& b = s.buckets[static_cast<size_t>(cls)];
      double have = static_cast<double>(b.count.load(std::memory_order_relaxed));
      double total = have + count;
      b.mean.store((b.mean.load(std::memory_order_relaxed) * have + mean * count) / total, std::memory_order_relaxed);
      b.count.store(static_cast<uint64_t>(total), std::memory_order_relaxed);
      s.seen.fetch_or(1ull << cls, std::memory_order_release);
    }
    if (p.line.n > 0) {
      {
        std::lock_guard<SpinLock> sl(s.lock);
        s.line.merge(p.line);
        s.fit.publish(s.line);
      }
      DeviceStats& d = *m.devices[static_cast<size_t>(s.device_index)];
      std::lock_guard<SpinLock> dl(d.lock);
      d.line.merge(p.line);
      d.fit.publish(d.line);
    }
  }
  Topology& t = m.topology;
  for (PendingLink& p : links) {
    int from = -1, to = -1;
    for (size_t i = 0; i < t.num_spaces(); ++i) {
      if (t.space(static_cast<int>(i)).to_string() == p.from) from = static_cast<int>(i);
      if (t.space(static_cast<int>(i)).to_string() == p.to) to = static_cast<int>(i);
    }
    if (from >= 0 && to >= 0 && from != to) t.set_link(from, to, p.link);
    // Kept either way: a later set_topology() may bring these spaces, and
    // save() writes them back so a profile survives a partial session.
    auto same = [&](const PendingLink& q) { return q.from == p.from && q.to == p.to; };
    auto old = std::find_if(m.pending_links.begin(), m.pending_links.end(), same);
    if (old != m.pending_links.end()) {
      old->link = p.link;
    } else {
      m.pending_links.push_back(std::move(p));
    }
  }
  return OkStatus();
}

Status CostModel::save(const std::string& path) const {
  Impl& m = *impl_;
  // ordered_json keeps "version" first and fields in reading order.
  using ojson = nlohmann::ordered_json;
  ojson ops = ojson::array();
  ojson links = ojson::array();
  {
    std::lock_guard<std::mutex> l(m.mu);
    int n = m.num_slots.load(std::memory_order_acquire);
    for (int id = 0; id < n; ++id) {
      Slot& s = *m.get(id);
      ojson buckets = ojson::array();
      uint64_t seen = s.seen.load(std::memory_order_acquire);
      for (int c = 0; c < kNumBuckets; ++c) {
        if (!(seen & (1ull << c))) continue;
        const Bucket& b = s.buckets[static_cast<size_t>(c)];
        uint64_t count = std::max<uint64_t>(b.count.load(std::memory_order_relaxed), 1);
        buckets.push_back(ojson::array({c, b.mean.load(std::memory_order_relaxed), count}));
      }
      LineFit line;
      {
        std::lock_guard<SpinLock> sl(s.lock);
        line = s.line;
      }
      if (buckets.empty() && line.n <= 0) continue;
      ojson e = {{"op", s.op}, {"device", s.device}, {"buckets", std::move(buckets)}};
      if (line.n > 0 && line.finite())
        e["line"] = {{"n", line.n},         {"mean_work", line.mean_x}, {"mean_us", line.mean_y},
                     {"m2_work", line.m2x}, {"cov_work_us", line.cxy},  {"min_work", line.min_x},
                     {"max_work", line.max_x}};
      ops.push_back(std::move(e));
    }
    const Topology& t = m.topology;
    auto emit = [&](const std::string& from, const std::string& to, const Link& k) {
      links.push_back({{"from", from}, {"to", to}, {"latency_us", k.latency_us}, {"bandwidth_gbps", k.bandwidth_gbps}});
    };
    for (int i = 0; i < static_cast<int>(t.num_spaces()); ++i)
      for (int j = 0; j < static_cast<int>(t.num_spaces()); ++j) {
        if (i == j) continue;
        // A link the runs measured is saved as measured: latency and
        // bandwidth of its line (one with no slope keeps the prior).
        Link k = t.link(i, j);
        double a, b;
        if (m.links.line(i, j, &a, &b) && b > 0) k = {a, 1.0 / (b * 1e3)};
        emit(t.space(i).to_string(), t.space(j).to_string(), k);
      }
    // Links of spaces this session lacks survive a load/save round trip.
    auto in_topology = [&](const std::string& name) {
      for (size_t i = 0; i < t.num_spaces(); ++i)
        if (t.space(static_cast<int>(i)).to_string() == name) return true;
      return false;
    };
    for (const PendingLink& p : m.pending_links)
      if (!in_topology(p.from) || !in_topology(p.to)) emit(p.from, p.to, p.link);
  }
  ojson doc = {{"version", 1}, {"ops", std::move(ops)}, {"links", std::move(links)}};
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return InvalidArgument("cost profile '", path, "': cannot be written");
  // Op names come from model files and may hold invalid UTF-8: replace
  // rather than let the serializer throw.
  out << doc.dump(1, ' ', false, ojson::error_handler_t::replace) << '\n';
  out.close();
  if (!out) return InvalidArgument("cost profile '", path, "': write failed");
  return OkStatus();
}

}  // namespace sy
