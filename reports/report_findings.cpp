// findings: what stands out in a trace, in plain words, each with the
// numbers behind it and a few of the records (correlation ids, names) to
// look up in the timeline. Every threshold is a named constant below.
#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "core/nccl_kernel.h"
#include "reports/findings.h"
#include "reports/report_data.h"
#include "reports/report_gpu_metrics.h"

namespace cuptitrace::reports {

std::string pct(double v) {
  char tmp[32];
  std::snprintf(tmp, sizeof tmp, "%.1f%%", v);
  return tmp;
}

std::string dur(uint64_t ns) { return formatDuration(static_cast<double>(ns), true, TimeUnit::Auto); }

std::string at(const Trace& trace, uint64_t t) {
  const uint64_t base = trace.meta.baseTimestampNs;
  if (base == 0 || t < base) return std::to_string(t) + " ns";
  return "+" + dur(t - base);
}

std::string correlations(const std::vector<uint32_t>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "correlation ") + std::to_string(ids[i]);
  return s;
}

namespace {

// Copies to or from pageable host memory: reported from the first one.
constexpr uint64_t kPageableMinCopies = 1;
// Synchronous copies of one direction and size, repeated at least this often,
// are "in a loop".
constexpr uint64_t kSyncCopyLoopMin = 10;
// A device idle more than this share of the time from its first kernel to its
// last, between kernels.
constexpr double kIdleBetweenKernelsPct = 30.0;
constexpr uint64_t kIdleMinKernels = 2;
// Launch-bound: at least this many kernels, and at least this share of them
// shorter than kTinyKernelNs (report_data.h).
constexpr uint64_t kTinyMinKernels = 100;
constexpr double kTinyKernelSharePct = 50.0;
// One stream busy while the others sit idle: with two streams or more on a
// device, one carries at least this share of the device's GPU work time.
constexpr double kStreamDominantPct = 80.0;
// One API function takes at least this share of all API time (with two
// functions or more).
constexpr double kApiDominantPct = 40.0;

std::string durReal(double ns) { return formatDuration(ns, false, TimeUnit::Auto); }
std::string bytes(uint64_t b) { return formatBytes(static_cast<double>(b)); }

void pageableCopies(ReportData& data, std::vector<Finding>& out) {
  const Trace& trace = data.trace();
  uint64_t copies = 0, copyTime = 0, count = 0, total = 0, time = 0;
  std::vector<std::string> examples;
  trace.store.records<MemcpyRecord>().scan([&](const MemcpyRecord& m) {
    const uint64_t d = hasTime(m.start, m.end) ? m.end - m.start : 0;
    ++copies;
    copyTime += d;
    const bool pageable = static_cast<MemoryKind>(m.srcKind) == MemoryKind::Pageable ||
                          static_cast<MemoryKind>(m.dstKind) == MemoryKind::Pageable;
    if (!pageable) return;
    ++count;
    total += m.bytes;
    time += d;
    if (examples.size() < kMaxExamples)
      examples.push_back("correlation " + std::to_string(m.correlationId) + " (" +
                         copyKindName(static_cast<CopyKind>(m.copyKind)) + ", " + bytes(m.bytes) +
                         ")");
  });
  if (count < kPageableMinCopies) return;
  Finding f;
  f.title = "Copies from pageable memory";
  f.details =
      std::to_string(count) + " of " + std::to_string(copies) + " copies (" + bytes(total) + ", " +
      dur(time) + ", " + pct(percent(time, copyTime)) +
      " of copy time) go to or from pageable host memory: the driver stages them through a pinned "
      "buffer, and they cannot overlap with other work. Allocate the host buffers with "
      "cudaMallocHost or register them with cudaHostRegister.";
  for (size_t i = 0; i < examples.size(); ++i) f.records += (i ? "; " : "") + examples[i];
  out.push_back(std::move(f));
}

void syncCopiesInLoop(ReportData& data, std::vector<Finding>& out) {
  struct Key {
    uint8_t kind;
    uint64_t bytes;
    bool operator<(const Key& o) const {
      return kind < o.kind || (kind == o.kind && bytes < o.bytes);
    }
  };
  struct Repeat {
    uint64_t count = 0, time = 0;
    std::vector<uint32_t> ids;
  };
  std::map<Key, Repeat> repeats;  // grows with distinct (direction, size) pairs
  uint64_t syncCopies = 0;
  data.trace().store.records<MemcpyRecord>().scan([&](const MemcpyRecord& m) {
    if (m.flags & kCopyFlagAsync) return;
    ++syncCopies;
    Repeat& r = repeats[{m.copyKind, m.bytes}];
    ++r.count;
    if (hasTime(m.start, m.end)) r.time += m.end - m.start;
    if (r.ids.size() < kMaxExamples) r.ids.push_back(m.correlationId);
  });
  const Repeat* top = nullptr;
  Key topKey{};
  size_t loops = 0;
  for (const auto& [key, r] : repeats) {
    if (r.count < kSyncCopyLoopMin) continue;
    ++loops;
    if (top == nullptr || r.count > top->count) {
      top = &r;
      topKey = key;
    }
  }
  if (top == nullptr) return;
  Finding f;
  f.title = "Synchronous copies in a loop";
  f.details = std::to_string(top->count) + " synchronous " +
              copyKindName(static_cast<CopyKind>(topKey.kind)) + " copies of " +
              bytes(topKey.bytes) + " each, " + dur(top->time) + " in all";
  if (loops > 1) f.details += "; " + std::to_string(loops - 1) + " more sizes repeat too";
  f.details += " (" + std::to_string(syncCopies) +
               " synchronous copies in the trace). Each one blocks the host until the GPU has "
               "finished: batch them into fewer, larger copies, or use cudaMemcpyAsync from pinned "
               "memory on a stream.";
  f.records = correlations(top->ids);
  out.push_back(std::move(f));
}

void idleBetweenKernels(ReportData& data, std::vector<Finding>& out) {
  const Trace& trace = data.trace();
  for (const DeviceBusy& d : data.devices()) {
    if (d.kernels < kIdleMinKernels) continue;
    const uint64_t window = d.kernelLastEnd - d.kernelFirstStart;
    if (window == 0) continue;
    const uint64_t idle = window - std::min(window, d.kernelBusy);
    const double idlePct = percent(idle, window);
    if (idlePct <= kIdleBetweenKernelsPct) continue;
    // The kernels either side of the largest gap.
    const uint64_t gapStart = d.kernelGaps.largestStart, gapEnd = gapStart + d.kernelGaps.largest;
    std::string before, after;
    trace.store.records<KernelRecord>().scan([&](const KernelRecord& k) {
      if (k.deviceId != d.deviceId || !hasTime(k.start, k.end)) return;
      if (before.empty() && k.end == gapStart)
        before = "before: " + displayName(data.kernelName(k.name), 40) + " (correlation " +
                 std::to_string(k.correlationId) + ")";
      if (after.empty() && k.start == gapEnd)
        after = "after: " + displayName(data.kernelName(k.name), 40) + " (correlation " +
                std::to_string(k.correlationId) + ")";
    });
    Finding f;
    f.title = "GPU " + std::to_string(d.deviceId) + " idle " + pct(idlePct) + " between kernels";
    f.details =
        "Device " + std::to_string(d.deviceId) + " ran kernels for " + dur(d.kernelBusy) +
        " of the " + dur(window) + " from its first kernel to its last: idle " + pct(idlePct) +
        " in " + std::to_string(d.kernelGaps.count) + " gaps, the largest " +
        dur(d.kernelGaps.largest) + " at " + at(trace, gapStart) +
        ". The host does not keep the GPU fed: it waits (synchronization, copies) or prepares work "
        "between launches.";
    f.records = "largest gap " + before + (before.empty() || after.empty() ? "" : "; ") + after;
    out.push_back(std::move(f));
  }
}

void tinyKernels(ReportData& data, std::vector<Finding>& out) {
  uint64_t timed = 0, tiny = 0;
  std::vector<const Group*> tinyGroups;
  for (const Group& g : data.kernels()) {
    timed += g.time.count;
    tiny += g.tiny;
    if (g.tiny) tinyGroups.push_back(&g);
  }
  if (timed < kTinyMinKernels || percent(tiny, timed) < kTinyKernelSharePct) return;
  std::sort(tinyGroups.begin(), tinyGroups.end(), [](const Group* a, const Group* b) {
    return a->tiny > b->tiny || (a->tiny == b->tiny && a->name < b->name);
  });
  Finding f;
  f.title = "Many tiny kernels (launch-bound)";
  f.details = std::to_string(tiny) + " of " + std::to_string(timed) + " kernels (" +
              pct(percent(tiny, timed)) + ") run shorter than " + dur(kTinyKernelNs) + ".";
  for (const Group& g : data.api()) {
    if (g.name.rfind("cudaLaunchKernel", 0) == 0 || g.name.rfind("cuLaunchKernel", 0) == 0) {
      f.details += " " + g.name + " takes " + durReal(g.time.mean) + " on average (" +
                   std::to_string(g.records) + " calls).";
      break;
    }
  }
  f.details +=
      " Launching a kernel costs microseconds of host time, so the GPU waits on launches: fuse "
      "small "
      "kernels, or capture the sequence once in a CUDA graph and launch the graph.";
  for (size_t i = 0; i < tinyGroups.size() && i < kMaxExamples; ++i)
    f.records += (i ? "; " : "") + displayName(tinyGroups[i]->name, 50) + " (" +
                 std::to_string(tinyGroups[i]->tiny) + " tiny, " +
                 correlations(tinyGroups[i]->exampleIds) + ")";
  out.push_back(std::move(f));
}

void streamImbalance(ReportData& data, std::vector<Finding>& out) {
  struct Busy {
    uint64_t time = 0, records = 0;
  };
  // device -> stream -> busy: grows with the number of streams, not records.
  std::map<uint32_t, std::map<uint32_t, Busy>> devices;
  std::unordered_map<uint64_t, Busy*> cache;
  uint64_t lastKey = UINT64_MAX;
  Busy* last = nullptr;
  auto add = [&](uint32_t device, uint32_t stream, uint64_t start, uint64_t end) {
    const uint64_t key = (uint64_t(device) << 32) | stream;
    if (key != lastKey) {
      Busy*& slot = cache[key];
      if (slot == nullptr) slot = &devices[device][stream];
      lastKey = key;
      last = slot;
    }
    Busy* b = last;
    ++b->records;
    // Work on one stream runs in order, so summed durations are its busy time.
    if (hasTime(start, end)) b->time += end - start;
  };
  const auto& store = data.trace().store;
  // NCCL's kernels are communication: a rank waiting in a collective for the
  // others keeps its stream busy without computing (the Communication
  // findings speak of them).
  std::vector<int8_t> nccl;  // by kernel name: -1 not known yet
  uint64_t ncclKernels = 0;
  store.records<KernelRecord>().scan([&](const KernelRecord& k) {
    if (k.name >= nccl.size()) nccl.resize(static_cast<size_t>(k.name) + 1, -1);
    if (nccl[k.name] < 0) nccl[k.name] = isNcclKernel(data.trace().strings.get(k.name)) ? 1 : 0;
    if (nccl[k.name] == 0) add(k.deviceId, k.streamId, k.start, k.end);
    else ++ncclKernels;
  });
  store.records<MemcpyRecord>().scan(
      [&](const MemcpyRecord& m) { add(m.deviceId, m.streamId, m.start, m.end); });
  store.records<MemsetRecord>().scan(
      [&](const MemsetRecord& m) { add(m.deviceId, m.streamId, m.start, m.end); });
  for (const auto& [device, streams] : devices) {
    if (streams.size() < 2) continue;
    uint64_t total = 0;
    uint32_t topStream = 0;
    const Busy* top = nullptr;
    for (const auto& [stream, b] : streams) {
      total += b.time;
      if (top == nullptr || b.time > top->time) {
        top = &b;
        topStream = stream;
      }
    }
    if (total == 0 || percent(top->time, total) < kStreamDominantPct) continue;
    const auto named = data.trace().streamNames.find(topStream);
    const std::string label =
        "stream " + std::to_string(topStream) +
        (named != data.trace().streamNames.end() ? " ('" + named->second + "')" : "");
    Finding f;
    f.title = "One stream busy while the others sit idle";
    f.details = "On device " + std::to_string(device) + ", " + label + " carries " +
                pct(percent(top->time, total)) + " of the GPU work time (" + dur(top->time) +
                " of " + dur(total) + "); " +
                (streams.size() == 2
                     ? std::string("the other stream has")
                     : "the other " + std::to_string(streams.size() - 1) + " streams share") +
                " the rest. Work on one stream runs in order: independent work on other streams "
                "could overlap with it.";
    if (ncclKernels != 0)
      f.details += " NCCL's kernels (" + std::to_string(ncclKernels) +
                   ") are left out: their time is communication, mostly waiting for other ranks.";
    size_t shown = 0;
    for (const auto& [stream, b] : streams) {
      if (shown++ == kMaxExamples + 1) break;
      f.records += (f.records.empty() ? "" : "; ") + ("stream " + std::to_string(stream)) + ": " +
                   std::to_string(b.records) + " records, " + dur(b.time);
    }
    out.push_back(std::move(f));
  }
}

void dominantApi(ReportData& data, std::vector<Finding>& out) {
  const auto& groups = data.api();
  if (groups.size() < 2) return;
  uint64_t total = 0;
  const Group* top = nullptr;
  for (const Group& g : groups) {
    total += g.time.total;
    if (top == nullptr || g.time.total > top->time.total ||
        (g.time.total == top->time.total && g.name < top->name))
      top = &g;
  }
  if (total == 0 || percent(top->time.total, total) < kApiDominantPct) return;
  const std::string& name = top->name;
  std::string why;
  if (name.find("Synchronize") != std::string::npos || name.find("Query") != std::string::npos) {
    why =
        "The host waits for the GPU here: this is GPU time seen from the host; look at the kernels "
        "it waits for.";
  } else if (name.find("Memcpy") != std::string::npos ||
             name.find("MemcpyHtoD") != std::string::npos) {
    why =
        "Copies hold the host until they finish: see memory_time, and prefer asynchronous copies "
        "from pinned memory.";
  } else if (name.find("Malloc") != std::string::npos || name.find("Free") != std::string::npos ||
             name.find("MemAlloc") != std::string::npos ||
             name.find("MemGetInfo") != std::string::npos ||
             name.find("Create") != std::string::npos ||
             name.find("Destroy") != std::string::npos ||
             name.find("Retain") != std::string::npos || name.find("Init") != std::string::npos) {
    why =
        "Setup and teardown calls: the first CUDA call also pays for creating the context. "
        "Done once, outside the loop, this time does not grow with the work; done per iteration, "
        "allocate once and reuse.";
  } else {
    why = "One function dominates the host's time in CUDA: see api_calls for how its calls spread.";
  }
  Finding f;
  f.title = "API time dominated by " + name;
  f.details = name + " takes " + pct(percent(top->time.total, total)) +
              " of the time spent in API calls (" + dur(top->time.total) + " in " +
              std::to_string(top->records) + (top->records == 1 ? " call" : " calls") +
              ", longest " + dur(top->time.max) + "). " + why;
  f.records = "first calls: " + correlations(top->exampleIds);
  out.push_back(std::move(f));
}

void droppedRecords(ReportData& data, std::vector<Finding>& out) {
  const Trace& trace = data.trace();
  const uint64_t dropped = trace.totalDropped();
  if (dropped == 0) return;
  Finding f;
  f.title = "Records were dropped";
  f.details =
      std::to_string(dropped) +
      " records were lost while tracing; every report misses them. Raise CUPTITRACE_MAX_MEMORY or "
      "CUPTITRACE_BUFFER_MEMORY, or record fewer activity kinds.";
  for (int k = 0; k < kRecordKindCount; ++k) {
    const auto kind = static_cast<RecordKind>(k);
    if (const uint64_t n = trace.store.dropped(kind))
      f.records += (f.records.empty() ? "" : "; ") + std::string(recordKindName(kind)) + ": " +
                   std::to_string(n);
  }
  for (const auto& [name, value] : trace.counters)
    if (value && name.rfind("dropped", 0) == 0)
      f.records += (f.records.empty() ? "" : "; ") + name + ": " + std::to_string(value);
  out.push_back(std::move(f));
}

}  // namespace

ReportTable findingsReport(ReportData& data) {
  std::vector<Finding> findings;
  droppedRecords(data, findings);
  pageableCopies(data, findings);
  syncCopiesInLoop(data, findings);
  idleBetweenKernels(data, findings);
  tinyKernels(data, findings);
  streamImbalance(data, findings);
  dominantApi(data, findings);
  pytorchFindings(data, findings);
  for (auto& f : gpuMetricsFindings(data)) findings.push_back({f.title, f.details, f.records});

  ReportTable table;
  table.name = "findings";
  table.title = "Findings";
  table.style = TableStyle::List;
  table.columns = {
      {"#", "number", ColumnType::Count},
      {"Finding", "finding", ColumnType::Text},
      {"Details", "details", ColumnType::Text},
      {"Records", "records", ColumnType::Text},
  };
  for (size_t i = 0; i < findings.size(); ++i) {
    table.rows.push_back({Cell::integer(i + 1), Cell::text(std::move(findings[i].title)),
                          Cell::text(std::move(findings[i].details)),
                          Cell::text(std::move(findings[i].records))});
  }
  return table;
}

}  // namespace cuptitrace::reports
