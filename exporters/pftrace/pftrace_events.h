// The .pftrace writer's TrackEvent encoder: one event's fields (category,
// debug annotations, type, name, flow ids, a lane's track) gathered, then
// written as a packet with the interned data it needs. Nested lengths are
// computed bottom-up, so every length is minimal. Everything here runs once
// or more per event: it stays inline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "exporters/pftrace/pftrace_interning.h"
#include "exporters/pftrace/pftrace_wire.h"
#include "exporters/pftrace/proto_writer.h"
#include "timeline/record_args.h"
#include "timeline/track_layout.h"

namespace cuptitrace::pftrace {

class EventEncoder {
 public:
  EventEncoder(Output& out, Interner& interner) : o_(out), b_(out.b), interner_(interner) {}

  // Starts the TrackEvent of the next packet with its category.
  void begin(Category c) {
    interner_.useCategory(c);
    te_.clear();
    uint8_t* p = te_.tail(2);
    p[0] = kTagCategoryIid;
    p[1] = c;  // < 128
    te_.setTail(p + 2);
  }

  // ---- Debug annotations {name_iid, value}, sized bottom-up ---------------------
  void argUint(uint32_t nameIid, uint64_t v) {
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), nameIid, 1 + varintSize(v));
    *p++ = kTagUintValue;
    te_.setTail(putVarint(p, v));
  }
  void argUint(Arg a, uint64_t v) { argUint(interner_.argIid(a), v); }
  void argInt(uint32_t nameIid, int64_t v) {
    const auto bits = static_cast<uint64_t>(v);
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), nameIid, 1 + varintSize(bits));
    *p++ = kTagIntValue;
    te_.setTail(putVarint(p, bits));
  }
  void argInt(Arg a, int64_t v) { argInt(interner_.argIid(a), v); }
  void argBool(Arg a, bool v) {
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), interner_.argIid(a), 2);
    *p++ = kTagBoolValue;
    *p++ = v ? 1 : 0;
    te_.setTail(p);
  }
  void argDouble(Arg a, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), interner_.argIid(a), 9);
    *p++ = kTagDoubleValue;
    te_.setTail(putFixed64(p, bits));
  }
  void argStringIid(Arg a, uint32_t valueIid) {
    uint8_t* p =
        annotationHead(te_.tail(kMaxScalarArg), interner_.argIid(a), 2 + varintSize(valueIid));
    *p++ = kTagStringValueIid[0];
    *p++ = kTagStringValueIid[1];
    te_.setTail(putVarint(p, valueIid));
  }
  // A string written in place (the trace's description only: nothing repeats there).
  void argString(uint32_t name, std::string_view v) {
    const size_t len = 1 + varintSize(name) + 1 + varintSize(v.size()) + v.size();
    te_.byte(kTagDebugAnnotation);
    te_.varint(len);
    te_.byte(kTagAnnotationNameIid);
    te_.varint(name);
    te_.byte(kTagStringValue);
    te_.varint(v.size());
    te_.bytes(v);
  }
  void argString(Arg a, std::string_view v) { argString(interner_.argIid(a), v); }
  // How much the layout cut off the slice: only past kMaxLanes lanes (track_layout.h).
  void clampArg(const Slice& s, uint64_t start, uint64_t end) {
    if (s.end - s.start != end - start) argUint(Arg::ClampedNs, (end - start) - (s.end - s.start));
  }

  // Type and name: fields 9 and 10, after the annotations (4).
  void head(uint8_t type, uint32_t nameIid) {
    uint8_t* p = te_.tail(2 + 1 + 5);
    *p++ = kTagType;
    *p++ = type;
    *p++ = kTagNameIid;
    te_.setTail(putVarint(p, nameIid));
  }
  // A flow id (kTagFlowId) or a terminating one (kTagTerminatingFlowId).
  void flowId(const uint8_t (&tag)[2], uint64_t id) {
    uint8_t* p = te_.tail(2 + 10);
    *p++ = tag[0];
    *p++ = tag[1];
    te_.setTail(putVarint(p, id));
  }
  // The lane track the events begun next name (TrackEvent.track_uuid); 0:
  // their sequence's track.
  void setLane(uint64_t trackUuid) { laneUuid_ = trackUuid; }

  // The packet of the event begun at `ts`, with the interned data it needs:
  // fields 8, 10, 11 and 12 in order, lengths computed first.
  void finish(uint64_t ts) {
    if (laneUuid_ != 0) {  // a lane's: TrackEvent.track_uuid
      uint8_t* p = te_.tail(1 + 10);
      *p++ = kTagTrackUuid;
      te_.setTail(putVarint(p, laneUuid_));
    }
    Sequence& seq = interner_.sequence();
    ProtoWriter& interned = interner_.entries();
    const uint64_t delta = ts - seq.lastTs;
    seq.lastTs = ts;
    const size_t teLen = te_.size();
    const size_t internedLen = interned.size();
    const size_t body = 1 + varintSize(delta) + 1 + varintSize(seq.id) + 1 + varintSize(teLen) +
                        teLen + (internedLen != 0 ? 1 + varintSize(internedLen) + internedLen : 0);
    uint8_t* p = b_.tail(1 + 10 + body);
    *p++ = kTagPacket;
    p = putVarint(p, body);
    *p++ = kTagTimestamp;
    p = putVarint(p, delta);
    *p++ = kTagSequenceId;
    p = putVarint(p, seq.id);
    *p++ = kTagTrackEvent;
    p = putVarint(p, teLen);
    std::memcpy(p, te_.data(), teLen);
    p += teLen;
    if (internedLen != 0) {
      *p++ = kTagInternedData;
      p = putVarint(p, internedLen);
      std::memcpy(p, interned.data(), internedLen);
      p += internedLen;
      interned.clear();
    }
    b_.setTail(p);
    ++o_.stats.events;
    ++o_.stats.packets;
    o_.maybeFlush();
  }

  // SLICE_END: timestamp, sequence, {type, and the lane's track_uuid when not 0}.
  void writeEnd(uint64_t ts, uint64_t trackUuid) {
    Sequence& seq = interner_.sequence();
    const uint64_t delta = ts - seq.lastTs;
    seq.lastTs = ts;
    const size_t te = 2 + (trackUuid != 0 ? 1 + varintSize(trackUuid) : 0);       // < 128
    const size_t body = 1 + varintSize(delta) + 1 + varintSize(seq.id) + 2 + te;  // < 128
    uint8_t* p = b_.tail(2 + body);
    *p++ = kTagPacket;
    *p++ = static_cast<uint8_t>(body);
    *p++ = kTagTimestamp;
    p = putVarint(p, delta);
    *p++ = kTagSequenceId;
    p = putVarint(p, seq.id);
    *p++ = kTagTrackEvent;
    *p++ = static_cast<uint8_t>(te);
    *p++ = kTagType;
    *p++ = kSliceEnd;
    if (trackUuid != 0) {
      *p++ = kTagTrackUuid;
      p = putVarint(p, trackUuid);
    }
    b_.setTail(p);
    ++o_.stats.events;
    ++o_.stats.packets;
    o_.maybeFlush();
  }

 private:
  // A scalar annotation is at most 2 + 17 bytes, so its length is one byte.
  static constexpr size_t kMaxScalarArg = 24;
  static uint8_t* annotationHead(uint8_t* p, uint32_t nameIid, size_t valueBytes) {
    *p++ = kTagDebugAnnotation;
    *p++ = static_cast<uint8_t>(1 + varintSize(nameIid) + valueBytes);
    *p++ = kTagAnnotationNameIid;
    return putVarint(p, nameIid);
  }

  Output& o_;
  ProtoWriter& b_;
  Interner& interner_;
  ProtoWriter te_;  // the TrackEvent of the packet being written
  uint64_t laneUuid_ = 0;
};

}  // namespace cuptitrace::pftrace
