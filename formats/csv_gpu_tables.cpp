// The rows of the CSV tables of GPU work: kernels, copies, sets, graph
// launches, synchronization.
#include <string>
#include <string_view>
#include <vector>

#include "core/demangle.h"
#include "formats/csv_tables.h"
#include "timeline/external_ids.h"
#include "timeline/nccl_names.h"

namespace cuptitrace {

void writeCsvKernels(const Trace& trace, CsvWriter& w) {
  // Demangled names by string id: a trace repeats a few names millions of
  // times, so each is looked up once.
  DemangleCache demangler;
  std::vector<const std::string*> demangled(trace.strings.size(), nullptr);
  const ExternalIdIndex externalIds(trace);
  NcclNames nccl(trace);
  trace.store.records<KernelRecord>().forEach([&](const KernelRecord& k) {
    const std::string_view mangled = trace.strings.get(k.name);
    const std::string* name = k.name < demangled.size() ? demangled[k.name] : nullptr;
    if (name == nullptr) {
      name = &demangler.get(mangled);
      if (k.name < demangled.size()) demangled[k.name] = name;
    }
    w.times(k.start, k.end);
    w.integer(k.deviceId);
    w.integer(k.contextId);
    w.integer(k.streamId);
    w.integer(k.correlationId);
    w.text(*name);
    w.text(mangled);
    w.integer(k.gridX);
    w.integer(k.gridY);
    w.integer(k.gridZ);
    w.integer(k.blockX);
    w.integer(k.blockY);
    w.integer(k.blockZ);
    w.integer(k.registersPerThread);
    w.integer(k.staticSharedMemory);
    w.integer(k.dynamicSharedMemory);
    w.integer(k.graphId);
    w.integer(k.graphNodeId);
    w.text(launchTypeName(k.launchType));
    w.integer(k.isDeviceLaunched);
    const ExternalIdEntry* e = externalIds.find(k.correlationId);
    if (e != nullptr && e->hasId) w.integer(e->id); else w.empty();
    w.text(e != nullptr && e->hasScope ? trace.strings.get(e->scopeName) : std::string_view());
    // NCCL's kernels: the collective their name says; empty for every other kernel.
    const NcclKernelInfo* c = nccl.find(k.name);
    for (const std::string* part : {c ? &c->collective : nullptr, c ? &c->op : nullptr, c ? &c->dtype : nullptr,
                                    c ? &c->algo : nullptr, c ? &c->proto : nullptr})
      w.text(part != nullptr ? std::string_view(*part) : std::string_view());
    w.endRow();
  });
}

void writeCsvMemcpy(const Trace& trace, CsvWriter& w) {
  trace.store.records<MemcpyRecord>().forEach([&](const MemcpyRecord& m) {
    w.times(m.start, m.end);
    w.integer(m.deviceId);
    w.integer(m.contextId);
    w.integer(m.streamId);
    w.integer(m.correlationId);
    w.integer(m.bytes);
    w.text(copyKindName(static_cast<CopyKind>(m.copyKind)));
    w.text(memoryKindName(static_cast<MemoryKind>(m.srcKind)));
    w.text(memoryKindName(static_cast<MemoryKind>(m.dstKind)));
    w.integer((m.flags & kCopyFlagAsync) ? 1 : 0);
    w.integer(m.srcDeviceId);
    w.integer(m.dstDeviceId);
    w.integer(m.graphId);
    w.integer(m.graphNodeId);
    w.endRow();
  });
}

void writeCsvMemset(const Trace& trace, CsvWriter& w) {
  trace.store.records<MemsetRecord>().forEach([&](const MemsetRecord& m) {
    w.times(m.start, m.end);
    w.integer(m.deviceId);
    w.integer(m.contextId);
    w.integer(m.streamId);
    w.integer(m.correlationId);
    w.integer(m.bytes);
    w.integer(m.value);
    w.text(memoryKindName(static_cast<MemoryKind>(m.memoryKind)));
    w.integer((m.flags & kCopyFlagAsync) ? 1 : 0);
    w.integer(m.graphId);
    w.integer(m.graphNodeId);
    w.endRow();
  });
}

void writeCsvGraphs(const Trace& trace, CsvWriter& w) {
  trace.store.records<GraphRecord>().forEach([&](const GraphRecord& g) {
    w.times(g.start, g.end);
    w.integer(g.deviceId);
    w.integer(g.contextId);
    w.integer(g.streamId);
    w.integer(g.correlationId);
    w.integer(g.graphId);
    w.integer(g.endDeviceId);
    w.endRow();
  });
}

void writeCsvSync(const Trace& trace, CsvWriter& w) {
  trace.store.records<SyncRecord>().forEach([&](const SyncRecord& s) {
    w.text(syncTypeName(static_cast<SyncType>(s.type)));
    w.times(s.start, s.end);
    w.integer(s.contextId);
    w.optionalId(s.streamId);
    w.optionalId(s.eventId);
    w.integer(s.correlationId);
    w.endRow();
  });
}

}  // namespace cuptitrace
