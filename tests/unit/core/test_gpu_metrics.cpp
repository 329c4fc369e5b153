// The GPU metrics catalog, the default set's choice, the set's text in the
// trace's strings, and the rate and list settings.
#include <catch2/catch.hpp>
#include <set>

#include "core/config.h"
#include "core/gpu_metrics.h"
#include "core/records.h"

using namespace cuptitrace;

TEST_CASE("gpu metrics: the catalog names metrics as Nsight Systems does") {
  const GpuMetric sm = describeGpuMetric("sm__cycles_active.avg.pct_of_peak_sustained_elapsed");
  CHECK(sm.role == GpuMetricRole::SmActive);
  CHECK(sm.displayName() == "SMs Active [Throughput %]");
  CHECK(describeGpuMetric("sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed")
            .displayName() == "SM Issue [Throughput %]");
  CHECK(describeGpuMetric("dram__read_throughput.avg.pct_of_peak_sustained_elapsed").role ==
        GpuMetricRole::DramReadPct);
  const GpuMetric clock = describeGpuMetric("gpc__cycles_elapsed.avg.per_second");
  CHECK(clock.displayName() == "GPC Clock Frequency [MHz]");
  CHECK(clock.scale == Approx(1e-6));
  // A metric the catalog does not know keeps its name, with a unit read from it.
  const GpuMetric other = describeGpuMetric("lts__t_sectors.sum.per_second");
  CHECK(other.role == GpuMetricRole::Other);
  CHECK(other.label == "lts__t_sectors.sum.per_second");
  CHECK(other.unit == "/s");
  CHECK(describeGpuMetric("lts__throughput.avg.pct_of_peak_sustained_elapsed").unit == "%");
  CHECK(describeGpuMetric("l1tex__t_bytes.sum.per_second").unit == "bytes/s");
  // Every role has a candidate, and no candidate is in two roles.
  std::set<std::string> seen;
  for (const GpuMetricRoleInfo& r : gpuMetricCatalog()) {
    CHECK_FALSE(r.candidates.empty());
    for (const char* c : r.candidates) CHECK(seen.insert(c).second);
  }
}

TEST_CASE("gpu metrics: the default set takes each role's first metric that fits in one pass") {
  // A chip without the bytes' percent of peak or dramc__ (its DRAM bandwidth
  // is dram__..._throughput), without NVLink, that fits at most 8 metrics in a pass.
  auto fits = [](const std::vector<std::string>& set) {
    if (set.size() > 8) return false;
    for (const auto& m : set)
      if (m.rfind("dramc__", 0) == 0 || m.rfind("nvl", 0) == 0 || m.find(".sum.pct") != std::string::npos)
        return false;
    return true;
  };
  const std::vector<std::string> chosen = chooseDefaultGpuMetrics(fits);
  REQUIRE(chosen.size() == 8);
  CHECK(chosen[0] == "gr__cycles_active.avg.pct_of_peak_sustained_elapsed");
  CHECK(chosen[1] == "sm__cycles_active.avg.pct_of_peak_sustained_elapsed");
  CHECK(chosen[2] == "sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed");
  CHECK(chosen[4] == "dram__read_throughput.avg.pct_of_peak_sustained_elapsed");
  CHECK(chosen[5] == "dram__write_throughput.avg.pct_of_peak_sustained_elapsed");
  // Everything fits: one metric per role, NVLink and the clock included.
  const auto all = chooseDefaultGpuMetrics([](const std::vector<std::string>&) { return true; });
  std::set<GpuMetricRole> roles;
  for (const GpuMetricRoleInfo& r : gpuMetricCatalog()) roles.insert(r.role);
  CHECK(all.size() == roles.size());
  CHECK(all.size() == 13);
  CHECK(all[4] == "dram__bytes_read.sum.pct_of_peak_sustained_elapsed");
  CHECK(all.back() == "gpc__cycles_elapsed.avg.per_second");
  // Where only dramc__ has DRAM bandwidth, its fraction is scaled to percent.
  CHECK(describeGpuMetric("dramc__read_throughput.avg.pct_of_peak_sustained_elapsed").scale == 100.0);
  CHECK(describeGpuMetric("dramc__read_throughput.avg.pct_of_peak_sustained_elapsed").role ==
        GpuMetricRole::DramReadPct);
  CHECK(chooseDefaultGpuMetrics([](const std::vector<std::string>&) { return false; }).empty());
}

TEST_CASE("gpu metrics: a metric set's text reads back, and other text is no set") {
  std::vector<GpuMetric> set = {
      describeGpuMetric("sm__cycles_active.avg.pct_of_peak_sustained_elapsed"),
      describeGpuMetric("TPC.TriageCompute.sm__cycles_active.avg.per_cycle_elapsed"),
      describeGpuMetric("gpc__cycles_elapsed.avg.per_second")};
  const std::string text = encodeGpuMetricSet(set);
  const std::vector<GpuMetric> back = decodeGpuMetricSet(text);
  REQUIRE(back.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(back[i].name == set[i].name);
    CHECK(back[i].displayName() == set[i].displayName());
    CHECK(back[i].role == set[i].role);
    CHECK(back[i].scale == set[i].scale);
  }
  CHECK(decodeGpuMetricSet("cudaLaunchKernel").empty());
  CHECK(decodeGpuMetricSet("gpu-metrics/1\nno tabs here\n").empty());
  CHECK(decodeGpuMetricSet(encodeGpuMetricSet({})).empty());
}

TEST_CASE("gpu metrics: the rate is a frequency or a period the hardware takes") {
  CHECK(parseGpuMetricsRate("10kHz") == 100'000u);
  CHECK(parseGpuMetricsRate("10khz") == 100'000u);
  CHECK(parseGpuMetricsRate("500Hz") == 2'000'000u);
  CHECK(parseGpuMetricsRate("1MHz") == 1'000u);
  CHECK(parseGpuMetricsRate("20000") == 50'000u);  // a bare number is Hz, as nsys takes it
  CHECK(parseGpuMetricsRate("100us") == 100'000u);
  CHECK(parseGpuMetricsRate("1ms") == 1'000'000u);
  CHECK(parseGpuMetricsRate("1s") == 1'000'000'000u);
  CHECK(parseGpuMetricsRate("1Hz") == 1'000'000'000u);
  for (const char* bad :
       {"", "0", "2MHz", "500ns", "2s", "fast", "10 kHz x", "-5", "0Hz", "1.5kHz"})
    CHECK_FALSE(parseGpuMetricsRate(bad).has_value());
  CHECK(gpuMetricsRateText(100'000) == "10kHz");
  CHECK(gpuMetricsRateText(1'000) == "1MHz");
  CHECK(gpuMetricsRateText(2'000'000) == "500Hz");
  CHECK(gpuMetricsRateText(300'000) == "300us");
}

TEST_CASE("gpu metrics: the list keeps names as written, with default standing for the set") {
  auto list = parseGpuMetricList(
      " default, TPC.TriageCompute.sm__cycles_active.avg.pct_of_peak_sustained_elapsed ,,default");
  REQUIRE(list.has_value());
  CHECK(*list ==
        std::vector<std::string>{
            "default", "TPC.TriageCompute.sm__cycles_active.avg.pct_of_peak_sustained_elapsed"});
  CHECK(parseGpuMetricList("")->empty());
  CHECK_FALSE(parseGpuMetricList("sm__cycles active").has_value());
  CHECK_FALSE(parseGpuMetricList("a;b").has_value());
  std::string many;
  for (int i = 0; i < 17; ++i) many += "m" + std::to_string(i) + ",";
  CHECK_FALSE(parseGpuMetricList(many).has_value());
}

TEST_CASE("gpu metrics: the activity and its settings in the configuration") {
  std::vector<std::string> messages;
  auto env = [](const char* name) -> const char* {
    const std::string n = name;
    if (n == "CUPTITRACE_ACTIVITIES") return "default,gpu_metrics";
    if (n == "CUPTITRACE_GPU_METRICS_RATE") return "20kHz";
    if (n == "CUPTITRACE_GPU_METRICS_LIST")
      return "default,lts__throughput.avg.pct_of_peak_sustained_elapsed";
    return nullptr;
  };
  const Config c = parseConfig(env, messages);
  CHECK(messages.empty());
  CHECK((c.activities & kActivityGpuMetrics) != 0);
  CHECK(c.gpuMetricsIntervalNs == 50'000u);
  CHECK(c.gpuMetrics.size() == 2);
  // Off by default, and not in "all" (it samples hardware, and may be refused).
  std::vector<std::string> none;
  const Config d = parseConfig([](const char*) { return nullptr; }, none);
  CHECK((d.activities & kActivityGpuMetrics) == 0);
  CHECK((kActivityAll & kActivityGpuMetrics) == 0);
  CHECK(d.gpuMetricsIntervalNs == kGpuMetricsDefaultIntervalNs);
  bool described = false;
  for (const auto& [name, value] : describeConfig(c))
    if (name == "CUPTITRACE_GPU_METRICS_RATE") described = value == "20kHz";
  CHECK(described);
  // The tests' own variables are no typos.
  const char* environ[] = {"CUPTITRACE_TEST_GPU_METRICS_FAULT=permission", nullptr};
  CHECK(unknownVariableMessages(environ).empty());
}

TEST_CASE("gpu metrics: a sample record is 88 bytes with room for 16 metrics") {
  CHECK(sizeof(GpuMetricRecord) == 88);
  CHECK(kGpuMetricSlots == 16);
  CHECK(std::string(recordKindName(RecordKind::GpuMetric)) == "gpu_metric");
}
