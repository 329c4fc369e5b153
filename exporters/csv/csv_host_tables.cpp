// The rows of the CSV tables of the host: runtime and driver calls, NVTX,
// CUPTI's overhead, external ids, OpenACC events. Their argument columns
// come from record_args.h (csv_args.h); each row writes its own columns and
// fills the argument columns between them.
#include <memory>
#include <string_view>

#include "core/api_set.h"
#include "exporters/csv/csv_args.h"
#include "exporters/csv/csv_columns.h"
#include "exporters/csv/csv_strings.h"
#include "exporters/csv/csv_tables.h"
#include "timeline/external_ids.h"
#include "timeline/record_args.h"

namespace cuptitrace {
namespace {

const char* payloadTypeName(uint8_t type) {
  switch (static_cast<NvtxPayload>(type)) {
    case NvtxPayload::U64:
      return "u64";
    case NvtxPayload::I64:
      return "i64";
    case NvtxPayload::Double:
      return "double";
    case NvtxPayload::U32:
      return "u32";
    case NvtxPayload::I32:
      return "i32";
    case NvtxPayload::Float:
      return "float";
    case NvtxPayload::None:
      break;
  }
  return "";
}

}  // namespace

CsvRows csvApiRows(const Trace& trace) {
  return [&trace, sets = recordedApiSets(trace), strings = std::make_shared<CsvStrings>(trace.strings)](
             CsvWriter& w, size_t first, size_t end) {
    const auto setOf = [&](uint8_t domain) -> const char* {
      if (!sets.known) return "";
      if (domain == static_cast<uint8_t>(ApiDomain::Runtime)) return apiSetName(sets.runtime);
      if (domain == static_cast<uint8_t>(ApiDomain::Driver)) return apiSetName(sets.driver);
      return "";  // osrt calls are chosen by CUPTITRACE_OSRT_THRESHOLD
  };
  forEachIn(trace.store.records<ApiRecord>(), first, end, [&](const ApiRecord& a) {
    w.times(a.start, a.end);
    w.text(apiDomainName(a.domain));
    strings->text(w, a.name);
    w.integer(a.threadId);
    w.integer(a.correlationId);
    w.integer(a.cbid);
    w.integer(a.returnValue);
    w.text(setOf(a.domain));
    w.endRow();
  });
  };
}

CsvRows csvNvtxRows(const Trace& trace) {
  return csvArgRows<NvtxRecord>(trace, RecordKind::Nvtx, [](CsvArgRow& args, CsvWriter& w, const NvtxRecord& n) {
    nvtxArgs(n, false, args);
    w.text(nvtxTypeName(static_cast<NvtxType>(n.type)));
    w.times(n.start, n.end);
    w.integer(n.threadId);
    w.integer(n.endThreadId);
    args.fill(w);  // domain
    args.strings().text(w, n.message);
    args.fill(w);  // category, color
    w.text(payloadTypeName(n.payloadType));
    args.fill(w);  // payload, as the type NVTX was given
    w.integer(n.id);
    w.integer(n.depth);
    args.fill(w);  // open
    w.endRow();
  });
}

CsvRows csvOverheadRows(const Trace& trace) {
  return csvArgRows<OverheadRecord>(trace, RecordKind::Overhead,
                            [](CsvArgRow& args, CsvWriter& w, const OverheadRecord& o) {
    overheadArgs(o, args);
    args.strings().text(w, o.name);
    w.times(o.start, o.end);
    args.fill(w);  // thread_id (empty: the overhead belongs to no thread), device
    w.endRow();
  });
}

// One row per API call made while an id was pushed, per kind pushed; a
// scope's row names it (from its range).
CsvRows csvExternalIdRows(const Trace& trace, std::shared_ptr<const ExternalIdIndex> externalIds) {
  return [&trace, shared = std::move(externalIds),
          strings = std::make_shared<CsvStrings>(trace.strings)](CsvWriter& w, size_t first, size_t end) {
    const ExternalIdIndex& index = *shared;
    forEachIn(trace.store.records<ExternalIdRecord>(), first, end, [&](const ExternalIdRecord& r) {
      w.integer(r.correlationId);
      w.text(externalKindName(r.externalKind));
      w.integer(r.externalId);
      const bool scope = r.externalKind == static_cast<uint8_t>(ExternalKind::Scope);
      if (scope) strings->text(w, index.scopeName(r.externalId));
      else w.empty();
      w.endRow();
    });
  };
}

CsvRows csvOpenAccRows(const Trace& trace) {
  return csvArgRows<OpenAccRecord>(trace, RecordKind::OpenAcc,
                            [](CsvArgRow& args, CsvWriter& w, const OpenAccRecord& r) {
    const bool data = r.type == static_cast<uint8_t>(OpenAccType::Data);
    openAccArgs(r, args);
    w.text(openAccTypeName(r.type));
    args.fill(w);  // event
    w.times(r.start, r.end);
    w.integer(r.cuThreadId);
    w.integer(r.cuProcessId);
    args.fill(w);  // src_file ... parent_construct
    w.integer(r.implicit);
    args.fill(w);  // version ... external_id
    args.strings().text(w, r.varName);
    args.fill(w);  // bytes: data events only
    if (data) writeAddress(w, r.hostPtr); else w.empty();
    if (data) writeAddress(w, r.devicePtr); else w.empty();
    args.strings().text(w, r.kernelName);
    args.fill(w);  // num_gangs, num_workers, vector_length: launches only
    w.endRow();
  });
}

}  // namespace cuptitrace
