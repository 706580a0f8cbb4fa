#include "devices/sim/sim_machine.h"

#include <cmath>

#include "devices/sim/sim_device.h"

namespace sy {

SimMachine::SimMachine(SimProfile profile, uint64_t seed, bool cpu_inline_beside_gpu)
    : profile_(std::move(profile)), rng_(seed) {
  int hosts = 0;
  for (const SimDeviceSpec& spec : profile_.devices)
    hosts += profile_.classes[static_cast<size_t>(spec.cls)].kind == DeviceKind::kCpu;
  const bool lone_host = hosts == 1 && (profile_.devices.size() == 1 || cpu_inline_beside_gpu);
  for (size_t i = 0; i < profile_.devices.size(); ++i) {
    const SimDeviceSpec& spec = profile_.devices[i];
    const SimDeviceClass& cls = profile_.classes[static_cast<size_t>(spec.cls)];
    std::string desc = "simulated " + cls.name;
    if (profile_.nodes > 1) desc += ", node " + std::to_string(spec.node);
    auto d = std::make_unique<SimDevice>(*this, static_cast<int>(i), spec.id, std::move(desc), cls.memory_bytes);
    space_owner_[d->memory_space()] = static_cast<int>(i);
    device_ptrs_.push_back(d.get());
    devices_.push_back(std::move(d));
    queues_.push_back({std::vector<int64_t>(static_cast<size_t>(cls.queues), 0),
                       std::vector<int64_t>(static_cast<size_t>(cls.copy_queues), 0)});
    inline_.push_back(cls.kind == DeviceKind::kCpu && lone_host);
  }
}

SimMachine::~SimMachine() = default;

std::vector<std::unique_ptr<Device>> SimMachine::take_devices() {
  std::vector<std::unique_ptr<Device>> out;
  for (auto& d : devices_) out.push_back(std::move(d));
  devices_.clear();
  return out;
}

int SimMachine::device_of_space(MemorySpace s) const {
  auto it = space_owner_.find(s);
  return it == space_owner_.end() ? -1 : it->second;
}

double SimMachine::kernel_us(int d, const std::string& op, double work) const {
  return class_of(d).cost(op).predict_us(work);
}

const SimDeviceClass& SimMachine::class_of(int d) const {
  return profile_.classes[static_cast<size_t>(profile_.devices[static_cast<size_t>(d)].cls)];
}

double SimMachine::launch_us(int d) const { return class_of(d).launch_us; }

int SimMachine::queues(int d) const { return class_of(d).queues; }

double SimMachine::copy_us(int a, int b, uint64_t bytes) const {
  if (a == b) return 0;
  const SimLink& l = profile_.link(a, b);
  return l.latency_us + static_cast<double>(bytes) / (l.bandwidth_gbps * 1e3);
}

// Log-normal noise with median 1: times stay positive, and the seeded
// generator makes it reproducible. The normal deviate is built from two
// uniform draws (Box-Muller) rather than std::normal_distribution, whose
// algorithm differs between standard libraries.
int64_t SimMachine::jitter(double us) {
  if (profile_.noise > 0) {
    constexpr double kTwoPi = 6.283185307179586;
    const double u1 = (static_cast<double>(rng_() >> 11) + 1.0) * 0x1p-53;  // (0, 1]
    const double u2 = static_cast<double>(rng_() >> 11) * 0x1p-53;
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
    us *= std::exp(profile_.noise * z);
  }
  return static_cast<int64_t>(std::llround(us * 1e3));
}

void SimMachine::submit(int d, DeviceTask* task, CompletionSink* sink) {
  SimDevice& dev = *device_ptrs_[static_cast<size_t>(d)];
  in_task_ = true;
  task->status = task->execute(dev);
  in_task_ = false;
  // Issuing is host work, serial with everything else the loop does.
  now_ns_ += static_cast<int64_t>(std::llround(launch_us(d) * 1e3));
  const bool is_copy = task->queue == DeviceTask::Queue::kCopy;
  int64_t dur;
  if (is_copy) {
    const int a = device_of_space(task->from_space), b = device_of_space(task->to_space);
    dur = a < 0 || b < 0 ? 0 : jitter(copy_us(a, b, task->bytes));
  } else {
    dur = jitter(kernel_us(d, task->op ? task->op->op_key() : std::string("*"), task->work));
  }
  std::vector<int64_t>& free = is_copy ? queues_[static_cast<size_t>(d)].copy_free : queues_[static_cast<size_t>(d)].compute_free;
  size_t q = 0;
  for (size_t i = 1; i < free.size(); ++i)
    if (free[i] < free[q]) q = i;
  const SimDeviceClass& cls = class_of(d);
  const bool host_kernel = !is_copy && cls.kind == DeviceKind::kCpu;
  if (host_kernel && (inline_[static_cast<size_t>(d)] || (task->may_run_inline && free[q] <= now_ns_))) {
    // On the run loop's thread, as CpuDevice::enqueue() runs it without a
    // worker or with nothing queued: the host waits for the kernel.
    task->start_ns = std::max(now_ns_, free[q]);
    task->end_ns = task->start_ns + dur;
    free[q] = now_ns_ = task->end_ns;
    pending_.push({task->end_ns, seq_++, task, sink});
    return;
  }
  // Handed to the device's own thread, which must wake up first.
  const int64_t handoff = host_kernel ? static_cast<int64_t>(std::llround(cls.handoff_us * 1e3)) : 0;
  task->start_ns = std::max(now_ns_ + handoff, free[q]);
  task->end_ns = task->start_ns + dur;
  free[q] = task->end_ns;
  pending_.push({task->end_ns, seq_++, task, sink});
}

bool SimMachine::deliver(bool wait) {
  if (pending_.empty() || (!wait && pending_.top().end_ns > now_ns_)) return false;
  now_ns_ = std::max(now_ns_, pending_.top().end_ns);
  while (!pending_.empty() && pending_.top().end_ns <= now_ns_) {
    Pending p = pending_.top();
    pending_.pop();
    p.sink->on_complete(p.task);
  }
  return true;
}

StatusOr<Tensor> SimMachine::copy(const Tensor& src, MemorySpace dst) {
  const int owner = device_of_space(dst);
  if (owner < 0) return Unimplemented("no simulated device owns memory space ", dst.to_string());
  ASSIGN_OR_RETURN(Tensor out, device_ptrs_[static_cast<size_t>(owner)]->allocate(src.dtype(), src.dims()));
  out.copy_elements_from(src);
  if (!in_task_) {
    // A synchronous copy (a control-flow scalar, an output) holds the host
    // until it lands.
    const int a = device_of_space(src.space());
    if (a >= 0) now_ns_ += jitter(copy_us(a, owner, src.nbytes()));
  }
  return out;
}

}  // namespace sy
