// The rows of the CSV tables of memory: allocations and frees, memory
// pools, unified memory.
#include "exporters/csv/csv_tables.h"

namespace cuptitrace {

CsvRows csvMemoryRows(const Trace& trace) {
  return csvRowsOf<MemoryRecord>(trace, [](CsvWriter& w, const MemoryRecord& m) {
    w.integer(m.timestamp);
    w.text(memoryOpName(m.operation));
    w.integer(m.deviceId);
    w.optionalId(m.contextId);
    w.optionalId(m.streamId);
    w.integer(m.correlationId);
    writeAddress(w, m.address);
    w.integer(m.bytes);
    w.text(memoryKindName(static_cast<MemoryKind>(m.memoryKind)));
    w.integer(m.isAsync);
    w.text(poolTypeName(m.poolType));
    writeAddress(w, m.poolAddress);
    w.endRow();
  });
}

CsvRows csvMemoryPoolRows(const Trace& trace) {
  return csvRowsOf<MemoryPoolRecord>(trace, [](CsvWriter& w, const MemoryPoolRecord& p) {
    w.integer(p.timestamp);
    w.text(poolOpName(p.operation));
    w.integer(p.deviceId);
    w.integer(p.correlationId);
    writeAddress(w, p.address);
    w.text(poolTypeName(p.poolType));
    w.integer(p.isManaged);
    w.integer(p.size);
    w.integer(p.utilizedSize);
    w.integer(p.releaseThreshold);
    // Only a trim keeps a minimum.
    if (p.operation == static_cast<uint8_t>(PoolOp::Trimmed))
      w.integer(p.minBytesToKeep);
    else
      w.empty();
    w.endRow();
  });
}

CsvRows csvUvmRows(const Trace& trace) {
  return csvRowsOf<UvmRecord>(trace, [](CsvWriter& w, const UvmRecord& u) {
    const auto kind = static_cast<UvmKind>(u.kind);
    const bool transfer =
        kind == UvmKind::BytesHtoD || kind == UvmKind::BytesDtoH || kind == UvmKind::BytesDtoD;
    const bool sized = transfer || kind == UvmKind::Thrashing || kind == UvmKind::RemoteMap;
    w.text(uvmKindName(u.kind));
    w.times(u.start, u.end);
    w.optionalId(u.deviceId);
    // CUPTI gives no source for a CPU fault, and no destination for faults.
    if (kind == UvmKind::CpuPageFault) w.empty(); else w.integer(u.srcId);
    if (kind == UvmKind::CpuPageFault || kind == UvmKind::GpuPageFault) w.empty(); else w.integer(u.dstId);
    writeAddress(w, u.address);
    if (sized) w.integer(u.value); else w.empty();
    if (kind == UvmKind::GpuPageFault) w.integer(u.value); else w.empty();
    if (kind == UvmKind::CpuPageFault) writeAddress(w, u.value); else w.empty();
    w.text(transfer ? uvmCauseName(u.cause) : "");
    w.text(kind == UvmKind::GpuPageFault ? uvmAccessName(u.accessType) : "");
    w.endRow();
  });
}

}  // namespace cuptitrace
