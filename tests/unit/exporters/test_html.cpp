#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/config.h"
#include "exporters/export_all.h"
#include "exporters/html/html_report.h"
#include "exporters/html/html_series.h"
#include "gpu_metrics_fixture.h"
#include "temp_dir.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using cuptitrace::html::SeriesPoint;
using cuptitrace::html::SeriesReducer;

namespace {

std::string page(const Trace& t) {
  std::ostringstream out;
  HtmlOptions options;
  options.source = "test.native";
  writeHtmlReport(t, reportOptionsFromMetadata(t.meta), options, out);
  return out.str();
}

// The JSON the page embeds, parsed.
nlohmann::json embedded(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"cuptitrace-data\">";
  const size_t from = html.find(open);
  REQUIRE(from != std::string::npos);
  const size_t to = html.find("</script>", from);
  REQUIRE(to != std::string::npos);
  return nlohmann::json::parse(html.substr(from + open.size(), to - from - open.size()));
}

// The page without the chart library's script (whose code names an <img src> it builds for
// its own image export, never loaded by the page).
std::string withoutLibrary(const std::string& html) {
  const size_t from = html.find("Licensed to the Apache Software Foundation");
  REQUIRE(from != std::string::npos);
  const size_t to = html.find("</script>", from);
  REQUIRE(to != std::string::npos);
  return html.substr(0, from) + html.substr(to);
}

}  // namespace

TEST_CASE("html series: short series are kept exactly, in time order", "[html]") {
  SeriesReducer r(0, 1000, 100);
  for (uint64_t t = 50; t > 0; --t) r.add(t * 10, static_cast<double>(t));
  const auto ps = r.points();
  REQUIRE(ps.size() == 50);
  CHECK(ps.front().t == 10);
  CHECK(ps.back().t == 500);
  CHECK(std::is_sorted(ps.begin(), ps.end(), [](const SeriesPoint& a, const SeriesPoint& b) { return a.t < b.t; }));
  CHECK(r.added() == 50);
}

TEST_CASE("html series: a long series is cut to the limit and keeps its extremes", "[html]") {
  const size_t limit = 1000;
  const uint64_t n = 1'000'000;
  SeriesReducer r(0, n - 1, limit);
  for (uint64_t t = 0; t < n; ++t) {
    double v = static_cast<double>(t % 100);
    if (t == 123'457) v = 5000;  // one spike
    if (t == 777'777) v = -40;   // one dip
    r.add(t, v);
  }
  const auto ps = r.points();
  CHECK(ps.size() <= limit);
  CHECK(ps.size() >= limit / 2);
  CHECK(std::is_sorted(ps.begin(), ps.end(), [](const SeriesPoint& a, const SeriesPoint& b) { return a.t < b.t; }));
  const auto hi = std::max_element(ps.begin(), ps.end(), [](const SeriesPoint& a, const SeriesPoint& b) { return a.v < b.v; });
  const auto lo = std::min_element(ps.begin(), ps.end(), [](const SeriesPoint& a, const SeriesPoint& b) { return a.v < b.v; });
  CHECK(hi->v == 5000);
  CHECK(hi->t == 123'457);
  CHECK(lo->v == -40);
  CHECK(lo->t == 777'777);
  CHECK(r.added() == n);
}

TEST_CASE("html page: self-contained, with its policy, the library and the reports", "[html]") {
  Trace t;
  testing::fillSampleTrace(t);
  const std::string html = page(t);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("default-src 'none'") != std::string::npos);
  CHECK(html.find("connect-src 'none'") != std::string::npos);
  CHECK(html.find("Licensed to the Apache Software Foundation") != std::string::npos);  // ECharts, inline
  CHECK(html.find("CT.tabOverview") != std::string::npos);                             // the page's script
  const std::string own = withoutLibrary(html);
  CHECK(own.find(" src=") == std::string::npos);
  CHECK(own.find("<link") == std::string::npos);
  CHECK(own.find("url(") == std::string::npos);
  const nlohmann::json data = embedded(html);
  CHECK(data["kind"] == "trace");
  CHECK(data["run"]["command"] == t.meta.commandLine);
  REQUIRE(data["run"]["devices"].size() == 1);
  CHECK(data["run"]["devices"][0]["name"] == "NVIDIA H100 80GB HBM3");
  CHECK(data["run"]["devices"][0]["compute_capability"] == "9.0");
  // Every report, in the catalog's order, with the stats' rows.
  const auto& catalog = reportCatalog();
  REQUIRE(data["reports"].size() >= catalog.size());
  for (size_t i = 0; i < catalog.size(); ++i) CHECK(data["reports"][i]["name"] == catalog[i].name);
  const auto kernels = std::find_if(data["reports"].begin(), data["reports"].end(),
                                    [](const nlohmann::json& r) { return r["name"] == "kernels"; });
  REQUIRE(kernels != data["reports"].end());
  CHECK((*kernels)["rows"].size() == 3);
  uint64_t total = 0;
  for (const auto& row : (*kernels)["rows"]) total += row["total_ns"].get<uint64_t>();
  CHECK(total == 12000 + 6000 + 6000);
  // A small trace travels in the page, for Perfetto.
  CHECK(data["timeline"].is_string());
  CHECK(data["timeline"].get<std::string>().size() > 100);
}

TEST_CASE("html page: a name cannot end the data's script element", "[html]") {
  Trace t;
  testing::initTrace(t);
  testing::addApi(t, 1'000'001'000, 1'000'002'000, 1);
  testing::addKernel(t, 1'000'003'000, 1'000'009'000, 1, 7, "</script><script>alert(1)</script><!--");
  const std::string html = page(t);
  CHECK(html.find("</script><script>alert(1)") == std::string::npos);
  CHECK(html.find("<!--") == std::string::npos);
  const nlohmann::json data = embedded(html);
  bool found = false;
  for (const auto& r : data["reports"])
    if (r["name"] == "kernels")
      for (const auto& row : r["rows"]) found = found || row["name"] == "</script><script>alert(1)</script><!--";
  CHECK(found);
}

TEST_CASE("html page: GPU metrics and memory as series over time", "[html]") {
  Trace t;
  testing::gpuMetricsTrace(t);
  HtmlOptions options;
  options.seriesPoints = 200;
  std::ostringstream out;
  writeHtmlReport(t, reportOptionsFromMetadata(t.meta), options, out);
  const nlohmann::json data = embedded(out.str());
  const auto& metrics = data["series"]["gpu_metrics"];
  REQUIRE(metrics.size() == 9);
  for (const auto& s : metrics) {
    CHECK(s["samples"] == 2454);
    CHECK(s["points"].size() <= 200);
    CHECK(s["points"].size() >= 100);
  }
  // SMs Active reaches 99 while the copy kernel runs, and 0 when idle: both kept.
  const auto active = std::find_if(metrics.begin(), metrics.end(), [](const nlohmann::json& s) { return s["name"] == "SMs Active"; });
  REQUIRE(active != metrics.end());
  double hi = -1, lo = 1e9;
  for (const auto& p : (*active)["points"]) hi = std::max(hi, p[1].get<double>()), lo = std::min(lo, p[1].get<double>());
  CHECK(hi == 99);
  CHECK(lo == 0);
  CHECK(data["series"]["memory"].empty());
}

TEST_CASE("html page: CUPTITRACE_FORMAT=html writes PREFIX.html at exit", "[html]") {
  Trace t;
  testing::fillSampleTrace(t);
  testing::TempDir dir;
  const std::string prefix = (dir.path() / "run").string();
  const ExportResult r = exportAll(t, kFormatHtml, prefix);
  REQUIRE(r.errors.empty());
  REQUIRE(r.written == std::vector<std::string>{prefix + ".html"});
  std::ifstream in(prefix + ".html");
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(embedded(html)["run"]["process"] == "sample_app");
  CHECK(outputsExist(prefix));
}
