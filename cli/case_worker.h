// A long-lived `switchyard test --batch` child process that runs
// conformance cases one after another: what `switchyard conformance` uses
// so that process start, and on a GPU the CUDA context and the cuBLAS and
// cuDNN start-up (seconds a process), are paid once a worker rather than
// once a case. A case that crashes or hangs its worker is reported as such
// and the next case gets a fresh worker.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace sy {

// One case's outcome as `switchyard conformance` reports it.
struct ChildResult {
  std::string status;  // PASS, FAIL, ERROR, CRASH, TIMEOUT, SKIP
  std::string reason;
  std::vector<std::string> ops;
  double seconds = 0;
  std::map<std::string, int64_t> placed;  // kernel nodes per device name
};

// Parses the text after "SYRESULT " (`switchyard test --machine`):
// STATUS OPS PLACED REASON.
ChildResult parse_result_line(const std::string& line);

// Runs `exe args...` (`test CASE --machine ...`) for one case in a fresh
// process, killing it after `timeout_s`.
ChildResult run_case_process(const std::string& exe, const std::vector<std::string>& args, int timeout_s);

class CaseWorker {
 public:
  // `args` are those of `switchyard test --batch` (policy, devices, seed).
  CaseWorker(std::string exe, std::vector<std::string> args);
  ~CaseWorker();  // ends the worker: closes its input and reaps it
  CaseWorker(const CaseWorker&) = delete;
  CaseWorker& operator=(const CaseWorker&) = delete;

  // Runs the case folder `case_dir`, starting a worker first if none is
  // running. `timeout_s` counts from when the case is sent (a new worker's
  // start-up included); past it the worker is killed.
  ChildResult run(const std::string& case_dir, int timeout_s);

 private:
  bool start();
  bool send_line(const std::string& line);  // false if the worker is gone
  // Ends the worker (closes its input; kills it at once if `timed_out`,
  // else after 5 s), reaps it and says how it ended.
  ChildResult end_worker(bool timed_out, int timeout_s);

  std::string exe_;
  std::vector<std::string> args_;
  pid_t pid_ = -1;
  int to_child_ = -1;    // its stdin
  int from_child_ = -1;  // its stdout and stderr
  std::string pending_;  // output read but not yet consumed
};

}  // namespace sy
