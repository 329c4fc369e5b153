#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "exporters/csv/csv.h"

using namespace cuptitrace;

TEST_CASE("docs/outputs.md documents every CSV table's exact header", "[csv]") {
  std::ifstream in(std::string(CUPTITRACE_SOURCE_DIR) + "/docs/outputs.md");
  REQUIRE(in);
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (int k = 0; k < kRecordKindCount; ++k) {
    const auto kind = static_cast<RecordKind>(k);
    std::string header;
    for (const auto& c : csvColumns(kind)) header += (header.empty() ? "" : ",") + c;
    INFO(csvTableName(kind));
    CHECK_THAT(readme, Catch::Contains(std::string("| `") + csvTableName(kind) + "` | `" + header + "` |"));
  }
}
