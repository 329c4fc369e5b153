// Chrome JSON exporter, what ties the trace together: the arrows from each
// launch to the GPU work it started, and the metadata that describes the trace
// and counts everything lost.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>

#include "chrome_json_fixture.h"
#include "core/trace.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing::chrome;
using cuptitrace::testing::addApi;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addLaunchesMissingAnEnd;
using cuptitrace::testing::fillSampleTrace;
using cuptitrace::testing::initTrace;
using nlohmann::json;

TEST_CASE("chrome json: every launch is linked to the GPU work it started") {
  const Exported e = exportSample();
  const json& ev = e.events();
  std::map<uint64_t, json> sources;
  std::multimap<uint64_t, json> targets;
  for (const json& x : ev) {
    if (x.value("flow_out", false)) {
      INFO(x.dump());
      CHECK(sources.count(x.at("bind_id").get<uint64_t>()) == 0);  // one source per id
      sources[x.at("bind_id").get<uint64_t>()] = x;
    }
    if (x.value("flow_in", false)) targets.insert({x.at("bind_id").get<uint64_t>(), x});
  }
  CHECK(sources.size() == 6);
  CHECK(targets.size() == 6);
  for (const auto& [id, x] : targets) CHECK(sources.count(id) == 1);
  for (const auto& [id, x] : sources) CHECK(targets.count(id) >= 1);

  // Each kernel, copy and set: a flow from the call with its correlation id.
  for (const char* cat : {"kernel", "gpu_memcpy", "gpu_memset"}) {
    for (json work : slices(ev, cat)) {
      INFO(work.dump());
      REQUIRE(work.value("flow_in", false));
      const uint64_t id = work["bind_id"].get<uint64_t>();
      CHECK(work["args"]["correlation"].get<uint64_t>() == id);
      REQUIRE(sources.count(id) == 1);
      CHECK(sources[id]["args"]["correlation"].get<uint64_t>() == id);
      CHECK(sources[id]["ph"] == "X");
      CHECK(sources[id]["pid"] == kHostPid);
    }
  }
  // Correlation 11 has a runtime and a driver call: the arrow leaves the runtime one.
  CHECK(sources[11]["cat"] == "cuda_runtime");
  CHECK_FALSE(sliceByCorrelation(ev, "cuda_driver", 11).contains("bind_id"));
  CHECK(e.stats.flows == 6);
  CHECK(e.meta()["flows"] == 6);
  // Every call slice says its correlation id, linked or not.
  for (const char* cat : {"cuda_runtime", "cuda_driver"})
    for (json call : slices(ev, cat)) CHECK(call["args"].contains("correlation"));
}

TEST_CASE("chrome json: a graph launch links each of its kernels") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 100, b + 200, 5, kHostPid, ApiDomain::Runtime, "cudaGraphLaunch");
  addKernel(t, b + 300, b + 400, 5);
  addKernel(t, b + 400, b + 500, 5);
  const Exported e = exportTrace(t);
  const auto out = where(e.events(), [](const json& x) { return x.value("flow_out", false); });
  const auto in = where(e.events(), [](const json& x) { return x.value("flow_in", false); });
  REQUIRE(out.size() == 1);
  REQUIRE(in.size() == 2);
  CHECK(in[0]["bind_id"] == out[0]["bind_id"]);
  CHECK(in[1]["bind_id"] == out[0]["bind_id"]);
  CHECK(e.stats.flows == 2);
}

TEST_CASE("chrome json: no flow is written with a missing end") {
  Trace t;
  initTrace(t);
  addLaunchesMissingAnEnd(t);
  const Exported e = exportTrace(t);
  for (const json& x : e.events()) {
    INFO(x.dump());
    CHECK_FALSE(x.contains("bind_id"));
  }
  CHECK(e.stats.flows == 0);
  CHECK(e.meta()["flows"] == 0);
}

TEST_CASE("chrome json: metadata describes the trace and everything lost") {
  Trace t;
  fillSampleTrace(t);
  t.store.addDropped(RecordKind::Kernel, 5);
  t.counters["dropped.cupti"] = 2;
  t.counters["unknown_records"] = 1;
  const Exported e = exportTrace(t);
  json m = e.meta();
  CHECK(m["tool"] == "cuptitrace");
  CHECK(m["tool_version"] == "test");
  CHECK(m["host"] == "testhost");
  CHECK(m["pid"] == 4242);
  CHECK(m["process_name"] == "sample_app");
  CHECK(m["clock"] == "cupti");
  CHECK(m["base_timestamp_ns"] == 1'000'000'000ull);
  CHECK(m["start_timestamp_ns"] == 1'000'000'000ull);
  CHECK(m["end_timestamp_ns"] == 1'000'100'000ull);
  CHECK(m["start_realtime_ns"] == 0);
  CHECK(m["cupti_version"] == 130001);
  CHECK(m["driver_version"] == 13000);
  CHECK(m["config"] ==
        json({{"CUPTITRACE_ACTIVITIES", "kernel,memcpy"}, {"CUPTITRACE_FORMAT", "json"}}));
  REQUIRE(m["devices"].size() == 1);
  CHECK(m["devices"][0]["name"] == "NVIDIA H100 80GB HBM3");
  CHECK(m["devices"][0]["compute_capability"] == "9.0");
  CHECK(m["devices"][0]["multiprocessors"] == 132);
  CHECK(m["devices"][0]["uuid"] == "GPU-1234");
  CHECK(m["records"] == json({{"kernel", 3},
                              {"memcpy", 2},
                              {"memset", 1},
                              {"api", 7},
                              {"nvtx", 4},
                              {"sync", 1},
                              {"overhead", 1},
                              {"memory", 0},
                              {"memory_pool", 0},
                              {"uvm", 0},
                              {"graph", 0},
                              {"external_id", 0},
                              {"openacc", 0},
                              {"gpu_metric", 0}}));
  CHECK(m["dropped_records"] == 7);
  CHECK(m["dropped"]["kernel"] == 5);
  CHECK(m["dropped"]["memcpy"] == 0);
  CHECK(m["dropped"].size() == kRecordKindCount);
  CHECK(m["counters"] == json({{"dropped.cupti", 2}, {"unknown_records", 1}}));
  CHECK(m["incomplete_records"] == 0);
  CHECK(m["clamped_slices"] == 0);
  CHECK(m["flows"] == 6);
}
