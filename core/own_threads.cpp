#include "core/own_threads.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

namespace cuptitrace {
namespace {

// A few threads at most; a slot is claimed once (tid 0 means free).
constexpr int kSlots = 32;
struct Slot {
  std::atomic<int32_t> tid{0};
  std::atomic<const char*> name{nullptr};
};
Slot gSlots[kSlots];

}  // namespace

int32_t currentThreadId() { return static_cast<int32_t>(::syscall(SYS_gettid)); }

void registerOwnThread(const char* name) {
  const int32_t tid = currentThreadId();
  for (Slot& s : gSlots) {
    if (s.tid.load(std::memory_order_acquire) == tid) {
      s.name.store(name, std::memory_order_release);
      return;
    }
  }
  for (Slot& s : gSlots) {
    int32_t expected = 0;
    // The name first: a reader that sees the tid sees a name.
    if (s.tid.load(std::memory_order_relaxed) != 0) continue;
    s.name.store(name, std::memory_order_release);
    if (s.tid.compare_exchange_strong(expected, tid, std::memory_order_acq_rel)) return;
  }
  // Every slot taken: the thread's faults are taken as the program's.
}

void unregisterOwnThread() {
  const int32_t tid = currentThreadId();
  for (Slot& s : gSlots) {
    int32_t expected = tid;
    if (s.tid.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) return;
  }
}

const char* ownThreadName(int32_t tid) {
  if (tid == 0) return nullptr;
  for (const Slot& s : gSlots)
    if (s.tid.load(std::memory_order_acquire) == tid) return s.name.load(std::memory_order_acquire);
  return nullptr;
}

}  // namespace cuptitrace
