// The decoder on CUPTI records built by hand in memory: no GPU, no driver.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "collectors/cupti_versions.h"
#include "collectors/decoder.h"
#include "activity_fixture.h"

using namespace cuptitrace;
using cuptitrace::testing::asActivity;
using cuptitrace::testing::zeroed;

TEST_CASE("decoder: kernel record keeps every field") {
  Trace trace;
  Decoder decoder(trace);
  const char* name = "_Z6kernelIfEvPT_\"q\"\\\n";
  auto k = zeroed<cupti::KernelActivity>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1000;
  k.end = 2500;
  k.deviceId = 1;
  k.contextId = 2;
  k.streamId = 13;
  k.gridX = 100000; k.gridY = 2; k.gridZ = 3;
  k.blockX = 1024; k.blockY = 1; k.blockZ = 64;
  k.registersPerThread = 255;
  k.staticSharedMemory = 4096;
  k.dynamicSharedMemory = 49152;
  k.correlationId = 77;
  k.name = name;
  k.graphId = 5;
  k.graphNodeId = 0x1234567890ull;
  k.launchType = 1;
  decoder.decode(asActivity(&k));

  const auto& kernels = trace.store.records<KernelRecord>();
  REQUIRE(kernels.size() == 1);
  const auto& r = kernels[0];
  CHECK(r.start == 1000);
  CHECK(r.end == 2500);
  CHECK(r.deviceId == 1);
  CHECK(r.contextId == 2);
  CHECK(r.streamId == 13);
  CHECK(r.gridX == 100000);
  CHECK(r.gridY == 2);
  CHECK(r.gridZ == 3);
  CHECK(r.blockX == 1024);
  CHECK(r.blockZ == 64);
  CHECK(r.registersPerThread == 255);
  CHECK(r.staticSharedMemory == 4096);
  CHECK(r.dynamicSharedMemory == 49152);
  CHECK(r.correlationId == 77);
  CHECK(r.graphId == 5);
  CHECK(r.graphNodeId == 0x1234567890ull);
  CHECK(r.launchType == 1);
  CHECK(trace.strings.get(r.name) == name);
}

TEST_CASE("decoder: the same kernel name pointer is interned once") {
  Trace trace;
  Decoder decoder(trace);
  static const char* name = "_Z3addPfS_S_i";
  auto k = zeroed<cupti::KernelActivity>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = name;
  const size_t before = trace.strings.size();
  for (int i = 0; i < 100; ++i) decoder.decode(asActivity(&k));
  CHECK(trace.store.records<KernelRecord>().size() == 100);
  CHECK(trace.strings.size() == before + 1);
}

TEST_CASE("decoder: zero timestamps are kept as they are, not invented") {
  Trace trace;
  Decoder decoder(trace);
  auto k = zeroed<cupti::KernelActivity>();
  k.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  k.start = 5;
  k.end = 0;  // CUPTI could not collect the end
  decoder.decode(asActivity(&k));
  REQUIRE(trace.store.records<KernelRecord>().size() == 1);
  CHECK(trace.store.records<KernelRecord>()[0].end == 0);
  CHECK(trace.store.records<KernelRecord>()[0].name == kNoString);
}

TEST_CASE("decoder: memcpy, peer-to-peer memcpy and memset") {
  Trace trace;
  Decoder decoder(trace);
  auto m = zeroed<cupti::MemcpyActivity>();
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  m.bytes = 1ull << 33;
  m.start = 10;
  m.end = 20;
  m.deviceId = 3;
  m.streamId = 7;
  m.correlationId = 9;
  decoder.decode(asActivity(&m));

  auto p = zeroed<cupti::MemcpyPtoPActivity>();
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.srcKind = p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.bytes = 4096;
  p.deviceId = 0;
  p.srcDeviceId = 0;
  p.dstDeviceId = 1;
  p.correlationId = 10;
  decoder.decode(asActivity(&p));

  auto s = zeroed<cupti::MemsetActivity>();
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.value = 0xAB;
  s.bytes = 256;
  s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  s.flags = 0;
  s.correlationId = 11;
  decoder.decode(asActivity(&s));

  const auto& copies = trace.store.records<MemcpyRecord>();
  REQUIRE(copies.size() == 2);
  CHECK(copies[0].copyKind == static_cast<uint8_t>(CopyKind::HtoD));
  CHECK(copies[0].srcKind == static_cast<uint8_t>(MemoryKind::Pageable));
  CHECK(copies[0].dstKind == static_cast<uint8_t>(MemoryKind::Device));
  CHECK(copies[0].flags == kCopyFlagAsync);
  CHECK(copies[0].bytes == (1ull << 33));
  CHECK(copies[0].srcDeviceId == 3);
  CHECK(copies[0].dstDeviceId == 3);
  CHECK(copies[1].copyKind == static_cast<uint8_t>(CopyKind::PtoP));
  CHECK(copies[1].srcDeviceId == 0);
  CHECK(copies[1].dstDeviceId == 1);
  CHECK(copies[1].flags == 0);

  const auto& sets = trace.store.records<MemsetRecord>();
  REQUIRE(sets.size() == 1);
  CHECK(sets[0].value == 0xAB);
  CHECK(sets[0].bytes == 256);
  CHECK(sets[0].memoryKind == static_cast<uint8_t>(MemoryKind::Managed));
  CHECK(sets[0].correlationId == 11);
}

TEST_CASE("decoder: runtime and driver API records get readable names") {
  Trace trace;
  Decoder decoder(trace);
  auto a = zeroed<cupti::ApiActivity>();
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  a.start = 100;
  a.end = 200;
  a.threadId = 4321;
  a.processId = 1;
  a.correlationId = 55;
  a.returnValue = 2;
  decoder.decode(asActivity(&a));
  a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  a.cbid = CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2;
  decoder.decode(asActivity(&a));

  const auto& api = trace.store.records<ApiRecord>();
  REQUIRE(api.size() == 2);
  CHECK(trace.strings.get(api[0].name) == "cudaLaunchKernel");
  CHECK(api[0].domain == static_cast<uint8_t>(ApiDomain::Runtime));
  CHECK(api[0].threadId == 4321);
  CHECK(api[0].returnValue == 2);
  CHECK(api[0].correlationId == 55);
  CHECK(trace.strings.get(api[1].name) == "cuMemAlloc_v2");
  CHECK(api[1].domain == static_cast<uint8_t>(ApiDomain::Driver));
}

TEST_CASE("decoder: API name suffixes") {
  CHECK(apiCallName(ApiDomain::Runtime, "cudaMemcpy_v3020") == "cudaMemcpy");
  CHECK(apiCallName(ApiDomain::Runtime, "cudaGraphLaunch_v10000") == "cudaGraphLaunch");
  CHECK(apiCallName(ApiDomain::Runtime, "cudaFoo_vX") == "cudaFoo_vX");
  CHECK(apiCallName(ApiDomain::Driver, "cuMemAlloc_v2") == "cuMemAlloc_v2");
  CHECK(apiCallName(ApiDomain::Runtime, nullptr).empty());
}

TEST_CASE("decoder: synchronization and overhead records") {
  Trace trace;
  Decoder decoder(trace);
  auto s = zeroed<cupti::SyncActivity>();
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  s.start = 1;
  s.end = 9;
  s.streamId = 4;
  s.contextId = 1;
  s.cudaEventId = 0xffffffffu;
  s.correlationId = 3;
  decoder.decode(asActivity(&s));
  auto o = zeroed<cupti::OverheadActivity>();
  o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  o.objectId.pt.threadId = 99;
  o.start = 5;
  o.end = 6;
  decoder.decode(asActivity(&o));

  REQUIRE(trace.store.records<SyncRecord>().size() == 1);
  CHECK(trace.store.records<SyncRecord>()[0].type == static_cast<uint8_t>(SyncType::StreamSynchronize));
  CHECK(trace.store.records<SyncRecord>()[0].streamId == 4);
  REQUIRE(trace.store.records<OverheadRecord>().size() == 1);
  CHECK(trace.strings.get(trace.store.records<OverheadRecord>()[0].name) == "CUPTI buffer flush");
  CHECK(trace.store.records<OverheadRecord>()[0].threadId == 99);
}

TEST_CASE("decoder: device, context and name records describe the tracks") {
  Trace trace;
  Decoder decoder(trace);
  auto d = zeroed<cupti::DeviceActivity>();
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.computeCapabilityMajor = 9;
  d.numMultiprocessors = 132;
  d.globalMemorySize = 85899345920ull;
  decoder.decode(asActivity(&d));
  decoder.decode(asActivity(&d));  // a repeat replaces, never duplicates

  auto c = zeroed<cupti::ContextActivity>();
  c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  c.contextId = 1;
  c.deviceId = 0;
  c.nullStreamId = 7;
  decoder.decode(asActivity(&c));

  auto n = zeroed<cupti::NameActivity>();
  n.kind = CUPTI_ACTIVITY_KIND_NAME;
  n.objectKind = CUPTI_ACTIVITY_OBJECT_STREAM;
  n.objectId.dcs.streamId = 13;
  n.name = "copies";
  decoder.decode(asActivity(&n));
  auto cn = zeroed<cupti::NameActivity>();
  cn.kind = CUPTI_ACTIVITY_KIND_NAME;
  cn.objectKind = CUPTI_ACTIVITY_OBJECT_CONTEXT;
  cn.objectId.dcs.deviceId = 3;
  cn.objectId.dcs.contextId = 2;
  cn.name = "trainer";
  decoder.decode(asActivity(&cn));

  REQUIRE(trace.devices.size() == 1);
  CHECK(trace.devices[0].name == "NVIDIA H100 80GB HBM3");
  CHECK(trace.devices[0].computeMajor == 9);
  CHECK(trace.devices[0].multiprocessors == 132);
  CHECK(trace.devices[0].uuid.rfind("GPU-", 0) == 0);
  REQUIRE(trace.contexts.size() == 1);
  CHECK(trace.contexts[0].nullStreamId == 7);
  CHECK(trace.streamNames.at(13) == "copies");
  // Named by context id; not taken for a stream or device name.
  const std::map<uint32_t, std::string> contextNames{{2, "trainer"}};
  CHECK(trace.contextNames == contextNames);
  CHECK(trace.streamNames.size() == 1);
  CHECK(trace.deviceNames.empty());
}

TEST_CASE("decoder: an unknown kind is counted, not fatal") {
  Trace trace;
  Decoder decoder(trace);
  auto k = zeroed<cupti::KernelActivity>();  // big enough for any header read
  k.kind = static_cast<CUpti_ActivityKind>(0x7ff0);
  decoder.decode(asActivity(&k));
  k.kind = CUPTI_ACTIVITY_KIND_PC_SAMPLING;
  decoder.decode(asActivity(&k));
  CHECK(decoder.unknown() == 2);
  CHECK(trace.store.count(RecordKind::Kernel) == 0);
  decoder.publishCounters();
  CHECK(trace.counters.at("unknown_records") == 2);
}

TEST_CASE("decoder: a store over its budget drops and counts records") {
  Trace trace;
  trace.store.setMaxBytes(ChunkedVector<KernelRecord>::kChunkBytes);  // one chunk
  Decoder decoder(trace);
  auto k = zeroed<cupti::KernelActivity>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  const size_t perChunk = ChunkedVector<KernelRecord>::kChunkBytes / sizeof(KernelRecord);
  for (size_t i = 0; i < perChunk + 10; ++i) decoder.decode(asActivity(&k));
  CHECK(trace.store.count(RecordKind::Kernel) == perChunk);
  CHECK(trace.store.dropped(RecordKind::Kernel) == 10);
  CHECK(trace.totalDropped() == 10);
}
