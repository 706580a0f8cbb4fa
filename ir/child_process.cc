#include "ir/child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace sy {

ChildOutput collect_child(pid_t pid, int fd, int timeout_ms, size_t max_bytes) {
  ChildOutput out;
  char buf[1 << 16];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    // Rounded up, so that the child is never stopped before its time.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      out.timed_out = true;
      break;
    }
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    if (r == 0) continue;  // the deadline check above ends it
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of output: the child closed its end (exited)
    // Past the limit the output is still drained, so the child never blocks.
    if (out.bytes.size() < max_bytes)
      out.bytes.append(buf, std::min(static_cast<size_t>(n), max_bytes - out.bytes.size()));
  }
  ::close(fd);
  if (out.timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  pid_t w;
  while ((w = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  // ECHILD where the embedding program ignores SIGCHLD (children are then
  // reaped for it): the status is unknown, not a failure to wait.
  if (w == pid) out.wait_status = status;
  return out;
}

}  // namespace sy
