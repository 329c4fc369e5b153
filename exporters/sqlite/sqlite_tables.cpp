// The record tables of the SQLite output. Column meanings follow Nsight
// Systems' export; where our record lacks a value the column is NULL.
#include "exporters/sqlite/sqlite_tables.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "core/demangle.h"
#include "core/utf8.h"
#include "exporters/record_range.h"
#include "exporters/sqlite/sqlite_schema.h"

namespace cuptitrace {
namespace {


// Calls f(record) for the records [first, end) of a sequence, in order,
// until f returns false.
template <typename T, typename F>
bool each(const ChunkedVector<T>& records, F&& f, size_t first = 0, size_t end = SIZE_MAX) {
  bool ok = true;
  forEachIn(records, first, end, [&](const T& r) { ok = ok && f(r); });
  return ok;
}

// Binds one row's values in column order.
class Row {
 public:
  explicit Row(SqliteStatement& s) : s_(s) {}
  Row& i(int64_t v) {
    s_.integer(++n_, v);
    return *this;
  }
  Row& u(uint64_t v) {
    s_.unsignedInteger(++n_, v);
    return *this;
  }
  Row& r(double v) {
    s_.real(++n_, v);
    return *this;
  }
  Row& t(std::string_view v) {
    s_.text(++n_, v);
    return *this;
  }
  Row& null() {
    s_.null(++n_);
    return *this;
  }
  // NULL when `v` is `none` (0, or CUPTI's "not applicable").
  Row& opt(uint64_t v, uint64_t none = 0) { return v == none ? null() : u(v); }
  // A memory kind in Nsight's numbering; NULL when unknown.
  Row& memKind(uint8_t cuptiKind) {
    const int64_t k = nsysMemKind(cuptiKind);
    return k < 0 ? null() : i(k);
  }
  bool done() { return s_.step(); }

 private:
  SqliteStatement& s_;
  int n_ = 0;
};

class RecordWriter {
 public:
  RecordWriter(SqliteDb& db, SqliteStrings& strings, const SqliteTraceInput& in, const SqliteRowFilter& filter)
      : db_(db), strings_(strings), in_(in), f_(filter), t_(*in.trace),
        globalPid_(sqliteGlobalPid(in.index, t_.meta.pid)), stringIds_(t_.strings.size(), -1) {
    for (const auto& c : t_.contexts) contextDevice_[c.contextId] = c.deviceId;
  }

  bool run(uint64_t& rows) {
    const bool ok = kernels() && memcpys() && memsets() && apis() && nvtx() && syncs() && overheads() &&
                    memory() && pools() && uvm() && graphs() && externalIds() && graphNodes();
    rows += rows_;
    return ok;
  }

 private:
  uint64_t time(uint64_t t) const { return t + static_cast<uint64_t>(in_.timeOffsetNs); }
  // each() over the records of kind T the filter's piece holds.
  template <typename T, typename F>
  bool eachOf(F&& f) const {
    return each(t_.store.records<T>(), std::forward<F>(f), f_.first, f_.end);
  }
  // start, end: an end that is missing or before the start is NULL.
  Row& span(Row& row, uint64_t start, uint64_t end) {
    row.u(time(start));
    return end != 0 && end >= start ? row.u(time(end)) : row.null();
  }
  uint64_t tid(uint32_t threadId) const { return sqliteGlobalTid(in_.index, t_.meta.pid, threadId); }
  // The database id of one of the trace's strings.
  int64_t sid(StringId id) {
    if (id >= stringIds_.size()) return strings_.id("");
    int64_t& cached = stringIds_[id];
    if (cached < 0) cached = strings_.id(t_.strings.get(id));
    return cached;
  }
  bool step(Row& row) {
    if (!row.done()) return false;
    ++rows_;
    return true;
  }
  void graphNode(const char* table, uint32_t correlationId, uint64_t start, uint32_t graphId,
                 uint64_t graphNodeId) {
    if (graphId != 0 || graphNodeId != 0) nodes_.push_back({table, correlationId, start, graphId, graphNodeId});
  }

  bool kernels() {
    const bool write = f_.wants("CUPTI_ACTIVITY_KIND_KERNEL"), ids = write || f_.idsOnly;
    const bool nodes = f_.wants("CUPTITRACE_GRAPH_NODES");
    if (!ids && !nodes) return true;
    std::optional<SqliteStatement> s;
    if (write) {
      s.emplace(db_, sqliteInsert("CUPTI_ACTIVITY_KIND_KERNEL",
                                  {"start", "end", "deviceId", "contextId", "streamId", "correlationId",
                                   "globalPid", "demangledName", "shortName", "mangledName", "launchType",
                                   "registersPerThread", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
                                   "staticSharedMemory", "dynamicSharedMemory", "graphNodeId", "graphId"}));
      if (!s->ok()) return false;
    }
    struct Names {
      int64_t demangled = -1, shortName = -1;
    };
    std::vector<Names> names(ids ? t_.strings.size() : 0);
    DemangleCache demangler;
    return eachOf<KernelRecord>([&](const KernelRecord& k) {
      if (ids) {
        Names fallback;
        Names& n = k.name < names.size() ? names[k.name] : fallback;
        if (n.demangled < 0) {
          const std::string& full = demangler.get(t_.strings.get(k.name));
          n.demangled = strings_.id(full);
          n.shortName = strings_.id(kernelShortName(full));
        }
        const int64_t mangled = sid(k.name);
        if (write) {
          Row row(*s);
          span(row, k.start, k.end).u(k.deviceId).u(k.contextId).u(k.streamId).u(k.correlationId).u(globalPid_);
          row.i(n.demangled).i(n.shortName).i(mangled).i(nsysLaunchType(k.launchType)).u(k.registersPerThread);
          row.i(k.gridX).i(k.gridY).i(k.gridZ).u(k.blockX).u(k.blockY).u(k.blockZ);
          row.i(k.staticSharedMemory).i(k.dynamicSharedMemory).opt(k.graphNodeId).opt(k.graphId);
          if (!step(row)) return false;
        }
      }
      if (nodes) graphNode("CUPTI_ACTIVITY_KIND_KERNEL", k.correlationId, k.start, k.graphId, k.graphNodeId);
      return true;
    });
  }

  bool memcpys() {
    const bool write = f_.wants("CUPTI_ACTIVITY_KIND_MEMCPY"), nodes = f_.wants("CUPTITRACE_GRAPH_NODES");
    if (!write && !nodes) return true;
    std::optional<SqliteStatement> s;
    if (write) {
      s.emplace(db_, sqliteInsert("CUPTI_ACTIVITY_KIND_MEMCPY",
                                  {"start", "end", "deviceId", "contextId", "streamId", "correlationId",
                                   "globalPid", "bytes", "copyKind", "srcKind", "dstKind", "srcDeviceId",
                                   "dstDeviceId", "graphNodeId"}));
      if (!s->ok()) return false;
    }
    return eachOf<MemcpyRecord>([&](const MemcpyRecord& m) {
      if (write) {
        Row row(*s);
        span(row, m.start, m.end).u(m.deviceId).u(m.contextId).u(m.streamId).u(m.correlationId).u(globalPid_);
        row.u(m.bytes).u(m.copyKind).memKind(m.srcKind).memKind(m.dstKind).u(m.srcDeviceId).u(m.dstDeviceId);
        row.opt(m.graphNodeId);
        if (!step(row)) return false;
      }
      if (nodes) graphNode("CUPTI_ACTIVITY_KIND_MEMCPY", m.correlationId, m.start, m.graphId, m.graphNodeId);
      return true;
    });
  }

  bool memsets() {
    const bool write = f_.wants("CUPTI_ACTIVITY_KIND_MEMSET"), nodes = f_.wants("CUPTITRACE_GRAPH_NODES");
    if (!write && !nodes) return true;
    std::optional<SqliteStatement> s;
    if (write) {
      s.emplace(db_, sqliteInsert("CUPTI_ACTIVITY_KIND_MEMSET",
                                  {"start", "end", "deviceId", "contextId", "streamId", "correlationId",
                                   "globalPid", "value", "bytes", "graphNodeId", "memKind"}));
      if (!s->ok()) return false;
    }
    return eachOf<MemsetRecord>([&](const MemsetRecord& m) {
      if (write) {
        Row row(*s);
        span(row, m.start, m.end).u(m.deviceId).u(m.contextId).u(m.streamId).u(m.correlationId).u(globalPid_);
        row.u(m.value).u(m.bytes).opt(m.graphNodeId).memKind(m.memoryKind);
        if (!step(row)) return false;
      }
      if (nodes) graphNode("CUPTI_ACTIVITY_KIND_MEMSET", m.correlationId, m.start, m.graphId, m.graphNodeId);
      return true;
    });
  }

  // Runtime and driver calls share Nsight's RUNTIME table, told apart by
  // eventClass; the C library calls (osrt) go to OSRT_API.
  bool apis() {
    const bool cudaRows = f_.wants("CUPTI_ACTIVITY_KIND_RUNTIME"), osrtRows = f_.wants("OSRT_API");
    if (!cudaRows && !osrtRows && !f_.idsOnly) return true;
    std::optional<SqliteStatement> cuda, osrt;
    if (cudaRows) {
      cuda.emplace(db_, sqliteInsert("CUPTI_ACTIVITY_KIND_RUNTIME", {"start", "end", "eventClass", "globalTid",
                                                                    "correlationId", "nameId", "returnValue"}));
      if (!cuda->ok()) return false;
    }
    if (osrtRows) {
      osrt.emplace(db_, sqliteInsert("OSRT_API", {"start", "end", "eventClass", "globalTid", "nameId",
                                                  "returnValue"}));
      if (!osrt->ok()) return false;
    }
    return eachOf<ApiRecord>([&](const ApiRecord& a) {
      const auto domain = static_cast<ApiDomain>(a.domain);
      const bool isOsrt = domain == ApiDomain::Osrt;
      if (!f_.idsOnly && !(isOsrt ? osrtRows : cudaRows)) return true;
      const int64_t name = sid(a.name);
      if (f_.idsOnly) return true;
      if (isOsrt) {
        Row row(*osrt);
        span(row, a.start, a.end).i(kNsysClassOsrt).u(tid(a.threadId)).i(name).u(a.returnValue);
        if (!step(row)) return false;
        return true;
      }
      Row row(*cuda);
      span(row, a.start, a.end).i(domain == ApiDomain::Driver ? kNsysClassCudaDriver : kNsysClassCudaRuntime);
      row.u(tid(a.threadId)).u(a.correlationId).i(name).u(a.returnValue);
      if (!step(row)) return false;
      return true;
    });
  }

  bool nvtx() {
    if (!f_.wants("NVTX_EVENTS")) return true;
    SqliteStatement s(db_, sqliteInsert("NVTX_EVENTS",
                                        {"start", "end", "eventType", "rangeId", "category", "color", "text",
                                         "globalTid", "endGlobalTid", "domainId", "uint64Value", "int64Value",
                                         "doubleValue", "uint32Value", "int32Value", "floatValue"}));
    SqliteStatement domainRow(
        db_, sqliteInsert("NVTX_EVENTS", {"start", "eventType", "text", "globalTid", "domainId"}));
    if (!s.ok() || !domainRow.ok()) return false;
    // Nsight names a domain once, with an NvtxDomainCreate event; its events carry the domain's id.
    std::unordered_map<StringId, uint64_t> domains;
    return each(t_.store.records<NvtxRecord>(), [&](const NvtxRecord& n) {
      uint64_t domainId = 0;
      if (n.domain != kNoString) {
        auto [it, added] = domains.emplace(n.domain, domains.size() + 1);
        domainId = it->second;
        if (added) {
          Row row(domainRow);
          row.u(time(n.start)).i(kNsysNvtxDomainCreate).t(t_.strings.get(n.domain)).u(tid(n.threadId)).u(domainId);
          if (!step(row)) return false;
        }
      }
      const auto type = static_cast<NvtxType>(n.type);
      Row row(s);
      if (type == NvtxType::Mark) {
        row.u(time(n.start)).null().i(kNsysNvtxMark);
      } else {
        span(row, n.start, n.end).i(type == NvtxType::StartEnd ? kNsysNvtxStartEndRange : kNsysNvtxPushPopRange);
      }
      row.opt(type == NvtxType::StartEnd ? n.id : 0).opt(n.category);
      if (n.flags & kNvtxHasColor) row.u(n.color);
      else row.null();
      row.t(t_.strings.get(n.message)).u(tid(n.threadId));
      if (type == NvtxType::StartEnd) row.u(tid(n.endThreadId));
      else row.null();
      row.u(domainId);  // 0: the default domain, as Nsight writes it
      payload(row, n);
      if (!step(row)) return false;
      return true;
    });
  }
  // uint64Value, int64Value, doubleValue, uint32Value, int32Value, floatValue:
  // the one of NVTX's payload type is set. 32-bit payloads sit in the low half.
  static void payload(Row& row, const NvtxRecord& n) {
    const auto type = static_cast<NvtxPayload>(n.payloadType);
    const auto low = static_cast<uint32_t>(n.payload);
    double d = 0;
    float f = 0;
    std::memcpy(&d, &n.payload, sizeof d);
    std::memcpy(&f, &low, sizeof f);
    type == NvtxPayload::U64 ? row.u(n.payload) : row.null();
    type == NvtxPayload::I64 ? row.i(static_cast<int64_t>(n.payload)) : row.null();
    type == NvtxPayload::Double ? row.r(d) : row.null();
    type == NvtxPayload::U32 ? row.u(low) : row.null();
    type == NvtxPayload::I32 ? row.i(static_cast<int32_t>(low)) : row.null();
    type == NvtxPayload::Float ? row.r(f) : row.null();
  }

  bool syncs() {
    if (!f_.wants("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")) return true;
    SqliteStatement s(db_, sqliteInsert("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                        {"start", "end", "deviceId", "contextId", "streamId", "correlationId",
                                         "globalPid", "syncType", "eventId"}));
    if (!s.ok()) return false;
    return eachOf<SyncRecord>([&](const SyncRecord& y) {
      Row row(s);
      span(row, y.start, y.end);
      const auto device = contextDevice_.find(y.contextId);
      device == contextDevice_.end() ? row.null() : row.u(device->second);
      row.u(y.contextId).opt(y.streamId, kNotApplicable).u(y.correlationId).u(globalPid_).u(y.type);
      row.opt(y.eventId, kNotApplicable);
      if (!step(row)) return false;
      return true;
    });
  }

  bool overheads() {
    const bool write = f_.wants("CUPTI_ACTIVITY_KIND_OVERHEAD");
    if (!write && !f_.idsOnly) return true;
    std::optional<SqliteStatement> s;
    if (write) {
      s.emplace(db_, sqliteInsert("CUPTI_ACTIVITY_KIND_OVERHEAD", {"start", "end", "globalTid", "nameId"}));
      if (!s->ok()) return false;
    }
    return eachOf<OverheadRecord>([&](const OverheadRecord& o) {
      const int64_t name = sid(o.name);
      if (!write) return true;
      Row row(*s);
      span(row, o.start, o.end);
      o.threadId != 0 ? row.u(tid(o.threadId)) : row.null();
      row.i(name);
      if (!step(row)) return false;
      return true;
    });
  }

  bool memory() {
    if (!f_.wants("CUDA_GPU_MEMORY_USAGE_EVENTS")) return true;
    SqliteStatement s(db_, sqliteInsert("CUDA_GPU_MEMORY_USAGE_EVENTS",
                                        {"start", "globalPid", "deviceId", "contextId", "address", "bytes", "memKind",
                                         "memoryOperationType", "correlationId", "streamId",
                                         "localMemoryPoolAddress", "importedMemoryPoolAddress"}));
    if (!s.ok()) return false;
    return eachOf<MemoryRecord>([&](const MemoryRecord& m) {
      Row row(s);
      row.u(time(m.timestamp)).u(globalPid_).u(m.deviceId).u(m.contextId).u(m.address).u(m.bytes);
      row.memKind(m.memoryKind).u(m.operation).u(m.correlationId).opt(m.streamId, kNotApplicable);
      m.poolType == static_cast<uint8_t>(PoolType::Local) ? row.u(m.poolAddress) : row.null();
      m.poolType == static_cast<uint8_t>(PoolType::Imported) ? row.u(m.poolAddress) : row.null();
      if (!step(row)) return false;
      return true;
    });
  }

  bool pools() {
    if (!f_.wants("CUDA_GPU_MEMORY_POOL_EVENTS")) return true;
    SqliteStatement s(db_, sqliteInsert("CUDA_GPU_MEMORY_POOL_EVENTS",
                                        {"start", "globalPid", "deviceId", "address", "operationType", "poolType",
                                         "correlationId", "minBytesToKeep", "localMemoryPoolReleaseThreshold",
                                         "localMemoryPoolSize", "localMemoryPoolUtilizedSize"}));
    if (!s.ok()) return false;
    return eachOf<MemoryPoolRecord>([&](const MemoryPoolRecord& p) {
      Row row(s);
      row.u(time(p.timestamp)).u(globalPid_).u(p.deviceId).u(p.address).i(nsysPoolOperation(p.operation));
      row.u(p.poolType);
      row.u(p.correlationId);
      p.operation == static_cast<uint8_t>(PoolOp::Trimmed) ? row.u(p.minBytesToKeep) : row.null();
      row.u(p.releaseThreshold).u(p.size).u(p.utilizedSize);
      if (!step(row)) return false;
      return true;
    });
  }

  // Migrations go where Nsight puts them (MEMCPY, copyKind "Unified ..."),
  // page faults to its fault tables, the rest to our own table.
  bool uvm() {
    // Each table's statement only where its rows are wanted.
    auto statement = [&](std::optional<SqliteStatement>& s, const char* table,
                         std::initializer_list<const char*> columns) {
      if (f_.wants(table)) s.emplace(db_, sqliteInsert(table, columns));
      return !s || s->ok();
    };
    std::optional<SqliteStatement> copy, gpuFault, cpuFault, other;
    if (!statement(copy, "CUPTI_ACTIVITY_KIND_MEMCPY",
                   {"start", "end", "deviceId", "globalPid", "bytes", "copyKind", "srcDeviceId", "dstDeviceId",
                    "migrationCause", "virtualAddress"}) ||
        !statement(gpuFault, "CUDA_UM_GPU_PAGE_FAULT_EVENTS",
                   {"start", "end", "globalPid", "deviceId", "address", "numberOfPageFaults", "faultAccessType"}) ||
        !statement(cpuFault, "CUDA_UM_CPU_PAGE_FAULT_EVENTS", {"start", "globalPid", "address", "originalFaultPc"}) ||
        !statement(other, "CUPTITRACE_UVM_EVENTS",
                   {"globalPid", "kind", "start", "end", "deviceId", "srcId", "dstId", "address", "value", "cause",
                    "access"}))
      return false;
    if (!copy && !gpuFault && !cpuFault && !other) return true;
    return each(t_.store.records<UvmRecord>(), [&](const UvmRecord& v) {
      const auto kind = static_cast<UvmKind>(v.kind);
      if (kind == UvmKind::BytesHtoD || kind == UvmKind::BytesDtoH || kind == UvmKind::BytesDtoD) {
        if (!copy || !f_.last()) return true;
        const int copyKind = kind == UvmKind::BytesHtoD   ? kNsysCopyUnifiedHtoD
                             : kind == UvmKind::BytesDtoH ? kNsysCopyUnifiedDtoH
                                                          : kNsysCopyUnifiedDtoD;
        Row row(*copy);
        span(row, v.start, v.end).opt(v.deviceId, kUvmNoDevice).u(globalPid_).u(v.value).i(copyKind);
        row.u(v.srcId).u(v.dstId).u(v.cause).u(v.address);
        if (!step(row)) return false;
      } else if (kind == UvmKind::GpuPageFault) {
        if (!gpuFault) return true;
        Row row(*gpuFault);
        span(row, v.start, v.end).u(globalPid_).opt(v.deviceId, kUvmNoDevice).u(v.address).u(v.value);
        row.u(v.accessType);
        if (!step(row)) return false;
      } else if (kind == UvmKind::CpuPageFault) {
        if (!cpuFault) return true;
        Row row(*cpuFault);
        row.u(time(v.start)).u(globalPid_).u(v.address).u(v.value);
        if (!step(row)) return false;
      } else {
        if (!other) return true;
        Row row(*other);
        row.u(globalPid_).t(uvmKindName(v.kind));
        span(row, v.start, v.end).opt(v.deviceId, kUvmNoDevice).u(v.srcId).u(v.dstId).u(v.address).u(v.value);
        row.t(uvmCauseName(v.cause)).t(uvmAccessName(v.accessType));
        if (!step(row)) return false;
      }
      return true;
    });
  }

  bool graphs() {
    if (!f_.wants("CUPTI_ACTIVITY_KIND_GRAPH_TRACE")) return true;
    SqliteStatement s(db_, sqliteInsert("CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
                                        {"start", "end", "deviceId", "contextId", "streamId", "correlationId",
                                         "globalPid", "graphId"}));
    if (!s.ok()) return false;
    return eachOf<GraphRecord>([&](const GraphRecord& g) {
      Row row(s);
      span(row, g.start, g.end).u(g.deviceId).u(g.contextId).u(g.streamId).u(g.correlationId).u(globalPid_);
      row.u(g.graphId);
      if (!step(row)) return false;
      return true;
    });
  }

  bool externalIds() {
    if (!f_.wants("CUPTITRACE_EXTERNAL_IDS")) return true;
    SqliteStatement s(db_, sqliteInsert("CUPTITRACE_EXTERNAL_IDS",
                                        {"globalPid", "correlationId", "externalKind", "externalId"}));
    if (!s.ok()) return false;
    return eachOf<ExternalIdRecord>([&](const ExternalIdRecord& e) {
      Row row(s);
      row.u(globalPid_).u(e.correlationId).u(e.externalKind).u(e.externalId);
      if (!step(row)) return false;
      return true;
    });
  }

  bool graphNodes() {
    if (!f_.wants("CUPTITRACE_GRAPH_NODES")) return true;
    SqliteStatement s(db_, sqliteInsert("CUPTITRACE_GRAPH_NODES", {"globalPid", "correlationId", "tableName",
                                                                   "start", "graphId", "graphNodeId"}));
    if (!s.ok()) return false;
    for (const Node& n : nodes_) {
      Row row(s);
      row.u(globalPid_).u(n.correlationId).t(n.table).u(time(n.start)).opt(n.graphId).opt(n.graphNodeId);
      if (!step(row)) return false;
    }
    return true;
  }

  struct Node {
    const char* table;
    uint32_t correlationId;
    uint64_t start;
    uint32_t graphId;
    uint64_t graphNodeId;
  };

  SqliteDb& db_;
  SqliteStrings& strings_;
  const SqliteTraceInput& in_;
  const SqliteRowFilter& f_;
  const Trace& t_;
  const uint64_t globalPid_;
  std::vector<int64_t> stringIds_;
  std::unordered_map<uint32_t, uint32_t> contextDevice_;
  std::vector<Node> nodes_;
  uint64_t rows_ = 0;
};

}  // namespace

SqliteStrings::SqliteStrings(SqliteDb& db) : insert_(db, "INSERT INTO StringIds (id, value) VALUES (?, ?)") {}

bool SqliteRowFilter::wants(std::string_view table) const {
  if (idsOnly) return false;
  if (tables == nullptr) return true;
  return std::any_of(tables->begin(), tables->end(), [&](const char* t) { return table == t; });
}

int64_t SqliteStrings::id(std::string_view s) {
  // Keyed by the text the table holds (invalid UTF-8 replaced, as every text
  // column is): two names that differ only in invalid bytes are one string.
  if (frozen_) {
    const auto it = ids_.find(isValidUtf8(s) ? std::string(s) : validUtf8(s));
    if (it != ids_.end()) return it->second;
    missed_.store(true, std::memory_order_relaxed);
    return -1;
  }
  auto [it, added] = ids_.emplace(isValidUtf8(s) ? std::string(s) : validUtf8(s),
                                  static_cast<int64_t>(ids_.size()));
  if (!added) return it->second;
  insert_.integer(1, it->second);
  insert_.text(2, it->first);
  return insert_.step() ? it->second : -1;
}

std::string kernelShortName(std::string_view name) {
  // The parameter list: the first '(' outside template brackets (operator()
  // and lambdas aside, which keep their full name).
  int depth = 0;
  size_t end = name.size();
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<') ++depth;
    else if (c == '>' && depth > 0) --depth;
    else if (c == '(' && depth == 0 && i > 0) {
      end = i;
      break;
    }
  }
  std::string_view base = name.substr(0, end);
  // Trailing template arguments.
  if (!base.empty() && base.back() == '>') {
    depth = 0;
    for (size_t i = base.size(); i-- > 0;) {
      if (base[i] == '>') ++depth;
      else if (base[i] == '<' && --depth == 0) {
        base = base.substr(0, i);
        break;
      }
    }
  }
  // The return type and the namespaces: what follows the last space or "::"
  // outside template brackets.
  size_t from = 0;
  depth = 0;
  for (size_t i = 0; i < base.size(); ++i) {
    const char c = base[i];
    if (c == '<') ++depth;
    else if (c == '>' && depth > 0) --depth;
    else if (depth == 0 && c == ' ') from = i + 1;
    else if (depth == 0 && c == ':' && i + 1 < base.size() && base[i + 1] == ':') from = i + 2;
  }
  base = base.substr(from);
  return base.empty() ? std::string(name) : std::string(base);
}

bool writeSqliteRecords(SqliteDb& db, SqliteStrings& strings, const SqliteTraceInput& in, uint64_t& rows,
                        const SqliteRowFilter& filter) {
  return RecordWriter(db, strings, in, filter).run(rows) && writeSqliteOpenAcc(db, strings, in, rows, filter) &&
         writeSqliteGpuMetrics(db, in, rows, filter);
}

}  // namespace cuptitrace
