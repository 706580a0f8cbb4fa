// The cases the mutation fuzzer (model_fuzz.cc) draws from: the ONNX backend
// test cases and the bundled control-flow cases, read from disk, and under
// --empty-claims their variants with one input emptied and a huge dim.
// Not thread-safe to build; const methods may be called from any thread.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "devices/runtime_value.h"
#include "onnx/onnx_pb.h"

namespace sy {

// A model with one set of inputs, named as the graph's inputs.
struct Seed {
  std::string name;
  onnx::ModelProto model;
  std::vector<std::pair<std::string, RuntimeValue>> inputs;
};

class FuzzCases {
 public:
  // The huge dim's length in bits unless --claim-bits says otherwise.
  static constexpr int kDefaultClaimBits = 40;

  // Reads every case folder under `roots` (model.onnx with
  // test_data_set_0/input_*.pb, or with inputs/<name>.npy); folders that do
  // not read are left out. With `empty_claims`, lists the variants too,
  // their huge dim 2^claim_bits long.
  FuzzCases(const std::vector<std::string>& roots, bool empty_claims, int claim_bits = kDefaultClaimBits);

  // The cases as read, which mutants start from.
  const std::vector<Seed>& seeds() const { return seeds_; }

  // The cases --replay (the seeds) or --empty-claims (the variants) step
  // through, in a fixed order, so that case i replays with --only i.
  size_t replayable() const { return empty_claims_ ? claims_.size() : seeds_.size(); }
  Seed replay(size_t i) const;

 private:
  // Seed `seed` with its input `input` empty along axis `zero` and
  // 2^claim_bits long along axis `huge`. A variant is built when it runs:
  // holding them all (18,700 model copies) made every fork of the loader's
  // isolated shape inference slow.
  struct EmptyClaim {
    size_t seed, input, zero, huge;
  };

  Seed variant(const EmptyClaim& c) const;

  std::vector<Seed> seeds_;
  bool empty_claims_;
  int claim_bits_;
  std::vector<EmptyClaim> claims_;
};

}  // namespace sy
