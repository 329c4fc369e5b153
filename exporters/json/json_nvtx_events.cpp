#include "exporters/json/json_nvtx_events.h"

#include "timeline/record_args.h"

namespace cuptitrace {

void JsonNvtxEvents::plan(JsonTracks& tracks) {
  rec_.nvtx.forEach([&](const NvtxRecord& r) {
    if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && drawable(r.start, r.end))
      ++asyncCount_;
  });
  rec_.nvtx.forEach([&](const NvtxRecord& r) {
    if (r.type == static_cast<uint8_t>(NvtxType::PushPop) || !drawable(r.start, r.end)) return;
    tracks.hostThread(r.threadId);
    if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && r.endThreadId != 0)
      tracks.hostThread(r.endThreadId);
  });
}

// {"ph":..,"cat":"nvtx","name":..,"pid":..,"tid":..,"ts":.. (no closing brace).
void JsonNvtxEvents::head(const char* phase, const NvtxRecord& r, uint32_t tid, uint64_t ns) {
  e_.begin();
  b_.put(phase);
  b_.lit(",\"cat\":\"nvtx\",\"name\":");
  b_.put(strings_.quoted(r.message));
  b_.lit(",\"pid\":");
  b_.uint(tracks_.hostPid());
  b_.lit(",\"tid\":");
  b_.uint(tracks_.hostTid(tid));
  b_.lit(",\"ts\":");
  b_.micros(static_cast<int64_t>(ns - base_));
}

void JsonNvtxEvents::argsAndEnd(const NvtxRecord& r) {
  args_.write(b_, 0, [&](JsonArgs::Sink& a) { nvtxArgs(r, false, a); });
  e_.end();
}

void JsonNvtxEvents::write(uint64_t base, uint64_t asyncBase) {
  base_ = base;
  uint64_t asyncId = asyncBase;
  rec_.nvtx.forEach([&](const NvtxRecord& r) {
    if (!drawable(r.start, r.end)) return;
    const auto type = static_cast<NvtxType>(r.type);
    if (type == NvtxType::Mark) {
      head("\"ph\":\"i\",\"s\":\"t\"", r, r.threadId, r.start);
      argsAndEnd(r);
    } else if (type == NvtxType::StartEnd) {
      // Async ids need only be unique among nvtx events; a counter is,
      // whatever ids the program's ranges had (kept in "range_id").
      ++asyncId;
      // An empty range as one async instant: at equal timestamps newer
      // Perfetto versions order ends before begins.
      head(r.end == r.start ? "\"ph\":\"n\"" : "\"ph\":\"b\"", r, r.threadId, r.start);
      b_.lit(",\"id\":");
      b_.uint(asyncId);
      argsAndEnd(r);
      if (r.end == r.start) return;
      head("\"ph\":\"e\"", r, r.endThreadId != 0 ? r.endThreadId : r.threadId, r.end);
      b_.lit(",\"id\":");
      b_.uint(asyncId);
      e_.end();
    }
  });
}

}  // namespace cuptitrace
