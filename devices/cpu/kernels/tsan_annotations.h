// What ThreadSanitizer builds (scripts/sanitize-fake-gpu.sh thread) need
// from the code: SY_TSAN_BUILD, and happens-before edges for
// synchronisation that TSan cannot see. oneTBB is not instrumented, so
// TSan sees neither a parallel loop handing its body to the workers nor
// the join at its end: every buffer a loop writes and its caller then
// reads (a kernel's output, a staged copy's pinned block) looks like a
// race. tsan_release(x) in one thread and tsan_acquire(x) in another make
// what the first did before visible to the second. In other builds both
// are empty.
#pragma once

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SY_TSAN_BUILD 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SY_TSAN_BUILD 1
#endif

#ifdef SY_TSAN_BUILD
#include <sanitizer/tsan_interface.h>  // __tsan_acquire, __tsan_release
#endif

namespace sy {

inline void tsan_acquire([[maybe_unused]] void* sync) {
#ifdef SY_TSAN_BUILD
  __tsan_acquire(sync);
#endif
}

inline void tsan_release([[maybe_unused]] void* sync) {
#ifdef SY_TSAN_BUILD
  __tsan_release(sync);
#endif
}

}  // namespace sy
