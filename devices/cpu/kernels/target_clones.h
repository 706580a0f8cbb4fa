// SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default") before a
// hot loop's function builds it once per listed target, and the loader picks
// the widest the CPU has (GCC's target_clones, an ifunc).
//
// It expands to nothing, leaving one baseline build, where that cannot
// work: off x86-64 (the targets are x86's), and under ThreadSanitizer, which
// instruments the ifunc's resolver, and the loader runs resolvers before
// TSan has started: the process would crash before main()
// (scripts/sanitize-fake-gpu.sh thread).
#pragma once

#include "devices/cpu/kernels/tsan_annotations.h"

#if defined(__x86_64__) && !defined(SY_TSAN_BUILD)
#define SY_TARGET_CLONES(...) __attribute__((target_clones(__VA_ARGS__)))
#else
#define SY_TARGET_CLONES(...)
#endif
