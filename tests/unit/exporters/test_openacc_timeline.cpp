// OpenACC events on the timeline: slices on the thread that made them, nested
// by construct, with an arrow to the GPU work their CUDA calls launched; the
// same in the Chrome JSON and the .pftrace.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "exporters/json/chrome_json.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "openacc_fixture.h"
#include "pftrace_decoder.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;
using nlohmann::json;

namespace {

json exportJson(const Trace& t) {
  std::ostringstream out;
  writeChromeJson(t, out);
  return json::parse(out.str());
}

int64_t ns(const json& micros) { return std::llround(micros.get<double>() * 1000.0); }

const json* jsonSlice(const json& events, const std::string& name) {
  for (const json& e : events)
    if (e.value("ph", "") == "X" && e.value("name", "") == name) return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("openacc json: events are slices on their thread, with every argument") {
  Trace t;
  openAccTrace(t);
  const json doc = exportJson(t);
  const json& events = doc.at("traceEvents");
  size_t openacc = 0;
  for (const json& e : events) {
    if (e.value("cat", "") != "openacc" || e.value("ph", "") != "X") continue;
    ++openacc;
    CHECK(e.at("pid") == kAccPid);
    CHECK(e.at("tid") == kAccTid);
  }
  CHECK(openacc == 9);
  const json* launch = jsonSlice(events, "acc_enqueue_launch@layers_acc.c:53 (saxpy$_omp_fn$0)");
  REQUIRE(launch != nullptr);
  const json& args = launch->at("args");
  CHECK(args.at("acc_event") == "acc_enqueue_launch");
  CHECK(args.at("src_file") == "/home/me/src/layers_acc.c");
  CHECK(args.at("line") == 53);
  CHECK(args.at("function") == "conv_forward");
  CHECK(args.at("kernel") == "saxpy$_omp_fn$0");
  CHECK(args.at("gangs") == 0);
  CHECK(args.at("openacc_id") == 3);
  CHECK(args.at("stream") == 13);
  CHECK_FALSE(args.contains("variable"));
  const json* upload = jsonSlice(events, "acc_enqueue_upload@layers_acc.c:50 (x[:n])");
  REQUIRE(upload != nullptr);
  CHECK(upload->at("args").at("variable") == "x[:n]");
  CHECK(upload->at("args").at("bytes") == 0);
  CHECK_FALSE(upload->at("args").contains("kernel"));
  // Nested by time: the compute construct holds its launch, which holds the driver call.
  const json* compute = jsonSlice(events, "acc_compute_construct@layers_acc.c:52");
  REQUIRE(compute != nullptr);
  CHECK(ns(compute->at("ts")) <= ns(launch->at("ts")));
  CHECK(ns(compute->at("ts")) + ns(compute->at("dur")) >= ns(launch->at("ts")) + ns(launch->at("dur")));
}

TEST_CASE("openacc json: an arrow from the launch event to its kernel") {
  Trace t;
  openAccTrace(t);
  const json events = exportJson(t).at("traceEvents");
  const json* start = nullptr;
  const json* finish = nullptr;
  for (const json& e : events) {
    if (e.value("cat", "") != "openacc") continue;
    if (e.value("ph", "") == "s") start = &e;
    if (e.value("ph", "") == "f") finish = &e;
  }
  REQUIRE(start != nullptr);
  REQUIRE(finish != nullptr);
  CHECK(start->at("id") == finish->at("id"));
  CHECK(finish->at("bp") == "e");
  // Each end where its slice is: the launch event's start, the kernel's.
  const json* launch = jsonSlice(events, "acc_enqueue_launch@layers_acc.c:53 (saxpy$_omp_fn$0)");
  REQUIRE(launch != nullptr);
  CHECK(start->at("ts") == launch->at("ts"));
  CHECK(start->at("tid") == launch->at("tid"));
  const json* kernel = jsonSlice(events, "saxpy$_omp_fn$0");
  REQUIRE(kernel != nullptr);
  CHECK(finish->at("ts") == kernel->at("ts"));
  CHECK(finish->at("pid") == kernel->at("pid"));
  CHECK(finish->at("tid") == kernel->at("tid"));
  // The launch call keeps its own arrow.
  CHECK(kernel->at("flow_in") == true);
}

TEST_CASE("openacc pftrace: the same slices, nesting and arrow", "[pftrace]") {
  Trace t;
  openAccTrace(t);
  std::ostringstream out;
  writePerfettoProto(t, out);
  const auto d = perfetto::decodePerfetto(out.str());
  INFO(d.problemText());
  CHECK(d.problems.empty());
  const auto slices = d.slicesOf("openacc");
  CHECK(slices.size() == 9);
  const perfetto::SliceOut* launch = nullptr;
  for (const auto& s : slices) {
    CHECK(d.pidOf(s.begin.track) == kAccPid);
    if (s.begin.name == "acc_enqueue_launch@layers_acc.c:53 (saxpy$_omp_fn$0)") launch = &s;
  }
  REQUIRE(launch != nullptr);
  CHECK(launch->depth == 1);  // under its compute construct
  CHECK(launch->begin.args.at("kernel").s == "saxpy$_omp_fn$0");
  CHECK(launch->begin.args.at("openacc_id").u == 3);
  CHECK(launch->begin.flows.size() == 1);
  // Two arrows end at the kernel: the launch call's and the OpenACC event's.
  const auto kernels = d.slicesOf("kernel");
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].begin.terminating.size() == 2);
  bool fromOpenAcc = false;
  for (const auto& a : d.arrows) {
    const auto& from = d.events[a.from];
    const auto& to = d.events[a.to];
    if (from.name == launch->begin.name && to.name == "saxpy$_omp_fn$0") fromOpenAcc = true;
  }
  CHECK(fromOpenAcc);
}
