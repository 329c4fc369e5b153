// The .pftrace writer's interned strings. Event names, categories, argument
// names and repeated string arguments (grid and block, enum names, NVTX
// domains) go by iid: each is defined in the interned_data of the first
// packet of its sequence that uses it. Every piece of events (pftrace_pieces.h)
// is a sequence of its own, so iids are numbered per piece, from 1, as
// they are first used: a piece's encoding depends on nothing else written,
// and one Interner serves the pieces of one thread in turn (reset()).
// Protobuf strings must be valid UTF-8: validUtf8 (core/utf8.h) replaces
// what is not, as the JSON exporter does.
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

// A packet sequence: its id, the time of its last packet (its clock is
// incremental) and the fixed iids (categories, argument names) interned on it.
struct Sequence {
  uint32_t id = 0;
  uint64_t lastTs = 0;
  uint32_t categories = 0;  // bit per Category
  std::bitset<kArgCount> args;
};

// Iids by a 32-bit key (a StringId): open addressing, linear probing,
// emptied for each piece at the cost of the keys it held.
class IidMap {
 public:
  // The iid of `key`, 0 when it has none yet: set it through the reference.
  uint32_t& operator[](uint32_t key) {
    if (2 * (used_.size() + 1) > keys_.size()) grow();
    size_t i = home(key);
    while (vals_[i] != 0 && keys_[i] != key) i = (i + 1) & mask_;
    if (vals_[i] == 0) {
      keys_[i] = key;
      used_.push_back(static_cast<uint32_t>(i));
    }
    return vals_[i];
  }
  void clear() {
    for (const uint32_t i : used_) vals_[i] = 0;
    used_.clear();
  }

 private:
  size_t home(uint32_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_); }
  void grow();

  std::vector<uint32_t> keys_, vals_;  // a slot is free while its value is 0
  std::vector<uint32_t> used_;         // slots taken (a key whose iid stays 0 is taken too)
  size_t mask_ = 0;
  unsigned shift_ = 64;
};

// The iids of one sequence's strings, each defined (interned) in the packet
// that first uses it: the definitions wait in entries() for the packet being
// written. reset() starts a new sequence; what stays from one to the next is
// only text worth keeping (kernels' demangled names).
class Interner {
 public:
  explicit Interner(const StringTable& strings);

  // A new sequence `s`: no iid is defined on it yet (its first packet clears its state).
  void reset(Sequence* s);
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
    uint32_t& iid = rawNameIid_[id];
    if (iid == 0) iid = newName(validUtf8(strings_.get(id)));
    return iid;
  }
  uint32_t kernelNameIid(StringId id) {
    uint32_t& iid = kernelNameIid_[id];
    if (iid == 0) iid = newName(demangled(id));
    return iid;
  }
  // A name made of our own words, made only the first time its key is seen.
  template <typename F>
  uint32_t composedNameIid(uint32_t key, F&& makeName) {
    const auto [it, added] = composedNameIid_.try_emplace(key, 0);
    if (added) it->second = newName(makeName());
    return it->second;
  }
  // A name made from a record at run time (OpenACC event labels).
  uint32_t labelNameIid(const std::string& label) {
    const auto [it, added] = labelNameIid_.try_emplace(label, 0);
    if (added) it->second = newName(validUtf8(label));
    return it->second;
  }

  // String argument values: the trace's strings, enums' names, our own text.
  uint32_t stringValueIid(StringId id) {
    uint32_t& iid = stringValueIid_[id];
    if (iid == 0) iid = newValue(validUtf8(strings_.get(id)));
    return iid;
  }
  uint32_t labelIid(Label l, uint8_t code, const char* text) {
    uint32_t* iids = l == Label::CopyKind     ? copyKindIid_
                     : l == Label::MemoryKind ? memoryKindIid_
                                              : launchTypeIid_;
    if (iids[code] == 0) iids[code] = newValue(text);
    return iids[code];
  }
  uint32_t textValueIid(const std::string& text) { return textIid(textValueIid_, text); }
  // The parts of NCCL kernels' names (nccl_names.h).
  uint32_t ncclValueIid(const std::string& text) { return textIid(ncclValueIid_, text); }
  // "[x,y,z]", as the JSON exporter writes grid and block.
  uint32_t dim3Iid(Arg a, int64_t x, int64_t y, int64_t z) {
    return (a == Arg::Grid ? grids_ : blocks_).iid(*this, x, y, z);
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
    void clear() {
      iids_.clear();
      for (Entry& e : recent_) e = Entry{};
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
  // A new iid of an event name or string value, defined for the packet being written.
  uint32_t newName(std::string_view name) {
    intern(kInternedEventNames, ++names_, name);
    return names_;
  }
  uint32_t newValue(std::string_view value) {
    intern(kInternedAnnotationStrings, ++values_, value);
    return values_;
  }
  uint32_t newDim3(int64_t x, int64_t y, int64_t z);
  uint32_t textIid(std::unordered_map<std::string, uint32_t>& iids, const std::string& text) {
    const auto [it, added] = iids.try_emplace(text, 0);
    if (added) it->second = newValue(validUtf8(text));  // NCCL parts come from a kernel's name
    return it->second;
  }
  // A kernel's demangled name, made once per thread.
  const std::string& demangled(StringId id);

  const StringTable& strings_;
  Sequence* seq_ = nullptr;
  ProtoWriter interned_;
  uint32_t names_ = 0, values_ = 0;  // the last iids given
  std::unordered_map<std::string, uint32_t> dynamicArgIid_;
  uint32_t nextDynamicArgIid_ = kArgCount;
  IidMap rawNameIid_, kernelNameIid_, stringValueIid_;      // by StringId
  std::unordered_map<uint32_t, uint32_t> composedNameIid_;  // memcpy, memset, sync, graph names
  std::unordered_map<std::string, uint32_t> labelNameIid_;  // OpenACC event labels
  std::unordered_map<std::string, uint32_t> textValueIid_;  // colors
  std::unordered_map<std::string, uint32_t> ncclValueIid_;
  uint32_t launchTypeIid_[256] = {}, copyKindIid_[256] = {}, memoryKindIid_[256] = {};
  Dim3Cache grids_, blocks_;
  std::unordered_map<StringId, std::string> demangled_;  // kept across sequences
};

}  // namespace cuptitrace::pftrace
