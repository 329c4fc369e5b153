// The .pftrace encoded by several threads is the bytes one thread writes
// (exporters/pftrace/pftrace_chunks.h): over traces with many tracks, one
// very busy stream cut into many chunks and windows, arrows across chunks
// and windows, names and values first met deep in a later chunk (and first
// on another track), lanes, memory counters and GPU metrics between the
// events, a spilled store, and several traces merged into one file.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/gpu_metrics.h"
#include "core/journal.h"
#include "core/trace.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "exporters/pftrace/pftrace_chunks.h"
#include "gpu_metrics_fixture.h"
#include "memory_fixture.h"
#include "temp_dir.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using cuptitrace::testing::TempDir;

namespace {

constexpr uint32_t kBusyStream = 7;

void kernel(Trace& t, uint64_t start, uint64_t end, uint32_t corr, uint32_t stream, const std::string& name,
            uint32_t gridX) {
  KernelRecord k{};
  k.start = start;
  k.end = end;
  k.name = t.strings.intern(name);
  k.correlationId = corr;
  k.contextId = 1;
  k.streamId = stream;
  k.gridX = gridX;
  k.gridY = k.gridZ = 1;
  k.blockX = 256;
  k.blockY = k.blockZ = 1;
  k.registersPerThread = static_cast<uint16_t>(16 + corr % 5 * 8);
  t.store.add(k);
}

// `launches` launches: most from the main thread onto one busy stream
// (thousands of events past several chunks of one window), the others from
// 40 threads onto 20 streams. Kernel names and grid shapes new every few
// thousand launches (met first deep in a chunk, sometimes on a quiet
// track); slices that overlap on a stream (lanes); kernels queued far
// behind their call (arrows across chunks and windows); NVTX ranges of
// names of their own and marks; copies and sets (composed names);
// allocations and frees (memory counters) and GPU metric samples between
// the events.
void busyTrace(Trace& t, uint32_t launches, uint64_t seed) {
  std::mt19937_64 rng(seed);
  cuptitrace::testing::initTrace(t);
  t.contexts.push_back({1, 0, 7});
  const uint64_t b = t.meta.baseTimestampNs;
  const StringId set = t.strings.intern(encodeGpuMetricSet(cuptitrace::testing::fixtureMetrics()));
  uint64_t now = b + 1000;
  std::vector<uint64_t> streamFree(21, now);
  uint64_t nextSample = b;
  for (uint32_t corr = 1; corr <= launches; ++corr) {
    const bool busy = rng() % 4 != 0;
    const uint32_t tid = busy ? cuptitrace::testing::kSamplePid : 5000 + static_cast<uint32_t>(rng() % 40);
    now += 150 + rng() % 300;
    const uint64_t end = now + 100 + rng() % 100;
    if (corr % 97 == 0)
      cuptitrace::testing::addNvtx(t, NvtxType::PushPop, now - 5, end + 5 + rng() % 1000,
                                   "range " + std::to_string(corr), tid);
    if (corr % 501 == 0) cuptitrace::testing::addNvtx(t, NvtxType::Mark, now, now, "mark", tid);
    const char* call = corr % 3 == 0 ? "cudaLaunchKernel" : corr % 3 == 1 ? "cudaLaunchKernelExC" : "cuLaunchKernel";
    cuptitrace::testing::addApi(t, now, end, corr, tid, corr % 3 == 2 ? ApiDomain::Driver : ApiDomain::Runtime,
                                call);
    const uint32_t slot = busy ? 0 : 1 + static_cast<uint32_t>(rng() % 20);
    const uint32_t stream = slot == 0 ? kBusyStream : 100 + slot;
    uint64_t start = std::max(end + rng() % 200, streamFree[slot]);
    if (rng() % 13 == 0) start -= 40;         // overlaps the one before: a lane
    if (corr % 1500 == 0) start += 3'000'000;  // queued far behind its call
    const uint64_t length = 80 + rng() % 300;
    if (corr % 211 == 0) {
      MemcpyRecord m{};
      m.start = start;
      m.end = start + length;
      m.bytes = 4096;
      m.correlationId = corr;
      m.contextId = 1;
      m.streamId = stream;
      m.copyKind = static_cast<uint8_t>(1 + corr / 211 % 3);
      m.srcKind = 1;
      m.dstKind = 3;
      t.store.add(m);
    } else if (corr % 307 == 0) {
      MemsetRecord m{};
      m.start = start;
      m.end = start + length;
      m.bytes = 512;
      m.correlationId = corr;
      m.contextId = 1;
      m.streamId = stream;
      m.memoryKind = 3;
      t.store.add(m);
    } else {
      // A new name every 2500 launches, and new grid shapes now and then.
      const std::string name = "_Z" + std::to_string(corr / 2500 >= 10 ? 2 : 1) + "k" +
                               std::to_string(corr / 2500) + "v";
      kernel(t, start, start + length, corr, stream, corr % 2 ? name : "_Z3addPfS_S_i",
             128u << (corr / 3000 + corr % 2) % 16);
    }
    streamFree[slot] = start + length;
    if (corr % 400 == 0) {
      cuptitrace::testing::addAllocation(t, now + 1, 0x1000 * corr, 1 << 20, 0, MemoryKind::Device, corr);
      cuptitrace::testing::addFree(t, now + 50'000, 0x1000 * corr, 1 << 20, 0, MemoryKind::Device, corr);
    }
    for (; nextSample < now; nextSample += cuptitrace::testing::kMetricInterval)
      cuptitrace::testing::addSample(t, set, 0, nextSample, cuptitrace::testing::kFma.values);
  }
}

std::string pftrace(const Trace& t, size_t window, unsigned threads, PerfettoExportStats* stats) {
  std::ostringstream out;
  *stats = writePerfettoProto(t, out, window, threads);
  return out.str();
}

void same(const PerfettoExportStats& a, const PerfettoExportStats& b) {
  CHECK(a.events == b.events);
  CHECK(a.packets == b.packets);
  CHECK(a.bytes == b.bytes);
  CHECK(a.flows == b.flows);
  CHECK(a.laneTracks == b.laneTracks);
  CHECK(a.windows == b.windows);
}

// One thread's file and 2, 3 and 8 threads', byte for byte, for several
// window sizes; prints what was compared.
void compare(const Trace& t, const char* what) {
  size_t compared = 0, bytes = 0;
  uint64_t windows = 0;
  for (const size_t window : {kDefaultWindowSlices, size_t{40000}, size_t{7777}}) {
    PerfettoExportStats one{};
    const std::string serial = pftrace(t, window, 1, &one);
    // The busy stream alone has several chunks' events in a window.
    REQUIRE(one.events > 6 * pftrace::kChunkEvents);
    REQUIRE(one.laneTracks > 0);
    REQUIRE(one.flows > 0);
    for (const unsigned threads : {2u, 3u, 8u}) {
      PerfettoExportStats many{};
      const std::string parallel = pftrace(t, window, threads, &many);
      INFO("window " << window << ", " << threads << " threads");
      CHECK(parallel.size() == serial.size());
      const auto diff = std::mismatch(serial.begin(), serial.end(), parallel.begin(), parallel.end());
      CHECK(diff.first - serial.begin() == static_cast<std::ptrdiff_t>(serial.size()));
      CHECK(parallel == serial);
      same(many, one);
      ++compared;
    }
    bytes = std::max(bytes, serial.size());
    windows = std::max(windows, one.windows);
  }
  REQUIRE(windows > 5);
  std::printf("parallel pftrace (%s): %zu pairs of 1 and 2/3/8 threads byte-identical, up to %zu bytes, "
              "up to %llu windows\n",
              what, compared, bytes, static_cast<unsigned long long>(windows));
}

}  // namespace

TEST_CASE("parallel pftrace: the bytes of one thread, a busy stream over chunks and windows",
          "[parallel][pftrace]") {
  Trace t;
  busyTrace(t, 40000, 3);
  REQUIRE(t.store.count(RecordKind::Memory) > 0);
  REQUIRE(t.store.count(RecordKind::GpuMetric) > 0);
  compare(t, "in memory");
}

TEST_CASE("parallel pftrace: the bytes of one thread, spilled store", "[parallel][pftrace]") {
  TempDir dir;
  Trace t;
  enableSpillJournal(t, dir.path("run.spill"), SpillMode::Always);
  busyTrace(t, 30000, 5);
  REQUIRE(t.store.spilledChunks() >= 4);
  compare(t, "spilled");
}

TEST_CASE("parallel pftrace: merged traces are the bytes of one thread", "[parallel][pftrace]") {
  Trace a, b, c;
  busyTrace(a, 30000, 7);
  busyTrace(b, 20000, 8);
  busyTrace(c, 9000, 9);
  b.meta.hostName = "node2";
  c.meta.hostName = "node3";
  std::vector<TimelineInput> inputs = {timelineInput(a), timelineInput(b), timelineInput(c)};
  inputs[1].idOffset = 100000;
  inputs[1].gpuKey = 1;
  inputs[1].labels = {{"rank", "1"}};
  inputs[2].idOffset = 200000;
  inputs[2].gpuKey = 2;
  inputs[2].labels = {{"rank", "2"}};
  size_t compared = 0;
  for (const size_t window : {kDefaultWindowSlices, size_t{25000}}) {
    std::ostringstream serial;
    const PerfettoExportStats one = writePerfettoProto(inputs, serial, window, 1);
    REQUIRE(one.flows > 0);
    // The traces share the threads: 2, 3 and 8 each.
    for (const unsigned threads : {6u, 9u, 24u}) {
      std::ostringstream parallel;
      const PerfettoExportStats many = writePerfettoProto(inputs, parallel, window, threads);
      INFO("window " << window << ", " << threads << " threads");
      CHECK(parallel.str() == serial.str());
      same(many, one);
      ++compared;
    }
  }
  std::printf("parallel pftrace (3 traces merged): %zu pairs of 1 and 2/3/8 threads a trace byte-identical\n",
              compared);
}
