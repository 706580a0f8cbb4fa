// `switchyard test --batch` and `switchyard conformance` as a user runs them,
// on a few of the ONNX backend node cases (Debian's libonnx-testdata) and
// one made to fail.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_test_util.h"

namespace sy {
namespace {

using namespace sy::cli_test;

const fs::path kNodeCases = "/usr/share/libonnx-testdata/data/node";

std::vector<std::string> result_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("SYRESULT ", 0) == 0) lines.push_back(line);
  return lines;
}

class Conformance : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(kNodeCases / "test_add"))
      GTEST_SKIP() << "no ONNX node cases at " << kNodeCases << " (install libonnx-testdata)";
  }
};

TEST_F(Conformance, TestNeedsACaseOrBatch_NotBoth) {
  const CommandResult none = run_switchyard({"test"});
  ASSERT_TRUE(none.exited) << none.describe();
  EXPECT_NE(none.exit_code, 0);
  ASSERT_EQ(none.error_lines().size(), 1u) << none.describe();
  EXPECT_NE(none.err.find("--batch"), std::string::npos) << none.describe();
  const CommandResult both = run_switchyard({"test", (kNodeCases / "test_add").string(), "--batch"});
  ASSERT_TRUE(both.exited) << both.describe();
  EXPECT_NE(both.exit_code, 0);
  EXPECT_EQ(both.error_lines().size(), 1u) << both.describe();
}

TEST_F(Conformance, Batch_PrintsAResultLinePerCase_InOrder) {
  TempDir d;
  std::ofstream(d.file("cases")) << (kNodeCases / "test_add").string() << "\n"
                                 << d.file("no_such_case") << "\n\n"  // an empty line is skipped
                                 << (kNodeCases / "test_relu").string() << "\n";
  const CommandResult r = run_command({switchyard_bin(), "test", "--batch"}, 60, d.file("cases"));
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  const std::vector<std::string> lines = result_lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.describe();
  EXPECT_EQ(lines[0].rfind("SYRESULT PASS Add cpu:0=1 ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("SYRESULT ERROR - - ", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find("no model.onnx"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[2].rfind("SYRESULT PASS Relu cpu:0=1 ", 0), 0u) << lines[2];
}

// Three cases that pass and one whose expected output is another case's:
// in shared workers and with every case alone, the same verdicts.
TEST_F(Conformance, WorkersAndIsolatedProcesses_GiveTheSameVerdicts) {
  TempDir root;
  for (const char* name : {"test_abs", "test_add", "test_relu"})
    fs::create_directory_symlink(kNodeCases / name, root.path() / name);
  const fs::path broken = root.path() / "test_add_broken";
  fs::copy(kNodeCases / "test_add", broken, fs::copy_options::recursive);
  fs::copy_file(kNodeCases / "test_sub/test_data_set_0/output_0.pb", broken / "test_data_set_0/output_0.pb",
                fs::copy_options::overwrite_existing);
  for (const bool isolated : {false, true}) {
    SCOPED_TRACE(isolated ? "--isolated" : "workers");
    std::vector<std::string> args = {"conformance", root.path().string(), "-j", "2", "--json", root.file("r.json")};
    if (isolated) args.push_back("--isolated");
    const CommandResult r = run_switchyard(args, 120);
    ASSERT_TRUE(r.exited) << r.describe();
    EXPECT_EQ(r.exit_code, 1) << r.describe();  // a case failed
    EXPECT_NE(r.out.find("3 passed, 1 failed, 0 skipped"), std::string::npos) << r.describe();
    EXPECT_NE(r.out.find("FAIL test_add_broken"), std::string::npos) << r.describe();
    EXPECT_EQ(r.out.find("note:"), std::string::npos) << r.describe();  // no verdict changed on a re-run
    const nlohmann::json j = nlohmann::json::parse(read_text_file(root.file("r.json")));
    std::map<std::string, std::string> status;
    for (const auto& c : j["cases"]) status[c["case"]] = c["status"];
    EXPECT_EQ(status,
              (std::map<std::string, std::string>{
                  {"test_abs", "PASS"}, {"test_add", "PASS"}, {"test_add_broken", "FAIL"}, {"test_relu", "PASS"}}));
  }
}

// A folder given for a file: the baseline's parser threw on reading it
// (an internal error), and the exclusion list read as empty.
TEST_F(Conformance, ExclusionsOrBaselineFolder_IsBadInput) {
  TempDir root;
  fs::create_directory_symlink(kNodeCases / "test_abs", root.path() / "test_abs");
  for (const char* option : {"--exclusions", "--same-as"}) {
    const CommandResult r = run_switchyard({"conformance", root.path().string(), option, root.path().string()}, 60);
    ASSERT_TRUE(r.exited) << r.describe();
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    ASSERT_EQ(r.error_lines().size(), 1u) << r.describe();
    EXPECT_NE(r.error_lines()[0].find("not a regular file"), std::string::npos) << r.describe();
  }
}

}  // namespace
}  // namespace sy
