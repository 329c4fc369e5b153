// Where our code is entered from code that is not ours: CUPTI's callbacks,
// NVTX calls, the public C API, and the bodies of our own threads. An
// exception that leaves one of these unwinds through CUPTI's C frames or
// reaches std::terminate in the program, so each has one FaultBoundary that
// nothing passes.
//
// What a failure means (almost always memory running out, bad_alloc) is that
// the part behind the boundary can no longer be trusted: a half-made record,
// a range stack missing a push. So the first failure stops that part:
// later calls are skipped and counted, and both counts go into the trace's
// counters ("failed.NAME"; "dropped.after_failure.NAME", which the dropped
// total includes) and the exit summary line.
//
// Lock-free, allocation-free and noexcept itself: it runs inside the
// callbacks it protects.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

namespace cuptitrace {

class FaultBoundary {
 public:
  explicit constexpr FaultBoundary(const char* name) : name_(name) {}
  FaultBoundary(const FaultBoundary&) = delete;
  FaultBoundary& operator=(const FaultBoundary&) = delete;

  // Runs f() unless the part has stopped; an exception from it is caught,
  // counted and stops the part. True when f ran to its end.
  template <typename F>
  bool run(F&& f) noexcept {
    if (stopped_.load(std::memory_order_relaxed)) {
      skipped_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    try {
      f();
      return true;
    } catch (...) {
      fail();
      return false;
    }
  }

  // The same, for a call that answers: `fallback` when it was skipped or failed.
  template <typename R, typename F>
  R call(R fallback, F&& f) noexcept {
    R result = fallback;
    run([&] { result = f(); });
    return result;
  }

  // Counts one more call skipped (a caller that skips without run()).
  void skip() noexcept { skipped_.fetch_add(1, std::memory_order_relaxed); }
  // Counts a failure caught by the caller itself, and stops the part.
  void fail() noexcept {
    failures_.fetch_add(1, std::memory_order_relaxed);
    stopped_.store(true, std::memory_order_relaxed);
  }

  const char* name() const { return name_; }
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }
  uint64_t failures() const { return failures_.load(std::memory_order_relaxed); }
  uint64_t skipped() const { return skipped_.load(std::memory_order_relaxed); }

  // Writes the counts into a trace's counters, only when something failed,
  // so that traces where nothing did carry no noise.
  void publish(std::map<std::string, uint64_t>& counters) const {
    if (failures() == 0) return;
    counters[std::string("failed.") + name_] = failures();
    counters[std::string("dropped.after_failure.") + name_] = skipped();
  }

 private:
  const char* name_;
  std::atomic<bool> stopped_{false};
  std::atomic<uint64_t> failures_{0};
  std::atomic<uint64_t> skipped_{0};
};

// "; failed: nvtx_callback 1, drain_thread 1" for the exit summary line, from
// a trace's counters; empty when nothing failed.
inline std::string failureSummary(const std::map<std::string, uint64_t>& counters) {
  std::string out;
  const std::string prefix = "failed.";
  for (auto it = counters.lower_bound(prefix); it != counters.end() && it->first.rfind(prefix, 0) == 0; ++it) {
    if (it->second == 0) continue;
    out += out.empty() ? "; failed: " : ", ";
    out += it->first.substr(prefix.size()) + " " + std::to_string(it->second);
  }
  return out;
}

}  // namespace cuptitrace
