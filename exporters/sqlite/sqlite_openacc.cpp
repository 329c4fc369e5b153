// The OpenACC tables of the SQLite output, under the names Nsight Systems'
// export gives them: CUPTI_ACTIVITY_KIND_OPENACC_DATA, _LAUNCH and _OTHER,
// strings (the event's name, source file, function, variable and kernel) as
// StringIds ids, eventKind as in ENUM_OPENACC_EVENT_KIND (CUPTI's numbering).
#include <string_view>

#include "exporters/sqlite/sqlite_schema.h"
#include "exporters/sqlite/sqlite_tables.h"

namespace cuptitrace {

bool writeSqliteOpenAcc(SqliteDb& db, SqliteStrings& strings, const SqliteTraceInput& in, uint64_t& rows,
                        const SqliteRowFilter& filter) {
  const Trace& t = *in.trace;
  const auto& records = t.store.records<OpenAccRecord>();
  // The three tables are written together.
  const bool write = filter.wants("CUPTI_ACTIVITY_KIND_OPENACC_DATA");
  if (records.empty() || (!write && !filter.idsOnly)) return true;
  static constexpr std::initializer_list<const char*> kCommon = {
      "start", "end", "globalTid", "nameId", "eventKind", "parentConstruct", "version", "implicit",
      "deviceType", "deviceNumber", "threadId", "async", "asyncMap", "lineNo", "endLineNo", "funcLineNo",
      "funcEndLineNo", "cuDeviceId", "cuContextId", "cuStreamId", "cuProcessId", "cuThreadId", "externalId",
      "srcFile", "funcName"};
  auto columns = [](std::initializer_list<const char*> extra) {
    std::string list;
    for (const char* c : kCommon) list += std::string(list.empty() ? "" : ", ") + c;
    for (const char* c : extra) list += std::string(", ") + c;
    return list;
  };
  auto insert = [&](const char* table, std::initializer_list<const char*> extra) {
    const std::string names = columns(extra);
    std::string values;
    for (size_t i = 0; i < kCommon.size() + extra.size(); ++i) values += i ? ", ?" : "?";
    return std::string("INSERT INTO ") + table + " (" + names + ") VALUES (" + values + ")";
  };
  // The string columns' ids (-1: none, NULL), decided first: in the order of
  // the columns, as the rows have always given them.
  bool failed = false;
  auto id = [&](std::string_view v) -> int64_t {
    if (v.empty()) return -1;
    const int64_t i = strings.id(v);
    if (i < 0) failed = true;
    return i;
  };
  if (!write) {
    records.forEach([&](const OpenAccRecord& r) {
      id(openAccEventName(r.eventKind));
      id(t.strings.get(r.srcFile));
      id(t.strings.get(r.funcName));
      if (r.type == static_cast<uint8_t>(OpenAccType::Data)) id(t.strings.get(r.varName));
      else if (r.type == static_cast<uint8_t>(OpenAccType::Launch)) id(t.strings.get(r.kernelName));
    });
    return !failed;
  }
  SqliteStatement data(db, insert("CUPTI_ACTIVITY_KIND_OPENACC_DATA", {"bytes", "hostPtr", "devicePtr", "varName"}));
  SqliteStatement launch(db, insert("CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH",
                                    {"numGangs", "numWorkers", "vectorLength", "kernelName"}));
  SqliteStatement other(db, insert("CUPTI_ACTIVITY_KIND_OPENACC_OTHER", {}));
  if (!data.ok() || !launch.ok() || !other.ok()) return false;

  const auto offset = static_cast<uint64_t>(in.timeOffsetNs);
  // A string column: NULL for none, else its StringIds id.
  auto text = [&](SqliteStatement& s, int column, int64_t v) {
    if (v < 0) return s.null(column);
    s.integer(column, v);
  };
  bool ok = true;
  records.forEach([&](const OpenAccRecord& r) {
    if (!ok) return;
    SqliteStatement& s = r.type == static_cast<uint8_t>(OpenAccType::Data)     ? data
                         : r.type == static_cast<uint8_t>(OpenAccType::Launch) ? launch
                                                                                : other;
    const int64_t name = id(openAccEventName(r.eventKind));
    const int64_t srcFile = id(t.strings.get(r.srcFile));
    const int64_t funcName = id(t.strings.get(r.funcName));
    const int64_t extra = &s == &data ? id(t.strings.get(r.varName))
                          : &s == &launch ? id(t.strings.get(r.kernelName))
                                          : -1;
    int c = 0;
    s.unsignedInteger(++c, r.start + offset);
    if (r.end != 0) s.unsignedInteger(++c, r.end + offset); else s.null(++c);
    // The thread's own process: CUPTI's process id, the trace's when it gives none.
    const uint32_t pid = r.cuProcessId != 0 ? r.cuProcessId : t.meta.pid;
    s.unsignedInteger(++c, sqliteGlobalTid(in.index, pid, r.cuThreadId));
    text(s, ++c, name);
    s.unsignedInteger(++c, r.eventKind);
    s.unsignedInteger(++c, r.parentConstruct);
    s.unsignedInteger(++c, r.version);
    s.unsignedInteger(++c, r.implicit);
    s.unsignedInteger(++c, r.deviceType);
    s.unsignedInteger(++c, r.deviceNumber);
    s.unsignedInteger(++c, r.threadId);
    s.unsignedInteger(++c, r.async);
    s.unsignedInteger(++c, r.asyncMap);
    s.unsignedInteger(++c, r.lineNo);
    s.unsignedInteger(++c, r.endLineNo);
    s.unsignedInteger(++c, r.funcLineNo);
    s.unsignedInteger(++c, r.funcEndLineNo);
    s.unsignedInteger(++c, r.cuDeviceId);
    s.unsignedInteger(++c, r.cuContextId);
    s.unsignedInteger(++c, r.cuStreamId);
    s.unsignedInteger(++c, r.cuProcessId);
    s.unsignedInteger(++c, r.cuThreadId);
    s.unsignedInteger(++c, r.externalId);
    text(s, ++c, srcFile);
    text(s, ++c, funcName);
    if (&s == &data) {
      s.unsignedInteger(++c, r.bytes);
      s.unsignedInteger(++c, r.hostPtr);
      s.unsignedInteger(++c, r.devicePtr);
      text(s, ++c, extra);
    } else if (&s == &launch) {
      s.unsignedInteger(++c, r.numGangs);
      s.unsignedInteger(++c, r.numWorkers);
      s.unsignedInteger(++c, r.vectorLength);
      text(s, ++c, extra);
    }
    ok = !failed && s.step();
    if (ok) ++rows;
  });
  return ok;
}

}  // namespace cuptitrace
