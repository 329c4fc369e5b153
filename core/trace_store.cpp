#include "core/trace_store.h"

namespace cuptitrace {

uint64_t TraceStore::count(RecordKind kind) const {
  switch (kind) {
    case RecordKind::Kernel: return records<KernelRecord>().size();
    case RecordKind::Memcpy: return records<MemcpyRecord>().size();
    case RecordKind::Memset: return records<MemsetRecord>().size();
    case RecordKind::Api: return records<ApiRecord>().size();
    case RecordKind::Nvtx: return records<NvtxRecord>().size();
    case RecordKind::Sync: return records<SyncRecord>().size();
    case RecordKind::Overhead: return records<OverheadRecord>().size();
    case RecordKind::Count: break;
  }
  return 0;
}

uint64_t TraceStore::totalDropped() const {
  uint64_t n = 0;
  for (auto d : dropped_) n += d;
  return n;
}

}  // namespace cuptitrace
