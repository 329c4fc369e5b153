// The NVTX records that are not slices of a thread on a Chrome JSON
// timeline: marks as thread instants; start/end ranges as async events of
// the host process, which may overlap anything and may end on another thread.
#pragma once

#include <cstdint>

#include "exporters/json/json_args.h"
#include "exporters/json/json_events.h"
#include "exporters/json/json_strings.h"
#include "exporters/json/json_tracks.h"
#include "timeline/timeline_slices.h"

namespace cuptitrace {

class JsonNvtxEvents {
 public:
  JsonNvtxEvents(const TimelineRecords& rec, const JsonTracks& tracks, JsonEvents& events,
                 JsonStrings& strings, JsonArgs& args)
      : rec_(rec), tracks_(tracks), e_(events), b_(events.b), strings_(strings), args_(args) {}

  // Counts the async ids it will write; gives the threads that only made
  // marks or start/end ranges a track of their own, so that they are named.
  void plan(JsonTracks& tracks);
  uint64_t asyncIds() const { return asyncCount_; }
  // Times relative to `base`; async ids after `asyncBase`.
  void write(uint64_t base, uint64_t asyncBase);

 private:
  void head(const char* phase, const NvtxRecord& r, uint32_t tid, uint64_t ns);
  void argsAndEnd(const NvtxRecord& r);

  const TimelineRecords& rec_;
  const JsonTracks& tracks_;
  JsonEvents& e_;
  JsonText& b_;  // e_.b
  JsonStrings& strings_;
  JsonArgs& args_;
  uint64_t base_ = 0;
  uint64_t asyncCount_ = 0;
};

}  // namespace cuptitrace
