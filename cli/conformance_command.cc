// `switchyard test` (one case, in process) and `switchyard conformance`
// (every case, each in its own child process so that a crash or a hang in
// one case cannot take down the run).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "cli/cli_args.h"
#include "cli/case_runner.h"
#include "cli/commands.h"
#include "ir/child_process.h"
#include "placer/policy_registry.h"

extern char** environ;

namespace sy {
namespace fs = std::filesystem;

int cmd_test(const TestArgs& a) {
  const std::string& dir = a.case_dir;
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(dir) / "model.onnx", ec))
    return report_error(dir + ": not a test case folder (no model.onnx)", kExitBadInput);
  SessionOptions opts;
  opts.policy = a.policy;
  opts.devices = a.devices;
  opts.simulate = a.simulate;
  opts.policy_options.seed = a.seed;
  CaseResult r = run_test_case(dir, opts, Tolerance{});
  const char* word = r.outcome == CaseResult::Outcome::kPass ? "PASS" : (r.outcome == CaseResult::Outcome::kFail ? "FAIL" : "ERROR");
  if (a.machine) {
    std::string ops, placed;
    for (const auto& o : r.ops) ops += (ops.empty() ? "" : ",") + o;
    for (const auto& [dev, n] : r.placed) placed += (placed.empty() ? "" : ",") + dev + "=" + std::to_string(n);
    std::cout << "SYRESULT " << word << " " << (ops.empty() ? "-" : ops) << " " << (placed.empty() ? "-" : placed) << " "
              << r.reason << std::endl;
  } else {
    std::cout << word << " " << fs::path(dir).filename().string() << (r.reason.empty() ? "" : ": " + r.reason) << std::endl;
  }
  if (r.outcome == CaseResult::Outcome::kPass) return kExitOk;
  return kExitFailed;
}

namespace {

struct ChildResult {
  std::string status;  // PASS, FAIL, ERROR, CRASH, TIMEOUT, SKIP
  std::string reason;
  std::vector<std::string> ops;
  double seconds = 0;
  std::map<std::string, int64_t> placed;  // kernel nodes per device name
};

ChildResult run_child(const std::string& exe, const std::vector<std::string>& args, int timeout_s) {
  ChildResult r;
  auto t0 = std::chrono::steady_clock::now();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return {"ERROR", "pipe failed", {}, 0, {}};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);  // dup2 leaves 1 and 2 open across exec
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return {"ERROR", "spawn failed", {}, 0, {}};
  }
  const ChildOutput child = collect_child(pid, fds[0], timeout_s * 1000, 1 << 20);
  const std::string& out = child.bytes;
  const int wstatus = child.wait_status;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (child.timed_out) return {"TIMEOUT", "killed after " + std::to_string(timeout_s) + " s", {}, r.seconds, {}};
  if (wstatus != -1 && WIFSIGNALED(wstatus))
    return {"CRASH", std::string("killed by signal ") + strsignal(WTERMSIG(wstatus)), {}, r.seconds, {}};
  auto pos = out.rfind("SYRESULT ");
  if (pos == std::string::npos) {
    std::string tail = out.substr(out.size() > 300 ? out.size() - 300 : 0);
    std::replace(tail.begin(), tail.end(), '\n', ' ');
    const std::string exit = wstatus == -1 ? "exit status unknown" : "exit " + std::to_string(WEXITSTATUS(wstatus));
    return {"ERROR", "no result line (" + exit + "): " + tail, {}, r.seconds, {}};
  }
  std::istringstream line(out.substr(pos + 9, out.find('\n', pos) - pos - 9));
  std::string ops, placed;
  line >> r.status >> ops >> placed;
  std::getline(line, r.reason);
  if (!r.reason.empty() && r.reason[0] == ' ') r.reason.erase(0, 1);
  if (ops != "-") {
    std::stringstream ss(ops);
    std::string op;
    while (std::getline(ss, op, ',')) r.ops.push_back(op);
  }
  if (placed != "-") {
    std::stringstream ss(placed);
    std::string item;
    while (std::getline(ss, item, ','))
      if (auto eq = item.rfind('='); eq != std::string::npos)
        r.placed[item.substr(0, eq)] += std::atoll(item.c_str() + eq + 1);
  }
  return r;
}

// Case name -> status from a `conformance --json` file.
StatusOr<std::map<std::string, std::string>> load_statuses(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read baseline '", path, "'");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("cases") || !j["cases"].is_array())
    return InvalidArgument("baseline '", path, "' is not a `switchyard conformance --json` file");
  std::map<std::string, std::string> out;
  for (const auto& c : j["cases"]) {
    if (!c.is_object() || !c.contains("case") || !c["case"].is_string() || !c.contains("status") ||
        !c["status"].is_string())
      return InvalidArgument("baseline '", path, "': malformed case entry");
    out[c["case"].get<std::string>()] = c["status"].get<std::string>();
  }
  return out;
}
}  // namespace

int cmd_conformance(const ConformanceArgs& a, const std::string& self) {
  std::error_code ec;
  if (!fs::is_directory(a.root, ec)) return report_error(a.root + ": not a folder", kExitBadInput);
  std::regex filter;
  try {
    filter = std::regex(a.filter.empty() ? ".*" : a.filter);
  } catch (const std::regex_error& e) {
    return report_error("bad --filter regex: " + std::string(e.what()), kExitBadInput);
  }
  std::string err;
  std::map<std::string, std::string> exclusions;
  if (a.exclusions.empty()) exclusions = load_exclusions(SY_DEFAULT_EXCLUSIONS, false, &err);
  for (const std::string& path : a.exclusions) {
    exclusions.merge(load_exclusions(path, true, &err));
    if (!err.empty()) return report_error(err, kExitBadInput);
  }

  std::vector<std::string> cases;
  for (const auto& e : fs::directory_iterator(a.root, ec)) {
    if (!fs::is_regular_file(e.path() / "model.onnx", ec)) continue;
    std::string name = e.path().filename().string();
    if (std::regex_search(name, filter)) cases.push_back(name);
  }
  std::sort(cases.begin(), cases.end());
  if (cases.empty()) return report_error("no test cases under " + a.root + " match", kExitBadInput);

  // Check the policy and devices once, rather than failing every case.
  if (Status st = check_devices(a.devices, a.simulate); !st.ok()) return report_error(st.message(), kExitBadInput);
  if (auto p = PolicyRegistry::builtin().create(a.policy, {a.seed}); !p.ok())
    return report_error(p.status().message(), kExitBadInput);
  std::string share_device;
  double share_min = 0;
  if (!a.min_share.empty()) {
    const auto eq = a.min_share.rfind('=');
    char* end = nullptr;
    if (eq != std::string::npos) share_min = std::strtod(a.min_share.c_str() + eq + 1, &end);
    if (eq == std::string::npos || eq == 0 || !end || *end != '\0' || !(share_min >= 0 && share_min <= 1))
      return report_error("bad --min-share '" + a.min_share + "': expected DEVICE=FRACTION with FRACTION in [0, 1]",
                          kExitBadInput);
    share_device = a.min_share.substr(0, eq);
  }
  std::map<std::string, std::string> baseline;
  if (!a.same_as.empty()) {
    auto b = load_statuses(a.same_as);
    if (!b.ok()) return report_error(b.status().message(), kExitBadInput);
    baseline = std::move(b).value();
  }

  std::string exe = fs::read_symlink(self, ec).string();
  if (ec || exe.empty()) exe = self;
  const int jobs = a.jobs > 0 ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::vector<ChildResult> results(cases.size());
  std::atomic<size_t> next{0};
  std::mutex print_mu;
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < cases.size();) {
      ChildResult r;
      if (auto it = exclusions.find(cases[i]); it != exclusions.end()) {
        r = {"SKIP", it->second, {}, 0, {}};
      } else {
        std::vector<std::string> args = {"test", (fs::path(a.root) / cases[i]).string(), "--machine", "--policy",
                                         a.policy, "--seed", std::to_string(a.seed)};
        args.insert(args.end(), {a.simulate.empty() ? "--devices" : "--simulate", a.simulate.empty() ? a.devices : a.simulate});
        r = run_child(exe, args, a.timeout_s);
      }
      std::lock_guard<std::mutex> lock(print_mu);
      if (r.status != "PASS" && r.status != "SKIP") std::cout << r.status << " " << cases[i] << ": " << r.reason << "\n";
      else if (a.verbose) std::cout << r.status << " " << cases[i] << "\n";
      results[i] = std::move(r);
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < jobs; ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();

  struct Row { int pass = 0, fail = 0, skip = 0; };
  std::map<std::string, Row> per_op;
  int passed = 0, failed = 0, skipped = 0;
  std::map<std::string, int64_t> placed;  // over passing cases
  int64_t placed_total = 0;
  nlohmann::json j = nlohmann::json::array();
  for (size_t i = 0; i < cases.size(); ++i) {
    const ChildResult& r = results[i];
    int kind = r.status == "PASS" ? 0 : (r.status == "SKIP" ? 2 : 1);
    (kind == 0 ? passed : kind == 1 ? failed : skipped)++;
    if (kind == 0)
      for (const auto& [dev, n] : r.placed) {
        placed[dev] += n;
        placed_total += n;
      }
    std::vector<std::string> ops = r.ops.empty() ? std::vector<std::string>{"(unknown)"} : r.ops;
    for (const auto& op : ops) {
      Row& row = per_op[op];
      (kind == 0 ? row.pass : kind == 1 ? row.fail : row.skip)++;
    }
    j.push_back({{"case", cases[i]}, {"status", r.status}, {"reason", r.reason}, {"ops", r.ops}, {"seconds", r.seconds}});
  }
  std::printf("\n%-32s %6s %6s %6s\n", "operator", "pass", "fail", "skip");
  for (const auto& [op, row] : per_op) std::printf("%-32s %6d %6d %6d\n", op.c_str(), row.pass, row.fail, row.skip);
  if (!a.json.empty()) {
    std::ofstream out(a.json);
    if (!out) return report_error("cannot write '" + a.json + "'", kExitBadInput);
    out << nlohmann::json{{"passed", passed}, {"failed", failed}, {"skipped", skipped}, {"placed", placed}, {"cases", j}}
               .dump(1)
        << "\n";
  }
  if (placed.size() > 1) {
    std::printf("\nkernel nodes run, passing cases:");
    for (const auto& [dev, n] : placed)
      std::printf("  %s %lld (%.1f%%)", dev.c_str(), static_cast<long long>(n), 100.0 * n / std::max<int64_t>(placed_total, 1));
    std::printf("\n");
  }
  std::printf("\n%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  bool share_ok = true;
  if (!share_device.empty()) {
    const double share = placed_total ? static_cast<double>(placed[share_device]) / placed_total : 0;
    share_ok = share >= share_min;
    std::printf("share of kernel nodes on %s: %.1f%% (--min-share %.1f%%): %s\n", share_device.c_str(), 100 * share,
                100 * share_min, share_ok ? "ok" : "BELOW");
  }
  bool same = true;
  if (!a.same_as.empty()) {
    // Same pass set as the baseline, case by case, over the cases run here.
    for (size_t i = 0; i < cases.size(); ++i) {
      auto it = baseline.find(cases[i]);
      const bool was = it != baseline.end() && it->second == "PASS";
      const bool is = results[i].status == "PASS";
      if (was == is) continue;
      same = false;
      std::printf("%s %s (baseline: %s, now: %s)\n", was ? "REGRESSED" : "NEWLY PASSING", cases[i].c_str(),
                  it == baseline.end() ? "absent" : it->second.c_str(), results[i].status.c_str());
    }
    std::printf("same pass set as %s: %s\n", a.same_as.c_str(), same ? "yes" : "no");
  }
  std::fflush(stdout);
  return failed == 0 && same && share_ok ? kExitOk : kExitFailed;
}

}  // namespace sy
