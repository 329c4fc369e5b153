// CSV tables cut into pieces formatted by several threads are the bytes one
// thread writes: every kind's table, names that need quoting, unicode and
// invalid UTF-8, empty tables, pieces that cross the store's chunks.
#include <catch2/catch.hpp>
#include <cstdio>
#include <sstream>
#include <string>

#include "core/gpu_metrics.h"
#include "exporters/csv/csv.h"
#include "memory_fixture.h"
#include "openacc_fixture.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

void fillKinds(Trace& t, uint32_t launches) {
  testing::fillSampleTrace(t);
  testing::openAccTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  const char* names[] = {"_Z1av", "kernel \"q\", \xC3\xA9\xE2\x9C\x93", " padded ", "bad \xFF utf8\nline"};
  for (uint32_t i = 0; i < launches; ++i) {
    const uint64_t at = b + 10'000 + i * 1000ull;
    testing::addApi(t, at, at + 300, 100 + i, 4242 + i % 3, i % 2 ? ApiDomain::Driver : ApiDomain::Runtime,
                    i % 5 ? "cudaLaunchKernel" : "cuLaunchKernel");
    testing::addKernel(t, at + 400, i % 9 ? at + 900 : 0, 100 + i, 7 + i % 3, names[i % 4]);
    if (i % 7 == 0) testing::addNvtx(t, NvtxType::PushPop, at, at + 950, names[(i / 7) % 4], 4242);
    if (i % 11 == 0) testing::addGraphKernel(t, at + 400, at + 900, 9, i, 100 + i);
    if (i % 17 == 0) testing::addAllocation(t, at, 0x7f00 + i, 4096, 0, MemoryKind::Device, 100 + i);
    if (i % 19 == 0) testing::addUvm(t, i % 2 ? UvmKind::BytesHtoD : UvmKind::GpuPageFault, at, at + 10, 4096, 0);
    if (i % 23 == 0) {
      ExternalIdRecord e{};
      e.externalId = i;
      e.correlationId = 100 + i;
      e.externalKind = static_cast<uint8_t>(ExternalKind::Id);
      t.store.add(e);
    }
  }
  const StringId set =
      t.strings.intern(encodeGpuMetricSet({describeGpuMetric("gr__cycles_active.avg.pct_of_peak_sustained_elapsed")}));
  for (uint32_t i = 0; i < 300; ++i) {
    GpuMetricRecord r{};
    r.start = b + i * 100'000ull;
    r.end = r.start + 100'000;
    r.metricSet = set;
    r.values[0] = static_cast<float>(i % 100) / 3;
    t.store.add(r);
  }
}

std::string table(const Trace& t, RecordKind kind, unsigned threads, size_t pieceRecords) {
  std::ostringstream out;
  writeCsvTable(t, kind, out, threads, pieceRecords);
  return out.str();
}

}  // namespace

TEST_CASE("CSV tables formatted by several threads are one thread's bytes", "[csv][parallel]") {
  Trace t;
  fillKinds(t, 9000);  // kernels and calls over two store chunks
  size_t tables = 0, bytes = 0, empty = 0;
  for (int k = 0; k < kRecordKindCount; ++k) {
    const auto kind = static_cast<RecordKind>(k);
    if (csvColumns(kind).empty()) continue;
    const std::string serial = table(t, kind, 1, kCsvPieceRecords);
    REQUIRE(!serial.empty());  // the header at least
    empty += t.store.count(kind) == 0;
    for (const unsigned threads : {2u, 3u, 8u})
      for (const size_t piece : {size_t{1}, size_t{7}, size_t{1000}, size_t{4096}, kCsvPieceRecords}) {
        INFO(csvTableName(kind) << ": " << threads << " threads, pieces of " << piece << " records");
        CHECK(table(t, kind, threads, piece) == serial);
      }
    ++tables;
    bytes += serial.size();
  }
  // What was compared holds what needs quoting and replacing.
  const std::string kernels = table(t, RecordKind::Kernel, 1, kCsvPieceRecords);
  CHECK(kernels.find("\"kernel \"\"q\"\", \xC3\xA9\xE2\x9C\x93\"") != std::string::npos);
  CHECK(kernels.find("\"bad \xEF\xBF\xBD utf8\nline\"") != std::string::npos);
  CHECK(empty > 0);
  CHECK(t.store.count(RecordKind::Kernel) > 8192);
  std::printf("csv: %zu tables (%zu empty), %zu bytes the same by 1, 2, 3, 8 threads\n", tables, empty, bytes);
}

}  // namespace cuptitrace
