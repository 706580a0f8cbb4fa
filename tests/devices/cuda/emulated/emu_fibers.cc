#include "tests/devices/cuda/emulated/emu_fibers.h"

#include <sys/mman.h>
#include <ucontext.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace sy::emu {

namespace {

// Ample for kernel code (small locals, parameter structs of a few KB);
// mapped lazily, with a guard page below so an overflow faults.
constexpr size_t kStackBytes = size_t{256} << 10;
constexpr size_t kGuardBytes = 4096;

struct Stack {
  void* base = nullptr;  // the mapping, guard page first
  void* bottom() const { return static_cast<char*>(base) + kGuardBytes; }
};

// Stacks are kept for the next block: mapping 256 of them a block would
// cost what the fibers save.
class StackPool {
 public:
  Stack take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      Stack s = free_.back();
      free_.pop_back();
      return s;
    }
    void* p = mmap(nullptr, kGuardBytes + kStackBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED || mprotect(p, kGuardBytes, PROT_NONE) != 0) {
      std::fputs("emulated CUDA: cannot map a fiber stack\n", stderr);
      std::abort();
    }
    return Stack{p};
  }
  void give_back(Stack s) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(s);
  }

 private:
  std::mutex mu_;
  std::vector<Stack> free_;
};

StackPool& stacks() {
  static StackPool* pool = new StackPool();  // never destroyed: fibers may run during exit
  return *pool;
}

// AddressSanitizer's fiber protocol: announce a switch, then confirm it on
// the other side; a fiber that ends announces its last switch with no
// place to save its fake stack, which frees it.
struct AsanSwitch {
#if defined(__SANITIZE_ADDRESS__)
  void* fake = nullptr;
  void start(const void* bottom, size_t size, bool ending = false) {
    __sanitizer_start_switch_fiber(ending ? nullptr : &fake, bottom, size);
  }
  void finish(const void** from_bottom = nullptr, size_t* from_size = nullptr) {
    __sanitizer_finish_switch_fiber(fake, from_bottom, from_size);
  }
#else
  void start(const void*, size_t, bool = false) {}
  void finish(const void** = nullptr, size_t* = nullptr) {}
#endif
};

}  // namespace

struct Fiber {
  ucontext_t context;
  Stack stack;
  unsigned index = 0;
  bool done = false;
  const FiberBarrier* waiting = nullptr;  // set while it waits at a barrier
  uint64_t wait_generation = 0;           // ... for this round to complete
};

class FiberBlock {
 public:
  FiberBlock(unsigned count, const std::function<void(unsigned)>& body, bool reverse) : body_(body) {
    fibers_.reserve(count);
    for (unsigned t = 0; t < count; ++t) {
      auto f = std::make_unique<Fiber>();
      f->index = t;
      f->stack = stacks().take();
      getcontext(&f->context);
      f->context.uc_stack.ss_sp = f->stack.bottom();
      f->context.uc_stack.ss_size = kStackBytes;
      f->context.uc_link = &scheduler_;
      makecontext(&f->context, &FiberBlock::entry, 0);
      fibers_.push_back(std::move(f));
    }
    if (reverse) std::reverse(fibers_.begin(), fibers_.end());
  }
  ~FiberBlock() {
    for (auto& f : fibers_) stacks().give_back(f->stack);
  }

  // Resumes every fiber that can go on, round after round, until all are done.
  void run() {
    FiberBlock* outer = t_block_;
    t_block_ = this;
    for (;;) {
      bool pending = false, progressed = false;
      for (auto& f : fibers_) {
        if (f->done) continue;
        pending = true;
        if (f->waiting && f->waiting->generation_ == f->wait_generation) continue;
        f->waiting = nullptr;
        current_ = f.get();
        AsanSwitch s;
        s.start(f->stack.bottom(), kStackBytes);
        swapcontext(&scheduler_, &f->context);
        s.finish();
        progressed = true;
      }
      if (!pending) break;
      if (!progressed) {
        std::fprintf(stderr,
                     "emulated CUDA: the threads of a block wait at barriers that the others never reach "
                     "(a __syncthreads or shuffle not reached by every thread): this would hang on a GPU\n");
        std::abort();
      }
    }
    current_ = nullptr;
    t_block_ = outer;
  }

  // In a fiber: back to the scheduler until the barrier's round completes.
  void wait(const FiberBarrier& b, uint64_t generation) {
    Fiber* me = current_;
    me->waiting = &b;
    me->wait_generation = generation;
    AsanSwitch s;
    s.start(scheduler_bottom_, scheduler_size_);
    swapcontext(&me->context, &scheduler_);
    s.finish();
  }

  static FiberBlock* running() { return t_block_; }
  unsigned current() const { return current_->index; }

 private:
  static void entry() {
    FiberBlock* b = t_block_;
    Fiber* me = b->current_;
    AsanSwitch first;
    first.finish(&b->scheduler_bottom_, &b->scheduler_size_);
    b->body_(me->index);
    me->done = true;
    AsanSwitch last;
    last.start(b->scheduler_bottom_, b->scheduler_size_, /*ending=*/true);
    // Returning resumes uc_link: the scheduler.
  }

  static thread_local FiberBlock* t_block_;
  const std::function<void(unsigned)>& body_;
  std::vector<std::unique_ptr<Fiber>> fibers_;
  ucontext_t scheduler_{};
  Fiber* current_ = nullptr;
  const void* scheduler_bottom_ = nullptr;
  size_t scheduler_size_ = 0;
};

thread_local FiberBlock* FiberBlock::t_block_ = nullptr;

void FiberBarrier::arrive_and_wait() {
  if (++arrived_ == expected_) {
    // The last to arrive completes the round and goes on; the others are
    // resumed by the scheduler.
    arrived_ = 0;
    ++generation_;
    return;
  }
  FiberBlock::running()->wait(*this, generation_);
}

void run_fibers(unsigned count, const std::function<void(unsigned)>& body, bool reverse) {
  FiberBlock block(count, body, reverse);
  block.run();
}

unsigned current_fiber() { return FiberBlock::running()->current(); }

}  // namespace sy::emu
