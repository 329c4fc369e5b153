// The rows of the CSV tables of the host: runtime and driver calls, NVTX,
// CUPTI's overhead, external ids, OpenACC events.
#include <cstring>
#include <string_view>

#include "core/api_set.h"
#include "formats/csv_tables.h"
#include "timeline/external_ids.h"

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

// The payload's raw bits as the type NVTX was given. 32-bit payloads sit in
// the low half, where NVTX's payload union puts them on a little-endian host.
void writePayload(CsvWriter& w, uint8_t type, uint64_t bits) {
  const auto low = static_cast<uint32_t>(bits);
  switch (static_cast<NvtxPayload>(type)) {
    case NvtxPayload::U64:
      return w.integer(bits);
    case NvtxPayload::I64:
      return w.integer(static_cast<int64_t>(bits));
    case NvtxPayload::Double: {
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return w.number(d);
    }
    case NvtxPayload::U32:
      return w.integer(low);
    case NvtxPayload::I32:
      return w.integer(static_cast<int32_t>(low));
    case NvtxPayload::Float: {
      float f;
      std::memcpy(&f, &low, sizeof f);
      return w.number(f);
    }
    case NvtxPayload::None:
      break;
  }
  w.empty();
}

void writeColor(CsvWriter& w, uint32_t argb) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  char s[9] = {'#'};
  for (int i = 0; i < 8; ++i) s[1 + i] = kHex[(argb >> (28 - 4 * i)) & 0xf];
  w.text(std::string_view(s, sizeof s));
}

}  // namespace

void writeCsvApi(const Trace& trace, CsvWriter& w) {
  const ApiSets sets = recordedApiSets(trace);
  const auto setOf = [&](uint8_t domain) -> const char* {
    if (!sets.known) return "";
    if (domain == static_cast<uint8_t>(ApiDomain::Runtime)) return apiSetName(sets.runtime);
    if (domain == static_cast<uint8_t>(ApiDomain::Driver)) return apiSetName(sets.driver);
    return "";  // osrt calls are chosen by CUPTITRACE_OSRT_THRESHOLD
  };
  trace.store.records<ApiRecord>().forEach([&](const ApiRecord& a) {
    w.times(a.start, a.end);
    w.text(apiDomainName(a.domain));
    w.text(trace.strings.get(a.name));
    w.integer(a.threadId);
    w.integer(a.correlationId);
    w.integer(a.cbid);
    w.integer(a.returnValue);
    w.text(setOf(a.domain));
    w.endRow();
  });
}

void writeCsvNvtx(const Trace& trace, CsvWriter& w) {
  trace.store.records<NvtxRecord>().forEach([&](const NvtxRecord& n) {
    w.text(nvtxTypeName(static_cast<NvtxType>(n.type)));
    w.times(n.start, n.end);
    w.integer(n.threadId);
    w.integer(n.endThreadId);
    w.text(trace.strings.get(n.domain));
    w.text(trace.strings.get(n.message));
    w.integer(n.category);
    if (n.flags & kNvtxHasColor)
      writeColor(w, n.color);
    else
      w.empty();
    w.text(payloadTypeName(n.payloadType));
    writePayload(w, n.payloadType, n.payload);
    w.integer(n.id);
    w.integer(n.depth);
    w.integer((n.flags & kNvtxOpen) ? 1 : 0);
    w.endRow();
  });
}

void writeCsvOverhead(const Trace& trace, CsvWriter& w) {
  trace.store.records<OverheadRecord>().forEach([&](const OverheadRecord& o) {
    w.text(trace.strings.get(o.name));
    w.times(o.start, o.end);
    // 0: the overhead belongs to no thread.
    if (o.threadId == 0)
      w.empty();
    else
      w.integer(o.threadId);
    w.optionalId(o.deviceId);
    w.endRow();
  });
}

// One row per API call made while an id was pushed, per kind pushed; a
// scope's row names it (from its range).
void writeCsvExternalIds(const Trace& trace, CsvWriter& w) {
  const ExternalIdIndex index(trace);
  trace.store.records<ExternalIdRecord>().forEach([&](const ExternalIdRecord& r) {
    w.integer(r.correlationId);
    w.text(externalKindName(r.externalKind));
    w.integer(r.externalId);
    w.text(r.externalKind == static_cast<uint8_t>(ExternalKind::Scope) ? trace.strings.get(index.scopeName(r.externalId))
                                                                       : std::string_view());
    w.endRow();
  });
}

void writeCsvOpenAcc(const Trace& trace, CsvWriter& w) {
  trace.store.records<OpenAccRecord>().forEach([&](const OpenAccRecord& r) {
    const bool data = r.type == static_cast<uint8_t>(OpenAccType::Data);
    const bool launch = r.type == static_cast<uint8_t>(OpenAccType::Launch);
    w.text(openAccTypeName(r.type));
    w.text(openAccEventName(r.eventKind));
    w.times(r.start, r.end);
    w.integer(r.cuThreadId);
    w.integer(r.cuProcessId);
    w.text(trace.strings.get(r.srcFile));
    w.integer(r.lineNo);
    w.integer(r.endLineNo);
    w.text(trace.strings.get(r.funcName));
    w.integer(r.funcLineNo);
    w.integer(r.funcEndLineNo);
    w.text(openAccConstructName(r.parentConstruct));
    w.integer(r.implicit);
    w.integer(r.version);
    w.integer(r.deviceType);
    w.integer(r.deviceNumber);
    w.integer(r.threadId);
    w.integer(r.async);
    w.integer(r.asyncMap);
    w.integer(r.cuDeviceId);
    w.integer(r.cuContextId);
    w.integer(r.cuStreamId);
    w.integer(r.externalId);
    w.text(trace.strings.get(r.varName));
    if (data) w.integer(r.bytes); else w.empty();
    if (data) writeAddress(w, r.hostPtr); else w.empty();
    if (data) writeAddress(w, r.devicePtr); else w.empty();
    w.text(trace.strings.get(r.kernelName));
    if (launch) w.integer(r.numGangs); else w.empty();
    if (launch) w.integer(r.numWorkers); else w.empty();
    if (launch) w.integer(r.vectorLength); else w.empty();
    w.endRow();
  });
}

}  // namespace cuptitrace
