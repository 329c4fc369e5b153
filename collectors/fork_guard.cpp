#include "collectors/fork_guard.h"

#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <unistd.h>

#include <mutex>

namespace cuptitrace {
namespace fork_detail {
std::atomic<bool> forkedChild{false};
}  // namespace fork_detail

namespace {

// NVTX function tables of every module that handed NVTX to us; a program
// with many NVTX-using libraries has a handful. Fixed size: read in the
// child, where nothing may allocate.
constexpr int kMaxTables = 64;
struct Table {
  NvtxFunctionTable slots;
  unsigned size;
};
Table gTables[kMaxTables];
std::atomic<int> gTableCount{0};
std::mutex gTablesMutex;  // writers only; the child reads without it

std::atomic<bool> gAnnounce{false};
std::atomic<bool> gAnnounced{false};

// A NVTX call whose slot is empty does nothing and returns at once: the
// child's NVTX calls then never reach CUPTI's handler, whose locks may have
// been held by a parent's thread at fork time.
void detachNvtx() {
  const int n = gTableCount.load(std::memory_order_acquire);
  for (int t = 0; t < n; ++t) {
    const Table& table = gTables[t];
    for (unsigned i = 1; i < table.size; ++i)
      if (table.slots[i] != nullptr) *table.slots[i] = nullptr;
  }
}

void onForkChild() {
  fork_detail::forkedChild.store(true, std::memory_order_relaxed);
  detachNvtx();
}

char* appendText(char* p, const char* end, const char* text) {
  while (*text != '\0' && p < end) *p++ = *text++;
  return p;
}

char* appendNumber(char* p, const char* end, unsigned long value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0 && n < 24);
  while (n > 0 && p < end) *p++ = digits[--n];
  return p;
}

}  // namespace

void installForkGuard(bool announce) {
  static std::once_flag once;
  gAnnounce = announce;
  std::call_once(once, [] { ::pthread_atfork(nullptr, nullptr, onForkChild); });
}

void announceForkedChild() {
  if (!gAnnounce.load(std::memory_order_relaxed) || gAnnounced.exchange(true)) return;
  char line[256];
  const char* end = line + sizeof(line);
  char* p = appendText(line, end, "cuptitrace: process ");
  p = appendNumber(p, end, static_cast<unsigned long>(::getpid()));
  p = appendText(p, end, ", forked from traced process ");
  p = appendNumber(p, end, static_cast<unsigned long>(::getppid()));
  p = appendText(p, end,
                 ", runs untraced (CUDA and CUPTI do not survive fork; a program it execs is traced)\n");
  const char* q = line;
  while (q < p) {
    const ssize_t n = ::write(STDERR_FILENO, q, static_cast<size_t>(p - q));
    if (n <= 0) break;
    q += n;
  }
}

bool rememberNvtxModule(const void* getExportTable) {
  if (getExportTable == nullptr) return false;
  auto get = reinterpret_cast<NvtxGetExportTableFunc_t>(const_cast<void*>(getExportTable));
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr)
    return false;
  std::lock_guard<std::mutex> lock(gTablesMutex);
  bool any = false;
  for (int module = NVTX_CB_MODULE_CORE; module < NVTX_CB_MODULE_SIZE; ++module) {
    NvtxFunctionTable slots = nullptr;
    unsigned size = 0;
    if (!callbacks->GetModuleFunctionTable(static_cast<NvtxCallbackModule>(module), &slots, &size) ||
        slots == nullptr)
      continue;
    const int n = gTableCount.load(std::memory_order_relaxed);
    if (n >= kMaxTables) return any;
    gTables[n] = {slots, size};
    gTableCount.store(n + 1, std::memory_order_release);
    any = true;
  }
  return any;
}

}  // namespace cuptitrace
