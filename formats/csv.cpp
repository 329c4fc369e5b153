// CSV tables, one per record kind.
//
// RFC 4180 with LF line ends (every CSV reader in use accepts them, and they
// keep the files diff- and grep-friendly): fields are separated by commas, and
// a text field is quoted when it holds a comma, a quote, CR or LF, or starts
// or ends with white space (which some readers would otherwise trim), with
// inner quotes doubled. Numbers are never quoted. Times are integer
// nanoseconds on the trace clock, absolute (not relative to the trace start),
// so rows of different tables can be joined on them. Rows come in the order
// the store holds them.
//
// A record whose end is missing (0) or before its start is still written, with
// an empty duration_ns: a CSV is for looking at everything that was recorded.
#include "formats/csv.h"

#include <array>
#include <cassert>
#include <charconv>
#include <cstring>
#include <string_view>

#include "core/api_set.h"
#include "core/demangle.h"
#include "timeline/external_ids.h"
#include "timeline/nccl_names.h"

namespace cuptitrace {
namespace {

// The columns of each table, fixed at compile time; the README documents them,
// so names are stable snake_case and new columns go at the end.
// clang-format off
constexpr std::array kKernelColumns = {
    "start_ns", "end_ns", "duration_ns", "device", "context", "stream", "correlation_id", "name",
    "mangled_name", "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
    "registers_per_thread", "static_shared_bytes", "dynamic_shared_bytes", "graph_id",
    "graph_node_id", "launch_type", "device_launched", "external_id", "scope", "nccl_collective",
    "nccl_op", "nccl_dtype", "nccl_algo", "nccl_proto"};
constexpr std::array kMemcpyColumns = {
    "start_ns", "end_ns", "duration_ns", "device", "context", "stream", "correlation_id", "bytes",
    "copy_kind", "src_kind", "dst_kind", "async", "src_device", "dst_device", "graph_id",
    "graph_node_id"};
constexpr std::array kMemsetColumns = {
    "start_ns", "end_ns", "duration_ns", "device", "context", "stream", "correlation_id", "bytes",
    "value", "memory_kind", "async", "graph_id", "graph_node_id"};
// api_set: which calls of the row's API were recorded (lean, all), so that a
// table of the lean set is not read as every call the program made.
constexpr std::array kApiColumns = {"start_ns", "end_ns",         "duration_ns", "domain",
                                    "name",     "thread_id",      "correlation_id", "cbid",
                                    "return_value", "api_set"};
constexpr std::array kNvtxColumns = {
    "type", "start_ns", "end_ns", "duration_ns", "thread_id", "end_thread_id", "domain", "message",
    "category", "color", "payload_type", "payload", "range_id", "depth", "open"};
constexpr std::array kSyncColumns = {"type", "start_ns", "end_ns", "duration_ns", "context",
                                     "stream", "event", "correlation_id"};
constexpr std::array kOverheadColumns = {"name", "start_ns", "end_ns", "duration_ns", "thread_id",
                                         "device"};
constexpr std::array kMemoryColumns = {
    "timestamp_ns", "operation", "device", "context", "stream", "correlation_id", "address", "bytes",
    "memory_kind", "async", "pool_type", "pool_address"};
constexpr std::array kMemoryPoolColumns = {
    "timestamp_ns", "operation", "device", "correlation_id", "address", "pool_type", "managed",
    "size_bytes", "utilized_bytes", "release_threshold_bytes", "min_bytes_to_keep"};
constexpr std::array kUvmColumns = {
    "kind", "start_ns", "end_ns", "duration_ns", "device", "src_id", "dst_id", "address", "bytes",
    "fault_groups", "pc", "cause", "access"};
constexpr std::array kGraphColumns = {"start_ns", "end_ns", "duration_ns", "device", "context",
                                      "stream", "correlation_id", "graph_id", "end_device"};
constexpr std::array kExternalIdColumns = {"correlation_id", "kind", "external_id", "scope"};
// Every field of CUPTI's OpenACC data, launch and other records; those of
// another type's record are empty.
constexpr std::array kOpenAccColumns = {
    "type", "event", "start_ns", "end_ns", "duration_ns", "thread_id", "process_id", "src_file",
    "line", "end_line", "func_name", "func_line", "func_end_line", "parent_construct", "implicit",
    "version", "device_type", "device_number", "acc_thread_id", "async", "async_map", "device",
    "context", "stream", "external_id", "var_name", "bytes", "host_ptr", "device_ptr",
    "kernel_name", "num_gangs", "num_workers", "vector_length"};
// clang-format on

// Ids CUPTI uses for "not applicable" (sync stream/event, overhead device).
constexpr uint32_t kNotApplicable = 0xffffffffu;

// Bytes gathered before one write to the stream.
constexpr size_t kFlushBytes = size_t{1} << 16;

template <size_t N>
std::vector<std::string> toVector(const std::array<const char*, N>& columns) {
  return std::vector<std::string>(columns.begin(), columns.end());
}

bool needsQuoting(std::string_view s) {
  if (s.empty()) return false;
  if (s.front() == ' ' || s.front() == '\t' || s.back() == ' ' || s.back() == '\t') return true;
  return s.find_first_of(",\"\r\n") != std::string_view::npos;
}

// Formats rows into a buffer and hands it to the stream in blocks. Every
// field ends with a comma; endRow() turns the last one into the line end.
class CsvWriter {
 public:
  CsvWriter(std::ostream& out, size_t columns) : out_(out), columns_(columns) {
    buffer_.reserve(kFlushBytes + 4096);
  }
  ~CsvWriter() { flush(); }

  template <typename Int>
  void integer(Int v) {
    char tmp[24];
    const auto result = std::to_chars(tmp, tmp + sizeof tmp, v);
    buffer_.append(tmp, result.ptr);
    endField();
  }
  void number(double v) {
    // Shortest form that reads back to the same double.
    char tmp[32];
    const auto result = std::to_chars(tmp, tmp + sizeof tmp, v);
    buffer_.append(tmp, result.ptr);
    endField();
  }
  void number(float v) {
    char tmp[32];
    const auto result = std::to_chars(tmp, tmp + sizeof tmp, v);
    buffer_.append(tmp, result.ptr);
    endField();
  }
  void text(std::string_view s) {
    if (!needsQuoting(s)) {
      buffer_.append(s);
    } else {
      buffer_ += '"';
      for (char c : s) {
        if (c == '"') buffer_ += '"';
        buffer_ += c;
      }
      buffer_ += '"';
    }
    endField();
  }
  void empty() { endField(); }
  // Empty when `v` is CUPTI's "not applicable" id.
  void optionalId(uint32_t v) {
    if (v == kNotApplicable)
      empty();
    else
      integer(v);
  }
  // start_ns, end_ns, duration_ns (empty when the end is missing or before the start).
  void times(uint64_t start, uint64_t end) {
    integer(start);
    integer(end);
    if (end != 0 && end >= start)
      integer(end - start);
    else
      empty();
  }

  void endRow() {
    assert(fields_ == columns_ && "a CSV row must have one field per column");
    buffer_.back() = '\n';
    fields_ = 0;
    if (buffer_.size() >= kFlushBytes) flush();
  }

  void header(const std::vector<std::string>& columns) {
    for (const auto& c : columns) text(c);
    endRow();
  }

 private:
  void endField() {
    buffer_ += ',';
    ++fields_;
  }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

  std::ostream& out_;
  std::string buffer_;
  size_t columns_;
  size_t fields_ = 0;
};

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

void writeKernels(const Trace& trace, CsvWriter& w) {
  // Demangled names by string id: a trace repeats a few names millions of
  // times, so each is looked up once.
  DemangleCache demangler;
  std::vector<const std::string*> demangled(trace.strings.size(), nullptr);
  const ExternalIdIndex externalIds(trace);
  NcclNames nccl(trace);
  trace.store.records<KernelRecord>().forEach([&](const KernelRecord& k) {
    const std::string_view mangled = trace.strings.get(k.name);
    const std::string* name = k.name < demangled.size() ? demangled[k.name] : nullptr;
    if (name == nullptr) {
      name = &demangler.get(mangled);
      if (k.name < demangled.size()) demangled[k.name] = name;
    }
    w.times(k.start, k.end);
    w.integer(k.deviceId);
    w.integer(k.contextId);
    w.integer(k.streamId);
    w.integer(k.correlationId);
    w.text(*name);
    w.text(mangled);
    w.integer(k.gridX);
    w.integer(k.gridY);
    w.integer(k.gridZ);
    w.integer(k.blockX);
    w.integer(k.blockY);
    w.integer(k.blockZ);
    w.integer(k.registersPerThread);
    w.integer(k.staticSharedMemory);
    w.integer(k.dynamicSharedMemory);
    w.integer(k.graphId);
    w.integer(k.graphNodeId);
    w.text(launchTypeName(k.launchType));
    w.integer(k.isDeviceLaunched);
    const ExternalIdEntry* e = externalIds.find(k.correlationId);
    if (e != nullptr && e->hasId) w.integer(e->id); else w.empty();
    w.text(e != nullptr && e->hasScope ? trace.strings.get(e->scopeName) : std::string_view());
    // NCCL's kernels: the collective their name says; empty for every other kernel.
    const NcclKernelInfo* c = nccl.find(k.name);
    for (const std::string* part : {c ? &c->collective : nullptr, c ? &c->op : nullptr, c ? &c->dtype : nullptr,
                                    c ? &c->algo : nullptr, c ? &c->proto : nullptr})
      w.text(part != nullptr ? std::string_view(*part) : std::string_view());
    w.endRow();
  });
}

void writeMemcpy(const Trace& trace, CsvWriter& w) {
  trace.store.records<MemcpyRecord>().forEach([&](const MemcpyRecord& m) {
    w.times(m.start, m.end);
    w.integer(m.deviceId);
    w.integer(m.contextId);
    w.integer(m.streamId);
    w.integer(m.correlationId);
    w.integer(m.bytes);
    w.text(copyKindName(static_cast<CopyKind>(m.copyKind)));
    w.text(memoryKindName(static_cast<MemoryKind>(m.srcKind)));
    w.text(memoryKindName(static_cast<MemoryKind>(m.dstKind)));
    w.integer((m.flags & kCopyFlagAsync) ? 1 : 0);
    w.integer(m.srcDeviceId);
    w.integer(m.dstDeviceId);
    w.integer(m.graphId);
    w.integer(m.graphNodeId);
    w.endRow();
  });
}

void writeMemset(const Trace& trace, CsvWriter& w) {
  trace.store.records<MemsetRecord>().forEach([&](const MemsetRecord& m) {
    w.times(m.start, m.end);
    w.integer(m.deviceId);
    w.integer(m.contextId);
    w.integer(m.streamId);
    w.integer(m.correlationId);
    w.integer(m.bytes);
    w.integer(m.value);
    w.text(memoryKindName(static_cast<MemoryKind>(m.memoryKind)));
    w.integer((m.flags & kCopyFlagAsync) ? 1 : 0);
    w.integer(m.graphId);
    w.integer(m.graphNodeId);
    w.endRow();
  });
}

void writeApi(const Trace& trace, CsvWriter& w) {
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

void writeNvtx(const Trace& trace, CsvWriter& w) {
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

void writeSync(const Trace& trace, CsvWriter& w) {
  trace.store.records<SyncRecord>().forEach([&](const SyncRecord& s) {
    w.text(syncTypeName(static_cast<SyncType>(s.type)));
    w.times(s.start, s.end);
    w.integer(s.contextId);
    w.optionalId(s.streamId);
    w.optionalId(s.eventId);
    w.integer(s.correlationId);
    w.endRow();
  });
}

void writeOverhead(const Trace& trace, CsvWriter& w) {
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

// Addresses as C prints pointers ("0x7f3a00000000"); 0 (none) as an empty field.
void writeAddress(CsvWriter& w, uint64_t address) {
  if (address == 0) return w.empty();
  static constexpr char kHex[] = "0123456789abcdef";
  char s[18] = {'0', 'x'};
  int digits = 0;
  for (uint64_t v = address; v != 0; v >>= 4) ++digits;
  for (int i = 0; i < digits; ++i) s[2 + i] = kHex[(address >> (4 * (digits - 1 - i))) & 0xf];
  w.text(std::string_view(s, static_cast<size_t>(2 + digits)));
}

void writeMemory(const Trace& trace, CsvWriter& w) {
  trace.store.records<MemoryRecord>().forEach([&](const MemoryRecord& m) {
    w.integer(m.timestamp);
    w.text(memoryOpName(m.operation));
    w.integer(m.deviceId);
    w.optionalId(m.contextId);
    w.optionalId(m.streamId);
    w.integer(m.correlationId);
    writeAddress(w, m.address);
    w.integer(m.bytes);
    w.text(memoryKindName(static_cast<MemoryKind>(m.memoryKind)));
    w.integer(m.isAsync);
    w.text(poolTypeName(m.poolType));
    writeAddress(w, m.poolAddress);
    w.endRow();
  });
}

void writeMemoryPool(const Trace& trace, CsvWriter& w) {
  trace.store.records<MemoryPoolRecord>().forEach([&](const MemoryPoolRecord& p) {
    w.integer(p.timestamp);
    w.text(poolOpName(p.operation));
    w.integer(p.deviceId);
    w.integer(p.correlationId);
    writeAddress(w, p.address);
    w.text(poolTypeName(p.poolType));
    w.integer(p.isManaged);
    w.integer(p.size);
    w.integer(p.utilizedSize);
    w.integer(p.releaseThreshold);
    // Only a trim keeps a minimum.
    if (p.operation == static_cast<uint8_t>(PoolOp::Trimmed))
      w.integer(p.minBytesToKeep);
    else
      w.empty();
    w.endRow();
  });
}

void writeUvm(const Trace& trace, CsvWriter& w) {
  trace.store.records<UvmRecord>().forEach([&](const UvmRecord& u) {
    const auto kind = static_cast<UvmKind>(u.kind);
    const bool transfer =
        kind == UvmKind::BytesHtoD || kind == UvmKind::BytesDtoH || kind == UvmKind::BytesDtoD;
    const bool sized = transfer || kind == UvmKind::Thrashing || kind == UvmKind::RemoteMap;
    w.text(uvmKindName(u.kind));
    w.times(u.start, u.end);
    w.optionalId(u.deviceId);
    // CUPTI gives no source for a CPU fault, and no destination for faults.
    if (kind == UvmKind::CpuPageFault) w.empty(); else w.integer(u.srcId);
    if (kind == UvmKind::CpuPageFault || kind == UvmKind::GpuPageFault) w.empty(); else w.integer(u.dstId);
    writeAddress(w, u.address);
    if (sized) w.integer(u.value); else w.empty();
    if (kind == UvmKind::GpuPageFault) w.integer(u.value); else w.empty();
    if (kind == UvmKind::CpuPageFault) writeAddress(w, u.value); else w.empty();
    w.text(transfer ? uvmCauseName(u.cause) : "");
    w.text(kind == UvmKind::GpuPageFault ? uvmAccessName(u.accessType) : "");
    w.endRow();
  });
}

// One row per API call made while an id was pushed, per kind pushed; a
// scope's row names it (from its range).
void writeExternalIds(const Trace& trace, CsvWriter& w) {
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

void writeGraphs(const Trace& trace, CsvWriter& w) {
  trace.store.records<GraphRecord>().forEach([&](const GraphRecord& g) {
    w.times(g.start, g.end);
    w.integer(g.deviceId);
    w.integer(g.contextId);
    w.integer(g.streamId);
    w.integer(g.correlationId);
    w.integer(g.graphId);
    w.integer(g.endDeviceId);
    w.endRow();
  });
}

void writeOpenAcc(const Trace& trace, CsvWriter& w) {
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

}  // namespace

const std::vector<std::string>& csvColumns(RecordKind kind) {
  static const std::vector<std::string> kernels = toVector(kKernelColumns);
  static const std::vector<std::string> memcpy = toVector(kMemcpyColumns);
  static const std::vector<std::string> memset = toVector(kMemsetColumns);
  static const std::vector<std::string> api = toVector(kApiColumns);
  static const std::vector<std::string> nvtx = toVector(kNvtxColumns);
  static const std::vector<std::string> sync = toVector(kSyncColumns);
  static const std::vector<std::string> overhead = toVector(kOverheadColumns);
  static const std::vector<std::string> memory = toVector(kMemoryColumns);
  static const std::vector<std::string> memoryPool = toVector(kMemoryPoolColumns);
  static const std::vector<std::string> uvm = toVector(kUvmColumns);
  static const std::vector<std::string> graphs = toVector(kGraphColumns);
  static const std::vector<std::string> externalIds = toVector(kExternalIdColumns);
  static const std::vector<std::string> openAcc = toVector(kOpenAccColumns);
  static const std::vector<std::string> none;
  switch (kind) {
    case RecordKind::Kernel:
      return kernels;
    case RecordKind::Memcpy:
      return memcpy;
    case RecordKind::Memset:
      return memset;
    case RecordKind::Api:
      return api;
    case RecordKind::Nvtx:
      return nvtx;
    case RecordKind::Sync:
      return sync;
    case RecordKind::Overhead:
      return overhead;
    case RecordKind::Memory:
      return memory;
    case RecordKind::MemoryPool:
      return memoryPool;
    case RecordKind::Uvm:
      return uvm;
    case RecordKind::Graph:
      return graphs;
    case RecordKind::ExternalId:
      return externalIds;
    case RecordKind::OpenAcc:
      return openAcc;
    case RecordKind::Count:
      break;
  }
  return none;
}

const char* csvTableName(RecordKind kind) {
  switch (kind) {
    case RecordKind::Kernel:
      return "kernels";
    case RecordKind::Memcpy:
      return "memcpy";
    case RecordKind::Memset:
      return "memset";
    case RecordKind::Api:
      return "api";
    case RecordKind::Nvtx:
      return "nvtx";
    case RecordKind::Sync:
      return "sync";
    case RecordKind::Overhead:
      return "overhead";
    case RecordKind::Memory:
      return "memory";
    case RecordKind::MemoryPool:
      return "memory_pool";
    case RecordKind::Uvm:
      return "uvm";
    case RecordKind::Graph:
      return "graphs";
    case RecordKind::ExternalId:
      return "external_ids";
    case RecordKind::OpenAcc:
      return "openacc";
    case RecordKind::Count:
      break;
  }
  return "unknown";
}

void writeCsvTable(const Trace& trace, RecordKind kind, std::ostream& out) {
  const auto& columns = csvColumns(kind);
  if (columns.empty()) return;
  CsvWriter w(out, columns.size());
  w.header(columns);
  switch (kind) {
    case RecordKind::Kernel:
      return writeKernels(trace, w);
    case RecordKind::Memcpy:
      return writeMemcpy(trace, w);
    case RecordKind::Memset:
      return writeMemset(trace, w);
    case RecordKind::Api:
      return writeApi(trace, w);
    case RecordKind::Nvtx:
      return writeNvtx(trace, w);
    case RecordKind::Sync:
      return writeSync(trace, w);
    case RecordKind::Overhead:
      return writeOverhead(trace, w);
    case RecordKind::Memory:
      return writeMemory(trace, w);
    case RecordKind::MemoryPool:
      return writeMemoryPool(trace, w);
    case RecordKind::Uvm:
      return writeUvm(trace, w);
    case RecordKind::Graph:
      return writeGraphs(trace, w);
    case RecordKind::ExternalId:
      return writeExternalIds(trace, w);
    case RecordKind::OpenAcc:
      return writeOpenAcc(trace, w);
    case RecordKind::Count:
      break;
  }
}

}  // namespace cuptitrace
