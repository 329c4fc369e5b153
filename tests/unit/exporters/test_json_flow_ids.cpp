// The Chrome JSON's two kinds of arrow keep apart in Perfetto's id space.
// Perfetto's JSON importer numbers v1 arrows ("s"/"f": OpenACC event ->
// GPU work) 0, 1, 2, ... by distinct (id, cat, name), and takes a v2
// bind_id (launch call -> GPU work) as the id itself; an id that starts two
// arrows loses the second (flow_duplicate_id). With small correlation ids,
// as a short OpenACC program has, the two met.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "exporters/json/chrome_json.h"
#include "exporters/merge.h"
#include "openacc_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;
using nlohmann::json;

namespace {

constexpr uint64_t kBase = 1'000'000;
constexpr uint32_t kLaunches = 6;  // OpenACC launches, correlation ids 1..6

// kLaunches OpenACC launch events, each with its driver call (correlation
// 1..kLaunches, tied to the event) and kernel 200 ns after the event starts;
// then a plain launch (correlation kLaunches + 1) that no OpenACC event
// made. Kernel names end in "_" and `tag`, to tell traces apart when merged.
void smallIdsTrace(Trace& t, const std::string& tag) {
  t.meta.pid = kAccPid;
  t.meta.baseTimestampNs = kBase;
  auto kernel = [&](uint64_t start, uint32_t correlation, const std::string& name) {
    KernelRecord k{};
    k.start = start;
    k.end = start + 100;
    k.name = t.strings.intern(name + "_" + tag);
    k.correlationId = correlation;
    k.contextId = 1;
    k.streamId = 13;
    k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
    t.store.add(k);
  };
  auto call = [&](uint64_t start, uint32_t correlation, const char* name, ApiDomain domain) {
    ApiRecord api{};
    api.start = start;
    api.end = start + 40;
    api.name = t.strings.intern(name);
    api.correlationId = correlation;
    api.threadId = kAccTid;
    api.domain = static_cast<uint8_t>(domain);
    t.store.add(api);
  };
  for (uint32_t i = 0; i < kLaunches; ++i) {
    const uint64_t at = kBase + 1000 * i;
    const uint32_t correlation = i + 1;
    const uint32_t externalId = 100 + i;
    addOpenAcc(t, OpenAccEvent::EnqueueLaunch, at, at + 100, 10, nullptr, "k$_omp_fn$0", externalId);
    call(at + 10, correlation, "cuLaunchKernel", ApiDomain::Driver);
    kernel(at + 200, correlation, "acc");
    ExternalIdRecord e{};
    e.externalId = externalId;
    e.correlationId = correlation;
    e.externalKind = static_cast<uint8_t>(ExternalKind::OpenAcc);
    t.store.add(e);
  }
  call(kBase + 9000, kLaunches + 1, "cudaLaunchKernel", ApiDomain::Runtime);
  kernel(kBase + 9100, kLaunches + 1, "plain");
}

int64_t ns(const json& micros) { return std::llround(micros.get<double>() * 1000.0); }

// The arrows of a file as Perfetto's JSON importer numbers them.
struct PerfettoFlows {
  std::set<uint64_t> v1Ids;          // what it gives the v1 arrows: 0 .. distinct keys - 1
  std::multiset<uint64_t> v2Starts;  // bind_ids of flow_out events
  std::map<uint64_t, json> v2Source;             // bind_id -> the call it leaves
  std::multimap<uint64_t, json> v2Ends;          // bind_id -> the GPU slices it reaches
  std::map<std::string, std::vector<json>> v1;   // the file's own v1 id -> its s and f events
};

PerfettoFlows perfettoFlows(const json& events) {
  PerfettoFlows f;
  std::set<std::tuple<std::string, std::string, std::string>> keys;
  for (const json& e : events) {
    const std::string ph = e.value("ph", "");
    if (ph == "s" || ph == "f") {
      keys.emplace(e.at("id").dump(), e.value("cat", ""), e.value("name", ""));
      f.v1[e.at("id").dump()].push_back(e);
    }
    if (!e.contains("bind_id")) continue;
    const uint64_t id = e.at("bind_id").get<uint64_t>();
    if (e.value("flow_out", false)) {
      f.v2Starts.insert(id);
      f.v2Source[id] = e;
    }
    if (e.value("flow_in", false)) f.v2Ends.emplace(id, e);
  }
  for (uint64_t i = 0; i < keys.size(); ++i) f.v1Ids.insert(i);
  return f;
}

// No id starts two arrows, and each arrow joins the slices it should.
void checkFlows(const json& events, size_t traces) {
  const PerfettoFlows f = perfettoFlows(events);
  REQUIRE(f.v1Ids.size() == kLaunches * traces);
  REQUIRE(f.v2Starts.size() == (kLaunches + 1) * traces);
  for (const uint64_t id : f.v2Starts) {
    INFO("bind_id " << id);
    CHECK(f.v2Starts.count(id) == 1);
    CHECK(f.v1Ids.count(id) == 0);
  }
  // v2: the call's correlation is the GPU slice's, and the call is on the
  // thread of the trace the GPU slice belongs to (its name's tag).
  std::map<std::string, std::set<uint64_t>> threadsOf;  // tag -> threads of the calls
  size_t ends = 0;
  for (const auto& [id, gpu] : f.v2Ends) {
    INFO("bind_id " << id);
    REQUIRE(f.v2Source.count(id) == 1);
    const json& call = f.v2Source.at(id);
    CHECK(call.at("args").at("correlation") == gpu.at("args").at("correlation"));
    const std::string name = gpu.at("name");
    threadsOf[name.substr(name.rfind('_') + 1)].insert(call.at("tid").get<uint64_t>());
    ++ends;
  }
  CHECK(ends == (kLaunches + 1) * traces);
  CHECK(threadsOf.size() == traces);
  std::set<uint64_t> threads;
  for (const auto& [tag, tids] : threadsOf) {
    CHECK(tids.size() == 1);
    threads.insert(tids.begin(), tids.end());
  }
  CHECK(threads.size() == traces);
  // v1: one start, at an OpenACC event, and one end, at the kernel 200 ns later.
  for (const auto& [id, pair] : f.v1) {
    INFO("v1 id " << id);
    REQUIRE(pair.size() == 2);
    const json& start = pair[0].at("ph") == "s" ? pair[0] : pair[1];
    const json& end = pair[0].at("ph") == "s" ? pair[1] : pair[0];
    CHECK(start.at("ph") == "s");
    CHECK(end.at("ph") == "f");
    CHECK(ns(end.at("ts")) - ns(start.at("ts")) == 200);
  }
}

json exportJson(const Trace& t) {
  std::ostringstream out;
  writeChromeJson(t, out);
  return json::parse(out.str());
}

}  // namespace

TEST_CASE("json flow ids: bind_ids lie above the ids Perfetto gives OpenACC's v1 arrows", "[flows]") {
  Trace t;
  smallIdsTrace(t, "a");
  const json doc = exportJson(t);
  checkFlows(doc.at("traceEvents"), 1);
  // The metadata says where the bind_ids start: a bind_id less it is the call's correlation id.
  const json& meta = doc.at("metadata");
  REQUIRE(meta.contains("bind_id_base"));
  for (const json& e : doc.at("traceEvents")) {
    if (!e.value("flow_out", false)) continue;
    CHECK(e.at("bind_id").get<uint64_t>() - meta.at("bind_id_base").get<uint64_t>() ==
          e.at("args").at("correlation").get<uint64_t>());
  }
}

TEST_CASE("json flow ids: apart in a merged file too", "[flows][merge]") {
  Trace a, b;
  smallIdsTrace(a, "a");
  smallIdsTrace(b, "b");
  a.meta.hostName = "node1";
  b.meta.hostName = "node2";
  std::ostringstream out;
  writeChromeJson(planMerge({{&a, "a.native"}, {&b, "b.native"}}), out);
  checkFlows(json::parse(out.str()).at("traceEvents"), 2);
}

TEST_CASE("json flow ids: without OpenACC, a bind_id is the correlation id", "[flows]") {
  Trace t;
  smallIdsTrace(t, "a");
  t.store.mutableRecords<ExternalIdRecord>().truncate(0);  // no call tied to an OpenACC event
  const json doc = exportJson(t);
  CHECK_FALSE(doc.at("metadata").contains("bind_id_base"));
  size_t starts = 0;
  for (const json& e : doc.at("traceEvents")) {
    CHECK(e.value("ph", "") != "s");
    if (!e.value("flow_out", false)) continue;
    CHECK(e.at("bind_id") == e.at("args").at("correlation"));
    ++starts;
  }
  CHECK(starts == kLaunches + 1);
}
