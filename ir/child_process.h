// Collecting a child process's output under a time limit: what the loader
// does with its shape-inference child (ir/isolated_inference.cc) and
// `switchyard conformance` with each case's process. Not a Status API: the
// callers decide what a timeout or a signal means to them.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <string>

namespace sy {

struct ChildOutput {
  std::string bytes;       // what the child wrote, up to the byte limit
  bool timed_out = false;  // the limit passed first, and the child was killed
  int wait_status = -1;    // as waitpid gives it; -1 if the child could not be reaped
};

// Waits until `fd` has input (or end of input) or `deadline` passes: 1, 0
// when the deadline passed first (never before it), -1 on an error.
int wait_readable(int fd, std::chrono::steady_clock::time_point deadline);

// Reads `fd` (the read end of a pipe only the child writes to; closed on
// return) until the child closes it or `timeout_ms` passes, keeping at most
// `max_bytes`. Then kills the child (SIGKILL) if time ran out, and reaps
// it. Thread-safe. The pipe should be made with O_CLOEXEC, so that other
// children started meanwhile do not hold it open.
ChildOutput collect_child(pid_t pid, int fd, int timeout_ms, size_t max_bytes);

}  // namespace sy
