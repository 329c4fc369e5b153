#include "exporters/pftrace/pftrace_interning.h"

#include <cstring>
#include <string>
#include <utility>

namespace cuptitrace::pftrace {

void IidMap::grow() {
  const size_t size = keys_.empty() ? 64 : keys_.size() * 2;
  std::vector<uint32_t> keys(size, 0), vals(size, 0);
  unsigned shift = 64;
  for (size_t s = size; s > 1; s >>= 1) --shift;
  std::vector<uint32_t> used;
  used.reserve(used_.size());
  const size_t mask = size - 1;
  for (const uint32_t old : used_) {
    if (vals_[old] == 0) continue;
    size_t i = static_cast<size_t>((keys_[old] * 0x9E3779B97F4A7C15ull) >> shift);
    while (vals[i] != 0) i = (i + 1) & mask;
    keys[i] = keys_[old];
    vals[i] = vals_[old];
    used.push_back(static_cast<uint32_t>(i));
  }
  keys_ = std::move(keys);
  vals_ = std::move(vals);
  used_ = std::move(used);
  mask_ = mask;
  shift_ = shift;
}

Interner::Interner(const StringTable& strings) : strings_(strings) {}

void Interner::reset(Sequence* s) {
  seq_ = s;
  interned_.clear();
  names_ = values_ = 0;
  rawNameIid_.clear();
  kernelNameIid_.clear();
  stringValueIid_.clear();
  composedNameIid_.clear();
  labelNameIid_.clear();
  textValueIid_.clear();
  ncclValueIid_.clear();
  std::memset(launchTypeIid_, 0, sizeof launchTypeIid_);
  std::memset(copyKindIid_, 0, sizeof copyKindIid_);
  std::memset(memoryKindIid_, 0, sizeof memoryKindIid_);
  grids_.clear();
  blocks_.clear();
}

void Interner::intern(uint32_t field, uint64_t iid, std::string_view name) {
  const size_t len = 1 + varintSize(iid) + bytesFieldSize(2, name.size());
  interned_.tag(field, WireType::LengthDelimited);
  interned_.varint(len);
  interned_.byte(0x08);
  interned_.varint(iid);
  interned_.bytesField(2, name);
}

uint32_t Interner::dynamicArgIid(const std::string& name) {
  const auto [it, added] = dynamicArgIid_.try_emplace(name, 0);
  if (added) {
    it->second = nextDynamicArgIid_++;
    intern(kInternedAnnotationNames, it->second, validUtf8(name));
  }
  return it->second;
}

uint32_t Interner::newDim3(int64_t x, int64_t y, int64_t z) {
  return newValue("[" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) +
                  "]");
}

const std::string& Interner::demangled(StringId id) {
  const auto [it, added] = demangled_.try_emplace(id);
  if (added) it->second = validUtf8(demangle(strings_.get(id)));
  return it->second;
}

}  // namespace cuptitrace::pftrace
