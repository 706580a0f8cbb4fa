// Unit tests for conformance's worker processes (case_worker.cc), with a
// shell script standing in for `switchyard test --batch`: it answers each
// case name on its input as a worker would, or crashes, hangs or exits on
// the names that ask for it. Its pid is in every result, so the tests see
// which cases shared a process.
#include "cli/case_worker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace sy {
namespace {

constexpr const char* kScript = R"(
while read -r c; do
  case "$c" in
    crash) kill -SEGV $$ ;;
    hang) exec sleep 30 ;;
    quit) echo "last words"; exit 3 ;;
    once) echo "SYRESULT PASS Add - pid $$"; exit 0 ;;
    noisy) echo "warning: SYRESULT-like noise"; printf 'a partial line'; echo; echo "SYRESULT FAIL Mul - wrong values" ;;
    *) echo "SYRESULT PASS Add,Mul cpu=2,cuda:0=3,cpu=1 pid $$" ;;
  esac
done
)";

CaseWorker script_worker() { return CaseWorker("/bin/sh", {"-c", kScript}); }

// The pid a result names (the script's $$).
std::string pid_of(const ChildResult& r) {
  const auto at = r.reason.find("pid ");
  return at == std::string::npos ? "" : r.reason.substr(at + 4);
}

TEST(CaseWorker, RunsCaseAfterCase_InOneProcess_AndParsesTheResultLine) {
  CaseWorker w = script_worker();
  const ChildResult a = w.run("a", 10);
  const ChildResult b = w.run("b", 10);
  EXPECT_EQ(a.status, "PASS");
  EXPECT_EQ(a.ops, (std::vector<std::string>{"Add", "Mul"}));
  EXPECT_EQ(a.placed.at("cpu"), 3);  // 2 + 1: a device named twice adds up
  EXPECT_EQ(a.placed.at("cuda:0"), 3);
  EXPECT_FALSE(pid_of(a).empty());
  EXPECT_EQ(pid_of(a), pid_of(b));
}

TEST(CaseWorker, Crash_IsReported_AndTheNextCaseGetsAFreshWorker) {
  CaseWorker w = script_worker();
  const ChildResult before = w.run("a", 10);
  const ChildResult crash = w.run("crash", 10);
  const ChildResult after = w.run("b", 10);
  EXPECT_EQ(crash.status, "CRASH");
  EXPECT_NE(crash.reason.find("signal"), std::string::npos) << crash.reason;
  EXPECT_EQ(after.status, "PASS");
  EXPECT_NE(pid_of(before), pid_of(after));
}

TEST(CaseWorker, Hang_TimesOut_AndTheNextCaseStillRuns) {
  CaseWorker w = script_worker();
  const ChildResult hang = w.run("hang", 1);
  EXPECT_EQ(hang.status, "TIMEOUT");
  EXPECT_GE(hang.seconds, 1.0);
  EXPECT_EQ(w.run("a", 10).status, "PASS");
}

TEST(CaseWorker, ExitWithoutResult_IsAnError_ThatQuotesItsOutput) {
  CaseWorker w = script_worker();
  const ChildResult r = w.run("quit", 10);
  EXPECT_EQ(r.status, "ERROR");
  EXPECT_NE(r.reason.find("exit 3"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("last words"), std::string::npos) << r.reason;
}

TEST(CaseWorker, OutputBeforeTheResultLine_IsSkipped) {
  CaseWorker w = script_worker();
  const ChildResult r = w.run("noisy", 10);
  EXPECT_EQ(r.status, "FAIL");
  EXPECT_EQ(r.ops, std::vector<std::string>{"Mul"});
  EXPECT_TRUE(r.placed.empty());
  EXPECT_EQ(r.reason, "wrong values");
}

// A worker that exited after answering does not cost the next case its
// verdict: the next case goes to a new worker.
TEST(CaseWorker, WorkerThatExitedAfterItsResult_IsReplacedForTheNextCase) {
  CaseWorker w = script_worker();
  const ChildResult once = w.run("once", 10);
  ASSERT_EQ(once.status, "PASS");
  // Wait until it has exited (a zombie, its socket closed), not yet reaped.
  const std::string stat = "/proc/" + pid_of(once) + "/stat";
  bool exited = false;
  for (int i = 0; i < 500 && !exited; ++i) {
    std::ifstream in(stat);
    std::string pid, comm, state;
    in >> pid >> comm >> state;
    exited = state == "Z";
    if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(exited) << stat;
  const ChildResult next = w.run("a", 10);
  EXPECT_EQ(next.status, "PASS") << next.reason;
  EXPECT_NE(pid_of(next), pid_of(once));
}

TEST(CaseWorker, ANameWithALineBreak_IsRefused) {
  CaseWorker w = script_worker();
  EXPECT_EQ(w.run("a\nb", 10).status, "ERROR");
}

TEST(RunCaseProcess, OneCase_InItsOwnProcess) {
  const ChildResult r = run_case_process("/bin/sh", {"-c", "echo noise; echo 'SYRESULT PASS Add cpu=1 '"}, 10);
  EXPECT_EQ(r.status, "PASS");
  EXPECT_EQ(r.placed.at("cpu"), 1);
  const ChildResult crash = run_case_process("/bin/sh", {"-c", "kill -SEGV $$"}, 10);
  EXPECT_EQ(crash.status, "CRASH");
  const ChildResult missing = run_case_process("/nonexistent/switchyard", {}, 10);
  EXPECT_EQ(missing.status, "ERROR");
}

}  // namespace
}  // namespace sy
