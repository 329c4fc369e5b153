// The trace's metadata (TraceMetadata's scalar fields), described once: each
// field's name, its member, and where it shows. The native format's METADATA
// section (and the spill journal's) reads and writes the fields by walking
// this table, the Chrome JSON "metadata" object and the .pftrace trace
// description write them by walking it, so adding a field is one line here.
// The fields of variable shape (configuration, capture windows, devices,
// contexts, names, counters) each format writes on its own.
//
// The order is the native format's: the fields of one place are written in
// table order, and the bytes of files already written must still read.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/trace.h"

namespace cuptitrace {

// Where a field shows besides the native format, as bits.
enum MetadataShows : uint8_t {
  kShownInJson = 1,            // the Chrome JSON file's "metadata" object
  kShownInTimeline = 2,        // the .pftrace trace description
  kShownInMergedTimeline = 4,  // the .pftrace trace description, in a file of several traces
};

// Where the native METADATA section holds a field. Fields were added after
// the first release at its end, past the fields of variable shape.
enum class NativePlace : uint8_t {
  None,       // not saved
  Head,       // its fixed head, before the configuration (also the journal's METADATA block)
  WallClock,  // after the capture windows
  Rank,       // last (also after the journal's head)
};

// When a field is left out of the JSON and .pftrace descriptions.
enum class Omitted : uint8_t {
  Never,
  WhenZero,
  // A negative value means none (a rank): left out, read back from a file
  // as -1, and shown as an unsigned number where it is shown.
  WhenNegative,
};

struct MetadataField {
  const char* name;  // the JSON key, the .pftrace annotation's name
  uint8_t shows;     // MetadataShows bits
  NativePlace native;
  Omitted omitted = Omitted::Never;
  bool ofRank = false;        // said only of a process with a rank
  bool timelineBase = false;  // a timeline format shows the base its times are relative to
};

// Calls v(const MetadataField&, value) for each field, in table order. With
// a const TraceMetadata the value is what the formats show and save (the
// wall-clock offset as exporters use it: measured, or derived from the start
// times); with a mutable one it is the member, for a reader to fill.
template <class M, class V>
void visitMetadataFields(M& m, V&& v) {
  static_assert(std::is_same_v<std::remove_const_t<M>, TraceMetadata>);
  constexpr uint8_t kJson = kShownInJson;
  constexpr uint8_t kTimeline = kShownInTimeline;
  constexpr uint8_t kMerged = kShownInMergedTimeline;
  constexpr auto kHead = NativePlace::Head;
  constexpr auto kRank = NativePlace::Rank;
  // clang-format off
  v(MetadataField{"tool_version",       kJson | kTimeline, kHead}, m.toolVersion);
  v(MetadataField{"host",               kJson | kMerged,   kHead}, m.hostName);
  v(MetadataField{"pid",                kJson | kMerged,   kHead}, m.pid);
  v(MetadataField{"process_name",       kJson,             kHead}, m.processName);
  v(MetadataField{"command_line",       kJson,             kHead}, m.commandLine);
  v(MetadataField{"clock",              kJson | kTimeline, kHead}, m.clock);
  v(MetadataField{"base_timestamp_ns",  kJson,             kHead, Omitted::Never, false, true}, m.baseTimestampNs);
  v(MetadataField{"start_realtime_ns",  kJson,             kHead}, m.startRealtimeNs);
  v(MetadataField{"start_timestamp_ns", kJson,             kHead}, m.startTimestampNs);
  v(MetadataField{"end_timestamp_ns",   kJson,             kHead}, m.endTimestampNs);
  v(MetadataField{"cupti_version",      kJson,             kHead}, m.cuptiVersion);
  v(MetadataField{"driver_version",     kJson,             kHead}, m.driverVersion);
  const MetadataField offset{"realtime_offset_ns", kJson | kTimeline, NativePlace::WallClock};
  if constexpr (std::is_const_v<M>) {
    v(offset, m.wallClockOffsetNs());
  } else {
    v(offset, m.realtimeOffsetNs);
  }
  // Set by the launcher (core/rank_info.h).
  v(MetadataField{"rank",               kJson | kTimeline, kRank, Omitted::WhenNegative, true}, m.rank);
  v(MetadataField{"local_rank",         kJson | kTimeline, kRank, Omitted::WhenNegative, true}, m.localRank);
  v(MetadataField{"world_size",         kJson | kTimeline, kRank, Omitted::WhenZero, true}, m.worldSize);
  v(MetadataField{"rank_source",        kJson,             kRank, Omitted::Never, true}, m.rankSource);
  // Past the last capture window (CUPTITRACE_CAPTURE).
  v(MetadataField{"cupti_detached_ns",  kJson,             NativePlace::None, Omitted::WhenZero}, m.cuptiDetachedNs);
  // clang-format on
}

// Whether a format that shows the field says it for this trace (`value` is
// the field's, as visitMetadataFields gives it).
template <class T>
bool metadataFieldSaid(const MetadataField& f, const TraceMetadata& m, const T& value) {
  if (f.ofRank && m.rank < 0) return false;
  if constexpr (std::is_arithmetic_v<T>) {
    if (f.omitted == Omitted::WhenZero && value == 0) return false;
    if constexpr (std::is_signed_v<T>) {
      if (f.omitted == Omitted::WhenNegative && value < 0) return false;
    }
  }
  return true;
}

}  // namespace cuptitrace
