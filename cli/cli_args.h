// Small pieces shared by several subcommands: parsing `--dim NAME=VALUE`
// and the latency percentile that `run --report` and `bench` both print.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/status.h"

namespace sy {

// Parses repeated `--dim NAME=VALUE` options into NAME -> VALUE. VALUE must
// be a non-negative integer; the error names the offending option.
StatusOr<std::map<std::string, int64_t>> parse_dims(const std::vector<std::string>& specs);

// Nearest-rank percentile `p` (0..100) of `v`; 0 for an empty vector.
double percentile(std::vector<double> v, double p);

}  // namespace sy
