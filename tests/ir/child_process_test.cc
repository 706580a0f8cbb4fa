#include "ir/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace sy {
namespace {

// Forks a child that runs `body` with the write end of its output pipe,
// then _exits with what body returns.
ChildOutput run(const std::function<int(int)>& body, int timeout_ms, size_t max_bytes) {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::_exit(body(fds[1]));
  }
  ::close(fds[1]);
  EXPECT_GT(pid, 0);
  return collect_child(pid, fds[0], timeout_ms, max_bytes);
}

bool write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t w = ::write(fd, s.data() + done, s.size() - done);
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

TEST(ChildProcess, Output_AndExitStatus) {
  ChildOutput out = run([](int fd) { return write_all(fd, "hello") ? 3 : 9; }, 10'000, 100);
  EXPECT_FALSE(out.timed_out);
  EXPECT_EQ(out.bytes, "hello");
  ASSERT_TRUE(WIFEXITED(out.wait_status));
  EXPECT_EQ(WEXITSTATUS(out.wait_status), 3);
}

TEST(ChildProcess, MoreThanTheLimit_IsDrainedSoTheChildFinishes) {
  // 4 MiB is far past a pipe's buffer: a reader that stopped at the limit
  // would leave the child blocked until the timeout.
  ChildOutput out = run([](int fd) { return write_all(fd, std::string(4 << 20, 'x')) ? 0 : 9; }, 30'000, 10);
  EXPECT_FALSE(out.timed_out);
  EXPECT_EQ(out.bytes, std::string(10, 'x'));
  ASSERT_TRUE(WIFEXITED(out.wait_status));
  EXPECT_EQ(WEXITSTATUS(out.wait_status), 0);
}

TEST(ChildProcess, PastTheLimit_IsKilled) {
  ChildOutput out = run(
      [](int fd) {
        write_all(fd, "started");
        for (;;) ::pause();
        return 0;
      },
      200, 100);
  EXPECT_TRUE(out.timed_out);
  EXPECT_EQ(out.bytes, "started");
  ASSERT_TRUE(WIFSIGNALED(out.wait_status));
  EXPECT_EQ(WTERMSIG(out.wait_status), SIGKILL);
}

TEST(ChildProcess, Crash_IsReportedAsTheSignal) {
  ChildOutput out = run([](int) { return ::raise(SIGABRT); }, 10'000, 100);
  EXPECT_FALSE(out.timed_out);
  ASSERT_TRUE(WIFSIGNALED(out.wait_status));
  EXPECT_EQ(WTERMSIG(out.wait_status), SIGABRT);
}

}  // namespace
}  // namespace sy
