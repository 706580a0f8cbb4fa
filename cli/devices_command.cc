// `switchyard devices`: what a device list gives on this machine (name,
// kind, description, memory) and the measured links between its memory
// spaces, the figures a cost profile's topology is made of.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/measure_links.h"
#include "devices/cuda/cuda_backend.h"
#include "executor/session.h"

namespace sy {

int cmd_devices(const DevicesArgs& a) {
  auto devs = create_devices(a.devices);
  if (!devs.ok()) return report_error("--devices '" + a.devices + "': " + devs.status().message(), kExitBadInput);
  std::vector<Device*> ptrs;
  for (auto& d : *devs) ptrs.push_back(d.get());

  auto links = measure_links(ptrs, a.link_bytes);
  if (!links.ok()) return report_error(links.status().message(), kExitFailed);

  nlohmann::json jd = nlohmann::json::array();
  std::printf("devices (%s):\n", a.devices.c_str());
  std::printf("  %-8s %-5s %-11s %-10s %s\n", "name", "kind", "memory", "space", "description");
  for (Device* d : ptrs) {
    const DeviceInfo& info = d->info();
    const std::string kind = device_kind_name(d->id().kind);
    const std::string space = d->memory_space().to_string();
    std::printf("  %-8s %-5s %-11s %-10s %s\n", info.name.c_str(), kind.c_str(), human_bytes(info.memory_bytes).c_str(),
                space.c_str(), info.description.c_str());
    jd.push_back({{"name", info.name},
                  {"kind", kind},
                  {"description", info.description},
                  {"memory_bytes", info.memory_bytes},
                  {"threads", info.threads},
                  {"memory_space", space}});
  }

  if (const int gpus = cuda_device_count(); gpus > 0) {
    std::printf("cuda: %d GPU%s on this machine (cuda:0..cuda:%d)\n", gpus, gpus == 1 ? "" : "s", gpus - 1);
    // Which cuBLAS and cuDNN a GPU run would use: the toolkit's or others
    // on the library path (e.g. a Python package's), or why they do not load.
    for (const std::string& lib : cuda_load_libraries()) std::printf("cuda: %s\n", lib.c_str());
    // The devices above opened a GPU, so this is what runs use.
    if (StatusOr<uint64_t> budget = pinned_host_budget(); budget.ok() && *budget > 0)
      std::printf("cuda: host tensors of 64 KiB and more page-locked, up to %s (SWITCHYARD_PINNED_HOST_MIB)\n",
                  human_bytes(*budget).c_str());
    else if (budget.ok())
      std::printf("cuda: host tensors in ordinary memory (SWITCHYARD_PINNED_HOST_MIB=0)\n");
  } else
    std::printf("cuda: none usable: %s\n", cuda_unavailable_reason().c_str());

  nlohmann::json jl = nlohmann::json::array();
  if (links->empty()) {
    std::printf("links: none (every device shares one memory space; try --devices cpu:0,cpu:1)\n");
  } else {
    std::printf("links (measured with %s copies; latency from 64-byte copies):\n", human_bytes(a.link_bytes).c_str());
    for (const MeasuredLink& m : *links) {
      const std::string from = m.from.to_string(), to = m.to.to_string();
      std::printf("  %-10s -> %-10s %8.2f GB/s  %8.2f us\n", from.c_str(), to.c_str(), m.link.bandwidth_gbps,
                  m.link.latency_us);
      jl.push_back({{"from", from},
                    {"to", to},
                    {"bandwidth_gbps", m.link.bandwidth_gbps},
                    {"latency_us", m.link.latency_us}});
    }
  }

  if (!a.json.empty()) {
    std::ofstream out(a.json);
    if (!out) return report_error("cannot write '" + a.json + "'", kExitBadInput);
    out << nlohmann::json{{"devices", jd}, {"links", jl}, {"link_bytes", a.link_bytes}}.dump(2) << "\n";
    if (!out) return report_error("write to '" + a.json + "' failed", kExitFailed);
  }
  return kExitOk;
}

}  // namespace sy
