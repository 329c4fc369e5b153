// The rows of the CSV tables of GPU work: kernels, copies, sets, graph
// launches, synchronization. Their argument columns come from
// record_args.h (csv_args.h); each row writes its own columns and fills the
// argument columns between them.
#include <cmath>
#include <map>
#include <memory>
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

CsvRows csvKernelRows(const Trace& trace, std::shared_ptr<const ExternalIdIndex> externalIds) {
  // The name and mangled_name fields by the name's string id: a trace
  // repeats a few names millions of times, so each is demangled, checked and
  // quoted once while it is among the last few hundred names seen. Longer
  // names than kKept are made again each time: a writer keeps 2 MiB at most.
  struct Names {
    StringId id = 0;
    bool filled = false;
    std::string fields;  // "name,mangled_name,"
  };
  static constexpr size_t kNames = 512;  // a power of two
  static constexpr size_t kKept = 4096;
  struct Shared {
    Shared(const Trace& t, std::shared_ptr<const ExternalIdIndex> ids)
        : names(new Names[kNames]), args(t, csvTableColumns(RecordKind::Kernel), std::move(ids)) {}
    DemangleCache demangler;
    std::unique_ptr<Names[]> names;
    CsvArgRow args;
  };
  auto shared = std::make_shared<Shared>(trace, std::move(externalIds));
  return [&trace, shared](CsvWriter& w, size_t first, size_t end) {
    DemangleCache& demangler = shared->demangler;
    CsvArgRow& args = shared->args;
    forEachIn(trace.store.records<KernelRecord>(), first, end, [&](const KernelRecord& k) {
      Names& names = shared->names[k.name & (kNames - 1)];
      if (!names.filled || names.id != k.name) {
        const std::string_view mangled = args.strings().get(k.name);
        names.fields = csvEscaped(demangler.get(mangled));
        names.fields += ',';
        names.fields += csvEscaped(mangled);
        names.fields += ',';
        names.id = k.name;
        names.filled = names.fields.size() <= kKept;
      }
      args.next();
      kernelArgs(k, args);
      writePlace(w, k);
      args.fill(w);  // correlation_id
      w.fields(names.fields, 2);  // name, mangled_name
      if (!names.filled) std::string().swap(names.fields);
      args.fill(w);  // grid_x ... launch_type
      w.integer(k.isDeviceLaunched);
      args.fill(
          w);  // external_id, scope, and an NCCL kernel's collective: empty for every other kernel
      w.endRow();
    });
  };
}

CsvRows csvMemcpyRows(const Trace& trace) {
  return csvArgRows<MemcpyRecord>(trace, RecordKind::Memcpy, [](CsvArgRow& args, CsvWriter& w, const MemcpyRecord& m) {
    memcpyArgs(m, args);
    writePlace(w, m);
    args.fill(w);  // correlation_id ... async
    w.integer(m.srcDeviceId);
    w.integer(m.dstDeviceId);
    args.fill(w);  // graph_id, graph_node_id
    w.endRow();
  });
}

CsvRows csvMemsetRows(const Trace& trace) {
  return csvArgRows<MemsetRecord>(trace, RecordKind::Memset, [](CsvArgRow& args, CsvWriter& w, const MemsetRecord& m) {
    memsetArgs(m, args);
    writePlace(w, m);
    args.fill(w);  // correlation_id ... graph_node_id
    w.endRow();
  });
}

CsvRows csvGraphRows(const Trace& trace) {
  return csvArgRows<GraphRecord>(trace, RecordKind::Graph, [](CsvArgRow& args, CsvWriter& w, const GraphRecord& g) {
    graphLaunchArgs(g, args);
    writePlace(w, g);
    args.fill(w);  // correlation_id, graph_id
    w.integer(g.endDeviceId);
    w.endRow();
  });
}

CsvRows csvSyncRows(const Trace& trace) {
  return csvArgRows<SyncRecord>(trace, RecordKind::Sync, [](CsvArgRow& args, CsvWriter& w, const SyncRecord& s) {
    syncArgs(s, args);
    w.text(syncTypeName(static_cast<SyncType>(s.type)));
    w.times(s.start, s.end);
    w.integer(s.contextId);
    args.fill(w);  // stream, event (empty when not applicable), correlation_id
    w.endRow();
  });
}

CsvRows csvGpuMetricRows(const Trace& trace) {
  return [&trace, shared = std::make_shared<std::map<StringId, std::vector<GpuMetric>>>()](
             CsvWriter& w, size_t first, size_t end) {
    auto& sets = *shared;
    forEachIn(trace.store.records<GpuMetricRecord>(), first, end, [&](const GpuMetricRecord& r) {
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
  };
}

}  // namespace cuptitrace
