// sy_model_fuzz: a mutation fuzzer for everything a model file or an input
// reaches: the ONNX loader and its checks, the planner, the run loop and the
// CPU kernels. It takes real models with real inputs (the ONNX backend test
// cases, the bundled control-flow cases), breaks them in ways a bad file or
// a careless caller would (attributes set to extreme values, wrong types,
// dims that disagree with data, inputs swapped, ops renamed, bytes flipped)
// and runs each result. A mutant may be refused with any error; it must not
// crash, hang, trip a sanitizer, exhaust memory or fail with an Internal
// error, which means an invariant broke inside Switchyard.
//
// Every iteration is derived from (--seed, iteration number) alone, so any
// finding replays with --only N. A crash or a hang prints the iteration and
// what was done to the model before the process dies.
//
// ctest runs a bounded number of iterations (label unit, so the sanitizer
// build runs it too); longer campaigns: sy_model_fuzz --iterations 100000.
// With --devices cpu,cuda:0 the mutants run on a GPU as well (the gpu,
// random or dynamic policy), and a GPU memory fault is a finding too;
// scripts/gpu-check.sh runs such a campaign on the GPU machine.
//
// --replay runs the cases themselves, unmutated; --empty-claims runs each
// case once for every tensor input of rank >= 2 and ordered pair of its
// axes, the input empty along one and 2^40 (--claim-bits) long along the
// other (fuzz_cases.h), which finds kernels that step through dims that
// hold no data. ctest runs all of those (label fuzz).
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "devices/host_allocator.h"
#include "executor/clock.h"
#include "executor/session.h"
#include "ir/onnx_loader.h"
#include "onnx/onnx_pb.h"
#include "tests/fuzz/fuzz_cases.h"

namespace sy {
namespace {

// What the iteration in progress is, for the crash and hang reports. Fixed
// storage: the signal handler may only write() it.
char g_current[4096];
std::atomic<int64_t> g_started_ns{0};

void set_current(const std::string& s) {
  const size_t n = std::min(s.size(), sizeof(g_current) - 2);
  std::memcpy(g_current, s.data(), n);
  g_current[n] = '\n';
  g_current[n + 1] = '\0';
}

void report_current(const char* what) {
  const char* head = "\nsy_model_fuzz: ";
  (void)!write(2, head, std::strlen(head));
  (void)!write(2, what, std::strlen(what));
  (void)!write(2, " in ", 4);
  (void)!write(2, g_current, std::strlen(g_current));
}

// Resident memory of this process (/proc/self/statm); 0 where unknown.
int64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  long long size = 0, resident = 0;
  const int got = std::fscanf(f, "%lld %lld", &size, &resident);
  std::fclose(f);
  return got == 2 ? static_cast<int64_t>(resident) * sysconf(_SC_PAGESIZE) : 0;
}

void on_fatal_signal(int sig) {
  report_current(sig == SIGSEGV ? "SIGSEGV" : sig == SIGABRT ? "SIGABRT" : sig == SIGFPE ? "SIGFPE" : "fatal signal");
  signal(sig, SIG_DFL);
  raise(sig);
}

extern "C" void on_sanitizer_death() { report_current("sanitizer report"); }

// AddressSanitizer and UBSan end the process without a signal; they call
// this hook first (weak: absent without a sanitizer).
extern "C" void __sanitizer_set_death_callback(void (*)()) __attribute__((weak));

// --- mutations -----------------------------------------------------------------

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}
  const std::string& log() const { return log_; }

  void mutate(onnx::ModelProto& m, std::vector<std::pair<std::string, RuntimeValue>>& inputs,
              const std::vector<std::string>& op_types) {
    const int count = 1 + static_cast<int>(pick(3));
    for (int k = 0; k < count; ++k) {
      // Afresh each time: a mutation may have deleted a subgraph.
      nodes_.clear();
      graphs_.clear();
      collect(*m.mutable_graph());
      const size_t what = pick(20);
      if (what < 5) mutate_attribute();
      else if (what < 8) mutate_node(op_types);
      else if (what < 10) mutate_declared();
      else if (what < 11) mutate_initializer();
      else if (what < 12) mutate_opset(m);
      else mutate_input(m, inputs);
    }
  }

  // Flips, drops or inserts a few bytes of the serialised model.
  void mutate_bytes(std::string& bytes) {
    if (bytes.empty()) return;
    const int n = 1 + static_cast<int>(pick(8));
    for (int k = 0; k < n; ++k) {
      const size_t at = pick(bytes.size());
      switch (pick(3)) {
        case 0: bytes[at] = static_cast<char>(bytes[at] ^ (1 << pick(8))); break;
        case 1: bytes.resize(at); break;
        default: bytes.insert(at, 1, static_cast<char>(pick(256))); break;
      }
      if (bytes.empty()) break;
    }
    note("bytes x" + std::to_string(n));
  }

  bool chance(int percent) { return pick(100) < static_cast<size_t>(percent); }
  size_t pick(size_t n) { return n <= 1 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

 private:
  void note(const std::string& s) { log_ += (log_.empty() ? "" : "; ") + s; }

  void collect(onnx::GraphProto& g) {
    graphs_.push_back(&g);
    for (auto& n : *g.mutable_node()) {
      nodes_.push_back(&n);
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_g()) collect(*a.mutable_g());
        for (auto& sub : *a.mutable_graphs()) collect(sub);
      }
    }
  }

  // Values that break size and index arithmetic: zero, negatives, one past
  // the original, and sizes past any memory (never between: a mutant that
  // asks for 8 GB would only test the machine).
  int64_t interesting_int(int64_t near) {
    static constexpr int64_t kFixed[] = {0, 1, -1, 2, -2, 3, 64, int64_t{1} << 40, std::numeric_limits<int64_t>::max(),
                                         std::numeric_limits<int64_t>::min(), std::numeric_limits<int32_t>::max(),
                                         std::numeric_limits<int32_t>::min()};
    // Wrapping (through uint64_t): `near` may already be an extreme.
    const auto u = static_cast<uint64_t>(near);
    switch (pick(4)) {
      case 0: return static_cast<int64_t>(u + 1);
      case 1: return static_cast<int64_t>(u - 1);
      case 2: return static_cast<int64_t>(0 - u);
      default: return kFixed[pick(std::size(kFixed))];
    }
  }

  double interesting_float() {
    static constexpr double kFixed[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-40, 1e30, -1e30, 3.5e38, 1e300};
    if (chance(25)) return std::numeric_limits<double>::quiet_NaN();
    if (chance(20)) return chance(50) ? INFINITY : -INFINITY;
    return kFixed[pick(std::size(kFixed))];
  }

  void mutate_attribute() {
    if (nodes_.empty()) return;
    onnx::NodeProto& n = *nodes_[pick(nodes_.size())];
    if (n.attribute_size() == 0 || chance(15)) {
      // A plausible attribute the node did not have.
      static const char* kNames[] = {"axis", "axes", "keepdims", "perm", "pads", "strides", "kernel_shape", "group",
                                     "dilations", "k", "to", "mode", "auto_pad", "epsilon", "alpha", "batch_dims"};
      auto* a = n.add_attribute();
      a->set_name(kNames[pick(std::size(kNames))]);
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(interesting_int(1));
      note(n.op_type() + ": add attribute " + a->name() + "=" + std::to_string(a->i()));
      return;
    }
    const int idx = static_cast<int>(pick(static_cast<size_t>(n.attribute_size())));
    onnx::AttributeProto& a = *n.mutable_attribute(idx);
    const std::string where = n.op_type() + "." + a.name();
    if (chance(10)) {
      n.mutable_attribute()->DeleteSubrange(idx, 1);
      note(where + ": removed");
      return;
    }
    switch (a.type()) {
      case onnx::AttributeProto::INT:
        a.set_i(interesting_int(a.i()));
        note(where + "=" + std::to_string(a.i()));
        break;
      case onnx::AttributeProto::INTS:
        if (a.ints_size() > 0 && chance(70)) {
          const int i = static_cast<int>(pick(static_cast<size_t>(a.ints_size())));
          a.set_ints(i, interesting_int(a.ints(i)));
          note(where + "[" + std::to_string(i) + "]=" + std::to_string(a.ints(i)));
        } else if (a.ints_size() > 0 && chance(50)) {
          a.mutable_ints()->RemoveLast();
          note(where + ": last removed");
        } else {
          a.add_ints(interesting_int(1));
          note(where + ": appended " + std::to_string(a.ints(a.ints_size() - 1)));
        }
        break;
      case onnx::AttributeProto::FLOAT:
        a.set_f(static_cast<float>(interesting_float()));
        note(where + "=" + std::to_string(a.f()));
        break;
      case onnx::AttributeProto::FLOATS:
        if (a.floats_size() > 0) {
          const int i = static_cast<int>(pick(static_cast<size_t>(a.floats_size())));
          a.set_floats(i, static_cast<float>(interesting_float()));
          note(where + "[" + std::to_string(i) + "]=" + std::to_string(a.floats(i)));
        } else {
          a.add_floats(1.0f);
          note(where + ": appended 1");
        }
        break;
      case onnx::AttributeProto::STRING: {
        static const char* kStrings[] = {"", "garbage", "constant", "reflect", "edge", "wrap", "NOTSET", "SAME_UPPER",
                                         "SAME_LOWER", "VALID", "linear", "nearest", "cubic", "half_pixel",
                                         "asymmetric", "tf_crop_and_resize", "DCR", "CRD", "floor", "round_prefer_ceil"};
        a.set_s(kStrings[pick(std::size(kStrings))]);
        note(where + "=\"" + a.s() + "\"");
        break;
      }
      case onnx::AttributeProto::TENSOR:
        mutate_tensor(*a.mutable_t(), where);
        break;
      case onnx::AttributeProto::GRAPH:
        // A body with one input or output fewer than its op expects.
        if (a.g().output_size() > 0 && chance(50)) {
          a.mutable_g()->mutable_output()->RemoveLast();
          note(where + ": last body output removed");
        } else if (a.g().input_size() > 0) {
          a.mutable_g()->mutable_input()->RemoveLast();
          note(where + ": last body input removed");
        }
        break;
      default:
        // Change the declared kind but not the payload.
        a.set_type(onnx::AttributeProto::INT);
        note(where + ": type set to INT");
        break;
    }
  }

  void mutate_tensor(onnx::TensorProto& t, const std::string& where) {
    switch (pick(4)) {
      case 0:
        if (t.dims_size() > 0) {
          const int i = static_cast<int>(pick(static_cast<size_t>(t.dims_size())));
          t.set_dims(i, interesting_int(t.dims(i)));
          note(where + ": tensor dim " + std::to_string(i) + "=" + std::to_string(t.dims(i)));
        } else {
          t.add_dims(2);
          note(where + ": tensor gains a dim of 2");
        }
        break;
      case 1:
        t.set_data_type(static_cast<int32_t>(pick(18)));
        note(where + ": tensor type " + std::to_string(t.data_type()));
        break;
      case 2:
        if (t.has_raw_data() && !t.raw_data().empty()) {
          t.mutable_raw_data()->resize(pick(t.raw_data().size()));
          note(where + ": raw data truncated to " + std::to_string(t.raw_data().size()));
        } else if (t.int64_data_size() > 0) {
          const int i = static_cast<int>(pick(static_cast<size_t>(t.int64_data_size())));
          t.set_int64_data(i, interesting_int(t.int64_data(i)));
          note(where + ": int64 value " + std::to_string(t.int64_data(i)));
        } else {
          t.add_float_data(1.0f);
          note(where + ": an extra float value");
        }
        break;
      default:
        if (t.has_raw_data() && t.raw_data().size() >= 8) {
          // Extreme bytes: as int64 a huge index, as float a NaN or inf.
          const size_t at = pick(t.raw_data().size() / 8) * 8;
          const int64_t v = interesting_int(0);
          std::memcpy(&(*t.mutable_raw_data())[at], &v, 8);
          note(where + ": raw bytes at " + std::to_string(at) + " set to " + std::to_string(v));
        } else {
          t.clear_dims();
          note(where + ": tensor dims cleared");
        }
        break;
    }
  }

  void mutate_node(const std::vector<std::string>& op_types) {
    if (nodes_.empty()) return;
    onnx::NodeProto& n = *nodes_[pick(nodes_.size())];
    const std::string op = n.op_type();
    switch (pick(6)) {
      case 0:
        if (n.input_size() >= 2) {
          const int i = static_cast<int>(pick(static_cast<size_t>(n.input_size())));
          const int j = static_cast<int>(pick(static_cast<size_t>(n.input_size())));
          std::swap(*n.mutable_input(i), *n.mutable_input(j));
          note(op + ": inputs " + std::to_string(i) + " and " + std::to_string(j) + " swapped");
        }
        break;
      case 1:
        if (n.input_size() > 0) {
          // Another value of the model: of another type or shape, or later
          // in the graph (a cycle).
          const onnx::NodeProto& other = *nodes_[pick(nodes_.size())];
          const int i = static_cast<int>(pick(static_cast<size_t>(n.input_size())));
          const auto& pool = chance(50) ? other.output() : other.input();
          if (!pool.empty()) {
            n.set_input(i, pool[static_cast<int>(pick(static_cast<size_t>(pool.size())))]);
            note(op + ": input " + std::to_string(i) + " := '" + n.input(i) + "'");
          }
        }
        break;
      case 2:
        if (n.input_size() > 0 && chance(50)) {
          const int i = static_cast<int>(pick(static_cast<size_t>(n.input_size())));
          n.set_input(i, "");
          note(op + ": input " + std::to_string(i) + " omitted");
        } else if (n.input_size() > 0) {
          n.mutable_input()->RemoveLast();
          note(op + ": last input dropped");
        }
        break;
      case 3:
        if (n.output_size() > 1 && chance(50)) {
          n.mutable_output()->RemoveLast();
          note(op + ": last output dropped");
        } else {
          n.add_output("fuzz_extra_" + std::to_string(pick(1000)));
          note(op + ": extra output");
        }
        break;
      case 4:
        if (!op_types.empty()) {
          n.set_op_type(op_types[pick(op_types.size())]);
          note(op + " -> " + n.op_type());
        }
        break;
      default:
        if (n.input_size() > 0) {
          n.add_input(n.input(0));
          note(op + ": input 0 repeated at the end");
        }
        break;
    }
  }

  // The graph's declared inputs and outputs.
  void mutate_declared() {
    auto* g = graphs_[pick(graphs_.size())];
    const bool output = chance(40);
    auto* list = output ? g->mutable_output() : g->mutable_input();
    if (list->empty()) return;
    const int i = static_cast<int>(pick(static_cast<size_t>(list->size())));
    onnx::ValueInfoProto& v = *list->Mutable(i);
    const std::string where = std::string(output ? "output " : "input ") + v.name();
    auto* tt = v.mutable_type()->mutable_tensor_type();
    switch (pick(4)) {
      case 0:
        tt->set_elem_type(static_cast<int32_t>(pick(18)));
        note(where + ": declared type " + std::to_string(tt->elem_type()));
        break;
      case 1:
        if (tt->has_shape() && tt->shape().dim_size() > 0) {
          auto* d = tt->mutable_shape()->mutable_dim(static_cast<int>(pick(static_cast<size_t>(tt->shape().dim_size()))));
          d->set_dim_value(interesting_int(d->dim_value()));
          note(where + ": declared dim " + std::to_string(d->dim_value()));
        } else {
          tt->mutable_shape()->add_dim()->set_dim_value(3);
          note(where + ": declared rank grows");
        }
        break;
      case 2:
        list->DeleteSubrange(i, 1);
        note(where + ": removed from the graph's list");
        break;
      default:
        *list->Add() = v;
        note(where + ": declared twice");
        break;
    }
  }

  void mutate_initializer() {
    std::vector<onnx::TensorProto*> inits;
    for (auto* g : graphs_)
      for (auto& t : *g->mutable_initializer()) inits.push_back(&t);
    if (inits.empty()) return;
    onnx::TensorProto& t = *inits[pick(inits.size())];
    mutate_tensor(t, "initializer " + t.name());
  }

  void mutate_opset(onnx::ModelProto& m) {
    static constexpr int64_t kVersions[] = {1, 6, 7, 9, 10, 11, 12, 13, 16, 17, 18, 21, 1000, -1};
    if (chance(20)) {
      m.set_ir_version(static_cast<int64_t>(pick(12)));
      note("ir_version " + std::to_string(m.ir_version()));
      return;
    }
    if (m.opset_import_size() == 0) return;
    auto* op = m.mutable_opset_import(0);
    op->set_version(kVersions[pick(std::size(kVersions))]);
    note("opset " + std::to_string(op->version()));
  }

  // Random contents: small non-negative integers (valid indices and sizes
  // mostly), floats in [-2, 2), with extreme values mixed in.
  void fill(Tensor& t) {
    if (t.dtype() == DataType::kString) {
      for (int64_t i = 0; i < t.numel(); ++i) t.data<std::string>()[i] = chance(50) ? "" : "fuzz";
      return;
    }
    visit_numeric(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* p = t.data<T>();
      for (int64_t i = 0; i < t.numel(); ++i) {
        if constexpr (std::is_same_v<T, bool>) {
          p[i] = chance(50);
        } else if constexpr (std::is_integral_v<T>) {
          p[i] = static_cast<T>(chance(10) ? interesting_int(3) : static_cast<int64_t>(pick(8)));
        } else {
          const double v = chance(10) ? interesting_float() : std::uniform_real_distribution<double>(-2, 2)(rng_);
          p[i] = T(static_cast<float>(v));
        }
      }
    });
  }

  // A runtime input: other dims, another type, extreme values, missing, or
  // an extra one. Half the time the graph's declaration follows, so the
  // input passes validation and reaches the kernels.
  void mutate_input(onnx::ModelProto& m, std::vector<std::pair<std::string, RuntimeValue>>& inputs) {
    if (inputs.empty()) return;
    const size_t i = pick(inputs.size());
    auto& [name, value] = inputs[i];
    if (!value.is_tensor()) return;
    const Tensor& old = value.tensor();
    const size_t what = pick(10);
    if (what == 0) {
      note("input " + name + " left out");
      inputs.erase(inputs.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
    if (what == 1) {
      note("unknown input added");
      inputs.emplace_back("fuzz_unknown_input", value);
      return;
    }
    if (what < 5) {
      // Values only: same shape and type.
      auto t = Tensor::host(old.dtype(), old.dims());
      if (!t.ok() || old.numel() == 0 || old.dtype() == DataType::kString) return;
      std::memcpy(t->raw(), old.raw(), old.nbytes());
      const int64_t at = static_cast<int64_t>(pick(static_cast<size_t>(old.numel())));
      visit_numeric(old.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) t->template data<T>()[at] = static_cast<T>(interesting_int(t->template data<T>()[at]));
        else if constexpr (!std::is_integral_v<T>) t->template data<T>()[at] = T(static_cast<float>(interesting_float()));
      });
      note("input " + name + "[" + std::to_string(at) + "] extreme");
      value = RuntimeValue(std::move(t).value());
      return;
    }
    DataType dtype = old.dtype();
    Dims dims = old.dims();
    if (what < 8) {
      // Other dims, each small, so the tensor stays small.
      const size_t rank = chance(70) ? dims.size() : pick(5);
      Dims nd;
      for (size_t d = 0; d < rank; ++d) nd.push_back(d < dims.size() && chance(60) ? dims[d] : static_cast<int64_t>(pick(5)));
      if (nd.size() >= 2 && chance(20)) {
        // Empty, with a huge dim besides: it costs nothing to hold, so a
        // kernel that sizes a table by the dims must not take them on trust.
        static constexpr int64_t kHuge[] = {int64_t{1} << 20, int64_t{1} << 31, int64_t{1} << 40};
        const size_t zero = pick(nd.size()), huge = (zero + 1 + pick(nd.size() - 1)) % nd.size();
        nd[zero] = 0;
        nd[huge] = kHuge[pick(std::size(kHuge))];
      }
      dims = nd;
    } else {
      static constexpr DataType kTypes[] = {DataType::kFloat, DataType::kDouble, DataType::kInt64, DataType::kInt32,
                                            DataType::kInt8,  DataType::kUInt8,  DataType::kBool,  DataType::kFloat16,
                                            DataType::kString};
      dtype = kTypes[pick(std::size(kTypes))];
    }
    if (dims.numel() > (int64_t{1} << 20)) return;
    auto t = Tensor::host(dtype, dims);
    if (!t.ok()) return;
    fill(*t);
    note("input " + name + " := " + t->describe());
    value = RuntimeValue(std::move(t).value());
    if (chance(50)) {
      for (auto& in : *m.mutable_graph()->mutable_input()) {
        if (in.name() != name) continue;
        auto* tt = in.mutable_type()->mutable_tensor_type();
        tt->set_elem_type(static_cast<int32_t>(dtype));
        tt->clear_shape();
        auto* shape = tt->mutable_shape();  // the checker wants one, even of rank 0
        for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
        note("declared to match");
      }
    }
  }

  std::mt19937_64 rng_;
  std::string log_;
  std::vector<onnx::NodeProto*> nodes_;
  std::vector<onnx::GraphProto*> graphs_;
};

// --- one iteration ----------------------------------------------------------------

struct Tally {
  int64_t load_refused = 0, session_refused = 0, run_failed = 0, ran = 0;
  std::vector<std::string> internal;  // Internal errors: bugs
  std::string gpu_fault;              // a GPU kernel's memory fault: a bug, and the end of the campaign
};

struct Config {
  uint64_t seed = 1;
  int64_t timeout_ms = 2000;
  bool verbose = false;
  // "--replay" or "--empty-claims", the flag under which iteration i runs
  // case i as it is; empty: iterations run mutants.
  std::string replay;
  std::string dump;
  std::string devices;  // empty: cpu, or cpu:0,cpu:1 under random
};

// CUDA's sticky errors: a kernel read or wrote out of bounds (or worse).
// They fail the run as RuntimeError, like any runtime failure, but are bugs
// whatever the input; and the GPU context is unusable afterwards.
bool is_gpu_fault(const Status& st) {
  for (const char* sign : {"illegal memory access", "illegal instruction", "misaligned address",
                           "unspecified launch failure", "device-side assert", "invalid program counter",
                           "hardware stack error"})
    if (st.message().find(sign) != std::string::npos) return true;
  return false;
}

uint64_t iteration_seed(uint64_t seed, int64_t i) {
  // splitmix64 of the pair, so neighbouring iterations are unrelated.
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(i) + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void run_iteration(const FuzzCases& cases, const std::vector<std::string>& op_types, const Config& cfg,
                   int64_t iter, Tally& tally) {
  const uint64_t seed = cfg.seed;
  const bool verbose = cfg.verbose;
  Mutator mut(iteration_seed(seed, iter));
  const bool replaying = !cfg.replay.empty();
  set_current("iteration " + std::to_string(iter) + ", while making its case");
  Seed s = replaying ? cases.replay(static_cast<size_t>(iter)) : cases.seeds()[mut.pick(cases.seeds().size())];
  set_current("iteration " + std::to_string(iter) + ", while mutating " + s.name);
  onnx::ModelProto& m = s.model;
  auto& inputs = s.inputs;
  if (!replaying) mut.mutate(m, inputs, op_types);
  std::string bytes = m.SerializeAsString();
  if (!replaying && mut.chance(5)) mut.mutate_bytes(bytes);
  // One device (the cpu or the dynamic policy), or two with separate
  // memories under the random policy, so that copies and the device threads
  // are fuzzed too. With --devices (a GPU), those devices under the gpu,
  // random or dynamic policy. A replayed case runs on the cpu, or under
  // the gpu policy.
  SessionOptions opt;
  const size_t placement = replaying ? 0 : mut.pick(4);
  if (cfg.devices.empty()) {
    opt.policy = placement == 0 ? "cpu" : placement == 1 ? "random" : "dynamic";
    opt.devices = placement == 1 ? "cpu:0,cpu:1" : "cpu";
  } else {
    opt.policy = placement == 0 ? "gpu" : placement == 1 ? "random" : "dynamic";
    opt.devices = cfg.devices;
  }
  opt.policy_options.seed = iter;
  const std::string replay = (replaying ? cfg.replay : "--seed " + std::to_string(seed)) + " --only " +
                             std::to_string(iter) + (cfg.devices.empty() ? "" : " --devices " + cfg.devices);
  const std::string what = "iteration " + std::to_string(iter) + " (" + replay + "): " + s.name + " [" + opt.devices +
                           ", " + opt.policy + "]: " + mut.log();
  set_current(what);
  if (verbose) std::printf("%s\n", what.c_str()), std::fflush(stdout);
  if (!cfg.dump.empty()) std::ofstream(cfg.dump, std::ios::binary) << bytes;
  g_started_ns = SteadyClock::instance().now_ns();

  auto check = [&](const Status& st, int64_t& counter) {
    ++counter;
    if (st.message().empty() || st.code() == StatusCode::kInternal)
      tally.internal.push_back(what + "\n    -> " + st.to_string());
    if (is_gpu_fault(st)) tally.gpu_fault = what + "\n    -> " + st.to_string();
    if (verbose) std::printf("    -> %s\n", st.to_string().c_str());
  };
  // On CPUs, every other mutant loads as the CLI loads it for CPUs, with
  // chains of convolutions channels-last (ir/channels_last.h).
  LoadOptions load;
  load.channels_last = cfg.devices.empty() && iter % 2 == 0;
  auto model = OnnxLoader(load).load_bytes(bytes, s.name, "");
  if (!model.ok()) return check(model.status(), tally.load_refused);
  auto session = Session::create(std::shared_ptr<const Model>(std::move(model).value()), opt);
  if (!session.ok()) return check(session.status(), tally.session_refused);
  std::map<std::string, RuntimeValue> feeds(inputs.begin(), inputs.end());
  RunOptions ro;
  ro.timeout_ms = cfg.timeout_ms;
  auto r = (*session)->run(feeds, ro);
  if (!r.ok()) return check(r.status(), tally.run_failed);
  ++tally.ran;
}

}  // namespace
}  // namespace sy

int main(int argc, char** argv) {
  using namespace sy;
  CLI::App app("Mutation fuzzer: breaks real models and inputs, and runs them; any crash, hang, sanitizer report or "
               "Internal error is a failure");
  Config cfg;
  int64_t iterations = 1000;
  int64_t only = -1, first_iteration = 0;
  int hang_s = 60;
  double max_seconds = 0;
  std::vector<std::string> corpus_dirs;
  app.add_option("--iterations", iterations, "Run the iterations before this one (from 0, or from --first)")
      ->capture_default_str();
  app.add_option("--seed", cfg.seed, "Campaign seed")->capture_default_str();
  app.add_option("--only", only, "Run just this iteration (a reproducer), verbosely");
  app.add_option("--first", first_iteration, "Start at this iteration")->check(CLI::NonNegativeNumber);
  bool replay = false, empty_claims = false;
  auto* replay_flag = app.add_flag("--replay", replay,
                                   "Run each case once as it is, unmutated (iteration i is case i, --iterations at "
                                   "most the cases): to try inputs made elsewhere");
  auto* empty_claims_flag =
      app.add_flag("--empty-claims", empty_claims,
                   "Replay each case once for every tensor input of rank >= 2 and ordered pair of its axes, the "
                   "input made empty along one and 2^40 (--claim-bits) long along the other")
          ->excludes(replay_flag);
  int claim_bits = FuzzCases::kDefaultClaimBits;
  app.add_option("--claim-bits", claim_bits,
                 "With --empty-claims, the huge dim is 2^N long: 40 finds loops over it, 31 tables the host grants "
                 "under overcommit and then fills (which --max-rss-mb reports)")
      ->check(CLI::Range(1, 62))
      ->needs(empty_claims_flag)
      ->capture_default_str();
  app.add_option("--corpus", corpus_dirs, "Folders of case folders (model.onnx with test_data_set_0/ or inputs/)")
      ->required();
  app.add_option("--devices", cfg.devices,
                 "Run every mutant on these devices (e.g. cpu,cuda:0) under the gpu, random or dynamic policy; "
                 "default: cpu, or cpu:0,cpu:1 under random");
  app.add_option("--max-seconds", max_seconds, "Stop starting mutants after this long (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--run-timeout-ms", cfg.timeout_ms, "Time limit for each run")->capture_default_str();
  app.add_option("--hang-s", hang_s, "An iteration this much longer than its run limit is a hang")->capture_default_str();
  int64_t max_rss_mb = 8192;
  app.add_option("--max-rss-mb", max_rss_mb,
                 "Resident memory past which the iteration in progress is a finding: tensors get 1 GiB in all, so "
                 "the rest is tables a kernel sized from what its inputs claim (0: no limit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--dump", cfg.dump, "Write each mutant model to this file before running it");
  app.add_flag("-v,--verbose", cfg.verbose, "Print every iteration and its outcome");
  CLI11_PARSE(app, argc, argv);

  // Mutants may ask for any size; above this they get ResourceExhausted,
  // and the machine's memory is never at stake.
  HostAllocator::host().set_capacity(uint64_t{1} << 30);
  for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL}) signal(sig, on_fatal_signal);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_sanitizer_death);

  // Devices that cannot be opened would refuse every mutant: say so instead.
  if (!cfg.devices.empty()) {
    if (auto devs = create_devices(cfg.devices); !devs.ok()) {
      std::fprintf(stderr, "error: --devices '%s': %s\n", cfg.devices.c_str(), devs.status().message().c_str());
      return 2;
    }
  }
  const FuzzCases cases(corpus_dirs, empty_claims, claim_bits);
  if (replay || empty_claims) cfg.replay = empty_claims ? "--empty-claims" : "--replay";
  if (empty_claims && claim_bits != FuzzCases::kDefaultClaimBits)
    cfg.replay += " --claim-bits " + std::to_string(claim_bits);
  if (cases.seeds().empty()) {
    std::fprintf(stderr, "error: no test cases found under the --corpus folders\n");
    return 2;
  }
  if (empty_claims && cases.replayable() == 0) {
    std::fprintf(stderr, "error: --empty-claims: no case has a tensor input of rank 2 or more\n");
    return 2;
  }
  const size_t case_count = cfg.replay.empty() ? cases.seeds().size() : cases.replayable();
  if (!cfg.replay.empty()) {
    if (only >= static_cast<int64_t>(case_count)) {
      std::fprintf(stderr, "error: --only %lld: there are %zu cases to replay\n", static_cast<long long>(only),
                   case_count);
      return 2;
    }
    iterations = std::min<int64_t>(iterations, static_cast<int64_t>(case_count));
  }
  std::vector<std::string> op_types;
  for (const auto& s : cases.seeds())
    for (const auto& n : s.model.graph().node()) op_types.push_back(n.op_type());
  std::sort(op_types.begin(), op_types.end());
  op_types.erase(std::unique(op_types.begin(), op_types.end()), op_types.end());

  // The watchdog: a run past its own limit by --hang-s is stuck somewhere
  // the limit is not checked (a loader, a kernel). Memory past --max-rss-mb
  // is reported with its iteration, before the kernel's OOM killer ends the
  // process without one (as it did at 24 GB, a kernel filling a table per
  // claimed slice).
  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const int64_t started = g_started_ns;
      if (started &&
          SteadyClock::instance().now_ns() - started > (cfg.timeout_ms / 1000 + hang_s) * int64_t{1'000'000'000}) {
        report_current("hang");
        std::_Exit(3);
      }
      if (const int64_t rss = resident_bytes(); max_rss_mb > 0 && rss > max_rss_mb * (int64_t{1} << 20)) {
        char what[96];
        std::snprintf(what, sizeof what, "memory exhaustion (resident %lld MiB, --max-rss-mb %lld)",
                      static_cast<long long>(rss >> 20), static_cast<long long>(max_rss_mb));
        report_current(what);
        std::_Exit(4);
      }
    }
  });

  Tally tally;
  if (only >= 0) cfg.verbose = true;
  const int64_t first = only >= 0 ? only : first_iteration;
  const int64_t last = only >= 0 ? only + 1 : iterations;
  const int64_t stop_ns = SteadyClock::instance().now_ns() + static_cast<int64_t>(max_seconds * 1e9);
  int64_t i = first;
  for (; i < last && tally.gpu_fault.empty(); ++i) {
    if (max_seconds > 0 && SteadyClock::instance().now_ns() > stop_ns) break;
    run_iteration(cases, op_types, cfg, i, tally);
  }
  done = true;
  watchdog.join();

  std::printf("%lld mutants of %zu cases: %lld refused by the loader, %lld by the session, %lld failed to run, "
              "%lld ran%s\n",
              static_cast<long long>(i - first), case_count, static_cast<long long>(tally.load_refused),
              static_cast<long long>(tally.session_refused), static_cast<long long>(tally.run_failed),
              static_cast<long long>(tally.ran), i < last ? " (stopped early)" : "");
  for (const auto& f : tally.internal) std::printf("INTERNAL ERROR (a bug): %s\n", f.c_str());
  if (!tally.gpu_fault.empty()) std::printf("GPU FAULT (a bug; the campaign stopped): %s\n", tally.gpu_fault.c_str());
  return tally.internal.empty() && tally.gpu_fault.empty() ? 0 : 1;
}
