#include "timeline/external_ids.h"

#include <algorithm>
#include <string_view>

#include "timeline/thread_ranges.h"

namespace cuptitrace {

const char* externalKindName(uint8_t kind) {
  switch (static_cast<ExternalKind>(kind)) {
    case ExternalKind::Id: return "id";
    case ExternalKind::Scope: return "scope";
    case ExternalKind::OpenAcc: return "openacc";
    case ExternalKind::Custom2: return "custom2";
    case ExternalKind::Invalid:
    case ExternalKind::Unknown: break;
  }
  return "unknown";
}

ExternalIdIndex::ExternalIdIndex(const Trace& trace) {
  const auto& records = trace.store.records<ExternalIdRecord>();
  if (records.empty()) {
    addPythonLines(trace);
    return;
  }

  // Scope names: the scopes' NVTX ranges, the id in their payload.
  bool anyScope = false;
  records.forEach([&](const ExternalIdRecord& r) {
    anyScope = anyScope || r.externalKind == static_cast<uint8_t>(ExternalKind::Scope);
  });
  if (anyScope) {
    std::vector<int8_t> isScopeDomain;  // by domain string id: 0 not asked, 1 yes, -1 no
    trace.store.records<NvtxRecord>().forEach([&](const NvtxRecord& r) {
      if (r.payloadType != static_cast<uint8_t>(NvtxPayload::U64) || r.domain == kNoString) return;
      if (r.domain >= isScopeDomain.size()) isScopeDomain.resize(r.domain + 1, 0);
      int8_t& verdict = isScopeDomain[r.domain];
      if (verdict == 0) verdict = trace.strings.get(r.domain) == std::string_view(kScopeNvtxDomain) ? 1 : -1;
      if (verdict == 1) scopeNames_.emplace_back(r.payload, r.message);
    });
    std::sort(scopeNames_.begin(), scopeNames_.end());
  }

  std::vector<std::pair<uint32_t, const ExternalIdRecord*>> byCorrelation;
  byCorrelation.reserve(records.size());
  records.forEach([&](const ExternalIdRecord& r) { byCorrelation.emplace_back(r.correlationId, &r); });
  std::stable_sort(byCorrelation.begin(), byCorrelation.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [correlation, r] : byCorrelation) {
    // OpenACC's ids tie its events to their CUDA calls (openacc_flows.h): not the program's ids.
    if (r->externalKind == static_cast<uint8_t>(ExternalKind::OpenAcc)) continue;
    if (keys_.empty() || keys_.back() != correlation) {
      keys_.push_back(correlation);
      entries_.emplace_back();
    }
    ExternalIdEntry& e = entries_.back();
    if (r->externalKind == static_cast<uint8_t>(ExternalKind::Scope)) {
      e.hasScope = true;
      e.scopeId = r->externalId;
      e.scopeName = scopeName(r->externalId);
    } else if (!e.hasId || r->externalKind == static_cast<uint8_t>(ExternalKind::Id)) {
      // The public API's own kind wins over another tool's.
      e.hasId = true;
      e.id = r->externalId;
    }
  }
  addPythonLines(trace);
}

void ExternalIdIndex::addPythonLines(const Trace& trace) {
  std::vector<int8_t> isPython;  // by domain string id: 0 not asked, 1 yes, -1 no
  const ThreadRanges lines = ThreadRanges::build(trace, [&](const NvtxRecord& r) {
    if (r.domain == kNoString) return false;
    if (r.domain >= isPython.size()) isPython.resize(static_cast<size_t>(r.domain) + 1, 0);
    int8_t& verdict = isPython[r.domain];
    if (verdict == 0) verdict = trace.strings.get(r.domain) == std::string_view(kPythonNvtxDomain) ? 1 : -1;
    return verdict == 1;
  });
  if (lines.empty()) return;
  std::vector<std::pair<uint32_t, StringId>> found;
  trace.store.records<ApiRecord>().scan([&](const ApiRecord& a) {
    if (a.domain == static_cast<uint8_t>(ApiDomain::Osrt)) return;
    const uint32_t i = lines.innermost(a.threadId, a.start);
    if (i != kNoRange) found.emplace_back(a.correlationId, lines.ranges()[i].message);
  });
  if (found.empty()) return;
  std::sort(found.begin(), found.end());
  // Merged into the entries by correlation id (both sorted).
  std::vector<uint32_t> keys;
  std::vector<ExternalIdEntry> entries;
  keys.reserve(keys_.size() + found.size());
  entries.reserve(keys_.size() + found.size());
  size_t a = 0, b = 0;
  while (a < keys_.size() || b < found.size()) {
    const bool takeOld = b == found.size() || (a < keys_.size() && keys_[a] <= found[b].first);
    const uint32_t key = takeOld ? keys_[a] : found[b].first;
    ExternalIdEntry e = takeOld ? entries_[a] : ExternalIdEntry{};
    if (takeOld) ++a;
    while (b < found.size() && found[b].first == key) e.python = found[b++].second;
    keys.push_back(key);
    entries.push_back(e);
  }
  keys_ = std::move(keys);
  entries_ = std::move(entries);
}

const ExternalIdEntry* ExternalIdIndex::find(uint32_t correlationId) const {
  if (keys_.empty()) return nullptr;
  const auto it = std::lower_bound(keys_.begin(), keys_.end(), correlationId);
  if (it == keys_.end() || *it != correlationId) return nullptr;
  return &entries_[static_cast<size_t>(it - keys_.begin())];
}

StringId ExternalIdIndex::scopeName(uint64_t scopeId) const {
  const auto it = std::lower_bound(scopeNames_.begin(), scopeNames_.end(), std::make_pair(scopeId, StringId{0}));
  return it != scopeNames_.end() && it->first == scopeId ? it->second : kNoString;
}

}  // namespace cuptitrace
