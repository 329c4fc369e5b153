// The metadata events that name a Chrome JSON timeline's processes and
// tracks and sort them: process_name, process_sort_index, thread_name, and
// thread_sort_index where a process has lanes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exporters/json/json_events.h"
#include "exporters/json/json_tracks.h"

namespace cuptitrace {

class JsonTrackNames {
 public:
  JsonTrackNames(const TimelineInput& in, const JsonTracks& tracks, JsonEvents& events)
      : in_(in), trace_(*in.trace), tracks_(tracks), e_(events) {}

  // process_name, process_sort_index and thread_name events, host first,
  // then each GPU in device order (Perfetto sorts processes by sort index).
  void writeProcessesAndTracks(uint64_t sortBase);
  // The names of the lanes, known once the slices are laid out: metadata
  // events are read wherever they are in the file. In a process with lanes
  // every track gets a thread_sort_index, so that each lane sorts right
  // under its track ("Stream 7", "Stream 7 ·2", "Stream 9").
  void writeLanes();
  // A metadata event naming a process or thread ("process_name", "thread_name").
  void nameEvent(const char* what, uint32_t pid, uint32_t tid, std::string_view name);

 private:
  std::string trackName(const JsonTrack& t) const;
  std::vector<const JsonTrack*> namingOrder() const;
  void threadSortIndexEvent(uint32_t pid, uint32_t tid, uint64_t index);
  void sortIndexEvent(uint32_t pid, uint64_t index);

  const TimelineInput& in_;
  const Trace& trace_;
  const JsonTracks& tracks_;
  JsonEvents& e_;
};

}  // namespace cuptitrace
