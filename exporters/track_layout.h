// Where the Chrome JSON timeline puts things, and how slices on one track are
// made to nest. Perfetto reads the X slices of one (pid, tid) as a call
// stack: a slice that starts inside another and ends after it is an import
// error (see PERFETTO.md), so every track is laid out here before it is written.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "core/trace.h"

namespace cuptitrace {

// The pid of device `deviceId`'s "process". Linux pids are below 2^22, so bit
// 30 keeps it clear of every host pid; the host pid's low 20 bits keep the
// GPUs of different processes apart when their traces are merged into one
// file. Device ids past 63 would share a pid (no machine has that many GPUs).
constexpr uint32_t gpuProcessId(uint32_t hostPid, uint32_t deviceId) {
  return (1u << 30) | ((hostPid & 0xFFFFFu) << 6) | (deviceId & 63u);
}

// Tids of tracks that are neither an OS thread nor a CUDA stream. OS tids
// are pids (< 2^22) and CUPTI stream ids are small, so these cannot collide.
inline constexpr uint32_t kOverheadTid = 0x7FFFFFFFu;  // "CUPTI overhead", on the host process
constexpr uint32_t syncTrackTid(uint32_t contextId) { return 0x7FFF0000u | contextId; }

// What a slice is drawn from. At equal bounds on one track the smaller value
// is the parent: an NVTX range encloses the API call it was pushed around,
// and a runtime call encloses the driver call it made.
enum class SliceSource : uint8_t {
  Nvtx,
  ApiRuntime,
  ApiDriver,
  Graph,  // a whole graph launch (graph-level tracing): it encloses its nodes, if any
  Kernel,
  Memcpy,
  Memset,
  Sync,
  Overhead
};

struct Slice {
  uint64_t start;  // ns on the trace clock
  uint64_t end;    // ns; start and end may be changed by layoutTrack
  uint32_t index;  // the record's index within its kind's sequence
  uint16_t tie;    // order among equal bounds and equal source (NVTX depth)
  SliceSource source;
  uint8_t adjusted;  // 1 when layoutTrack moved start or end
};
static_assert(sizeof(Slice) == 24, "slices are held for every record: keep them small");

// How a partial overlap on a track is removed.
enum class OverlapPolicy : uint8_t {
  // The later slice is cut to end where the slice it starts in ends. For CPU
  // threads: calls and ranges there really nest, an overlap is an oddity.
  ClampEnd,
  // The later slice starts where the one it overlaps ends, and keeps its end.
  // For CUDA streams: a stream runs one thing at a time, so an overlap is
  // clock jitter of a few ns, and cutting the later kernel down to the overlap
  // (ClampEnd) would show a long kernel as a sliver nested in its predecessor.
  MoveStart,
};

// The order of slices on a track: start ascending; at equal starts the
// longer slice first, so that a parent always comes before its children
// (Perfetto keeps the file's order among events of equal timestamp, and
// newer versions also put longer X slices first); then source, tie, index.
inline bool inTrackOrder(const Slice& a, const Slice& b) {
  if (a.start != b.start) return a.start < b.start;
  if (a.end != b.end) return a.end > b.end;
  if (a.source != b.source) return a.source < b.source;
  if (a.tie != b.tie) return a.tie < b.tie;
  return a.index < b.index;
}

// Lays out one track a window of start times at a time, so that a timeline
// need not hold all its slices at once: each run is given the slices that
// start in the next window and carries over what reaches past its end (the
// ends of the slices open there, slices whose start was moved past it).
// Runs over consecutive windows give exactly what one run over all of them
// gives (layoutTrack).
class TrackLayout {
 public:
  explicit TrackLayout(OverlapPolicy policy) : policy_(policy) {}

  // Orders [begin, end), slices starting in [previous windowEnd, windowEnd),
  // and passes each kept slice to emit(const Slice&) in its final order,
  // with the slices moved in earlier runs that now start before windowEnd.
  // Slices moved to windowEnd or later wait for a later run.
  template <typename Emit>
  void run(Slice* begin, Slice* end, uint64_t windowEnd, Emit&& emit) {
    // Records arrive nearly in order (a stream's kernels, a thread's calls in
    // order of completion); checking first skips most sorts.
    if (!std::is_sorted(begin, end, inTrackOrder)) std::sort(begin, end, inTrackOrder);
    // Everything is visited in track order, moved slices included, so a slice
    // is only ever checked against what encloses it at its final start.
    Slice* read = begin;
    for (;;) {
      Slice s;
      if (!moved_.empty() &&
          (read == end ? moved_.top().start < windowEnd : inTrackOrder(moved_.top(), *read))) {
        s = moved_.top();
        moved_.pop();
      } else if (read != end) {
        s = *read++;
      } else {
        break;
      }
      while (!open_.empty() && open_.back() <= s.start) open_.pop_back();
      if (!open_.empty() && s.end > open_.back()) {
        changed_ += s.adjusted ? 0 : 1;
        s.adjusted = 1;
        if (policy_ == OverlapPolicy::MoveStart) {
          // Still ends after the new start (s.end > open_.back()), so it never
          // shrinks to nothing; each move strictly advances the start.
          s.start = open_.back();
          moved_.push(s);
          continue;
        }
        s.end = open_.back();
      }
      open_.push_back(s.end);
      emit(static_cast<const Slice&>(s));
    }
  }

  // Slices changed so far, each counted once.
  uint64_t changed() const { return changed_; }
  // Moved slices still waiting for their window.
  bool pending() const { return !moved_.empty(); }

 private:
  struct ComesLater {
    bool operator()(const Slice& a, const Slice& b) const { return inTrackOrder(b, a); }
  };
  OverlapPolicy policy_;
  std::vector<uint64_t> open_;  // ends of the slices enclosing the current position, innermost last
  std::priority_queue<Slice, std::vector<Slice>, ComesLater> moved_;  // waiting for their new start
  uint64_t changed_ = 0;
};

// Orders the slices of one track (inTrackOrder) and removes every partial
// overlap under `policy`, so that the slices, written in this order, nest
// properly: any two are disjoint (touching allowed) or one contains the
// other. Returns the number of slices changed, each counted once and marked
// `adjusted`. A slice touching the end of another (start == end) is not an overlap.
uint64_t layoutTrack(Slice* begin, Slice* end, OverlapPolicy policy);

// ---- Shared by the timeline exporters (Chrome JSON, Perfetto protobuf) ------
// Both draw the same timeline; what they must agree on lives here.

// One trace's place in a timeline file: alone, or as one of several that
// `cuptitrace merge` shows side by side (exporters/merge.h picks the values).
struct TimelineInput {
  const Trace* trace = nullptr;
  // Added to its host pid and to its thread ids: traces of different hosts
  // may have the same pid (and tids), and Perfetto needs them apart.
  uint32_t idOffset = 0;
  // Its GPUs' processes are gpuProcessId(gpuKey, device); each trace of a
  // timeline has its own key, so GPUs of different processes stay apart.
  uint32_t gpuKey = 0;
  // Appended to its process names (host and GPUs), e.g. " (node2:1234)".
  std::string nameSuffix;
  // What the timeline's metadata says about it, e.g. {"file", "run.cuptitrace"}.
  std::vector<std::pair<std::string, std::string>> labels;

  uint32_t hostPid() const { return trace->meta.pid + idOffset; }
};
// A trace on its own: its own pid and names.
TimelineInput timelineInput(const Trace& trace);

// A record is drawn when it has a start and an end not before it.
constexpr bool drawable(uint64_t start, uint64_t end) { return start != 0 && end >= start; }

// Where a timeline's times count from, and how many records cannot be drawn.
// The base is the trace's, or the earliest drawn start when the trace has
// none (written times must stay small for Perfetto to keep their
// nanoseconds) or when a record starts before it (no negative times).
struct TimelineBase {
  uint64_t base = 0;
  uint64_t incomplete = 0;
};
TimelineBase scanTimeline(const Trace& trace);

// Track and process names as a user sees them.
// The program, or "Process <pid>"; "[rank 3] python" for a process a launcher gave a rank.
std::string hostProcessName(const Trace& trace);
// "GPU 0: NVIDIA H100 80GB HBM3 (CC 9.0, 132 SMs, 79.2 GiB, 1980 MHz)" ("[rank 3] GPU 0: ..."
// with a rank), with
// the NVTX name of the device if it has one, the details CUPTI gave.
std::string gpuProcessName(const Trace& trace, uint32_t device);
// The same without "GPU 0: ": "NVIDIA H100 80GB HBM3 (CC 9.0, ...)", only the
// details in parentheses when the device has no name, empty when nothing is known.
std::string gpuDescription(const Trace& trace, uint32_t device);
// The NVTX name of the thread, "Main thread" (tid == pid) or "Thread <tid>".
std::string hostThreadName(const Trace& trace, uint32_t tid);
// The NVTX name of the context or "context <id>".
std::string contextLabel(const Trace& trace, uint32_t context);
// The NVTX name of the stream or "Stream <id>". When the trace knows more than
// one context (context records or NVTX names), its context follows, so that
// streams of different contexts on one GPU can be told apart: "Stream 13
// (context 2)", "copies (trainer)". `context` is that of the stream's work, 0
// when unknown (then left out).
std::string streamTrackName(const Trace& trace, uint32_t stream, uint32_t context);
// "Synchronization (context 1)", or with the context's NVTX name "Synchronization (trainer)".
std::string syncTrackName(const Trace& trace, uint32_t context);
inline constexpr const char* kOverheadTrackName = "CUPTI overhead";

}  // namespace cuptitrace
