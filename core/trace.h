// A whole trace: the records, their strings, and what describes them
// (process, devices, names given with NVTX, configuration, counters).
// This is what exporters take and what the native format saves.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/string_table.h"
#include "core/trace_store.h"

namespace cuptitrace {

struct DeviceInfo {
  uint32_t id = 0;
  std::string name;             // "NVIDIA H100 80GB HBM3"
  uint32_t computeMajor = 0;
  uint32_t computeMinor = 0;
  uint32_t multiprocessors = 0;
  uint64_t globalMemoryBytes = 0;
  uint32_t coreClockKHz = 0;
  std::string uuid;             // "GPU-xxxxxxxx-..." when known
  uint64_t memoryBandwidthKBps = 0;  // global memory bandwidth, KB/s; 0 when unknown
  uint32_t l2CacheBytes = 0;
  uint32_t copyEngines = 0;          // asynchronous copy engines
  // The occupancy calculator's limits (reports/kernel_traits.h); 0 when unknown.
  uint32_t threadsPerWarp = 0;
  uint32_t maxWarpsPerSm = 0;
  uint32_t maxBlocksPerSm = 0;
  uint32_t registersPerSm = 0;
  uint32_t registersPerBlock = 0;
  uint32_t sharedMemoryPerSm = 0;     // bytes
  uint32_t sharedMemoryPerBlock = 0;  // bytes, without opting in to more
  uint32_t maxThreadsPerBlock = 0;
};

struct ContextInfo {
  uint32_t contextId = 0;
  uint32_t deviceId = 0;
  uint32_t nullStreamId = 0;
};

// A span of time in which collection was on (CUPTITRACE_CAPTURE), trace clock.
struct CaptureSpan {
  uint64_t startNs = 0;
  uint64_t endNs = 0;
};

struct TraceMetadata {
  std::string toolVersion;
  std::string hostName;
  uint32_t pid = 0;
  std::string processName;      // program name, shown as the host process
  std::string commandLine;
  std::string clock = "cupti";  // the clock of every timestamp in the trace
  uint64_t baseTimestampNs = 0; // exporters write times relative to this
  uint64_t startRealtimeNs = 0; // wall clock (CLOCK_REALTIME) at collection start
  uint64_t startTimestampNs = 0;// trace clock at collection start
  uint64_t endTimestampNs = 0;  // trace clock when collection stopped
  // CLOCK_REALTIME minus the trace clock (`clock`), measured at collection
  // start: a trace time plus this is wall-clock time. 0 when not measured;
  // see wallClockOffsetNs().
  int64_t realtimeOffsetNs = 0;
  uint32_t cuptiVersion = 0;    // CUPTI API version
  int32_t driverVersion = 0;    // cuDriverGetVersion
  // The effective configuration, variable name -> value, as parsed.
  std::vector<std::pair<std::string, std::string>> config;
  // The capture windows, in order; empty when the whole run was captured
  // (CUPTITRACE_CAPTURE=all) or, with another mode, when no window opened.
  std::vector<CaptureSpan> captureWindows;
  // Trace clock when CUPTI was detached, past the last capture window; 0 when
  // it stayed attached to the end.
  uint64_t cuptiDetachedNs = 0;
  // The process's place in a multi-process job, as its launcher set it
  // (core/rank_info.h): -1 and 0 when it was started by none.
  int64_t rank = -1;
  int64_t localRank = -1;
  uint32_t worldSize = 0;
  std::string rankSource;  // the variable the rank was read from ("RANK", "SLURM_PROCID", ...)

  // What to add to a trace time to get wall-clock time: the recorded offset,
  // else the one the two start times give, else 0 (the trace clock is then
  // taken for the wall clock, which CUPTI's clock roughly is on Linux).
  int64_t wallClockOffsetNs() const {
    if (realtimeOffsetNs != 0) return realtimeOffsetNs;
    if (startRealtimeNs != 0 && startTimestampNs != 0)
      return static_cast<int64_t>(startRealtimeNs - startTimestampNs);  // modulo 2^64: either sign
    return 0;
  }
};

struct Trace {
  Trace() { store.setStrings(&strings); }
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  StringTable strings;  // freed blocks read from the store's spill file: none is read once it goes
  TraceStore store;
  TraceMetadata meta;
  std::vector<DeviceInfo> devices;
  std::vector<ContextInfo> contexts;
  // Names given by the program (nvtxNameCudaStream, nvtxNameOsThread, nvtxNameCudaDevice,
  // nvtxNameCuContext).
  std::map<uint32_t, std::string> streamNames;   // by CUPTI stream id
  std::map<uint32_t, std::string> threadNames;   // by OS thread id
  std::map<uint32_t, std::string> deviceNames;   // by device id
  std::map<uint32_t, std::string> contextNames;  // by CUPTI context id
  // Everything skipped or lost, by name ("dropped.cupti", "unknown_records", ...).
  // Exporters write these into metadata and summaries; nothing is lost silently.
  std::map<std::string, uint64_t> counters;

  const DeviceInfo* findDevice(uint32_t id) const {
    for (const auto& d : devices)
      if (d.id == id) return &d;
    return nullptr;
  }
  // Every record kind's dropped count plus the named counters starting with "dropped".
  uint64_t totalDropped() const {
    uint64_t n = store.totalDropped();
    for (const auto& [name, value] : counters)
      if (name.rfind("dropped", 0) == 0) n += value;
    return n;
  }
};

}  // namespace cuptitrace
