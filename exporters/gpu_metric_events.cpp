#include "exporters/gpu_metric_events.h"

#include <cmath>

#include "core/json_text.h"
#include "exporters/pftrace/pftrace_wire.h"

namespace cuptitrace {

// ---- Chrome JSON ------------------------------------------------------------------

size_t writeJsonGpuMetricEvents(const TimelineInput& in, uint64_t base, uint64_t sortBase,
                                JsonText& out, bool first, const std::function<void()>& flush) {
  const Trace& trace = *in.trace;
  const GpuMetricTimeline t = gpuMetricTimeline(trace);
  if (t.samples == 0) return 0;
  size_t written = 0;
  auto begin = [&] {
    if (!first) out.lit(",\n");
    first = false;
    out.put('{');
  };
  auto end = [&] {
    out.put('}');
    ++written;
    if (flush) flush();
  };
  for (const uint32_t d : t.devices) {
    const uint32_t pid = gpuProcessId(in.gpuKey, d);
    begin();
    out.lit("\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
    out.uint(pid);
    out.lit(",\"tid\":");
    out.uint(pid);
    out.lit(",\"ts\":0,\"args\":{\"name\":");
    out.quoted(gpuProcessName(trace, d) + in.nameSuffix);
    out.lit("}");
    end();
    begin();
    out.lit("\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":");
    out.uint(pid);
    out.lit(",\"tid\":");
    out.uint(pid);
    out.lit(",\"ts\":0,\"args\":{\"sort_index\":");
    out.uint(sortBase + 1 + d);
    out.lit("}");
    end();
  }
  trace.store.records<GpuMetricRecord>().forEach([&](const GpuMetricRecord& r) {
    const std::vector<uint32_t>* slots = t.slotsOf(r);
    if (slots == nullptr) return;
    const uint32_t pid = gpuProcessId(in.gpuKey, r.deviceId);
    for (size_t i = 0; i < slots->size(); ++i) {
      const float v = r.values[i];
      if (std::isnan(v)) continue;  // not evaluated: the track keeps its last value
      const GpuMetricTrack& track = t.tracks[(*slots)[i]];
      begin();
      out.lit("\"ph\":\"C\",\"cat\":\"gpu_metrics\",\"name\":");
      out.quoted(track.jsonName);
      out.lit(",\"pid\":");
      out.uint(pid);
      out.lit(",\"ts\":");
      out.micros(static_cast<int64_t>(r.start - base));
      out.lit(",\"args\":{");
      out.quoted(track.jsonKey);
      out.put(':');
      out.dbl(static_cast<double>(v));
      out.put('}');
      end();
    }
  });
  return written;
}

// ---- Perfetto protobuf -------------------------------------------------------------

using namespace pftrace;

PerfettoGpuMetricSequence::PerfettoGpuMetricSequence(const TimelineInput& in,
                                                     const PerfettoMemoryOptions& options)
    : trace_(*in.trace), timeline_(gpuMetricTimeline(*in.trace)), sequenceId_(options.sequenceId) {
  if (timeline_.samples == 0) return;
  offset_ = static_cast<uint64_t>(trace_.meta.wallClockOffsetNs());
  for (const uint32_t d : timeline_.devices) {
    cursors_.push_back({d, 0});
    advance(cursors_.back());
  }
  uint64_t first = UINT64_MAX;
  const auto& records = trace_.store.records<GpuMetricRecord>();
  for (const Cursor& c : cursors_)
    if (c.next < records.size()) first = std::min(first, records[c.next].start);
  // The sequence clock's reference: the timeline's base, or our first sample if earlier.
  const uint64_t reference = std::min(options.base != 0 ? options.base : first, first);
  last_ = reference;
  {
    auto pk = header_.beginNested(trace_field::kPacket);
    clockSnapshot(header_, reference, reference + offset_);
    header_.varintField(packet_field::kSequenceId, sequenceId_);
    header_.varintField(packet_field::kSequenceFlags,
                        kIncrementalStateCleared | kNeedsIncrementalState);
    auto defaults = header_.beginNested(packet_field::kTracePacketDefaults);
    header_.varintField(defaults_field::kTimestampClockId, kClockTrace);
    header_.endNestedCompact(defaults);
    header_.endNestedCompact(pk);
    ++headerPackets_;
  }
  // Uuids of our own: a tag in the top byte and the host pid, then a count.
  uint64_t nextUuid = uint64_t{0xC8} << 56 | uint64_t{in.hostPid() & 0xFFFFFFu} << 32;
  auto descriptor = [&](auto&& fill) {
    auto pk = header_.beginNested(trace_field::kPacket);
    header_.varintField(packet_field::kTimestamp, 0);
    header_.varintField(packet_field::kSequenceId, sequenceId_);
    header_.varintField(packet_field::kSequenceFlags, kNeedsIncrementalState);
    auto td = header_.beginNested(packet_field::kTrackDescriptor);
    fill(header_);
    header_.endNestedCompact(td);
    header_.endNestedCompact(pk);
    ++headerPackets_;
  };
  std::vector<std::pair<uint32_t, uint64_t>> processes;  // GPUs the timeline has no track for
  auto processOf = [&](uint32_t device) -> uint64_t {
    const uint64_t known = options.gpuProcessUuid ? options.gpuProcessUuid(device) : 0;
    if (known != 0) return known;
    for (const auto& [d, uuid] : processes)
      if (d == device) return uuid;
    const uint64_t uuid = ++nextUuid;
    processes.push_back({device, uuid});
    descriptor([&](ProtoWriter& p) {
      p.varintField(track_field::kUuid, uuid);
      auto proc = p.beginNested(track_field::kProcess);
      p.varintField(track_field::kProcessPid, gpuProcessId(in.gpuKey, device));
      p.bytesField(track_field::kProcessName, gpuProcessName(trace_, device) + in.nameSuffix);
      p.endNestedCompact(proc);
    });
    return uuid;
  };
  for (const GpuMetricTrack& t : timeline_.tracks) {
    const uint64_t parent = processOf(t.device);
    const uint64_t uuid = ++nextUuid;
    trackUuids_.push_back(uuid);
    events_ += t.samples;
    descriptor([&](ProtoWriter& p) {
      p.varintField(track_field::kUuid, uuid);
      p.bytesField(track_field::kName, t.name);
      p.varintField(track_field::kParentUuid, parent);
      auto c = p.beginNested(track_field::kCounter);
      p.endNestedCompact(c);
      p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
    });
  }
}

void PerfettoGpuMetricSequence::advance(Cursor& c) const {
  const auto& records = trace_.store.records<GpuMetricRecord>();
  while (c.next < records.size()) {
    const GpuMetricRecord& r = records[c.next];
    if (r.deviceId == c.device && timeline_.slotsOf(r) != nullptr) return;
    ++c.next;
  }
}

std::string_view PerfettoGpuMetricSequence::takeUntil(uint64_t wall) {
  out_.clear();
  const auto& records = trace_.store.records<GpuMetricRecord>();
  for (;;) {
    // The device whose next sample starts first.
    Cursor* pick = nullptr;
    for (Cursor& c : cursors_)
      if (c.next < records.size() &&
          (pick == nullptr || records[c.next].start < records[pick->next].start))
        pick = &c;
    if (pick == nullptr) break;
    const GpuMetricRecord& r = records[pick->next];
    if (r.start + offset_ > wall) break;  // modulo 2^64, as the timeline's own times
    const std::vector<uint32_t>& slots = *timeline_.slotsOf(r);
    // A device's samples come in time order; one out of it is drawn at the last time.
    const uint64_t ts = std::max(r.start, last_);
    for (size_t i = 0; i < slots.size(); ++i) {
      if (std::isnan(r.values[i])) continue;  // not evaluated: the track keeps its last value
      auto pk = out_.beginNested(trace_field::kPacket);
      out_.varintField(packet_field::kTimestamp, ts - last_);
      last_ = ts;
      out_.varintField(packet_field::kSequenceId, sequenceId_);
      auto te = out_.beginNested(packet_field::kTrackEvent);
      out_.varintField(event_field::kType, kCounter);
      out_.varintField(event_field::kTrackUuid, trackUuids_[slots[i]]);
      out_.doubleField(event_field::kDoubleCounterValue, static_cast<double>(r.values[i]));
      out_.endNestedCompact(te);
      out_.varintField(packet_field::kSequenceFlags, kNeedsIncrementalState);
      out_.endNestedCompact(pk);
    }
    ++pick->next;
    advance(*pick);
  }
  return out_.view();
}

}  // namespace cuptitrace
