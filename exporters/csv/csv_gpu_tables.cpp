// The rows of the CSV tables of GPU work: kernels, copies, sets, graph
// launches, synchronization. Their argument columns come from
// record_args.h (csv_args.h); each row writes its own columns and fills the
// argument columns between them.
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/gpu_metrics.h"
#include "core/demangle.h"
#include "exporters/csv/csv_args.h"
#include "exporters/csv/csv_columns.h"
#include "exporters/csv/csv_tables.h"
#include "timeline/record_args.h"

namespace cuptitrace {
namespace {

// start_ns, end_ns, duration_ns, device, context, stream: where GPU work ran.
template <typename Record>
void writePlace(CsvWriter& w, const Record& r) {
  w.times(r.start, r.end);
  w.integer(r.deviceId);
  w.integer(r.contextId);
  w.integer(r.streamId);
}

}  // namespace

void writeCsvKernels(const Trace& trace, CsvWriter& w) {
  // Demangled names by string id: a trace repeats a few names millions of
  // times, so each is looked up once.
  DemangleCache demangler;
  std::vector<const std::string*> demangled(trace.strings.size(), nullptr);
  CsvArgRow args(trace, csvTableColumns(RecordKind::Kernel));
  trace.store.records<KernelRecord>().forEach([&](const KernelRecord& k) {
    const std::string_view mangled = trace.strings.get(k.name);
    const std::string* name = k.name < demangled.size() ? demangled[k.name] : nullptr;
    if (name == nullptr) {
      name = &demangler.get(mangled);
      if (k.name < demangled.size()) demangled[k.name] = name;
    }
    args.next();
    kernelArgs(k, args);
    writePlace(w, k);
    args.fill(w);  // correlation_id
    w.text(*name);
    w.text(mangled);
    args.fill(w);  // grid_x ... launch_type
    w.integer(k.isDeviceLaunched);
    args.fill(
        w);  // external_id, scope, and an NCCL kernel's collective: empty for every other kernel
    w.endRow();
  });
}

void writeCsvMemcpy(const Trace& trace, CsvWriter& w) {
  CsvArgRow args(trace, csvTableColumns(RecordKind::Memcpy));
  trace.store.records<MemcpyRecord>().forEach([&](const MemcpyRecord& m) {
    args.next();
    memcpyArgs(m, args);
    writePlace(w, m);
    args.fill(w);  // correlation_id ... async
    w.integer(m.srcDeviceId);
    w.integer(m.dstDeviceId);
    args.fill(w);  // graph_id, graph_node_id
    w.endRow();
  });
}

void writeCsvMemset(const Trace& trace, CsvWriter& w) {
  CsvArgRow args(trace, csvTableColumns(RecordKind::Memset));
  trace.store.records<MemsetRecord>().forEach([&](const MemsetRecord& m) {
    args.next();
    memsetArgs(m, args);
    writePlace(w, m);
    args.fill(w);  // correlation_id ... graph_node_id
    w.endRow();
  });
}

void writeCsvGraphs(const Trace& trace, CsvWriter& w) {
  CsvArgRow args(trace, csvTableColumns(RecordKind::Graph));
  trace.store.records<GraphRecord>().forEach([&](const GraphRecord& g) {
    args.next();
    graphLaunchArgs(g, args);
    writePlace(w, g);
    args.fill(w);  // correlation_id, graph_id
    w.integer(g.endDeviceId);
    w.endRow();
  });
}

void writeCsvSync(const Trace& trace, CsvWriter& w) {
  CsvArgRow args(trace, csvTableColumns(RecordKind::Sync));
  trace.store.records<SyncRecord>().forEach([&](const SyncRecord& s) {
    args.next();
    syncArgs(s, args);
    w.text(syncTypeName(static_cast<SyncType>(s.type)));
    w.times(s.start, s.end);
    w.integer(s.contextId);
    args.fill(w);  // stream, event (empty when not applicable), correlation_id
    w.endRow();
  });
}

void writeCsvGpuMetrics(const Trace& trace, CsvWriter& w) {
  std::map<StringId, std::vector<GpuMetric>> sets;
  trace.store.records<GpuMetricRecord>().forEach([&](const GpuMetricRecord& r) {
    auto it = sets.find(r.metricSet);
    if (it == sets.end()) it = sets.emplace(r.metricSet, decodeGpuMetricSet(trace.strings.get(r.metricSet))).first;
    const std::vector<GpuMetric>& metrics = it->second;
    for (size_t i = 0; i < metrics.size() && i < static_cast<size_t>(kGpuMetricSlots); ++i) {
      w.integer(r.start);
      w.integer(r.end);
      w.integer(r.deviceId);
      w.text(metrics[i].name);
      w.text(metrics[i].displayName());
      if (std::isnan(r.values[i])) w.text("");
      else w.number(static_cast<double>(r.values[i]));
      w.endRow();
    }
  });
}

}  // namespace cuptitrace
