#include "core/trace_info_io.h"

#include <utility>

namespace cuptitrace::binary_io {

void writeMetadataHead(ByteWriter& w, const TraceMetadata& meta) {
  w.str(meta.toolVersion);
  w.str(meta.hostName);
  w.u32(meta.pid);
  w.str(meta.processName);
  w.str(meta.commandLine);
  w.str(meta.clock);
  w.u64(meta.baseTimestampNs);
  w.u64(meta.startRealtimeNs);
  w.u64(meta.startTimestampNs);
  w.u64(meta.endTimestampNs);
  w.u32(meta.cuptiVersion);
  w.i32(meta.driverVersion);
  w.u32(static_cast<uint32_t>(meta.config.size()));
  for (const auto& [name, value] : meta.config) {
    w.str(name);
    w.str(value);
  }
}

bool readMetadataHead(ByteReader& r, TraceMetadata& m) {
  uint32_t n = 0;
  bool ok = r.str(m.toolVersion) && r.str(m.hostName) && r.u32(m.pid) && r.str(m.processName) &&
            r.str(m.commandLine) && r.str(m.clock) && r.u64(m.baseTimestampNs) && r.u64(m.startRealtimeNs) &&
            r.u64(m.startTimestampNs) && r.u64(m.endTimestampNs) && r.u32(m.cuptiVersion) &&
            r.i32(m.driverVersion) && r.u32(n);
  for (uint32_t i = 0; ok && i < n; ++i) {
    std::pair<std::string, std::string> kv;
    ok = r.str(kv.first) && r.str(kv.second);
    if (ok) m.config.push_back(std::move(kv));
  }
  return ok;
}

void writeDevices(ByteWriter& w, const std::vector<DeviceInfo>& devices) {
  w.u32(static_cast<uint32_t>(devices.size()));
  for (const DeviceInfo& d : devices) {
    w.u32(d.id);
    w.str(d.name);
    w.u32(d.computeMajor);
    w.u32(d.computeMinor);
    w.u32(d.multiprocessors);
    w.u64(d.globalMemoryBytes);
    w.u32(d.coreClockKHz);
    w.str(d.uuid);
  }
}

bool readDevices(ByteReader& r, std::vector<DeviceInfo>& devices) {
  uint32_t n = 0;
  bool ok = r.u32(n);
  for (uint32_t i = 0; ok && i < n; ++i) {
    DeviceInfo d;
    ok = r.u32(d.id) && r.str(d.name) && r.u32(d.computeMajor) && r.u32(d.computeMinor) &&
         r.u32(d.multiprocessors) && r.u64(d.globalMemoryBytes) && r.u32(d.coreClockKHz) && r.str(d.uuid);
    if (ok) devices.push_back(std::move(d));
  }
  return ok;
}

void writeContexts(ByteWriter& w, const std::vector<ContextInfo>& contexts) {
  w.u32(static_cast<uint32_t>(contexts.size()));
  for (const ContextInfo& c : contexts) {
    w.u32(c.contextId);
    w.u32(c.deviceId);
    w.u32(c.nullStreamId);
  }
}

bool readContexts(ByteReader& r, std::vector<ContextInfo>& contexts) {
  uint32_t n = 0;
  bool ok = r.u32(n);
  for (uint32_t i = 0; ok && i < n; ++i) {
    ContextInfo c;
    ok = r.u32(c.contextId) && r.u32(c.deviceId) && r.u32(c.nullStreamId);
    if (ok) contexts.push_back(c);
  }
  return ok;
}

void writeRank(ByteWriter& w, const TraceMetadata& meta) {
  // Two's complement: -1 (no rank) reads back as -1.
  w.u64(static_cast<uint64_t>(meta.rank));
  w.u64(static_cast<uint64_t>(meta.localRank));
  w.u32(meta.worldSize);
  w.str(meta.rankSource);
}

bool readRank(ByteReader& r, TraceMetadata& meta) {
  uint64_t rank = 0, localRank = 0;
  if (!(r.u64(rank) && r.u64(localRank) && r.u32(meta.worldSize) && r.str(meta.rankSource))) return false;
  // Any negative value is "none".
  meta.rank = static_cast<int64_t>(rank) < 0 ? -1 : static_cast<int64_t>(rank);
  meta.localRank = static_cast<int64_t>(localRank) < 0 ? -1 : static_cast<int64_t>(localRank);
  return true;
}

void writeNames(ByteWriter& w, const std::map<uint32_t, std::string>& names) {
  w.u32(static_cast<uint32_t>(names.size()));
  for (const auto& [id, name] : names) {
    w.u32(id);
    w.str(name);
  }
}

bool readNames(ByteReader& r, std::map<uint32_t, std::string>& names) {
  uint32_t n = 0;
  bool ok = r.u32(n);
  for (uint32_t i = 0; ok && i < n; ++i) {
    uint32_t id = 0;
    std::string name;
    ok = r.u32(id) && r.str(name);
    if (ok) names[id] = std::move(name);
  }
  return ok;
}

}  // namespace cuptitrace::binary_io
