#include "exporters/split_output.h"

#include <algorithm>
#include <array>
#include <string>
#include <type_traits>
#include <utility>

#include "core/config.h"
#include "timeline/flow_sources.h"
#include "timeline/track_layout.h"

namespace cuptitrace {
namespace {

// Rough bytes per record in each format: a part for the kind, plus so many
// per byte of the record's names. Measured on synthetic traces (the unit
// tests check that parts come out near the target); names in the CSV are
// written twice for kernels (demangled and mangled), in the JSON once, in
// the protobuf once per trace (interned).
struct Cost {
  uint32_t fixed;
  uint32_t perNameByte;
};
enum class Output { Json, Csv, Proto };

constexpr Cost costOf(Output out, RecordKind kind) {
  const auto pick = [out](Cost json, Cost csv, Cost proto) {
    return out == Output::Json ? json : out == Output::Csv ? csv : proto;
  };
  switch (kind) {
    case RecordKind::Kernel: return pick({200, 1}, {85, 2}, {70, 0});
    case RecordKind::Memcpy: return pick({270, 0}, {80, 0}, {85, 0});
    case RecordKind::Memset: return pick({210, 0}, {65, 0}, {65, 0});
    case RecordKind::Api: return pick({140, 1}, {55, 1}, {35, 0});
    case RecordKind::Nvtx: return pick({120, 1}, {60, 1}, {40, 0});
    case RecordKind::Sync: return pick({160, 0}, {60, 0}, {40, 0});
    case RecordKind::Overhead: return pick({120, 1}, {35, 1}, {35, 0});
    case RecordKind::ExternalId: return pick({40, 1}, {40, 1}, {20, 0});  // arguments of a call's slice
    case RecordKind::GpuMetric: return pick({1300, 0}, {800, 0}, {300, 0});  // a counter point per metric
    default: return pick({200, 1}, {70, 1}, {60, 0});                     // a slice or an instant
  }
}

// The time histogram that window boundaries are read from: a fine one over
// the whole trace, and finer ones inside any bin heavier than a window.
constexpr size_t kRootBins = size_t{1} << 16;
constexpr size_t kChildBins = 1024;
constexpr int kMaxLevels = 4;

template <typename T, typename = void>
struct HasCorrelation : std::false_type {};
template <typename T>
struct HasCorrelation<T, std::void_t<decltype(T::correlationId)>> : std::true_type {};
template <typename T, typename = void>
struct HasName : std::false_type {};
template <typename T>
struct HasName<T, std::void_t<decltype(T::name)>> : std::is_same<decltype(T::name), StringId> {};

template <typename Seq>
using RecordOf = std::decay_t<decltype(std::declval<const Seq&>()[0])>;

class Planner {
 public:
  Planner(const Trace& trace, uint32_t formats)
      : trace_(trace), api_(trace.store.records<ApiRecord>()), launches_(api_) {
    if (formats & (kFormatJson | kFormatJsonGz)) outputs_.push_back(Output::Json);
    if (formats & kFormatCsv) outputs_.push_back(Output::Csv);
    if (formats & kFormatPftrace) outputs_.push_back(Output::Proto);
    if (outputs_.empty()) outputs_.push_back(Output::Json);
  }

  // The time a record is placed by: the start of the call its correlation
  // id came from, or its own start (0, the first window, for a record
  // without a time of its own).
  template <typename R>
  uint64_t key(const R& r) const {
    if constexpr (HasCorrelation<R>::value) {
      if (r.correlationId != 0) {
        const uint32_t source = launches_.find(r.correlationId);
        if (source != LaunchIndex::kNone) return api_[source].start;
      }
    }
    return recordStart(r);
  }

  template <typename R>
  uint64_t weight(const R& r) const {
    const uint64_t names = nameBytes(r);
    uint64_t most = 0;
    for (const Output out : outputs_) {
      const Cost c = costOf(out, RecordKindOf<R>::value);
      most = std::max(most, c.fixed + c.perNameByte * names);
    }
    return most;
  }

  // Calls f(record, index) for every record of every kind.
  template <typename F>
  void forEachRecord(F&& f) const {
    forEachKind(trace_.store, [&](const auto& seq) {
      for (size_t i = 0; i < seq.size(); ++i) f(seq[i], i);
    });
  }

  std::vector<uint64_t> cuts(uint64_t target) {
    target_ = std::max<uint64_t>(target, 1);
    bool any = false;
    uint64_t lo = UINT64_MAX, hi = 0;
    forEachRecord([&](const auto& r, size_t) {
      const uint64_t k = key(r);
      lo = std::min(lo, k);
      hi = std::max(hi, k);
      any = true;
    });
    if (!any) return {};
    nodes_.push_back(makeNode(lo, hi, kRootBins));
    for (int level = 0; level < kMaxLevels; ++level) {
      count();
      if (level + 1 == kMaxLevels || !refineHeavyBins()) break;
    }
    std::vector<uint64_t> out;
    uint64_t open = 0;
    walk(0, open, out);
    return out;
  }

 private:
  struct Node {
    uint64_t lo, hi, width;  // bin b holds keys in [lo + b * width, lo + (b + 1) * width), up to hi
    std::vector<uint64_t> weight;
    std::vector<int32_t> child;  // a finer node for the bin, or -1
    bool counted = false;
  };

  static Node makeNode(uint64_t lo, uint64_t hi, size_t bins) {
    Node n;
    n.lo = lo;
    n.hi = hi;
    n.width = (hi - lo) / bins + 1;
    const size_t used = static_cast<size_t>((hi - lo) / n.width) + 1;
    n.weight.assign(used, 0);
    n.child.assign(used, -1);
    return n;
  }

  template <typename R>
  uint64_t nameBytes(const R& r) const {
    const StringTable& s = trace_.strings;
    if constexpr (HasName<R>::value)
      return s.get(r.name).size();
    else if constexpr (std::is_same_v<R, NvtxRecord>)
      return s.get(r.message).size() + s.get(r.domain).size();
    else if constexpr (std::is_same_v<R, OpenAccRecord>)
      return s.get(r.srcFile).size() + s.get(r.funcName).size() + s.get(r.varName).size() +
             s.get(r.kernelName).size();
    else
      return 0;
  }

  // Adds every record's weight to its bin in the nodes made since the last count.
  void count() {
    forEachRecord([&](const auto& r, size_t) {
      const uint64_t k = key(r);
      size_t n = 0;
      for (;;) {
        Node& node = nodes_[n];
        const auto bin = static_cast<size_t>((k - node.lo) / node.width);
        if (node.child[bin] >= 0) {
          n = static_cast<size_t>(node.child[bin]);
          continue;
        }
        if (!node.counted) node.weight[bin] += weight(r);
        break;
      }
    });
    for (Node& node : nodes_) node.counted = true;
  }

  // Gives each bin heavier than a window, and wider than 1 ns, a finer node
  // of its own. False when there was none.
  bool refineHeavyBins() {
    bool any = false;
    const size_t existing = nodes_.size();
    for (size_t n = 0; n < existing; ++n) {
      for (size_t b = 0; b < nodes_[n].weight.size(); ++b) {
        const Node& node = nodes_[n];
        if (node.child[b] >= 0 || node.weight[b] <= target_ || node.width == 1) continue;
        const uint64_t lo = node.lo + b * node.width;
        const uint64_t hi = std::min(node.hi, lo + (node.width - 1));
        if (hi == lo) continue;
        Node finer = makeNode(lo, hi, kChildBins);
        nodes_[n].child[b] = static_cast<int32_t>(nodes_.size());
        nodes_.push_back(std::move(finer));
        any = true;
      }
    }
    return any;
  }

  // Reads the bins in time order and starts a new window before a bin when
  // that keeps the window nearer the target than taking the bin in would.
  void walk(size_t n, uint64_t& open, std::vector<uint64_t>& out) const {
    const Node& node = nodes_[n];
    for (size_t b = 0; b < node.weight.size(); ++b) {
      if (node.child[b] >= 0) {
        walk(static_cast<size_t>(node.child[b]), open, out);
        continue;
      }
      const uint64_t w = node.weight[b];
      if (w == 0) continue;
      if (open > 0 && open + w > target_) {
        const uint64_t over = open + w - target_;
        const uint64_t under = target_ > open ? target_ - open : 0;
        if (over > under) {
          out.push_back(node.lo + b * node.width);
          open = 0;
        }
      }
      open += w;
    }
  }

  const Trace& trace_;
  const ChunkedVector<ApiRecord>& api_;
  LaunchIndex launches_;
  std::vector<Output> outputs_;
  uint64_t target_ = 1;
  std::vector<Node> nodes_;
};

uint32_t windowOf(const std::vector<uint64_t>& cuts, uint64_t key) {
  return static_cast<uint32_t>(std::upper_bound(cuts.begin(), cuts.end(), key) - cuts.begin());
}

// Names in a part's string table; the ids are the same unless the whole
// trace's table held a string twice.
template <typename R>
void remapNames(R& r, const std::vector<StringId>& ids) {
  const auto id = [&](StringId s) { return s < ids.size() ? ids[s] : kNoString; };
  if constexpr (HasName<R>::value) {
    r.name = id(r.name);
  } else if constexpr (std::is_same_v<R, NvtxRecord>) {
    r.message = id(r.message);
    r.domain = id(r.domain);
  } else if constexpr (std::is_same_v<R, OpenAccRecord>) {
    r.srcFile = id(r.srcFile);
    r.funcName = id(r.funcName);
    r.varName = id(r.varName);
    r.kernelName = id(r.kernelName);
  } else if constexpr (std::is_same_v<R, GpuMetricRecord>) {
    r.metricSet = id(r.metricSet);
  }
}

}  // namespace

std::vector<uint64_t> splitPoints(const Trace& trace, uint64_t targetBytes, uint32_t formats) {
  Planner planner(trace, formats);
  return planner.cuts(targetBytes);
}

SplitStats forEachSplitPart(const Trace& trace, uint64_t targetBytes, uint32_t formats,
                            const std::function<bool(const Trace& part, uint32_t number, uint32_t count)>& write) {
  Planner planner(trace, formats);
  const std::vector<uint64_t> cuts = planner.cuts(targetBytes);
  const auto count = static_cast<uint32_t>(cuts.size() + 1);

  // Which records of each kind a window holds lie in one index range (the
  // store keeps each kind roughly in time order): only that range is read.
  struct Range {
    size_t first = SIZE_MAX;
    size_t end = 0;
  };
  std::vector<std::array<Range, kRecordKindCount>> ranges(count);
  planner.forEachRecord([&](const auto& r, size_t i) {
    using R = std::decay_t<decltype(r)>;
    Range& range = ranges[windowOf(cuts, planner.key(r))][static_cast<size_t>(RecordKindOf<R>::value)];
    range.first = std::min(range.first, i);
    range.end = std::max(range.end, i + 1);
  });

  // Everything of the trace but its records, copied once. Every field of
  // Trace other than the store belongs here.
  Trace part;
  std::vector<StringId> ids(std::max<size_t>(trace.strings.size(), 1), kNoString);
  for (StringId id = 1; id < trace.strings.size(); ++id) ids[id] = part.strings.intern(trace.strings.get(id));
  part.meta = trace.meta;
  // One base for every part, so that times in different files compare.
  part.meta.baseTimestampNs = scanTimeline(trace).base;
  part.devices = trace.devices;
  part.contexts = trace.contexts;
  part.streamNames = trace.streamNames;
  part.threadNames = trace.threadNames;
  part.deviceNames = trace.deviceNames;
  part.contextNames = trace.contextNames;
  part.counters = trace.counters;
  // What the run lost is said in every part.
  for (int k = 0; k < kRecordKindCount; ++k)
    part.store.addDropped(static_cast<RecordKind>(k), trace.store.dropped(static_cast<RecordKind>(k)));

  SplitStats stats;
  stats.parts = count;
  for (uint32_t w = 0; w < count; ++w) {
    forEachKind(trace.store, [&](const auto& seq) {
      using R = RecordOf<std::decay_t<decltype(seq)>>;
      part.store.mutableRecords<R>().clear();
      const Range& range = ranges[w][static_cast<size_t>(RecordKindOf<R>::value)];
      for (size_t i = range.first; i < range.end; ++i) {
        if (windowOf(cuts, planner.key(seq[i])) != w) continue;
        R r = seq[i];
        remapNames(r, ids);
        part.store.add(r);
        ++stats.records;
        if (windowOf(cuts, recordStart(r)) > w) ++stats.withLaunch;
      }
    });
    part.counters["split.part"] = w + 1;
    part.counters["split.parts"] = count;
    if (!write(part, w + 1, count)) break;
  }
  return stats;
}

}  // namespace cuptitrace
