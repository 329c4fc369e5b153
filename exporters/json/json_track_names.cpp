#include "exporters/json/json_track_names.h"

#include <algorithm>
#include <tuple>

namespace cuptitrace {

void JsonTrackNames::nameEvent(const char* what, uint32_t pid, uint32_t tid,
                               std::string_view name) {
  JsonText& b = e_.b;
  e_.begin();
  b.lit("\"ph\":\"M\",\"name\":\"");
  b.put(what);
  b.lit("\",\"pid\":");
  b.uint(pid);
  b.lit(",\"tid\":");
  b.uint(tid);
  b.lit(",\"ts\":0,\"args\":{\"name\":");
  b.quoted(name);
  b.put('}');
  e_.end();
}

void JsonTrackNames::threadSortIndexEvent(uint32_t pid, uint32_t tid, uint64_t index) {
  JsonText& b = e_.b;
  e_.begin();
  b.lit("\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":");
  b.uint(pid);
  b.lit(",\"tid\":");
  b.uint(tid);
  b.lit(",\"ts\":0,\"args\":{\"sort_index\":");
  b.uint(index);
  b.put('}');
  e_.end();
}

void JsonTrackNames::sortIndexEvent(uint32_t pid, uint64_t index) {
  JsonText& b = e_.b;
  e_.begin();
  b.lit("\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":");
  b.uint(pid);
  b.lit(",\"tid\":");
  b.uint(pid);
  b.lit(",\"ts\":0,\"args\":{\"sort_index\":");
  b.uint(index);
  b.put('}');
  e_.end();
}

std::string JsonTrackNames::trackName(const JsonTrack& t) const {
  switch (t.kind) {
    case JsonTrackKind::HostThread:
      return hostThreadName(trace_, t.tid - in_.idOffset);
    case JsonTrackKind::Overhead:
      return kOverheadTrackName;
    case JsonTrackKind::Stream:
      return streamTrackName(trace_, t.tid, t.context);
    case JsonTrackKind::Sync:
      return syncTrackName(trace_, t.context);
  }
  return {};
}

// The tracks in the order they are named: by process, kind and tid.
std::vector<const JsonTrack*> JsonTrackNames::namingOrder() const {
  std::vector<const JsonTrack*> order;
  order.reserve(tracks_.all().size());
  for (const JsonTrack& t : tracks_.all()) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const JsonTrack* a, const JsonTrack* b) {
    return std::tie(a->pid, a->kind, a->tid) < std::tie(b->pid, b->kind, b->tid);
  });
  return order;
}

void JsonTrackNames::writeProcessesAndTracks(uint64_t sortBase) {
  const std::vector<const JsonTrack*> order = namingOrder();
  const uint32_t hostPid = tracks_.hostPid();
  nameEvent("process_name", hostPid, hostPid, hostProcessName(trace_) + in_.nameSuffix);
  sortIndexEvent(hostPid, sortBase);
  uint32_t namedPid = hostPid;
  for (const JsonTrack* t : order) {
    if (t->pid != namedPid) {
      namedPid = t->pid;
      nameEvent("process_name", t->pid, t->pid, gpuProcessName(trace_, t->device) + in_.nameSuffix);
      sortIndexEvent(t->pid, sortBase + 1 + t->device);
    }
    nameEvent("thread_name", t->pid, t->tid, trackName(*t));
  }
}

void JsonTrackNames::writeLanes() {
  const std::vector<JsonTrack>& all = tracks_.all();
  if (std::none_of(all.begin(), all.end(), [](const JsonTrack& t) { return t.lanes > 1; })) return;
  const std::vector<const JsonTrack*> order = namingOrder();
  for (size_t i = 0; i < order.size();) {
    size_t next = i;
    bool lanes = false;
    for (; next < order.size() && order[next]->pid == order[i]->pid; ++next)
      lanes = lanes || order[next]->lanes > 1;
    uint64_t rank = 0;
    for (; lanes && i < next; ++i) {
      const JsonTrack& t = *order[i];
      threadSortIndexEvent(t.pid, t.tid, rank++);
      const std::string name = t.lanes > 1 ? trackName(t) : std::string();
      for (uint32_t lane = 1; lane < t.lanes; ++lane) {
        nameEvent("thread_name", t.pid, laneTid(t.tid, lane), laneName(name, lane));
        threadSortIndexEvent(t.pid, laneTid(t.tid, lane), rank++);
      }
    }
    i = next;
  }
}

}  // namespace cuptitrace
