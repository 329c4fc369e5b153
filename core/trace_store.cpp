#include "core/trace_store.h"

namespace cuptitrace {

uint64_t TraceStore::count(RecordKind kind) const {
  uint64_t n = 0;
  visitRecordKind(kind, [&](auto tag) { n = records<typename decltype(tag)::type>().size(); });
  return n;
}

uint64_t TraceStore::totalDropped() const {
  uint64_t n = 0;
  for (auto d : dropped_) n += d;
  return n;
}

}  // namespace cuptitrace
