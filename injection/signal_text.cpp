#include "injection/signal_text.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/own_threads.h"

namespace cuptitrace::signal_text {
namespace {

constexpr size_t kPathBytes = 1024;
char gJournal[kPathBytes];
std::atomic<bool> gHasJournal{false};
std::atomic<bool> gSealed{false};
// "SIGTERM", "SIGRTMIN+3": made once, outside any handler (prepareNames).
constexpr size_t kNameBytes = 24;
char gNames[NSIG][kNameBytes];
std::atomic<bool> gNamesReady{false};

// A line assembled piece by piece in a fixed buffer; too long is cut.
class Line {
 public:
  Line& add(const char* text) {
    while (text != nullptr && *text != '\0' && used_ < sizeof(buf_) - 1) buf_[used_++] = *text++;
    return *this;
  }
  Line& number(uint64_t value, int base = 10) {
    char digits[24];
    int n = 0;
    do {
      const int d = static_cast<int>(value % base);
      digits[n++] = static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10);
      value /= base;
    } while (value != 0 && n < 24);
    if (base == 16) add("0x");
    while (n > 0 && used_ < sizeof(buf_) - 1) buf_[used_++] = digits[--n];
    return *this;
  }
  void say() {
    buf_[used_++] = '\n';
    size_t done = 0;
    while (done < used_) {
      const ssize_t n = ::write(2, buf_ + done, used_ - done);
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
  }

 private:
  char buf_[kPathBytes * 3];
  size_t used_ = 0;
};

// What the journal holds, and the command that turns it back into a trace.
void addJournal(Line& line) {
  if (!gHasJournal.load(std::memory_order_acquire) || ::access(gJournal, F_OK) != 0) {
    line.add("no spill journal was kept (CUPTITRACE_SPILL=always keeps one from the start)");
    return;
  }
  line.add(gJournal)
      .add(gSealed.load(std::memory_order_acquire) ? " holds the whole trace" : " holds what reached it")
      .add(": `cuptitrace recover ")
      .add(gJournal)
      .add("` rebuilds it");
}

}  // namespace

const char* signalName(int sig) {
  if (sig > 0 && sig < NSIG && gNames[sig][0] != '\0') return gNames[sig];
  return "signal";
}

void prepareNames() {
  if (gNamesReady.exchange(true)) return;
  for (int sig = 1; sig < NSIG; ++sig) {
    char* name = gNames[sig];
    const char* abbrev = ::sigabbrev_np(sig);
    if (sig == SIGIO) abbrev = "IO";  // the name kill -l and most programs use
    if (abbrev != nullptr) {
      std::snprintf(name, kNameBytes, "SIG%s", abbrev);
    } else if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
      if (sig == SIGRTMIN) std::snprintf(name, kNameBytes, "SIGRTMIN");
      else std::snprintf(name, kNameBytes, "SIGRTMIN+%d", sig - SIGRTMIN);
    }
  }
}

void setJournal(const char* path) {
  if (path == nullptr || std::strlen(path) >= kPathBytes) return;
  gHasJournal.store(false, std::memory_order_release);
  std::strcpy(gJournal, path);
  gHasJournal.store(true, std::memory_order_release);
}

void setJournalSealed() { gSealed.store(true, std::memory_order_release); }

void sayCutShort(int sig) {
  Line line;
  line.add("cuptitrace: ").add(signalName(sig)).add(" again: the trace's writing is cut short; outputs already in place are whole; ");
  addJournal(line);
  line.say();
}

void sayOwnFault(int sig, const siginfo_t* info, const char* threadName) {
  Line line;
  line.add("cuptitrace: ")
      .add(signalName(sig))
      .add(" at ")
      .number(reinterpret_cast<uintptr_t>(info != nullptr ? info->si_addr : nullptr), 16)
      .add(" on the tracer's ")
      .add(threadName)
      .add(" thread (tid ")
      .number(static_cast<uint64_t>(currentThreadId()))
      .add("): no trace can be written; ");
  addJournal(line);
  line.say();
}

void sayNotWritten(const char* what, int stallMs) {
  Line line;
  line.add("cuptitrace: ")
      .add(what)
      .add(": the trace's writing made no progress for ")
      .number(static_cast<uint64_t>(stallMs / 1000))
      .add(".")
      .number(static_cast<uint64_t>(stallMs % 1000 / 100))
      .add(" s, going on without it; ");
  addJournal(line);
  line.say();
}

void prepareWhere() {
  void* frames[2];
  ::backtrace(frames, 2);  // loads libgcc_s now, not inside a handler
}

// backtrace() and dladdr() are not on POSIX's list of async-signal-safe
// functions; they run only once a fault is about to end the process anyway,
// after the unwinder was loaded (prepareWhere).
void sayWhere(int sig, const siginfo_t* info) {
  Line head;
  head.add("cuptitrace: ")
      .add(signalName(sig))
      .add(" (address ")
      .number(reinterpret_cast<uintptr_t>(info != nullptr ? info->si_addr : nullptr), 16)
      .add(") on thread ")
      .number(static_cast<uint64_t>(currentThreadId()))
      .add("; frames:");
  head.say();
  void* frames[24];
  const int n = ::backtrace(frames, 24);
  // The first frames are this function, the handler and the kernel's trampoline.
  for (int i = 2; i < n; ++i) {
    Line frame;
    frame.add("cuptitrace:   ");
    Dl_info where{};
    if (::dladdr(frames[i], &where) != 0 && where.dli_fname != nullptr) {
      const char* base = std::strrchr(where.dli_fname, '/');
      frame.add(base != nullptr ? base + 1 : where.dli_fname)
          .add("+")
          .number(reinterpret_cast<uintptr_t>(frames[i]) - reinterpret_cast<uintptr_t>(where.dli_fbase), 16);
      if (where.dli_sname != nullptr) frame.add(" ").add(where.dli_sname);
    } else {
      frame.number(reinterpret_cast<uintptr_t>(frames[i]), 16);
    }
    frame.say();
  }
}

}  // namespace cuptitrace::signal_text
