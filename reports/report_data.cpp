#include "reports/report_data.h"

#include "reports/busy_sweep.h"
#include "reports/scratch_values.h"
#include "timeline/nested_calls.h"
#include "timeline/slice_windows.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace cuptitrace::reports {
namespace {

constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();
// Names longer than this are cut in the middle inside notes and findings.
constexpr size_t kExampleNameWidth = 60;

// A group being filled: its values, kept until the summary is made.
struct Builder {
  Group group;
  std::vector<uint64_t> durations;  // 8 bytes per record with a time: the exact median needs them
  std::vector<uint64_t> bytes;      // memory operations only
  // Where a first pass counted each group's durations: the group's slice of
  // one buffer for the kind (ScratchValues), in place of `durations`.
  uint64_t* slice = nullptr;
  size_t sliceSize = 0;

  void addDuration(uint64_t d) {
    if (slice != nullptr) slice[sliceSize++] = d;
    else durations.push_back(d);
  }
};

// Gives each builder its slice of `scratch` for sizes[i] durations.
void placeSlices(std::vector<Builder>& builders, const std::vector<uint64_t>& sizes, ScratchValues& scratch) {
  uint64_t total = 0;
  for (const uint64_t n : sizes) total += n;
  uint64_t* at = scratch.get(static_cast<size_t>(total));
  for (size_t i = 0; i < builders.size(); ++i) {
    builders[i].slice = at;
    at += sizes[i];
  }
}

std::vector<Group> finish(std::vector<Builder>& builders, bool withBytes) {
  std::vector<Group> out;
  out.reserve(builders.size());
  for (auto& b : builders) {
    if (b.group.records == 0) continue;
    b.group.time = b.slice != nullptr ? summarize(b.slice, b.sliceSize) : summarize(b.durations);
    std::vector<uint64_t>().swap(b.durations);  // free as we go: peak is one kind's values
    if (withBytes) {
      b.group.bytes = summarize(b.bytes);
      std::vector<uint64_t>().swap(b.bytes);
    }
    out.push_back(std::move(b.group));
  }
  return out;
}

void addExample(Group& g, uint32_t id) {
  if (g.exampleIds.size() < kMaxExamples) g.exampleIds.push_back(id);
}

template <typename Describe>
void noteUntimed(Untimed& u, Describe&& describe) {
  ++u.count;
  if (u.examples.size() < kMaxExamples) u.examples.push_back(describe());
}

std::string shortName(std::string_view name) { return displayName(name, kExampleNameWidth); }

std::string copyName(uint8_t copyKind) {
  return std::string("[CUDA memcpy ") + copyKindName(static_cast<CopyKind>(copyKind)) + "]";
}

constexpr size_t kCopyKinds = 11;   // CopyKind values 0..10
constexpr size_t kMemoryKinds = 8;  // MemoryKind values 0..7
uint8_t clampCopyKind(uint8_t k) { return k < kCopyKinds ? k : 0; }
uint8_t clampMemoryKind(uint8_t k) { return k < kMemoryKinds ? k : 0; }

struct ConfigKey {
  StringId name;
  int32_t gridX, gridY, gridZ;
  uint16_t blockX, blockY, blockZ;
  bool operator==(const ConfigKey& o) const {
    return name == o.name && gridX == o.gridX && gridY == o.gridY && gridZ == o.gridZ &&
           blockX == o.blockX && blockY == o.blockY && blockZ == o.blockZ;
  }
};
struct ConfigKeyHash {
  size_t operator()(const ConfigKey& k) const {
    uint64_t h = k.name;
    for (const uint64_t v :
         {uint64_t(uint32_t(k.gridX)), uint64_t(uint32_t(k.gridY)), uint64_t(uint32_t(k.gridZ)),
          uint64_t(k.blockX), uint64_t(k.blockY), uint64_t(k.blockZ)})
      h = (h ^ v) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

struct RangeKey {
  StringId domain;
  StringId message;
  uint8_t type;
  bool operator==(const RangeKey& o) const {
    return domain == o.domain && message == o.message && type == o.type;
  }
};
struct RangeKeyHash {
  size_t operator()(const RangeKey& k) const {
    const uint64_t h = (uint64_t(k.domain) << 33) ^ (uint64_t(k.message) << 2) ^ k.type;
    return static_cast<size_t>(h * 0x9e3779b97f4a7c15ull >> 7);
  }
};

std::string dims(int64_t x, int64_t y, int64_t z) {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

}  // namespace

const std::string& ReportData::kernelName(StringId id) {
  if (id >= demangled_.size()) demangled_.resize(std::max<size_t>(id + 1, trace_.strings.size()));
  if (demangled_[id] == nullptr) demangled_[id] = &demangler_.get(trace_.strings.get(id));
  return *demangled_[id];
}

const std::vector<Group>& ReportData::kernels() {
  finishSideTask(kernelsTask_);
  if (!kernels_) kernels_ = makeKernels(demangler_, scratch_);
  return *kernels_;
}

std::vector<Group> ReportData::makeKernels(DemangleCache& names, ScratchValues& scratch) {
  auto kernelName = [&](StringId id) -> const std::string& { return names.get(trace_.strings.get(id)); };
  std::vector<uint32_t> slots(trace_.strings.size(), kNoSlot);
  std::vector<Builder> builders;
  Untimed& untimed = untimed_[static_cast<size_t>(RecordKind::Kernel)];
  untimed = {};
  const auto& records = trace_.store.records<KernelRecord>();
  // First pass: a slot per name and its number of values, so that each
  // vector is allocated once at its final size.
  std::vector<uint64_t> sizes;
  records.scan([&](const KernelRecord& k) {
    if (k.name >= slots.size()) slots.resize(k.name + 1, kNoSlot);
    uint32_t& slot = slots[k.name];
    if (slot == kNoSlot) {
      slot = static_cast<uint32_t>(builders.size());
      builders.emplace_back();
      builders.back().group.name = kernelName(k.name);
      sizes.push_back(0);
    }
    sizes[slot] += hasTime(k.start, k.end);
  });
  placeSlices(builders, sizes, scratch);
  records.scan([&](const KernelRecord& k) {
    Builder& b = builders[slots[k.name]];
    ++b.group.records;
    addExample(b.group, k.correlationId);
    if (hasTime(k.start, k.end)) {
      const uint64_t d = k.end - k.start;
      b.addDuration(d);
      if (d < kTinyKernelNs) ++b.group.tiny;
    } else {
      noteUntimed(untimed, [&] {
        return shortName(kernelName(k.name)) + " (correlation " + std::to_string(k.correlationId) +
               ")";
      });
    }
  });
  untimedDone_[static_cast<size_t>(RecordKind::Kernel)] = true;
  return finish(builders, false);
}

const std::vector<Group>& ReportData::kernelsByConfig() {
  if (kernelsByConfig_) return *kernelsByConfig_;
  std::unordered_map<ConfigKey, uint32_t, ConfigKeyHash> slots;
  std::vector<Builder> builders;
  ConfigKey lastKey{};
  uint32_t lastSlot = kNoSlot;
  trace_.store.records<KernelRecord>().scan([&](const KernelRecord& k) {
    const ConfigKey key{k.name, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ};
    uint32_t slot = lastSlot;
    if (slot == kNoSlot || !(key == lastKey)) {
      auto [it, added] = slots.try_emplace(key, static_cast<uint32_t>(builders.size()));
      if (added) {
        builders.emplace_back();
        Group& g = builders.back().group;
        g.name = kernelName(k.name);
        g.grid = dims(k.gridX, k.gridY, k.gridZ);
        g.block = dims(k.blockX, k.blockY, k.blockZ);
      }
      slot = it->second;
      lastKey = key;
      lastSlot = slot;
    }
    Builder& b = builders[slot];
    ++b.group.records;
    addExample(b.group, k.correlationId);
    if (hasTime(k.start, k.end)) b.durations.push_back(k.end - k.start);
  });
  kernelsByConfig_ = finish(builders, false);
  return *kernelsByConfig_;
}

const std::vector<Group>& ReportData::copies() {
  if (copies_) return *copies_;
  std::vector<Builder> builders(kCopyKinds + 1);  // one per copy kind, then memsets
  for (size_t k = 0; k < kCopyKinds; ++k)
    builders[k].group.name = copyName(static_cast<uint8_t>(k));
  builders[kCopyKinds].group.name = "[CUDA memset]";
  Untimed& copyUntimed = untimed_[static_cast<size_t>(RecordKind::Memcpy)];
  Untimed& setUntimed = untimed_[static_cast<size_t>(RecordKind::Memset)];
  copyUntimed = {};
  setUntimed = {};
  trace_.store.records<MemcpyRecord>().scan([&](const MemcpyRecord& m) {
    Builder& b = builders[clampCopyKind(m.copyKind)];
    ++b.group.records;
    addExample(b.group, m.correlationId);
    if (hasTime(m.start, m.end)) {
      b.durations.push_back(m.end - m.start);
    } else {
      noteUntimed(copyUntimed, [&] {
        return b.group.name + " (correlation " + std::to_string(m.correlationId) + ")";
      });
    }
  });
  trace_.store.records<MemsetRecord>().scan([&](const MemsetRecord& m) {
    Builder& b = builders[kCopyKinds];
    ++b.group.records;
    addExample(b.group, m.correlationId);
    if (hasTime(m.start, m.end)) {
      b.durations.push_back(m.end - m.start);
    } else {
      noteUntimed(setUntimed, [&] {
        return b.group.name + " (correlation " + std::to_string(m.correlationId) + ")";
      });
    }
  });
  untimedDone_[static_cast<size_t>(RecordKind::Memcpy)] = true;
  untimedDone_[static_cast<size_t>(RecordKind::Memset)] = true;
  copies_ = finish(builders, false);
  return *copies_;
}

const std::vector<Group>& ReportData::memoryOps() {
  if (memoryOps_) return *memoryOps_;
  // Copies by (kind, source kind, destination kind), then memsets by memory kind.
  std::vector<Builder> builders(kCopyKinds * kMemoryKinds * kMemoryKinds + kMemoryKinds);
  const size_t setBase = kCopyKinds * kMemoryKinds * kMemoryKinds;
  auto add = [](Builder& b, uint64_t start, uint64_t end, uint64_t bytes, uint32_t id) {
    ++b.group.records;
    addExample(b.group, id);
    b.bytes.push_back(bytes);
    if (hasTime(start, end)) {
      b.durations.push_back(end - start);
      b.group.timedBytes += bytes;
    }
  };
  trace_.store.records<MemcpyRecord>().scan([&](const MemcpyRecord& m) {
    const uint8_t kind = clampCopyKind(m.copyKind);
    const uint8_t src = clampMemoryKind(m.srcKind);
    const uint8_t dst = clampMemoryKind(m.dstKind);
    Builder& b = builders[(kind * kMemoryKinds + src) * kMemoryKinds + dst];
    if (b.group.records == 0)
      b.group.name = copyName(kind) + " " + memoryKindName(static_cast<MemoryKind>(src)) + " -> " +
                     memoryKindName(static_cast<MemoryKind>(dst));
    add(b, m.start, m.end, m.bytes, m.correlationId);
  });
  trace_.store.records<MemsetRecord>().scan([&](const MemsetRecord& m) {
    const uint8_t kind = clampMemoryKind(m.memoryKind);
    Builder& b = builders[setBase + kind];
    if (b.group.records == 0)
      b.group.name = std::string("[CUDA memset] ") + memoryKindName(static_cast<MemoryKind>(kind));
    add(b, m.start, m.end, m.bytes, m.correlationId);
  });
  memoryOps_ = finish(builders, true);
  return *memoryOps_;
}

std::vector<Group> ReportData::callGroups(bool osrt, Untimed& untimed, ScratchValues& scratch) {
  std::vector<uint32_t> slots(trace_.strings.size(), kNoSlot);
  std::vector<Builder> builders;
  untimed = {};
  const auto& records = trace_.store.records<ApiRecord>();
  std::vector<uint64_t> sizes;  // first pass: slots and sizes, as in kernels()
  // CPU-side libc calls (osrt) are not CUDA API calls: each side has its own table.
  // A driver call made inside a runtime call is counted in the runtime call.
  std::optional<NestedDriverCalls> nested;
  if (!osrt) {
    nested.emplace(records);
    nestedDriverCalls_ = nested->count();
  }
  const auto wanted = [osrt, &nested](const ApiRecord& a) {
    if (nested && nested->contains(a)) return false;
    return (a.domain == static_cast<uint8_t>(ApiDomain::Osrt)) == osrt;
  };
  records.scan([&](const ApiRecord& a) {
    if (!wanted(a)) return;
    if (a.name >= slots.size()) slots.resize(a.name + 1, kNoSlot);
    uint32_t& slot = slots[a.name];
    if (slot == kNoSlot) {
      slot = static_cast<uint32_t>(builders.size());
      builders.emplace_back();
      const std::string_view name = trace_.strings.get(a.name);
      builders.back().group.name = name.empty() ? "(unnamed)" : std::string(name);
      sizes.push_back(0);
    }
    sizes[slot] += hasTime(a.start, a.end);
  });
  if (builders.empty()) return {};  // none of this side's calls
  placeSlices(builders, sizes, scratch);
  records.scan([&](const ApiRecord& a) {
    if (!wanted(a)) return;
    Builder& b = builders[slots[a.name]];
    ++b.group.records;
    addExample(b.group, a.correlationId);
    if (hasTime(a.start, a.end)) {
      b.addDuration(a.end - a.start);
    } else {
      noteUntimed(untimed, [&] {
        // An osrt call has no correlation id worth naming: its thread finds it.
        return b.group.name + (osrt ? " (thread " + std::to_string(a.threadId) + ")"
                                    : " (correlation " + std::to_string(a.correlationId) + ")");
      });
    }
  });
  return finish(builders, false);
}

const std::vector<Group>& ReportData::api() {
  finishSideTask(apiTask_);
  if (!api_) makeApi(scratch_);
  return *api_;
}

void ReportData::makeApi(ScratchValues& scratch) {
  api_ = callGroups(false, untimed_[static_cast<size_t>(RecordKind::Api)], scratch);
  untimedDone_[static_cast<size_t>(RecordKind::Api)] = true;
}

uint64_t ReportData::nestedDriverCalls() {
  api();
  return nestedDriverCalls_;
}

const std::vector<Group>& ReportData::osrt() {
  if (!osrt_) osrt_ = callGroups(true, osrtUntimed_, scratch_);
  return *osrt_;
}

const Untimed& ReportData::osrtUntimed() {
  osrt();
  return osrtUntimed_;
}

const std::vector<Group>& ReportData::ranges() {
  if (ranges_) return *ranges_;
  std::unordered_map<RangeKey, uint32_t, RangeKeyHash> slots;
  std::vector<Builder> builders;
  Untimed& untimed = untimed_[static_cast<size_t>(RecordKind::Nvtx)];
  untimed = {};
  marks_ = 0;
  openExamples_.clear();
  trace_.store.records<NvtxRecord>().scan([&](const NvtxRecord& n) {
    const auto type = static_cast<NvtxType>(n.type);
    if (type == NvtxType::Mark) {
      ++marks_;
      return;
    }
    const RangeKey key{n.domain, n.message, n.type};
    auto [it, added] = slots.try_emplace(key, static_cast<uint32_t>(builders.size()));
    if (added) {
      builders.emplace_back();
      Group& g = builders.back().group;
      const std::string_view domain = trace_.strings.get(n.domain);
      const std::string_view message = trace_.strings.get(n.message);
      g.name = domain.empty() ? "" : std::string(domain) + ":";
      g.name += message.empty() ? "(no message)" : std::string(message);
      g.style = nvtxTypeName(type);
    }
    Builder& b = builders[it->second];
    ++b.group.records;
    const bool open = (n.flags & kNvtxOpen) != 0;
    if (open) {
      ++b.group.open;
      if (openExamples_.size() < kMaxExamples)
        openExamples_.push_back("'" + shortName(b.group.name) + "' (" + b.group.style +
                                ", thread " + std::to_string(n.threadId) + ")");
    }
    if (hasTime(n.start, n.end)) {
      b.durations.push_back(n.end - n.start);
    } else {
      noteUntimed(untimed, [&] {
        return "'" + shortName(b.group.name) + "' (thread " + std::to_string(n.threadId) + ")";
      });
    }
  });
  untimedDone_[static_cast<size_t>(RecordKind::Nvtx)] = true;
  ranges_ = finish(builders, false);
  return *ranges_;
}

const Untimed& ReportData::untimed(RecordKind kind) {
  // What prepare() started for the kind writes its own.
  if (kind == RecordKind::Kernel) finishSideTask(kernelsTask_);
  if (kind == RecordKind::Api) finishSideTask(apiTask_);
  const auto k = static_cast<size_t>(kind);
  if (!untimedDone_[k]) {
    switch (kind) {
      case RecordKind::Kernel:
        kernels();
        break;
      case RecordKind::Memcpy:
      case RecordKind::Memset:
        copies();
        break;
      case RecordKind::Api:
        api();
        break;
      case RecordKind::Nvtx:
        ranges();
        break;
      default:
        break;
    }
  }
  return untimed_[k];
}

uint64_t ReportData::nvtxMarks() {
  ranges();
  return marks_;
}

const std::vector<std::string>& ReportData::openRangeExamples() {
  ranges();
  return openExamples_;
}

}  // namespace cuptitrace::reports
