// The reports are valid UTF-8 in every rendering (text, CSV, JSON, the
// reports file), whatever bytes the program's names held: invalid sequences
// become U+FFFD, as in the JSON timeline.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "reports/report_table.h"
#include "reports/reports.h"
#include "temp_dir.h"
#include "utf8_check.h"

namespace cuptitrace {
namespace {

using namespace testing;

TEST_CASE("report rendering: every format is valid UTF-8, U+FFFD where names held invalid bytes",
          "[report][utf8]") {
  Trace t;
  fillBadNamesTrace(t);
  const std::vector<ReportTable> tables = buildAllReports(t, ReportOptions{});
  RenderOptions wide;
  wide.nameWidth = 0;
  for (const ReportFormat format : {ReportFormat::Table, ReportFormat::Csv, ReportFormat::Json}) {
    for (const RenderOptions& options : {RenderOptions{}, wide}) {
      const std::string text = renderTables(tables, format, options);
      INFO("format " << static_cast<int>(format) << ", name width " << options.nameWidth);
      CHECK(wellFormedUtf8(text));
      CHECK(contains(text, kFixedMessage));  // the NVTX range's
      CHECK(contains(text, kFixedKernel));   // the kernel's
    }
  }
  TempDir dir;
  std::string error;
  REQUIRE(writeReportsFile(tables, dir.path("t.reports.txt"), error, false));
  std::ifstream in(dir.path("t.reports.txt"), std::ios::binary);
  const std::string file{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  CHECK(wellFormedUtf8(file));
  CHECK(contains(file, kFixedMessage));
}

TEST_CASE("report rendering: a name cut to its width stays valid UTF-8 around replaced bytes", "[report][utf8]") {
  // Cut in the middle of a run of bad bytes: each counts as one character.
  const std::string name = "ab\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF" "cd";
  const std::string shown = displayName(name, 9);
  CHECK(wellFormedUtf8(shown));
  CHECK(shown == "ab" + kReplacement + "..." + kReplacement + "cd");
}

}  // namespace
}  // namespace cuptitrace
