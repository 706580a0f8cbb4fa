#include "tests/devices/cuda/kernel_diff_test_util.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <mutex>
#include <random>
#include <type_traits>

#include "devices/cpu/cpu_device.h"
#include "devices/kernel.h"
#include "devices/kernel_registry.h"
#include "devices/value_compare.h"
#include "ir/str_cat.h"

namespace sy::testing {
namespace {

template <typename T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) return T(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, bool>) return v != 0;
  else return static_cast<T>(v);
}

StatusOr<Tensor> make_input(const DiffInput& in, std::mt19937_64& rng) {
  auto t = Tensor::host(in.type, in.dims);
  if (!t.ok()) return t.status();
  const int64_t n = t->numel();
  if (!in.values.empty() && static_cast<int64_t>(in.values.size()) != n)
    return InvalidArgument("input of dims ", in.dims.to_string(), " given ", in.values.size(), " values");
  const bool integral = !dtype_is_float(in.type);
  std::uniform_real_distribution<double> real(in.lo, in.hi);
  std::uniform_int_distribution<int64_t> whole(static_cast<int64_t>(in.lo), static_cast<int64_t>(in.hi));
  bool ok = visit_numeric(in.type, [&](auto zero) {
    using T = decltype(zero);
    T* p = t->data<T>();
    for (int64_t i = 0; i < n; ++i) {
      double v = 0;
      if (!in.values.empty()) {
        v = in.values[static_cast<size_t>(i)];
      } else {
        do {
          v = integral ? static_cast<double>(whole(rng)) : real(rng);
          if (in.whole) v = std::round(v);
        } while (in.nonzero && v == 0);
      }
      p[i] = from_double<T>(v);
    }
  });
  if (!ok) return InvalidArgument("no random values for ", dtype_name(in.type));
  return std::move(t).value();
}

// Runs one kernel's compute() on a device's queue, as the executor does,
// including the second launch of a kernel that asks to resume.
class KernelTask final : public DeviceTask, public CompletionSink {
 public:
  KernelTask(const Node& node, const Kernel& kernel, std::vector<const RuntimeValue*> in,
             std::vector<RuntimeValue*> out)
      : node_(node), kernel_(kernel), in_(std::move(in)), out_(std::move(out)) {}
  Status execute(Device& device) override {
    KernelContext ctx(node_, device, in_, out_);
    ctx.set_resume(&resume_);
    return kernel_.compute(ctx);
  }
  void on_complete(DeviceTask*) override {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    cv_.notify_all();
  }
  // Enqueues the task on `device` and waits for it, twice if it asks to
  // resume. False if a launch did not complete within 60 s.
  bool run(Device& device) {
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        done_ = false;
      }
      device.enqueue(this, this);
      if (!wait()) return false;
      if (!status.ok() || !resume_.requested) break;
      resume_.requested = false;
      resume_.resumed = true;
    }
    resume_ = {};
    return true;
  }

 private:
  bool wait() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(60), [&] { return done_; });
  }

  const Node& node_;
  const Kernel& kernel_;
  std::vector<const RuntimeValue*> in_;
  std::vector<RuntimeValue*> out_;
  KernelResume resume_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
};

}  // namespace

DiffRun run_diff_case(const DiffCase& c, Device& device, DeviceKind kernel_kind, uint64_t seed) {
  DiffRun run;
  Node node;
  node.op_type = c.op;
  node.domain = c.domain;
  node.opset = c.opset;
  node.attributes = c.attrs;
  for (size_t i = 0; i < c.inputs.size(); ++i) node.inputs.push_back(c.inputs[i].none ? kNoValue : ValueId(i));
  for (size_t i = 0; i < c.outputs; ++i) node.outputs.push_back(ValueId(100 + i));

  std::mt19937_64 rng(seed);
  std::vector<RuntimeValue> inputs(c.inputs.size());
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (c.inputs[i].none) continue;
    auto t = make_input(c.inputs[i], rng);
    if (!t.ok()) return {t.status(), {}};
    inputs[i] = RuntimeValue(std::move(t).value());
  }
  const DataType first =
      c.any_type || c.inputs.empty() || c.inputs[0].none ? DataType::kUndefined : c.inputs[0].type;
  const KernelDef* def = KernelRegistry::builtin().find(c.domain, c.op, c.opset, kernel_kind, first);
  if (!def) return {NotFound("no ", device_kind_name(kernel_kind), " kernel for ", c.op, "-", c.opset, " on ",
                             dtype_name(first)), {}};
  std::unique_ptr<Kernel> kernel = def->factory();
  if (Status s = kernel->init(node); !s.ok()) return {s, {}};

  // Where the executor would leave each input: on the device, unless the
  // kernel reads it on the host.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].is_tensor() || (i < 64 && (def->host_inputs >> i & 1))) continue;
    auto moved = device.copy(inputs[i].tensor(), device.memory_space());
    if (!moved.ok()) return {moved.status(), {}};
    inputs[i] = RuntimeValue(std::move(moved).value());
  }
  std::vector<RuntimeValue> outputs(c.outputs);
  std::vector<const RuntimeValue*> in;
  for (const RuntimeValue& v : inputs) in.push_back(v.is_none() ? nullptr : &v);
  std::vector<RuntimeValue*> out;
  for (RuntimeValue& v : outputs) out.push_back(&v);
  KernelTask task(node, *kernel, std::move(in), std::move(out));
  task.op = &node;
  if (!task.run(device)) {
    // The device may still run the task and write its outputs, and a hung
    // GPU would hang every later case and the device's destructor too: stop
    // the whole binary, naming the case, so the failures already printed
    // stand and the steps after this one keep their time.
    std::fprintf(stderr, "FATAL: %s: the task did not complete within 60 s; exiting\n", c.name.c_str());
    std::fflush(nullptr);
    std::_Exit(3);
  }
  if (!task.status.ok()) return {task.status, {}};

  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].is_tensor()) return {Internal("output ", i, " is not a tensor"), {}};
    const Tensor& t = outputs[i].tensor();
    if (t.space() == kHostSpace) {
      run.outputs.push_back(t);
      continue;
    }
    auto back = device.copy(t, kHostSpace);
    if (!back.ok()) return {back.status(), {}};
    run.outputs.push_back(std::move(back).value());
  }
  return run;
}

std::string compare_outputs(const DiffCase& c, const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  if (got.size() != want.size()) return str_cat(got.size(), " outputs, expected ", want.size());
  for (size_t o = 0; o < got.size(); ++o) {
    std::string diff = compare_values(got[o], want[o], Tolerance{c.rtol, c.atol});
    if (!diff.empty()) return str_cat("output ", o, ": ", diff);
  }
  return "";
}

uint64_t diff_seed(const DiffCase& c) { return std::hash<std::string>{}(c.name); }

DiffTally expect_cuda_cases_match_cpu(Device& gpu) {
  CpuDevice reference;
  DiffTally tally;
  for (const DiffCase& c : cuda_diff_cases()) {
    SCOPED_TRACE(c.name);
    const uint64_t seed = diff_seed(c);
    DiffRun want = run_diff_case(c, reference, DeviceKind::kCpu, seed);
    EXPECT_TRUE(want.status.ok()) << want.status.message();
    if (!want.status.ok()) continue;
    DiffRun got = run_diff_case(c, gpu, DeviceKind::kCuda, seed);
    if (c.declines || (c.any_type && got.status.code() == StatusCode::kUnimplemented)) {
      EXPECT_EQ(got.status.code(), StatusCode::kUnimplemented) << got.status.message();
      tally.declined += got.status.code() == StatusCode::kUnimplemented;
      continue;
    }
    if (!got.status.ok()) {
      ADD_FAILURE() << c.name << ": " << got.status.message();
      continue;
    }
    const std::string diff = compare_outputs(c, got.outputs, want.outputs);
    EXPECT_EQ(diff, "") << c.name;
    tally.matched += diff.empty();
  }
  return tally;
}

}  // namespace sy::testing
