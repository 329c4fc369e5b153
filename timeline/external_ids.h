// External ids by correlation id, for the exporters: the id a program pushed
// with the public API (include/cuptitrace/cuptitrace.h) and its innermost
// named scope, looked up by the correlation id of an API call or of the GPU
// work the call launched. Built once per export from the ExternalIdRecords;
// scope names come from the scopes' NVTX ranges (domain kScopeNvtxDomain,
// the scope id as payload). The Python line of a call is the innermost range
// of NVTX domain kPythonNvtxDomain open on its thread when it was made (the
// Python start-up hook's, --python-backtrace). A trace without external ids
// or Python lines costs nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "core/trace.h"

namespace cuptitrace {

struct ExternalIdEntry {
  uint64_t id = 0;       // the pushed id (ExternalKind::Id, or another tool's kind)
  uint64_t scopeId = 0;  // the innermost scope's id
  StringId scopeName = kNoString;
  StringId python = kNoString;  // the Python line the call was made from (--python-backtrace)
  bool hasId = false;
  bool hasScope = false;
};

class ExternalIdIndex {
 public:
  explicit ExternalIdIndex(const Trace& trace);

  bool empty() const { return keys_.empty(); }
  // What was pushed when `correlationId`'s call was made; nullptr for nothing.
  const ExternalIdEntry* find(uint32_t correlationId) const;
  // The name of scope `scopeId`; kNoString when its range is not in the trace.
  StringId scopeName(uint64_t scopeId) const;

 private:
  void addPythonLines(const Trace& trace);

  std::vector<uint32_t> keys_;           // correlation ids, sorted
  std::vector<ExternalIdEntry> entries_; // by keys_
  std::vector<std::pair<uint64_t, StringId>> scopeNames_;  // sorted by scope id
};

// "id", "scope", "openacc", "custom2", "unknown".
const char* externalKindName(uint8_t kind);

}  // namespace cuptitrace
