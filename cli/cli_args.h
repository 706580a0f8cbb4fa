// Small pieces shared by several subcommands: parsing and checking
// `--dim NAME=VALUE`, checking the device list or simulation profile, and
// the latency percentile that `run --report` and `bench` both print, and
// byte counts for people.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/status.h"

namespace sy {

class Graph;

// Parses repeated `--dim NAME=VALUE` options into NAME -> VALUE. VALUE must
// be a non-negative integer; the error names the offending option.
StatusOr<std::map<std::string, int64_t>> parse_dims(const std::vector<std::string>& specs);

// Checks that every `--dim` NAME is a symbolic dimension of some input of
// one of `graphs` (sequences and optionals included): one that names none
// would be ignored, and is most likely a typo. The error lists the names
// the inputs have.
Status check_dims_named(const std::map<std::string, int64_t>& dims, const std::vector<const Graph*>& graphs);

// Checks a device list (`--devices`) or, when `simulate` is set, the
// simulation profile that replaces it; the error is ready to print.
Status check_devices(const std::string& devices, const std::string& simulate);

// Whether a device list (`--devices`) names CPUs only, and no simulation
// replaces it: the loader may then run convolutions channels-last
// (ir/channels_last.h), which only the CPU has kernels for.
bool cpu_devices_only(const std::string& devices, const std::string& simulate);

// Expands folders to their *.onnx files (sorted); keeps files as given.
// NotFound for a missing path, InvalidArgument for a folder without models.
StatusOr<std::vector<std::string>> expand_models(const std::vector<std::string>& args);

// Nearest-rank percentile `p` (0..100) of `v`; 0 for an empty vector.
double percentile(std::vector<double> v, double p);

// `b` in B, KiB, MiB, GiB or TiB, one decimal past bytes ("3.2 MiB").
std::string human_bytes(uint64_t b);

}  // namespace sy
