// Every argument a record kind's function gives (timeline/record_args.h) is
// an argument column of the kind's CSV table (exporters/csv/csv_columns.cpp), or
// is listed below with what the table shows instead: an argument added to a
// kind without its CSV column fails here.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "arg_recorder.h"
#include "exporters/csv/csv.h"
#include "exporters/csv/csv_columns.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;

namespace {

// An argument that a kind's table has no argument column for. `column`: the
// table's own column that shows it under another name (written by the
// table's row, for every record where the timeline has it for some), or
// nullptr where the table does without it.
struct Excluded {
  RecordKind kind;
  Arg arg;
  const char* column;
};

// clang-format off
constexpr Excluded kExcluded[] = {
    // The record's value, 0 or 1, where the timeline has a flag only when set.
    {RecordKind::Kernel, Arg::DeviceLaunched, "device_launched"},
    // Derived from the bytes and times the table has.
    {RecordKind::Memcpy, Arg::BandwidthGBps, nullptr},
    // Both devices of every copy, where the timeline has them for peer-to-peer ones.
    {RecordKind::Memcpy, Arg::SrcDevice, "src_device"},
    {RecordKind::Memcpy, Arg::DstDevice, "dst_device"},
    // Every call's correlation id and return value (an osrt call's errno);
    // the timeline gives an osrt call only its errno.
    {RecordKind::Api, Arg::Correlation, "correlation_id"},
    {RecordKind::Api, Arg::ReturnValue, "return_value"},
    {RecordKind::Api, Arg::Errno, "return_value"},
    // The device of the graph's last node, where the timeline has it only when it differs.
    {RecordKind::Graph, Arg::EndDevice, "end_device"},
    // A range's id, threads and depth, for every row of the one table of every NVTX type.
    {RecordKind::Nvtx, Arg::RangeId, "range_id"},
    {RecordKind::Nvtx, Arg::Thread, "thread_id"},
    {RecordKind::Nvtx, Arg::EndThread, "end_thread_id"},
    {RecordKind::Nvtx, Arg::Depth, "depth"},
    // Names in columns of their own, addresses as addresses, the flag as the record's value.
    {RecordKind::OpenAcc, Arg::AccVariable, "var_name"},
    {RecordKind::OpenAcc, Arg::AccKernel, "kernel_name"},
    {RecordKind::OpenAcc, Arg::AccHostPtr, "host_ptr"},
    {RecordKind::OpenAcc, Arg::AccDevicePtr, "device_ptr"},
    {RecordKind::OpenAcc, Arg::AccImplicit, "implicit"},
    // The ids a framework pushed for a call: in the external_ids table, by
    // correlation id; only the kernels' table repeats them.
    {RecordKind::Memcpy, Arg::ExternalId, nullptr}, {RecordKind::Memcpy, Arg::Scope, nullptr},
    {RecordKind::Memset, Arg::ExternalId, nullptr}, {RecordKind::Memset, Arg::Scope, nullptr},
    {RecordKind::Graph, Arg::ExternalId, nullptr},  {RecordKind::Graph, Arg::Scope, nullptr},
    {RecordKind::Api, Arg::ExternalId, nullptr},    {RecordKind::Api, Arg::Scope, nullptr},
    // Where GPU work ran, which the JSON timeline repeats in its arguments for
    // the PyTorch profiler's readers: the table's own columns.
    {RecordKind::Kernel, Arg::Device, "device"},  {RecordKind::Kernel, Arg::Stream, "stream"},
    {RecordKind::Memcpy, Arg::Device, "device"},  {RecordKind::Memcpy, Arg::Stream, "stream"},
    {RecordKind::Memset, Arg::Device, "device"},  {RecordKind::Memset, Arg::Stream, "stream"},
};
// clang-format on

const Excluded* excluded(RecordKind kind, Arg arg) {
  for (const Excluded& e : kExcluded)
    if (e.kind == kind && e.arg == arg) return &e;
  return nullptr;
}

bool hasColumn(RecordKind kind, const char* name, bool ownColumn) {
  for (const CsvColumn& c : csvTableColumns(kind))
    if (std::string(c.name) == name && (c.arg == Arg::None) == ownColumn) return true;
  return false;
}

bool hasArgColumn(RecordKind kind, Arg arg) {
  for (const CsvColumn& c : csvTableColumns(kind))
    if (c.arg == arg) return true;
  return false;
}

// Records of each kind with every optional field set, so that each kind's
// function gives every argument it can.
struct EveryArg {
  Trace t;
  std::vector<std::pair<RecordKind, ArgRecorder>> given;

  EveryArg() {
    initTrace(t);
    kernel();
    copies();
    calls();
    nvtx();
    openAcc();
  }

  ArgRecorder& of(RecordKind kind) {
    given.emplace_back(kind, ArgRecorder{});
    return given.back().second;
  }

  void kernel() {
    KernelRecord k{};
    k.name = t.strings.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
    k.correlationId = 1;
    k.graphId = 1;
    k.graphNodeId = 2;
    k.launchType = static_cast<uint8_t>(KernelLaunchType::CooperativeMulti);
    k.isDeviceLaunched = 1;
    kernelArgs(k, of(RecordKind::Kernel));
  }

  void copies() {
    MemcpyRecord m{};
    m.start = 1;
    m.end = 3;
    m.bytes = 64;
    m.copyKind = static_cast<uint8_t>(CopyKind::PtoP);
    m.srcDeviceId = 0;
    m.dstDeviceId = 1;
    m.flags = kCopyFlagAsync;
    m.graphId = 1;
    m.graphNodeId = 2;
    memcpyArgs(m, of(RecordKind::Memcpy));
    MemsetRecord s{};
    s.graphId = 1;
    s.graphNodeId = 2;
    s.flags = kCopyFlagAsync;
    memsetArgs(s, of(RecordKind::Memset));
    GraphRecord g{};
    g.graphId = 1;
    g.deviceId = 0;
    g.endDeviceId = 1;
    graphLaunchArgs(g, of(RecordKind::Graph));
  }

  void calls() {
    ApiRecord runtime{};
    runtime.domain = static_cast<uint8_t>(ApiDomain::Runtime);
    runtime.returnValue = 719;
    apiArgs(runtime, of(RecordKind::Api));
    ApiRecord osrt{};
    osrt.domain = static_cast<uint8_t>(ApiDomain::Osrt);
    osrt.returnValue = 4;  // EINTR
    apiArgs(osrt, of(RecordKind::Api));
    SyncRecord y{};
    y.streamId = 7;
    y.eventId = 3;
    syncArgs(y, of(RecordKind::Sync));
    OverheadRecord o{};
    o.threadId = 1;
    o.deviceId = 0;
    overheadArgs(o, of(RecordKind::Overhead));
  }

  // A push/pop range with its depth, a start/end range ended on another
  // thread, and a mark.
  void nvtx() {
    NvtxRecord n{};
    n.domain = t.strings.intern("d");
    n.flags = kNvtxHasColor | kNvtxOpen;
    n.payloadType = static_cast<uint8_t>(NvtxPayload::U64);
    n.threadId = 1;
    n.endThreadId = 2;
    for (NvtxType type : {NvtxType::PushPop, NvtxType::StartEnd, NvtxType::Mark}) {
      n.type = static_cast<uint8_t>(type);
      nvtxArgs(n, type != NvtxType::Mark, of(RecordKind::Nvtx));
    }
  }

  void openAcc() {
    OpenAccRecord a{};
    a.parentConstruct = 2;
    a.srcFile = a.funcName = a.varName = a.kernelName = t.strings.intern("f");
    a.lineNo = a.endLineNo = a.funcLineNo = a.funcEndLineNo = a.externalId = 1;
    a.hostPtr = a.devicePtr = 0x1000;
    a.implicit = 1;
    for (OpenAccType type : {OpenAccType::Data, OpenAccType::Launch, OpenAccType::Other}) {
      a.type = static_cast<uint8_t>(type);
      openAccArgs(a, of(RecordKind::OpenAcc));
    }
  }
};

}  // namespace

TEST_CASE("csv fields: every argument a kind gives is a column of its table, or excluded", "[csv]") {
  EveryArg every;
  for (const auto& [kind, given] : every.given) {
    for (Arg arg : given.args) {
      INFO(csvTableName(kind) << " argument " << argName(arg));
      const Excluded* e = excluded(kind, arg);
      CHECK((hasArgColumn(kind, arg) || e != nullptr));
    }
  }
}

TEST_CASE("csv fields: each exclusion is still needed, and its column is the table's own", "[csv]") {
  EveryArg every;
  for (const Excluded& e : kExcluded) {
    INFO(csvTableName(e.kind) << " argument " << argName(e.arg));
    // Given by the kind's function: otherwise the exclusion is stale.
    bool given = false;
    for (const auto& [kind, args] : every.given) given = given || (kind == e.kind && args.has(e.arg));
    CHECK(given);
    // An argument column now: the exclusion is no longer needed.
    CHECK_FALSE(hasArgColumn(e.kind, e.arg));
    if (e.column != nullptr) CHECK(hasColumn(e.kind, e.column, true));
  }
}
