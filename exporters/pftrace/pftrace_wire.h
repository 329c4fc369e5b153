// The .pftrace writer's wire-level parts: the field numbers and one-byte
// tags of the Perfetto messages it writes (PERFETTO.md), the categories it
// interns, and the buffer of bytes on their way to the stream. The encoding
// itself is proto_writer.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>

#include "exporters/pftrace/perfetto_proto.h"
#include "exporters/pftrace/proto_writer.h"
#include "timeline/slice_categories.h"

namespace cuptitrace::pftrace {

// A one-byte tag: (field << 3) | wire type, for fields below 16.
constexpr uint8_t tag(uint32_t field, WireType type) {
  return static_cast<uint8_t>(field << 3 | static_cast<uint8_t>(type));
}
inline constexpr uint8_t kTagPacket = tag(1, WireType::LengthDelimited);  // Trace.packet
inline constexpr uint8_t kTagTimestamp = tag(8, WireType::Varint);        // TracePacket.timestamp
inline constexpr uint8_t kTagSequenceId = tag(10, WireType::Varint);  // .trusted_packet_sequence_id
inline constexpr uint8_t kTagTrackEvent = tag(11, WireType::LengthDelimited);    // .track_event
inline constexpr uint8_t kTagInternedData = tag(12, WireType::LengthDelimited);  // .interned_data

namespace trace_field {
inline constexpr uint32_t kPacket = 1;  // Trace.packet
}  // namespace trace_field
namespace packet_field {
inline constexpr uint32_t kClockSnapshot = 6;
inline constexpr uint32_t kTimestamp = 8;
inline constexpr uint32_t kSequenceId = 10;
inline constexpr uint32_t kTrackEvent = 11;
inline constexpr uint32_t kSequenceFlags = 13;
inline constexpr uint32_t kTracePacketDefaults = 59;
inline constexpr uint32_t kTrackDescriptor = 60;
}  // namespace packet_field
namespace defaults_field {
inline constexpr uint32_t kTimestampClockId = 58;    // TracePacketDefaults.timestamp_clock_id
inline constexpr uint32_t kTrackEventDefaults = 11;  // TracePacketDefaults.track_event_defaults
inline constexpr uint32_t kTrackUuid = 11;           // TrackEventDefaults.track_uuid
}  // namespace defaults_field

namespace clock_field {
inline constexpr uint32_t kClocks = 1;             // ClockSnapshot.clocks
inline constexpr uint32_t kPrimaryTraceClock = 2;  // ClockSnapshot.primary_trace_clock
inline constexpr uint32_t kClockId = 1;            // Clock.clock_id
inline constexpr uint32_t kTimestamp = 2;          // Clock.timestamp
inline constexpr uint32_t kIsIncremental = 3;      // Clock.is_incremental
}  // namespace clock_field

namespace track_field {
inline constexpr uint32_t kUuid = 1;
inline constexpr uint32_t kName = 2;
inline constexpr uint32_t kProcess = 3;
inline constexpr uint32_t kThread = 4;
inline constexpr uint32_t kParentUuid = 5;
inline constexpr uint32_t kCounter = 8;  // TrackDescriptor.counter
inline constexpr uint32_t kChildOrdering = 11;
inline constexpr uint32_t kSiblingOrderRank = 12;
inline constexpr uint32_t kSiblingMergeBehavior = 15;
inline constexpr uint32_t kProcessPid = 1;             // ProcessDescriptor.pid
inline constexpr uint32_t kProcessCmdline = 2;         // ProcessDescriptor.cmdline
inline constexpr uint32_t kProcessName = 6;            // ProcessDescriptor.process_name
inline constexpr uint32_t kThreadPid = 1;              // ThreadDescriptor.pid
inline constexpr uint32_t kThreadTid = 2;              // ThreadDescriptor.tid
inline constexpr uint32_t kThreadName = 5;             // ThreadDescriptor.thread_name
inline constexpr uint32_t kCounterUnit = 3;            // CounterDescriptor.unit
inline constexpr uint64_t kUnitCount = 2;              // CounterDescriptor.Unit COUNT
inline constexpr uint64_t kUnitBytes = 3;              // CounterDescriptor.Unit SIZE_BYTES
inline constexpr uint64_t kChildOrderingExplicit = 3;  // ChildTracksOrdering.EXPLICIT
inline constexpr uint64_t kMergeNone = 2;              // SiblingMergeBehavior.NONE
}  // namespace track_field

// TrackEvent fields, for messages written with ProtoWriter's field calls.
namespace event_field {
inline constexpr uint32_t kDebugAnnotations = 4;
inline constexpr uint32_t kType = 9;
inline constexpr uint32_t kTrackUuid = 11;
inline constexpr uint32_t kCategories = 22;
inline constexpr uint32_t kName = 23;
inline constexpr uint32_t kCounterValue = 30;  // counter_value (int64)
inline constexpr uint32_t kDoubleCounterValue = 44;  // double_counter_value
}  // namespace event_field
// DebugAnnotation fields likewise.
namespace annotation_field {
inline constexpr uint32_t kUintValue = 3;
inline constexpr uint32_t kStringValue = 6;
inline constexpr uint32_t kName = 10;
}  // namespace annotation_field

// TrackEvent tags.
inline constexpr uint8_t kTagCategoryIid = tag(3, WireType::Varint);  // category_iids
inline constexpr uint8_t kTagDebugAnnotation =
    tag(4, WireType::LengthDelimited);                               // debug_annotations
inline constexpr uint8_t kTagType = tag(9, WireType::Varint);        // type
inline constexpr uint8_t kTagNameIid = tag(10, WireType::Varint);    // name_iid
inline constexpr uint8_t kTagTrackUuid = tag(11, WireType::Varint);  // track_uuid
// flow_ids_old = 36 and terminating_flow_ids_old = 42, repeated uint64: two-byte tags.
inline constexpr uint8_t kTagFlowId[2] = {(36 << 3 & 0x7F) | 0x80, 36 << 3 >> 7};
inline constexpr uint8_t kTagTerminatingFlowId[2] = {(42 << 3 & 0x7F) | 0x80, 42 << 3 >> 7};
// TrackEvent.type values.
inline constexpr uint8_t kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounter = 4;

// DebugAnnotation tags.
inline constexpr uint8_t kTagAnnotationNameIid = tag(1, WireType::Varint);     // name_iid
inline constexpr uint8_t kTagBoolValue = tag(2, WireType::Varint);             // bool_value
inline constexpr uint8_t kTagUintValue = tag(3, WireType::Varint);             // uint_value
inline constexpr uint8_t kTagIntValue = tag(4, WireType::Varint);              // int_value
inline constexpr uint8_t kTagDoubleValue = tag(5, WireType::Fixed64);          // double_value
inline constexpr uint8_t kTagStringValue = tag(6, WireType::LengthDelimited);  // string_value
// string_value_iid = 17: tag 17 << 3 = 136, a two-byte varint.
inline constexpr uint8_t kTagStringValueIid[2] = {(17 << 3 & 0x7F) | 0x80, 17 << 3 >> 7};

// InternedData fields; entries are {iid = 1, name = 2} (InternedString: {iid = 1, str = 2}).
inline constexpr uint32_t kInternedCategories = 1;
inline constexpr uint32_t kInternedEventNames = 2;
inline constexpr uint32_t kInternedAnnotationNames = 3;
inline constexpr uint32_t kInternedAnnotationStrings = 29;

inline constexpr uint8_t kIncrementalStateCleared = 1;
inline constexpr uint8_t kNeedsIncrementalState = 2;
inline constexpr uint32_t kClockTrace = 64;    // sequence-scoped, incremental: the trace's clock
inline constexpr uint32_t kClockRealtime = 1;  // BuiltinClock REALTIME
inline constexpr uint32_t kClockBoottime = 6;  // BuiltinClock BOOTTIME

// The ClockSnapshot (TracePacket.clock_snapshot) of a sequence's first
// packet: the sequence's own clock (kClockTrace, incremental) at
// `reference` is REALTIME `realtime`, and REALTIME is the trace's clock.
// BOOTTIME, Perfetto's default trace clock, is in it too: without it the
// importer counts clock_sync_unrelatable_clock_domains on every file
// (PERFETTO.md). It is given REALTIME's value: the trace's times are
// REALTIME (primary_trace_clock), so it moves no event.
inline void clockSnapshot(ProtoWriter& p, uint64_t reference, uint64_t realtime) {
  auto snapshot = p.beginNested(packet_field::kClockSnapshot);
  auto clock = p.beginNested(clock_field::kClocks);
  p.varintField(clock_field::kClockId, kClockTrace);
  p.varintField(clock_field::kTimestamp, reference);
  p.boolField(clock_field::kIsIncremental, true);
  p.endNestedCompact(clock);
  clock = p.beginNested(clock_field::kClocks);
  p.varintField(clock_field::kClockId, kClockRealtime);
  p.varintField(clock_field::kTimestamp, realtime);
  p.endNestedCompact(clock);
  clock = p.beginNested(clock_field::kClocks);
  p.varintField(clock_field::kClockId, kClockBoottime);
  p.varintField(clock_field::kTimestamp, realtime);
  p.endNestedCompact(clock);
  p.varintField(clock_field::kPrimaryTraceClock, kClockRealtime);
  p.endNestedCompact(snapshot);
}

// The categories of the events (timeline/slice_categories.h), interned by their value.
using Category = SliceCategory;

// Bytes gathered before one write to the stream.
inline constexpr size_t kFlushBytes = size_t{1} << 20;

// The bytes not yet handed to the stream, and what has been written. The
// traces of one file share it; a piece of events (pftrace_pieces.h) has one
// of its own with no stream, which keeps every byte until the file takes them.
class Output {
 public:
  explicit Output(std::ostream& out) : out_(&out) { b.reserve(kFlushBytes + (64 << 10)); }
  Output() = default;
  void maybeFlush() {
    if (out_ != nullptr && b.size() >= kFlushBytes) flush();
  }
  void flush() {
    if (out_ == nullptr) return;
    out_->write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    stats.bytes += b.size();
    b.clear();
  }
  // Bytes of whole packets (their counts are the caller's): those of a
  // piece (64 KiB or more) go to the stream as they are, after what is
  // held, not copied here first.
  void write(std::string_view bytes) {
    if (out_ == nullptr || (bytes.size() < (size_t{64} << 10) && b.size() + bytes.size() < kFlushBytes)) {
      b.bytes(bytes);
      return maybeFlush();
    }
    flush();
    out_->write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    stats.bytes += bytes.size();
  }
  // A packet of `p`'s fields.
  void packet(const ProtoWriter& p) {
    b.byte(kTagPacket);
    b.varint(p.size());
    b.bytes(p.view());
    ++stats.packets;
    maybeFlush();
  }

  ProtoWriter b;
  PerfettoExportStats stats;

 private:
  std::ostream* out_ = nullptr;
};

}  // namespace cuptitrace::pftrace
