// The .pftrace writer's interned strings. Event names, categories, argument
// names and repeated string arguments (grid and block, enum names, NVTX
// domains) go by iid: each is defined in the interned_data of the first
// packet of a sequence that uses it. Iids are numbered per trace; a sequence
// defines only those it uses. Protobuf strings must be valid UTF-8:
// validUtf8 (core/utf8.h) replaces what is not, as the JSON exporter does.
#pragma once

#include <algorithm>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/demangle.h"
#include "core/records.h"
#include "core/string_table.h"
#include "core/utf8.h"
#include "exporters/pftrace/pftrace_wire.h"
#include "exporters/pftrace/proto_writer.h"
#include "timeline/record_args.h"

namespace cuptitrace::pftrace {

// Marks bit `i`; true when it was not marked before.
inline bool firstUse(std::vector<uint64_t>& bits, uint32_t i) {
  const size_t word = i >> 6;
  if (word >= bits.size()) bits.resize(std::max(word + 1, bits.size() * 2), 0);
  const uint64_t mask = uint64_t{1} << (i & 63);
  if (bits[word] & mask) return false;
  bits[word] |= mask;
  return true;
}

// A packet sequence: its id, the time of its last packet (its clock is
// incremental) and what has been interned on it.
struct Sequence {
  uint32_t id = 0;
  uint64_t lastTs = 0;
  uint32_t categories = 0;  // bit per Category
  std::bitset<kArgCount> args;
  std::vector<uint64_t> names, values;  // bit per iid
};

// The iids of one trace's strings (names_ and values_ hold their text), each
// defined on the current sequence the first time that sequence uses it: the
// definitions wait in entries() for the packet being written.
class Interner {
 public:
  explicit Interner(const StringTable& strings);

  // The sequence of the packet being written.
  void setSequence(Sequence* s) { seq_ = s; }
  Sequence& sequence() const { return *seq_; }
  // InternedData entries for the packet being written; its writer clears them.
  ProtoWriter& entries() { return interned_; }

  void useCategory(Category c) {
    const uint32_t bit = 1u << c;
    if (seq_->categories & bit) return;
    seq_->categories |= bit;
    intern(kInternedCategories, c, kCategoryNames[c]);
  }
  // Argument names (record_args.h): their iids are fixed (the enum value),
  // each interned on a sequence the first time it is used there.
  uint32_t argIid(Arg a) {
    const auto iid = static_cast<uint32_t>(a);
    if (!seq_->args[iid]) {
      seq_->args[iid] = true;
      intern(kInternedAnnotationNames, iid, kArgNames[iid]);
    }
    return iid;
  }
  // Argument names made up at run time (counters, labels): only the trace's
  // description has them, written once, on the main sequence.
  uint32_t dynamicArgIid(const std::string& name);

  // Event names: the trace's strings as they are, kernels' demangled.
  uint32_t rawNameIid(StringId id) {
    uint32_t& iid = slot(rawNameIid_, id);
    if (iid == 0) iid = newName(validUtf8(strings_.get(id)));
    return useName(iid);
  }
  uint32_t kernelNameIid(StringId id) {
    uint32_t& iid = slot(kernelNameIid_, id);
    if (iid == 0) iid = newName(validUtf8(demangle(strings_.get(id))));
    return useName(iid);
  }
  // A name made of our own words, made only the first time its key is seen.
  template <typename F>
  uint32_t composedNameIid(uint32_t key, F&& makeName) {
    const auto [it, added] = composedNameIid_.try_emplace(key, 0);
    if (added) it->second = newName(makeName());
    return useName(it->second);
  }
  // A name made from a record at run time (OpenACC event labels).
  uint32_t labelNameIid(const std::string& label) {
    const auto [it, added] = labelNameIid_.try_emplace(label, 0);
    if (added) it->second = newName(validUtf8(label));
    return useName(it->second);
  }

  // String argument values: the trace's strings, enums' names, our own text.
  uint32_t stringValueIid(StringId id) {
    uint32_t& iid = slot(stringValueIid_, id);
    if (iid == 0) iid = newValue(validUtf8(strings_.get(id)));
    return useValue(iid);
  }
  uint32_t labelIid(Label l, uint8_t code, const char* text) {
    uint32_t* iids = l == Label::CopyKind     ? copyKindIid_
                     : l == Label::MemoryKind ? memoryKindIid_
                                              : launchTypeIid_;
    if (iids[code] == 0) iids[code] = newValue(text);
    return useValue(iids[code]);
  }
  uint32_t textValueIid(const std::string& text) { return textIid(textValueIid_, text); }
  // The parts of NCCL kernels' names (nccl_names.h).
  uint32_t ncclValueIid(const std::string& text) { return textIid(ncclValueIid_, text); }
  // "[x,y,z]", as the JSON exporter writes grid and block.
  uint32_t dim3Iid(Arg a, int64_t x, int64_t y, int64_t z) {
    return useValue((a == Arg::Grid ? grids_ : blocks_).iid(*this, x, y, z));
  }

 private:
  // Grid or block shapes. Launches repeat a few: a small direct-mapped
  // cache saves most map lookups.
  struct Dim3Key {
    int64_t x, y, z;
    bool operator==(const Dim3Key& o) const { return x == o.x && y == o.y && z == o.z; }
  };
  struct Dim3Hash {
    size_t operator()(const Dim3Key& k) const {
      uint64_t h = static_cast<uint64_t>(k.x) * 0x9E3779B97F4A7C15ull;
      h ^= static_cast<uint64_t>(k.y) + 0x7F4A7C15ull + (h << 6) + (h >> 2);
      h ^= static_cast<uint64_t>(k.z) + 0x9E3779B9ull + (h << 6) + (h >> 2);
      return static_cast<size_t>(h);
    }
  };
  class Dim3Cache {
   public:
    uint32_t iid(Interner& in, int64_t x, int64_t y, int64_t z) {
      const Dim3Key key{x, y, z};
      Entry& recent = recent_[Dim3Hash()(key) >> 4 & 15];
      if (recent.iid != 0 && recent.key == key) return recent.iid;
      const auto [it, added] = iids_.try_emplace(key, 0);
      if (added) it->second = in.newDim3(x, y, z);
      recent = {key, it->second};
      return it->second;
    }

   private:
    struct Entry {
      Dim3Key key;
      uint32_t iid;
    };
    std::unordered_map<Dim3Key, uint32_t, Dim3Hash> iids_;
    Entry recent_[16] = {};
  };

  // An interned entry {iid, name} of InternedData field `field`, for the next packet.
  void intern(uint32_t field, uint64_t iid, std::string_view name);
  static uint32_t& slot(std::vector<uint32_t>& table, StringId id) {
    if (id >= table.size()) table.resize(size_t{id} + 1, 0);
    return table[id];
  }
  uint32_t newName(std::string name);
  uint32_t newValue(std::string value);
  uint32_t newDim3(int64_t x, int64_t y, int64_t z);
  // The iid of an event name or string value, defined on the current sequence if new there.
  uint32_t useName(uint32_t iid) {
    if (firstUse(seq_->names, iid)) intern(kInternedEventNames, iid, names_[iid]);
    return iid;
  }
  uint32_t useValue(uint32_t iid) {
    if (firstUse(seq_->values, iid)) intern(kInternedAnnotationStrings, iid, values_[iid]);
    return iid;
  }
  uint32_t textIid(std::unordered_map<std::string, uint32_t>& iids, const std::string& text) {
    const auto [it, added] = iids.try_emplace(text, 0);
    if (added) it->second = newValue(validUtf8(text));  // NCCL parts come from a kernel's name
    return useValue(it->second);
  }

  const StringTable& strings_;
  Sequence* seq_ = nullptr;
  ProtoWriter interned_;
  std::vector<std::string> names_, values_;  // by iid
  std::unordered_map<std::string, uint32_t> dynamicArgIid_;
  uint32_t nextDynamicArgIid_ = kArgCount;
  std::vector<uint32_t> rawNameIid_, kernelNameIid_, stringValueIid_;  // by StringId
  std::unordered_map<uint32_t, uint32_t> composedNameIid_;  // memcpy, memset, sync, graph names
  std::unordered_map<std::string, uint32_t> labelNameIid_;  // OpenACC event labels
  std::unordered_map<std::string, uint32_t> textValueIid_;  // colors
  std::unordered_map<std::string, uint32_t> ncclValueIid_;
  uint32_t launchTypeIid_[256] = {}, copyKindIid_[256] = {}, memoryKindIid_[256] = {};
  Dim3Cache grids_, blocks_;
};

}  // namespace cuptitrace::pftrace
