// Capture windows (CUPTITRACE_CAPTURE): when collection is on. The whole run,
// between cudaProfilerStart and cudaProfilerStop, over NVTX ranges of a given
// name, after a delay for a duration, or toggled by a signal.
//
// CaptureWindow is the decision alone: it is fed events (profiler start/stop,
// NVTX ranges opening and closing, clock ticks, signal toggles) and answers
// whether collection turns on or off. No CUPTI, no clock, no threads here:
// collectors/capture_control.cpp feeds it and switches CUPTI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cuptitrace {

enum class CaptureMode : uint8_t { All, Profiler, Nvtx, Time, Signal };

struct CaptureSpec {
  CaptureMode mode = CaptureMode::All;
  // Nvtx: ranges named `rangeName` (starting with it when `rangePrefix`),
  // occurrences `first` to `last` counted from 1 in the order they open.
  std::string rangeName;
  bool rangePrefix = false;
  bool everyRange = true;       // no @N: every such range is a window of its own
  uint64_t first = 1;
  uint64_t last = UINT64_MAX;   // UINT64_MAX: no last one (the window runs to the end)
  // Time: from `delayNs` after tracing starts, for `durationNs` (0: to the end).
  uint64_t delayNs = 0;
  uint64_t durationNs = 0;
  // Signal: each delivery of `signal` toggles collection.
  int signal = 0;
  std::string signalName;       // "USR2", "RTMIN+3"

  bool needsNvtx() const { return mode == CaptureMode::Nvtx; }
  bool needsProfilerCalls() const { return mode == CaptureMode::Profiler; }
  bool needsThread() const { return mode != CaptureMode::All; }
};

// Parses a CUPTITRACE_CAPTURE value:
//   all                 the whole run
//   profiler            between cudaProfilerStart/cuProfilerStart and the next Stop, repeatable
//   nvtx:NAME           every NVTX range named NAME (NAME* : starting with NAME) is a window
//   nvtx:NAME@N         the N-th such range
//   nvtx:NAME@N-M       from the start of the N-th to the end of the M-th
//   nvtx:NAME@N-        from the start of the N-th to the end of the run
//   time:DELAY[+DURATION]  DELAY after tracing starts, for DURATION (default: to the end);
//                       numbers with ns, us, ms, s, m or h (bare numbers are seconds)
//   signal[:NAME]       each SIGNAME toggles collection (default USR2; USR1, USR2, RTMIN+N)
// The text after the last '@' is read as occurrences only when it has that shape.
// Returns nothing (and why) for anything else.
std::optional<CaptureSpec> parseCaptureSpec(std::string_view text, std::string* why = nullptr);
// The canonical text of a spec; parseCaptureSpec reads it back to the same spec.
std::string captureSpecText(const CaptureSpec& spec);

enum class CaptureChange : uint8_t { None, Open, Close };

class CaptureWindow {
 public:
  explicit CaptureWindow(CaptureSpec spec);

  // Tracing starts at `nowNs`: Open when collection starts on (all; a time
  // window with no delay). Every other event is ignored before this.
  CaptureChange start(uint64_t nowNs);

  CaptureChange profilerStart();
  CaptureChange profilerStop();

  // Push/pop ranges, per thread; a pop closes the innermost range of its domain.
  CaptureChange rangePush(uint32_t tid, uint64_t domain, std::string_view name);
  CaptureChange rangePop(uint32_t tid, uint64_t domain);
  // Start/end ranges, by id (they may end on another thread).
  CaptureChange rangeStart(uint64_t id, std::string_view name);
  CaptureChange rangeEnd(uint64_t id);

  // The clock reached `nowNs` (same clock as start()).
  CaptureChange tick(uint64_t nowNs);
  // When tick() must next be called; UINT64_MAX when never.
  uint64_t nextDeadline() const;

  CaptureChange toggle();

  bool on() const { return on_; }
  // No window can open any more: callers may stop feeding events.
  bool finished() const { return finished_; }
  // Collection is off for good: the last window has closed (a time window's
  // end has passed, the last of a bounded span of NVTX ranges has closed).
  // Never in the modes that can reopen (profiler, signal, every NVTX range,
  // a span with no last occurrence), nor with `all`, which is on for good.
  bool pastLastWindow() const { return finished_ && !on_; }
  // NVTX occurrences of the range seen so far.
  uint64_t occurrences() const { return occurrences_; }

 private:
  struct Pushed {
    uint64_t domain;
    uint64_t occurrence;  // 0: not a range of the window's name
  };
  bool matches(std::string_view name) const;
  CaptureChange set(bool on);
  // A matching range opened (numbered `occurrence`) or closed.
  CaptureChange opened(uint64_t occurrence);
  CaptureChange closed(uint64_t occurrence);
  bool inRange(uint64_t occurrence) const { return occurrence >= spec_.first && occurrence <= spec_.last; }

  const CaptureSpec spec_;
  bool started_ = false;
  bool on_ = false;
  bool finished_ = false;
  // Nvtx
  uint64_t occurrences_ = 0;
  uint64_t openInRange_ = 0;  // matching ranges open now with occurrence in [first, last]
  std::unordered_map<uint32_t, std::vector<Pushed>> stacks_;
  std::unordered_map<uint64_t, uint64_t> startedRanges_;  // start/end id -> occurrence
  // Time
  uint64_t startNs_ = 0;
};

}  // namespace cuptitrace
