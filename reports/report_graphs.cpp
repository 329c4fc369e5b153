// graphs: one row per CUDA graph, with its launches and their times.
//
// A launch is what one cudaGraphLaunch ran: a graph-level record
// (CUPTITRACE_GRAPHS=graph) or, with node records (the default), the
// kernels, copies and sets of one graph id under one correlation id, from
// the first node's start to the last node's end.
#include <algorithm>
#include <map>
#include <utility>

#include "reports/report_data.h"

namespace cuptitrace::reports {
namespace {

struct Launch {
  uint64_t start = UINT64_MAX;
  uint64_t end = 0;
  uint64_t nodes = 0;       // node records seen
  bool graphRecord = false;  // timed by a graph-level record
  bool timed = false;
  uint32_t device = 0;
};

}  // namespace

ReportTable graphsReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "graphs";
  table.title = "CUDA graphs";
  table.columns = timeStatColumns("Launches", "launches");
  table.columns.push_back({"Nodes", "nodes_per_launch", ColumnType::Count});
  table.columns.push_back({"Device", "device", ColumnType::Count});
  table.columns.push_back({"Graph", "graph", ColumnType::Name});

  std::map<std::pair<uint32_t, uint32_t>, Launch> launches;  // (graph id, correlation id)
  trace.store.records<GraphRecord>().forEach([&](const GraphRecord& g) {
    Launch& l = launches[{g.graphId, g.correlationId}];
    l.graphRecord = true;
    l.device = g.deviceId;
    if (hasTime(g.start, g.end) && g.start != 0) {
      l.start = g.start;
      l.end = g.end;
      l.timed = true;
    }
  });
  auto node = [&](const auto& r) {
    if (r.graphId == 0) return;
    Launch& l = launches[{r.graphId, r.correlationId}];
    ++l.nodes;
    if (l.graphRecord) return;
    if (!l.timed) l.device = r.deviceId;
    if (!hasTime(r.start, r.end) || r.start == 0) return;
    l.start = std::min(l.start, r.start);
    l.end = std::max(l.end, r.end);
    l.timed = true;
  };
  trace.store.records<KernelRecord>().scan(node);
  trace.store.records<MemcpyRecord>().scan(node);
  trace.store.records<MemsetRecord>().scan(node);

  struct PerGraph {
    Group group;
    std::vector<uint64_t> durations;
    uint64_t nodes = 0, nodeLaunches = 0;
    uint32_t device = 0;
  };
  std::map<uint32_t, PerGraph> graphs;
  uint64_t untimed = 0, graphLevel = 0, nodeLevel = 0;
  for (const auto& [key, l] : launches) {
    PerGraph& g = graphs[key.first];
    g.device = l.device;
    ++g.group.records;
    if (l.graphRecord) ++graphLevel;
    else ++nodeLevel;
    if (l.nodes != 0) {
      g.nodes += l.nodes;
      ++g.nodeLaunches;
    }
    if (l.timed)
      g.durations.push_back(l.end - l.start);
    else
      ++untimed;
  }
  std::vector<const PerGraph*> order;
  for (auto& [id, g] : graphs) {
    g.group.name = std::to_string(id);
    g.group.time = summarize(g.durations);
    g.group.exampleIds.push_back(id);
  }
  for (const auto& [id, g] : graphs) order.push_back(&g);
  std::sort(order.begin(), order.end(), [](const PerGraph* a, const PerGraph* b) {
    if (a->group.time.total != b->group.time.total) return a->group.time.total > b->group.time.total;
    return a->group.exampleIds.front() < b->group.exampleIds.front();
  });
  uint64_t total = 0;
  for (const PerGraph* g : order) total += g->group.time.total;
  for (const PerGraph* g : order) {
    std::vector<Cell> row;
    appendTimeStats(row, g->group, total);
    row.push_back(g->nodeLaunches != 0 ? Cell::real(static_cast<double>(g->nodes) / g->nodeLaunches)
                                       : Cell::none());
    row.push_back(Cell::integer(g->device));
    row.push_back(Cell::text(g->group.name));
    table.rows.push_back(std::move(row));
  }

  if (!table.rows.empty()) {
    std::string how;
    if (graphLevel)
      how = std::to_string(graphLevel) + " launches from graph-level records (the graph's time on the GPU)";
    if (nodeLevel)
      how += std::string(how.empty() ? "" : "; ") + std::to_string(nodeLevel) +
             " from their node records (first node's start to last node's end, grouped by graph "
             "and launch correlation id)";
    table.notes.push_back(how + "; Nodes: node records per launch (none with CUPTITRACE_GRAPHS=graph)");
  }
  if (untimed)
    table.notes.push_back(std::to_string(untimed) +
                          " launches without a valid time are counted in Launches, left out of the times");
  return table;
}

}  // namespace cuptitrace::reports
