// The native format keeps memory, memory pool, unified memory and graph
// records, and the device details added after its first release.
#include <catch2/catch.hpp>

#include <sstream>

#include "exporters/native/native.h"
#include "memory_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;

TEST_CASE("native: memory, unified memory and graph records and device details round-trip") {
  Trace t;
  t.meta.pid = 7;
  DeviceInfo d{0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-0"};
  d.memoryBandwidthKBps = 3'352'320'000ull;
  d.l2CacheBytes = 50u << 20;
  d.copyEngines = 3;
  t.devices.push_back(d);
  t.devices.push_back({1, "other", 8, 0, 108, 40ull << 30, 1410000, ""});
  addAllocation(t, 100, 0xA000, 1ull << 33, 0, MemoryKind::Managed, 3);
  addFree(t, 200, 0xA000, 1ull << 33, 0, MemoryKind::Managed, 4);
  addUvm(t, UvmKind::GpuPageFault, 300, 400, 3, 0);
  addGraphLaunch(t, 500, 900, 5, 9);
  MemoryPoolRecord p{};
  p.timestamp = 50;
  p.minBytesToKeep = 4096;
  p.isManaged = 1;
  t.store.add(p);

  std::stringstream bytes;
  writeNative(t, bytes);
  Trace back;
  std::string error;
  REQUIRE(readNative(bytes, back, error));
  CHECK(error.empty());
  REQUIRE(back.devices.size() == 2);
  CHECK(back.devices[0].memoryBandwidthKBps == 3'352'320'000ull);
  CHECK(back.devices[0].l2CacheBytes == (50u << 20));
  CHECK(back.devices[0].copyEngines == 3);
  CHECK(back.devices[1].memoryBandwidthKBps == 0);
  REQUIRE(back.store.records<MemoryRecord>().size() == 2);
  CHECK(back.store.records<MemoryRecord>()[0].bytes == (1ull << 33));
  CHECK(back.store.records<MemoryRecord>()[1].operation == static_cast<uint8_t>(MemoryOp::Release));
  REQUIRE(back.store.records<UvmRecord>().size() == 1);
  CHECK(back.store.records<UvmRecord>()[0].value == 3);
  REQUIRE(back.store.records<GraphRecord>().size() == 1);
  CHECK(back.store.records<GraphRecord>()[0].graphId == 5);
  REQUIRE(back.store.records<MemoryPoolRecord>().size() == 1);
  CHECK(back.store.records<MemoryPoolRecord>()[0].minBytesToKeep == 4096);
  CHECK(back.store.records<MemoryPoolRecord>()[0].isManaged == 1);
}
