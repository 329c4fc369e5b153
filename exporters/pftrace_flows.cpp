#include "exporters/pftrace_flows.h"

namespace cuptitrace::pftrace {

void PendingFlows::grow() {
  std::vector<Entry> old = std::move(table_);
  const size_t size = old.empty() ? 64 : 2 * old.size();
  table_.assign(size, Entry{0, 0});
  mask_ = size - 1;
  shift_ = 64;
  for (size_t n = size; n > 1; n >>= 1) --shift_;
  used_ = 0;
  for (const Entry& e : old)
    if (e.correlation != 0) add(e.correlation, e.flow);
}

}  // namespace cuptitrace::pftrace
