// The decoder on hand-built memory, memory pool, unified memory and graph
// records: no GPU, no driver.
#include <catch2/catch.hpp>

#include <cstring>

#include "collectors/cupti_versions.h"
#include "collectors/decoder.h"
#include "activity_fixture.h"

using namespace cuptitrace;
using cuptitrace::testing::asActivity;
using cuptitrace::testing::zeroed;

TEST_CASE("decoder: memory allocation and release records") {
  Trace trace;
  Decoder decoder(trace);
  auto m = zeroed<cupti::MemoryActivity>();
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.correlationId = 31;
  m.address = 0x7f0000001000ull;
  m.bytes = 1ull << 33;  // 8 GiB: past 32 bits
  m.timestamp = 5000;
  m.deviceId = 1;
  m.contextId = 2;
  m.streamId = CUPTI_INVALID_STREAM_ID;
  decoder.decode(asActivity(&m));

  m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  m.correlationId = 40;
  m.timestamp = 9000;
  m.streamId = 14;
  m.isAsync = 1;
  m.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
  m.memoryPoolConfig.address = 0x7f0000000000ull;
  decoder.decode(asActivity(&m));

  const auto& records = trace.store.records<MemoryRecord>();
  REQUIRE(records.size() == 2);
  const MemoryRecord& a = records[0];
  CHECK(a.operation == static_cast<uint8_t>(MemoryOp::Allocation));
  CHECK(a.memoryKind == static_cast<uint8_t>(MemoryKind::Device));
  CHECK(a.correlationId == 31);
  CHECK(a.address == 0x7f0000001000ull);
  CHECK(a.bytes == (1ull << 33));
  CHECK(a.timestamp == 5000);
  CHECK(a.deviceId == 1);
  CHECK(a.contextId == 2);
  CHECK(a.streamId == 0xffffffffu);
  CHECK(a.isAsync == 0);
  CHECK(a.poolType == static_cast<uint8_t>(PoolType::None));
  CHECK(a.poolAddress == 0);

  const MemoryRecord& f = records[1];
  CHECK(f.operation == static_cast<uint8_t>(MemoryOp::Release));
  CHECK(f.memoryKind == static_cast<uint8_t>(MemoryKind::Managed));
  CHECK(f.timestamp == 9000);
  CHECK(f.streamId == 14);
  CHECK(f.isAsync == 1);
  CHECK(f.poolType == static_cast<uint8_t>(PoolType::Local));
  CHECK(f.poolAddress == 0x7f0000000000ull);
  CHECK(std::string(memoryOpName(f.operation)) == "free");
}

TEST_CASE("decoder: a memory record of no known operation is counted, not stored") {
  Trace trace;
  Decoder decoder(trace);
  auto m = zeroed<cupti::MemoryActivity>();
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID;
  decoder.decode(asActivity(&m));
  CHECK(trace.store.records<MemoryRecord>().size() == 0);
  CHECK(decoder.unknown() == 1);
  // A memory kind past the ones we know is kept as Unknown.
  m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  m.memoryKind = static_cast<CUpti_ActivityMemoryKind>(200);
  decoder.decode(asActivity(&m));
  REQUIRE(trace.store.records<MemoryRecord>().size() == 1);
  CHECK(trace.store.records<MemoryRecord>()[0].memoryKind == static_cast<uint8_t>(MemoryKind::Unknown));
}

TEST_CASE("decoder: memory pool records") {
  Trace trace;
  Decoder decoder(trace);
  auto p = zeroed<cupti::MemoryPoolActivity>();
  p.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
  p.memoryPoolOperationType = CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED;
  p.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
  p.correlationId = 8;
  p.deviceId = 3;
  p.minBytesToKeep = 4096;
  p.address = 0x1000;
  p.size = 1 << 21;
  p.releaseThreshold = 1 << 20;
  p.timestamp = 777;
  p.utilizedSize = 65536;
  p.isManagedPool = 1;
  decoder.decode(asActivity(&p));
  p.memoryPoolOperationType = static_cast<CUpti_ActivityMemoryPoolOperationType>(0);
  decoder.decode(asActivity(&p));

  const auto& pools = trace.store.records<MemoryPoolRecord>();
  REQUIRE(pools.size() == 1);
  const MemoryPoolRecord& r = pools[0];
  CHECK(r.operation == static_cast<uint8_t>(PoolOp::Trimmed));
  CHECK(std::string(poolOpName(r.operation)) == "trimmed");
  CHECK(r.poolType == static_cast<uint8_t>(PoolType::Local));
  CHECK(r.correlationId == 8);
  CHECK(r.deviceId == 3);
  CHECK(r.minBytesToKeep == 4096);
  CHECK(r.address == 0x1000);
  CHECK(r.size == (1u << 21));
  CHECK(r.releaseThreshold == (1u << 20));
  CHECK(r.timestamp == 777);
  CHECK(r.utilizedSize == 65536);
  CHECK(r.isManaged == 1);
  CHECK(decoder.unknown() == 1);
}

TEST_CASE("decoder: unified memory transfers and faults name the GPU involved") {
  Trace trace;
  Decoder decoder(trace);
  auto u = zeroed<cupti::UvmActivity>();
  u.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;

  u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD;
  u.start = 100; u.end = 300; u.value = 65536; u.address = 0xa000; u.srcId = 0; u.dstId = 2;
  u.flags = CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE;
  decoder.decode(asActivity(&u));

  u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH;
  u.start = 400; u.end = 450; u.value = 4096; u.srcId = 2; u.dstId = 0;
  u.flags = CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_EVICTION;
  decoder.decode(asActivity(&u));

  u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT;
  u.start = 500; u.end = 700; u.value = 3; u.srcId = 2; u.dstId = 99;
  u.flags = CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_WRITE;
  decoder.decode(asActivity(&u));

  u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT;
  u.start = 800; u.end = 12345;  // CUPTI says to ignore it
  u.value = 0x401000;            // the faulting instruction
  u.srcId = 77;                  // not valid for CPU faults
  decoder.decode(asActivity(&u));

  u.counterKind = static_cast<CUpti_ActivityUnifiedMemoryCounterKind>(99);
  u.start = 900; u.end = 950;
  decoder.decode(asActivity(&u));

  const auto& uvm = trace.store.records<UvmRecord>();
  REQUIRE(uvm.size() == 5);
  CHECK(uvm[0].kind == static_cast<uint8_t>(UvmKind::BytesHtoD));
  CHECK(uvm[0].start == 100);
  CHECK(uvm[0].end == 300);
  CHECK(uvm[0].value == 65536);
  CHECK(uvm[0].address == 0xa000);
  CHECK(uvm[0].deviceId == 2);
  CHECK(std::string(uvmCauseName(uvm[0].cause)) == "coherence");

  CHECK(uvm[1].kind == static_cast<uint8_t>(UvmKind::BytesDtoH));
  CHECK(uvm[1].deviceId == 2);
  CHECK(std::string(uvmCauseName(uvm[1].cause)) == "eviction");

  CHECK(uvm[2].kind == static_cast<uint8_t>(UvmKind::GpuPageFault));
  CHECK(uvm[2].deviceId == 2);
  CHECK(uvm[2].end == 700);
  CHECK(std::string(uvmAccessName(uvm[2].accessType)) == "write");

  CHECK(uvm[3].kind == static_cast<uint8_t>(UvmKind::CpuPageFault));
  CHECK(uvm[3].end == uvm[3].start);
  CHECK(uvm[3].deviceId == kUvmNoDevice);
  CHECK(uvm[3].value == 0x401000);

  CHECK(uvm[4].kind == static_cast<uint8_t>(UvmKind::Unknown));
  CHECK(uvm[4].end == uvm[4].start);
  CHECK(std::string(uvmKindName(uvm[0].kind)) == "HtoD");
  CHECK(std::string(uvmKindName(uvm[3].kind)) == "CPU page fault");
}

TEST_CASE("decoder: graph-level records") {
  Trace trace;
  Decoder decoder(trace);
  auto g = zeroed<cupti::GraphActivity>();
  g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  g.correlationId = 55;
  g.start = 10'000;
  g.end = 25'000;
  g.deviceId = 1;
  g.graphId = 9;
  g.contextId = 4;
  g.streamId = 13;
  g.endDeviceId = 2;
  g.endContextId = 5;
  decoder.decode(asActivity(&g));
  const auto& graphs = trace.store.records<GraphRecord>();
  REQUIRE(graphs.size() == 1);
  CHECK(graphs[0].correlationId == 55);
  CHECK(graphs[0].start == 10'000);
  CHECK(graphs[0].end == 25'000);
  CHECK(graphs[0].deviceId == 1);
  CHECK(graphs[0].graphId == 9);
  CHECK(graphs[0].contextId == 4);
  CHECK(graphs[0].streamId == 13);
  CHECK(graphs[0].endDeviceId == 2);
  CHECK(decoder.unknown() == 0);
}

TEST_CASE("decoder: a device record keeps its memory bandwidth, L2 cache and copy engines") {
  Trace trace;
  Decoder decoder(trace);
  auto d = zeroed<cupti::DeviceActivity>();
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.computeCapabilityMajor = 9;
  d.numMultiprocessors = 132;
  d.globalMemorySize = 85ull << 30;
  d.globalMemoryBandwidth = 3'352'320'000ull;  // KB/s
  d.l2CacheSize = 50u << 20;
  d.numMemcpyEngines = 3;
  d.coreClockRate = 1'980'000;
  decoder.decode(asActivity(&d));
  REQUIRE(trace.devices.size() == 1);
  const DeviceInfo& info = trace.devices[0];
  CHECK(info.memoryBandwidthKBps == 3'352'320'000ull);
  CHECK(info.l2CacheBytes == (50u << 20));
  CHECK(info.copyEngines == 3);
  CHECK(info.multiprocessors == 132);
  CHECK(info.coreClockKHz == 1'980'000);
}

TEST_CASE("decoder: a graph that started on the host is on the GPU it ended on") {
  Trace trace;
  Decoder decoder(trace);
  auto g = zeroed<cupti::GraphActivity>();
  g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  g.deviceId = 0x7fffffffu;
  g.contextId = 0x7fffffffu;
  g.endDeviceId = 1;
  g.endContextId = 3;
  g.start = 5;
  g.end = 9;
  decoder.decode(asActivity(&g));
  REQUIRE(trace.store.records<GraphRecord>().size() == 1);
  CHECK(trace.store.records<GraphRecord>()[0].deviceId == 1);
  CHECK(trace.store.records<GraphRecord>()[0].contextId == 3);
}
