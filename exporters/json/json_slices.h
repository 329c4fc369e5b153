// The X events of a Chrome JSON timeline: each slice (timeline_slices.h) as
// {"ph":"X","cat":..,"name":..,"pid":..,"tid":..,"ts":..,"dur":..,"args":{..}},
// named and given its arguments (record_args.h) by its record's kind, with
// the ends of its arrows (json_flows.h).
#pragma once

#include <cstdint>
#include <string_view>

#include "core/trace.h"
#include "exporters/json/json_args.h"
#include "exporters/json/json_events.h"
#include "exporters/json/json_flows.h"
#include "exporters/json/json_strings.h"
#include "exporters/json/json_tracks.h"
#include "timeline/timeline_slices.h"
#include "timeline/torch_ops.h"

namespace cuptitrace {

class JsonSlices {
 public:
  JsonSlices(const Trace& trace, const TimelineRecords& rec, JsonEvents& events,
             JsonStrings& strings, JsonArgs& args, JsonFlows& flows)
      : trace_(trace),
        rec_(rec),
        e_(events),
        b_(events.b),
        strings_(strings),
        args_(args),
        flows_(flows),
        torch_(trace) {}

  // Times are written relative to `base`.
  void setBase(uint64_t base) { base_ = base; }
  // Writes one window's slices of track `t`, [first, last), laid out
  // (window_layout.h): in track order, each on its lane.
  void writeTrack(JsonTrack& t, const Slice* first, const Slice* last);

 private:
  void write(const Slice& s, const JsonTrack& t);
  // {"ph":"X","cat":..,"name":..,"pid":..,"tid":..,"ts":..,"dur":.. (no
  // closing brace), in two parts for names composed in place.
  inline __attribute__((always_inline)) void beginSlice(std::string_view category,
                                                        std::string_view quotedName,
                                                        const JsonTrack& t, const Slice& s) {
    beginSlice(category);
    b_.put(quotedName);
    sliceTimes(t, s);
  }
  void beginSlice(std::string_view category);
  void sliceTimes(const JsonTrack& t, const Slice& s);
  // ,"args":{...} from `describe` (one of record_args.h's functions), with
  // what the layout cut off the record's [start, end), and the event's end.
  template <typename Describe>
  inline __attribute__((always_inline)) void argsAndEnd(const Slice& s, uint64_t start,
                                                        uint64_t end, Describe&& describe) {
    args_.write(b_, (end - start) - (s.end - s.start), describe);
    e_.end();
  }

  void writeApi(const Slice& s, const JsonTrack& t);
  void writeKernel(const Slice& s, const JsonTrack& t);
  void writeMemcpy(const Slice& s, const JsonTrack& t);
  void writeMemset(const Slice& s, const JsonTrack& t);
  void writeGraph(const Slice& s, const JsonTrack& t);
  void writeSync(const Slice& s, const JsonTrack& t);
  void writeOverhead(const Slice& s, const JsonTrack& t);
  void writeNvtxRange(const Slice& s, const JsonTrack& t);
  void writeOpenAcc(const Slice& s, const JsonTrack& t);

  const Trace& trace_;
  const TimelineRecords& rec_;
  JsonEvents& e_;
  JsonText& b_;  // e_.b
  JsonStrings& strings_;
  JsonArgs& args_;
  JsonFlows& flows_;
  TorchRanges torch_;  // which NVTX ranges are PyTorch's operators and steps
  uint64_t base_ = 0;
};

}  // namespace cuptitrace
