#include "ir/child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace sy {

int wait_readable(int fd, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    // Rounded up: rounded down, the last poll could end up to 1 ms short.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return 0;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left));
    if (r > 0) return 1;
    if (r < 0 && errno != EINTR) return -1;
  }
}

ChildOutput collect_child(pid_t pid, int fd, int timeout_ms, size_t max_bytes) {
  ChildOutput out;
  char buf[1 << 16];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const int ready = wait_readable(fd, deadline);
    if (ready == 0) out.timed_out = true;
    if (ready <= 0) break;
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
