#include "timeline/openacc_nesting.h"

#include <algorithm>
#include <string_view>

namespace cuptitrace {
namespace {

bool timed(const OpenAccRecord& r) { return r.end != 0 && r.end >= r.start; }

}  // namespace

std::vector<OpenAccNesting> nestOpenAcc(const std::vector<OpenAccRecord>& records) {
  std::vector<OpenAccNesting> out(records.size());
  for (size_t i = 0; i < records.size(); ++i)
    if (timed(records[i])) out[i].exclusiveNs = records[i].end - records[i].start;
  // By thread, then start, the longer first: a parent comes before what it holds.
  std::vector<uint32_t> order;
  order.reserve(records.size());
  for (uint32_t i = 0; i < records.size(); ++i)
    if (timed(records[i])) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const OpenAccRecord& x = records[a];
    const OpenAccRecord& y = records[b];
    if (x.cuProcessId != y.cuProcessId) return x.cuProcessId < y.cuProcessId;
    if (x.cuThreadId != y.cuThreadId) return x.cuThreadId < y.cuThreadId;
    if (x.start != y.start) return x.start < y.start;
    if (x.end != y.end) return x.end > y.end;
    return a < b;
  });
  std::vector<uint32_t> stack;
  for (size_t k = 0; k < order.size(); ++k) {
    const uint32_t i = order[k];
    const OpenAccRecord& r = records[i];
    if (k > 0) {
      const OpenAccRecord& prev = records[order[k - 1]];
      if (prev.cuProcessId != r.cuProcessId || prev.cuThreadId != r.cuThreadId) stack.clear();
    }
    // Events that ended before this one starts, or that do not hold all of it, are done.
    while (!stack.empty() && records[stack.back()].end < r.end) stack.pop_back();
    if (!stack.empty()) {
      const uint32_t p = stack.back();
      out[i].parent = p;
      out[i].depth = static_cast<uint16_t>(std::min<uint32_t>(out[p].depth + 1u, 0xffffu));
      const uint64_t own = r.end - r.start;
      out[p].exclusiveNs = out[p].exclusiveNs > own ? out[p].exclusiveNs - own : 0;
    }
    stack.push_back(i);
  }
  return out;
}

std::vector<OpenAccNesting> nestOpenAcc(const Trace& trace) {
  const auto& stored = trace.store.records<OpenAccRecord>();
  std::vector<OpenAccRecord> records;
  records.reserve(stored.size());
  stored.forEach([&](const OpenAccRecord& r) { records.push_back(r); });
  return nestOpenAcc(records);
}

std::string openAccEventLabel(const OpenAccRecord& r, const StringTable& strings) {
  std::string label = openAccEventName(r.eventKind);
  const std::string_view file = strings.get(r.srcFile);
  if (!file.empty()) {
    const size_t slash = file.rfind('/');
    label += '@';
    label += slash == std::string_view::npos ? file : file.substr(slash + 1);
    if (r.lineNo != 0) label += ':' + std::to_string(r.lineNo);
  }
  const std::string_view var = strings.get(r.varName);
  const std::string_view kernel = strings.get(r.kernelName);
  if (!var.empty()) {
    label += " (";
    label += var;
    label += ')';
  } else if (!kernel.empty()) {
    label += " (";
    label += kernel;
    label += ')';
  }
  return label;
}

}  // namespace cuptitrace
