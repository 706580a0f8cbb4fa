#include "cli/case_worker.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <sstream>

#include "ir/child_process.h"

extern char** environ;

namespace sy {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The last bytes of a child's output, on one line, for an error message.
std::string tail_of(const std::string& out) {
  std::string tail = out.substr(out.size() > 300 ? out.size() - 300 : 0);
  std::replace(tail.begin(), tail.end(), '\n', ' ');
  return tail;
}

// Starts `exe args...` with stdout and stderr on `out_fd` and, when
// `in_fd` >= 0, stdin on it. Returns the pid, or -1.
pid_t spawn(const std::string& exe, const std::vector<std::string>& args, int in_fd, int out_fd) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (in_fd >= 0) posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 1);  // dup2 leaves 0, 1 and 2 open across exec
  posix_spawn_file_actions_adddup2(&fa, out_fd, 2);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc == 0 ? pid : -1;
}

// How a child that gave no result line ended.
ChildResult without_result(const ChildOutput& child, const std::string& output, int timeout_s) {
  if (child.timed_out) return {"TIMEOUT", "killed after " + std::to_string(timeout_s) + " s", {}, 0, {}};
  const int ws = child.wait_status;
  if (ws != -1 && WIFSIGNALED(ws))
    return {"CRASH", std::string("killed by signal ") + strsignal(WTERMSIG(ws)), {}, 0, {}};
  const std::string exit = ws == -1 ? "exit status unknown" : "exit " + std::to_string(WEXITSTATUS(ws));
  return {"ERROR", "no result line (" + exit + "): " + tail_of(output), {}, 0, {}};
}

// The first complete "SYRESULT ..." line in `out`, removed from it with
// everything before it.
std::optional<ChildResult> take_result(std::string& out) {
  const size_t pos = out.find("SYRESULT ");
  if (pos == std::string::npos) return std::nullopt;
  const size_t end = out.find('\n', pos);
  if (end == std::string::npos) return std::nullopt;
  ChildResult r = parse_result_line(out.substr(pos + 9, end - pos - 9));
  out.erase(0, end + 1);
  return r;
}

}  // namespace

ChildResult parse_result_line(const std::string& text) {
  ChildResult r;
  std::istringstream line(text);
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

ChildResult run_case_process(const std::string& exe, const std::vector<std::string>& args, int timeout_s) {
  const auto t0 = Clock::now();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return {"ERROR", "pipe failed", {}, 0, {}};
  const pid_t pid = spawn(exe, args, -1, fds[1]);
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return {"ERROR", "spawn failed", {}, 0, {}};
  }
  ChildOutput child = collect_child(pid, fds[0], timeout_s * 1000, 1 << 20);
  // A killed child's result line, if any, came before whatever killed it.
  std::optional<ChildResult> r;
  if (!child.timed_out && !(child.wait_status != -1 && WIFSIGNALED(child.wait_status))) r = take_result(child.bytes);
  ChildResult out = r ? std::move(*r) : without_result(child, child.bytes, timeout_s);
  out.seconds = seconds_since(t0);
  return out;
}

CaseWorker::CaseWorker(std::string exe, std::vector<std::string> args) : exe_(std::move(exe)), args_(std::move(args)) {}

// End of input ends a worker between cases (end_worker() kills one that
// takes longer to go).
CaseWorker::~CaseWorker() {
  if (pid_ >= 0) end_worker(false, 0);
}

bool CaseWorker::start() {
  // Its input is a socket rather than a pipe so that a case can be sent
  // with MSG_NOSIGNAL: a worker that died gives EPIPE, not a SIGPIPE that
  // would end this process.
  int in[2], out[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) return false;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return false;
  }
  pid_ = spawn(exe_, args_, in[1], out[1]);
  close(in[1]);
  close(out[1]);
  if (pid_ < 0) {
    close(in[0]);
    close(out[0]);
    return false;
  }
  to_child_ = in[0];
  from_child_ = out[0];
  pending_.clear();
  return true;
}

ChildResult CaseWorker::end_worker(bool timed_out, int timeout_s) {
  if (timed_out) ::kill(pid_, SIGKILL);
  ::close(to_child_);
  ChildOutput child = collect_child(pid_, from_child_, 5000, 1 << 16);
  child.timed_out = timed_out;
  pid_ = -1;
  to_child_ = from_child_ = -1;
  return without_result(child, pending_ + child.bytes, timeout_s);
}

bool CaseWorker::send_line(const std::string& line) {
  for (size_t sent = 0; sent < line.size();) {
    const ssize_t n = ::send(to_child_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

ChildResult CaseWorker::run(const std::string& case_dir, int timeout_s) {
  const auto t0 = Clock::now();
  const auto timed = [&](ChildResult r) {
    r.seconds = seconds_since(t0);
    return r;
  };
  if (case_dir.find('\n') != std::string::npos) return {"ERROR", "case folder name has a line break", {}, 0, {}};
  const std::string line = case_dir + "\n";
  if (pid_ >= 0 && !send_line(line)) end_worker(false, timeout_s);  // it ended after its last case: start another
  if (pid_ < 0 && (!start() || !send_line(line))) {
    if (pid_ >= 0) return timed(end_worker(false, timeout_s));
    return {"ERROR", "could not start a worker process", {}, 0, {}};
  }
  const auto deadline = t0 + std::chrono::seconds(timeout_s);
  char buf[1 << 16];
  for (;;) {
    if (std::optional<ChildResult> r = take_result(pending_)) return timed(std::move(*r));
    const int ready = wait_readable(from_child_, deadline);
    if (ready <= 0) return timed(end_worker(ready == 0, timeout_s));
    const ssize_t n = ::read(from_child_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return timed(end_worker(false, timeout_s));  // end of output: the worker exited or crashed
    pending_.append(buf, static_cast<size_t>(n));
    // Bounded however much a case prints: a result line is short, and the
    // tail is all an error message shows.
    if (pending_.size() > (1 << 20)) pending_.erase(0, pending_.size() - (1 << 16));
  }
}

}  // namespace sy
