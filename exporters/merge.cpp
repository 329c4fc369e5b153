#include "exporters/merge.h"

#include <algorithm>
#include <set>

#include "core/rank_info.h"
#include "exporters/json/chrome_json.h"
#include "core/file_output.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "exporters/sqlite/sqlite.h"

namespace cuptitrace {
namespace {

// Linux pids (and tids) are below 2^22: a moved pid is never a real one.
constexpr uint32_t kPidShift = uint32_t{1} << 22;
// gpuProcessId() keeps 20 bits of its key.
constexpr uint32_t kGpuKeyMask = 0xFFFFFu;

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::vector<MergeSource> orderMergeSources(std::vector<MergeSource> sources, std::vector<std::string>& skipped) {
  std::vector<MergeSource> kept;
  for (MergeSource& s : sources) {
    const TraceStore& store = s.trace->store;
    const bool used =
        store.count(RecordKind::Kernel) + store.count(RecordKind::Memcpy) + store.count(RecordKind::Memset) != 0;
    if (used) {
      kept.push_back(std::move(s));
      continue;
    }
    const TraceMetadata& m = s.trace->meta;
    skipped.push_back(s.file + " (" + m.processName + ", pid " + std::to_string(m.pid) +
                      "): no GPU work (a launcher such as torchrun or mpirun?)");
  }
  std::stable_sort(kept.begin(), kept.end(), [](const MergeSource& a, const MergeSource& b) {
    const int64_t ra = a.trace->meta.rank, rb = b.trace->meta.rank;
    if ((ra >= 0) != (rb >= 0)) return ra >= 0;
    return ra >= 0 && ra < rb;
  });
  return kept;
}

std::vector<TimelineInput> planMerge(const std::vector<MergeSource>& sources) {
  std::vector<TimelineInput> inputs;
  std::set<uint32_t> pids, gpuKeys;
  for (const MergeSource& source : sources) {
    const TraceMetadata& m = source.trace->meta;
    TimelineInput in = timelineInput(*source.trace);
    while (pids.count(m.pid + in.idOffset) != 0) in.idOffset += kPidShift;
    pids.insert(m.pid + in.idOffset);
    // The first free 20-bit key from the pid's own.
    uint32_t key = m.pid & kGpuKeyMask;
    while (gpuKeys.count(key) != 0) key = (key + 1) & kGpuKeyMask;
    gpuKeys.insert(key);
    in.gpuKey = key;
    in.nameSuffix = " (" + (m.hostName.empty() ? std::string("pid ") : m.hostName + ":") +
                    std::to_string(m.pid) + ")";
    in.labels = {{"file", source.file}};
    inputs.push_back(std::move(in));
  }
  return inputs;
}

bool mergeFormatFor(const std::string& path, MergeFormat& format) {
  if (endsWith(path, ".json")) {
    format = MergeFormat::Json;
    return true;
  }
  if (endsWith(path, ".pftrace")) {
    format = MergeFormat::Pftrace;
    return true;
  }
  if (endsWith(path, ".sqlite")) {
    format = MergeFormat::Sqlite;
    return true;
  }
  return false;
}

MergeResult writeMerged(const std::vector<MergeSource>& sources, const std::string& path,
                        bool overwrite) {
  MergeResult result;
  MergeFormat format;
  if (!mergeFormatFor(path, format)) {
    result.error = path + ": the merged file's name must end in .json, .pftrace or .sqlite";
    return result;
  }
  if (format == MergeFormat::Sqlite) {
    std::vector<SqliteSource> traces;
    for (const MergeSource& s : sources) traces.push_back({s.trace, s.file});
    const SqliteResult r = writeSqlite(traces, path, overwrite);
    result.error = r.error;
    result.events = r.rows;
    return result;
  }
  const std::vector<TimelineInput> inputs = planMerge(sources);
  result.error = writeFileSafely(
      path,
      [&](std::ostream& out) {
        if (format == MergeFormat::Json) {
          const JsonExportStats s = writeChromeJson(inputs, out);
          result.events = s.events;
          result.flows = s.flows;
        } else {
          const PerfettoExportStats s = writePerfettoProto(inputs, out);
          result.events = s.events;
          result.flows = s.flows;
          result.bytes = s.bytes;
        }
      },
      overwrite);
  return result;
}

}  // namespace cuptitrace
