// gpu_memory: per device and memory kind, allocations, frees, the peak of the
// bytes allocated at once and what was still allocated when the trace ended.
// allocations: the largest allocations. leaks: the allocations never freed.
// All three from the memory records (CUPTITRACE_ACTIVITIES=memory), frees
// matched to allocations by address (memory_tracks.h).
#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "timeline/memory_usage.h"
#include "reports/report_data.h"
#include "timeline/track_layout.h"

namespace cuptitrace::reports {
namespace {

// Rows of `allocations` and `leaks`: enough to find the culprits, few
// enough for the reports file of a program that allocates millions of times.
constexpr size_t kMaxAllocationRows = 20;
constexpr size_t kMaxLeakRows = 50;

constexpr MemoryKind kKindOrder[] = {MemoryKind::Device,        MemoryKind::Managed,
                                     MemoryKind::Pinned,        MemoryKind::Pageable,
                                     MemoryKind::Array,         MemoryKind::DeviceStatic,
                                     MemoryKind::ManagedStatic, MemoryKind::Unknown};

std::string hex(uint64_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kHex[v & 0xf]);
    v >>= 4;
  } while (v != 0);
  return "0x" + s;
}

// The name of the API call of each correlation id asked for: the runtime
// call when the driver call it made shares the id.
std::unordered_map<uint32_t, std::string> callNames(const Trace& trace,
                                                    const std::vector<uint32_t>& correlations) {
  std::unordered_map<uint32_t, std::string> names;
  std::unordered_map<uint32_t, bool> wanted;
  for (const uint32_t c : correlations) wanted[c] = false;
  trace.store.records<ApiRecord>().scan([&](const ApiRecord& a) {
    auto it = wanted.find(a.correlationId);
    if (it == wanted.end()) return;
    const bool runtime = a.domain == static_cast<uint8_t>(ApiDomain::Runtime);
    if (names.count(a.correlationId) != 0 && (it->second || !runtime)) return;
    names[a.correlationId] = std::string(trace.strings.get(a.name));
    it->second = runtime;
  });
  return names;
}

const char* noMemoryNote() {
  return "no memory records: record them with CUPTITRACE_ACTIVITIES=default,memory "
         "(--activities default,memory)";
}

void usageNotes(const MemoryUsage& usage, ReportTable& table) {
  if (usage.unmatchedFrees)
    table.notes.push_back(std::to_string(usage.unmatchedFrees) +
                          " frees of memory allocated before the trace started (or outside its "
                          "capture windows) change nothing here");
  if (usage.reusedAddresses)
    table.notes.push_back(std::to_string(usage.reusedAddresses) +
                          " allocations reused an address whose free was not recorded: the "
                          "earlier allocation is taken as freed then");
  if (usage.undated)
    table.notes.push_back(std::to_string(usage.undated) + " memory records without a timestamp are left out");
}

// The allocation records of `indices` as rows: size, where, when, by which call.
void allocationRows(const Trace& trace, const std::vector<uint32_t>& indices, uint64_t base,
                    const std::unordered_map<uint32_t, uint64_t>* freedAt, ReportTable& table) {
  const auto& records = trace.store.records<MemoryRecord>();
  std::vector<uint32_t> correlations;
  for (const uint32_t i : indices) correlations.push_back(records[i].correlationId);
  const auto names = callNames(trace, correlations);
  size_t rank = 0;
  for (const uint32_t i : indices) {
    const MemoryRecord& r = records[i];
    std::vector<Cell> row;
    row.push_back(Cell::integer(++rank));
    row.push_back(Cell::integer(r.bytes));
    row.push_back(Cell::integer(r.deviceId));
    row.push_back(Cell::text(memoryKindName(static_cast<MemoryKind>(r.memoryKind))));
    row.push_back(Cell::text(hex(r.address)));
    row.push_back(Cell::integer(r.timestamp >= base ? r.timestamp - base : 0));
    if (freedAt != nullptr) {
      const auto it = freedAt->find(i);
      row.push_back(it == freedAt->end() ? Cell::none() : Cell::integer(it->second - r.timestamp));
    }
    const auto name = names.find(r.correlationId);
    row.push_back(Cell::text(name == names.end() ? std::string() : name->second));
    row.push_back(Cell::integer(r.correlationId));
    row.push_back(Cell::text(r.poolType != static_cast<uint8_t>(PoolType::None) ? hex(r.poolAddress) : ""));
    table.rows.push_back(std::move(row));
  }
}

std::vector<Column> allocationColumns(bool withLifetime) {
  std::vector<Column> c = {
      {"#", "rank", ColumnType::Count},
      {"Bytes", "bytes", ColumnType::Bytes},
      {"Device", "device", ColumnType::Count},
      {"Kind", "memory_kind", ColumnType::Text},
      {"Address", "address", ColumnType::Text},
      {"At", "at", ColumnType::Duration},
  };
  if (withLifetime) c.push_back({"Lifetime", "lifetime", ColumnType::Duration});
  c.push_back({"Call", "call", ColumnType::Name});
  c.push_back({"Correlation", "correlation", ColumnType::Count});
  c.push_back({"Pool", "pool", ColumnType::Text});
  return c;
}

}  // namespace

ReportTable gpuMemoryReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "gpu_memory";
  table.title = "GPU memory";
  table.columns = {
      {"Device", "device", ColumnType::Count},
      {"Kind", "memory_kind", ColumnType::Text},
      {"Allocations", "allocations", ColumnType::Count},
      {"Frees", "frees", ColumnType::Count},
      {"Allocated", "allocated_bytes", ColumnType::Bytes},
      {"Peak", "peak_bytes", ColumnType::Bytes},
      {"Peak at", "peak_at", ColumnType::Duration},
      {"Live at end", "live_at_end", ColumnType::Count},
      {"Live bytes", "live_bytes", ColumnType::Bytes},
  };
  if (trace.store.count(RecordKind::Memory) == 0) {
    table.notes.push_back(noMemoryNote());
    return table;
  }
  const MemoryUsage usage = memoryUsage(trace);
  const uint64_t base = scanTimeline(trace).base;
  auto row = [&](uint32_t device, const char* kind, const MemoryKindUsage& u) {
    table.rows.push_back({
        Cell::integer(device),
        Cell::text(kind),
        Cell::integer(u.allocations),
        Cell::integer(u.frees),
        Cell::integer(u.allocatedBytes),
        Cell::integer(u.peakBytes),
        u.allocations != 0 ? Cell::integer(u.peakTs >= base ? u.peakTs - base : 0) : Cell::none(),
        Cell::integer(u.liveCount),
        Cell::integer(u.liveBytes),
    });
  };
  for (const DeviceMemoryUsage& d : usage.devices) {
    row(d.device, "All", d.all);
    for (const MemoryKind k : kKindOrder) {
      const MemoryKindUsage& u = d.byKind[static_cast<size_t>(k)];
      if (u.allocations != 0) row(d.device, memoryKindName(k), u);
    }
  }
  table.notes.push_back(
      "Peak: the most bytes allocated and not yet freed at once (frees matched to allocations by "
      "address), first reached at Peak at (from the start of the trace); Live at end: never freed "
      "while the trace ran (static memory, DeviceStatic and ManagedStatic, is CUDA's own: never a "
      "leak, see leaks)");
  usageNotes(usage, table);
  return table;
}

ReportTable allocationsReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "allocations";
  table.title = "Largest allocations";
  table.columns = allocationColumns(true);
  if (trace.store.count(RecordKind::Memory) == 0) {
    table.notes.push_back(noMemoryNote());
    return table;
  }
  const auto& records = trace.store.records<MemoryRecord>();
  std::vector<uint32_t> allocations;
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].operation == static_cast<uint8_t>(MemoryOp::Allocation) && records[i].timestamp != 0)
      allocations.push_back(static_cast<uint32_t>(i));
  const size_t shown = std::min(kMaxAllocationRows, allocations.size());
  std::partial_sort(allocations.begin(), allocations.begin() + static_cast<std::ptrdiff_t>(shown),
                    allocations.end(), [&](uint32_t a, uint32_t b) {
                      const MemoryRecord& x = records[a];
                      const MemoryRecord& y = records[b];
                      return std::make_tuple(y.bytes, x.timestamp, a) < std::make_tuple(x.bytes, y.timestamp, b);
                    });
  allocations.resize(shown);

  // When each shown allocation was freed: the first free of its address after it.
  std::unordered_map<uint32_t, uint64_t> freedAt;
  for (const uint32_t i : allocations) {
    const MemoryRecord& a = records[i];
    uint64_t first = UINT64_MAX;
    // Another allocation at the address in between would have taken the free.
    uint64_t reallocated = UINT64_MAX;
    records.forEach([&](const MemoryRecord& r) {
      if (r.address != a.address || r.timestamp < a.timestamp || &r == &a) return;
      if (r.operation == static_cast<uint8_t>(MemoryOp::Release))
        first = std::min(first, r.timestamp);
      else
        reallocated = std::min(reallocated, r.timestamp);
    });
    if (first != UINT64_MAX && first <= reallocated) freedAt[i] = first;
  }
  allocationRows(trace, allocations, scanTimeline(trace).base, &freedAt, table);
  table.notes.push_back("The " + std::to_string(shown) + " largest of " +
                        std::to_string(trace.store.count(RecordKind::Memory)) +
                        " memory records; At: from the start of the trace; Lifetime: until freed, "
                        "empty when never freed");
  return table;
}

ReportTable leaksReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "leaks";
  table.title = "Allocations never freed";
  table.columns = allocationColumns(false);
  if (trace.store.count(RecordKind::Memory) == 0) {
    table.notes.push_back(noMemoryNote());
    return table;
  }
  const MemoryUsage usage = memoryUsage(trace);
  const auto& records = trace.store.records<MemoryRecord>();
  std::vector<uint32_t> leaks;
  uint64_t bytes = 0, statics = 0;
  for (const uint32_t i : usage.live) {
    if (isStaticMemory(records[i].memoryKind)) {
      ++statics;
      continue;
    }
    leaks.push_back(i);
    bytes += records[i].bytes;
  }
  const size_t total = leaks.size();
  if (leaks.size() > kMaxLeakRows) leaks.resize(kMaxLeakRows);
  allocationRows(trace, leaks, scanTimeline(trace).base, nullptr, table);
  if (total != 0)
    table.notes.push_back(std::to_string(total) + (total == 1 ? " allocation" : " allocations") + " of " +
                          formatBytes(static_cast<double>(bytes)) + " in all never freed while the trace ran" +
                          (total > leaks.size() ? " (the " + std::to_string(leaks.size()) + " largest shown)" : ""));
  if (statics)
    table.notes.push_back(std::to_string(statics) +
                          " static allocations (__device__ and __managed__ variables) are left out: "
                          "CUDA frees them when the module unloads");
  usageNotes(usage, table);
  return table;
}

}  // namespace cuptitrace::reports
