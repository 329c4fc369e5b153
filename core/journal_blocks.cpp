#include "core/journal_blocks.h"

#include "core/journal_format.h"

namespace cuptitrace::journal {

std::string encodeMetadata(const TraceMetadata& meta) {
  std::string out;
  Writer w(out);
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
  return out;
}

bool decodeMetadata(std::string_view data, TraceMetadata& meta) {
  Reader r(data);
  TraceMetadata m;
  uint32_t n = 0;
  bool ok = r.str(m.toolVersion) && r.str(m.hostName) && r.u32(m.pid) && r.str(m.processName) &&
            r.str(m.commandLine) && r.str(m.clock) && r.u64(m.baseTimestampNs) && r.u64(m.startRealtimeNs) &&
            r.u64(m.startTimestampNs) && r.u64(m.endTimestampNs) && r.u32(m.cuptiVersion) &&
            r.i32(m.driverVersion) && r.u32(n);
  // Counts come from the file: entries are only added as they are read.
  for (uint32_t i = 0; ok && i < n; ++i) {
    std::pair<std::string, std::string> kv;
    ok = r.str(kv.first) && r.str(kv.second);
    if (ok) m.config.push_back(std::move(kv));
  }
  if (ok) meta = std::move(m);
  return ok;
}

std::string encodeInfo(const Trace& trace) {
  std::string out;
  Writer w(out);
  w.u32(static_cast<uint32_t>(trace.devices.size()));
  for (const DeviceInfo& d : trace.devices) {
    w.u32(d.id);
    w.str(d.name);
    w.u32(d.computeMajor);
    w.u32(d.computeMinor);
    w.u32(d.multiprocessors);
    w.u64(d.globalMemoryBytes);
    w.u32(d.coreClockKHz);
    w.str(d.uuid);
  }
  w.u32(static_cast<uint32_t>(trace.contexts.size()));
  for (const ContextInfo& c : trace.contexts) {
    w.u32(c.contextId);
    w.u32(c.deviceId);
    w.u32(c.nullStreamId);
  }
  // Context names came later: last, so that a journal without them still reads.
  for (const auto* names : {&trace.streamNames, &trace.threadNames, &trace.deviceNames, &trace.contextNames}) {
    w.u32(static_cast<uint32_t>(names->size()));
    for (const auto& [id, name] : *names) {
      w.u32(id);
      w.str(name);
    }
  }
  return out;
}

bool decodeInfo(std::string_view data, Trace& trace) {
  Reader r(data);
  std::vector<DeviceInfo> devices;
  std::vector<ContextInfo> contexts;
  std::map<uint32_t, std::string> names[4];
  uint32_t n = 0;
  bool ok = r.u32(n);
  for (uint32_t i = 0; ok && i < n; ++i) {
    DeviceInfo d;
    ok = r.u32(d.id) && r.str(d.name) && r.u32(d.computeMajor) && r.u32(d.computeMinor) &&
         r.u32(d.multiprocessors) && r.u64(d.globalMemoryBytes) && r.u32(d.coreClockKHz) && r.str(d.uuid);
    if (ok) devices.push_back(std::move(d));
  }
  ok = ok && r.u32(n);
  for (uint32_t i = 0; ok && i < n; ++i) {
    ContextInfo c;
    ok = r.u32(c.contextId) && r.u32(c.deviceId) && r.u32(c.nullStreamId);
    if (ok) contexts.push_back(c);
  }
  for (auto& map : names) {
    if (ok && &map == &names[3] && r.remaining() == 0) break;  // written before context names
    ok = ok && r.u32(n);
    for (uint32_t i = 0; ok && i < n; ++i) {
      uint32_t id = 0;
      std::string name;
      ok = r.u32(id) && r.str(name);
      if (ok) map[id] = std::move(name);
    }
  }
  if (!ok) return false;
  trace.devices = std::move(devices);
  trace.contexts = std::move(contexts);
  trace.streamNames = std::move(names[0]);
  trace.threadNames = std::move(names[1]);
  trace.deviceNames = std::move(names[2]);
  trace.contextNames = std::move(names[3]);
  return true;
}

}  // namespace cuptitrace::journal
