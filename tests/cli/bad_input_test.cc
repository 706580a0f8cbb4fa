// Bad input and runtime faults through the `switchyard` CLI. Every case must
// end with exit code 2 (bad input or usage) or 1 (runtime fault), print an
// "error: ..." line on stderr that names the reason, finish within the time
// limit, and never die by a signal. The malformed models are built here with
// the ONNX protobuf API, so no Python is needed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <tuple>

#include "devices/cuda/cuda_backend.h"
#include "tests/cli/cli_test_util.h"

namespace sy {
namespace {

using namespace sy::cli_test;
namespace fs = std::filesystem;

constexpr int kBadInput = 2;
constexpr int kRuntimeFault = 1;

// Checks the contract above. `keywords`: at least one must appear (any case)
// in an "error:" line.
void expect_clean_failure(const CommandResult& r, int want_code, const std::vector<std::string>& keywords) {
  ASSERT_FALSE(r.timed_out) << "hung\n" << r.describe();
  ASSERT_FALSE(r.signaled) << "crashed\n" << r.describe();
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.exit_code, want_code) << r.describe();
  const auto lines = r.error_lines();
  ASSERT_FALSE(lines.empty()) << "no line starting with 'error:' on stderr\n" << r.describe();
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  if (std::getenv("SY_CLI_TEST_VERBOSE")) std::printf("[exit %d] %s", r.exit_code, all.c_str());
  EXPECT_TRUE(contains_any(all, keywords)) << "error message names none of the expected reasons {"
                                           << [&] {
                                                std::string k;
                                                for (const auto& s : keywords) k += "'" + s + "' ";
                                                return k;
                                              }()
                                           << "}\n"
                                           << r.describe();
  // Internal errors are bugs: the message must be a diagnosis, not an escape.
  EXPECT_FALSE(contains_any(r.err, {"internal error", "CHECK failed", "terminate called", "AddressSanitizer"}))
      << r.describe();
}

// Runs `switchyard run MODEL` with extra args.
CommandResult run_model(const fs::path& model, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"run", model.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_switchyard(args);
}

// A valid float[2,3] input file for relu_model().
std::string good_x(const TempDir& d) {
  const std::string p = d.file("x.npy");
  write_npy_f32(p, {2, 3}, {1, -2, 3, -4, 5, -6});
  return p;
}

// ---------------------------------------------------------------------------
// Model files that are not models
// ---------------------------------------------------------------------------

TEST(BadInput, ModelFileIsRandomBytes_Exit2) {
  TempDir d;
  std::mt19937 rng(1234);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  bytes[0] = '\xff';  // field 31 with wire type 7: never a valid protobuf tag
  write_bytes(d.file("model.onnx"), bytes);
  expect_clean_failure(run_model(d.file("model.onnx"), {"--random-inputs"}), kBadInput, {"protobuf", "parse"});
}

TEST(BadInput, ModelFileTruncatedInHalf_Exit2) {
  TempDir d;
  onnx::ModelProto m = relu_model();
  // A large initializer so the cut lands inside a length-delimited field.
  add_float_initializer(m.mutable_graph(), "big", {1024}, std::vector<float>(1024, 0.5f));
  std::string bytes;
  ASSERT_TRUE(m.SerializeToString(&bytes));
  write_bytes(d.file("model.onnx"), bytes.substr(0, bytes.size() / 2));
  expect_clean_failure(run_model(d.file("model.onnx"), {"--input", "x=" + good_x(d)}), kBadInput,
                       {"truncated", "protobuf", "parse"});
}

TEST(BadInput, ModelFileEmpty_Exit2) {
  TempDir d;
  write_bytes(d.file("model.onnx"), "");
  expect_clean_failure(run_model(d.file("model.onnx"), {"--random-inputs"}), kBadInput, {"empty", "protobuf", "parse"});
}

TEST(BadInput, ModelFileMissing_Exit2) {
  TempDir d;
  expect_clean_failure(run_model(d.file("does_not_exist.onnx"), {"--random-inputs"}), kBadInput,
                       {"no such file", "not found", "does not exist"});
}

TEST(BadInput, ModelPathIsDirectory_Exit2) {
  TempDir d;
  fs::create_directory(d.path() / "model.onnx");
  expect_clean_failure(run_model(d.file("model.onnx"), {"--random-inputs"}), kBadInput, {"directory"});
}

// ---------------------------------------------------------------------------
// Malformed graphs
// ---------------------------------------------------------------------------

TEST(BadInput, NodeReadsUndefinedValue_Exit2) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", onnx::TensorProto::FLOAT, {2, 3});
  add_node(g, "Add", {"x", "ghost_value"}, {"y"});
  add_output(g, "y", onnx::TensorProto::FLOAT, {2, 3});
  write_model(m, d.file("model.onnx"));
  const auto r = run_model(d.file("model.onnx"), {"--input", "x=" + good_x(d)});
  expect_clean_failure(r, kBadInput, {"not defined", "undefined", "unknown value"});
  EXPECT_TRUE(contains_any(r.err, {"ghost_value"})) << r.describe();
}

TEST(BadInput, TwoNodesProduceSameValue_Exit2) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", onnx::TensorProto::FLOAT, {2, 3});
  add_node(g, "Relu", {"x"}, {"dup"});
  add_node(g, "Neg", {"x"}, {"dup"});
  add_node(g, "Identity", {"dup"}, {"y"});
  add_output(g, "y", onnx::TensorProto::FLOAT, {2, 3});
  write_model(m, d.file("model.onnx"));
  const auto r = run_model(d.file("model.onnx"), {"--input", "x=" + good_x(d)});
  expect_clean_failure(r, kBadInput, {"already produced", "more than one", "twice", "duplicate"});
  EXPECT_TRUE(contains_any(r.err, {"dup"})) << r.describe();
}

TEST(BadInput, GraphWithCycle_Exit2) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", onnx::TensorProto::FLOAT, {2, 3});
  add_node(g, "Add", {"x", "b"}, {"a"});
  add_node(g, "Relu", {"a"}, {"b"});
  add_node(g, "Identity", {"b"}, {"y"});
  add_output(g, "y", onnx::TensorProto::FLOAT, {2, 3});
  write_model(m, d.file("model.onnx"));
  expect_clean_failure(run_model(d.file("model.onnx"), {"--input", "x=" + good_x(d)}), kBadInput, {"cycle", "cyclic"});
}

TEST(BadInput, UnknownOperator_Exit2) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", onnx::TensorProto::FLOAT, {2, 3});
  add_node(g, "NoSuchOp", {"x"}, {"y"});
  add_output(g, "y", onnx::TensorProto::FLOAT, {2, 3});
  write_model(m, d.file("model.onnx"));
  const auto r = run_model(d.file("model.onnx"), {"--input", "x=" + good_x(d)});
  expect_clean_failure(r, kBadInput, {"unknown operator", "unknown op", "unsupported op", "no such op"});
  EXPECT_TRUE(contains_any(r.err, {"NoSuchOp"})) << r.describe();
}

TEST(BadInput, OperatorFromDomainNotImported_Exit2) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", onnx::TensorProto::FLOAT, {2, 3});
  add_node(g, "Frobnicate", {"x"}, {"y"})->set_domain("com.example.unimported");
  add_output(g, "y", onnx::TensorProto::FLOAT, {2, 3});
  write_model(m, d.file("model.onnx"));
  const auto r = run_model(d.file("model.onnx"), {"--input", "x=" + good_x(d)});
  expect_clean_failure(r, kBadInput, {"not imported", "domain"});
  EXPECT_TRUE(contains_any(r.err, {"com.example.unimported"})) << r.describe();
}

TEST(BadInput, OpsetNewerThanSupported_Exit2) {
  TempDir d;
  onnx::ModelProto m = relu_model();
  m.mutable_opset_import(0)->set_version(99);
  write_model(m, d.file("model.onnx"));
  const auto r = run_model(d.file("model.onnx"), {"--input", "x=" + good_x(d)});
  expect_clean_failure(r, kBadInput, {"opset"});
  EXPECT_TRUE(contains_any(r.err, {"99"})) << r.describe();
}

// ---------------------------------------------------------------------------
// Malformed initializers and external data
// ---------------------------------------------------------------------------

TEST(BadInput, InitializerRawDataSizeMismatch_Exit2) {
  TempDir d;
  onnx::ModelProto m = relu_model();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_float_data();
  w->set_raw_data(std::string(5, '\0'));  // float[2,3] needs 24 bytes
  write_model(m, d.file("model.onnx"));
  expect_clean_failure(run_model(d.file("model.onnx"), {"--input", "x=" + good_x(d)}), kBadInput,
                       {"raw data", "raw_data", "bytes"});
}

TEST(BadInput, InitializerNegativeDims_Exit2) {
  TempDir d;
  onnx::ModelProto m = relu_model();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->set_dims(1, -3);
  write_model(m, d.file("model.onnx"));
  expect_clean_failure(run_model(d.file("model.onnx"), {"--input", "x=" + good_x(d)}), kBadInput, {"negative"});
}

// Claims 10^15 floats (4 PB) with no data at all: must be rejected from the
// claim, not by trying to allocate it.
TEST(BadInput, InitializerClaimingPetabytesWithoutData_Exit2WithoutAllocating) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", onnx::TensorProto::FLOAT, {1});
  auto* w = g->add_initializer();
  w->set_name("huge");
  w->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : {1000000, 1000000, 1000}) w->add_dims(dim);
  add_node(g, "Add", {"x", "huge"}, {"y"});
  add_output(g, "y", onnx::TensorProto::FLOAT, {1000000, 1000000, 1000});
  write_model(m, d.file("model.onnx"));
  const auto r = run_model(d.file("model.onnx"), {"--random-inputs"});
  expect_clean_failure(r, kBadInput, {"values", "data", "too large", "elements", "size"});
  EXPECT_FALSE(contains_any(r.err, {"bad_alloc", "out of memory"})) << r.describe();
  EXPECT_LT(r.seconds, 30.0) << r.describe();
}

onnx::ModelProto model_with_external_weight(const std::string& location) {
  onnx::ModelProto m = relu_model();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_float_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = w->add_external_data();
  kv->set_key("location");
  kv->set_value(location);
  return m;
}

TEST(BadInput, ExternalDataFileMissing_Exit2) {
  TempDir d;
  write_model(model_with_external_weight("weights_missing.bin"), d.file("model.onnx"));
  const auto r = run_model(d.file("model.onnx"), {"--input", "x=" + good_x(d)});
  expect_clean_failure(r, kBadInput, {"does not exist", "not found", "missing", "no such file"});
  EXPECT_TRUE(contains_any(r.err, {"weights_missing.bin"})) << r.describe();
}

// The file exists, but outside the model's folder: reading it would let a
// model exfiltrate arbitrary files, so the path itself must be refused.
TEST(BadInput, ExternalDataPathEscapesModelFolder_Exit2) {
  TempDir d;
  fs::create_directory(d.path() / "model_dir");
  std::string weights(6 * sizeof(float), '\0');
  write_bytes(d.path() / "outside.bin", weights);
  write_model(model_with_external_weight("../outside.bin"), d.path() / "model_dir" / "model.onnx");
  const auto r = run_model(d.path() / "model_dir" / "model.onnx", {"--input", "x=" + good_x(d)});
  expect_clean_failure(r, kBadInput, {"leaves", "outside", "escape", "not allowed", "must be relative", "traversal"});
}

// ---------------------------------------------------------------------------
// Control-flow subgraphs
// ---------------------------------------------------------------------------

// Loop with one carried value whose body forgets the carried output.
TEST(BadInput, LoopBodyWithWrongNumberOfOutputs_Exit2) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "v0", onnx::TensorProto::FLOAT, {2});
  add_int64_initializer(g, "M", {}, {3});
  auto* loop = add_node(g, "Loop", {"M", "", "v0"}, {"v_final"});
  auto* body = add_attr_graph(loop, "body", "body");
  add_input(body, "iter", onnx::TensorProto::INT64, {});
  add_input(body, "cond_in", onnx::TensorProto::BOOL, {});
  add_input(body, "v_in", onnx::TensorProto::FLOAT, {2});
  add_node(body, "Identity", {"cond_in"}, {"cond_out"});
  add_output(body, "cond_out", onnx::TensorProto::BOOL, {});  // v_out missing
  add_output(g, "v_final", onnx::TensorProto::FLOAT, {2});
  write_model(m, d.file("model.onnx"));
  expect_clean_failure(run_model(d.file("model.onnx"), {"--random-inputs"}), kBadInput,
                       {"signature", "body outputs", "outputs"});
}

// If whose then_branch returns two values for a node with one output.
TEST(BadInput, IfBranchWithWrongNumberOfOutputs_Exit2) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "c", onnx::TensorProto::BOOL, {});
  add_input(g, "x", onnx::TensorProto::FLOAT, {2, 3});
  auto* node = add_node(g, "If", {"c"}, {"y"});
  auto* then_g = add_attr_graph(node, "then_branch", "then");
  add_node(then_g, "Identity", {"x"}, {"t1"});
  add_node(then_g, "Neg", {"x"}, {"t2"});
  add_output(then_g, "t1", onnx::TensorProto::FLOAT, {2, 3});
  add_output(then_g, "t2", onnx::TensorProto::FLOAT, {2, 3});
  auto* else_g = add_attr_graph(node, "else_branch", "else");
  add_node(else_g, "Identity", {"x"}, {"e1"});
  add_output(else_g, "e1", onnx::TensorProto::FLOAT, {2, 3});
  add_output(g, "y", onnx::TensorProto::FLOAT, {2, 3});
  write_model(m, d.file("model.onnx"));
  expect_clean_failure(run_model(d.file("model.onnx"), {"--random-inputs"}), kBadInput,
                       {"signature", "outputs", "then_branch"});
}

// If nodes nested `depth` deep through their then_branch.
onnx::ModelProto nested_if_model(int depth) {
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "c", onnx::TensorProto::BOOL, {});
  add_input(g, "x", onnx::TensorProto::FLOAT, {2});
  onnx::GraphProto* cur = g;
  std::string out = "y";
  for (int level = 0; level < depth; ++level) {
    auto* node = add_node(cur, "If", {"c"}, {out}, "if_" + std::to_string(level));
    auto* else_g = add_attr_graph(node, "else_branch", "else_" + std::to_string(level));
    const std::string e = "e" + std::to_string(level);
    add_node(else_g, "Identity", {"x"}, {e});
    add_output(else_g, e, onnx::TensorProto::FLOAT, {2});
    auto* then_g = add_attr_graph(node, "then_branch", "then_" + std::to_string(level));
    const std::string t = "t" + std::to_string(level);
    add_output(then_g, t, onnx::TensorProto::FLOAT, {2});
    cur = then_g;
    out = t;
  }
  add_node(cur, "Neg", {"x"}, {out});
  add_output(g, "y", onnx::TensorProto::FLOAT, {2});
  return m;
}

TEST(BadInput, IfNestedFortyDeep_Exit2NamesNestingLimit) {
  TempDir d;
  write_model(nested_if_model(40), d.file("model.onnx"));
  expect_clean_failure(run_model(d.file("model.onnx"), {"--random-inputs"}), kBadInput, {"nesting", "depth", "deep"});
}

TEST(BadInput, IfNestedHundredDeep_Exit2NamesNestingLimit) {
  TempDir d;
  write_model(nested_if_model(100), d.file("model.onnx"));
  expect_clean_failure(run_model(d.file("model.onnx"), {"--random-inputs"}), kBadInput,
                       {"nesting", "depth", "deep", "recursion"});
}

// ---------------------------------------------------------------------------
// Bad input files
// ---------------------------------------------------------------------------

class BadInputFile : public ::testing::Test {
 protected:
  void SetUp() override { write_model(relu_model(), d.file("model.onnx")); }
  CommandResult run_with(const std::vector<std::string>& extra) { return run_model(d.file("model.onnx"), extra); }
  TempDir d;
};

TEST_F(BadInputFile, Int32NpyForFloatInput_Exit2) {
  write_npy_i32(d.file("x.npy"), {2, 3}, {1, 2, 3, 4, 5, 6});
  const auto r = run_with({"--input", "x=" + d.file("x.npy")});
  expect_clean_failure(r, kBadInput, {"type", "dtype"});
  EXPECT_TRUE(contains_any(r.err, {"int32"})) << r.describe();
}

TEST_F(BadInputFile, WrongRank_Exit2) {
  write_npy_f32(d.file("x.npy"), {6}, {1, 2, 3, 4, 5, 6});
  expect_clean_failure(run_with({"--input", "x=" + d.file("x.npy")}), kBadInput, {"shape", "rank"});
}

TEST_F(BadInputFile, WrongDimension_Exit2) {
  write_npy_f32(d.file("x.npy"), {2, 4}, std::vector<float>(8, 1.0f));
  expect_clean_failure(run_with({"--input", "x=" + d.file("x.npy")}), kBadInput, {"shape", "dimension"});
}

TEST_F(BadInputFile, TruncatedNpy_Exit2) {
  std::vector<float> v{1, 2, 3, 4, 5, 6};
  std::string bytes = npy_bytes("<f4", {2, 3}, v.data(), v.size() * sizeof(float));
  write_bytes(d.file("x.npy"), bytes.substr(0, bytes.size() - 10));
  expect_clean_failure(run_with({"--input", "x=" + d.file("x.npy")}), kBadInput, {"truncated", "bytes", "needs"});
}

TEST_F(BadInputFile, NpyHeaderOnlyGarbage_Exit2) {
  write_bytes(d.file("x.npy"), "this is not a numpy file at all");
  expect_clean_failure(run_with({"--input", "x=" + d.file("x.npy")}), kBadInput, {"npy", "not a"});
}

TEST_F(BadInputFile, InputFileMissing_Exit2) {
  const auto r = run_with({"--input", "x=" + d.file("nope.npy")});
  expect_clean_failure(r, kBadInput, {"no such file", "not found", "does not exist", "cannot open", "cannot read"});
}

TEST_F(BadInputFile, InputNamesNonexistentModelInput_Exit2) {
  const auto r = run_with({"--input", "x=" + good_x(d), "--input", "not_an_input=" + good_x(d)});
  expect_clean_failure(r, kBadInput, {"no input named", "unknown input", "not an input"});
  EXPECT_TRUE(contains_any(r.err, {"not_an_input"})) << r.describe();
}

TEST_F(BadInputFile, InputSpecWithoutEquals_Exit2) {
  expect_clean_failure(run_with({"--input", good_x(d)}), kBadInput, {"NAME=FILE", "expects"});
}

TEST_F(BadInputFile, MissingInputWithoutRandomInputs_Exit2) {
  const auto r = run_with({});
  expect_clean_failure(r, kBadInput, {"missing input"});
  EXPECT_TRUE(contains_any(r.err, {"'x'"})) << r.describe();
}

// ---------------------------------------------------------------------------
// Bad command-line options
// ---------------------------------------------------------------------------

TEST_F(BadInputFile, DimWithoutEquals_Exit2) {
  expect_clean_failure(run_with({"--random-inputs", "--dim", "batch"}), kBadInput, {"--dim", "NAME=VALUE"});
}

TEST_F(BadInputFile, DimWithNonIntegerValue_Exit2) {
  expect_clean_failure(run_with({"--random-inputs", "--dim", "batch=twelve"}), kBadInput, {"--dim", "integer"});
}

TEST_F(BadInputFile, DimOutOfRange_Exit2) {
  expect_clean_failure(run_with({"--random-inputs", "--dim", "batch=99999999999999999999"}), kBadInput,
                       {"out of range"});
}

// relu_model's x is [2, 3]: a --dim would be ignored, most likely a typo.
TEST_F(BadInputFile, DimNamingNoSymbolicDimension_Exit2) {
  const auto r = run_with({"--random-inputs", "--dim", "batch=4"});
  expect_clean_failure(r, kBadInput, {"no input has a symbolic dimension"});
  EXPECT_TRUE(contains_any(r.err, {"--dim batch", "the inputs have none"})) << r.describe();
}

// x is [N, 3]: --dim N is taken, a second --dim for a name the model does
// not have is refused, listing N.
TEST(BadInput, DimNamingAnotherSymbol_Exit2ListingTheModelsOwn) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  auto first_dim_n = [](onnx::ValueInfoProto* v) {
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  };
  first_dim_n(add_input(g, "x", onnx::TensorProto::FLOAT, {2, 3}));
  add_node(g, "Relu", {"x"}, {"y"});
  first_dim_n(add_output(g, "y", onnx::TensorProto::FLOAT, {2, 3}));
  write_model(m, d.file("model.onnx"));
  const auto ok = run_model(d.file("model.onnx"), {"--random-inputs", "--dim", "N=4"});
  ASSERT_TRUE(ok.exited && ok.exit_code == 0) << ok.describe();
  const auto r = run_model(d.file("model.onnx"), {"--random-inputs", "--dim", "N=4", "--dim", "batch=4"});
  expect_clean_failure(r, kBadInput, {"no input has a symbolic dimension"});
  EXPECT_TRUE(contains_any(r.err, {"they have: N"})) << r.describe();
}

// A folder opens as a stream on Linux, and reading it throws: each file
// option must say what the path is instead.
TEST_F(BadInputFile, InputFileIsAFolder_Exit2) {
  expect_clean_failure(run_with({"--input", "x=" + d.path().string()}), kBadInput, {"not a regular file"});
}

TEST_F(BadInputFile, UnknownPolicy_Exit2) {
  const auto r = run_with({"--random-inputs", "--policy", "no-such-policy"});
  expect_clean_failure(r, kBadInput, {"policy"});
  EXPECT_TRUE(contains_any(r.err, {"no-such-policy"})) << r.describe();
}

TEST_F(BadInputFile, UnknownDevice_Exit2) {
  expect_clean_failure(run_with({"--random-inputs", "--devices", "tpu:7"}), kBadInput, {"device", "tpu"});
}

TEST_F(BadInputFile, UnknownOption_Exit2) {
  expect_clean_failure(run_with({"--random-inputs", "--frobnicate"}), kBadInput, {"frobnicate", "option", "extras"});
}

// ---------------------------------------------------------------------------
// Runtime faults: the model is valid, the data makes a kernel fail. The
// offending values are graph inputs so that nothing can be caught at load.
// ---------------------------------------------------------------------------

// On the GPU the index is checked by the kernel itself (no host round
// trip); the run must still fail cleanly, never return zeros.
void gather_out_of_range(const std::vector<std::string>& placement) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "data", onnx::TensorProto::FLOAT, {5});
  add_input(g, "idx", onnx::TensorProto::INT64, {2});
  add_node(g, "Gather", {"data", "idx"}, {"y"});
  add_output(g, "y", onnx::TensorProto::FLOAT, {2});
  write_model(m, d.file("model.onnx"));
  write_npy_f32(d.file("data.npy"), {5}, {1, 2, 3, 4, 5});
  write_npy_i64(d.file("idx.npy"), {2}, {1, 7});
  std::vector<std::string> args{"--input", "data=" + d.file("data.npy"), "--input", "idx=" + d.file("idx.npy")};
  args.insert(args.end(), placement.begin(), placement.end());
  expect_clean_failure(run_model(d.file("model.onnx"), args), kRuntimeFault,
                       {"out of range", "out-of-range", "out of bounds"});
}

TEST(RuntimeFault, GatherIndexOutOfRange_Exit1) { gather_out_of_range({}); }

TEST(RuntimeFault, GatherIndexOutOfRangeOnGpu_Exit1) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason();
  gather_out_of_range({"--devices", "cuda:0,cpu", "--policy", "gpu"});
}

TEST(RuntimeFault, ReshapeWithTwoInferredDims_Exit1) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", onnx::TensorProto::FLOAT, {2, 3});
  add_input(g, "shape", onnx::TensorProto::INT64, {2});
  add_node(g, "Reshape", {"x", "shape"}, {"y"});
  add_output(g, "y", onnx::TensorProto::FLOAT, {-1, -1});
  write_model(m, d.file("model.onnx"));
  write_npy_i64(d.file("shape.npy"), {2}, {-1, -1});
  expect_clean_failure(run_model(d.file("model.onnx"), {"--input", "x=" + good_x(d), "--input",
                                                        "shape=" + d.file("shape.npy")}),
                       kRuntimeFault, {"-1"});
}

TEST(RuntimeFault, ConcatOfMismatchedShapes_Exit1) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "a", onnx::TensorProto::FLOAT, {-1, -1}, {"a0", "a1"});
  add_input(g, "b", onnx::TensorProto::FLOAT, {-1, -1}, {"b0", "b1"});
  add_attr_int(add_node(g, "Concat", {"a", "b"}, {"y"}), "axis", 0);
  add_output(g, "y", onnx::TensorProto::FLOAT, {-1, -1});
  write_model(m, d.file("model.onnx"));
  write_npy_f32(d.file("a.npy"), {2, 3}, std::vector<float>(6, 1.0f));
  write_npy_f32(d.file("b.npy"), {2, 4}, std::vector<float>(8, 2.0f));
  expect_clean_failure(run_model(d.file("model.onnx"), {"--input", "a=" + d.file("a.npy"), "--input",
                                                        "b=" + d.file("b.npy")}),
                       kRuntimeFault, {"shape", "dimension", "mismatch"});
}

// A Loop of 2^62 trips stops at its --timeout with a clear error.
TEST(RuntimeFault, EndlessLoopPastItsTimeout_Exit1) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "M", onnx::TensorProto::INT64, {});
  add_input(g, "x", onnx::TensorProto::FLOAT, {1});
  add_float_initializer(g, "c", {1}, {1.0f});
  auto* body = add_attr_graph(add_node(g, "Loop", {"M", "", "x"}, {"y"}), "body", "body");
  add_input(body, "i", onnx::TensorProto::INT64, {});
  add_input(body, "cond", onnx::TensorProto::BOOL, {});
  add_input(body, "v", onnx::TensorProto::FLOAT, {1});
  add_node(body, "Identity", {"cond"}, {"cond_out"});
  add_node(body, "Add", {"v", "c"}, {"v_out"});
  add_output(body, "cond_out", onnx::TensorProto::BOOL, {});
  add_output(body, "v_out", onnx::TensorProto::FLOAT, {1});
  add_output(g, "y", onnx::TensorProto::FLOAT, {1});
  write_model(m, d.file("model.onnx"));
  write_npy_i64(d.file("M.npy"), {}, {int64_t{1} << 62});
  write_npy_f32(d.file("x.npy"), {1}, {0.0f});
  const std::vector<std::string> inputs{"--input", "M=" + d.file("M.npy"), "--input", "x=" + d.file("x.npy")};
  std::vector<std::string> args = inputs;
  args.insert(args.end(), {"--timeout", "0.2"});
  expect_clean_failure(run_model(d.file("model.onnx"), args), kRuntimeFault, {"time limit of 200 ms"});
  args = inputs;
  args.insert(args.end(), {"--timeout", "-1"});
  expect_clean_failure(run_model(d.file("model.onnx"), args), kBadInput, {"timeout"});
}

// 10^18 floats: must be refused from the computed size, not attempted.
TEST(RuntimeFault, ExpandToPetabytes_Exit1WithoutAllocating) {
  TempDir d;
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", onnx::TensorProto::FLOAT, {1});
  add_input(g, "shape", onnx::TensorProto::INT64, {3});
  add_node(g, "Expand", {"x", "shape"}, {"y"});
  add_output(g, "y", onnx::TensorProto::FLOAT, {-1, -1, -1});
  write_model(m, d.file("model.onnx"));
  write_npy_f32(d.file("x.npy"), {1}, {1.0f});
  write_npy_i64(d.file("shape.npy"), {3}, {1000000, 1000000, 1000000});
  const auto r = run_model(d.file("model.onnx"), {"--input", "x=" + d.file("x.npy"), "--input",
                                                   "shape=" + d.file("shape.npy")});
  expect_clean_failure(r, kRuntimeFault, {"too large", "too many", "exceed", "memory", "allocat"});
  EXPECT_FALSE(contains_any(r.err, {"bad_alloc"})) << r.describe();
  EXPECT_LT(r.seconds, 30.0) << r.describe();
}

// ---------------------------------------------------------------------------
// Placement options
// ---------------------------------------------------------------------------
const fs::path kLoopModel = source_dir() / "models/control_flow/nested_loops/model.onnx";

TEST(BadInput, UnknownDeviceKind_Exit2) {
  expect_clean_failure(run_model(kLoopModel, {"--random-inputs", "--devices", "cpu:0,tpu:1"}), kBadInput,
                       {"unknown device"});
}

TEST(BadInput, DeviceListedTwice_Exit2) {
  expect_clean_failure(run_model(kLoopModel, {"--random-inputs", "--devices", "cpu:1,cpu:1"}), kBadInput,
                       {"twice"});
}

TEST(BadInput, UnknownPolicy_Exit2ListingKnownOnes) {
  const auto r = run_model(kLoopModel, {"--random-inputs", "--policy", "fastest"});
  expect_clean_failure(r, kBadInput, {"unknown placement policy"});
  EXPECT_TRUE(contains_any(r.err, {"static-heft"})) << r.describe();
}

TEST(BadInput, MalformedProfile_Exit2) {
  TempDir d;
  write_bytes(d.file("p.json"), "{\"version\": 1, \"ops\": [{\"op\": 3}]");
  expect_clean_failure(run_model(kLoopModel, {"--random-inputs", "--profile", d.file("p.json")}), kBadInput,
                       {"profile"});
}

TEST(BadInput, ProfileOrSimulationProfileIsAFolder_Exit2) {
  TempDir d;
  expect_clean_failure(run_model(kLoopModel, {"--random-inputs", "--profile", d.path().string()}), kBadInput,
                       {"not a regular file"});
  expect_clean_failure(run_model(kLoopModel, {"--random-inputs", "--simulate", d.path().string()}), kBadInput,
                       {"not a regular file"});
}

TEST(BadInput, UnwritableTrace_Exit2BeforeRunning) {
  TempDir d;
  expect_clean_failure(
      run_model(kLoopModel, {"--random-inputs", "--devices", "cpu:0,cpu:1", "--trace", d.file("no/such/dir/t.json")}),
      kBadInput, {"cannot write trace"});
}

// The report and the cost profile are written after the runs: a bad path is
// refused before any (no run summary printed).
TEST(BadInput, UnwritableReportOrProfile_Exit2BeforeRunning) {
  TempDir d;
  using Case = std::tuple<std::string, std::string, std::string>;  // option, path, reason
  for (const auto& [option, path, reason] : {Case{"--report", d.file("no/such/dir/r.json"), "cannot write report"},
                                             Case{"--report", d.path().string(), "cannot write report"},
                                             Case{"--profile", d.file("no/such/dir/p.json"), "does not exist"}}) {
    const auto r = run_model(kLoopModel, {"--random-inputs", option, path});
    expect_clean_failure(r, kBadInput, {reason});
    EXPECT_EQ(r.out.find("busy (last run)"), std::string::npos) << "ran before refusing\n" << r.describe();
  }
}

}  // namespace
}  // namespace sy
