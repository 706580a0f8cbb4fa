#include "cli/cli_args.h"

#include <gtest/gtest.h>

namespace sy {
namespace {

// Channels-last convolutions (ir/channels_last.h) have CPU kernels only,
// so the CLI loads models with them only for lists of CPUs.
TEST(CliArgs, CpuDevicesOnly) {
  EXPECT_TRUE(cpu_devices_only("cpu", ""));
  EXPECT_TRUE(cpu_devices_only("cpu:0, cpu:1", ""));
  EXPECT_FALSE(cpu_devices_only("cpu,cuda:0", ""));
  EXPECT_FALSE(cpu_devices_only("cuda:0", ""));
  EXPECT_FALSE(cpu_devices_only("", ""));
  EXPECT_FALSE(cpu_devices_only("cpu", "models/profiles/h100.json")) << "a simulated machine may have GPUs";
}

}  // namespace
}  // namespace sy
