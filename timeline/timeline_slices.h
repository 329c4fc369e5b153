// The slices that both timeline exporters (Chrome JSON, Perfetto protobuf)
// draw, read a window of start times at a time (slice_windows.h): each drawn
// API call, NVTX range, OpenACC event (on the thread that made it), kernel, copy, set, graph launch, synchronization and
// overhead record as a Slice on its track.
//
// The exporter names the tracks through a `Tracks` object with
//   uint32_t host(uint32_t tid);                                    // API calls, push/pop ranges
//   uint32_t stream(uint32_t device, uint32_t stream, uint32_t context);  // GPU work
//   uint32_t sync(uint32_t context);
//   uint32_t overhead();
//   uint32_t nvtxRange(size_t index, const NvtxRecord&);  // a non-empty start/end range:
//                                                         // its track, or kNoTrack
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/trace_store.h"
#include "timeline/slice_windows.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

// The record sequences a timeline is drawn from.
struct TimelineRecords {
  explicit TimelineRecords(const TraceStore& store)
      : api(store.records<ApiRecord>()),
        nvtx(store.records<NvtxRecord>()),
        kernels(store.records<KernelRecord>()),
        memcpys(store.records<MemcpyRecord>()),
        memsets(store.records<MemsetRecord>()),
        syncs(store.records<SyncRecord>()),
        overheads(store.records<OverheadRecord>()),
        graphs(store.records<GraphRecord>()),
        openacc(store.records<OpenAccRecord>()) {}

  // Calls f(record) for every record of GPU work that a launch arrow may
  // end at: kernels, copies, sets and graph launches.
  template <typename F>
  void forEachGpuWork(F&& f) const {
    kernels.forEach(f);
    memcpys.forEach(f);
    memsets.forEach(f);
    graphs.forEach(f);
  }

  const ChunkedVector<ApiRecord>& api;
  const ChunkedVector<NvtxRecord>& nvtx;
  const ChunkedVector<KernelRecord>& kernels;
  const ChunkedVector<MemcpyRecord>& memcpys;
  const ChunkedVector<MemsetRecord>& memsets;
  const ChunkedVector<SyncRecord>& syncs;
  const ChunkedVector<OverheadRecord>& overheads;
  const ChunkedVector<GraphRecord>& graphs;
  const ChunkedVector<OpenAccRecord>& openacc;
};

class TimelineSlices {
 public:
  static constexpr uint32_t kNoTrack = UINT32_MAX;

  // Tracks that name no track but say which slices have none, as `Tracks`
  // does (only NVTX start/end ranges may have none): for a pass that needs
  // the slices' starts, not their tracks.
  template <typename Tracks>
  struct StartsOnly {
    Tracks& tracks;
    uint32_t host(uint32_t) { return 0; }
    uint32_t stream(uint32_t, uint32_t, uint32_t) { return 0; }
    uint32_t sync(uint32_t) { return 0; }
    uint32_t overhead() { return 0; }
    uint32_t nvtxRange(size_t index, const NvtxRecord& r) { return tracks.nvtxRange(index, r); }
  };

  explicit TimelineSlices(const TraceStore& store) : r_(store) {}

  // Reads every slice once or twice, so finding every track, and returns
  // window bounds holding at most `windowSlices` slices each (WindowPlanner).
  template <typename Tracks>
  std::vector<uint64_t> planWindows(Tracks& tracks, size_t windowSlices) {
    WindowPlanner planner(windowSlices);
    forEach(tracks, 0, UINT64_MAX, [&](uint32_t, const Slice& s) { planner.first(s.start); });
    planned_ = true;
    if (planner.needsSecondPass()) {
      // Every track is known by now: the second pass needs only the starts.
      StartsOnly<Tracks> starts{tracks};
      forEach(starts, 0, UINT64_MAX, [&](uint32_t, const Slice& s) { planner.second(s.start); });
    }
    return planner.bounds();
  }

  // A part of a pass: one chunk of one kind's records.
  struct Part {
    uint32_t kind;
    uint32_t chunk;
  };
  static constexpr uint32_t kKinds = 9;

  // Calls f(track, slice) for every slice that starts in the window [from,
  // to) (forEachStartIn). Before planWindows, only the whole range.
  template <typename Tracks, typename F>
  void forEach(Tracks& tracks, uint64_t from, uint64_t to, F&& f) {
    forEachIn(tracks, from, to, f, kKinds, 0);
  }
  // After planWindows: the parts that may start slices in [from, to), in
  // forEach's order; forEach over part `p` alone. Parts may be read on
  // several threads at once (each with Tracks of its own): forEach over the
  // parts in turn calls f as forEach does.
  void partsIn(uint64_t from, uint64_t to, std::vector<Part>& parts) const {
    parts.clear();
    auto add = [&](const auto& records, uint32_t kind) {
      for (size_t c = 0; c < records.chunkCount(); ++c)
        if (starts_[kind].mayStartIn(c, from, to)) parts.push_back({kind, static_cast<uint32_t>(c)});
    };
    add(r_.api, 0);
    add(r_.nvtx, 1);
    add(r_.kernels, 2);
    add(r_.memcpys, 3);
    add(r_.memsets, 4);
    add(r_.graphs, 5);
    add(r_.syncs, 6);
    add(r_.overheads, 7);
    add(r_.openacc, 8);
  }
  template <typename Tracks, typename F>
  void forEachInPart(Tracks& tracks, uint64_t from, uint64_t to, Part p, F&& f) {
    forEachIn(tracks, from, to, f, p.kind, p.chunk);
  }

 private:
  // forEach over every kind (`only` kKinds) or over chunk `chunk` of kind `only`.
  template <typename Tracks, typename F>
  void forEachIn(Tracks& tracks, uint64_t from, uint64_t to, F&& f, uint32_t only, size_t chunk) {
    auto slice = [](const auto& r, size_t i, SliceSource source, uint16_t tie = 0) {
      return Slice{r.start, r.end, static_cast<uint32_t>(i), tie, source, 0};
    };
    // A lambda, not the function itself: a call through a function reference
    // is not always inlined, and this test runs for every record of every pass.
    auto timed = [](uint64_t start, uint64_t end) { return drawable(start, end); };
    auto each = [&](const auto& records, uint32_t kind, auto&& visit) {
      if (only != kKinds && kind != only) return;
      const size_t c0 = only == kKinds ? 0 : chunk;
      const size_t c1 = only == kKinds ? SIZE_MAX : chunk + 1;
      scanStartIn(records, starts_[kind], planned_, from, to, timed, visit, c0, c1);
    };
    each(r_.api, 0, [&](const ApiRecord& r, size_t i) {
      const bool driver = r.domain == static_cast<uint8_t>(ApiDomain::Driver);
      f(tracks.host(r.threadId), slice(r, i, driver ? SliceSource::ApiDriver : SliceSource::ApiRuntime));
    });
    each(r_.nvtx, 1, [&](const NvtxRecord& r, size_t i) {
      if (r.type == static_cast<uint8_t>(NvtxType::PushPop)) {
        f(tracks.host(r.threadId), slice(r, i, SliceSource::Nvtx, r.depth));
      } else if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && r.end != r.start) {
        const uint32_t t = tracks.nvtxRange(i, r);
        if (t != kNoTrack) f(t, slice(r, i, SliceSource::Nvtx));
      }
    });
    auto gpu = [&](SliceSource source) {
      return [&, source](const auto& r, size_t i) {
        f(tracks.stream(r.deviceId, r.streamId, r.contextId), slice(r, i, source));
      };
    };
    each(r_.kernels, 2, gpu(SliceSource::Kernel));
    each(r_.memcpys, 3, gpu(SliceSource::Memcpy));
    each(r_.memsets, 4, gpu(SliceSource::Memset));
    each(r_.graphs, 5, gpu(SliceSource::Graph));
    each(r_.syncs, 6, [&](const SyncRecord& r, size_t i) { f(tracks.sync(r.contextId), slice(r, i, SliceSource::Sync)); });
    each(r_.overheads, 7, [&](const OverheadRecord& r, size_t i) {
      f(tracks.overhead(), slice(r, i, SliceSource::Overhead));
    });
    // OpenACC events nest by time on their thread, as calls do; at equal
    // bounds, store order decides.
    each(r_.openacc, 8, [&](const OpenAccRecord& r, size_t i) {
      f(tracks.host(r.cuThreadId), slice(r, i, SliceSource::OpenAcc));
    });
  }

  const TimelineRecords r_;
  ChunkStarts starts_[9];  // by chunk of each kind's records, in forEach's order
  bool planned_ = false;
};

// A window's slices. Sized to `n` without zeroing them (each is written
// before it is read), to exactly that much when it must grow: growing by
// doubling could hold twice the largest window.
class SliceBuffer {
  static_assert(std::is_trivial_v<Slice>, "new Slice[n] must leave them unwritten");

 public:
  void resize(size_t n) {
    if (n > capacity_) {
      data_.reset();
      data_.reset(new Slice[n]);  // default-initialized: Slice is trivial
      capacity_ = n;
    }
    size_ = n;
  }
  void release() {
    data_.reset();
    capacity_ = size_ = 0;
  }
  size_t size() const { return size_; }
  Slice* data() { return data_.get(); }
  const Slice* data() const { return data_.get(); }
  Slice& operator[](size_t i) { return data_[i]; }
  const Slice& operator[](size_t i) const { return data_[i]; }

 private:
  std::unique_ptr<Slice[]> data_;
  size_t capacity_ = 0;
  size_t size_ = 0;
};

}  // namespace cuptitrace
