#include "exporters/pftrace/pftrace_metadata.h"

#include <type_traits>

#include "core/api_set.h"
#include "core/trace_metadata_fields.h"
#include "core/utf8.h"

namespace cuptitrace::pftrace {

TraceHeader::TraceHeader(const TimelineInput& in, Output& out, uint64_t base)
    : in_(in),
      trace_(*in.trace),
      o_(out),
      base_(base),
      offset_(static_cast<uint64_t>(in.trace->meta.wallClockOffsetNs())),
      hostPid_(in.hostPid()) {}

void startSequence(Output& out, ProtoWriter& scratch, const Sequence& seq, uint64_t trackUuid,
                   uint64_t base, uint64_t offset) {
  ProtoWriter& p = scratch;
  p.clear();
  clockSnapshot(p, base, base + offset);  // modulo 2^64: either sign
  p.varintField(packet_field::kSequenceId, seq.id);
  p.varintField(packet_field::kSequenceFlags, kIncrementalStateCleared | kNeedsIncrementalState);
  auto defaults = p.beginNested(packet_field::kTracePacketDefaults);
  p.varintField(defaults_field::kTimestampClockId, kClockTrace);
  auto trackDefaults = p.beginNested(defaults_field::kTrackEventDefaults);
  p.varintField(defaults_field::kTrackUuid, trackUuid);
  p.endNestedCompact(trackDefaults);
  p.endNestedCompact(defaults);
  out.packet(p);
}

void TraceHeader::startSequence(const Sequence& seq, uint64_t trackUuid) {
  pftrace::startSequence(o_, scratch_, seq, trackUuid, base_, offset_);
}

// A TrackDescriptor packet on the main sequence, `delta` after its last
// packet. The header's (delta 0: the clock's reference) sort before every
// event, as Perfetto recommends for process and thread descriptors.
template <typename F>
void TraceHeader::descriptorPacket(F&& fill, uint64_t delta) {
  ProtoWriter& p = scratch_;
  p.clear();
  p.byte(kTagTimestamp);
  p.varint(delta);
  p.varintField(packet_field::kSequenceId, sequenceId_);
  auto d = p.beginNested(packet_field::kTrackDescriptor);
  fill(p);
  p.endNestedCompact(d);
  o_.packet(p);
}

void TraceHeader::writeTrackDescriptors(const Sequence& main, const TrackRegistry& tracks) {
  tracks_ = &tracks;
  sequenceId_ = main.id;
  const TraceMetadata& m = trace_.meta;
  descriptorPacket([&](ProtoWriter& p) {
    p.varintField(track_field::kUuid, tracks.hostProcessUuid());
    auto process = p.beginNested(track_field::kProcess);
    p.varintField(track_field::kProcessPid, hostPid_);
    if (!m.commandLine.empty())
      p.bytesField(track_field::kProcessCmdline, validUtf8(m.commandLine));
    p.bytesField(track_field::kProcessName, validUtf8(hostProcessName(trace_) + in_.nameSuffix));
    p.endNestedCompact(process);
  });
  const auto& gpus = tracks.gpuProcesses();
  size_t gpu = 0;
  for (const Track& t : tracks.tracks()) {
    if (gpu < gpus.size() && gpus[gpu].second < t.uuid) {
      // Plain variables: lambdas may not capture structured bindings before C++20.
      const auto device = gpus[gpu].first;
      const auto uuid = gpus[gpu].second;
      ++gpu;
      descriptorPacket([&](ProtoWriter& p) {
        p.varintField(track_field::kUuid, uuid);
        auto process = p.beginNested(track_field::kProcess);
        p.varintField(track_field::kProcessPid, gpuProcessId(in_.gpuKey, device));
        p.bytesField(track_field::kProcessName,
                     validUtf8(gpuProcessName(trace_, device) + in_.nameSuffix));
        p.endNestedCompact(process);
        // Streams in the order of their ids, not of their names ("Stream 13" < "Stream 7").
        p.varintField(track_field::kChildOrdering, track_field::kChildOrderingExplicit);
      });
    }
    descriptorPacket([&](ProtoWriter& p) { describe(p, t); });
  }
}

// The track's name as a user sees it.
std::string TraceHeader::trackName(const Track& t) const {
  switch (t.kind) {
    case TrackKind::HostThread:
      return hostThreadName(trace_, t.id);
    case TrackKind::Overhead:
      return kOverheadTrackName;
    case TrackKind::NvtxRange:
      return std::string(trace_.strings.get(t.id));
    case TrackKind::Stream:
      return streamTrackName(trace_, t.id, t.context);
    case TrackKind::Sync:
      return syncTrackName(trace_, t.id);
  }
  return {};
}

// A lane past the first: a child of the track, right under it in lane
// order, named after it ("Stream 7 ·2"), never merged with the others.
void TraceHeader::describeLane(Sequence& main, const Track& t, uint32_t lane, uint64_t uuid,
                               uint64_t ts) {
  sequenceId_ = main.id;
  const uint64_t delta = ts - main.lastTs;
  main.lastTs = ts;
  descriptorPacket(
      [&](ProtoWriter& p) {
        p.varintField(track_field::kUuid, uuid);
        p.bytesField(track_field::kName, validUtf8(laneName(trackName(t), lane)));
        p.varintField(track_field::kParentUuid, t.uuid);
        p.varintField(track_field::kSiblingOrderRank, lane);
        p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
      },
      delta);
}

void TraceHeader::describe(ProtoWriter& p, const Track& t) {
  const uint64_t hostProcess = tracks_->hostProcessUuid();
  p.varintField(track_field::kUuid, t.uuid);
  // Its lanes, if the layout opens any, in lane order.
  p.varintField(track_field::kChildOrdering, track_field::kChildOrderingExplicit);
  switch (t.kind) {
    case TrackKind::HostThread: {
      auto thread = p.beginNested(track_field::kThread);
      p.varintField(track_field::kThreadPid, hostPid_);
      p.varintField(track_field::kThreadTid, t.id + in_.idOffset);
      p.bytesField(track_field::kThreadName, validUtf8(hostThreadName(trace_, t.id)));
      p.endNestedCompact(thread);
      p.varintField(track_field::kParentUuid, hostProcess);
      return;
    }
    case TrackKind::Overhead:
      p.bytesField(track_field::kName, kOverheadTrackName);
      p.varintField(track_field::kParentUuid, hostProcess);
      p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
      return;
    case TrackKind::NvtxRange:
      // Lanes of one name keep the default merge (by name): one track in the UI.
      p.bytesField(track_field::kName, validUtf8(trace_.strings.get(t.id)));
      p.varintField(track_field::kParentUuid, hostProcess);
      return;
    case TrackKind::Stream:
      // NVTX may give two streams one name: they must still not merge.
      p.bytesField(track_field::kName, validUtf8(streamTrackName(trace_, t.id, t.context)));
      p.varintField(track_field::kParentUuid, tracks_->gpuProcessUuid(t.device));
      p.varintField(track_field::kSiblingOrderRank, t.id & 0x7FFFFFFFu);
      p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
      return;
    case TrackKind::Sync:
      p.bytesField(track_field::kName, validUtf8(syncTrackName(trace_, t.id)));
      p.varintField(track_field::kParentUuid, tracks_->gpuProcessUuid(t.device));
      p.varintField(track_field::kSiblingOrderRank, syncTrackTid(t.id) & 0x7FFFFFFFu);
      p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
      return;
  }
}

namespace {

// The metadata's scalar fields that the description shows (`shows`), those
// said of a process with a rank or the others (`ofRank`), in their table's
// order (core/trace_metadata_fields.h). A field's name is the argument of
// that name (record_args.h), else one made up for it.
void describeFields(EventEncoder& ev, Interner& interner, const TraceMetadata& m, uint64_t base,
                    uint8_t shows, bool ofRank) {
  visitMetadataFields(m, [&](const MetadataField& f, const auto& value) {
    if (!(f.shows & shows) || f.ofRank != ofRank || !metadataFieldSaid(f, m, value)) return;
    const Arg arg = argNamed(f.name);
    const uint32_t name = arg != Arg::None ? interner.argIid(arg) : interner.dynamicArgIid(f.name);
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, std::string>) {
      ev.argString(name, validUtf8(value));
    } else if (f.timelineBase) {
      ev.argUint(name, base);
    } else if constexpr (std::is_signed_v<T>) {
      if (f.omitted == Omitted::WhenNegative) {
        ev.argUint(name, static_cast<uint64_t>(value));  // never negative when said
      } else {
        ev.argInt(name, value);
      }
    } else {
      ev.argUint(name, value);
    }
  });
}

}  // namespace

// What every trace says of itself; in a file of several traces, which trace
// this is (host, pid, its labels); its rank; then the records dropped and
// those too incomplete to draw. What the layout did comes at the end
// (writeLayoutSummary).
void writeDescription(EventEncoder& ev, Interner& interner, const TimelineInput& in, uint64_t base,
                      const TraceCounts& counts) {
  const Trace& trace = *in.trace;
  const TraceMetadata& m = trace.meta;
  ev.begin(kCatMetadata);
  const uint32_t name =
      interner.composedNameIid(3u << 24, [] { return std::string("cuptitrace"); });
  describeFields(ev, interner, m, base, kShownInTimeline, false);
  if (!in.labels.empty()) {  // in a merged file: which trace this is
    describeFields(ev, interner, m, base, kShownInMergedTimeline, false);
    for (const auto& [key, value] : in.labels)
      ev.argString(interner.dynamicArgIid(key), validUtf8(value));
  }
  describeFields(ev, interner, m, base, kShownInTimeline, true);
  ev.argUint(Arg::DroppedRecords, trace.totalDropped());
  ev.argUint(Arg::IncompleteRecords, counts.incomplete);
  const std::string apiCalls = describeApiSets(recordedApiSets(trace));
  if (!apiCalls.empty()) ev.argString(interner.dynamicArgIid("api_calls"), apiCalls);
  for (const auto& [counter, value] : trace.counters)
    ev.argUint(interner.dynamicArgIid("counters." + counter), value);
  ev.head(kInstant, name);
  ev.finish(base);
}

void writeLayoutSummary(EventEncoder& ev, Interner& interner, const LayoutCounts& counts, uint64_t ts) {
  ev.begin(kCatMetadata);
  const uint32_t name =
      interner.composedNameIid(3u << 24 | 1, [] { return std::string("cuptitrace timeline"); });
  ev.argUint(Arg::ClampedSlices, counts.clamped);
  ev.argUint(Arg::MaxLanes, counts.maxLanes);
  ev.argUint(Arg::LaneTracks, counts.laneTracks);
  ev.argUint(Arg::Flows, counts.flows);
  ev.head(kInstant, name);
  ev.finish(ts);
}

}  // namespace cuptitrace::pftrace
