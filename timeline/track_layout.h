// Where the timeline exporters (Chrome JSON, Perfetto protobuf) put things,
// and how slices that overlap on one track are drawn: Perfetto reads the
// slices of one track as a call stack, where a slice that starts inside
// another and ends after it is an import error (see PERFETTO.md). Nothing is
// shortened to fit: overlapping slices go on lanes of their track, extra
// tracks that show under it and read as the same track ("Stream 7",
// "Stream 7 ·2"). Every track is laid out here before it is written.
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
inline constexpr uint32_t kStepsTid = 0x7FFFFFFEu;     // "Steps" (steps.h), on the host process
constexpr uint32_t syncTrackTid(uint32_t contextId) { return 0x7FFF0000u | contextId; }

// What a slice is drawn from. At equal bounds on one track the smaller value
// is the parent: an NVTX range encloses the API call it was pushed around,
// and a runtime call encloses the driver call it made.
enum class SliceSource : uint8_t {
  Nvtx,
  OpenAcc,  // an OpenACC event: encloses the CUDA calls it made
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
  uint64_t start;  // ns on the trace clock, the record's
  uint64_t end;    // ns, the record's (cut only past kMaxLanes: see TrackLayout)
  uint32_t index;  // the record's index within its kind's sequence
  uint16_t tie;    // order among equal bounds and equal source (NVTX depth)
  SliceSource source;
  uint8_t lane;  // set by TrackLayout: 0 is the track itself, 1 its first extra lane
};
static_assert(sizeof(Slice) == 24, "slices are held for every record: keep them small");

// The most lanes of one track, the track itself included. A GPU runs at most
// 128 kernels at once, so a stream never needs more; past it a slice is cut
// to nest in the last lane, and counted (clamped_slices).
inline constexpr uint32_t kMaxLanes = 128;

// Which overlaps a lane may hold.
enum class OverlapPolicy : uint8_t {
  // CPU threads (API calls, push/pop ranges, synchronization, overhead): a
  // slice that lies inside another nests under it, on its lane; only a
  // partial overlap needs another lane.
  Nest,
  // CUDA streams: work on a stream never nests (a kernel inside a copy is
  // concurrent work: graph branches, or clock jitter of a few ns), so any
  // overlap goes on another lane. Only a whole graph launch (graph-level
  // tracing) encloses the work it ran.
  OneAtATime,
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

// Puts the slices of one track on lanes, in track order, a window of start
// times at a time, so that a timeline need not hold all its slices at once:
// each run is given the slices that start in the next window and carries
// over what is open on each lane. A slice goes on the first lane where it
// fits (nothing open there, or it nests in what is open, as the policy
// allows); a new lane is opened only when it fits on none: greedy interval
// partitioning by start, which for slices that never nest (a stream) opens
// as many lanes as the most slices running at once. Runs over consecutive
// windows give exactly what one run over all of them gives (layoutTrack),
// and both timeline exporters lay out with this class, through
// WindowLayout (window_layout.h), so they agree.
class TrackLayout {
 public:
  explicit TrackLayout(OverlapPolicy policy) : policy_(policy) {}

  // Orders [begin, end), slices starting after those of the earlier runs,
  // sets each one's lane and passes it to emit(const Slice&) in track order.
  template <typename Emit>
  void run(Slice* begin, Slice* end, Emit&& emit) {
    // Records arrive nearly in order (a stream's kernels, a thread's calls in
    // order of completion); checking first skips most sorts.
    if (!std::is_sorted(begin, end, inTrackOrder)) std::sort(begin, end, inTrackOrder);
    for (Slice* p = begin; p != end; ++p) {
      Slice s = *p;
      place(s);
      emit(static_cast<const Slice&>(s));
    }
  }
  // The same, each slice's lane (and end, if cut) set where it is: the
  // slices are left in track order. No slice is copied whole, which would
  // read back as one the narrow stores just made to it (a stalled load).
  void run(Slice* begin, Slice* end) {
    if (!std::is_sorted(begin, end, inTrackOrder)) std::sort(begin, end, inTrackOrder);
    for (Slice* p = begin; p != end; ++p) place(*p);
  }

  // Lanes opened so far, the track itself included (at least 1).
  uint32_t lanes() const { return lanes_.empty() ? 1 : static_cast<uint32_t>(lanes_.size()); }
  // Slices cut to fit the last lane, past kMaxLanes (each counted once).
  uint64_t changed() const { return changed_; }
  OverlapPolicy policy() const { return policy_; }

 private:
  struct Open {
    uint64_t end;
    bool encloses;  // may hold slices inside it on its lane
  };
  void place(Slice& s) {
    // Most tracks have one lane, where most slices fit: checked first, inline.
    if (!lanes_.empty()) {
      std::vector<Open>& open = lanes_.front();
      while (!open.empty() && open.back().end <= s.start) open.pop_back();
      if (open.empty()) {
        s.lane = 0;
        push(open, s);
        return;
      }
    }
    placeSlow(s);
  }
  void placeSlow(Slice& s) {
    for (size_t l = 0; l < lanes_.size(); ++l) {
      std::vector<Open>& open = lanes_[l];
      while (!open.empty() && open.back().end <= s.start) open.pop_back();
      // An empty slice overlaps nothing: it may sit inside any slice.
      if (open.empty() || (s.end <= open.back().end && (open.back().encloses || s.start == s.end)))
        return put(s, l);
    }
    if (lanes_.size() < kMaxLanes) {
      lanes_.emplace_back();
      return put(s, lanes_.size() - 1);
    }
    // Every lane is taken: the slice nests in the last one, cut if it must be.
    const uint64_t innermost = lanes_.back().back().end;
    if (s.end > innermost) {
      s.end = innermost;
      ++changed_;
    }
    put(s, lanes_.size() - 1);
  }
  void put(Slice& s, size_t lane) {
    s.lane = static_cast<uint8_t>(lane);
    push(lanes_[lane], s);
  }
  // Written field by field in place: a whole Open built aside and copied in
  // costs a stalled load per slice (two narrow stores read back as one).
  void push(std::vector<Open>& open, const Slice& s) {
    Open& o = open.emplace_back();
    o.end = s.end;
    o.encloses = policy_ == OverlapPolicy::Nest || s.source == SliceSource::Graph;
  }

  OverlapPolicy policy_;
  // By lane: what is open at the current position, innermost last.
  std::vector<std::vector<Open>> lanes_;
  uint64_t changed_ = 0;
};

// Lays out one track whole (TrackLayout): orders the slices (inTrackOrder)
// and sets their lanes, so that the slices of each lane, written in this
// order, nest properly: any two are disjoint (touching allowed) or one
// contains the other. Returns the number of lanes. A slice touching the end
// of another (start == end) is not an overlap.
uint32_t layoutTrack(Slice* begin, Slice* end, OverlapPolicy policy);

// The thread id of lane `lane` of a JSON track whose own tid is `tid`. OS
// thread ids (below 2^22, moved in steps of 2^22 by merge) and CUPTI stream
// ids are far below 2^24 and lanes below 2^7, so lane tids stay below 2^31
// (Perfetto wants non-negative ids) and apart from every thread and stream,
// and from the sync and overhead tids for tids below 0xFF0000.
constexpr uint32_t laneTid(uint32_t tid, uint32_t lane) {
  return lane == 0 ? tid : tid + (lane << 24);
}
// The name of lane `lane` of a track named `name`: "Stream 7", "Stream 7 ·2".
std::string laneName(const std::string& name, uint32_t lane);

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
inline constexpr const char* kStepsTrackName = "Steps";

}  // namespace cuptitrace
