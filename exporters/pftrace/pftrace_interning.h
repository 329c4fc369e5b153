// The .pftrace writer's interned strings. Event names, categories, argument
// names and repeated string arguments (grid and block, enum names, NVTX
// domains) go by iid: each is defined in the interned_data of the first
// packet of a sequence that uses it. Iids are numbered per trace; a sequence
// defines only those it uses. Protobuf strings must be valid UTF-8:
// validUtf8 (core/utf8.h) replaces what is not, as the JSON exporter does.
//
// Encoding a window's events on several threads (pftrace_chunks.h), each
// thread has an Interner of its own with the same iids: one that meets a
// string the trace has no iid for yet gives it a provisional one and notes
// it (speculative()), and the trace's iids are then given out in the order
// one thread writing the events would have given them (commit()), in every
// thread's Interner alike.
#pragma once

#include <algorithm>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
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

// What an event used that its sequence had not interned yet (kind, iid):
// categories, argument names, event names, string values. With a
// provisional iid, `id` is the index of the string in newKeys().
struct Use {
  enum Kind : uint8_t { Category, ArgName, Name, Value };
  Kind kind;
  bool provisional;
  uint32_t id;
};

// A packet sequence: its id, the time of its last packet (its clock is
// incremental) and what has been interned on it.
struct Sequence {
  uint32_t id = 0;
  uint64_t lastTs = 0;
  uint32_t categories = 0;  // bit per Category
  std::bitset<kArgCount> args;
  std::vector<uint64_t> names, values;  // bit per iid

  // Whether `id` of `kind` is interned on it; marks it so.
  bool has(Use::Kind kind, uint32_t id) const {
    switch (kind) {
      case Use::Category: return (categories >> id & 1) != 0;
      case Use::ArgName: return args[id];
      case Use::Name: return size_t{id >> 6} < names.size() && (names[id >> 6] >> (id & 63) & 1) != 0;
      case Use::Value: return size_t{id >> 6} < values.size() && (values[id >> 6] >> (id & 63) & 1) != 0;
    }
    return false;
  }
  void add(Use::Kind kind, uint32_t id) {
    switch (kind) {
      case Use::Category: categories |= 1u << id; break;
      case Use::ArgName: args[id] = true; break;
      case Use::Name: firstUse(names, id); break;
      case Use::Value: firstUse(values, id); break;
    }
  }
};

// A string the trace had no iid for, met while speculative: which table it
// goes in, its key there, its text, and the event (setEvent) that met it first.
struct NewKey {
  enum Kind : uint8_t { RawName, KernelName, ComposedName, LabelName, StringValue, LaunchType,
                        CopyKind, MemoryKind, TextValue, NcclValue, Grid, Block };
  explicit NewKey(Kind k, uint32_t i = 0) : kind(k), id(i) {}
  Kind kind;
  uint32_t id = 0;  // StringId, composed key or label code
  int64_t x = 0, y = 0, z = 0;  // a dim3
  std::string key;              // a label or text
  std::string text;             // what the iid stands for
  uint32_t event = 0;
  bool isName() const { return isNameKind(kind); }
  static bool isNameKind(Kind k) { return k <= LabelName; }
  // Its kind and key as one string: equal for the same string of a table.
  std::string index() const {
    std::string i(1, static_cast<char>(kind));
    i.append(reinterpret_cast<const char*>(&id), sizeof id);
    for (const int64_t v : {x, y, z}) i.append(reinterpret_cast<const char*>(&v), sizeof v);
    return i + key;
  }
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

  // ---- Encoding apart (pftrace_chunks.h) ------------------------------------------
  // While speculative, a string without an iid gets a provisional one (not
  // written: the event's bytes are to be written again) and goes in
  // newKeys(); what the events use that their sequence lacks goes in uses().
  void setSpeculative(bool on) { speculative_ = on; }
  void setEvent(uint32_t event) { event_ = event; }
  std::vector<NewKey>& newKeys() { return newKeys_; }
  std::vector<Use>& uses() { return uses_; }
  void clearNotes();
  // Takes the provisional iids of newKeys() out of the tables (before
  // newKeys() is cleared or taken).
  void dropProvisional();
  // Gives `k` the trace's next iid of its kind, as meeting it first would.
  uint32_t commit(const NewKey& k);

  void useCategory(Category c) {
    const uint32_t bit = 1u << c;
    if (seq_->categories & bit) return;
    seq_->categories |= bit;
    note(Use::Category, c);
    intern(kInternedCategories, c, kCategoryNames[c]);
  }
  // Argument names (record_args.h): their iids are fixed (the enum value),
  // each interned on a sequence the first time it is used there.
  uint32_t argIid(Arg a) {
    const auto iid = static_cast<uint32_t>(a);
    if (!seq_->args[iid]) {
      seq_->args[iid] = true;
      note(Use::ArgName, iid);
      intern(kInternedAnnotationNames, iid, kArgNames[iid]);
    }
    return iid;
  }
  // Argument names made up at run time (counters, labels): only the trace's
  // description has them, written once, on the main sequence.
  uint32_t dynamicArgIid(const std::string& name);

  // Event names: the trace's strings as they are, kernels' demangled.
  uint32_t rawNameIid(StringId id) {
    const uint32_t iid = slot(rawNameIid_, id);
    return iid != 0 ? useName(iid) : metString(NewKey::RawName, id);
  }
  uint32_t kernelNameIid(StringId id) {
    const uint32_t iid = slot(kernelNameIid_, id);
    return iid != 0 ? useName(iid) : metString(NewKey::KernelName, id);
  }
  // A name made of our own words, made only the first time its key is seen.
  template <typename F>
  uint32_t composedNameIid(uint32_t key, F&& makeName) {
    const auto it = composedNameIid_.find(key);
    if (it != composedNameIid_.end()) return useName(it->second);
    NewKey k(NewKey::ComposedName, key);
    k.text = makeName();
    return met(std::move(k));
  }
  // A name made from a record at run time (OpenACC event labels).
  uint32_t labelNameIid(const std::string& label) { return mapped(labelNameIid_, NewKey::LabelName, label); }

  // String argument values: the trace's strings, enums' names, our own text.
  uint32_t stringValueIid(StringId id) {
    const uint32_t iid = slot(stringValueIid_, id);
    return iid != 0 ? useValue(iid) : metString(NewKey::StringValue, id);
  }
  uint32_t labelIid(Label l, uint8_t code, const char* text) {
    const uint32_t* iids = l == Label::CopyKind     ? copyKindIid_
                           : l == Label::MemoryKind ? memoryKindIid_
                                                    : launchTypeIid_;
    return iids[code] != 0 ? useValue(iids[code]) : metLabel(l, code, text);
  }
  uint32_t textValueIid(const std::string& text) { return mapped(textValueIid_, NewKey::TextValue, text); }
  // The parts of NCCL kernels' names (nccl_names.h).
  uint32_t ncclValueIid(const std::string& text) { return mapped(ncclValueIid_, NewKey::NcclValue, text); }
  // "[x,y,z]", as the JSON exporter writes grid and block.
  uint32_t dim3Iid(Arg a, int64_t x, int64_t y, int64_t z) {
    const uint32_t iid = (a == Arg::Grid ? grids_ : blocks_).find(x, y, z);
    return iid != 0 ? useValue(iid) : metDim3(a == Arg::Grid, x, y, z);
  }

 private:
  // Iids from here on are provisional: the index of the string in newKeys_.
  static constexpr uint32_t kProvisional = uint32_t{1} << 31;

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
    // Its iid, 0 when it has none yet.
    uint32_t find(int64_t x, int64_t y, int64_t z) {
      const Dim3Key key{x, y, z};
      Entry& recent = recent_[Dim3Hash()(key) >> 4 & 15];
      if (recent.iid != 0 && recent.key == key) return recent.iid;
      const auto it = iids_.find(key);
      if (it == iids_.end()) return 0;
      recent = {key, it->second};
      return it->second;
    }
    void add(int64_t x, int64_t y, int64_t z, uint32_t iid) { iids_.emplace(Dim3Key{x, y, z}, iid); }
    void erase(int64_t x, int64_t y, int64_t z) {
      const Dim3Key key{x, y, z};
      iids_.erase(key);
      Entry& recent = recent_[Dim3Hash()(key) >> 4 & 15];
      if (recent.key == key) recent.iid = 0;
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
  // Puts `iid` in k's table at k's key; 0 takes it out.
  void place(const NewKey& k, uint32_t iid);
  static std::string dim3Text(int64_t x, int64_t y, int64_t z);
  // A string met for the first time (its key and text in `k`): its iid
  // given and used, or while speculative a provisional one (in newKeys_,
  // and in its table until dropProvisional()). Out of line: rare.
  uint32_t met(NewKey k);
  uint32_t metString(NewKey::Kind kind, StringId id);
  uint32_t metLabel(Label l, uint8_t code, const char* text);
  uint32_t metDim3(bool grid, int64_t x, int64_t y, int64_t z);
  // The iid of an event name or string value, defined on the current sequence if new there.
  uint32_t useName(uint32_t iid) {
    if (iid < kProvisional && firstUse(seq_->names, iid)) {
      note(Use::Name, iid);
      intern(kInternedEventNames, iid, names_[iid]);
    }
    return iid;
  }
  uint32_t useValue(uint32_t iid) {
    if (iid < kProvisional && firstUse(seq_->values, iid)) {
      note(Use::Value, iid);
      intern(kInternedAnnotationStrings, iid, values_[iid]);
    }
    return iid;
  }
  void note(Use::Kind kind, uint32_t id) {
    if (speculative_) uses_.push_back(Use{kind, false, id});
  }
  uint32_t mapped(std::unordered_map<std::string, uint32_t>& iids, NewKey::Kind kind, const std::string& key) {
    const auto it = iids.find(key);
    if (it != iids.end()) return NewKey::isNameKind(kind) ? useName(it->second) : useValue(it->second);
    NewKey k(kind);
    k.key = key;
    k.text = validUtf8(key);  // NCCL parts come from a kernel's name
    return met(std::move(k));
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

  // Encoding apart: the strings given provisional iids (in the tables
  // until clearNotes()), what the events used.
  bool speculative_ = false;
  uint32_t event_ = 0;
  std::vector<NewKey> newKeys_;
  std::vector<Use> uses_;
};

}  // namespace cuptitrace::pftrace
