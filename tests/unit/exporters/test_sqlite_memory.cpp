// The SQLite output of the optional kinds: GPU memory and pools, unified
// memory, graph launches, external ids, C library calls, capture windows.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "exporters/sqlite/sqlite.h"
#include "memory_fixture.h"
#include "sqlite_query.h"
#include "temp_dir.h"

namespace cuptitrace {
namespace {

using testing::TempDir;
using testing::sqlite::query;
using testing::sqlite::Rows;

TEST_CASE("sqlite output of memory, unified memory, graphs, external ids and osrt", "[sqlite]") {
  const TempDir dir;
  Trace t;
  t.meta.pid = 777;
  t.meta.captureWindows = {{100, 200}, {300, 400}};
  testing::addAllocation(t, 1000, 0x7f00, 4096, 0, MemoryKind::Device, 5);
  testing::addFree(t, 2000, 0x7f00, 4096, 0, MemoryKind::Device, 6);
  MemoryRecord pooled{};
  pooled.timestamp = 2500;
  pooled.address = 0x9000;
  pooled.bytes = 64;
  pooled.poolAddress = 0x8000;
  pooled.poolType = static_cast<uint8_t>(PoolType::Local);
  pooled.streamId = 13;
  pooled.isAsync = 1;
  t.store.add(pooled);
  MemoryPoolRecord pool{};
  pool.timestamp = 2600;
  pool.address = 0x8000;
  pool.operation = static_cast<uint8_t>(PoolOp::Trimmed);
  pool.poolType = static_cast<uint8_t>(PoolType::Local);
  pool.minBytesToKeep = 1024;
  pool.size = 1 << 20;
  t.store.add(pool);
  testing::addUvm(t, UvmKind::BytesHtoD, 3000, 3500, 65536, 0);
  testing::addUvm(t, UvmKind::GpuPageFault, 3600, 3700, 12, 0);
  testing::addUvm(t, UvmKind::CpuPageFault, 3800, 3800, 0x401000, kUvmNoDevice);
  testing::addUvm(t, UvmKind::Thrashing, 3900, 3950, 1, 0);
  testing::addGraphLaunch(t, 4000, 5000, 9, 42);
  testing::addGraphKernel(t, 4100, 4200, 9, 3, 42);
  ExternalIdRecord e{};
  e.externalId = 123456789;
  e.correlationId = 42;
  e.externalKind = static_cast<uint8_t>(ExternalKind::Id);
  t.store.add(e);
  testing::addApi(t, 6000, 6500, "read", 0, ApiDomain::Osrt);
  const std::string path = dir.path("m.sqlite");
  REQUIRE(writeSqlite(t, path, false).error.empty());

  CHECK(query(path, "SELECT e.label, m.bytes, m.correlationId, m.streamId FROM CUDA_GPU_MEMORY_USAGE_EVENTS m "
                    "JOIN ENUM_CUDA_DEV_MEM_EVENT_OPER e ON e.id = m.memoryOperationType ORDER BY m.start") ==
        Rows{{"Allocation", "4096", "5", "NULL"}, {"Deallocation", "4096", "6", "NULL"}, {"Allocation", "64", "0", "13"}});
  CHECK(query(path, "SELECT localMemoryPoolAddress, importedMemoryPoolAddress FROM CUDA_GPU_MEMORY_USAGE_EVENTS "
                    "WHERE bytes = 64") == Rows{{std::to_string(0x8000), "NULL"}});
  CHECK(query(path, "SELECT o.label, p.minBytesToKeep, p.localMemoryPoolSize FROM CUDA_GPU_MEMORY_POOL_EVENTS p "
                    "JOIN ENUM_CUDA_MEMPOOL_OPER o ON o.id = p.operationType") ==
        Rows{{"Trimmed", "1024", std::to_string(1 << 20)}});
  CHECK(query(path, "SELECT e.label, m.bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN ENUM_CUDA_MEMCPY_OPER e "
                    "ON e.id = m.copyKind") == Rows{{"Unified Host-to-Device", "65536"}});
  CHECK(query(path, "SELECT numberOfPageFaults, deviceId FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS") == Rows{{"12", "0"}});
  CHECK(query(path, "SELECT originalFaultPc FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS") ==
        Rows{{std::to_string(0x401000)}});
  CHECK(query(path, "SELECT kind, value FROM CUPTITRACE_UVM_EVENTS") == Rows{{uvmKindName(5), "1"}});
  CHECK(query(path, "SELECT graphId, correlationId, end - start FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE") ==
        Rows{{"9", "42", "1000"}});
  CHECK(query(path, "SELECT n.tableName, n.graphId, n.graphNodeId, x.externalId FROM CUPTITRACE_GRAPH_NODES n "
                    "JOIN CUPTITRACE_EXTERNAL_IDS x ON x.correlationId = n.correlationId "
                    "AND x.globalPid = n.globalPid") ==
        Rows{{"CUPTI_ACTIVITY_KIND_KERNEL", "9", "3", "123456789"}});
  CHECK(query(path, "SELECT s.value, o.eventClass, o.globalTid / 0x1000000 % 0x1000000 FROM OSRT_API o "
                    "JOIN StringIds s ON s.id = o.nameId") == Rows{{"read", "27", "777"}});
  CHECK(query(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME") == Rows{{"0"}});
  CHECK(query(path, "SELECT start, end FROM CUPTITRACE_CAPTURE_WINDOWS ORDER BY start") ==
        Rows{{"100", "200"}, {"300", "400"}});
}

}  // namespace
}  // namespace cuptitrace
