// register_builtin_policies: the policies `--policy NAME` knows.
#include "placer/dynamic_policy.h"
#include "placer/gpu_policy.h"
#include "placer/ort_policy.h"
#include "placer/policy_registry.h"
#include "placer/random_policy.h"
#include "placer/round_robin_policy.h"
#include "placer/single_device_policy.h"
#include "placer/static_heft_policy.h"

namespace sy {

void register_builtin_policies(PolicyRegistry& r) {
  r.add("single", "every node on the first device that has a kernel for it",
        [](const PolicyOptions&) { return std::make_unique<SingleDevicePolicy>("single"); });
  r.add("cpu", "alias of 'single' (the first device is the CPU)",
        [](const PolicyOptions&) { return std::make_unique<SingleDevicePolicy>("cpu"); });
  r.add("gpu", "every node on the first GPU that has a kernel for it, the CPU for the rest",
        [](const PolicyOptions&) { return std::make_unique<GpuPolicy>(); });
  r.add("round-robin", "cycles through the devices that have a kernel, ignoring costs",
        [](const PolicyOptions&) { return std::make_unique<RoundRobinPolicy>(); });
  r.add("random", "a uniformly random device with a kernel; reproducible with --seed N",
        [](const PolicyOptions& o) { return std::make_unique<RandomPolicy>(o.seed); });
  r.add("ort", "static first-fit by device priority (GPUs, then CPUs, each in --devices order) with shape subgraphs on the "
        "CPU, decided once per session as ONNX Runtime does",
        [](const PolicyOptions&) { return std::make_unique<OrtPolicy>(); });
  r.add("static-heft", "static HEFT list schedule computed once per session from offline cost estimates",
        [](const PolicyOptions&) { return std::make_unique<StaticHeftPolicy>(); });
  r.add("dynamic",
        "default: earliest predicted finish (backlog + transfer + compute) per node at run time, with hysteresis",
        [](const PolicyOptions&) { return std::make_unique<DynamicPolicy>(); });
}

}  // namespace sy
