#include "tests/fuzz/fuzz_cases.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli/case_runner.h"
#include "cli/tensor_io.h"
#include "ir/tensor_proto.h"

namespace sy {
namespace {

namespace fs = std::filesystem;

bool read_model(const fs::path& file, onnx::ModelProto& m) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return m.ParseFromString(bytes);
}

// A backend test case: model.onnx and test_data_set_0/input_*.pb, named
// like the graph's inputs in order.
bool load_test_case(const fs::path& dir, Seed& s) {
  if (!read_model(dir / "model.onnx", s.model)) return false;
  const auto& g = s.model.graph();
  auto files = numbered_files(dir / "test_data_set_0", "input_");
  if (static_cast<int>(files.size()) > g.input_size()) return false;
  for (size_t i = 0; i < files.size(); ++i) {
    const TypeInfo declared = type_from_proto(g.input(static_cast<int>(i)).type());
    auto v = read_value_file(files[i].string(), &declared);
    if (!v.ok()) return false;
    s.inputs.emplace_back(g.input(static_cast<int>(i)).name(), std::move(v).value());
  }
  return true;
}

// A bundled control-flow case: model.onnx and inputs/<name>.npy.
bool load_npy_case(const fs::path& dir, Seed& s) {
  if (!read_model(dir / "model.onnx", s.model)) return false;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir / "inputs", ec)) {
    auto t = read_npy(e.path().string());
    if (!t.ok()) return false;
    s.inputs.emplace_back(e.path().stem().string(), RuntimeValue(std::move(t).value()));
  }
  return !ec;
}

std::vector<Seed> load_corpus(const std::vector<std::string>& roots) {
  std::vector<Seed> seeds;
  for (const auto& root : roots) {
    std::vector<fs::path> dirs;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root, ec))
      if (e.is_directory()) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs) {
      Seed s;
      s.name = d.filename().string();
      if (fs::exists(d / "test_data_set_0") ? load_test_case(d, s) : load_npy_case(d, s)) seeds.push_back(std::move(s));
    }
  }
  return seeds;
}

Dims claimed(Dims dims, size_t zero, size_t huge, int bits) {
  dims[zero] = 0;
  dims[huge] = int64_t{1} << bits;
  return dims;
}

}  // namespace

// The variants: each case once for every tensor input of rank >= 2 and
// every ordered pair of its axes, the input made empty along the first and
// 2^claim_bits long along the second, and declared with symbolic dims so
// that it reaches the kernels. Such a tensor costs nothing to hold, so a
// kernel that sizes a table or a loop by the dims must not take them on
// trust.
FuzzCases::FuzzCases(const std::vector<std::string>& roots, bool empty_claims, int claim_bits)
    : seeds_(load_corpus(roots)), empty_claims_(empty_claims), claim_bits_(claim_bits) {
  if (!empty_claims) return;
  for (size_t c = 0; c < seeds_.size(); ++c)
    for (size_t k = 0; k < seeds_[c].inputs.size(); ++k) {
      const RuntimeValue& v = seeds_[c].inputs[k].second;
      if (!v.is_tensor() || v.tensor().rank() < 2) continue;
      for (size_t zero = 0; zero < v.tensor().rank(); ++zero)
        for (size_t huge = 0; huge < v.tensor().rank(); ++huge)
          if (zero != huge &&
              Tensor::host(v.tensor().dtype(), claimed(v.tensor().dims(), zero, huge, claim_bits_)).ok())
            claims_.push_back({c, k, zero, huge});
    }
}

Seed FuzzCases::replay(size_t i) const { return empty_claims_ ? variant(claims_[i]) : seeds_[i]; }

Seed FuzzCases::variant(const EmptyClaim& c) const {
  Seed v = seeds_[c.seed];
  auto& [name, value] = v.inputs[c.input];
  const Dims dims = claimed(value.tensor().dims(), c.zero, c.huge, claim_bits_);
  v.name += " (" + name + " " + dims.to_string() + ")";
  value = RuntimeValue(Tensor::host(value.tensor().dtype(), dims).value());  // empty: checked when listed
  for (auto& in : *v.model.mutable_graph()->mutable_input()) {
    if (in.name() != name) continue;
    auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (size_t d = 0; d < dims.size(); ++d) shape->add_dim()->set_dim_param("claim" + std::to_string(d));
  }
  return v;
}

}  // namespace sy
