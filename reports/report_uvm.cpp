// uvm: unified memory per device and counter (nsys um_sum, um_total_sum and
// um_cpu_page_faults_sum in one table): migrations with their bytes and
// time, page faults, thrashing and throttling, from the uvm activity.
#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "reports/report_data.h"

namespace cuptitrace::reports {
namespace {

// What a counter's value is: bytes for migrations, thrashing and remote maps
// (as CUPTI documents), fault groups for GPU faults, a PC for CPU faults.
bool hasBytes(UvmKind k) {
  return k == UvmKind::BytesHtoD || k == UvmKind::BytesDtoH || k == UvmKind::BytesDtoD ||
         k == UvmKind::Thrashing || k == UvmKind::RemoteMap;
}
// The counters whose records span time; the others are instants (decoder.cpp).
bool hasDuration(UvmKind k) {
  return k == UvmKind::BytesHtoD || k == UvmKind::BytesDtoH || k == UvmKind::BytesDtoD ||
         k == UvmKind::GpuPageFault || k == UvmKind::Throttling;
}

struct Counter {
  uint64_t records = 0;
  std::vector<uint64_t> bytes;  // the exact median needs every value
  uint64_t time = 0;            // total duration of the records with a time
  uint64_t faultGroups = 0;     // GPU page faults
  Summary byteStats;
};

}  // namespace

ReportTable uvmReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "uvm";
  table.title = "Unified memory";
  table.columns = {
      {"Device", "device", ColumnType::Count},
      {"Counter", "counter", ColumnType::Text},
      {"Count", "count", ColumnType::Count},
      {"Total", "total_bytes", ColumnType::Bytes},
      {"Avg", "avg_bytes", ColumnType::Bytes},
      {"Med", "med_bytes", ColumnType::Bytes},
      {"Min", "min_bytes", ColumnType::Bytes},
      {"Max", "max_bytes", ColumnType::Bytes},
      {"StdDev", "stddev_bytes", ColumnType::Bytes},
      {"Time", "time", ColumnType::Duration},
      {"Fault groups", "fault_groups", ColumnType::Count},
  };
  if (trace.store.count(RecordKind::Uvm) == 0) {
    table.notes.push_back(
        "no unified memory records: record them with CUPTITRACE_ACTIVITIES=default,uvm "
        "(--activities default,uvm)");
    return table;
  }

  std::map<std::pair<uint32_t, uint8_t>, Counter> counters;  // (device, UvmKind)
  Untimed untimed;
  trace.store.records<UvmRecord>().forEach([&](const UvmRecord& r) {
    const auto kind = static_cast<UvmKind>(r.kind);
    Counter& c = counters[{r.deviceId, r.kind}];
    ++c.records;
    if (hasBytes(kind)) c.bytes.push_back(r.value);
    if (kind == UvmKind::GpuPageFault) c.faultGroups += r.value;
    if (!hasDuration(kind)) return;
    if (hasTime(r.start, r.end)) {
      c.time += r.end - r.start;
    } else {
      ++untimed.count;
      if (untimed.examples.size() < kMaxExamples)
        untimed.examples.push_back(std::string(uvmKindName(r.kind)) + " on device " +
                                   std::to_string(r.deviceId));
    }
  });

  struct Row {
    uint32_t device;
    uint8_t kind;
    Counter* counter;
  };
  std::vector<Row> rows;
  for (auto& [key, c] : counters) {
    c.byteStats = summarize(c.bytes);
    std::vector<uint64_t>().swap(c.bytes);
    rows.push_back({key.first, key.second, &c});
  }
  // By bytes, then by count (faults have no bytes), descending; then device and counter.
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::make_tuple(b.counter->byteStats.total, b.counter->records, a.device, a.kind) <
           std::make_tuple(a.counter->byteStats.total, a.counter->records, b.device, b.kind);
  });
  for (const Row& r : rows) {
    const auto kind = static_cast<UvmKind>(r.kind);
    const Counter& c = *r.counter;
    const Summary& s = c.byteStats;
    const bool bytes = hasBytes(kind) && s.count != 0;
    std::vector<Cell> row;
    row.push_back(r.device == kUvmNoDevice ? Cell::none() : Cell::integer(r.device));
    row.push_back(Cell::text(uvmKindName(r.kind)));
    row.push_back(Cell::integer(c.records));
    row.push_back(bytes ? Cell::integer(s.total) : Cell::none());
    row.push_back(bytes ? Cell::real(s.mean) : Cell::none());
    row.push_back(bytes ? Cell::real(s.median) : Cell::none());
    row.push_back(bytes ? Cell::integer(s.min) : Cell::none());
    row.push_back(bytes ? Cell::integer(s.max) : Cell::none());
    row.push_back(bytes ? Cell::real(s.stddev) : Cell::none());
    row.push_back(hasDuration(kind) ? Cell::integer(c.time) : Cell::none());
    row.push_back(kind == UvmKind::GpuPageFault ? Cell::integer(c.faultGroups) : Cell::none());
    table.rows.push_back(std::move(row));
  }
  table.notes.push_back(
      "Bytes: of migrations (HtoD, DtoH, DtoD), thrashing and remote maps; Time: the total "
      "duration of migrations, GPU page fault groups and throttling (the others are instants); "
      "CPU page faults belong to no device (-)");
  if (untimed.count) table.notes.push_back(untimedNote(untimed, "unified memory"));
  return table;
}

}  // namespace cuptitrace::reports
