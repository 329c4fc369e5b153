#include "exporters/pftrace/pftrace_interning.h"

#include <string>
#include <utility>

namespace cuptitrace::pftrace {

Interner::Interner(const StringTable& strings) : strings_(strings) {
  const size_t n = strings.size();
  rawNameIid_.assign(n, 0);
  kernelNameIid_.assign(n, 0);
  stringValueIid_.assign(n, 0);
  names_.emplace_back();  // iid 0 is "none"
  values_.emplace_back();
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

uint32_t Interner::newName(std::string name) {
  names_.push_back(std::move(name));
  return static_cast<uint32_t>(names_.size() - 1);
}

uint32_t Interner::newValue(std::string value) {
  values_.push_back(std::move(value));
  return static_cast<uint32_t>(values_.size() - 1);
}

uint32_t Interner::newDim3(int64_t x, int64_t y, int64_t z) {
  return newValue("[" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) +
                  "]");
}

}  // namespace cuptitrace::pftrace
