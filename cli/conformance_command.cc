// `switchyard test` (one case, or with --batch a case a line of input, in
// process) and `switchyard conformance` (every case, in child processes so
// that a crash or a hang in one case cannot take down the run).
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "cli/case_runner.h"
#include "cli/case_worker.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "placer/policy_registry.h"

namespace sy {
namespace fs = std::filesystem;

namespace {

const char* outcome_word(const CaseResult& r) {
  return r.outcome == CaseResult::Outcome::kPass ? "PASS"
                                                 : (r.outcome == CaseResult::Outcome::kFail ? "FAIL" : "ERROR");
}

// One case's result as the line `switchyard conformance` reads back
// (case_worker.h): SYRESULT STATUS OPS PLACED REASON, on one line.
void print_result_line(const CaseResult& r) {
  std::string ops, placed;
  for (const auto& o : r.ops) ops += (ops.empty() ? "" : ",") + o;
  for (const auto& [dev, n] : r.placed) placed += (placed.empty() ? "" : ",") + dev + "=" + std::to_string(n);
  std::string reason = r.reason.substr(0, 2000);  // one short write, never split by another process's output
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  std::replace(reason.begin(), reason.end(), '\r', ' ');
  std::cout << "SYRESULT " << outcome_word(r) << " " << (ops.empty() ? "-" : ops) << " "
            << (placed.empty() ? "-" : placed) << " " << reason << std::endl;
}

// A folder laid out as the ONNX backend tests are: model.onnx beside its
// test_data_set_* folders.
bool is_case_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "model.onnx", ec);
}

std::string not_a_case_folder(const std::string& dir) { return dir + ": not a test case folder (no model.onnx)"; }

}  // namespace

int cmd_test(const TestArgs& a) {
  if (a.batch != a.case_dir.empty())
    return report_error(a.batch ? "--batch reads case folders from stdin: give no case folder"
                                : "give a case folder, or --batch to read case folders from stdin",
                        kExitBadInput);
  SessionOptions opts;
  opts.policy = a.policy;
  opts.devices = a.devices;
  opts.simulate = a.simulate;
  opts.policy_options.seed = a.seed;
  if (a.batch) {
    // Every case in this one process, a line of input each, until the end
    // of input: conformance's long-lived workers (case_worker.h).
    for (std::string dir; std::getline(std::cin, dir);) {
      if (dir.empty()) continue;
      CaseResult r;
      if (is_case_folder(dir))
        r = run_test_case(dir, opts, Tolerance{});
      else
        r.reason = not_a_case_folder(dir);
      print_result_line(r);
    }
    return kExitOk;
  }
  if (!is_case_folder(a.case_dir)) return report_error(not_a_case_folder(a.case_dir), kExitBadInput);
  const CaseResult r = run_test_case(a.case_dir, opts, Tolerance{});
  if (a.machine) {
    print_result_line(r);
  } else {
    std::cout << outcome_word(r) << " " << fs::path(a.case_dir).filename().string()
              << (r.reason.empty() ? "" : ": " + r.reason) << std::endl;
  }
  return r.outcome == CaseResult::Outcome::kPass ? kExitOk : kExitFailed;
}

namespace {

// Case name -> status from a `conformance --json` file.
StatusOr<std::map<std::string, std::string>> load_statuses(const std::string& path) {
  // A folder opens as a stream, and reading it throws out of the parser.
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))
    return InvalidArgument("baseline '", path, "' is not a regular file");
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
    if (!is_case_folder(e.path())) continue;
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
  std::vector<std::string> session_args = {"--policy",
                                           a.policy,
                                           "--seed",
                                           std::to_string(a.seed),
                                           a.simulate.empty() ? "--devices" : "--simulate",
                                           a.simulate.empty() ? a.devices : a.simulate};
  std::vector<std::string> batch_args = {"test", "--batch"};
  batch_args.insert(batch_args.end(), session_args.begin(), session_args.end());
  auto alone = [&](const std::string& path) {
    std::vector<std::string> args = {"test", path, "--machine"};
    args.insert(args.end(), session_args.begin(), session_args.end());
    return run_case_process(exe, args, a.timeout_s);
  };
  auto worker = [&] {
    CaseWorker shared(exe, batch_args);
    for (size_t i; (i = next.fetch_add(1)) < cases.size();) {
      ChildResult r;
      std::string note;
      const std::string path = (fs::path(a.root) / cases[i]).string();
      if (auto it = exclusions.find(cases[i]); it != exclusions.end()) {
        r = {"SKIP", it->second, {}, 0, {}};
      } else if (a.isolated) {
        r = alone(path);
      } else {
        r = shared.run(path, a.timeout_s);
        // The verdict on a case that did not pass comes from a process of
        // its own, so that no earlier case's state (or crash) decides it. A
        // hang is not run twice.
        if (r.status != "PASS" && r.status != "TIMEOUT") {
          ChildResult first = std::move(r);
          r = alone(path);
          if (r.status == "PASS")
            note = "note: " + cases[i] + " passed in a process of its own but not after other cases (" + first.status +
                   ": " + first.reason + ")\n";
        }
      }
      std::lock_guard<std::mutex> lock(print_mu);
      std::cout << note;
      if (r.status != "PASS" && r.status != "SKIP")
        std::cout << r.status << " " << cases[i] << ": " << r.reason << "\n";
      else if (a.verbose)
        std::cout << r.status << " " << cases[i] << "\n";
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
