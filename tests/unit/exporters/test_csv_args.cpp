// The CSV tables' argument columns: read from record_args.h's functions,
// with the usual value where the timeline leaves an argument out.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "arg_recorder.h"
#include "csv_table.h"
#include "exporters/csv/csv_args.h"
#include "exporters/csv/csv_columns.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;

namespace {

// Row `row` (0: the header) of `kind`'s table, as column name -> field.
std::string field(const std::vector<std::vector<std::string>>& rows, size_t row,
                  const std::string& column) {
  return rows.at(row).at(csvColumn(rows.at(0), column));
}

}  // namespace

TEST_CASE("csv argument columns hold the timeline's arguments and their usual values", "[csv]") {
  Trace t;
  initTrace(t);
  addUsualAndUnusualLaunch(t);
  const auto kernels = csvTableRows(t, RecordKind::Kernel);
  REQUIRE(kernels.size() == 3);
  // The usual kernel: what the timeline leaves out, the table shows.
  CHECK(field(kernels, 1, "correlation_id") == "1");
  CHECK(field(kernels, 1, "grid_x") == "1");
  CHECK(field(kernels, 1, "block_z") == "1");
  CHECK(field(kernels, 1, "graph_id") == "0");
  CHECK(field(kernels, 1, "graph_node_id") == "0");
  CHECK(field(kernels, 1, "launch_type") == "Regular");
  CHECK(field(kernels, 1, "device_launched") == "0");
  CHECK(field(kernels, 1, "external_id") == "");
  CHECK(field(kernels, 1, "nccl_collective") == "");
  // The unusual one: the arguments themselves.
  CHECK(field(kernels, 2, "graph_id") == "3");
  CHECK(field(kernels, 2, "graph_node_id") == "44");
  CHECK(field(kernels, 2, "launch_type") == "CooperativeSingle");
  CHECK(field(kernels, 2, "device_launched") == "1");
}

TEST_CASE("csv argument columns: every argument column is one its kind's function gives", "[csv]") {
  // A column naming an argument the function never gives would always be
  // empty; each table's argument columns are checked against one record
  // that has every field its function can give.
  Trace t;
  initTrace(t);
  KernelRecord k{};
  k.name =
      t.strings.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  k.graphId = 1;
  k.graphNodeId = 2;
  k.launchType = static_cast<uint8_t>(KernelLaunchType::CooperativeMulti);
  using Given = ArgRecorder;
  auto check = [](RecordKind kind, const Given& given) {
    for (const CsvColumn& c : csvTableColumns(kind)) {
      if (c.arg == Arg::None) continue;
      INFO(csvTableName(kind) << " column " << c.name);
      CHECK(given.has(c.arg));
    }
  };
  Given kernel;
  kernelArgs(k, kernel);
  check(RecordKind::Kernel, kernel);
  MemcpyRecord m{};
  m.graphId = 1;
  m.graphNodeId = 1;
  Given memcpy;
  memcpyArgs(m, memcpy);
  check(RecordKind::Memcpy, memcpy);
  MemsetRecord s{};
  s.graphId = 1;
  s.graphNodeId = 1;
  Given memset;
  memsetArgs(s, memset);
  check(RecordKind::Memset, memset);
  Given graph;
  graphLaunchArgs(GraphRecord{}, graph);
  check(RecordKind::Graph, graph);
  SyncRecord y{};
  Given sync;
  syncArgs(y, sync);
  check(RecordKind::Sync, sync);
  OverheadRecord o{};
  o.threadId = 1;
  Given overhead;
  overheadArgs(o, overhead);
  check(RecordKind::Overhead, overhead);
  NvtxRecord n{};
  n.domain = t.strings.intern("d");
  n.flags = kNvtxHasColor | kNvtxOpen;
  n.payloadType = static_cast<uint8_t>(NvtxPayload::U64);
  Given nvtx;
  nvtxArgs(n, false, nvtx);
  check(RecordKind::Nvtx, nvtx);
  OpenAccRecord a{};
  a.type = static_cast<uint8_t>(OpenAccType::Data);
  a.parentConstruct = 2;
  a.srcFile = a.funcName = t.strings.intern("f");
  a.lineNo = a.endLineNo = a.funcLineNo = a.funcEndLineNo = a.externalId = 1;
  Given data;
  openAccArgs(a, data);
  a.type = static_cast<uint8_t>(OpenAccType::Launch);
  openAccArgs(a, data);
  check(RecordKind::OpenAcc, data);
}
