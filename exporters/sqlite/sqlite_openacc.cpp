// The OpenACC tables of the SQLite output, under the names Nsight Systems'
// export gives them: CUPTI_ACTIVITY_KIND_OPENACC_DATA, _LAUNCH and _OTHER,
// strings (the event's name, source file, function, variable and kernel) as
// StringIds ids, eventKind as in ENUM_OPENACC_EVENT_KIND (CUPTI's numbering).
#include <string_view>

#include "exporters/sqlite/sqlite_schema.h"
#include "exporters/sqlite/sqlite_tables.h"

namespace cuptitrace {

bool writeSqliteOpenAcc(SqliteDb& db, SqliteStrings& strings, const SqliteTraceInput& in, uint64_t& rows) {
  const Trace& t = *in.trace;
  const auto& records = t.store.records<OpenAccRecord>();
  if (records.empty()) return true;
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
  SqliteStatement data(db, insert("CUPTI_ACTIVITY_KIND_OPENACC_DATA", {"bytes", "hostPtr", "devicePtr", "varName"}));
  SqliteStatement launch(db, insert("CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH",
                                    {"numGangs", "numWorkers", "vectorLength", "kernelName"}));
  SqliteStatement other(db, insert("CUPTI_ACTIVITY_KIND_OPENACC_OTHER", {}));
  if (!data.ok() || !launch.ok() || !other.ok()) return false;

  const auto offset = static_cast<uint64_t>(in.timeOffsetNs);
  // A string column: NULL for none, else its StringIds id (-1: the insert failed).
  bool failed = false;
  auto text = [&](SqliteStatement& s, int column, std::string_view v) {
    if (v.empty()) return s.null(column);
    const int64_t id = strings.id(v);
    if (id < 0) failed = true;
    s.integer(column, id);
  };
  bool ok = true;
  records.forEach([&](const OpenAccRecord& r) {
    if (!ok) return;
    SqliteStatement& s = r.type == static_cast<uint8_t>(OpenAccType::Data)     ? data
                         : r.type == static_cast<uint8_t>(OpenAccType::Launch) ? launch
                                                                                : other;
    int c = 0;
    s.unsignedInteger(++c, r.start + offset);
    if (r.end != 0) s.unsignedInteger(++c, r.end + offset); else s.null(++c);
    // The thread's own process: CUPTI's process id, the trace's when it gives none.
    const uint32_t pid = r.cuProcessId != 0 ? r.cuProcessId : t.meta.pid;
    s.unsignedInteger(++c, sqliteGlobalTid(in.index, pid, r.cuThreadId));
    text(s, ++c, openAccEventName(r.eventKind));
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
    text(s, ++c, t.strings.get(r.srcFile));
    text(s, ++c, t.strings.get(r.funcName));
    if (&s == &data) {
      s.unsignedInteger(++c, r.bytes);
      s.unsignedInteger(++c, r.hostPtr);
      s.unsignedInteger(++c, r.devicePtr);
      text(s, ++c, t.strings.get(r.varName));
    } else if (&s == &launch) {
      s.unsignedInteger(++c, r.numGangs);
      s.unsignedInteger(++c, r.numWorkers);
      s.unsignedInteger(++c, r.vectorLength);
      text(s, ++c, t.strings.get(r.kernelName));
    }
    ok = !failed && s.step();
    if (ok) ++rows;
  });
  return ok;
}

}  // namespace cuptitrace
