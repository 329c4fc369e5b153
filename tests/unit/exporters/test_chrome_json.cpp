// Chrome JSON exporter, event by event: write the synthetic trace (and small
// hand-made ones), parse the output back with nlohmann_json, and check each
// event's form, name, time and arguments as Perfetto and the GPU tests read them.
// Tracks and lanes: test_chrome_json_tracks.cpp; flows and metadata:
// test_chrome_json_flows.cpp.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "chrome_json_fixture.h"
#include "core/demangle.h"
#include "core/trace.h"
#include "exporters/json/chrome_json.h"
#include "timeline/track_layout.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing::chrome;
using cuptitrace::testing::addApi;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addNvtx;
using cuptitrace::testing::addUsualAndUnusualLaunch;
using cuptitrace::testing::initTrace;
using cuptitrace::testing::kHostileKernelName;
using cuptitrace::testing::kUtf8Message;
using cuptitrace::testing::longTemplateName;
using nlohmann::json;

TEST_CASE("chrome json: the sample trace is one JSON object of well-formed events") {
  const Exported e = exportSample();
  REQUIRE(e.doc.is_object());
  REQUIRE(e.events().is_array());
  REQUIRE(e.meta().is_object());
  CHECK(e.events().size() == e.stats.events);
  for (const json& ev : e.events()) {
    INFO(ev.dump());
    // at() throws on a missing member, failing the test cleanly.
    CHECK(ev.at("ph").is_string());
    CHECK(ev.at("pid").is_number_integer());
    CHECK(ev.at("pid").get<int64_t>() >= 0);
    CHECK(ev.at("tid").is_number_integer());
    CHECK(ev.at("tid").get<int64_t>() >= 0);
    CHECK(ev.at("ts").is_number());
    CHECK(ev.at("name").is_string());
    if (ev.at("ph") == "X") {
      CHECK(ev.at("dur").is_number());
      CHECK(ev.at("dur").get<double>() >= 0);
      CHECK(ev.at("args").is_object());
    }
  }
}

TEST_CASE("chrome json: one event per drawn record, in its category") {
  const Exported e = exportSample();
  const json& ev = e.events();
  CHECK(slices(ev, "kernel").size() == 3);
  CHECK(slices(ev, "gpu_memcpy").size() == 2);
  CHECK(slices(ev, "gpu_memset").size() == 1);
  CHECK(slices(ev, "cuda_runtime").size() == 6);
  CHECK(slices(ev, "cuda_driver").size() == 1);
  CHECK(slices(ev, "nvtx").size() == 2);
  CHECK(slices(ev, "cuda_sync").size() == 1);
  CHECK(slices(ev, "overhead").size() == 1);
  auto nvtx = [&](const char* ph) {
    return where(ev, [&](const json& x) { return x["ph"] == ph && x.value("cat", "") == "nvtx"; })
        .size();
  };
  CHECK(nvtx("i") == 1);
  CHECK(nvtx("b") == 1);
  CHECK(nvtx("e") == 1);
  // Nothing else but the metadata events.
  const auto other = where(ev, [](const json& x) { return x["ph"] != "M"; });
  CHECK(other.size() == 3 + 2 + 1 + 6 + 1 + 2 + 1 + 1 + 3);
}

TEST_CASE("chrome json: hostile names survive exactly") {
  const Exported e = exportSample();
  const json& ev = e.events();
  json k1 = sliceByCorrelation(ev, "kernel", 11);
  CHECK_FALSE(k1["args"].contains("mangled_name"));  // the CSV's
  CHECK(k1["name"] == demangle(kHostileKernelName));
  CHECK(sliceByCorrelation(ev, "kernel", 12)["name"] == longTemplateName());
  CHECK(sliceByCorrelation(ev, "kernel", 13)["name"] == "add(float*, float*, float*, int)");
  const auto utf8 = where(ev, [](const json& x) { return x.value("name", "") == kUtf8Message; });
  REQUIRE(utf8.size() == 1);
  CHECK(utf8[0]["ph"] == "X");
  CHECK(e.meta()["command_line"] == "./sample_app --flag \"x\"");
}

TEST_CASE("chrome json: invalid UTF-8 in names still gives valid JSON") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 10, b + 20, 0, 7, "bad\xFF\xFE name\xC3");
  addNvtx(t, NvtxType::PushPop, b + 5, b + 30, "cut \xE2\x82");
  t.threadNames[kHostPid] = "thread \xC0\xAF";
  t.meta.config = {{"CUPTITRACE_BAD\xFF", "v\xED\xA0\x80"}};
  const Exported e = exportTrace(t);  // parses: nlohmann rejects invalid UTF-8
  const std::string r = "\xEF\xBF\xBD";
  CHECK(slices(e.events(), "kernel").at(0)["name"] == "bad" + r + r + " name" + r);
  CHECK(slices(e.events(), "nvtx").at(0)["name"] == "cut " + r);
  CHECK(nameOf(e.events(), "thread_name", kHostPid, kHostPid) == "thread " + r + r);
  CHECK(e.meta()["config"]["CUPTITRACE_BAD" + r] == "v" + r + r + r);
}

TEST_CASE("chrome json: timestamps keep every nanosecond") {
  Trace t;
  initTrace(t);
  // A realistic absolute clock value: written as is, it would lose its ns.
  t.meta.baseTimestampNs = 1'700'000'000'123'456'789ull;
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 1, b + 1 + 1234567, 0);
  addApi(t, b + 2, b + 7'000'000'000'001ull, 1);  // lasts about 2 hours
  const Exported e = exportTrace(t);
  CHECK(e.text.find("\"ts\":0.001,\"dur\":1234.567") != std::string::npos);
  json k = slices(e.events(), "kernel").at(0);
  CHECK(ns(k["ts"]) == 1);
  CHECK(ns(k["dur"]) == 1234567);
  json call = slices(e.events(), "cuda_runtime").at(0);
  CHECK(ns(call["ts"]) == 2);
  CHECK(ns(call["dur"]) == 6'999'999'999'999ll);
  CHECK(e.meta()["base_timestamp_ns"].get<uint64_t>() == b);
}

TEST_CASE("chrome json: a record before the base moves the base, never below zero") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 1, b + 10, 0);
  addApi(t, b - 500, b + 5, 1);
  const Exported e = exportTrace(t);
  CHECK(e.meta()["base_timestamp_ns"].get<uint64_t>() == b - 500);
  CHECK(ns(slices(e.events(), "cuda_runtime").at(0)["ts"]) == 0);
  CHECK(ns(slices(e.events(), "kernel").at(0)["ts"]) == 501);
  for (const json& x : e.events()) CHECK(x.at("ts").get<double>() >= 0);
}

TEST_CASE("chrome json: without a base timestamp, times are relative to the earliest record") {
  Trace t;
  initTrace(t);
  t.meta.baseTimestampNs = 0;
  addKernel(t, 5'000'000'000'000'000'007ull, 5'000'000'000'000'000'010ull, 0);
  addApi(t, 5'000'000'000'000'000'002ull, 5'000'000'000'000'000'004ull, 1);
  const Exported e = exportTrace(t);
  CHECK(e.meta()["base_timestamp_ns"].get<uint64_t>() == 5'000'000'000'000'000'002ull);
  CHECK(ns(slices(e.events(), "kernel").at(0)["ts"]) == 5);
  CHECK(ns(slices(e.events(), "cuda_runtime").at(0)["ts"]) == 0);
}

TEST_CASE("chrome json: incomplete records are not drawn but counted") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 100, b + 200, 1);
  addKernel(t, b + 300, 0, 2);     // end not collected
  addKernel(t, 0, b + 500, 3);     // no start
  addApi(t, b + 600, b + 550, 4);  // end before start
  addNvtx(t, NvtxType::Mark, 0, 0, "lost mark");
  MemcpyRecord m{};
  m.start = b + 700;
  m.correlationId = 5;
  t.store.add(m);
  const Exported e = exportTrace(t);
  CHECK(e.meta()["incomplete_records"] == 5);
  CHECK(e.meta()["records"]["kernel"] == 3);
  const auto drawn = where(e.events(), [](const json& x) { return x["ph"] != "M"; });
  REQUIRE(drawn.size() == 1);
  CHECK(drawn[0]["args"]["correlation"] == 1);
}

TEST_CASE("chrome json: arguments of kernels, copies, sets, syncs and overhead") {
  const Exported e = exportSample();
  const json& ev = e.events();
  json k = sliceByCorrelation(ev, "kernel", 13)["args"];
  CHECK(k["grid"] == "[128,1,1]");
  CHECK(k["block"] == "[256,1,1]");
  CHECK(k["registers"] == 32);
  CHECK(k["static_smem"] == 1024);
  CHECK(k["dynamic_smem"] == 0);
  CHECK(k["correlation"] == 13);
  // The device and stream, which the PyTorch profiler's readers take from the arguments
  // (the .pftrace leaves them to the track); the context and usual launch type are left out.
  CHECK(k["device"] == 0);
  CHECK(k["stream"] == 9);
  CHECK_FALSE(k.contains("context"));
  CHECK_FALSE(k.contains("launch_type"));
  CHECK_FALSE(k.contains("graph_id"));
  CHECK_FALSE(k.contains("graph_node_id"));

  json h2d = sliceByCorrelation(ev, "gpu_memcpy", 14);
  CHECK(h2d["name"] == "Memcpy HtoD (Pinned -> Device)");
  CHECK(h2d["args"]["bytes"] == 1 << 20);
  CHECK(h2d["args"]["copy_kind"] == "HtoD");
  CHECK(h2d["args"]["src_kind"] == "Pinned");
  CHECK(h2d["args"]["dst_kind"] == "Device");
  CHECK(h2d["args"]["async"] == true);
  CHECK(h2d["args"]["bandwidth_GBps"].get<double>() == Approx(104.8576).epsilon(1e-5));
  CHECK(h2d["args"]["stream"] == 9);
  CHECK_FALSE(h2d["args"].contains("src_device"));
  json d2h = sliceByCorrelation(ev, "gpu_memcpy", 16);
  CHECK(d2h["name"] == "Memcpy DtoH (Device -> Pageable)");
  CHECK(d2h["args"]["async"] == false);

  json set = sliceByCorrelation(ev, "gpu_memset", 15);
  CHECK(set["name"] == "Memset (Device)");
  CHECK(set["args"]["bytes"] == 4096);
  CHECK(set["args"]["value"] == 0);
  CHECK(set["args"]["memory_kind"] == "Device");
  CHECK(set["args"]["async"] == true);

  json sync = slices(ev, "cuda_sync").at(0);
  CHECK(sync["name"] == "StreamSynchronize");
  CHECK(sync["pid"] == kGpuPid);
  CHECK(sync["tid"] == syncTrackTid(1));
  CHECK(sync["args"]["stream"] == 7);
  CHECK(sync["args"]["correlation"] == 16);
  CHECK_FALSE(sync["args"].contains("event"));

  json overhead = slices(ev, "overhead").at(0);
  CHECK(overhead["name"] == "CUPTI buffer flush");
  CHECK(overhead["pid"] == kHostPid);
  CHECK(overhead["tid"] == kOverheadTid);
  CHECK_FALSE(overhead["args"].contains("device"));

  json driver = sliceByCorrelation(ev, "cuda_driver", 11);
  CHECK(driver["name"] == "cuLaunchKernel");
  CHECK(driver["cat"] == "cuda_driver");
  CHECK(driver["args"]["correlation"] == 11);
  // Success (0) is the usual; the callback id and domain are the CSV's.
  CHECK_FALSE(driver["args"].contains("return_value"));
  CHECK_FALSE(driver["args"].contains("cbid"));
  CHECK_FALSE(driver["args"].contains("domain"));
}

TEST_CASE("chrome json: arguments only written when they differ from the usual") {
  Trace t;
  initTrace(t);
  addUsualAndUnusualLaunch(t);
  const Exported e = exportTrace(t);
  CHECK_FALSE(sliceByCorrelation(e.events(), "cuda_runtime", 1)["args"].contains("return_value"));
  CHECK(sliceByCorrelation(e.events(), "cuda_runtime", 2)["args"]["return_value"] == 719);
  CHECK_FALSE(sliceByCorrelation(e.events(), "kernel", 1)["args"].contains("launch_type"));
  const json second = sliceByCorrelation(e.events(), "kernel", 2)["args"];
  CHECK(second["launch_type"] == "CooperativeSingle");
  CHECK(second["device_launched"] == true);
  CHECK(second["graph_id"] == 3);
  CHECK(second["graph_node_id"] == 44);
}

TEST_CASE("chrome json: peer copies and graph work say where they ran") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  MemcpyRecord m{};
  m.start = b + 10;
  m.end = b + 10;  // zero duration: no bandwidth to compute
  m.bytes = 64;
  m.deviceId = 1;
  m.srcDeviceId = 1;
  m.dstDeviceId = 2;
  m.graphId = 4;
  m.graphNodeId = 99;
  m.copyKind = static_cast<uint8_t>(CopyKind::PtoP);
  t.store.add(m);
  const Exported e = exportTrace(t);
  json copy = slices(e.events(), "gpu_memcpy").at(0);
  CHECK(copy["pid"] == gpuProcessId(kHostPid, 1));
  CHECK(copy["args"]["src_device"] == 1);
  CHECK(copy["args"]["dst_device"] == 2);
  CHECK(copy["args"]["graph_id"] == 4);
  CHECK(copy["args"]["graph_node_id"] == 99);
  CHECK_FALSE(copy["args"].contains("bandwidth_GBps"));
}

TEST_CASE("chrome json: NVTX ranges, marks and start/end ranges") {
  const Exported e = exportSample();
  const json& ev = e.events();
  const auto outer = where(ev, [](const json& x) { return x.value("name", "") == "outer"; });
  REQUIRE(outer.size() == 1);
  CHECK(outer[0]["pid"] == kHostPid);
  CHECK(outer[0]["tid"] == 4242);
  CHECK(outer[0]["args"]["color"] == "#FF00FF00");
  CHECK(outer[0]["args"]["depth"] == 0);
  CHECK_FALSE(outer[0]["args"].contains("domain"));
  const auto inner = where(ev, [](const json& x) { return x.value("name", "") == kUtf8Message; });
  REQUIRE(inner.size() == 1);
  CHECK(inner[0]["args"]["domain"] == "my domain");
  CHECK(inner[0]["args"]["category"] == 3);
  CHECK(inner[0]["args"]["depth"] == 1);
  CHECK_FALSE(inner[0]["args"].contains("color"));

  const auto mark = where(ev, [](const json& x) { return x["ph"] == "i"; });
  REQUIRE(mark.size() == 1);
  CHECK(mark[0]["name"] == "checkpoint");
  CHECK(mark[0]["s"] == "t");
  CHECK(mark[0]["tid"] == 4243);
  CHECK(ns(mark[0]["ts"]) == 7000);

  const auto begin = where(ev, [](const json& x) { return x["ph"] == "b"; });
  const auto end = where(ev, [](const json& x) { return x["ph"] == "e"; });
  REQUIRE(begin.size() == 1);
  REQUIRE(end.size() == 1);
  CHECK(begin[0]["id"] == end[0]["id"]);
  CHECK(begin[0]["name"] == "async range");
  CHECK(end[0]["name"] == "async range");
  CHECK(begin[0]["cat"] == end[0]["cat"]);
  CHECK(begin[0]["pid"] == kHostPid);
  CHECK(begin[0]["tid"] == 4242);
  CHECK(end[0]["tid"] == 4243);
  CHECK(ns(begin[0]["ts"]) == 2000);
  CHECK(ns(end[0]["ts"]) == 35000);
  CHECK(begin[0]["args"]["range_id"] == 77);
}

TEST_CASE("chrome json: NVTX payloads, open ranges and empty start/end ranges") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(NvtxType::PushPop);
  n.threadId = kHostPid;
  n.start = b + 10;
  n.end = b + 90;
  n.message = t.strings.intern("double payload, left open");
  n.payloadType = static_cast<uint8_t>(NvtxPayload::Double);
  const double value = 2.5;
  std::memcpy(&n.payload, &value, sizeof value);
  n.flags = kNvtxOpen;
  t.store.add(n);
  n.start = b + 20;
  n.end = b + 30;
  n.depth = 1;
  n.flags = 0;
  n.message = t.strings.intern("i32 payload");
  n.payloadType = static_cast<uint8_t>(NvtxPayload::I32);
  n.payload = static_cast<uint32_t>(-7);
  t.store.add(n);
  addNvtx(t, NvtxType::StartEnd, b + 40, b + 40, "empty");
  addNvtx(t, NvtxType::StartEnd, b + 50, b + 60, "second");
  const Exported e = exportTrace(t);
  const json& ev = e.events();
  json open = where(ev, [](const json& x) {
                return x.value("name", "") == "double payload, left open";
              }).at(0);
  CHECK(open["args"]["payload"] == 2.5);
  CHECK(open["args"]["open"] == true);
  const json i32 =
      where(ev, [](const json& x) { return x.value("name", "") == "i32 payload"; }).at(0);
  CHECK(i32["args"]["payload"] == -7);
  CHECK_FALSE(i32["args"].contains("open"));
  // An empty range is one async instant; ids stay unique.
  const auto empty = where(ev, [](const json& x) { return x.value("name", "") == "empty"; });
  REQUIRE(empty.size() == 1);
  CHECK(empty[0]["ph"] == "n");
  json second = where(ev, [](const json& x) { return x["ph"] == "b"; }).at(0);
  CHECK(second["id"] != empty[0]["id"]);
}

TEST_CASE("chrome json: an empty trace is valid JSON") {
  Trace t;
  const Exported e = exportTrace(t);
  CHECK(e.events().is_array());
  CHECK(where(e.events(), [](const json& x) { return x["ph"] != "M"; }).empty());
  CHECK(e.meta()["records"]["kernel"] == 0);
  CHECK(e.meta()["incomplete_records"] == 0);
  CHECK(e.meta()["devices"].is_array());
  CHECK(e.stats.events == e.events().size());
  CHECK(e.stats.flows == 0);
}

// Not run by default: `exporter_tests "[bench]"`.
TEST_CASE("chrome json: export speed", "[.][bench]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  const StringId kernelName = t.strings.intern("_Z6kernelPfi");
  const StringId launch = t.strings.intern("cudaLaunchKernel");
  const uint32_t n = 1'000'000;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t at = b + uint64_t{i} * 1000;
    ApiRecord a{};
    a.start = at;
    a.end = at + 400;
    a.name = launch;
    a.correlationId = i + 1;
    a.threadId = kHostPid + i % 4;
    t.store.add(a);
    KernelRecord k{};
    k.start = at + 500;
    k.end = at + 900;
    k.name = kernelName;
    k.correlationId = i + 1;
    k.streamId = 7 + i % 8;
    t.store.add(k);
  }
  // Counts the bytes and drops them: the exporter is measured, not a stream's growth.
  struct Sink : std::streambuf {
    size_t bytes = 0;
    std::streamsize xsputn(const char*, std::streamsize n) override {
      bytes += static_cast<size_t>(n);
      return n;
    }
    int overflow(int c) override {
      ++bytes;
      return c;
    }
  } sink;
  std::ostream out(&sink);
  const auto start = std::chrono::steady_clock::now();
  const JsonExportStats stats = writeChromeJson(t, out);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << stats.events << " events, " << sink.bytes / 1e6 << " MB in " << seconds
            << " s: " << stats.events / seconds / 1e6 << " M events/s\n";
  CHECK(stats.flows == n);
}
