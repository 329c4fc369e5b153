// The .pftrace exporter's speed and size on a million kernels (not run by default).
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <ostream>
#include <streambuf>

#include "core/trace.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "pftrace_readback.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing::pftrace;
using cuptitrace::testing::initTrace;

// Not run by default: `exporter_tests "[.bench]"` (or "[pftrace-bench]").
TEST_CASE("pftrace: export speed and size", "[.bench][pftrace-bench]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  const StringId kernelNames[4] = {
      t.strings.intern("_ZN7cutlass6KernelINS_4gemm6kernel4GemmIfEEEEvNT_6ParamsE"),
      t.strings.intern("_Z6kernelPfi"), t.strings.intern("_Z3addPfS_S_i"),
      t.strings.intern("_Z7softmaxPKfPfi")};
  const StringId launch = t.strings.intern("cudaLaunchKernel");
  const uint32_t n = 1'000'000;
  auto fill = [&](bool withCalls) {
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t at = b + uint64_t{i} * 1000;
      if (withCalls) {
        ApiRecord a{};
        a.start = at;
        a.end = at + 400;
        a.name = launch;
        a.correlationId = 1'000'000 + i;
        a.threadId = kHostPid + i % 4;
        a.cbid = 211;
        t.store.add(a);
      }
      KernelRecord k{};  // a realistic launch: every argument set
      k.start = at + 500 + i % 7;
      k.end = at + 900;
      k.name = kernelNames[i % 4];
      k.correlationId = 1'000'000 + i;
      k.deviceId = 0;
      k.contextId = 1;
      k.streamId = 7 + i % 8;
      k.gridX = 128 << (i % 3);
      k.gridY = k.gridZ = 1;
      k.blockX = 256;
      k.blockY = k.blockZ = 1;
      k.registersPerThread = 32;
      k.staticSharedMemory = 1024;
      k.dynamicSharedMemory = 0;
      t.store.add(k);
    }
  };
  // Counts the bytes and drops them: the exporter is measured, not a stream's growth.
  struct Sink : std::streambuf {
    size_t bytes = 0;
    std::streamsize xsputn(const char*, std::streamsize count) override {
      bytes += static_cast<size_t>(count);
      return count;
    }
    int overflow(int c) override {
      ++bytes;
      return c;
    }
  };
  auto run = [&](const char* what) {
    Sink sink;
    std::ostream out(&sink);
    const auto start = std::chrono::steady_clock::now();
    const PerfettoExportStats stats = writePerfettoProto(t, out);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << what << ": " << stats.events << " events, " << sink.bytes / 1e6 << " MB in "
              << seconds << " s: " << stats.events / seconds / 1e6 << " M events/s, "
              << static_cast<double>(sink.bytes) / static_cast<double>(stats.events)
              << " bytes/event, " << static_cast<double>(sink.bytes) / n << " bytes per kernel"
              << (t.store.count(RecordKind::Api) ? " and its launch call" : "") << "\n";
    return stats;
  };
  fill(false);
  run("1 M kernels (begin + end, 12 args each)");
  t.store.mutableRecords<KernelRecord>().clear();
  fill(true);
  const PerfettoExportStats stats = run("1 M kernels + 1 M launch calls with arrows");
  CHECK(stats.flows == n);
}
