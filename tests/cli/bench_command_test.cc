// `switchyard bench` driven as a user would: the table has one row per
// policy with numeric columns, --json holds the same rows, folders expand
// to their models, and bad arguments fail with "error:" and exit code 2.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/cli/cli_test_util.h"

namespace sy {
namespace {

using namespace sy::cli_test;
namespace fs = std::filesystem;

fs::path if_in_loop() { return source_dir() / "models/control_flow/if_in_loop/model.onnx"; }

// One parsed table row: the first eleven whitespace-separated columns, then
// the placement entries ("cpu:0=4").
struct TableRow {
  std::string model, policy;
  std::vector<std::string> numbers;  // p50, p95, mean, runs/s, speed-up, bytes/run, copies/run
  std::string check;                 // the outputs column: ref, same, DIFF
  std::map<std::string, double> placement;
};

std::vector<TableRow> parse_table(const std::string& out, const std::string& model) {
  std::vector<TableRow> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    std::vector<std::string> tok;
    for (std::string t; ls >> t;) tok.push_back(t);
    if (tok.size() < 11 || tok[0] != model) continue;
    TableRow r;
    r.model = tok[0];
    r.policy = tok[1];
    r.numbers.assign(tok.begin() + 2, tok.begin() + 9);
    r.check = tok[10];  // after the prediction error
    for (size_t i = 11; i < tok.size(); ++i) {
      auto eq = tok[i].find('=');
      if (eq != std::string::npos) r.placement[tok[i].substr(0, eq)] = std::atof(tok[i].c_str() + eq + 1);
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

bool is_number(const std::string& s, double* v) {
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0';
}

void expect_ok(const CommandResult& r) {
  ASSERT_TRUE(r.exited) << r.describe();
  ASSERT_EQ(r.exit_code, 0) << r.describe();
}

void expect_bad_input(const CommandResult& r, const std::vector<std::string>& keywords) {
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  ASSERT_FALSE(r.error_lines().empty()) << r.describe();
  std::string all;
  for (const auto& l : r.error_lines()) all += l + "\n";
  EXPECT_TRUE(contains_any(all, keywords)) << r.describe();
  EXPECT_EQ(r.out.find("p50 ms"), std::string::npos) << "printed a table despite the error\n" << r.describe();
}

TEST(BenchCommand, PrintsOneNumericRowPerPolicy_InListedOrder) {
  TempDir tmp;
  const std::vector<std::string> policies = {"dynamic", "round-robin", "ort", "cpu"};
  auto r = run_switchyard({"bench", if_in_loop().string(), "--policies", "dynamic,round-robin,ort,cpu", "--runs", "4",
                           "--warmup", "1", "--json", tmp.file("bench.json")});
  expect_ok(r);
  auto rows = parse_table(r.out, "if_in_loop");
  ASSERT_EQ(rows.size(), policies.size()) << r.out;
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].policy, policies[i]);
    for (const std::string& cell : rows[i].numbers) {
      double v = -1;
      EXPECT_TRUE(is_number(cell, &v)) << "column '" << cell << "' of " << rows[i].policy << "\n" << r.out;
      EXPECT_GE(v, 0) << r.out;
    }
    double p50 = 0, p95 = 0, rps = 0;
    ASSERT_TRUE(is_number(rows[i].numbers[0], &p50) && is_number(rows[i].numbers[1], &p95) &&
                is_number(rows[i].numbers[3], &rps));
    EXPECT_GT(p50, 0);
    EXPECT_LE(p50, p95);
    EXPECT_GT(rps, 0);
    ASSERT_EQ(rows[i].placement.count("cpu:0"), 1u) << r.out;
    ASSERT_EQ(rows[i].placement.count("cpu:1"), 1u) << r.out;
  }
  // The baseline is the first listed static policy, 'ort': its speed-up is 1.
  EXPECT_EQ(rows[2].numbers[4], "1.00") << r.out;
  EXPECT_NE(r.out.find("mean of 'ort'"), std::string::npos) << r.out;
  // 'cpu' keeps everything on the first device, where the inputs already
  // are: no copies. Round-robin alternates devices, so values must move.
  EXPECT_EQ(rows[3].placement["cpu:1"], 0) << r.out;
  EXPECT_EQ(rows[3].numbers[5], "0") << r.out;
  EXPECT_GT(rows[1].placement["cpu:1"], 0) << r.out;
  double rr_bytes = 0;
  ASSERT_TRUE(is_number(rows[1].numbers[5], &rr_bytes));
  EXPECT_GT(rr_bytes, 0) << r.out;
  // Every policy computed what the first one did.
  EXPECT_EQ(rows[0].check, "ref") << r.out;
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(rows[i].check, "same") << r.out;
  // stderr is not a terminal here: no progress bar.
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.describe();

  auto doc = nlohmann::json::parse(read_text_file(tmp.file("bench.json")), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << read_text_file(tmp.file("bench.json"));
  EXPECT_EQ(doc["baseline"], "ort");
  ASSERT_TRUE(doc["rows"].is_array());
  ASSERT_EQ(doc["rows"].size(), policies.size());
  for (size_t i = 0; i < policies.size(); ++i) {
    const auto& row = doc["rows"][i];
    EXPECT_EQ(row["policy"], policies[i]);
    EXPECT_EQ(row["model"], "if_in_loop");
    EXPECT_TRUE(row["ok"].get<bool>());
    EXPECT_EQ(row["latency_ms"].size(), 4u);
    EXPECT_LE(row["p50_ms"].get<double>(), row["p95_ms"].get<double>());
    EXPECT_GT(row["mean_ms"].get<double>(), 0);
    EXPECT_GT(row["throughput_rps"].get<double>(), 0);
    EXPECT_TRUE(row["nodes_per_device"].contains("cpu:0"));
    EXPECT_TRUE(row["nodes_per_device"].contains("cpu:1"));
    EXPECT_EQ(row["outputs_check"], i == 0 ? "ref" : "same");
  }
  EXPECT_DOUBLE_EQ(doc["rows"][2]["speedup"].get<double>(), 1.0);
}

TEST(BenchCommand, ExpandsFoldersToSortedModels_AndRunsConcurrently) {
  TempDir tmp;
  write_model(relu_model(), tmp.path() / "b_relu.onnx");
  write_model(relu_model(), tmp.path() / "a_relu.onnx");
  write_bytes(tmp.path() / "notes.txt", "not a model");
  auto r = run_switchyard({"bench", tmp.path().string(), "--policies", "cpu,dynamic", "--runs", "6", "--warmup", "0",
                           "--concurrency", "3", "--json", tmp.file("out.json")});
  expect_ok(r);
  EXPECT_EQ(parse_table(r.out, "a_relu").size(), 2u) << r.out;
  EXPECT_EQ(parse_table(r.out, "b_relu").size(), 2u) << r.out;
  EXPECT_LT(r.out.find("a_relu"), r.out.find("b_relu")) << r.out;
  auto doc = nlohmann::json::parse(read_text_file(tmp.file("out.json")), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["concurrency"], 3);
  ASSERT_EQ(doc["rows"].size(), 4u);
  EXPECT_EQ(doc["rows"][0]["model"], "a_relu");
  for (const auto& row : doc["rows"]) EXPECT_EQ(row["latency_ms"].size(), 6u) << row.dump();
}

TEST(BenchCommand, NoCheck_LeavesOutputsUncompared) {
  auto r = run_switchyard({"bench", if_in_loop().string(), "--policies", "cpu,round-robin", "--runs", "2", "--warmup",
                           "0", "--no-check"});
  expect_ok(r);
  auto rows = parse_table(r.out, "if_in_loop");
  ASSERT_EQ(rows.size(), 2u) << r.out;
  for (const TableRow& row : rows) EXPECT_EQ(row.check, "-") << r.out;
}

TEST(BenchCommand, MissingModel_IsBadInput) {
  expect_bad_input(run_switchyard({"bench", "/nonexistent/model.onnx"}), {"not found", "/nonexistent/model.onnx"});
}

TEST(BenchCommand, FolderWithoutModels_IsBadInput) {
  TempDir tmp;
  expect_bad_input(run_switchyard({"bench", tmp.path().string()}), {"no .onnx"});
}

TEST(BenchCommand, UnknownPolicy_IsBadInputListingKnownOnes) {
  auto r = run_switchyard({"bench", if_in_loop().string(), "--policies", "dynamic,bogus"});
  expect_bad_input(r, {"bogus"});
  EXPECT_TRUE(contains_any(r.err, {"static-heft"})) << "known policies not listed\n" << r.describe();
}

TEST(BenchCommand, BadDevices_IsBadInput) {
  expect_bad_input(run_switchyard({"bench", if_in_loop().string(), "--devices", "gpu:0"}), {"gpu"});
  expect_bad_input(run_switchyard({"bench", if_in_loop().string(), "--devices", "cpu:0,cpu:0"}), {"twice"});
}

TEST(BenchCommand, BadNumbersAndDims_AreBadInput) {
  expect_bad_input(run_switchyard({"bench", if_in_loop().string(), "--runs", "0"}), {"runs"});
  expect_bad_input(run_switchyard({"bench", if_in_loop().string(), "--dim", "n"}), {"--dim"});
  expect_bad_input(run_switchyard({"bench", if_in_loop().string(), "--profile", "/nonexistent/p.json"}), {"profile"});
  expect_bad_input(run_switchyard({"bench", if_in_loop().string(), "--profile", "/tmp"}), {"not a regular file"});
  expect_bad_input(run_switchyard({"bench", if_in_loop().string(), "--dim", "batch=2"}),
                   {"no input has a symbolic dimension"});
  expect_bad_input(run_switchyard({"bench", if_in_loop().string(), "--json", "/nonexistent/dir/x.json"}),
                   {"/nonexistent/dir"});
}

}  // namespace
}  // namespace sy
