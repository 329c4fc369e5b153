// Chrome Trace Event JSON, laid out as DESIGN.md "What a user sees in
// Perfetto" describes:
//
// - The host process (pid = the traced pid): one track per OS thread, with
//   CUDA runtime and driver calls (X, cat "cuda_runtime"/"cuda_driver"),
//   C library calls that blocked (X, cat "osrt") and NVTX push/pop ranges
//   (X, cat "nvtx"; PyTorch's operators "cpu_op" and steps "user_annotation")
//   nested on it, NVTX marks as thread instants, NVTX start/end ranges as
//   async b/e pairs (they need not nest), a "CUPTI overhead" track, and a
//   "Steps" track where the steps were found otherwise than as ProfilerStep#N
//   ranges (json_steps.h). Calls and GPU work made while the program had an
//   external id or scope pushed carry "External id", "scope" and "scope_id"; those made
//   inside a torch call with --python-backtrace carry its Python line as "python".
// - One process per GPU used (pid = gpuProcessId): a track per CUDA stream
//   (tid = stream id) with kernels, copies and sets (cat "kernel",
//   "gpu_memcpy", "gpu_memset": timeline/slice_categories.h) and whole graph launches
//   (graph-level tracing), and a track per context with synchronization;
//   work that overlaps on a track goes on its lanes (track_layout.h: tid
//   laneTid, named "Stream 7 ·2", sorted right under it by thread_sort_index);
//   memory counters and unified memory tracks (memory_tracks.h) after the rest.
// - An arrow from each launching call to the GPU work it launched, in the
//   "v2" encoding: "bind_id" with "flow_out" on the call's X event and
//   "flow_in" on the GPU slice's. Perfetto's JSON parser
//   (src/trace_processor/importers/json/json_trace_parser*.cc) binds a v2
//   flow to the very slice it has just opened for that event, while a v1
//   "s"/"f" event binds to whatever slice is innermost open on its track when
//   it is processed: at equal timestamps that can be a driver call nested in
//   the runtime call, an NVTX range, or the previous kernel on the stream.
//   bind_id is the correlation id (above the ids Perfetto gives OpenACC's v1
//   arrows, json_flows.h): one source per id, unique in the file, and
//   since a flow_in does not close the flow, every kernel of a graph launch
//   gets its arrow from the one cudaGraphLaunch.
// - Arguments are those of the Perfetto protobuf (pftrace_slices.h), the
//   same keys, and the device and stream of GPU work, which the protobuf
//   leaves to the track but the PyTorch profiler's readers read from the
//   arguments (record_args.h "where"). The usual values (return_value 0,
//   launch_type Regular) are left out, so that a kernel event stays small.
//   Mangled names and callback ids are in the CSV.
// - Before "traceEvents", the PyTorch profiler's top-level members
//   (json_kineto.h): schemaVersion, distributedInfo (the rank), deviceProperties.
//
// Times are microseconds relative to the base timestamp, with three decimals
// so that every nanosecond survives Perfetto's reading (which rounds to ns).
//
// Several traces in one file (cuptitrace merge): each trace's events are
// written as alone, placed as its TimelineInput says (pids, thread ids, GPU
// pids, process names), with its times shifted onto wall-clock time (its
// base is the file's wall-clock base minus its own clock offset), its flow
// and async ids after those of the traces before it; "metadata" then holds
// the file's base and, under "inputs", each trace's own metadata.
// Memory: the slices are laid out and written one window of start times at
// a time (window_layout.h), each track's layout carried from one window to
// the next, so the writer holds at most about a window's
// slices (24 bytes each) and a few bits per correlation id (flow_sources.h)
// however long the trace; records spilled to disk are read once per window
// that their chunk starts slices in. Events come track by track within each
// window, which Perfetto sorts on reading.
//
// A record without a start, or whose end is missing (0) or before its start,
// is not drawn and is counted in metadata "incomplete_records". The events
// are formatted into one buffer and handed to the stream in large blocks.
//
// The parts: json_tracks (which track each slice goes on), json_track_names
// (the metadata events naming processes and tracks), json_slices (the X
// events, their arguments from record_args.h through json_args), json_flows
// (the arrows), json_nvtx_events (NVTX marks and start/end ranges),
// memory_tracks (counters and unified memory), json_metadata (the trace's
// metadata object). This file walks the timeline window by window, each
// window laid out by the timeline's WindowLayout.
#include "exporters/json/chrome_json.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/side_task.h"
#include "core/writer_threads.h"
#include "exporters/json/json_args.h"
#include "exporters/json/json_events.h"
#include "exporters/json/json_flows.h"
#include "exporters/json/json_kineto.h"
#include "exporters/json/json_metadata.h"
#include "exporters/json/json_nvtx_events.h"
#include "exporters/json/json_slices.h"
#include "exporters/json/json_steps.h"
#include "exporters/json/json_strings.h"
#include "exporters/json/json_track_names.h"
#include "exporters/json/json_tracks.h"
#include "exporters/json/json_window_pieces.h"
#include "exporters/gpu_metric_events.h"
#include "exporters/memory_tracks.h"
#include "timeline/timeline_slices.h"
#include "timeline/track_layout.h"
#include "timeline/window_layout.h"

namespace cuptitrace {
namespace {

// One trace's events and metadata.
class ChromeJsonWriter {
 public:
  ChromeJsonWriter(const TimelineInput& in, JsonEvents& events, size_t windowSlices, unsigned threads)
      : in_(in),
        trace_(*in.trace),
        e_(events),
        rec_(trace_.store),
        strings_(trace_),
        args_(trace_, strings_),
        flows_(trace_, rec_, events),
        tracks_(in),
        names_(in, tracks_, events),
        slices_(trace_, rec_, events, strings_, args_, flows_),
        nvtx_(rec_, tracks_, events, strings_, args_),
        windowSlices_(windowSlices),
        threads_(threads),
        layout_(trace_.store) {
    layout_.setThreads(threads);
  }

  // Plans the layout; then the trace's own base and ids are known. The
  // base timestamp is picked (track_layout.h) and the records that cannot
  // be drawn counted; every track is found and the timeline cut into
  // windows of start time holding at most windowSlices_ slices each
  // (window_layout.h).
  // The arrows' planning and the scan for the base read the records, and
  // nothing the rest of planning changes: with cores to spare they run beside it.
  void plan() {
    SideTask flows(threads_ > 1, [this] { flows_.plan(); });
    TimelineBase scan;
    SideTask scanning(threads_ > 1, [&] { scan = scanTimeline(trace_); });
    layout_.planWindows(tracks_, windowSlices_);
    nvtx_.plan(tracks_);
    const std::vector<JsonTrack>& tracks = tracks_.all();
    layout_.setTracks(tracks.size(), [&](size_t t) { return tracks[t].policy(); });
    scanning.wait();
    base_ = scan.base;
    incomplete_ = scan.incomplete;
    flows.wait();
  }
  uint64_t ownBase() const { return base_; }
  // The largest flow id and the number of async ids it writes, before its placement's bases.
  uint64_t maxFlowId() const { return flows_.maxFlowId(); }
  uint64_t v1Flows() const { return flows_.v1Flows(); }
  uint64_t asyncIds() const { return nvtx_.asyncIds(); }

  // Its events, with the commas before them, into the traceEvents array.
  void writeEvents(const JsonPlacement& placement) {
    place_ = placement;
    if (place_.merged) base_ = place_.base;
    flows_.place(place_.flowBase, place_.v1Flows, base_);
    slices_.setBase(base_);
    names_.writeProcessesAndTracks(place_.sortBase);
    if (threads_ > 1) {
      // Each window laid out, then its slices encoded by several threads.
      // Each next window laid out on a thread of its own meanwhile.
      JsonWindowPieces pieces(trace_, rec_, e_, flows_, base_, threads_);
      finder_.emplace(tracks_);
      for (size_t w = 0; w < layout_.windows(); ++w) {
        layout_.layOutAhead(tracks_, *finder_, w);
        pieces.write(layout_, tracks_.all());
      }
    } else {
      for (size_t w = 0; w < layout_.windows(); ++w) writeWindow(w);
    }
    layout_.release();
    lanes_ = layout_.laneStats();
    std::vector<JsonTrack>& tracks = tracks_.all();
    for (size_t t = 0; t < tracks.size(); ++t) tracks[t].lanes = layout_.lanes(t);
    names_.writeLanes();
    nvtx_.write(base_, place_.asyncBase);
    writeJsonSteps(in_, e_, names_, base_);
    JsonExportStats& stats = e_.stats;
    stats.events += writeJsonMemoryEvents(in_, base_, place_.sortBase, e_.b, stats.events == 0,
                                          [&] { e_.flushIfFull(); });
    stats.events += writeJsonGpuMetricEvents(in_, base_, place_.sortBase, e_.b, stats.events == 0,
                                             [&] { e_.flushIfFull(); });
    stats.clamped += lanes_.clamped;
    stats.maxLanes = std::max(stats.maxLanes, lanes_.maxLanes);
    stats.laneTracks += lanes_.laneTracks;
  }

  // The trace's metadata object; in a merged file, also where it was put.
  void writeMetadata() {
    JsonTimelineCounts counts;
    counts.base = base_;
    counts.incomplete = incomplete_;
    counts.clamped = lanes_.clamped;
    counts.maxLanes = lanes_.maxLanes;
    counts.laneTracks = lanes_.laneTracks;
    counts.flows = flows_.written();
    JsonTraceMetadata(in_, e_.b).write(place_, counts);
  }

 private:
  // Window w's slices, written track by track, each as soon as it is laid out.
  void writeWindow(size_t w) {
    std::vector<JsonTrack>& tracks = tracks_.all();
    layout_.layOut(tracks_, w, [&](size_t t) {
      const Slice* slices = layout_.slices();
      slices_.writeTrack(tracks[t], slices + layout_.first(t), slices + layout_.end(t));
    });
  }

  const TimelineInput& in_;
  const Trace& trace_;
  JsonEvents& e_;
  JsonPlacement place_;
  const TimelineRecords rec_;
  JsonStrings strings_;
  JsonArgs args_;
  JsonFlows flows_;
  JsonTracks tracks_;
  JsonTrackNames names_;
  JsonSlices slices_;
  JsonNvtxEvents nvtx_;
  const size_t windowSlices_;
  const unsigned threads_;
  std::optional<JsonTrackFinder> finder_;  // the tracks, for the thread laying out ahead
  WindowLayout layout_;                    // after finder_: its thread ends first

  uint64_t base_ = 0;
  uint64_t incomplete_ = 0;
  LaneStats lanes_;
};

}  // namespace

JsonExportStats writeChromeJson(const Trace& trace, std::ostream& out, size_t windowSlices, unsigned threads) {
  JsonEvents sink(out);
  const TimelineInput in = timelineInput(trace);
  ChromeJsonWriter writer(in, sink, windowSlices, threads == 0 ? writerThreads() : threads);
  writer.plan();
  sink.b.lit("{");
  writeKinetoHeader({&trace}, sink.b);
  sink.b.lit("\"traceEvents\":[\n");
  JsonPlacement place;
  place.v1Flows = writer.v1Flows();
  writer.writeEvents(place);
  sink.b.lit("\n],\n\"metadata\":");
  writer.writeMetadata();
  sink.b.lit("}\n");
  sink.flush();
  return sink.stats;
}

JsonExportStats writeChromeJson(const std::vector<TimelineInput>& inputs, std::ostream& out,
                                size_t windowSlices, unsigned threads) {
  JsonEvents sink(out);
  if (threads == 0) threads = writerThreads();
  std::vector<std::unique_ptr<ChromeJsonWriter>> writers;
  // The file's base: the earliest wall-clock time any trace's timeline starts at.
  uint64_t wallBase = UINT64_MAX;
  for (const TimelineInput& in : inputs) {
    writers.push_back(std::make_unique<ChromeJsonWriter>(in, sink, windowSlices, threads));
    writers.back()->plan();
    const auto offset = static_cast<uint64_t>(in.trace->meta.wallClockOffsetNs());
    wallBase = std::min(wallBase, writers.back()->ownBase() + offset);  // modulo 2^64
  }
  sink.b.lit("{");
  std::vector<const Trace*> traces;
  for (const TimelineInput& in : inputs) traces.push_back(in.trace);
  writeKinetoHeader(traces, sink.b);
  sink.b.lit("\"traceEvents\":[\n");
  JsonPlacement place;
  place.merged = true;
  for (const auto& writer : writers) place.v1Flows += writer->v1Flows();
  for (size_t i = 0; i < writers.size(); ++i) {
    const auto offset = static_cast<uint64_t>(inputs[i].trace->meta.wallClockOffsetNs());
    place.base = wallBase - offset;  // on this trace's clock
    writers[i]->writeEvents(place);
    place.flowBase += writers[i]->maxFlowId() + 1;
    place.asyncBase += writers[i]->asyncIds();
    place.sortBase += 100;
  }
  sink.b.lit("\n],\n\"metadata\":{\"tool\":\"cuptitrace\",\"merged_inputs\":");
  sink.b.uint(inputs.size());
  sink.b.lit(",\"base_realtime_ns\":");
  sink.b.uint(wallBase);
  sink.b.lit(",\"inputs\":[");
  for (size_t i = 0; i < writers.size(); ++i) {
    if (i != 0) sink.b.put(',');
    writers[i]->writeMetadata();
  }
  sink.b.lit("]}}\n");
  sink.flush();
  return sink.stats;
}

}  // namespace cuptitrace
