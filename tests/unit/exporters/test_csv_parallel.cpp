// CSV tables cut into pieces formatted by several threads are the bytes one
// thread writes: every kind's table, names that need quoting, unicode and
// invalid UTF-8, empty tables, pieces that cross the store's chunks.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "exporters/csv/csv.h"
#include "csv_table.h"
#include "every_kind_fixture.h"

namespace cuptitrace {

using testing::csvTableText;

TEST_CASE("CSV tables formatted by several threads are one thread's bytes", "[csv][parallel]") {
  Trace t;
  testing::fillEveryKind(t, 9000);  // kernels and calls over two store chunks
  size_t tables = 0, bytes = 0, empty = 0;
  for (int k = 0; k < kRecordKindCount; ++k) {
    const auto kind = static_cast<RecordKind>(k);
    if (csvColumns(kind).empty()) continue;
    const std::string serial = csvTableText(t, kind, 1, kCsvPieceRecords);
    REQUIRE(!serial.empty());  // the header at least
    empty += t.store.count(kind) == 0;
    for (const unsigned threads : {2u, 3u, 8u})
      for (const size_t piece : {size_t{1}, size_t{7}, size_t{1000}, size_t{4096}, kCsvPieceRecords}) {
        INFO(csvTableName(kind) << ": " << threads << " threads, pieces of " << piece << " records");
        CHECK(csvTableText(t, kind, threads, piece) == serial);
      }
    ++tables;
    bytes += serial.size();
  }
  // What was compared holds what needs quoting and replacing.
  const std::string kernels = csvTableText(t, RecordKind::Kernel, 1, kCsvPieceRecords);
  CHECK(kernels.find("\"kernel \"\"q\"\", \xC3\xA9\xE2\x9C\x93\"") != std::string::npos);
  CHECK(kernels.find("\"bad \xEF\xBF\xBD utf8\nline\"") != std::string::npos);
  CHECK(empty > 0);
  CHECK(t.store.count(RecordKind::Kernel) > 8192);
  std::printf("csv: %zu tables (%zu empty), %zu bytes the same by 1, 2, 3, 8 threads\n", tables, empty, bytes);
}

}  // namespace cuptitrace
