// The describing tables of the SQLite output: the process and its threads,
// GPUs, contexts, names given with NVTX, and what the trace says about
// itself (metadata, configuration, drops, capture windows).
#include <ctime>

#include "core/records.h"
#include "exporters/sqlite/sqlite_schema.h"
#include "exporters/sqlite/sqlite_tables.h"

namespace cuptitrace {
namespace {

std::string utcText(uint64_t epochNs) {
  const time_t seconds = static_cast<time_t>(epochNs / 1'000'000'000ull);
  std::tm tm{};
  if (gmtime_r(&seconds, &tm) == nullptr) return {};
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

class InfoWriter {
 public:
  InfoWriter(SqliteDb& db, SqliteStrings& strings, const SqliteTraceInput& in)
      : db_(db), strings_(strings), in_(in), t_(*in.trace), m_(t_.meta),
        globalPid_(sqliteGlobalPid(in.index, m_.pid)) {}

  bool run(std::vector<std::string>& gpusWritten, uint64_t& rows) {
    const bool ok = process() && threads() && gpus(gpusWritten) && contexts() && nvtxNames() && metadata() &&
                    drops() && captureWindows();
    rows += rows_;
    return ok;
  }

 private:
  uint64_t time(uint64_t t) const { return t == 0 ? 0 : t + static_cast<uint64_t>(in_.timeOffsetNs); }
  template <typename... Values>
  bool insert(const char* table, std::initializer_list<const char*> columns, Values... values) {
    SqliteStatement s(db_, sqliteInsert(table, columns));
    if (!s.ok()) return false;
    int n = 0;
    (bind(s, ++n, values), ...);
    if (!s.step()) return false;
    ++rows_;
    return true;
  }
  static void bind(SqliteStatement& s, int n, uint64_t v) { s.unsignedInteger(n, v); }
  static void bind(SqliteStatement& s, int n, int64_t v) { s.integer(n, v); }
  static void bind(SqliteStatement& s, int n, uint32_t v) { s.unsignedInteger(n, v); }
  static void bind(SqliteStatement& s, int n, int32_t v) { s.integer(n, v); }
  static void bind(SqliteStatement& s, int n, const std::string& v) { s.text(n, v); }
  static void bind(SqliteStatement& s, int n, const char* v) { s.text(n, v); }
  static void bind(SqliteStatement& s, int n, std::nullptr_t) { s.null(n); }

  bool process() {
    return insert("PROCESSES", {"globalPid", "pid", "name"}, globalPid_, m_.pid, m_.processName) &&
           insert("CUPTITRACE_TRACES",
                  {"globalPid", "file", "hostName", "pid", "processName", "commandLine", "toolVersion", "clock",
                   "timeOffsetNs", "startNs", "endNs", "startRealtimeNs", "cuptiVersion", "driverVersion",
                   "cuptiDetachedNs"},
                  globalPid_, in_.file, m_.hostName, m_.pid, m_.processName, m_.commandLine, m_.toolVersion,
                  m_.clock, in_.timeOffsetNs, time(m_.startTimestampNs), time(m_.endTimestampNs),
                  m_.startRealtimeNs, m_.cuptiVersion, m_.driverVersion, time(m_.cuptiDetachedNs)) &&
           insert("ANALYSIS_DETAILS", {"globalVid", "duration", "startTime", "stopTime"}, globalPid_,
                  m_.endTimestampNs >= m_.startTimestampNs ? m_.endTimestampNs - m_.startTimestampNs : 0,
                  time(m_.startTimestampNs), time(m_.endTimestampNs));
  }

  bool threads() {
    for (const auto& [tid, name] : t_.threadNames) {
      const int64_t id = strings_.id(name);
      if (id < 0 || !insert("ThreadNames", {"nameId", "globalTid"}, id, sqliteGlobalTid(in_.index, m_.pid, tid)))
        return false;
    }
    return true;
  }

  // A GPU is written once per host, whichever traces saw it; TARGET_INFO_CUDA_DEVICE
  // says which process saw it under which CUDA device id.
  bool gpus(std::vector<std::string>& written) {
    for (const DeviceInfo& d : t_.devices) {
      const std::string key = m_.hostName + "\n" + (d.uuid.empty() ? std::to_string(d.id) : d.uuid);
      bool seen = false;
      for (const auto& w : written) seen = seen || w == key;
      if (!seen) {
        written.push_back(key);
        if (!insert("TARGET_INFO_GPU",
                    {"vmId", "id", "name", "l2CacheSize", "totalMemory", "memoryBandwidth", "clockRate", "smCount",
                     "uuid", "cuDevice", "asyncEngines", "computeMajor", "computeMinor", "smMajor", "smMinor"},
                    uint64_t{in_.index}, d.id, d.name, d.l2CacheBytes, d.globalMemoryBytes,
                    d.memoryBandwidthKBps * 1000, uint64_t{d.coreClockKHz} * 1000, d.multiprocessors, d.uuid, d.id,
                    d.copyEngines, d.computeMajor, d.computeMinor, d.computeMajor, d.computeMinor))
          return false;
      }
      if (!insert("TARGET_INFO_CUDA_DEVICE", {"gpuId", "cudaId", "pid", "uuid", "numMultiprocessors"}, d.id, d.id,
                  m_.pid, d.uuid, d.multiprocessors))
        return false;
    }
    return true;
  }

  bool contexts() {
    for (const ContextInfo& c : t_.contexts)
      if (!insert("TARGET_INFO_CUDA_CONTEXT_INFO", {"nullStreamId", "vmId", "processId", "deviceId", "contextId"},
                  c.nullStreamId, uint64_t{in_.index}, m_.pid, c.deviceId, c.contextId))
        return false;
    return true;
  }

  bool nvtxNames() {
    for (const auto& [device, name] : t_.deviceNames)
      if (!insert("TARGET_INFO_NVTX_CUDA_DEVICE", {"name", "vmId", "deviceId"}, name, uint64_t{in_.index}, device))
        return false;
    for (const auto& [context, name] : t_.contextNames)
      if (!insert("TARGET_INFO_NVTX_CUDA_CONTEXT", {"name", "vmId", "processId", "contextId"}, name,
                  uint64_t{in_.index}, m_.pid, context))
        return false;
    for (const auto& [stream, name] : t_.streamNames)
      if (!insert("TARGET_INFO_NVTX_CUDA_STREAM", {"name", "vmId", "processId", "streamId"}, name,
                  uint64_t{in_.index}, m_.pid, stream))
        return false;
    return true;
  }

  bool metadata() {
    for (const auto& [name, value] : m_.config)
      if (!insert("CUPTITRACE_CONFIG", {"globalPid", "name", "value"}, globalPid_, name, value)) return false;
    if (in_.index != 0) return true;
    // Nsight's session tables describe one capture: the first trace's.
    return insert("META_DATA_CAPTURE", {"name", "value"}, "PROCESS_NAME", m_.processName) &&
           insert("META_DATA_CAPTURE", {"name", "value"}, "HOST_NAME", m_.hostName) &&
           insert("META_DATA_CAPTURE", {"name", "value"}, "COMMAND_LINE", m_.commandLine) &&
           insert("TARGET_INFO_SESSION_START_TIME", {"utcEpochNs", "utcTime", "systemClockNs"},
                  m_.startRealtimeNs, utcText(m_.startRealtimeNs), time(m_.startTimestampNs));
  }

  // Every kind's drops (zero included: "none lost" is said, not implied) and
  // every named counter of the trace.
  bool drops() {
    for (int k = 0; k < kRecordKindCount; ++k) {
      const auto kind = static_cast<RecordKind>(k);
      if (!insert("CUPTITRACE_DROPS", {"globalPid", "name", "count"}, globalPid_,
                  std::string("dropped.store.") + recordKindName(kind), t_.store.dropped(kind)))
        return false;
    }
    for (const auto& [name, count] : t_.counters)
      if (!insert("CUPTITRACE_DROPS", {"globalPid", "name", "count"}, globalPid_, name, count)) return false;
    return true;
  }

  bool captureWindows() {
    for (const CaptureSpan& w : m_.captureWindows)
      if (!insert("CUPTITRACE_CAPTURE_WINDOWS", {"globalPid", "start", "end"}, globalPid_, time(w.startNs),
                  time(w.endNs)))
        return false;
    return true;
  }

  SqliteDb& db_;
  SqliteStrings& strings_;
  const SqliteTraceInput& in_;
  const Trace& t_;
  const TraceMetadata& m_;
  const uint64_t globalPid_;
  uint64_t rows_ = 0;
};

}  // namespace

bool writeSqliteInfo(SqliteDb& db, SqliteStrings& strings, const SqliteTraceInput& in,
                     std::vector<std::string>& gpusWritten, uint64_t& rows) {
  return InfoWriter(db, strings, in).run(gpusWritten, rows);
}

}  // namespace cuptitrace
