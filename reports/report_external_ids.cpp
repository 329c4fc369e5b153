// external_ids: GPU work and API calls per external id and per named scope
// (include/cuptitrace/cuptitrace.h), like the PyTorch profiler's time per
// operation. Each kernel, copy and set counts for the id and the scope in
// force when the call that launched it was made: the innermost of each, as
// timeline/external_ids.h resolves them by correlation id.
#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "timeline/external_ids.h"
#include "reports/report_data.h"

namespace cuptitrace::reports {
namespace {

struct Attributed {
  uint64_t kernels = 0, memcpys = 0, memsets = 0;
  uint64_t gpuTimed = 0;  // GPU records with a time
  uint64_t gpuTime = 0;
  uint64_t apiCalls = 0;
  uint64_t apiTime = 0;
};

enum class RowKind : uint8_t { Id = 0, Scope = 1 };

struct Row {
  RowKind kind;
  uint64_t id;  // external ids: the id, for ordering
  std::string name;
  const Attributed* a;
};

}  // namespace

ReportTable externalIdsReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "external_ids";
  table.title = "GPU time per external id and scope";
  table.columns = {
      {"GPU(%)", "gpu_pct", ColumnType::Percent},
      {"GPU total", "gpu_total", ColumnType::Duration},
      {"GPU avg", "gpu_avg", ColumnType::Duration},
      {"Kernels", "kernels", ColumnType::Count},
      {"Memcpy", "memcpy", ColumnType::Count},
      {"Memset", "memset", ColumnType::Count},
      {"API calls", "api_calls", ColumnType::Count},
      {"API total", "api_total", ColumnType::Duration},
      {"Kind", "kind", ColumnType::Text},
      {"Name", "name", ColumnType::Name},
  };
  // OpenACC's ids tie its events to their CUDA calls (the openacc report): not the program's.
  bool programIds = false;
  trace.store.records<ExternalIdRecord>().forEach([&](const ExternalIdRecord& r) {
    programIds = programIds || r.externalKind != static_cast<uint8_t>(ExternalKind::OpenAcc);
  });
  if (!programIds) {
    table.notes.push_back(
        "no external ids: push them with cuptitrace_push_external_id or cuptitrace_push_scope "
        "(include/cuptitrace/cuptitrace.h)");
    return table;
  }
  const ExternalIdIndex index(trace);
  std::map<uint64_t, Attributed> ids;
  // Scopes by name; a scope whose range is not in the trace by its id (name kNoString).
  std::map<std::pair<StringId, uint64_t>, Attributed> scopes;
  auto scopeOf = [&](const ExternalIdEntry& e) -> Attributed& {
    return scopes[e.scopeName != kNoString ? std::make_pair(e.scopeName, uint64_t{0})
                                           : std::make_pair(kNoString, e.scopeId)];
  };

  uint64_t gpuRecords = 0, gpuTotal = 0, withoutId = 0, withoutScope = 0;
  Untimed untimed;
  auto gpu = [&](const auto& r, uint64_t Attributed::*count, const char* what) {
    ++gpuRecords;
    const bool timed = hasTime(r.start, r.end);
    if (timed) gpuTotal += r.end - r.start;
    const ExternalIdEntry* e = index.find(r.correlationId);
    const bool hasId = e != nullptr && e->hasId;
    const bool hasScope = e != nullptr && e->hasScope;
    withoutId += !hasId;
    withoutScope += !hasScope;
    if (!hasId && !hasScope) return;
    if (!timed) {
      ++untimed.count;
      if (untimed.examples.size() < kMaxExamples)
        untimed.examples.push_back(std::string(what) + " (correlation " +
                                   std::to_string(r.correlationId) + ")");
    }
    for (Attributed* a : {hasId ? &ids[e->id] : nullptr, hasScope ? &scopeOf(*e) : nullptr}) {
      if (a == nullptr) continue;
      ++(a->*count);
      if (!timed) continue;
      ++a->gpuTimed;
      a->gpuTime += r.end - r.start;
    }
  };
  trace.store.records<KernelRecord>().scan(
      [&](const KernelRecord& k) { gpu(k, &Attributed::kernels, "kernel"); });
  trace.store.records<MemcpyRecord>().scan(
      [&](const MemcpyRecord& m) { gpu(m, &Attributed::memcpys, "memcpy"); });
  trace.store.records<MemsetRecord>().scan(
      [&](const MemsetRecord& m) { gpu(m, &Attributed::memsets, "memset"); });

  // API calls: a driver call made by a runtime call shares its correlation
  // id; counting both would count the same call's time twice.
  struct Call {
    uint32_t correlation;
    bool runtime;
    uint64_t duration;  // 0 without a valid time
  };
  std::vector<Call> calls;
  trace.store.records<ApiRecord>().scan([&](const ApiRecord& a) {
    if (a.domain == static_cast<uint8_t>(ApiDomain::Osrt) || index.find(a.correlationId) == nullptr)
      return;
    calls.push_back({a.correlationId, a.domain == static_cast<uint8_t>(ApiDomain::Runtime),
                     hasTime(a.start, a.end) ? a.end - a.start : 0});
  });
  std::stable_sort(calls.begin(), calls.end(),
                   [](const Call& a, const Call& b) { return a.correlation < b.correlation; });
  for (size_t i = 0; i < calls.size();) {
    size_t end = i;
    bool anyRuntime = false;
    for (; end < calls.size() && calls[end].correlation == calls[i].correlation; ++end)
      anyRuntime = anyRuntime || calls[end].runtime;
    const ExternalIdEntry* e = index.find(calls[i].correlation);
    for (; i < end; ++i) {
      if (anyRuntime && !calls[i].runtime) continue;
      for (Attributed* a :
           {e->hasId ? &ids[e->id] : nullptr, e->hasScope ? &scopeOf(*e) : nullptr}) {
        if (a == nullptr) continue;
        ++a->apiCalls;
        a->apiTime += calls[i].duration;
      }
    }
  }

  std::vector<Row> rows;
  for (const auto& [id, a] : ids) rows.push_back({RowKind::Id, id, std::to_string(id), &a});
  for (const auto& [key, a] : scopes) {
    const std::string name = key.first != kNoString ? std::string(trace.strings.get(key.first))
                                                    : "(scope " + std::to_string(key.second) + ")";
    rows.push_back({RowKind::Scope, 0, name, &a});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) {
    return std::make_tuple(y.a->gpuTime, x.kind, x.id, std::cref(x.name)) <
           std::make_tuple(x.a->gpuTime, y.kind, y.id, std::cref(y.name));
  });
  for (const Row& r : rows) {
    const Attributed& a = *r.a;
    table.rows.push_back({
        Cell::real(percent(a.gpuTime, gpuTotal)),
        Cell::integer(a.gpuTime),
        a.gpuTimed != 0
            ? Cell::real(static_cast<double>(a.gpuTime) / static_cast<double>(a.gpuTimed))
            : Cell::none(),
        Cell::integer(a.kernels),
        Cell::integer(a.memcpys),
        Cell::integer(a.memsets),
        Cell::integer(a.apiCalls),
        Cell::integer(a.apiTime),
        Cell::text(r.kind == RowKind::Id ? "id" : "scope"),
        Cell::text(r.name),
    });
  }

  table.notes.push_back(
      "Each kernel, copy, set and API call counts for the external id and the scope in force "
      "when its call was made, the innermost of each: a scope's row leaves out what the scopes "
      "opened inside it launched; GPU(%) is the share of all GPU work time; a driver call made "
      "by a runtime call (same correlation id) is not counted again");
  if (gpuRecords != 0)
    table.notes.push_back("Of " + std::to_string(gpuRecords) + " kernels, copies and sets, " +
                          std::to_string(withoutId) + " carry no external id and " +
                          std::to_string(withoutScope) + " no scope");
  if (untimed.count) table.notes.push_back(untimedNote(untimed, "attributed GPU"));
  return table;
}

}  // namespace cuptitrace::reports
