#include "exporters/json/json_kineto.h"

#include <set>

namespace cuptitrace {
namespace {

// One rank when every trace says the same one.
bool oneRank(const std::vector<const Trace*>& traces) {
  if (traces.empty() || traces[0]->meta.rank < 0) return false;
  for (const Trace* t : traces)
    if (t->meta.rank != traces[0]->meta.rank) return false;
  return true;
}

void distributedInfo(const TraceMetadata& m, JsonText& b) {
  b.lit("\"distributedInfo\": {\"rank\": ");
  b.sint(m.rank);
  if (m.worldSize != 0) {
    b.lit(", \"world_size\": ");
    b.uint(m.worldSize);
  }
  if (m.localRank >= 0) {
    b.lit(", \"local_rank\": ");
    b.sint(m.localRank);
  }
  b.lit("},\n");
}

// A field of Kineto's, when known.
void field(JsonText& b, const char* name, uint64_t value) {
  if (value == 0) return;
  b.lit(", \"");
  b.put(name);
  b.lit("\": ");
  b.uint(value);
}

void deviceProperties(const std::vector<const Trace*>& traces, JsonText& b) {
  b.lit("\"deviceProperties\": [");
  std::set<uint32_t> written;
  for (const Trace* t : traces) {
    for (const DeviceInfo& d : t->devices) {
      if (!written.insert(d.id).second) continue;
      if (written.size() > 1) b.put(',');
      b.lit("\n  {\"id\": ");
      b.uint(d.id);
      b.lit(", \"name\": ");
      b.quoted(d.name);
      b.lit(", \"totalGlobalMem\": ");
      b.uint(d.globalMemoryBytes);
      b.lit(", \"computeMajor\": ");
      b.uint(d.computeMajor);
      b.lit(", \"computeMinor\": ");
      b.uint(d.computeMinor);
      field(b, "maxThreadsPerBlock", d.maxThreadsPerBlock);
      field(b, "maxThreadsPerMultiprocessor", uint64_t{d.maxWarpsPerSm} * d.threadsPerWarp);
      field(b, "regsPerBlock", d.registersPerBlock);
      field(b, "regsPerMultiprocessor", d.registersPerSm);
      field(b, "warpSize", d.threadsPerWarp);
      field(b, "sharedMemPerBlock", d.sharedMemoryPerBlock);
      field(b, "sharedMemPerMultiprocessor", d.sharedMemoryPerSm);
      b.lit(", \"numSms\": ");
      b.uint(d.multiprocessors);
      b.put('}');
    }
  }
  b.lit("],\n");
}

}  // namespace

void writeKinetoHeader(const std::vector<const Trace*>& traces, JsonText& b) {
  b.lit("\"schemaVersion\": 1,\n");
  if (oneRank(traces)) distributedInfo(traces[0]->meta, b);
  deviceProperties(traces, b);
}

}  // namespace cuptitrace
