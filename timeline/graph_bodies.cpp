#include "timeline/graph_bodies.h"

#include <algorithm>
#include <vector>

#include "timeline/flow_sources.h"

namespace cuptitrace {
namespace {

// One launch of a graph, as its own nodes (those with its correlation id) show it.
struct Launch {
  uint32_t correlation;
  uint32_t graphId;
  uint32_t stream;     // its earliest node's
  uint64_t firstNode;  // when its earliest node started
  uint64_t call;       // when its launch call started; UINT64_MAX when not recorded
};

using Launches = std::vector<const Launch*>;  // by firstNode

template <typename R>
bool isBody(const R& r) {
  return r.correlationId == 0 && r.graphId != 0 && drawable(r.start, r.end);
}

template <typename R, typename F>
void forEachIndexed(const ChunkedVector<R>& records, F&& f) {
  for (size_t c = 0; c < records.chunkCount(); ++c) {
    const R* p = records.chunkData(c);
    const size_t first = c * ChunkedVector<R>::kChunkRecords;
    for (size_t j = 0, n = records.chunkSize(c); j < n; ++j) f(p[j], first + j);
  }
}

uint64_t streamKey(uint32_t graphId, uint32_t stream) { return uint64_t{graphId} << 32 | stream; }

// cudaGraphLaunch and cuGraphLaunch (and their per-thread-stream forms), by
// CUPTI callback id (cupti_runtime_cbid.h, cupti_driver_cbid.h).
constexpr uint32_t kRuntimeGraphLaunch = 311, kRuntimeGraphLaunchPtsz = 312;
constexpr uint32_t kDriverGraphLaunch = 514, kDriverGraphLaunchPtsz = 515;

bool isGraphLaunchCall(const ApiRecord& r) {
  if (r.correlationId == 0 || !drawable(r.start, r.end)) return false;
  if (r.domain == static_cast<uint8_t>(ApiDomain::Runtime))
    return r.cbid == kRuntimeGraphLaunch || r.cbid == kRuntimeGraphLaunchPtsz;
  if (r.domain == static_cast<uint8_t>(ApiDomain::Driver))
    return r.cbid == kDriverGraphLaunch || r.cbid == kDriverGraphLaunchPtsz;
  return false;
}

// The launch in `launches` that ran a body starting at `t` (graph_bodies.h), or nullptr.
const Launch* launchAt(const Launches& launches, uint64_t t) {
  const auto after = std::upper_bound(launches.begin(), launches.end(), t,
                                      [](uint64_t at, const Launch* l) { return at < l->firstNode; });
  if (after != launches.begin()) return *(after - 1);
  return launches.front()->call <= t ? launches.front() : nullptr;
}

}  // namespace

GraphBodies::GraphBodies(const TimelineRecords& rec) : rec_(rec) {
  bool any = false;
  auto findBody = [&](const auto& r) { any = any || isBody(r); };
  rec.kernels.scan(findBody);
  rec.memcpys.scan(findBody);
  rec.memsets.scan(findBody);
  if (!any) return;  // the usual trace: no conditional node ran, nothing more to read

  std::unordered_map<uint32_t, Launch> launches;  // by correlation id
  auto addNode = [&](const auto& r) {
    if (r.correlationId == 0 || r.graphId == 0 || !drawable(r.start, r.end)) return;
    const auto [it, added] =
        launches.try_emplace(r.correlationId, Launch{r.correlationId, r.graphId, r.streamId, r.start, UINT64_MAX});
    if (!added && r.start < it->second.firstNode) {
      it->second.firstNode = r.start;
      it->second.stream = r.streamId;
    }
  };
  rec.forEachGpuWork(addNode);
  // Launches none of whose work carried their id: a graph whose top level is
  // its conditional nodes alone (a while loop and nothing else). By call start.
  std::vector<Launch> bare;
  std::unordered_map<uint32_t, size_t> bareAt;  // by correlation id: a runtime call and its driver call are one
  rec.api.scan([&](const ApiRecord& r) {
    if (!isGraphLaunchCall(r) || launches.count(r.correlationId) != 0) return;
    const auto [it, added] = bareAt.try_emplace(r.correlationId, bare.size());
    if (added) bare.push_back(Launch{r.correlationId, 0, 0, r.start, r.start});
    else bare[it->second].call = bare[it->second].firstNode = std::min(bare[it->second].call, r.start);
  });
  std::sort(bare.begin(), bare.end(), [](const Launch& a, const Launch& b) {
    return a.call != b.call ? a.call < b.call : a.correlation < b.correlation;
  });
  Launches bareByCall;
  for (const Launch& l : bare) bareByCall.push_back(&l);
  if (launches.empty() && bare.empty()) return;
  const LaunchIndex calls(rec.api);
  std::unordered_map<uint64_t, Launches> byStream;  // by streamKey
  std::unordered_map<uint32_t, Launches> byGraph;
  for (auto& [correlation, launch] : launches) {
    const uint32_t call = calls.find(correlation);
    if (call != LaunchIndex::kNone) launch.call = rec.api[call].start;
    byStream[streamKey(launch.graphId, launch.stream)].push_back(&launch);
    byGraph[launch.graphId].push_back(&launch);
  }
  auto byFirstNode = [](const Launch* a, const Launch* b) {
    return a->firstNode != b->firstNode ? a->firstNode < b->firstNode : a->correlation < b->correlation;
  };
  for (auto& [key, list] : byStream) std::sort(list.begin(), list.end(), byFirstNode);
  for (auto& [key, list] : byGraph) std::sort(list.begin(), list.end(), byFirstNode);

  auto bind = [&](std::unordered_map<uint32_t, uint32_t>& launchOf) {
    return [&, out = &launchOf](const auto& r, size_t index) {
      if (!isBody(r)) return;
      // The launches on the body's stream where it has any: a stream runs its launches in order.
      const auto s = byStream.find(streamKey(r.graphId, r.streamId));
      const Launch* launch = nullptr;
      if (s != byStream.end()) {
        launch = launchAt(s->second, r.start);
      } else {
        const auto g = byGraph.find(r.graphId);
        if (g != byGraph.end()) launch = launchAt(g->second, r.start);
        // No launch of its graph ran an ordinary node: the latest bare launch called before it.
        else if (!bareByCall.empty()) launch = launchAt(bareByCall, r.start);
      }
      if (launch != nullptr) out->emplace(static_cast<uint32_t>(index), launch->correlation);
    };
  };
  forEachIndexed(rec.kernels, bind(launchOf_[0]));
  forEachIndexed(rec.memcpys, bind(launchOf_[1]));
  forEachIndexed(rec.memsets, bind(launchOf_[2]));
}

}  // namespace cuptitrace
